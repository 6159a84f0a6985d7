// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: the readers behind an open ResponseStream (a watch, a log follow), one per
// protocol. They run on the strand of the transport that opened them and give their HTTP/1.1
// connection back to it when done. Never installed.

#include <kubex/client/client.hpp>
#include <kubex/client/options.hpp>

#include "h2.hpp"
#include "io.hpp"

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace kubex::client::detail {

/// The parser of an HTTP/1.1 response with its body in a string.
using ResponseParser = boost::beast::http::response_parser<boost::beast::http::string_body>;

/// What an exchange, and the stream it may open, need from the transport.
class StreamHost {
 public:
  virtual ~StreamHost() = default;
  /// The strand the transport's pool, sessions and watchdog live on.
  [[nodiscard]] virtual const Strand& strand() const noexcept = 0;
  /// The transport's watchdog, which enforces the idle timeouts of streams.
  [[nodiscard]] virtual Watchdog& watchdog() const noexcept = 0;
  /// The transport's options.
  [[nodiscard]] virtual const ClientOptions& options() const noexcept = 0;
  /// Takes back, on the strand, the connection of a stream that has ended: into the pool if
  /// `reusable` (the body was read to its end), closed otherwise.
  virtual void finish_stream(std::unique_ptr<Connection> connection, bool reusable) = 0;
};

/// A reader of an HTTP/1.1 stream: `connection` with the response head already parsed by
/// `parser`; both null for a stream already at its end. `location` names it in messages. A
/// read that waits longer than `idle_timeout` for a byte fails with timed_out (zero: none).
std::unique_ptr<ResponseStream::Impl> make_http1_stream(std::shared_ptr<StreamHost> host,
                                                        std::unique_ptr<Connection> connection,
                                                        std::unique_ptr<ResponseParser> parser,
                                                        std::string location,
                                                        std::chrono::milliseconds idle_timeout);

/// A reader of HTTP/2 stream `stream` of `session`, its head already in; `idle_timeout` as
/// make_http1_stream's.
std::unique_ptr<ResponseStream::Impl> make_h2_stream(std::shared_ptr<StreamHost> host,
                                                     std::shared_ptr<H2Session> session,
                                                     std::shared_ptr<H2Stream> stream,
                                                     std::string location,
                                                     std::chrono::milliseconds idle_timeout);

}  // namespace kubex::client::detail
