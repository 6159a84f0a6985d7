// SPDX-License-Identifier: Apache-2.0
#include "detail/websocket.hpp"

#include <kubex/client/client.hpp>
#include <kubex/client/process_output.hpp>
#include <kubex/core/error.hpp>

#include "detail/refuse.hpp"
#include "detail/text.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace kubex::client::detail {

// How a WebSocket ends its TLS connection (found by argument-dependent lookup, preferred to
// Beast's for ssl_stream): the socket is closed without waiting for the peer's close_notify,
// as the transport closes its HTTP connections. Beast's own teardown reads on until the peer
// answers; a peer still sending a refused message then makes the TLS error ("application
// data after close notify") replace the reason the connection was failed.
template <class TeardownHandler>
void async_teardown(beast::role_type /*role*/, TlsStream& stream, TeardownHandler&& handler) {
  boost_error ignored;
  beast::get_lowest_layer(stream).close(ignored);
  asio::post(stream.get_executor(), [h = std::forward<TeardownHandler>(handler)]() mutable {
    std::move(h)(boost_error{});
  });
}

namespace {

namespace websocket = boost::beast::websocket;
namespace http = boost::beast::http;

// Bytes handed out by one read at most.
constexpr std::size_t read_piece = std::size_t{64} << 10U;
static_assert(read_piece == process_output_piece, "RemoteProcess documents this bound");

// The request without its query: an exec's command line may hold secrets, so messages name
// the path only.
std::string location_of(const Call& call) {
  std::string text(call.message.method_string());
  const std::string_view target = call.message.target();
  text.append(" ").append(call.origin).append(target.substr(0, target.find('?')));
  return text;
}

// An open WebSocket on the transport's strand, shared by its handle and its pending operations.
struct SocketState {
  SocketState(std::unique_ptr<Connection> c, std::string where, std::string chosen)
      : connection(std::move(c)),
        ws(connection->stream),
        strand(connection->stream.get_executor()),
        location(std::move(where)),
        protocol(std::move(chosen)) {}
  SocketState(const SocketState&) = delete;
  SocketState& operator=(const SocketState&) = delete;
  ~SocketState() { connection->close(); }

  std::unique_ptr<Connection> connection;
  websocket::stream<TlsStream&> ws;
  Strand strand;
  std::string location;
  std::string protocol;
  beast::flat_buffer buffer;
  std::size_t max_message = 0;
  std::chrono::milliseconds ping_timeout{};
  bool writing = false;
  bool cancelled = false;
  std::deque<std::shared_ptr<Waiter>> writers;  // writes waiting for their turn
};

[[noreturn]] void cancelled(const SocketState& s) {
  throw Error(std::make_error_code(std::errc::operation_canceled), s.location + ": cancelled");
}

// The error of a read or write that failed with `ec`.
[[noreturn]] void fail_io(const SocketState& s, std::string_view step, boost_error ec) {
  if (s.cancelled || ec == asio::error::operation_aborted) {
    cancelled(s);
  }
  if (ec == beast::error::timeout) {
    throw Error(std::make_error_code(std::errc::timed_out), s.location + ": " + std::string(step) +
                                                                ": nothing (not even a pong) for " +
                                                                ms_text(s.ping_timeout));
  }
  if (ec == websocket::error::message_too_big) {
    throw Error(std::make_error_code(std::errc::message_size),
                s.location + ": " + std::string(step) + ": a message larger than " +
                    std::to_string(s.max_message) + " bytes (WebSocketOptions::max_message_size)");
  }
  throw Error(std::error_code(ec), s.location + ": " + std::string(step) + ": " + ec.message());
}

class BeastWebSocket final : public WebSocket::Impl {
 public:
  explicit BeastWebSocket(std::shared_ptr<SocketState> state) : state_(std::move(state)) {}
  BeastWebSocket(const BeastWebSocket&) = delete;
  BeastWebSocket& operator=(const BeastWebSocket&) = delete;
  ~BeastWebSocket() override { cancel(); }

  [[nodiscard]] const std::string& subprotocol() const noexcept override {
    return state_->protocol;
  }
  [[nodiscard]] const std::string& location() const noexcept override { return state_->location; }

  void async_read_some(std::string& out,
                       asio::any_completion_handler<WebSocketReadSignature> handler) override {
    asio::co_spawn(state_->strand, read(state_, out), std::move(handler));
  }

  void async_write(std::string message,
                   asio::any_completion_handler<WebSocketWriteSignature> handler) override {
    asio::co_spawn(state_->strand, write(state_, std::move(message)), std::move(handler));
  }

  void async_close(asio::any_completion_handler<WebSocketWriteSignature> handler) override {
    asio::co_spawn(state_->strand, close(state_), std::move(handler));
  }

  void cancel() noexcept override {
    try {
      asio::dispatch(state_->strand, [state = state_] {
        if (state->cancelled) {
          return;
        }
        state->cancelled = true;
        state->connection->close();
        for (const auto& writer : state->writers) {
          writer->wake();
        }
        state->writers.clear();
      });
    } catch (...) {  // dispatching may allocate; the state's destructor closes the socket
    }
  }

