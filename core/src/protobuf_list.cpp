// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_list.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace kubex::protobuf {
namespace {

constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

[[noreturn]] void malformed(const std::string& what, std::size_t at) {
  throw DecodeError(what + " at byte " + std::to_string(at));
}

// A varint at `at` of `data`, moving `at` past it; false while its bytes have not all arrived.
bool varint(std::string_view data, std::size_t& at, std::uint64_t& out, std::size_t origin,
            const char* what) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; at + i < data.size(); ++i) {
    const auto byte = static_cast<unsigned char>(data[at + i]);
    if (i == 9 && byte > 1) {
      malformed(std::string(what) + " overflows 64 bits", origin + at + i);
    }
    value |= static_cast<std::uint64_t>(byte & 0x7FU) << (7U * i);
    if (byte < 0x80U) {
      at += i + 1;
      out = value;
      return true;
    }
  }
  return false;
}

// A field framed: its number and wire type, where its value starts, and where it ends.
struct Framed {
  std::uint64_t number = 0;
  std::uint64_t type = 0;
  std::size_t value = 0;
  std::size_t end = 0;
};

// Frames the field at `at` of a message ending at `limit` (no_limit: not known yet); false
// while its bytes have not all arrived in `data`.
bool frame(std::string_view data, std::size_t at, std::size_t limit, std::size_t origin,
           Framed& f) {
  const bool whole = limit <= data.size();  // the message has all arrived
  const std::string_view in = data.substr(0, std::min(limit, data.size()));
  const auto need = [&](const char* what) {
    if (whole) {
      malformed(std::string("truncated ") + what, origin + in.size());
    }
    return false;
  };
  std::size_t p = at;
  std::uint64_t key = 0;
  if (!varint(in, p, key, origin, "field key")) {
    return need("field key");
  }
  f.number = key >> 3U;
  f.type = key & 7U;
  if (f.number == 0 || f.number > max_field_number) {
    malformed("field number " + std::to_string(f.number) + " out of range", origin + at);
  }
  std::uint64_t skip = 0;
  switch (f.type) {
    case 0: {
      std::uint64_t ignored = 0;
      if (!varint(in, p, ignored, origin, "varint")) {
        return need("varint");
      }
      break;
    }
    case 1:
      skip = 8;
      break;
    case 5:
      skip = 4;
      break;
    case 2: {
      const std::size_t length_at = p;
      if (!varint(in, p, skip, origin, "length")) {
        return need("length");
      }
      if (limit != no_limit && skip > limit - p) {
        malformed("field " + std::to_string(f.number) + " claims " + std::to_string(skip) +
                      " bytes, but its message has " + std::to_string(limit - p) + " left",
                  origin + length_at);
      }
      if (skip > no_limit - p) {
        malformed(
            "field " + std::to_string(f.number) + " claims " + std::to_string(skip) + " bytes",
            origin + length_at);
      }
      break;
    }
    default:
      malformed("field " + std::to_string(f.number) + " has wire type " + std::to_string(f.type),
                origin + at);
  }
  f.value = p;
  if (skip > in.size() - p) {
    return need("field value");
  }
  f.end = p + static_cast<std::size_t>(skip);
  return true;
}

}  // namespace

void ListSplitter::scan(std::string_view body, std::vector<Element>& out) {
  if (phase_ == Phase::envelope) {
    scan_envelope(body);
  }
  if (phase_ == Phase::items) {
    scan_items(body, out);
  }
}

void ListSplitter::scan_envelope(std::string_view body) {
  if (pos_ == 0) {
    const std::size_t n = std::min(body.size(), magic.size());
    if (body.substr(0, n) != magic.substr(0, n)) {
      phase_ = Phase::unsupported;  // decode_object names what is wrong with it
      return;
    }
    if (n < magic.size()) {
      return;
    }
    pos_ = magic.size();
  }
  for (;;) {
    // The list message (field 2, length-delimited) is entered as soon as its length is in.
    std::size_t p = pos_;
    std::uint64_t key = 0;
    if (!varint(body, p, key, dropped_, "field key")) {
      return;
    }
    if (key == ((2U << 3U) | 2U)) {
      std::uint64_t length = 0;
      if (!varint(body, p, length, dropped_, "length")) {
        return;
      }
      if (length > no_limit - p) {
        malformed("the list message claims " + std::to_string(length) + " bytes", dropped_ + pos_);
      }
      envelope_head_.assign(body.substr(0, pos_));
      pos_ = p;
      raw_end_ = p + static_cast<std::size_t>(length);
      phase_ = Phase::items;
      return;
    }
    Framed f;
    if (!frame(body, pos_, no_limit, dropped_, f)) {
      return;
    }
    pos_ = f.end;
  }
}

void ListSplitter::scan_items(std::string_view body, std::vector<Element>& out) {
  while (pos_ < raw_end_) {
    Framed f;
    if (!frame(body, pos_, raw_end_, dropped_, f)) {
      return;
    }
    if (f.number == 2 && f.type == 2) {
      out.push_back({f.value, f.end});
    } else {
      list_head_.append(body.substr(pos_, f.end - pos_));
    }
    pos_ = f.end;
  }
  phase_ = Phase::tail;
}

void ListSplitter::drop(std::size_t n) noexcept {
  pos_ -= n;
  raw_end_ -= n;
  dropped_ += n;
}

std::string ListSplitter::without_items(std::string_view rest) const {
  Reader tail(rest, dropped_ + pos_);
  while (tail.next()) {
    if (tail.field() == 2) {
      throw DecodeError("the envelope holds a second list message at byte " +
                        std::to_string(tail.offset()));
    }
  }
  std::string body = envelope_head_;
  body.reserve(body.size() + list_head_.size() + rest.size() + 16);
  Writer(body).bytes(2, list_head_);
  body.append(rest);
  return body;
}

}  // namespace kubex::protobuf
