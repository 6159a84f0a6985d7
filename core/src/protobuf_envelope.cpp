// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/protobuf_envelope.hpp>

#include <cstdint>
#include <system_error>

namespace kubex::protobuf {

Envelope open_envelope(std::string_view body) {
  if (body.substr(0, magic.size()) != magic) {
    throw DecodeError("the body does not start with the Kubernetes protobuf magic k8s\\0");
  }
  Envelope envelope;
  Reader unknown(body.substr(magic.size()), magic.size());
  while (unknown.next()) {
    switch (unknown.field()) {
      case 1: {
        Reader type_meta = unknown.message();
        while (type_meta.next()) {
          if (type_meta.field() == 1) {
            envelope.api_version = type_meta.string();
          } else if (type_meta.field() == 2) {
            envelope.kind = type_meta.string();
          }
        }
        break;
      }
      case 2:
        envelope.raw = unknown.bytes();
        break;
      case 3:
        envelope.content_encoding = unknown.string();
        break;
      case 4:
        envelope.content_type = unknown.string();
        break;
      default:
        break;  // next() skips it
    }
  }
  return envelope;
}

std::string seal_envelope(std::string_view api_version, std::string_view kind,
                          std::string_view raw) {
  std::string body;
  body.reserve(magic.size() + api_version.size() + kind.size() + raw.size() + 24);
  body.append(magic);
  Writer unknown(body);
  unknown.message(1, [&](Writer& type_meta) {
    type_meta.bytes(1, api_version);
    type_meta.bytes(2, kind);
  });
  unknown.bytes(2, raw);
  unknown.bytes(3, {});
  unknown.bytes(4, {});
  return body;
}

WatchEventFrame read_watch_event(std::string_view frame) {
  WatchEventFrame event;
  bool has_type = false;
  bool has_object = false;
  Reader reader(frame);
  while (reader.next()) {
    if (reader.field() == 1) {
      event.type = reader.string();
      has_type = true;
    } else if (reader.field() == 2) {
      Reader raw_extension = reader.message();
      while (raw_extension.next()) {
        if (raw_extension.field() == 1) {
          event.object = raw_extension.bytes();
          has_object = true;
        }
      }
    }
  }
  if (!has_type || !has_object) {
    throw DecodeError(std::string("watch event without its ") + (has_type ? "object" : "type"));
  }
  return event;
}

std::string& FrameSplitter::buffer() {
  // Compacting moves the pending bytes: worth it once the consumed front outgrows them, so
  // that each byte moves O(1) times and the buffer stays under twice the bytes held.
  if (taken_ != 0 && taken_ >= pending()) {
    buffer_.erase(0, taken_);
    taken_ = 0;
  }
  return buffer_;
}

void FrameSplitter::append(std::string_view bytes) {
  buffer().append(bytes);
}

std::optional<std::string_view> FrameSplitter::next() {
  const std::string_view rest = std::string_view(buffer_).substr(taken_);
  if (rest.size() < 4) {
    return std::nullopt;
  }
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    length = (length << 8U) | static_cast<unsigned char>(rest[i]);
  }
  if (max_frame_ != 0 && length > max_frame_) {
    throw Error(std::make_error_code(std::errc::message_size),
                "watch frame of " + std::to_string(length) + " bytes exceeds the limit of " +
                    std::to_string(max_frame_) + " bytes");
  }
  if (rest.size() - 4 < length) {
    return std::nullopt;
  }
  taken_ += 4 + length;
  return rest.substr(4, length);
}

}  // namespace kubex::protobuf
