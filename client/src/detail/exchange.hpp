// SPDX-License-Identifier: Apache-2.0
// Internal: one attempt of a call on a connection the transport routed it to, over HTTP/1.1
// (Beast) or as an HTTP/2 stream (libnghttp2), and the response it yields: the head, and the
// body inflated when it came gzip. Retries, routing and credentials are the transport's.
// Never installed.
#pragma once

#include <kubex/client/http.hpp>
#include <kubex/client/options.hpp>

#include "detail/call.hpp"
#include "detail/h2.hpp"
#include "detail/io.hpp"
#include "detail/response_stream.hpp"
#include "detail/spare_bodies.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// What an HTTP/1.1 attempt came to.
struct Attempt {
  /// The failure, if any.
  boost_error ec{};
  /// Some response byte arrived (the server may have acted on the request).
  bool received = false;
  /// The watchdog closed the connection: the request's deadline passed.
  bool timed_out = false;
  /// The body could not be inflated as it arrived (call.observer->problem()).
  bool undecodable = false;
};

/// Writes `call`'s request on `connection` and reads the head (a stream; for a non-2xx status
/// its small error body too) or the whole response, showing the body to `call.observer` as
/// it grows. The request's deadline is enforced by `host`'s watchdog; a stream's head must arrive
/// within the options' timeout.
awaitable<Attempt> exchange_http1(Connection& connection, Call& call, ResponseParser& parser,
                                  const StreamHost& host);

/// Holds an HTTP/2 stream; one still open when the scope ends is reset.
struct StreamLease {
  StreamLease() = default;
  StreamLease(const StreamLease&) = delete;
  StreamLease& operator=(const StreamLease&) = delete;
  StreamLease(StreamLease&&) noexcept = default;
  StreamLease& operator=(StreamLease&&) noexcept = default;
  ~StreamLease() { reset(); }
  /// Resets the stream if it is open, and lets go of it.
  void reset() noexcept;
  /// The session the stream is on.
  std::shared_ptr<H2Session> session;
  /// The stream.
  std::shared_ptr<H2Stream> stream;
};

/// Sends `call` as a stream of `lease.session` and waits for its head (a stream, 2xx) or its
/// end; a whole response is read into `body`'s memory (taken from it). The stream goes into `lease`
/// first, so whatever ends the exchange early (an error, a cancellation, the coroutine's
/// destruction) resets it as the lease goes. A failed stream is left to the caller
/// (H2Stream::failed()).
awaitable<void> exchange_h2(StreamLease& lease, Call& call, std::string_view authority,
                            std::string& body, const StreamHost& host);

/// Throws the Error of an HTTP/2 stream that failed.
[[noreturn]] void fail_h2(const Call& call, const H2Stream& stream, const ClientOptions& options);

/// Status, content type and encoding, Retry-After and warnings of an HTTP/1.1 response.
void read_head(const ResponseParser& parser, HttpResponse& response);
/// The same of an HTTP/2 stream, moved out of it.
void read_head(H2Stream& stream, HttpResponse& response);

/// Moves a complete `body` into `response`, inflated if it came gzip (bounded by
/// `max_body_size`; the compressed memory goes to `spare`); an observed body is what its reader
/// left.
/// @throws kubex::Error (std::errc::bad_message) naming `call` for a corrupt gzip body.
void take_body(const Call& call, std::string& body, HttpResponse& response,
               std::size_t max_body_size, SpareBodies& spare);

}  // namespace kubex::client::detail
