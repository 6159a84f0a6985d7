// SPDX-License-Identifier: Apache-2.0
// Internal: the SPDY/3.1 framing that port-forward speaks inside its WebSocket
// (`SPDY/3.1+portforward.k8s.io`): the apiserver relays the bytes to the kubelet's SPDY server
// (moby/spdystream), so the client writes SYN_STREAM, DATA and RST_STREAM frames and reads the
// kubelet's replies. No I/O: bytes in, frames out. Never installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client::detail::spdy {

/// Control frame types of SPDY/3.
enum class FrameType : std::uint16_t {
  data = 0,  // not a control frame; used for DATA
  syn_stream = 1,
  syn_reply = 2,
  rst_stream = 3,
  settings = 4,
  ping = 6,
  goaway = 7,
  headers = 8,
  window_update = 9,
};

/// FLAG_FIN of DATA, SYN_STREAM, SYN_REPLY and HEADERS frames.
inline constexpr std::uint8_t flag_fin = 0x01;
/// RST_STREAM status CANCEL.
inline constexpr std::uint32_t status_cancel = 5;
/// Largest payload of one frame (24-bit length).
inline constexpr std::size_t max_payload = (std::size_t{1} << 24U) - 1;

/// A frame as read: its type (data for DATA), flags, the stream it concerns (0 for
/// connection-level frames), and what matters of its payload.
struct Frame {
  FrameType type = FrameType::data;
  std::uint8_t flags = 0;
  std::uint32_t stream_id = 0;
  std::string data;           // DATA's bytes
  std::uint32_t status = 0;   // RST_STREAM's and GOAWAY's status code
  std::uint32_t ping_id = 0;  // PING's id
  std::uint16_t unknown = 0;  // a control type this client does not know
};

/// Writes frames. Header blocks go through one zlib stream per connection, as SPDY/3 asks; no
/// preset dictionary is declared, which the zlib format allows and Go's reader accepts.
class Writer {
 public:
  Writer();
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// SYN_STREAM opening `stream_id` with `headers` (lower-case names), FIN if `fin`.
  std::string syn_stream(std::uint32_t stream_id,
                         const std::vector<std::pair<std::string, std::string>>& headers, bool fin);

 private:
  struct Deflate;
  std::unique_ptr<Deflate> deflate_;
};

/// DATA on `stream_id` carrying `bytes` (at most max_payload), FIN if `fin`.
std::string data_frame(std::uint32_t stream_id, std::string_view bytes, bool fin);
/// RST_STREAM of `stream_id` with `status`.
std::string rst_stream(std::uint32_t stream_id, std::uint32_t status);
/// PING with `id` (the answer to the peer's PING repeats its id).
std::string ping(std::uint32_t id);

/// Splits a byte stream into frames. Bytes arrive in any pieces; a frame is returned once it
/// is complete.
class Reader {
 public:
  /// Appends bytes that arrived.
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  /// The next complete frame, or std::nullopt until more bytes arrive.
  /// @throws kubex::Error (std::errc::protocol_error) for a frame that is not SPDY/3.
  std::optional<Frame> next();
  /// Bytes held that do not yet make a frame.
  [[nodiscard]] std::size_t pending() const noexcept { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
};

}  // namespace kubex::client::detail::spdy
