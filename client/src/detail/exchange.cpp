// SPDX-License-Identifier: Apache-2.0
#include "detail/exchange.hpp"

#include <kubex/core/error.hpp>

#include "detail/gzip.hpp"

#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace kubex::client::detail {
namespace {

namespace http = boost::beast::http;

// Response headers from the apiserver are small, but Warning headers can add up.
constexpr std::uint32_t max_header_size = 64U * 1024U;
// An error body of a stream (a Status) is read whole; it is never large.
constexpr std::size_t max_stream_error_body = std::size_t{1} << 20U;

// Reads a whole response piece by piece, showing the body to call.observer as it grows.
awaitable<Attempt> exchange_observed(Connection& connection, Call& call, ResponseParser& parser) {
  Attempt attempt;
  boost_error ec;
  std::size_t n = 0;
  std::tie(ec, n) =
      co_await http::async_read_header(connection.stream, connection.buffer, parser, use_tuple);
  auto& body = parser.get().body();
  const auto& head = parser.get();
  const bool observed =
      !ec && call.observer->start(body, head.result_int(), head[http::field::content_encoding]);
  while (!ec && !parser.is_done()) {
    std::tie(ec, n) =
        co_await http::async_read_some(connection.stream, connection.buffer, parser, use_tuple);
    if (!ec && observed && !call.observer->grow(body)) {
      attempt.undecodable = true;  // the rest of the body is of no use: the connection goes
      ec = make_error_code(boost::system::errc::bad_message);
    }
  }
  attempt.received = parser.got_some();
  attempt.ec = ec;
  co_return attempt;
}

awaitable<Attempt> exchange_watched(Connection& connection, Call& call, ResponseParser& parser,
                                    const ClientOptions& options) {
  Attempt attempt;
  ++connection.requests;
  if (auto [ec, n] = co_await http::async_write(connection.stream, call.message, use_tuple); ec) {
    attempt.ec = ec;
    co_return attempt;
  }
  parser.header_limit(max_header_size);
  if (call.streaming) {
    parser.body_limit(boost::none);  // a watch may run for days
    auto [ec, n] =
        co_await http::async_read_header(connection.stream, connection.buffer, parser, use_tuple);
    attempt.received = parser.got_some();
    attempt.ec = ec;
    if (ec || parser.get().result_int() / 100 == 2) {
      co_return attempt;
    }
    // An error answer to a stream request is a small Status; read it whole.
    parser.body_limit(max_stream_error_body);
  } else {
    parser.body_limit(options.max_body_size);
    if (call.observer) {
      co_return co_await exchange_observed(connection, call, parser);
    }
  }
  auto [ec, n] = co_await http::async_read(connection.stream, connection.buffer, parser, use_tuple);
  attempt.received = parser.got_some();
  attempt.ec = ec;
  co_return attempt;
}

}  // namespace

awaitable<Attempt> exchange_http1(Connection& connection, Call& call, ResponseParser& parser,
                                  const StreamHost& host) {
  const ClientOptions& options = host.options();
  Watchdog& watchdog = host.watchdog();
  // A stream's head must still come in time; only its body may take forever.
  watchdog.watch(connection, call.streaming ? Clock::now() + options.timeout : call.deadline);
  Attempt attempt = co_await exchange_watched(connection, call, parser, options);
  watchdog.unwatch(connection);
  // A whole response that beat the watchdog by a hair still counts (release will not pool the
  // closed connection); a stream's head does not, its socket is gone.
  if (connection.timed_out && (attempt.ec || call.streaming)) {
    attempt.ec = beast::error::timeout;
    attempt.timed_out = true;
  }
  co_return attempt;
}

void StreamLease::reset() noexcept {
  if (session && stream) {
    session->cancel(*stream);
  }
  session.reset();
  stream.reset();
}

