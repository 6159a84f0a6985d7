// SPDX-License-Identifier: Apache-2.0
// kubex::Backoff with an injected jitter source: the exact delays of both forms (next() with
// the time passed in, delay() by retry count), jitter above and below the base, and the cap.

#include <kubex/core/backoff.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace {

using kubex::Backoff;
using kubex::BackoffPolicy;
using namespace std::chrono_literals;

// A jitter source that returns `values` in turn, over and over.
Backoff::JitterSource sequence(std::vector<double> values) {
  return [values = std::move(values), i = std::size_t{0}]() mutable {
    return values[i++ % values.size()];
  };
}

TEST(core_backoff_test, jitter_above_the_base_is_drawn_from_the_source_and_capped) {
  Backoff backoff(BackoffPolicy{.initial = 100ms, .max = 1s, .factor = 2.0, .jitter = 1.0},
                  sequence({0.0, 0.5, 0.25, 0.99}));
  auto now = Backoff::clock::time_point{} + 1h;
  std::vector<std::chrono::milliseconds> delays;
  for (int i = 0; i < 5; ++i) {
    delays.push_back(backoff.next(now));
    now += 1s;
  }
  // Bases 100, 200, 400, 800, 1000; times 1.0, 1.5, 1.25, 1.99, 1.0; capped at 1 s.
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{100ms, 300ms, 500ms, 1s, 1s}));
}

TEST(core_backoff_test, a_negative_jitter_draws_below_the_base) {
  Backoff backoff(BackoffPolicy{.initial = 200ms, .max = 5s, .factor = 2.0, .jitter = -0.5},
                  sequence({0.0, 0.5, 0.999}));
  EXPECT_EQ(backoff.delay(0), 200ms);  // base 200, times 1.0
  EXPECT_EQ(backoff.delay(1), 300ms);  // base 400, times 0.75
  EXPECT_EQ(backoff.delay(2), 400ms);  // base 800, times 0.5005, truncated
  EXPECT_EQ(backoff.delay(10), 5s);    // the base stops at the cap
  EXPECT_EQ(backoff.delay(1'000'000), 3750ms);
}

TEST(core_backoff_test, delay_by_count_keeps_no_state_and_next_starts_over_after_reset) {
  Backoff backoff(BackoffPolicy{.initial = 10ms, .max = 1s, .factor = 3.0, .jitter = 0.0},
                  sequence({0.0}));
  EXPECT_EQ(backoff.delay(2), 90ms);
  EXPECT_EQ(backoff.delay(0), 10ms);
  const auto now = Backoff::clock::time_point{} + 1h;
  EXPECT_EQ(backoff.next(now), 10ms);  // delay() did not advance next()
  EXPECT_EQ(backoff.next(now), 30ms);
  backoff.reset();
  EXPECT_EQ(backoff.next(now), 10ms);
}

}  // namespace
