// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a Client behaves: timeouts, pool, protocols, proxy, retries, rate limit, compression,
// headers and warnings. Defaults suit controllers and long watches.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client {

/// When and how requests are repeated. A request is retried when the apiserver answers 429
/// (API Priority and Fairness rejected it before doing anything) or 503/504 with a Retry-After
/// header; the server has not acted on such a request, so every verb is retried. Reads (GET,
/// HEAD) are in addition retried when their connection is refused, reset or closed before
/// the caller has seen any of the answer (a whole response before its end, a stream before
/// its head), as when an apiserver restarts or a load balancer fails over, within the
/// request's timeout; writes never are, since the server may have acted on them.
struct RetryPolicy {
  /// Retries after the first attempt for the server's answers above; 0 turns them off.
  int max_retries = 3;
  /// Retries of a read after a transport failure (client-go: 10); 0 turns them off.
  int max_transport_retries = 10;
  /// Wait before the first retry (when the server gave no Retry-After); doubles per retry.
  std::chrono::milliseconds initial_backoff = std::chrono::milliseconds(200);
  /// Cap of the exponential backoff.
  std::chrono::milliseconds max_backoff = std::chrono::seconds(5);
  /// Cap applied to the server's Retry-After, so a misbehaving server cannot park the client.
  std::chrono::milliseconds max_retry_after = std::chrono::seconds(30);
};

/// How responses of built-in kinds are asked for.
enum class Encoding {
  /// JSON for everything.
  json,
  /// `application/vnd.kubernetes.protobuf` for the built-in kinds (the models generated from
  /// k8s.io/api), with JSON as the fallback the server picks for custom resources: answers,
  /// watches and metadata-only calls, and the bodies of creates and replaces (JSON for an
  /// object holding fields read from JSON that its model does not know). Patches stay JSON.
  protobuf,
};

