// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>

namespace kubex::client {

/// Counters of a transport, for tests, diagnostics and benchmarks' validity checks.
struct TransportStats {
  /// TLS connections established so far.
  std::size_t connections_opened = 0;
  /// Of those, how many resumed an earlier TLS session (ClientOptions::tls_session_resumption).
  std::size_t tls_sessions_resumed = 0;
  /// Requests sent on a connection that had served an earlier request (keep-alive hits).
  std::size_t connections_reused = 0;
  /// Connections open now, busy or idle.
  std::size_t connections_open = 0;
  /// Requests repeated: after a 429, or a 503/504 with Retry-After; reads after a refused,
  /// reset or stale connection; HTTP/2 streams the server refused unprocessed.
  std::size_t retries = 0;
  /// Times the exec credential plugin ran.
  std::size_t exec_plugin_runs = 0;
  /// Times the OIDC id-token was refreshed at the issuer.
  std::size_t oidc_refreshes = 0;
  /// Requests and streams sent as HTTP/2 streams (ClientOptions::http2); each shares a
  /// connection with others, and those after a connection's first count as reused.
  std::size_t http2_streams = 0;
  /// Responses and streams (watches) that came as protobuf (ClientOptions::encoding).
  std::size_t protobuf_responses = 0;
  /// Requests that sent their object as protobuf (create and replace with
  /// ClientOptions::encoding protobuf).
  std::size_t protobuf_requests = 0;
};

}  // namespace kubex::client