awaitable<void> exchange_h2(StreamLease& lease, Call& call, std::string_view authority,
                            std::string& body, const StreamHost& host) {
  const ClientOptions& options = host.options();
  Watchdog& watchdog = host.watchdog();
  lease.stream = std::make_shared<H2Stream>(host.strand());
  auto& stream = *lease.stream;
  stream.streaming = call.streaming;
  stream.max_body =
      call.streaming ? std::numeric_limits<std::size_t>::max() : options.max_body_size;
  stream.observer = call.streaming ? nullptr : call.observer;
  if (!call.streaming) {
    stream.body = std::move(body);
  }
  lease.session->submit(call.message, authority, lease.stream);
  // A stream's head must still come in time; only its body may take forever.
  watchdog.watch(stream, call.streaming ? Clock::now() + options.timeout : call.deadline);
  const auto settled = [&] {
    if (stream.closed || stream.ended) {
      return true;
    }
    // An error answer to a stream request is a small Status; it is read whole.
    return call.streaming && stream.head_done && stream.status / 100 == 2;
  };
  const auto cancellation = co_await asio::this_coro::cancellation_state;
  while (!settled()) {
    co_await stream.wait();
    if (cancellation.cancelled() != asio::cancellation_type::none) {
      fail(call, stream.received ? "read response" : "send request",
           asio::error::operation_aborted);
    }
  }
  watchdog.unwatch(stream);
}

void fail_h2(const Call& call, const H2Stream& stream, const ClientOptions& options) {
  if (!stream.connection_problem.empty()) {
    fail(call, "read response", std::make_error_code(std::errc::timed_out),
         stream.connection_problem);
  }
  if (stream.timed_out) {
    fail_timeout(call, "request", options.timeout);
  }
  if (stream.undecodable) {
    fail(call, "decode response", std::make_error_code(std::errc::bad_message),
         stream.observer->problem());
  }
  if (stream.too_large) {
    fail(call, "read response", std::make_error_code(std::errc::message_size),
         "the response body exceeds max_body_size (" + std::to_string(options.max_body_size) +
             " bytes)");
  }
  if (stream.connection_error) {
    fail(call, stream.received ? "read response" : "send request", stream.connection_error);
  }
  fail(call, stream.received ? "read response" : "send request",
       std::make_error_code(std::errc::connection_reset),
       std::string("the server reset the HTTP/2 stream (") +
           nghttp2_http2_strerror(stream.reset_code) + ")");
}

void read_head(const ResponseParser& parser, HttpResponse& response) {
  const auto& message = parser.get();
  response.status = message.result_int();
  response.content_type = std::string(message[http::field::content_type]);
  response.content_encoding = std::string(message[http::field::content_encoding]);
  response.retry_after = std::string(message[http::field::retry_after]);
  response.warnings.clear();
  for (const auto& field : message) {
    if (field.name() == http::field::warning) {
      parse_warning_header(field.value(), response.warnings);
    }
  }
}

void read_head(H2Stream& stream, HttpResponse& response) {
  // The stream is done with its head: only its body is read from here on.
  response.status = stream.status;
  response.content_type = std::move(stream.content_type);
  response.content_encoding = std::move(stream.content_encoding);
  response.retry_after = std::move(stream.retry_after);
  response.warnings = std::move(stream.warnings);
}

void take_body(const Call& call, std::string& body, HttpResponse& response,
               std::size_t max_body_size, SpareBodies& spare) {
  if (call.observer && call.observer->inflated()) {
    if (!call.observer->finish(body, spare)) {
      fail(call, "decode response", std::make_error_code(std::errc::bad_message),
           call.observer->problem());
    }
    response.body = std::move(body);
    return;
  }
  if (response.content_encoding != "gzip") {
    response.body = std::move(body);
    return;
  }
  std::string problem;
  auto inflated = gunzip(body, max_body_size, problem);
  if (!inflated) {
    fail(call, "decode response", std::make_error_code(std::errc::bad_message), problem);
  }
  response.body = std::move(*inflated);
  spare.give(std::move(body));
}

}  // namespace kubex::client::detail
