// SPDX-License-Identifier: Apache-2.0
// The transport's connection slots (client/src/detail/pool.hpp) as a plain class: the limit,
// reuse of the most recent idle connection, expiry by age and by TLS generation, what gives a
// slot back, and the order waiters are woken in. Time is passed in; nothing here sleeps. The
// pool's behaviour with real connections is tested against testenv (client_test, http2_test).

#include "detail/pool.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct FakeConnection {
  explicit FakeConnection(std::string n, std::vector<std::string>* closed_log,
                          std::uint64_t gen = 0)
      : name(std::move(n)), generation(gen), closed(closed_log) {}
  void close() { closed->push_back(name); }
  std::string name;
  Clock::time_point idle_since{};
  std::uint64_t generation = 0;
  bool timed_out = false;
  std::vector<std::string>* closed;
};

struct FakeWaiter {
  explicit FakeWaiter(std::string n, std::vector<std::string>* woken_log)
      : name(std::move(n)), woken(woken_log) {}
  void wake() { woken->push_back(name); }
  std::string name;
  std::vector<std::string>* woken;
};

using Pool = kubex::client::detail::SlotPool<FakeConnection, FakeWaiter>;

class pool_test : public ::testing::Test {
 protected:
  std::unique_ptr<FakeConnection> connection(const std::string& name, std::uint64_t gen = 0) {
    return std::make_unique<FakeConnection>(name, &closed_, gen);
  }
  std::shared_ptr<FakeWaiter> waiter(const std::string& name) {
    return std::make_shared<FakeWaiter>(name, &woken_);
  }

  const Clock::time_point t0_ = Clock::time_point{} + 1000s;
  std::vector<std::string> closed_;
  std::vector<std::string> woken_;
};

TEST_F(pool_test, slots_stop_at_the_limit_and_come_back) {
  Pool pool({.max_open = 2, .keep_alive_timeout = 90s});
  EXPECT_EQ(pool.limit(), 2U);
  EXPECT_TRUE(pool.reserve());
  EXPECT_TRUE(pool.reserve());
  EXPECT_TRUE(pool.full());
  EXPECT_FALSE(pool.reserve());
  EXPECT_EQ(pool.open(), 2U);
  pool.forget();
  EXPECT_EQ(pool.open(), 1U);
  EXPECT_TRUE(pool.reserve());
  // A limit of zero still lets one connection through, or nothing could ever be sent.
  Pool none({.max_open = 0, .keep_alive_timeout = 90s});
  EXPECT_EQ(none.limit(), 1U);
  EXPECT_TRUE(none.reserve());
  EXPECT_FALSE(none.reserve());
}

TEST_F(pool_test, the_most_recently_used_idle_connection_is_reused) {
  Pool pool({.max_open = 4, .keep_alive_timeout = 90s});
  ASSERT_TRUE(pool.reserve());
  ASSERT_TRUE(pool.reserve());
  pool.release(connection("a"), true, t0_, 0);
  pool.release(connection("b"), true, t0_ + 1s, 0);
  EXPECT_TRUE(pool.has_idle());
  EXPECT_EQ(pool.open(), 2U);  // idle connections keep their slots
  auto first = pool.take_idle(t0_ + 2s, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "b");
  EXPECT_EQ(first->idle_since, t0_ + 1s);
  auto second = pool.take_idle(t0_ + 2s, 0);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->name, "a");
  EXPECT_FALSE(pool.take_idle(t0_ + 2s, 0));
  EXPECT_TRUE(closed_.empty());
  EXPECT_EQ(pool.open(), 2U);
}

TEST_F(pool_test, idle_connections_expire_by_age_and_by_tls_generation) {
  Pool pool({.max_open = 4, .keep_alive_timeout = 90s});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.reserve());
  }
  pool.release(connection("old"), true, t0_, 0);
  pool.release(connection("fresh"), true, t0_ + 60s, 0);
  pool.release(connection("other-gen"), true, t0_ + 60s, 0);
  // Credentials changed (generation 1): nothing made before may be reused.
  EXPECT_FALSE(pool.take_idle(t0_ + 61s, 1));
  EXPECT_EQ(closed_, (std::vector<std::string>{"other-gen", "fresh", "old"}));
  EXPECT_EQ(pool.open(), 0U);

  closed_.clear();
  ASSERT_TRUE(pool.reserve());
  ASSERT_TRUE(pool.reserve());
  pool.release(connection("old", 1), true, t0_, 1);
  pool.release(connection("fresh", 1), true, t0_ + 60s, 1);
  // 90 s after "old" went idle, "fresh" (idle for 30 s) is still good and comes first.
  auto got = pool.take_idle(t0_ + 90s, 1);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->name, "fresh");
  EXPECT_FALSE(pool.take_idle(t0_ + 90s, 1));  // "old" is exactly at the limit: closed
  EXPECT_EQ(closed_, (std::vector<std::string>{"old"}));
  EXPECT_EQ(pool.open(), 1U);
}

