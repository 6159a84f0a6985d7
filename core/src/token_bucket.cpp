// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/token_bucket.hpp>

#include <algorithm>

namespace kubex {

TokenBucket::TokenBucket(double qps, double burst, clock::time_point now)
    : qps_(qps), burst_(burst), tokens_(burst), refilled_at_(now) {}

TokenBucket::clock::duration TokenBucket::take(clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - refilled_at_).count();
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  refilled_at_ = now;
  tokens_ -= 1.0;
  if (tokens_ >= 0.0) {
    return clock::duration::zero();
  }
  return std::chrono::duration_cast<clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

}  // namespace kubex
