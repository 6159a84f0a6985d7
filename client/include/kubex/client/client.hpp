// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/client/completion_token.hpp>
#include <kubex/client/http.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>
#include <kubex/client/stats.hpp>
#include <kubex/client/websocket.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/system_executor.hpp>

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <utility>

namespace kubex::client {

/// Completion signature of a request: the error (kubex::Error, or kubex::ApiError from higher
/// layers) as an exception pointer, so that `co_await` and `use_future` throw it, and the
/// response. Wrap the token in `boost::asio::as_tuple` for results without exceptions.
using RequestSignature = void(std::exception_ptr, HttpResponse);

/// An open streaming response (watch, log follow): status and headers have arrived, the body
/// is read piece by piece as the server sends it. Destroying or cancelling it closes the
/// connection (over HTTP/2: resets the stream, the connection carries on); a stream read to
/// its end returns a reusable connection to the pool.
class KUBEX_API ResponseStream {
 public:
  /// The state a transport keeps for an open stream.
  class Impl {
   public:
    virtual ~Impl() = default;
    /// Appends the next bytes (at most ClientOptions::read_buffer_size) to `out`.
    virtual void async_read_some(
        std::string& out,
        boost::asio::any_completion_handler<void(std::exception_ptr, std::size_t)> handler) = 0;
    /// Closes the connection; a pending read completes with std::errc::operation_canceled.
    virtual void cancel() noexcept = 0;
  };

  /// An empty stream; only assignable and destructible.
  ResponseStream() = default;
  /// Wraps a transport's stream with the response head already read.
  ResponseStream(std::unique_ptr<Impl> impl, HttpResponse head)
      : impl_(std::move(impl)), head_(std::move(head)) {}
  /// Cancels the stream if it is still open.
  ~ResponseStream() {
    if (impl_) {
      impl_->cancel();
    }
  }
  /// Takes over `other`'s stream.
  ResponseStream(ResponseStream&& other) noexcept = default;
  /// Cancels this stream and takes over `other`'s.
  ResponseStream& operator=(ResponseStream&& other) noexcept {
    if (this != &other) {
      if (impl_) {
        impl_->cancel();
      }
      impl_ = std::move(other.impl_);
      head_ = std::move(other.head_);
    }
    return *this;
  }
  ResponseStream(const ResponseStream&) = delete;
  ResponseStream& operator=(const ResponseStream&) = delete;

  /// Status, content type and warnings of the response; its body is empty. For a non-2xx
  /// status the whole (small) error body is in `head().body` and the stream is at its end.
  [[nodiscard]] const HttpResponse& head() const noexcept { return head_; }

  /// Appends the next piece of the body to `out` as soon as the server has sent it, and
  /// completes with the number of bytes appended; 0 means the body has ended cleanly. On an
  /// empty stream it fails with errc::invalid_argument.
  /// Completion signature: void(std::exception_ptr, std::size_t).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_read_some(std::string& out, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, std::size_t)>(
        [this, &out](auto handler) {
          if (!impl_) {
            // Reported like any failure: from the handler's executor, never by throwing here.
            auto executor =
                boost::asio::get_associated_executor(handler, boost::asio::system_executor());
            boost::asio::post(executor, [h = std::move(handler)]() mutable {
              std::move(h)(std::make_exception_ptr(
                               Error(errc::invalid_argument,
                                     "ResponseStream::async_read_some: the stream is empty "
                                     "(default-constructed or moved from)")),
                           std::size_t{0});
            });
            return;
          }
          impl_->async_read_some(out, std::move(handler));
        },
        token);
  }

  /// Closes the stream at once (any thread); a pending read completes with an error carrying
  /// std::errc::operation_canceled.
  void cancel() noexcept {
    if (impl_) {
      impl_->cancel();
    }
  }

 private:
  std::unique_ptr<Impl> impl_;
  HttpResponse head_;
};

/// Completion signature of opening a stream.
using StreamSignature = void(std::exception_ptr, ResponseStream);

/// The transport interface: sends authenticated requests to one apiserver. make_transport
/// speaks HTTP/1.1 or HTTP/2; other backends implement the same interface, so Client and
/// everything above it does not change with the backend.
class KUBEX_API Transport {
 public:
  virtual ~Transport() = default;
  /// The executor on which handlers without an associated executor complete.
  [[nodiscard]] virtual boost::asio::any_io_executor get_executor() const = 0;
  /// Sends `request` and reads the whole response.
  virtual void async_send(HttpRequest request,
                          boost::asio::any_completion_handler<RequestSignature> handler) = 0;
  /// Sends `request` and completes once the response head has arrived.
  virtual void async_open(HttpRequest request,
                          boost::asio::any_completion_handler<StreamSignature> handler) = 0;
  /// Sends `request` (a GET) as a WebSocket upgrade offering `options.protocols`, and
  /// completes with the open WebSocket. A refusal fails with kubex::ApiError (the server's
  /// Status); transports that cannot upgrade fail with errc::invalid_argument.
  virtual void async_upgrade(HttpRequest request, WebSocketOptions options,
                             boost::asio::any_completion_handler<WebSocketSignature> handler);
  /// Current counters.
  [[nodiscard]] virtual TransportStats stats() const = 0;
  /// Closes the idle pooled connections (busy ones finish first).
  virtual void close_idle() = 0;
  /// The configuration in use, with credentials refreshed so far.
  [[nodiscard]] virtual ClientConfig config() const = 0;
  /// The encoding Api asks responses in (ClientOptions::encoding); JSON unless a transport
  /// says otherwise.
  [[nodiscard]] virtual Encoding encoding() const { return Encoding::json; }
  /// Takes back a response body its reader is done with, so that a later response can be
  /// read into its memory instead of a fresh multi-megabyte buffer. Optional; the default
  /// drops it.
  virtual void recycle(std::string&& body) noexcept { std::string dropped(std::move(body)); }
};

