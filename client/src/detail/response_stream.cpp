// SPDX-License-Identifier: Apache-2.0
#include "response_stream.hpp"

#include <kubex/core/error.hpp>

#include "text.hpp"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/read.hpp>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

namespace kubex::client::detail {
namespace {

namespace http = boost::beast::http;

// State of an open stream; shared by the ResponseStream and its pending read.
struct StreamState {
  std::shared_ptr<StreamHost> host;
  std::unique_ptr<Connection> connection;
  std::unique_ptr<ResponseParser> parser;
  std::string location;
  std::chrono::milliseconds idle_timeout{0};  // zero: none
  bool cancelled = false;
  bool reading = false;
  ~StreamState();
};

StreamState::~StreamState() {
  if (connection && host) {
    // The last holder may be on any thread; the pool and the watchdog belong to the strand.
    connection->close();
    try {
      asio::post(host->strand(), [h = host, c = std::move(connection)]() mutable {
        h->finish_stream(std::move(c), false);
      });
    } catch (...) {  // posting allocates; without memory the slot stays counted as open
    }
  }
}

// Reads a stream's body on the transport's strand.
class Http1ResponseStream final : public ResponseStream::Impl {
 public:
  explicit Http1ResponseStream(std::shared_ptr<StreamState> state) : state_(std::move(state)) {}

  void async_read_some(
      std::string& out,
      asio::any_completion_handler<void(std::exception_ptr, std::size_t)> handler) override {
    asio::co_spawn(state_->host->strand(), read(state_, out), std::move(handler));
  }

  void cancel() noexcept override {
    try {
      const auto& strand = state_->host->strand();
      asio::post(strand, [state = state_] {
        state->cancelled = true;
        if (state->connection) {
          state->connection->close();
          if (!state->reading) {
            state->host->finish_stream(std::move(state->connection), false);
          }
        }
      });
    } catch (...) {  // posting allocates; without memory the destructor closes the socket
      if (state_->connection) {
        state_->connection->close();
      }
    }
  }

 private:
  static awaitable<std::size_t> read(std::shared_ptr<StreamState> state, std::string& out) {
    if (state->cancelled) {
      throw Error(std::make_error_code(std::errc::operation_canceled),
                  "GET " + state->location + ": stream cancelled");
    }
    if (!state->connection) {
      co_return 0;  // ended before
    }
    auto& connection = *state->connection;
    auto& parser = *state->parser;
    state->reading = true;
    std::size_t appended = 0;
    while (appended == 0 && !parser.is_done()) {
      const bool idle_limit = state->idle_timeout.count() > 0;
      if (idle_limit) {
        state->host->watchdog().watch(connection, Clock::now() + state->idle_timeout);
      }
      auto [ec, n] =
          co_await http::async_read_some(connection.stream, connection.buffer, parser, use_tuple);
      if (idle_limit) {
        state->host->watchdog().unwatch(connection);
      }
      if (ec) {
        ec = connection.outcome(ec);
      }
      auto& body = parser.get().body();
      out.append(body);
      appended += body.size();
      body.clear();
      if (ec) {
        state->reading = false;
        state->host->finish_stream(std::move(state->connection), false);
        if (state->cancelled || ec == asio::error::operation_aborted) {
          throw Error(std::make_error_code(std::errc::operation_canceled),
                      "GET " + state->location + ": stream cancelled");
        }
        if (ec == beast::error::timeout) {
          throw Error(std::make_error_code(std::errc::timed_out),
                      "GET " + state->location + ": no data for " + ms_text(state->idle_timeout));
        }
        throw Error(std::error_code(ec),
                    "GET " + state->location + ": read stream: " + ec.message());
      }
    }
    state->reading = false;
    if (parser.is_done()) {
      state->host->finish_stream(std::move(state->connection),
                                 parser.get().keep_alive() && !state->cancelled);
    }
    co_return appended;
  }

  std::shared_ptr<StreamState> state_;
};

// Reads an HTTP/2 stream's body on the transport's strand. The session buffers what arrives
// (up to the stream's window) and the server may send more as this reader takes it.
class H2ResponseStream final : public ResponseStream::Impl {
 public:
  struct State {
    std::shared_ptr<StreamHost> host;
    std::shared_ptr<H2Session> session;
    std::shared_ptr<H2Stream> stream;
    std::string location;
    std::chrono::milliseconds idle_timeout{0};  // zero: none
    bool cancelled = false;
  };

