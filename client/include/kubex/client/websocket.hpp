// SPDX-License-Identifier: Apache-2.0
#pragma once
// An upgraded connection to the apiserver (exec, attach, port-forward): WebSocket messages in
// both directions over the transport's TLS, proxy and credentials.

#include <kubex/client/completion_token.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/system_executor.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kubex::client {

/// How a WebSocket is opened and kept.
struct WebSocketOptions {
  /// Subprotocols offered, most wanted first. The server must pick one of them: an answer
  /// without one, or with one not offered, fails the upgrade.
  std::vector<std::string> protocols{};
  /// Largest message accepted; a bigger one fails the read (and closes the connection with
  /// code 1009) instead of being buffered. Reads hand out pieces of a message as they arrive,
  /// so this bounds no memory of kubex's own: it protects against a peer that misbehaves.
  std::size_t max_message_size = std::size_t{16} << 20U;
  /// Keep-alive: a connection on which nothing has arrived for half this long is sent a ping;
  /// nothing for all of it (no pong either) fails the pending read with std::errc::timed_out.
  /// Zero sends no pings and waits forever.
  std::chrono::milliseconds ping_timeout = std::chrono::seconds(60);
};

/// What one WebSocket read delivered.
struct WebSocketRead {
  /// Bytes appended to the caller's string.
  std::size_t size = 0;
  /// The bytes end a message.
  bool message_done = false;
  /// The message is a text message (the channel protocols send binary ones).
  bool text = false;
  /// The peer closed the connection with a close frame: no bytes, and no more to come.
  bool closed = false;
  /// The close frame's code (1000: normal), when `closed`.
  std::uint16_t close_code = 0;
};

/// Completion signature of a WebSocket read.
using WebSocketReadSignature = void(std::exception_ptr, WebSocketRead);
/// Completion signature of a write or a close.
using WebSocketWriteSignature = void(std::exception_ptr);

/// An open WebSocket to the apiserver. One read at a time; writes may overlap (they are sent
/// in order). Destroying it closes the connection at once; async_close closes it politely.
/// Every operation may be started from any thread.
class KUBEX_API WebSocket {
 public:
  /// The state a transport keeps for an open WebSocket.
  class Impl {
   public:
    virtual ~Impl() = default;
    /// The subprotocol the server chose.
    [[nodiscard]] virtual const std::string& subprotocol() const noexcept = 0;
    /// The request, for messages: "GET https://host:port/api/v1/...".
    [[nodiscard]] virtual const std::string& location() const noexcept = 0;
    /// Appends the next piece of the current message (at most 64 KiB) to `out`.
    virtual void async_read_some(
        std::string& out, boost::asio::any_completion_handler<WebSocketReadSignature> handler) = 0;
    /// Sends `message` as one binary message.
    virtual void async_write(std::string message,
                             boost::asio::any_completion_handler<WebSocketWriteSignature> h) = 0;
    /// Sends a close frame (1000) and waits for the peer's.
    virtual void async_close(boost::asio::any_completion_handler<WebSocketWriteSignature> h) = 0;
    /// Closes the connection; pending operations fail with std::errc::operation_canceled.
    virtual void cancel() noexcept = 0;
  };

  /// An empty WebSocket; only assignable and destructible.
  WebSocket() = default;
  /// Wraps a transport's open WebSocket.
  explicit WebSocket(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
  /// Closes the connection if it is still open.
  ~WebSocket() { cancel(); }
  /// Takes over `other`'s connection.
  WebSocket(WebSocket&& other) noexcept = default;
  /// Closes this connection and takes over `other`'s.
  WebSocket& operator=(WebSocket&& other) noexcept {
    if (this != &other) {
      cancel();
      impl_ = std::move(other.impl_);
    }
    return *this;
  }
  WebSocket(const WebSocket&) = delete;
  WebSocket& operator=(const WebSocket&) = delete;

  /// Whether this holds a connection.
  [[nodiscard]] explicit operator bool() const noexcept { return impl_ != nullptr; }
  /// The subprotocol the server chose; empty for an empty WebSocket.
  [[nodiscard]] const std::string& subprotocol() const noexcept {
    static const std::string none;
    return impl_ ? impl_->subprotocol() : none;
  }
  /// "GET https://host:port/..." of the upgrade, for messages.
  [[nodiscard]] const std::string& location() const noexcept {
    static const std::string none;
    return impl_ ? impl_->location() : none;
  }

  /// Appends the next piece of the current message to `out` once the peer has sent it; a
  /// message may come in several pieces. Nothing is read from the socket until asked, so a
  /// slow reader slows the sender (TCP flow control all the way back).
  /// Completion signature: void(std::exception_ptr, WebSocketRead).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_read_some(std::string& out, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, WebSocketReadSignature>(
        [this, &out](auto handler) {
          if (!impl_) {
            fail_empty(std::move(handler), WebSocketRead{});
            return;
          }
          impl_->async_read_some(out, std::move(handler));
        },
        token);
  }

  /// Sends `message` as one binary message; completes once it is handed to the socket.
  /// Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_write(std::string message, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, WebSocketWriteSignature>(
        [this](auto handler, std::string m) {
          if (!impl_) {
            fail_empty(std::move(handler));
            return;
          }
          impl_->async_write(std::move(m), std::move(handler));
        },
        token, std::move(message));
  }

  /// Sends a normal close frame and completes when the peer has answered (or the connection
  /// ended). Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_close(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, WebSocketWriteSignature>(
        [this](auto handler) {
          if (!impl_) {
            fail_empty(std::move(handler));
            return;
          }
          impl_->async_close(std::move(handler));
        },
        token);
  }

  /// Closes the connection at once (any thread).
  void cancel() noexcept {
    if (impl_) {
      impl_->cancel();
    }
  }

 private:
  // Reported like any failure: from the handler's executor, never by throwing here.
  template <class Handler, class... Values>
  static void fail_empty(Handler handler, Values... values) {
    auto executor = boost::asio::get_associated_executor(handler, boost::asio::system_executor());
    boost::asio::post(executor, [h = std::move(handler), values...]() mutable {
      std::move(h)(std::make_exception_ptr(Error(
                       errc::invalid_argument,
                       "WebSocket: the connection is empty (default-constructed or moved from)")),
                   values...);
    });
  }

  std::unique_ptr<Impl> impl_;
};

/// Completion signature of opening a WebSocket.
using WebSocketSignature = void(std::exception_ptr, WebSocket);

}  // namespace kubex::client
