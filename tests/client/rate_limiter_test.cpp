// SPDX-License-Identifier: Apache-2.0
// The client-side rate limit's token bucket (client/src/detail/rate_limiter.hpp), on a clock
// the test moves by hand.

#include "detail/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace {

using kubex::client::detail::TokenBucket;
using namespace std::chrono_literals;

TEST(TokenBucket, StartsFullThenPacesAtTheRate) {
  const auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(10.0, 3, t0);  // 10 per second: 100 ms apart
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(bucket.take(t0), TokenBucket::Clock::duration::zero()) << i;
  }
  // The 4th, 5th and 6th wait their turns behind each other.
  EXPECT_EQ(bucket.take(t0), 100ms);
  EXPECT_EQ(bucket.take(t0), 200ms);
  EXPECT_EQ(bucket.take(t0), 300ms);
}

TEST(TokenBucket, RefillsWhileQuietUpToTheBurst) {
  const auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(2.0, 2, t0);
  EXPECT_EQ(bucket.take(t0), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), 500ms);
  // A minute of silence refills the bucket to its burst, never beyond.
  const auto t1 = t0 + 60s;
  EXPECT_EQ(bucket.take(t1), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t1), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t1), 500ms);
}

TEST(TokenBucket, AGivenBackTokenIsTheNextOnesTurn) {
  const auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(1.0, 1, t0);
  EXPECT_EQ(bucket.take(t0), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), 1s);
  bucket.give_back();  // that request gave up
  EXPECT_EQ(bucket.take(t0), 1s);
}

TEST(TokenBucket, ABurstOfZeroStillLetsOneGo) {
  const auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(4.0, 0, t0);
  EXPECT_EQ(bucket.take(t0), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), 250ms);
}

}  // namespace