/// Tuning knobs of a Client. The defaults suit controllers and long watches.
struct ClientOptions {
  /// Deadline for one whole non-streaming request, from sending to the last body byte,
  /// including waits for a pooled connection and retries. Streams (watch, log follow) have
  /// no total deadline: see stream_idle_timeout.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  /// Deadline for establishing the TCP connection (name resolution included).
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  /// Deadline for the TLS handshake.
  std::chrono::milliseconds tls_handshake_timeout = std::chrono::seconds(10);
  /// The idle timeout of every stream: one with no byte for this long is presumed dead (a
  /// black-holed path: HTTP/1.1 has no health check, and TCP keep-alive is answered by any
  /// proxy on the way) and fails with std::errc::timed_out. Zero: none, wait forever. Unset
  /// (the default): each stream's own, a watch's timeoutSeconds plus 30 s, or 3630 s without
  /// timeoutSeconds (kubex::watch_idle_timeout; a live server has ended the watch by then),
  /// and none for log follows, which may be quiet for hours. runtime::WatcherConfig's
  /// idle_timeout means the same. Over HTTP/2 the PING health check below also finds a dead
  /// connection.
  std::optional<std::chrono::milliseconds> stream_idle_timeout{};
  /// Largest response body accepted, compressed and decompressed; bigger responses fail
  /// instead of exhausting memory.
  std::size_t max_body_size = std::size_t{256} * 1024 * 1024;
  /// Initial capacity of each connection's receive buffer. The buffer grows for large
  /// headers; Beast reads at most 64 KiB per step, which also bounds one ResponseStream read.
  std::size_t read_buffer_size = std::size_t{16} * 1024;
  /// Proxy URL (`http://[user:pass@]host:port` for CONNECT, or `socks5://...`); wins over the
  /// kubeconfig's `proxy-url` and the environment. "direct" forces a direct connection; empty
  /// leaves the choice to the kubeconfig and, with trust_env, to HTTPS_PROXY/NO_PROXY.
  std::string proxy{};
  /// Honour HTTPS_PROXY and NO_PROXY (upper or lower case) as client-go does.
  bool trust_env = true;
  /// Keep connections open between requests and reuse them.
  bool keep_alive = true;
  /// Offer HTTP/2 (ALPN "h2") and, when the server agrees, send every request and stream as
  /// an HTTP/2 stream of a shared connection: abandoning a watch or log follow then resets
  /// one stream instead of closing a connection and handshaking a new one, and many watches
  /// need few sockets. A server that answers "http/1.1" is spoken to in HTTP/1.1. A new
  /// connection opens when the others carry the server's limit of concurrent streams.
  bool http2 = false;
  /// Offer HTTP/2 for streams only (watches, log follows) while other requests keep
  /// HTTP/1.1 connections; ignored when `http2` is set. A stream ended early (a watch
  /// restarted, a follow abandoned) then resets one HTTP/2 stream instead of closing a
  /// connection and handshaking the next, and many watches share one socket; a small
  /// request stays on HTTP/1.1, whose round trip through kube-apiserver is shorter
  /// (benchmarks/results/kubex-targets.md has the figures). Both share the connection limit:
  /// at the limit, a stream takes the slot of an idle HTTP/1.1 connection and a request
  /// rides an HTTP/2 connection that has room.
  bool http2_for_streams = true;
  /// HTTP/2 health check, as client-go's: an HTTP/2 connection with open streams that has
  /// received nothing for this long is sent a PING; zero turns the check off.
  std::chrono::milliseconds http2_read_idle_timeout = std::chrono::seconds(30);
  /// A PING unanswered for this long closes its connection; its streams fail with
  /// std::errc::timed_out and requests that were never answered may be retried.
  std::chrono::milliseconds http2_ping_timeout = std::chrono::seconds(15);
  /// Resume the TLS session of an earlier connection (a session ticket) when a new one opens:
  /// the server then skips its certificate and key exchange signatures, which halves the
  /// handshake's CPU on both sides for every stream that cannot reuse a connection (log
  /// follows, watches, exec). Sessions never outlive the credentials they were made with.
  bool tls_session_resumption = true;
  /// An idle pooled connection older than this is closed instead of reused (client-go: 90 s).
  std::chrono::milliseconds keep_alive_timeout = std::chrono::seconds(90);
  /// Most connections the transport keeps open at once, busy or idle; requests beyond wait
  /// for one (within their timeout).
  std::size_t max_connections = 64;
  /// Most connections open at once to one host. A transport talks to one apiserver (redirects
  /// are not followed, a proxy tunnels to the same host), so this bounds the same set as
  /// max_connections and the smaller of the two applies.
  std::size_t max_connections_per_host = 32;
  /// Client-side rate limit in requests per second, as a token bucket with `burst`; zero (the
  /// default) means none: the apiserver protects itself with API Priority and Fairness, whose
  /// 429 answers the retry policy honours. client-go's historical default is 5 QPS, burst 10.
  double qps = 0.0;
  /// Bucket size of the rate limiter: requests that may go at once after a quiet period.
  std::size_t burst = 10;
  /// What to retry and how long to wait.
  RetryPolicy retry{};
  /// Ask for gzip-compressed responses (the apiserver compresses those over 128 KiB). Off
  /// when false or when the cluster sets `disable-compression`. Streams are never compressed.
  /// Lists are inflated and decoded as they arrive; compression saves ~16x the bytes for ~10 %
  /// more apiserver CPU, and loses in wall time only on links faster than ~1.5-2 Gbit/s
  /// (benchmarks/results/compression.md): a client beside its apiserver may turn it off.
  bool compression = true;
  /// The encoding asked for in responses (see Encoding).
  Encoding encoding = Encoding::json;
  /// Value of the User-Agent header; empty selects `kubex-cpp/<library version> (<os>/<arch>)`.
  std::string user_agent{};
  /// Headers added to every request (before the request's own headers).
  std::vector<std::pair<std::string, std::string>> default_headers{};
  /// Called with each warning the server sends (HttpResponse::warnings); when unset and
  /// `log_api_warnings` is true, warnings go to std::clog as client-go prints them.
  std::function<void(std::string_view warning)> on_warning{};
  /// Print the server's warnings to std::clog when no on_warning hook is set.
  bool log_api_warnings = true;
  /// How often the token file (ClientConfig::token_file) is re-read, so that rotated tokens
  /// (projected service account tokens, tokenFile) are picked up; a 401 re-reads it at once.
  std::chrono::milliseconds token_file_refresh = std::chrono::minutes(1);
};

}  // namespace kubex::client
