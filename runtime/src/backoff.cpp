// SPDX-License-Identifier: Apache-2.0
#include <kubex/runtime/backoff.hpp>

#include <algorithm>

namespace kubex::runtime {

Backoff::Backoff(BackoffPolicy policy, std::uint64_t seed) : policy_(policy), random_(seed) {}

std::chrono::milliseconds Backoff::next(clock::time_point now) {
  using std::chrono::milliseconds;
  if (base_ == milliseconds::zero() || now - last_ >= policy_.reset_after) {
    base_ = policy_.initial;
  } else {
    const double grown = static_cast<double>(base_.count()) * policy_.factor;
    base_ = milliseconds(
        static_cast<milliseconds::rep>(std::min(grown, static_cast<double>(policy_.max.count()))));
  }
  last_ = now;
  std::uniform_real_distribution<double> spread(0.0, std::max(policy_.jitter, 0.0));
  const double delay = static_cast<double>(base_.count()) * (1.0 + spread(random_));
  return std::min(milliseconds(static_cast<milliseconds::rep>(delay)), policy_.max);
}

}  // namespace kubex::runtime
