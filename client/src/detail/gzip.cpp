#include "detail/gzip.hpp"

#include <zlib.h>

namespace kubex::client::detail {

std::optional<std::string> gunzip(std::string_view in, std::size_t limit, std::string& problem) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {  // 16: gzip framing only
    problem = "cannot start zlib";
    return std::nullopt;
  }
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // zlib's API is not const
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    const std::size_t before = out.size();
    out.resize(before + 65536);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = 65536;
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(before + (65536 - z.avail_out));
    if (out.size() > limit) {
      problem = "decompressed body exceeds the limit of " + std::to_string(limit) + " bytes";
      inflateEnd(&z);
      return std::nullopt;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      break;  // input ended before the gzip trailer
    }
  }
  const bool complete = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!complete) {
    problem = "corrupt gzip body";
    return std::nullopt;
  }
  return out;
}

}  // namespace kubex::client::detail
