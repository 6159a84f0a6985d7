// SPDX-License-Identifier: Apache-2.0
// The client-side rate limit (ClientOptions::qps, burst): a token bucket that says how long a
// request waits, on a clock the caller passes in so that it can be tested without waiting.
#pragma once

#include <chrono>
#include <cstddef>

namespace kubex::client::detail {

/// A token bucket of `burst` tokens (at least one), refilled at `qps` per second, that starts
/// full. Not thread-safe: the transport uses it on its strand.
class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(double qps, std::size_t burst, Clock::time_point now);

  /// Takes a token at `now`: zero when one was there, otherwise how long the request waits
  /// for its turn (later requests queue behind it).
  [[nodiscard]] Clock::duration take(Clock::time_point now);

  /// Returns the token of a request that will not go (its turn came after its deadline).
  void give_back();

 private:
  double qps_;
  double burst_;
  double tokens_;
  Clock::time_point refilled_at_;
};

}  // namespace kubex::client::detail
