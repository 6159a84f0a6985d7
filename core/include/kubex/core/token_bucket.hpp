// SPDX-License-Identifier: Apache-2.0
#pragma once

// A token bucket that says how long an action waits for its turn, on a clock the caller passes
// in so that it can be tested without waiting: the client's rate limit (ClientOptions::qps,
// burst) and the work queue's overall limit on failed keys.

#include <kubex/core/export.hpp>

#include <chrono>

namespace kubex {

/// A bucket of `burst` tokens, refilled at `qps` (> 0) per second, that starts full. Not
/// thread-safe.
class KUBEX_API TokenBucket {
 public:
  /// The clock whose time points take() takes.
  using clock = std::chrono::steady_clock;

  /// A full bucket at `now`.
  TokenBucket(double qps, double burst, clock::time_point now);

  /// Takes a token at `now`: zero when one was there, otherwise how long the action waits
  /// for its turn (later ones queue behind it).
  [[nodiscard]] clock::duration take(clock::time_point now);

  /// Returns the token of an action that will not go (its turn came after its deadline).
  void give_back() noexcept { tokens_ += 1.0; }

 private:
  double qps_;
  double burst_;
  double tokens_;
  clock::time_point refilled_at_;
};

}  // namespace kubex
