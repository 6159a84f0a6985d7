// SPDX-License-Identifier: Apache-2.0
#include "detail/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <new>

namespace kubex::client::detail {

struct Inflater::Stream {
  Stream() {
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {  // 16: gzip framing only
      throw std::bad_alloc();  // zlib fails to start only when it cannot allocate its state
    }
  }
  ~Stream() { inflateEnd(&z); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  z_stream z{};
};

Inflater::Inflater(std::size_t limit) : stream_(std::make_unique<Stream>()), limit_(limit) {}

Inflater::~Inflater() = default;

void Inflater::reset() {
  inflateReset(&stream_->z);
  produced_ = 0;
  ended_ = false;
}

bool Inflater::feed(std::string_view in, std::string& out, std::string& problem) {
  if (in.empty()) {
    return true;
  }
  if (ended_) {
    problem = "corrupt gzip body";  // bytes after the member's trailer
    return false;
  }
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // zlib's API is not const
  z.avail_in = static_cast<uInt>(in.size());
  // Output grows in steps sized to the input (a JSON body inflates about tenfold), so that a
  // small read does not zero a large block and a large one needs few steps.
  const std::size_t step = std::clamp<std::size_t>(in.size() * 8, 16384, 262144);
  for (;;) {
    const std::size_t before = out.size();
    out.resize(before + step);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = static_cast<uInt>(step);
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = step - z.avail_out;
    out.resize(before + got);
    produced_ += got;
    if (produced_ > limit_) {
      problem = "decompressed body exceeds the limit of " + std::to_string(limit_) + " bytes";
      return false;
    }
    if (rc == Z_STREAM_END) {
      ended_ = true;
      if (z.avail_in != 0) {
        problem = "corrupt gzip body";
        return false;
      }
      return true;
    }
    if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0)) {
      return true;  // all input taken; the member goes on in the next piece
    }
    if (rc != Z_OK) {
      problem = "corrupt gzip body";
      return false;
    }
  }
}

std::optional<std::string> gunzip(std::string_view in, std::size_t limit, std::string& problem) {
  Inflater inflater(limit);
  std::string out;
  if (!inflater.feed(in, out, problem)) {
    return std::nullopt;
  }
  if (!inflater.ended()) {
    problem = "corrupt gzip body";  // truncated before the trailer
    return std::nullopt;
  }
  return out;
}

}  // namespace kubex::client::detail
