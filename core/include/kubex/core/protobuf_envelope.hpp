// SPDX-License-Identifier: Apache-2.0
// How the apiserver wraps protobuf objects: every body starts with the magic "k8s\0" and a
// runtime.Unknown that names the object's apiVersion and kind and holds its own bytes; a
// watch stream is a sequence of frames, each a 4-byte big-endian length and a
// metav1.WatchEvent whose object is such a body again. The wire format is in protobuf.hpp.
#pragma once

#include <kubex/core/export.hpp>
#include <kubex/core/protobuf.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::protobuf {

/// The media type of Kubernetes protobuf (built-in kinds only; custom resources are JSON).
inline constexpr std::string_view media_type = "application/vnd.kubernetes.protobuf";
/// True when a Content-Type names Kubernetes protobuf (with or without parameters).
[[nodiscard]] inline bool is_media_type(std::string_view content_type) noexcept {
  return content_type.starts_with(media_type);
}
/// The four bytes every protobuf body starts with.
inline constexpr std::string_view magic{"k8s\0", 4};

/// A body's envelope (runtime.Unknown). The views point into the body.
struct Envelope {
  /// The object's apiVersion ("v1", "apps/v1").
  std::string_view api_version;
  /// The object's kind ("Pod", "PodList").
  std::string_view kind;
  /// The object's own protobuf message.
  std::string_view raw;
  /// How `raw` is encoded further; the apiserver sends it empty.
  std::string_view content_encoding;
  /// The media type of `raw`; the apiserver sends it empty (protobuf).
  std::string_view content_type;
};

/// Opens a protobuf body. Fields the envelope does not define are skipped.
/// @throws DecodeError when the body lacks the magic or its envelope is malformed.
[[nodiscard]] KUBEX_API Envelope open_envelope(std::string_view body);

/// Where an opened envelope's object message starts in the whole response, for error
/// messages: `body` is the envelope's bytes (open_envelope's argument), starting at byte
/// `origin` of the response.
[[nodiscard]] inline std::size_t raw_origin(const Envelope& envelope, std::string_view body,
                                            std::size_t origin = 0) noexcept {
  return origin + static_cast<std::size_t>(envelope.raw.data() - body.data());
}

/// The body the apiserver would send for an object of `api_version`/`kind` whose message is
/// `raw`: the magic and the envelope, byte for byte as Go writes them (every field present,
/// the encoding and content type empty).
[[nodiscard]] KUBEX_API std::string seal_envelope(std::string_view api_version,
                                                  std::string_view kind, std::string_view raw);

/// One event of a protobuf watch (metav1.WatchEvent). The views point into the frame.
struct WatchEventFrame {
  /// ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
  std::string_view type;
  /// The object: a protobuf body, envelope included (open_envelope), or a Status for ERROR.
  std::string_view object;
};

/// Reads a watch frame's event.
/// @throws DecodeError when the frame is not a well-formed WatchEvent.
[[nodiscard]] KUBEX_API WatchEventFrame read_watch_event(std::string_view frame);

/// Cuts a protobuf watch stream into frames as its bytes arrive, in whatever pieces.
class KUBEX_API FrameSplitter {
 public:
  /// Refuses frames longer than `max_frame` bytes (0: no limit).
  explicit FrameSplitter(std::size_t max_frame) noexcept : max_frame_(max_frame) {}

  /// Adds bytes of the stream. Frames returned by next() before stay valid only until then.
  void append(std::string_view bytes);
  /// Where a reader may append the stream's next bytes itself, saving append()'s copy. Frames
  /// returned by next() before stay valid only until then.
  std::string& buffer();
  /// Refuses frames longer than `max_frame` bytes from now on (0: no limit).
  void limit(std::size_t max_frame) noexcept { max_frame_ = max_frame; }
  /// The next whole frame, without its length prefix, or nullopt until more bytes arrive.
  /// The view is valid until the next append().
  /// @throws kubex::Error of std::errc::message_size (Failure::too_large()) when a frame
  /// announces more than max_frame bytes.
  [[nodiscard]] std::optional<std::string_view> next();
  /// Bytes held that are not yet a whole frame (non-zero at the end of a stream: truncated).
  [[nodiscard]] std::size_t pending() const noexcept { return buffer_.size() - taken_; }

 private:
  std::size_t max_frame_;
  std::string buffer_;
  std::size_t taken_ = 0;  // bytes at the front already returned as frames
};

}  // namespace kubex::protobuf