/// The HTTPS transport (Boost.Beast, OpenSSL 3, libnghttp2): keep-alive pool, gzip, timeouts,
/// retries, rate limit, token files, exec plugins and impersonation, as `config` and `options`
/// say; HTTP/1.1, or HTTP/2 when the server agrees and `options.http2` is set (every request)
/// or `options.http2_for_streams` (watches and log follows, the default). Handlers run on
/// `executor` unless they carry their own; the transport is safe to use from several threads
/// (its own work runs on a strand of `executor`).
/// @throws kubex::ConfigError if the configuration cannot be used (plain http server,
///         unusable certificate or key).
KUBEX_API std::shared_ptr<Transport> make_transport(boost::asio::any_io_executor executor,
                                                    ClientConfig config,
                                                    ClientOptions options = {});

/// make_transport with HTTP/1.1 only, whatever `options.http2` and
/// `options.http2_for_streams` say.
KUBEX_API std::shared_ptr<Transport> make_http1_transport(boost::asio::any_io_executor executor,
                                                          ClientConfig config,
                                                          ClientOptions options = {});

/// make_transport with HTTP/2 offered for every request, whatever `options.http2` says.
KUBEX_API std::shared_ptr<Transport> make_http2_transport(boost::asio::any_io_executor executor,
                                                          ClientConfig config,
                                                          ClientOptions options = {});

/// An asynchronous Kubernetes API client: a cheap, copyable handle to a shared transport.
/// Every operation takes an Asio completion token: `boost::asio::use_awaitable` (C++20
/// coroutines), `boost::asio::use_future`, `boost::asio::deferred` or a plain callback.
/// Errors arrive as an exception pointer (thrown by co_await and futures); wrap the token in
/// `boost::asio::as_tuple` to receive them as values instead.
class Client {
 public:
  /// A client over the HTTPS transport (make_transport: by default streams over HTTP/2 and
  /// other requests over HTTP/1.1; see ClientOptions::http2 and http2_for_streams).
  /// @throws kubex::ConfigError as make_transport does.
  Client(boost::asio::any_io_executor executor, ClientConfig config, ClientOptions options = {})
      : transport_(make_transport(std::move(executor), std::move(config), std::move(options))) {}
  /// A client over any transport.
  explicit Client(std::shared_ptr<Transport> transport) : transport_(std::move(transport)) {}

  /// Sends `request` and reads the whole response; non-2xx statuses are responses, not errors.
  /// Fails with kubex::Error for transport problems (errc::invalid_path for a malformed
  /// target, errc::tls_verification_failed, std::errc::timed_out, connection errors).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_request(HttpRequest request, CompletionToken&& token = {}) const {
    return boost::asio::async_initiate<CompletionToken, RequestSignature>(
        [transport = transport_](auto handler, HttpRequest r) {
          transport->async_send(std::move(r), std::move(handler));
        },
        token, std::move(request));
  }

  /// Sends `request` and completes with an open ResponseStream once the head has arrived.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_stream(HttpRequest request, CompletionToken&& token = {}) const {
    return boost::asio::async_initiate<CompletionToken, StreamSignature>(
        [transport = transport_](auto handler, HttpRequest r) {
          transport->async_open(std::move(r), std::move(handler));
        },
        token, std::move(request));
  }

  /// Upgrades `request` to a WebSocket (exec, attach, port-forward): completes with it open
  /// and the subprotocol chosen, or fails with kubex::ApiError when the server refuses.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_websocket(HttpRequest request, WebSocketOptions options,
                       CompletionToken&& token = {}) const {
    return boost::asio::async_initiate<CompletionToken, WebSocketSignature>(
        [transport = transport_](auto handler, HttpRequest r, WebSocketOptions o) {
          transport->async_upgrade(std::move(r), std::move(o), std::move(handler));
        },
        token, std::move(request), std::move(options));
  }

  /// The executor handlers complete on by default.
  [[nodiscard]] boost::asio::any_io_executor get_executor() const {
    return transport_->get_executor();
  }
  /// The transport's counters.
  [[nodiscard]] TransportStats stats() const { return transport_->stats(); }
  /// The configuration in use (server, default namespace, credentials).
  [[nodiscard]] ClientConfig config() const { return transport_->config(); }
  /// The encoding Api asks responses in (ClientOptions::encoding).
  [[nodiscard]] Encoding encoding() const { return transport_->encoding(); }
  /// The shared transport.
  [[nodiscard]] const std::shared_ptr<Transport>& transport() const noexcept { return transport_; }
  /// Gives a response body that has been read back to the transport (Transport::recycle).
  void recycle(std::string&& body) const noexcept { transport_->recycle(std::move(body)); }

 private:
  std::shared_ptr<Transport> transport_;
};

}  // namespace kubex::client