 private:
  static awaitable<WebSocketRead> read(std::shared_ptr<SocketState> s, std::string& out) {
    if (s->cancelled) {
      cancelled(*s);
    }
    WebSocketRead result;
    const auto [ec, n] = co_await s->ws.async_read_some(s->buffer, read_piece, use_tuple);
    if (ec == websocket::error::closed) {
      result.closed = true;
      result.close_code = static_cast<std::uint16_t>(s->ws.reason().code);
      co_return result;
    }
    if (ec) {
      fail_io(*s, "read", ec);
    }
    out.append(static_cast<const char*>(s->buffer.data().data()), s->buffer.size());
    result.size = s->buffer.size();
    s->buffer.clear();
    result.message_done = s->ws.is_message_done();
    result.text = s->ws.got_text();
    co_return result;
  }

  // Writes go one at a time, in the order they were started; the turn passes directly to the
  // next waiting writer, so a write started later cannot overtake.
  static awaitable<void> write(std::shared_ptr<SocketState> s, std::string message) {
    if (s->cancelled) {
      cancelled(*s);
    }
    if (s->writing) {
      auto waiter = std::make_shared<Waiter>(s->strand);
      waiter->timer.expires_at(Clock::time_point::max());
      s->writers.push_back(waiter);
      co_await waiter->timer.async_wait(use_tuple);
      if (s->cancelled) {
        cancelled(*s);
      }
    }
    s->writing = true;
    s->ws.binary(true);
    const auto [ec, n] = co_await s->ws.async_write(asio::buffer(message), use_tuple);
    if (!s->writers.empty()) {
      s->writers.front()->wake();
      s->writers.pop_front();
    } else {
      s->writing = false;
    }
    if (ec) {
      fail_io(*s, "write", ec);
    }
  }

  static awaitable<void> close(std::shared_ptr<SocketState> s) {
    if (s->cancelled) {
      cancelled(*s);
    }
    const auto [ec] = co_await s->ws.async_close(
        websocket::close_reason(websocket::close_code::normal), use_tuple);
    // The peer may have closed first, or gone: either way the connection is over.
    if (ec && ec != websocket::error::closed && ec != asio::error::eof &&
        ec != asio::ssl::error::stream_truncated) {
      fail_io(*s, "close", ec);
    }
  }

  std::shared_ptr<SocketState> state_;
};

}  // namespace

awaitable<Upgrade> upgrade_websocket(std::unique_ptr<Connection> connection, const Call& call,
                                     const WebSocketOptions& options,
                                     std::chrono::milliseconds timeout) {
  std::string offered;
  for (const auto& protocol : options.protocols) {
    offered.append(offered.empty() ? "" : ", ").append(protocol);
  }
  auto state = std::make_shared<SocketState>(std::move(connection), location_of(call), "");
  state->max_message = options.max_message_size;
  state->ping_timeout = options.ping_timeout;
  auto& ws = state->ws;
  websocket::stream_base::timeout limits{};
  limits.handshake_timeout = timeout;
  if (options.ping_timeout.count() > 0) {
    limits.idle_timeout = options.ping_timeout;
    limits.keep_alive_pings = true;
  } else {
    limits.idle_timeout = websocket::stream_base::none();
    limits.keep_alive_pings = false;
  }
  ws.set_option(limits);
  ws.read_message_max(options.max_message_size);
  ws.auto_fragment(false);
  // The request's own headers (credentials, impersonation, user agent) ride on the upgrade;
  // Beast writes Host, Upgrade, Connection and the key itself.
  ws.set_option(websocket::stream_base::decorator([&call, offered](websocket::request_type& req) {
    for (const auto& field : call.message) {
      const auto name = field.name();
      if (name == http::field::host || name == http::field::connection ||
          name == http::field::upgrade || name == http::field::content_length ||
          name == http::field::content_type || name == http::field::accept_encoding) {
        continue;
      }
      req.set(field.name_string(), field.value());
    }
    if (!offered.empty()) {
      req.set(http::field::sec_websocket_protocol, offered);
    }
  }));

  websocket::response_type response;
  const std::string host(call.message[http::field::host]);
  const std::string target(call.message.target());
  const auto [ec] = co_await ws.async_handshake(response, host, target, use_tuple);
  Upgrade result;
  if (ec == websocket::error::upgrade_declined) {
    result.refusal.status = response.result_int();
    result.refusal.content_type = std::string(response[http::field::content_type]);
    result.refusal.body = std::move(response.body());
    co_return result;
  }
  if (ec) {
    if (ec == beast::error::timeout) {
      throw Error(std::make_error_code(std::errc::timed_out),
                  state->location + ": WebSocket handshake: timed out after " + ms_text(timeout));
    }
    fail_io(*state, "WebSocket handshake", ec);
  }
  const std::string chosen(response[http::field::sec_websocket_protocol]);
  if (!options.protocols.empty() && std::find(options.protocols.begin(), options.protocols.end(),
                                              chosen) == options.protocols.end()) {
    throw Error(std::make_error_code(std::errc::protocol_error),
                state->location + ": WebSocket handshake: " +
                    (chosen.empty() ? "the server chose no subprotocol (offered: " + offered + ")"
                                    : "the server chose subprotocol \"" + chosen +
                                          "\", which was not offered (offered: " + offered + ")"));
  }
  state->protocol = chosen;
  result.socket = std::make_unique<BeastWebSocket>(std::move(state));
  co_return result;
}

}  // namespace kubex::client::detail

namespace kubex::client {

void Transport::async_upgrade(HttpRequest request, WebSocketOptions /*options*/,
                              boost::asio::any_completion_handler<WebSocketSignature> handler) {
  const std::string_view target = request.target;
  detail::refuse<WebSocket>(std::move(handler),
                            "GET " + std::string(target.substr(0, target.find('?'))) +
                                ": this transport cannot open WebSockets");
}

}  // namespace kubex::client
