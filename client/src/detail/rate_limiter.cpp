// SPDX-License-Identifier: Apache-2.0
#include "detail/rate_limiter.hpp"

#include <algorithm>

namespace kubex::client::detail {

TokenBucket::TokenBucket(double qps, std::size_t burst, Clock::time_point now)
    : qps_(qps),
      burst_(static_cast<double>(std::max<std::size_t>(burst, 1))),
      tokens_(burst_),
      refilled_at_(now) {}

TokenBucket::Clock::duration TokenBucket::take(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - refilled_at_).count();
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  refilled_at_ = now;
  tokens_ -= 1.0;
  if (tokens_ >= 0.0) {
    return Clock::duration::zero();
  }
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::give_back() {
  tokens_ += 1.0;
}

}  // namespace kubex::client::detail
