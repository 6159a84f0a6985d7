// SPDX-License-Identifier: Apache-2.0
#include "detail/spdy.hpp"

#include <kubex/core/error.hpp>

#include <zlib.h>

#include <cstring>
#include <string>
#include <system_error>

namespace kubex::client::detail::spdy {
namespace {

constexpr std::uint16_t version = 3;

void put32(std::string& out, std::uint32_t v) {
  out += static_cast<char>((v >> 24U) & 0xffU);
  out += static_cast<char>((v >> 16U) & 0xffU);
  out += static_cast<char>((v >> 8U) & 0xffU);
  out += static_cast<char>(v & 0xffU);
}

void put24(std::string& out, std::size_t v) {
  out += static_cast<char>((v >> 16U) & 0xffU);
  out += static_cast<char>((v >> 8U) & 0xffU);
  out += static_cast<char>(v & 0xffU);
}

std::uint32_t get32(std::string_view in, std::size_t at) {
  const auto b = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i]));
  };
  return (b(0) << 24U) | (b(1) << 16U) | (b(2) << 8U) | b(3);
}

std::uint32_t get24(std::string_view in, std::size_t at) {
  const auto b = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i]));
  };
  return (b(0) << 16U) | (b(1) << 8U) | b(2);
}

std::string control(FrameType type, std::uint8_t flags, const std::string& payload) {
  std::string out;
  out.reserve(8 + payload.size());
  out += static_cast<char>(0x80U | (version >> 8U));
  out += static_cast<char>(version & 0xffU);
  out += static_cast<char>((static_cast<unsigned>(type) >> 8U) & 0xffU);
  out += static_cast<char>(static_cast<unsigned>(type) & 0xffU);
  out += static_cast<char>(flags);
  put24(out, payload.size());
  out += payload;
  return out;
}

[[noreturn]] void malformed(const std::string& what) {
  throw Error(std::make_error_code(std::errc::protocol_error), "port-forward: SPDY: " + what);
}

}  // namespace

struct Writer::Deflate {
  Deflate() {
    if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) {
      throw Error(std::make_error_code(std::errc::not_enough_memory),
                  "port-forward: SPDY: cannot start zlib");
    }
  }
  ~Deflate() { deflateEnd(&z); }
  Deflate(const Deflate&) = delete;
  Deflate& operator=(const Deflate&) = delete;

  // The block compressed and flushed to a byte boundary, continuing the stream.
  std::string compress(const std::string& block) {
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));  // NOLINT: zlib's API
    z.avail_in = static_cast<uInt>(block.size());
    unsigned char chunk[4096];
    do {
      z.next_out = chunk;
      z.avail_out = sizeof chunk;
      if (deflate(&z, Z_SYNC_FLUSH) == Z_STREAM_ERROR) {
        malformed("zlib failed to compress a header block");
      }
      out.append(reinterpret_cast<const char*>(chunk), sizeof chunk - z.avail_out);
    } while (z.avail_out == 0);
    return out;
  }

  z_stream z{};
};

Writer::Writer() : deflate_(std::make_unique<Deflate>()) {}
Writer::~Writer() = default;

std::string Writer::syn_stream(std::uint32_t stream_id,
                               const std::vector<std::pair<std::string, std::string>>& headers,
                               bool fin) {
  std::string block;
  put32(block, static_cast<std::uint32_t>(headers.size()));
  for (const auto& [name, value] : headers) {
    put32(block, static_cast<std::uint32_t>(name.size()));
    block += name;
    put32(block, static_cast<std::uint32_t>(value.size()));
    block += value;
  }
  std::string payload;
  put32(payload, stream_id & 0x7fffffffU);
  put32(payload, 0);  // associated stream: none
  payload += '\0';    // priority 0, unused bits
  payload += '\0';    // slot
  payload += deflate_->compress(block);
  return control(FrameType::syn_stream, fin ? flag_fin : 0, payload);
}

std::string data_frame(std::uint32_t stream_id, std::string_view bytes, bool fin) {
  std::string out;
  out.reserve(8 + bytes.size());
  put32(out, stream_id & 0x7fffffffU);
  out += static_cast<char>(fin ? flag_fin : 0);
  put24(out, bytes.size());
  out.append(bytes);
  return out;
}

std::string rst_stream(std::uint32_t stream_id, std::uint32_t status) {
  std::string payload;
  put32(payload, stream_id & 0x7fffffffU);
  put32(payload, status);
  return control(FrameType::rst_stream, 0, payload);
}

std::string ping(std::uint32_t id) {
  std::string payload;
  put32(payload, id);
  return control(FrameType::ping, 0, payload);
}

std::optional<Frame> Reader::next() {
  const std::string_view in = std::string_view(buffer_).substr(offset_);
  if (in.size() < 8) {
    return std::nullopt;
  }
  const std::size_t length = get24(in, 5);
  if (in.size() < 8 + length) {
    return std::nullopt;
  }
  Frame frame;
  frame.flags = static_cast<std::uint8_t>(in[4]);
  const std::string_view payload = in.substr(8, length);
  const bool is_control = (static_cast<unsigned char>(in[0]) & 0x80U) != 0;
  if (!is_control) {
    frame.type = FrameType::data;
    frame.stream_id = get32(in, 0) & 0x7fffffffU;
    frame.data.assign(payload);
  } else {
    const auto v = static_cast<std::uint16_t>(
        ((static_cast<unsigned>(static_cast<unsigned char>(in[0])) & 0x7fU) << 8U) |
        static_cast<unsigned char>(in[1]));
    if (v != version) {
      malformed("a control frame of version " + std::to_string(v) + " (expected 3)");
    }
    const auto type = static_cast<std::uint16_t>(
        (static_cast<unsigned>(static_cast<unsigned char>(in[2])) << 8U) |
        static_cast<unsigned char>(in[3]));
    const auto need = [&](std::size_t n, const char* what) {
      if (payload.size() < n) {
        malformed(std::string("a ") + what + " frame of " + std::to_string(payload.size()) +
                  " bytes");
      }
    };
    switch (static_cast<FrameType>(type)) {
      case FrameType::syn_stream:
      case FrameType::syn_reply:
      case FrameType::headers:
      case FrameType::window_update:
        need(4, "stream");
        frame.type = static_cast<FrameType>(type);
        frame.stream_id = get32(payload, 0) & 0x7fffffffU;
        break;  // header blocks are not needed: replies carry nothing port-forward uses
      case FrameType::rst_stream:
        need(8, "RST_STREAM");
        frame.type = FrameType::rst_stream;
        frame.stream_id = get32(payload, 0) & 0x7fffffffU;
        frame.status = get32(payload, 4);
        break;
      case FrameType::ping:
        need(4, "PING");
        frame.type = FrameType::ping;
        frame.ping_id = get32(payload, 0);
        break;
      case FrameType::goaway:
        need(4, "GOAWAY");
        frame.type = FrameType::goaway;
        frame.stream_id = get32(payload, 0) & 0x7fffffffU;
        frame.status = payload.size() >= 8 ? get32(payload, 4) : 0;
        break;
      case FrameType::settings:
        frame.type = FrameType::settings;
        break;
      default:
        frame.type = FrameType::settings;  // ignored, as SPDY asks of unknown control frames
        frame.unknown = type;
        break;
    }
  }
  offset_ += 8 + length;
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  } else if (offset_ > (std::size_t{64} << 10U)) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return frame;
}

}  // namespace kubex::client::detail::spdy
