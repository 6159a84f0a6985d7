// SPDX-License-Identifier: Apache-2.0
// The client-side rate limit (ClientOptions::qps, burst): kubex::TokenBucket, on a clock the
// caller passes in so that it can be tested without waiting.
#pragma once

#include <kubex/core/token_bucket.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace kubex::client::detail {

/// A token bucket of `burst` tokens (at least one), refilled at `qps` per second, that starts
/// full. Not thread-safe: the transport uses it on its strand.
class TokenBucket : public kubex::TokenBucket {
 public:
  /// The clock of take().
  using Clock = kubex::TokenBucket::clock;

  TokenBucket(double qps, std::size_t burst, Clock::time_point now)
      : kubex::TokenBucket(qps, static_cast<double>(std::max<std::size_t>(burst, 1)), now) {}
};

}  // namespace kubex::client::detail
