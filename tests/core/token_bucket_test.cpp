// SPDX-License-Identifier: Apache-2.0
// kubex::TokenBucket on a clock the test moves by hand: the burst as given (the work queue's
// may be zero or fractional), the refill, and a token given back.

#include <kubex/core/token_bucket.hpp>

#include <gtest/gtest.h>

#include <chrono>

namespace {

using kubex::TokenBucket;
using namespace std::chrono_literals;

const auto t0 = TokenBucket::clock::time_point{} + 1h;

TEST(core_token_bucket_test, a_burst_of_zero_makes_even_the_first_wait) {
  TokenBucket bucket(10.0, 0.0, t0);
  EXPECT_EQ(bucket.take(t0), 100ms);
  EXPECT_EQ(bucket.take(t0), 200ms);
}

TEST(core_token_bucket_test, refills_at_the_rate_up_to_the_burst) {
  TokenBucket bucket(4.0, 2.0, t0);
  EXPECT_EQ(bucket.take(t0), TokenBucket::clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), TokenBucket::clock::duration::zero());
  EXPECT_EQ(bucket.take(t0), 250ms);
  // 500 ms later two tokens came back, one of them owed to the request that waited.
  EXPECT_EQ(bucket.take(t0 + 500ms), TokenBucket::clock::duration::zero());
  EXPECT_EQ(bucket.take(t0 + 500ms), 250ms);
  bucket.give_back();
  EXPECT_EQ(bucket.take(t0 + 500ms), 250ms);
  // An hour of silence fills it to its burst only.
  EXPECT_EQ(bucket.take(t0 + 1h), TokenBucket::clock::duration::zero());
  EXPECT_EQ(bucket.take(t0 + 1h), TokenBucket::clock::duration::zero());
  EXPECT_EQ(bucket.take(t0 + 1h), 250ms);
}

}  // namespace
