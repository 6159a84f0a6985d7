// SPDX-License-Identifier: Apache-2.0
#pragma once

// TcpProxy forwards TCP between clients and the real apiserver (tools/testenv) on loopback and
// breaks the path on demand, for faults the apiserver does not show at a test's chosen moment:
// every connection reset and new ones refused for a while (an apiserver restarting, a load
// balancer failing over), a request delivered and its connection reset before the answer, or
// open connections that go silent (a black-holed path).
// TLS passes through untouched, so the client still talks to, and verifies, the apiserver.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kubex::testing {

/// A TCP forwarder on 127.0.0.1 to `target_host:target_port`; one thread per connection.
class TcpProxy {
 public:
  /// Starts listening on a free port of 127.0.0.1.
  TcpProxy(const std::string& target_host, std::uint16_t target_port);
  /// Closes every connection and the listener.
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  /// The port clients connect to.
  [[nodiscard]] std::uint16_t port() const noexcept;

  /// Stops listening (connections are refused), resets every open connection (the client
  /// sees RST), waits `outage`, then listens on the same port again. Returns when the proxy
  /// accepts again.
  void disrupt(std::chrono::milliseconds outage);

  /// Every connection open now stays open but carries nothing more, either way, as when a
  /// network path dies without a reset; later connections are forwarded as usual.
  void black_hole_open_connections();

  /// The next bytes any client sends, and whatever follows within 200 ms, reach the server;
  /// then that client's connection is reset and the server's answer dropped, once.
  void reset_after_next_request();

  /// Connections accepted so far.
  [[nodiscard]] std::size_t connections_accepted() const noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace kubex::testing