TEST_F(pool_test, a_connection_that_cannot_be_reused_frees_its_slot) {
  Pool pool({.max_open = 4, .keep_alive_timeout = 90s});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.reserve());
  }
  pool.release(connection("not-reusable"), false, t0_, 0);
  pool.release(connection("older-gen", 0), true, t0_, 1);
  auto closed_by_watchdog = connection("timed-out");
  closed_by_watchdog->timed_out = true;
  pool.release(std::move(closed_by_watchdog), true, t0_, 0);
  EXPECT_EQ(closed_, (std::vector<std::string>{"not-reusable", "older-gen", "timed-out"}));
  EXPECT_FALSE(pool.has_idle());
  EXPECT_EQ(pool.open(), 0U);
  pool.release(nullptr, true, t0_, 0);  // nothing to give back
  EXPECT_EQ(pool.open(), 0U);
}

TEST_F(pool_test, without_keep_alive_nothing_is_kept) {
  Pool pool({.max_open = 4, .keep_alive_timeout = 90s, .keep_alive = false});
  ASSERT_TRUE(pool.reserve());
  pool.release(connection("a"), true, t0_, 0);
  EXPECT_FALSE(pool.has_idle());
  EXPECT_EQ(closed_, (std::vector<std::string>{"a"}));
  EXPECT_EQ(pool.open(), 0U);
}

TEST_F(pool_test, the_oldest_idle_connection_gives_its_slot_up) {
  Pool pool({.max_open = 2, .keep_alive_timeout = 90s});
  ASSERT_TRUE(pool.reserve());
  ASSERT_TRUE(pool.reserve());
  pool.release(connection("a"), true, t0_, 0);
  pool.release(connection("b"), true, t0_ + 1s, 0);
  ASSERT_TRUE(pool.full());
  EXPECT_TRUE(pool.evict_oldest_idle());
  EXPECT_EQ(closed_, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(pool.reserve());  // the slot, now for an HTTP/2 session
  EXPECT_TRUE(pool.evict_oldest_idle());
  EXPECT_FALSE(pool.evict_oldest_idle());
  EXPECT_EQ(closed_, (std::vector<std::string>{"a", "b"}));
}

TEST_F(pool_test, close_idle_closes_only_idle_connections) {
  Pool pool({.max_open = 4, .keep_alive_timeout = 90s});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.reserve());
  }
  pool.release(connection("a"), true, t0_, 0);
  pool.release(connection("b"), true, t0_, 0);
  pool.close_idle();
  EXPECT_EQ(closed_, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(pool.has_idle());
  EXPECT_EQ(pool.open(), 1U);  // the busy one
}

TEST_F(pool_test, waiters_are_woken_first_come_first_served) {
  Pool pool({.max_open = 1, .keep_alive_timeout = 90s});
  ASSERT_TRUE(pool.reserve());
  const auto first = waiter("first");
  const auto gave_up = waiter("gave-up");
  const auto second = waiter("second");
  pool.wait(first);
  pool.wait(gave_up);
  pool.wait(second);
  pool.stop_waiting(gave_up);  // its deadline passed
  // A connection back in the pool wakes one waiter; a freed slot wakes the next.
  pool.release(connection("a"), true, t0_, 0);
  EXPECT_EQ(woken_, (std::vector<std::string>{"first"}));
  auto again = pool.take_idle(t0_, 0);
  ASSERT_TRUE(again);
  pool.release(std::move(again), false, t0_, 0);
  EXPECT_EQ(woken_, (std::vector<std::string>{"first", "second"}));
  pool.wake_one();  // nobody left to wake
  EXPECT_EQ(woken_.size(), 2U);
}

TEST_F(pool_test, an_http2_session_wakes_everyone) {
  Pool pool({.max_open = 1, .keep_alive_timeout = 90s});
  for (const auto* name : {"a", "b", "c"}) {
    pool.wait(waiter(name));
  }
  pool.wake_all();
  EXPECT_EQ(woken_, (std::vector<std::string>{"a", "b", "c"}));
  pool.wake_one();  // none left
  EXPECT_EQ(woken_.size(), 3U);
}

}  // namespace
