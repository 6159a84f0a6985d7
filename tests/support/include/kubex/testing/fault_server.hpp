// SPDX-License-Identifier: Apache-2.0
#pragma once

// FaultServer exists ONLY for transport faults that the real kube-apiserver (tools/testenv)
// cannot be made to produce on demand. Every ordinary behaviour -- authentication, keep-alive,
// chunked bodies, error statuses, TLS verification, even a server closing an idle keep-alive
// connection (testenv restarts the apiserver for that) -- is tested against the real control
// plane in tests/integration/. Do not add features here for behaviour the real server can show.

#include <kubex/testing/pki.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kubex::testing {

/// The one misbehaviour a FaultServer shows on every connection.
enum class Fault {
  /// Completes the TLS handshake and reads the request, then never answers. The apiserver
  /// always answers (or times the request out itself), so a client deadline needs this.
  stall,
  /// Answers each request (body: the request target) with `Connection: close` and closes. The
  /// apiserver does this only while it shuts down.
  close_after_reply,
  /// Speaks plain HTTP: answers whatever arrives (a TLS ClientHello) with `400 Bad Request` and
  /// closes. The apiserver serves TLS only.
  plain_http,
  /// Answers the first two requests with `429 Too Many Requests`, `Retry-After: 1` and a
  /// Status body, later ones with 200 (body: the target), keeping the connection alive. The
  /// apiserver's API Priority and Fairness answers so only under a load a test cannot
  /// reproduce reliably.
  busy_twice,
  /// Accepts TCP connections and reads, but never answers the TLS ClientHello: a peer that
  /// hangs in the handshake (a half-dead load balancer), which the apiserver never is.
  silent_handshake,
  /// Answers every request with `302 Found` to https://other.example/ (keep-alive). The
  /// apiserver never redirects API requests; a hostile or misconfigured front could.
  redirect,
  /// Answers every request with `200 OK`, `Content-Encoding: gzip` and a body that is not gzip
  /// (keep-alive), as a broken compressing proxy would.
  corrupt_gzip,
  /// Answers every request with `503 Service Unavailable` without Retry-After, keeping the
  /// connection alive (an overloaded proxy in front of the apiserver).
  unavailable,
  /// Selects HTTP/2 by ALPN, then reads and never writes a frame: a peer that died behind a
  /// TCP path that still accepts bytes. The apiserver answers every HTTP/2 PING, so only this
  /// shows the client's HTTP/2 health check.
  h2_silent,
};

/// A loopback server on 127.0.0.1 that shows one Fault. It exists only for faults the real
/// apiserver cannot be made to produce; it is not an apiserver and answers nothing else.
/// Serves one connection at a time on a background thread.
class FaultServer {
 public:
  /// Starts listening on a free port. `certificate` is the TLS server certificate; it is not
  /// used for Fault::plain_http.
  FaultServer(Fault fault, const KeyPair& certificate);
  /// Stops the server and joins its thread.
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  /// The TCP port the server listens on.
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// Targets of the HTTP requests received so far, in order.
  [[nodiscard]] std::vector<std::string> request_targets() const;
  /// Authorization header of each HTTP request received so far, in order ("" when absent).
  [[nodiscard]] std::vector<std::string> authorizations() const;
  /// Number of connections accepted (for TLS faults: completed TLS handshakes).
  [[nodiscard]] std::size_t connections() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kubex::testing
