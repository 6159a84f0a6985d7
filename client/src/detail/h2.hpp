// SPDX-License-Identifier: Apache-2.0
#pragma once

// HTTP/2 (RFC 9113) over one of the transport's TLS connections, framed by libnghttp2: many
// requests and streams share the connection, and abandoning a stream resets only that stream,
// where HTTP/1.1 must throw the whole connection (and its TLS session) away. Everything runs on
// the transport's strand.

#include "detail/io.hpp"
#include "detail/observed_body.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct nghttp2_session;

namespace kubex::client::detail {

class H2Session;

// One request and its response on a session. The session fills the response fields as frames
// arrive and wakes a waiting reader; the request's owner reads them between waits.
class H2Stream final : public Watched, public std::enable_shared_from_this<H2Stream> {
 public:
  explicit H2Stream(const Strand& strand) : wake_(strand) {}

  // Resets the stream (the request's or the stream's idle deadline passed).
  void expire() noexcept override;

  // Suspends until the session has changed something of this stream.
  awaitable<void> wait();

  // The stream failed (reset, connection lost, deadline) before the body's end.
  [[nodiscard]] bool failed() const noexcept { return closed && !ended; }

  // --- response, filled by the session ---
  unsigned status = 0;
  std::string content_type;
  std::string content_encoding;
  std::string retry_after;
  std::vector<std::string> warnings;
  std::string body;            // received and not yet taken by the reader
  std::size_t body_bytes = 0;  // received in all, taken or not (max_body counts these)
  bool head_done = false;
  bool ended = false;     // END_STREAM arrived: `body` is complete
  bool closed = false;    // the session is done with the stream
  bool received = false;  // a response frame arrived
  bool refused = false;   // the server did not process the request: any verb may be retried
  bool timed_out = false;
  bool too_large = false;          // the body passed max_body; the stream is reset (failed())
  std::uint32_t reset_code = 0;    // HTTP/2 error code of a reset or GOAWAY, if any
  boost_error connection_error{};  // the connection failed under the stream
  std::string connection_problem;  // why the session closed the connection itself, if it did

  // --- request, set before submission ---
  std::string request_body;
  std::size_t request_sent = 0;
  bool streaming = false;  // flow control credit returns as the reader takes the body
  std::size_t max_body = 0;
  std::shared_ptr<ObservedBody> observer;  // HttpRequest::on_body, with its inflater
  bool observed = false;     // the observer sees the body as it grows (2xx, identity or gzip)
  bool undecodable = false;  // the observer could not inflate the body; the stream is reset

 private:
  friend class H2Session;
  void notify() noexcept;

  H2Session* session_ = nullptr;  // while the session knows the stream
  std::int32_t id_ = 0;
  bool grown_ = false;  // the observer is due after the current read
  Timer wake_;
  bool waiting_ = false;
};

// An HTTP/2 client connection. The transport keeps sessions in its pool; every request is a
// stream. The session reads only while it has streams, so an idle client leaves its
// io_context free, as idle HTTP/1.1 connections do.
class H2Session final : public Watched, public std::enable_shared_from_this<H2Session> {
 public:
  struct Limits {
    // Receive window per stream: what a slow stream reader may leave buffered.
    std::uint32_t stream_window = 0;
    // Silence with open streams before a PING, and how long the PING may go unanswered;
    // zero `read_idle` turns the health check off.
    std::chrono::milliseconds read_idle{};
    std::chrono::milliseconds ping_timeout{};
  };

  // Takes a connection whose TLS handshake selected "h2"; `watchdog` runs its health check.
  H2Session(std::unique_ptr<Connection> connection, Limits limits,
            std::shared_ptr<Watchdog> watchdog);
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  // Sends the connection preface and settings. Throws kubex::Error if libnghttp2 cannot.
  void start();

  // Submits `message` as `stream`, which then progresses on its own. `authority` fills the
  // :authority pseudo-header; the message's Host, Connection and other HTTP/1-only fields are
  // dropped. Throws kubex::Error if the session cannot take it.
  void submit(const boost::beast::http::request<boost::beast::http::string_body>& message,
              std::string_view authority, const std::shared_ptr<H2Stream>& stream);

  // The reader took `n` bytes of a streaming response: the server may send that much more.
  void consume(H2Stream& stream, std::size_t n);
  // Resets the stream (RST_STREAM CANCEL) unless it has closed already.
  void cancel(H2Stream& stream);
  // Closes the connection; streams still open fail.
  void close();

  // The health check's deadline passed: sends a PING, or gives up on an unanswered one.
  void expire() noexcept override;

  // New streams may be opened here: no failure, no GOAWAY.
  [[nodiscard]] bool alive() const noexcept { return !failed_ && !goaway_; }
  // Alive, with room below the server's limit of concurrent streams.
  [[nodiscard]] bool has_room() const noexcept;
  [[nodiscard]] std::size_t active() const noexcept { return streams_.size(); }
  [[nodiscard]] Connection& connection() noexcept { return *connection_; }

  Clock::time_point idle_since{};  // when the last stream ended
  std::size_t requests = 0;        // streams opened so far

 private:
  struct Callbacks;

  void flush();
  void write_next();
  void ensure_reading();
  void read_next();
  void on_read(const boost_error& ec, std::size_t n);
  void park_if_idle();
  // Closes the connection and fails every open stream with `ec` (and `problem`, when the
  // session gave up on the connection itself).
  void fail(const boost_error& ec, const std::string& problem = {});
  void forget(H2Stream& stream);

  void watch_health();
  void fail_stream(H2Stream& stream, const boost_error& ec, const std::string& problem);

  std::unique_ptr<Connection> connection_;
  Limits limits_;
  std::shared_ptr<Watchdog> watchdog_;
  bool pinging_ = false;  // a health-check PING is unanswered
  nghttp2_session* session_ = nullptr;
  std::unordered_map<std::int32_t, std::shared_ptr<H2Stream>> streams_;
  std::vector<std::shared_ptr<H2Stream>> grown_;  // observed streams that received data
  std::array<std::uint8_t, 16384> in_{};
  std::string out_;
  bool reading_ = false;  // a read is pending (or its completion is queued)
  bool parking_ = false;  // that read was cancelled because no stream is left
  bool writing_ = false;
  bool failed_ = false;
  bool goaway_ = false;
};

}  // namespace kubex::client::detail
