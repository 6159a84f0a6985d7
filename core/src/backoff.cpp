// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/backoff.hpp>

#include <algorithm>
#include <utility>

namespace kubex {

using std::chrono::milliseconds;

Backoff::Backoff(BackoffPolicy policy, std::uint64_t seed)
    : Backoff(policy, [random = std::mt19937_64(seed)]() mutable {
        return std::uniform_real_distribution<double>(0.0, 1.0)(random);
      }) {}

Backoff::Backoff(BackoffPolicy policy, JitterSource jitter)
    : policy_(policy), jitter_(std::move(jitter)) {}

std::chrono::milliseconds Backoff::next(clock::time_point now) {
  if (base_ == milliseconds::zero() || now - last_ >= policy_.reset_after) {
    base_ = policy_.initial;
  } else {
    const double grown = static_cast<double>(base_.count()) * policy_.factor;
    base_ = milliseconds(
        static_cast<milliseconds::rep>(std::min(grown, static_cast<double>(policy_.max.count()))));
  }
  last_ = now;
  return jittered(base_);
}

std::chrono::milliseconds Backoff::delay(int retry) {
  // Grown step by step, so that a retry count far past the cap cannot overflow.
  double base = static_cast<double>(policy_.initial.count());
  const auto cap = static_cast<double>(policy_.max.count());
  for (int i = 0; i < retry && base < cap && policy_.factor > 1.0; ++i) {
    base *= policy_.factor;
  }
  return jittered(milliseconds(static_cast<milliseconds::rep>(std::min(base, cap))));
}

std::chrono::milliseconds Backoff::jittered(std::chrono::milliseconds base) {
  const double delay = static_cast<double>(base.count()) * (1.0 + policy_.jitter * jitter_());
  return std::clamp(milliseconds(static_cast<milliseconds::rep>(delay)), milliseconds::zero(),
                    policy_.max);
}

}  // namespace kubex
