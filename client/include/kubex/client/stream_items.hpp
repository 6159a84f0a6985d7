// SPDX-License-Identifier: Apache-2.0
#pragma once

// The items of a streamed response body as they arrive, without I/O: the lines of a followed
// log or a JSON watch, the length-prefixed frames of a protobuf watch. Bytes go into buffer();
// take() hands out whole items. The asynchronous and the blocking streams read into the same
// items, so they cannot disagree on framing or limits.

#include <kubex/client/http.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_metadata.hpp>
#include <kubex/core/protobuf_watch.hpp>
#include <kubex/core/watch.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace kubex::client {

/// The largest watch event a watch stream accepts unless told otherwise, as client-go: a
/// larger one fails the read, so a hostile or broken server cannot make one line take all
/// memory.
inline constexpr std::size_t default_max_watch_event_size = std::size_t{16} << 20U;

/// Types the generated protobuf readers cover (the built-in kinds and their lists).
template <class T>
concept protobuf_readable = requires(protobuf::Reader& r, T& o) { kubex_read_proto(r, o); };
/// Types the generated protobuf writers cover (the built-in kinds).
template <class T>
concept protobuf_writable = requires(protobuf::Writer& w, const T& o) { kubex_write_proto(w, o); };

namespace detail {

/// Finds complete lines in a growing buffer without scanning any byte twice.
class KUBEX_API LineBuffer {
 public:
  /// Where new bytes are appended.
  std::string& data() noexcept { return data_; }
  /// The next complete line (without "\n" or "\r\n"), or std::nullopt. The view is valid
  /// until the next call.
  std::optional<std::string_view> next_line();
  /// What is left after the last newline, once the stream has ended; empty if nothing.
  std::string_view rest();
  /// Bytes received of the line not yet complete.
  [[nodiscard]] std::size_t pending() const noexcept { return data_.size() - start_; }
  /// Frees everything held (after a line grew too long).
  void clear() noexcept {
    data_.clear();
    data_.shrink_to_fit();
    start_ = 0;
    scanned_ = 0;
  }

 private:
  std::string data_;
  std::size_t start_ = 0;
  std::size_t scanned_ = 0;
};

/// The items of a streamed body, one per line, as the server sends them: `Parse` turns a line
/// into a Result (std::nullopt skips it). Bytes go into buffer(); take() hands out items.
template <class Result, class Parse>
class LineItems {
 public:
  /// What take() hands out.
  using result_type = Result;
  /// Where the stream's next bytes are appended.
  std::string& buffer() noexcept { return lines_.data(); }
  /// The stream has ended: what is left after the last newline is the last line.
  void end() noexcept { ended_ = true; }
  /// True once end() was called.
  [[nodiscard]] bool ended() const noexcept { return ended_; }
  /// Lines longer than `bytes` fail take() (0: no limit), so that one huge line cannot take
  /// all memory: at most `bytes` plus one read are held before it fails.
  void limit(std::size_t bytes) noexcept { max_line_ = bytes; }
  /// True when `out` holds the next item, or std::nullopt once the body has ended; false when
  /// more bytes are needed. Throws what Parse throws (the line is consumed), and a kubex::Error
  /// of std::errc::message_size for a line over the limit (then for every later call: what follows
  /// it cannot be framed).
  bool take(std::optional<Result>& out) {
    if (overflowed_) {
      too_long();
    }
    while (auto line = lines_.next_line()) {
      if (max_line_ > 0 && line->size() > max_line_) {
        too_long();
      }
      if (auto item = Parse{}(*line)) {
        out = std::move(item);
        return true;
      }
    }
    if (max_line_ > 0 && lines_.pending() > max_line_) {
      too_long();
    }
    if (!ended_) {
      return false;
    }
    const std::string_view rest = lines_.rest();
    out = rest.empty() ? std::nullopt : Parse{}(rest);
    return true;
  }

 private:
  [[noreturn]] void too_long() {
    overflowed_ = true;
    lines_.clear();
    throw Error(
        std::make_error_code(std::errc::message_size),
        "a line of the stream is longer than its limit of " + std::to_string(max_line_) + " bytes");
  }

  LineBuffer lines_;
  std::size_t max_line_ = 0;
  bool ended_ = false;
  bool overflowed_ = false;
};

/// A watch line as a WatchEvent; blank lines are skipped.
template <class Object>
struct ParseWatchEvent {
  std::optional<WatchEvent<Object>> operator()(std::string_view line) const {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      return std::nullopt;
    }
    std::optional<WatchEvent<Object>> event(std::in_place);
    decode_watch_event(line, *event);
    return event;
  }
};

/// A log line as it is (empty lines included).
struct ParseLogLine {
  std::optional<std::string> operator()(std::string_view line) const { return std::string(line); }
};

/// The events of a watch: JSON lines, or protobuf frames when the server answered in protobuf
/// (configure() reads which from the response head). The size limit bounds a line or a frame.
template <class Object>
class WatchItems {
 public:
  /// What take() hands out.
  using result_type = WatchEvent<Object>;

  /// Reads the framing from the response's Content-Type.
  void configure(const HttpResponse& head) {
    if constexpr (protobuf_readable<Object>) {
      protobuf_ = protobuf::is_media_type(head.content_type);
    }
  }
  /// Where the stream's next bytes are appended.
  std::string& buffer() { return protobuf_ ? frames_.buffer() : lines_.buffer(); }
  /// The stream has ended.
  void end() noexcept { lines_.end(); }
  /// Events longer than `bytes` fail take() (0: no limit); a frame is refused from its length
  /// prefix, before its bytes arrive.
  void limit(std::size_t bytes) noexcept {
    lines_.limit(bytes);
    frames_.limit(bytes);
  }
  /// As LineItems::take. A malformed frame is consumed and fails alone; a frame over the
  /// limit (std::errc::message_size), or a stream that ends inside a frame, fails for good.
  bool take(std::optional<result_type>& out) {
    if (!protobuf_) {
      return lines_.take(out);
    }
    if constexpr (protobuf_readable<Object>) {
      if (auto frame = frames_.next()) {
        out.emplace();
        protobuf::decode_watch_frame(*frame, *out);
        return true;
      }
      if (!lines_.ended()) {  // one end flag for both framings
        return false;
      }
      if (frames_.pending() != 0) {
        throw protobuf::DecodeError("the watch stream ended inside a frame (" +
                                    std::to_string(frames_.pending()) + " bytes left)");
      }
      out.reset();
    }
    return true;
  }

 private:
  LineItems<WatchEvent<Object>, ParseWatchEvent<Object>> lines_;
  protobuf::FrameSplitter frames_{0};
  bool protobuf_ = false;
};

}  // namespace detail

}  // namespace kubex::client
