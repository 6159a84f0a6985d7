// SPDX-License-Identifier: Apache-2.0
#pragma once

// The delays between attempts after failures: jittered and exponential, as client-go's
// reflector and kube-rs's DefaultBackoff wait, so that a client facing a failing server never
// becomes a hot loop, and a fleet of them does not retry in step. One class for the transport's
// retries and the runtime's watchers and work queue; it does no I/O: time is passed in.

#include <kubex/core/export.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>

namespace kubex {

/// How a Backoff grows. The defaults are client-go's reflector's.
struct BackoffPolicy {
  /// The first delay.
  std::chrono::milliseconds initial{800};
  /// No delay is longer than this.
  std::chrono::milliseconds max{30'000};
  /// Each delay's base is the previous one's times this.
  double factor = 2.0;
  /// A delay is drawn from [base, base * (1 + jitter)), then capped at max. A negative jitter
  /// draws below the base instead: -0.5 gives (base / 2, base].
  double jitter = 1.0;
  /// A failure this long after the previous one starts again from `initial`: the work in
  /// between was healthy.
  std::chrono::milliseconds reset_after{120'000};
};

/// The delays of a BackoffPolicy. Not thread-safe; time is passed in, so tests need no clock.
class KUBEX_API Backoff {
 public:
  /// The clock whose time points next() takes.
  using clock = std::chrono::steady_clock;
  /// Where the jitter comes from: each call returns a number in [0, 1).
  using JitterSource = std::function<double()>;

  /// A backoff with its own random source; `seed` makes the jitter reproducible in tests.
  explicit Backoff(BackoffPolicy policy = {}, std::uint64_t seed = std::random_device{}());
  /// A backoff whose jitter comes from `jitter` (a test's fixed sequence, a shared source).
  Backoff(BackoffPolicy policy, JitterSource jitter);

  /// The delay before the next attempt, for a failure at `now`.
  [[nodiscard]] std::chrono::milliseconds next(clock::time_point now);
  /// The delay before retry `retry` (0 for the first) of a count the caller keeps, as for
  /// several requests sharing one backoff: the base is initial * factor^retry, capped at max.
  [[nodiscard]] std::chrono::milliseconds delay(int retry);
  /// Forgets earlier failures: the next delay is `initial` again.
  void reset() noexcept { base_ = std::chrono::milliseconds::zero(); }
  /// The policy.
  [[nodiscard]] const BackoffPolicy& policy() const noexcept { return policy_; }

 private:
  std::chrono::milliseconds jittered(std::chrono::milliseconds base);

  BackoffPolicy policy_;
  JitterSource jitter_;
  std::chrono::milliseconds base_{0};  // zero: no failure since the last reset
  clock::time_point last_{};
};

}  // namespace kubex
