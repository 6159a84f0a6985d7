// SPDX-License-Identifier: Apache-2.0
// The transport's retry decisions, apart from its I/O so that each can be tested alone: the
// backoff between attempts, the server's Retry-After, which failures a read may repeat, and
// RequestRetries, which owns one request's counters and tells the transport what to do next.
#pragma once

#include <kubex/client/http.hpp>
#include <kubex/client/options.hpp>
#include <kubex/core/backoff.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace kubex::client::detail {

/// The transport's backoff: kubex::Backoff doubling from `initial` up to `cap`, each wait
/// uniform in [b/2, b] where b = min(initial * 2^n, cap). The upper half keeps waits growing
/// while clients that failed together still spread out.
class Backoff : public kubex::Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap, std::uint64_t seed);
};

/// Retry-After as delay-seconds, capped at a day; std::nullopt for anything else (the
/// apiserver never sends an HTTP date).
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

/// The wait before repeating a request the server answered with `status` and `retry_after`,
/// after `retries` retries so far, or std::nullopt when it is not repeated. Only 429 and
/// 503/504 with Retry-After are: the server did not act on them, so every verb may be sent
/// again. The wait is the backoff, and never less than the server asked for (within
/// policy.max_retry_after).
std::optional<std::chrono::milliseconds> response_retry_delay(const RetryPolicy& policy,
                                                              Backoff& backoff, unsigned status,
                                                              std::string_view retry_after,
                                                              int retries);

/// Whether a read whose connection or exchange failed with `code`, before the caller saw any
/// of the answer, is worth another try: the connection was refused, reset, aborted or closed
/// early (EOF, a TLS stream cut short), as when an apiserver restarts or a load balancer fails
/// over. Timeouts, cancellation, TLS verification and configuration errors are not.
bool is_transient_transport_error(const std::error_code& code) noexcept;

/// What the transport does after an attempt.
struct RetryDecision {
  /// The three answers.
  enum class Action : std::uint8_t {
    give_up,      ///< Fail with the attempt's own error, or hand the response over.
    retry_now,    ///< Send again at once, on another connection.
    retry_after,  ///< Send again once `delay` has passed.
  };
  /// What to do.
  Action action = Action::give_up;
  /// The wait before the next attempt (retry_after only).
  std::chrono::milliseconds delay{};

  /// Whether the request is sent again.
  [[nodiscard]] bool retry() const noexcept { return action != Action::give_up; }
};

/// How an attempt failed before the caller saw its response, over HTTP/1.1 or HTTP/2, or
/// while the connection was made (only `code` set).
struct AttemptFailure {
  /// The connection's error; none when only the stream failed (an HTTP/2 reset).
  std::error_code code{};
  /// The server refused the request unprocessed: HTTP/2 REFUSED_STREAM, or a stream above a
  /// GOAWAY's last id.
  bool refused = false;
  /// The connection served earlier requests (a pooled one the server may have closed idle).
  bool reused = false;
  /// Some of the answer arrived: the server may have acted on the request.
  bool received = false;
  /// The request's deadline or a connection health check ran out.
  bool timed_out = false;
  /// The client closed the connection itself (an HTTP/2 protocol error): nothing transient.
  bool protocol_error = false;
};

/// One request's retries: the counters of each kind of retry, and what the transport does
/// next. The limits: a refused request is sent again at once up to max_refusals times; a read
/// whose pooled connection failed before any answer, once at once (the server closed the idle
/// connection); a read whose connection failed transiently (is_transient_transport_error), up
/// to policy.max_transport_retries times after the backoff; a response the server did not act
/// on (response_retry_delay), up to policy.max_retries times; a 401, once after the credentials
/// were renewed. A wait is only taken while the request's deadline leaves room for it.
class RequestRetries {
 public:
  /// The clock of the deadline.
  using Clock = std::chrono::steady_clock;
  /// Times a request the server refused unprocessed is sent again.
  static constexpr int max_refusals = 3;

  /// The retries of a request: `read` ones are idempotent (any failure may be retried),
  /// `streaming` ones have no total deadline, the others must be answered by `deadline`.
  /// `backoff` is shared with the transport's other requests and must outlive this.
  RequestRetries(const RetryPolicy& policy, Backoff& backoff, bool read, bool streaming,
                 Clock::time_point deadline) noexcept;

  /// What follows an attempt that failed as `failure` says, at `now`.
  RetryDecision after_failure(const AttemptFailure& failure, Clock::time_point now);

  /// What follows a response with `status` and Retry-After `retry_after`, at `now`.
  RetryDecision after_response(unsigned status, std::string_view retry_after,
                               Clock::time_point now);

  /// Whether a 401 may still be answered by renewing the credentials and sending again.
  [[nodiscard]] bool may_renew_credentials() const noexcept { return !renewed_credentials_; }
  /// The credentials were renewed after a 401; the next 401 is the caller's.
  void renewed_credentials() noexcept { renewed_credentials_ = true; }

 private:
  RetryDecision wait(std::chrono::milliseconds delay, int& counter, Clock::time_point now);

  const RetryPolicy& policy_;
  Backoff& backoff_;
  bool read_;
  bool streaming_;
  Clock::time_point deadline_;
  int refusals_ = 0;
  bool retried_stale_ = false;
  int transport_retries_ = 0;
  int response_retries_ = 0;
  bool renewed_credentials_ = false;
};

}  // namespace kubex::client::detail