  explicit H2ResponseStream(std::shared_ptr<State> state) : state_(std::move(state)) {}

  void async_read_some(
      std::string& out,
      asio::any_completion_handler<void(std::exception_ptr, std::size_t)> handler) override {
    asio::co_spawn(state_->host->strand(), read(state_, out), std::move(handler));
  }

  void cancel() noexcept override {
    try {
      asio::post(state_->host->strand(), [state = state_] {
        state->cancelled = true;
        state->session->cancel(*state->stream);
      });
    } catch (...) {  // posting allocates; without memory the stream stays until the session ends
    }
  }

 private:
  // A read hands over at most this much, as an HTTP/1.1 read of Beast does.
  static constexpr std::size_t max_read = std::size_t{64} * 1024;

  static awaitable<std::size_t> read(std::shared_ptr<State> state, std::string& out) {
    auto& stream = *state->stream;
    const auto cancelled = [&] {
      return Error(std::make_error_code(std::errc::operation_canceled),
                   "GET " + state->location + ": stream cancelled");
    };
    const auto cancellation = co_await asio::this_coro::cancellation_state;
    for (;;) {
      if (state->cancelled) {
        throw cancelled();
      }
      if (!stream.body.empty()) {
        const std::size_t n = std::min(stream.body.size(), max_read);
        out.append(stream.body, 0, n);
        stream.body.erase(0, n);
        state->session->consume(stream, n);
        co_return n;
      }
      if (stream.ended) {
        co_return 0;
      }
      if (stream.closed) {
        if (!stream.connection_problem.empty()) {
          throw Error(std::make_error_code(std::errc::timed_out),
                      "GET " + state->location + ": read stream: " + stream.connection_problem);
        }
        if (stream.timed_out) {
          throw Error(std::make_error_code(std::errc::timed_out),
                      "GET " + state->location + ": no data for " + ms_text(state->idle_timeout));
        }
        const std::error_code code = stream.connection_error
                                         ? std::error_code(stream.connection_error)
                                         : std::make_error_code(std::errc::connection_reset);
        throw Error(code, "GET " + state->location + ": read stream: " +
                              (stream.connection_error
                                   ? stream.connection_error.message()
                                   : std::string("the server reset the HTTP/2 stream (") +
                                         nghttp2_http2_strerror(stream.reset_code) + ")"));
      }
      const bool idle_limit = state->idle_timeout.count() > 0;
      if (idle_limit) {
        state->host->watchdog().watch(stream, Clock::now() + state->idle_timeout);
      }
      co_await stream.wait();
      if (idle_limit) {
        state->host->watchdog().unwatch(stream);
      }
      if (cancellation.cancelled() != asio::cancellation_type::none) {
        throw cancelled();  // this read only; the stream stays open
      }
    }
  }

  std::shared_ptr<State> state_;
};

}  // namespace

std::unique_ptr<ResponseStream::Impl> make_http1_stream(std::shared_ptr<StreamHost> host,
                                                        std::unique_ptr<Connection> connection,
                                                        std::unique_ptr<ResponseParser> parser,
                                                        std::string location,
                                                        std::chrono::milliseconds idle_timeout) {
  auto state = std::make_shared<StreamState>();
  state->host = std::move(host);
  state->location = std::move(location);
  state->idle_timeout = idle_timeout;
  state->connection = std::move(connection);
  state->parser = std::move(parser);
  return std::make_unique<Http1ResponseStream>(std::move(state));
}

std::unique_ptr<ResponseStream::Impl> make_h2_stream(std::shared_ptr<StreamHost> host,
                                                     std::shared_ptr<H2Session> session,
                                                     std::shared_ptr<H2Stream> stream,
                                                     std::string location,
                                                     std::chrono::milliseconds idle_timeout) {
  auto state = std::make_shared<H2ResponseStream::State>();
  state->host = std::move(host);
  state->location = std::move(location);
  state->idle_timeout = idle_timeout;
  state->session = std::move(session);
  state->stream = std::move(stream);
  return std::make_unique<H2ResponseStream>(std::move(state));
}

}  // namespace kubex::client::detail
