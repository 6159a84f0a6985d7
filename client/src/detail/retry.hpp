// SPDX-License-Identifier: Apache-2.0
// The transport's retry decisions, apart from its I/O so that each can be tested alone: the
// backoff between attempts, the server's Retry-After, and which failures a read may repeat.
#pragma once

#include <kubex/client/http.hpp>
#include <kubex/client/options.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <system_error>

namespace kubex::client::detail {

/// Capped exponential backoff with jitter: the wait before retry `n` (0 for the first) is
/// uniform in [b/2, b], where b = min(initial * 2^n, cap). The upper half keeps waits growing
/// while clients that failed together still spread out.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap,
          std::uint_fast32_t seed);

  /// The wait before retry `retry` (0-based).
  std::chrono::milliseconds delay(int retry);

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds cap_;
  std::minstd_rand random_;
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

}  // namespace kubex::client::detail
