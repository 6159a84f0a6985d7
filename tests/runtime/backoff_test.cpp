// SPDX-License-Identifier: Apache-2.0
// kubex::runtime::Backoff with the time passed in: the delays grow, stay under the cap, spread
// with jitter, and start over after a healthy stretch.

#include <kubex/runtime/backoff.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <vector>

namespace {

using kubex::runtime::Backoff;
using kubex::runtime::BackoffPolicy;
using namespace std::chrono_literals;

TEST(backoff_test, without_jitter_the_delays_double_up_to_the_cap) {
  Backoff backoff(BackoffPolicy{.initial = 800ms, .max = 30s, .factor = 2.0, .jitter = 0.0});
  auto now = Backoff::clock::time_point{} + 1h;
  std::vector<std::chrono::milliseconds> delays;
  for (int i = 0; i < 8; ++i) {
    delays.push_back(backoff.next(now));
    now += 1s;
  }
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{800ms, 1600ms, 3200ms, 6400ms, 12800ms,
                                                            25600ms, 30s, 30s}));
}

TEST(backoff_test, jitter_spreads_each_delay_over_base_to_twice_base_under_the_cap) {
  Backoff backoff(BackoffPolicy{}, 42);  // client-go's reflector: 0.8 s, x2, 30 s, [d, 2d)
  auto now = Backoff::clock::time_point{} + 1h;
  std::chrono::milliseconds base = 800ms;
  std::set<std::chrono::milliseconds::rep> distinct;
  for (int i = 0; i < 12; ++i) {
    const auto delay = backoff.next(now);
    EXPECT_GE(delay, std::min(base, std::chrono::milliseconds(30s))) << "attempt " << i;
    EXPECT_LE(delay, 30s) << "attempt " << i;
    if (base < 15s) {
      EXPECT_LT(delay, 2 * base) << "attempt " << i;
    }
    distinct.insert(delay.count());
    base = std::min<std::chrono::milliseconds>(2 * base, 30s);
    now += 1s;
  }
  EXPECT_GT(distinct.size(), 4U);  // not one fixed schedule
}

TEST(backoff_test, two_seeds_give_two_schedules_and_one_seed_the_same) {
  const auto schedule = [](std::uint64_t seed) {
    Backoff backoff(BackoffPolicy{}, seed);
    auto now = Backoff::clock::time_point{} + 1h;
    std::vector<std::chrono::milliseconds> out;
    for (int i = 0; i < 4; ++i) {
      out.push_back(backoff.next(now));
      now += 1s;
    }
    return out;
  };
  EXPECT_EQ(schedule(7), schedule(7));
  EXPECT_NE(schedule(7), schedule(8));
}

TEST(backoff_test, a_failure_after_a_healthy_stretch_starts_from_the_first_delay) {
  Backoff backoff(BackoffPolicy{.initial = 100ms, .jitter = 0.0, .reset_after = 2min});
  auto now = Backoff::clock::time_point{} + 1h;
  EXPECT_EQ(backoff.next(now), 100ms);
  EXPECT_EQ(backoff.next(now + 1s), 200ms);
  EXPECT_EQ(backoff.next(now + 2s), 400ms);
  // Two minutes without a failure: healthy, so the schedule starts over.
  EXPECT_EQ(backoff.next(now + 2s + 2min), 100ms);
  EXPECT_EQ(backoff.next(now + 3s + 2min), 200ms);
  backoff.reset();
  EXPECT_EQ(backoff.next(now + 4s + 2min), 100ms);
}

}  // namespace
