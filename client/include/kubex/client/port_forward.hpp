// SPDX-License-Identifier: Apache-2.0
#pragma once
// port-forward: TCP streams to ports of a pod through the apiserver, over one WebSocket per
// PortForwarder in the protocol the 1.30+ apiserver serves (`SPDY/3.1+portforward.k8s.io`:
// SPDY frames inside WebSocket messages, relayed to the kubelet). Each stream is read when
// asked: a slow reader stops the tunnel's reads, TCP flow control slows the kubelet and the
// pod, and nothing is dropped or buffered without bound.

#include <kubex/client/client.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

namespace kubex::client {

/// Completion signature of a stream read: bytes appended, 0 once the pod's side has closed.
using PortReadSignature = void(std::exception_ptr, std::size_t);
/// Completion signature of a stream write or half-close.
using PortWriteSignature = void(std::exception_ptr);

/// One connection to a port of the pod. Read and write it like a socket; async_close_write
/// half-closes it (the pod's program reads end of file). Destroying it resets the connection.
/// One read at a time; writes may overlap reads.
class KUBEX_API PortStream {
 public:
  /// The stream's state, shared with the tunnel (internal).
  struct State;

  /// An empty stream; only assignable and destructible.
  PortStream() = default;
  /// Wraps an opened stream (internal: PortForwarder::async_open makes them).
  explicit PortStream(std::shared_ptr<State> state) : state_(std::move(state)) {}
  /// Resets the connection if it is still open.
  ~PortStream();
  /// Takes over `other`'s connection.
  PortStream(PortStream&& other) noexcept = default;
  /// Resets this connection and takes over `other`'s.
  PortStream& operator=(PortStream&& other) noexcept;
  PortStream(const PortStream&) = delete;
  PortStream& operator=(const PortStream&) = delete;

  /// The pod's port.
  [[nodiscard]] std::uint16_t port() const noexcept;

  /// Appends what the pod sent next to `out` (at most what has arrived); 0 once the pod's
  /// side has closed and the kubelet reported no error. A forwarding the kubelet could not do
  /// (nothing listens on the port) fails with kubex::Error carrying its message.
  /// Completion signature: void(std::exception_ptr, std::size_t).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_read_some(std::string& out, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, PortReadSignature>(
        [this, &out](auto handler) { start_read(out, std::move(handler)); }, token);
  }

  /// Sends `data` to the pod; completes once the tunnel has taken it.
  /// Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_write(std::string data, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, PortWriteSignature>(
        [this](auto handler, std::string d) { start_write(std::move(d), std::move(handler)); },
        token, std::move(data));
  }

  /// Half-closes the connection: the pod's program reads end of file, and may still answer.
  /// Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_close_write(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, PortWriteSignature>(
        [this](auto handler) { start_close_write(std::move(handler)); }, token);
  }

  /// Resets the connection (any thread); pending operations fail with operation_canceled.
  void cancel() noexcept;

 private:
  void start_read(std::string& out, boost::asio::any_completion_handler<PortReadSignature> h);
  void start_write(std::string data, boost::asio::any_completion_handler<PortWriteSignature> h);
  void start_close_write(boost::asio::any_completion_handler<PortWriteSignature> h);

  std::shared_ptr<State> state_;
};

/// Completion signature of opening a stream.
using PortOpenSignature = void(std::exception_ptr, PortStream);

/// A port-forward tunnel to one pod: any number of streams to its ports share one WebSocket.
/// The tunnel stays open while this object or any of its streams lives.
class KUBEX_API PortForwarder {
 public:
  /// The tunnel's state (internal).
  struct Tunnel;

  /// An empty forwarder; only assignable and destructible.
  PortForwarder() = default;
  /// A forwarder over `socket`, upgraded with the port-forward subprotocol; its work runs on
  /// a strand of `executor`.
  PortForwarder(WebSocket socket, boost::asio::any_io_executor executor);
  /// Closes the tunnel once no stream of it is left.
  ~PortForwarder();
  /// Takes over `other`'s tunnel.
  PortForwarder(PortForwarder&& other) noexcept = default;
  /// Lets go of this tunnel and takes over `other`'s.
  PortForwarder& operator=(PortForwarder&& other) noexcept = default;
  PortForwarder(const PortForwarder&) = delete;
  PortForwarder& operator=(const PortForwarder&) = delete;

  /// Opens a connection to `port` of the pod.
  /// Completion signature: void(std::exception_ptr, PortStream).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_open(std::uint16_t port, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, PortOpenSignature>(
        [this, port](auto handler) { start_open(port, std::move(handler)); }, token);
  }

  /// Closes the tunnel and every stream of it at once (any thread).
  void cancel() noexcept;

 private:
  void start_open(std::uint16_t port, boost::asio::any_completion_handler<PortOpenSignature> h);

  std::shared_ptr<Tunnel> tunnel_;
};

/// Completion signature of opening a tunnel.
using PortForwardSignature = void(std::exception_ptr, PortForwarder);

/// The subprotocol of the port-forward tunnel.
inline constexpr std::string_view port_forward_protocol = "SPDY/3.1+portforward.k8s.io";

namespace detail {

/// Upgrades `prepared` (RequestBuilder::port_forward) to a tunnel.
KUBEX_API void open_port_forward(const Client& client, Prepared prepared,
                                 boost::asio::any_completion_handler<PortForwardSignature> handler);

}  // namespace detail

/// What a LocalPortForward has done so far.
struct LocalForwardStats {
  /// Local connections accepted.
  std::size_t connections = 0;
  /// Of those, the ones still open.
  std::size_t active = 0;
  /// Connections that ended with an error (the tunnel refused, the pod's port closed).
  std::size_t failed = 0;
  /// Bytes sent to the pod, and received from it.
  std::size_t bytes_to_pod = 0;
  std::size_t bytes_from_pod = 0;
};

/// `kubectl port-forward`: listens on 127.0.0.1 and forwards every connection it accepts to
/// a port of a pod, many at once, each through a tunnel of its own (a slow connection never
/// stalls another). Stops when destroyed.
class KUBEX_API LocalPortForward {
 public:
  /// Listens on 127.0.0.1:`local_port` (0: a free port) and forwards to `remote_port` of the
  /// pod that `request` (RequestBuilder::port_forward) names.
  /// @throws kubex::Error if the port cannot be bound.
  LocalPortForward(const Client& client, ApiRequest request, std::uint16_t remote_port,
                   std::uint16_t local_port = 0);
  /// Stops listening and closes every forwarded connection.
  ~LocalPortForward();
  LocalPortForward(const LocalPortForward&) = delete;
  LocalPortForward& operator=(const LocalPortForward&) = delete;

  /// The local port it listens on.
  [[nodiscard]] std::uint16_t local_port() const noexcept;
  /// Counters so far (any thread).
  [[nodiscard]] LocalForwardStats stats() const;
  /// Stops listening and closes every forwarded connection (any thread).
  void stop() noexcept;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kubex::client
