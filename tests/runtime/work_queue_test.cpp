// SPDX-License-Identifier: Apache-2.0
// The controller's work queue on its own (no server): de-duplication, a key never handed to
// two workers at once, a key added while held handed out again after done(), delays where the
// earliest wins, failure delays that grow and are forgotten, and shutdown.

#include <kubex/core/failure.hpp>
#include <kubex/runtime/work_queue.hpp>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using kubex::runtime::Priority;
using kubex::runtime::WorkItem;
using kubex::runtime::WorkQueue;
using kubex::runtime::WorkQueueConfig;
using namespace std::chrono_literals;

class work_queue_test : public ::testing::Test {
 protected:
  // Takes the next key, running the loop at most `limit`; empty when none came. A get that
  // timed out stays queued (its state shared, so a later key it receives harms nothing).
  std::optional<std::string> get(WorkQueue& queue, std::chrono::milliseconds limit = 1s) {
    struct Got {
      bool done = false;
      std::optional<std::string> key;
    };
    auto got = std::make_shared<Got>();
    queue.async_get([got](std::exception_ptr error, WorkItem item) {
      got->done = true;
      if (!error) {
        got->key = item.key;
      }
    });
    run_until([&] { return got->done; }, limit);
    return got->key;
  }

  void run_until(const std::function<bool()>& ready, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!ready() && std::chrono::steady_clock::now() < until) {
      ioc_.restart();
      ioc_.run_for(5ms);
    }
  }

  boost::asio::io_context ioc_;
  std::shared_ptr<WorkQueue> queue_ = WorkQueue::make(ioc_.get_executor());
};

TEST_F(work_queue_test, a_key_added_twice_while_waiting_is_handed_out_once_in_order) {
  queue_->add("a");
  queue_->add("b");
  queue_->add("a");
  EXPECT_EQ(queue_->stats().depth, 2U);
  EXPECT_EQ(queue_->stats().adds, 3U);
  EXPECT_EQ(get(*queue_), "a");
  EXPECT_EQ(get(*queue_), "b");
  EXPECT_EQ(get(*queue_, 50ms), std::nullopt);
}

TEST_F(work_queue_test, a_key_added_while_held_waits_for_done_then_comes_once_more) {
  queue_->add("a");
  ASSERT_EQ(get(*queue_), "a");
  queue_->add("a");
  queue_->add("a");
  EXPECT_EQ(queue_->stats().depth, 0U);  // held: not handed to a second worker
  EXPECT_EQ(queue_->stats().processing, 1U);
  queue_->done("a");
  EXPECT_EQ(queue_->stats().depth, 1U);  // queued again, once
  EXPECT_EQ(get(*queue_), "a");
  queue_->done("a");
  EXPECT_EQ(queue_->stats().depth, 0U);
  EXPECT_EQ(get(*queue_, 50ms), std::nullopt);
}

TEST_F(work_queue_test, done_without_a_new_add_does_not_hand_the_key_out_again) {
  queue_->add("a");
  ASSERT_EQ(get(*queue_), "a");
  queue_->done("a");
  EXPECT_EQ(get(*queue_, 50ms), std::nullopt);
}

TEST_F(work_queue_test, of_two_delays_for_one_key_the_earliest_wins) {
  const auto start = std::chrono::steady_clock::now();
  queue_->add_after("a", 10s);
  queue_->add_after("a", 30ms);
  queue_->add_after("a", 5s);
  EXPECT_EQ(queue_->stats().delayed, 1U);
  EXPECT_EQ(queue_->stats().depth, 0U);
  EXPECT_EQ(get(*queue_, 2s), "a");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 30ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(queue_->stats().delayed, 0U);
}

TEST_F(work_queue_test, delayed_keys_come_in_the_order_of_their_times) {
  queue_->add_after("late", 80ms);
  queue_->add_after("early", 20ms);
  EXPECT_EQ(get(*queue_), "early");
  EXPECT_EQ(get(*queue_), "late");
}

TEST_F(work_queue_test, failure_delays_grow_per_key_and_forget_starts_over) {
  WorkQueueConfig config;
  config.failure_backoff = {.initial = 10ms, .max = 1s, .factor = 2.0, .jitter = 0.0};
  config.failure_qps = 0;
  auto queue = WorkQueue::make(ioc_.get_executor(), config);
  EXPECT_EQ(queue->add_rate_limited("a"), 10ms);
  EXPECT_EQ(queue->add_rate_limited("a"), 20ms);
  EXPECT_EQ(queue->add_rate_limited("a"), 40ms);
  EXPECT_EQ(queue->add_rate_limited("b"), 10ms);  // per key
  EXPECT_EQ(queue->failures("a"), 3U);
  queue->forget("a");
  EXPECT_EQ(queue->failures("a"), 0U);
  EXPECT_EQ(queue->add_rate_limited("a"), 10ms);
}

TEST_F(work_queue_test, the_overall_bucket_spaces_failures_beyond_its_burst) {
  WorkQueueConfig config;
  config.failure_backoff = {.initial = 1ms, .max = 1ms, .factor = 1.0, .jitter = 0.0};
  config.failure_qps = 10;
  config.failure_burst = 2;
  auto queue = WorkQueue::make(ioc_.get_executor(), config);
  EXPECT_EQ(queue->add_rate_limited("a"), 1ms);
  EXPECT_EQ(queue->add_rate_limited("b"), 1ms);
  // The third within the same instant waits about a tenth of a second for a token.
  const auto third = queue->add_rate_limited("c");
  EXPECT_GT(third, 90ms);
  EXPECT_LE(third, 100ms);
}

TEST_F(work_queue_test, shut_down_ends_waiting_and_later_gets_and_drops_what_waits) {
  std::optional<std::exception_ptr> waiting;
  queue_->async_get([&](std::exception_ptr error, WorkItem) { waiting = error; });
  ioc_.poll();
  queue_->add_after("later", 10ms);
  queue_->shut_down();
  run_until([&] { return waiting.has_value(); }, 1s);
  ASSERT_TRUE(waiting.has_value());
  EXPECT_TRUE(kubex::Failure(*waiting).canceled());
  queue_->add("a");
  EXPECT_EQ(queue_->stats().depth, 0U);
  EXPECT_EQ(get(*queue_, 100ms), std::nullopt);
  EXPECT_TRUE(queue_->shutting_down());
}

TEST_F(work_queue_test, a_waiting_worker_receives_a_key_added_later_with_how_long_it_waited) {
  std::optional<WorkItem> got;
  queue_->async_get([&](std::exception_ptr, WorkItem item) { got = std::move(item); });
  ioc_.poll();
  EXPECT_FALSE(got.has_value());
  queue_->add("a");
  run_until([&] { return got.has_value(); }, 1s);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->key, "a");
  EXPECT_LT(got->waited, 1s);
}

TEST_F(work_queue_test, low_keys_wait_for_every_normal_one_and_a_normal_add_raises_them) {
  queue_->add("sync-a", Priority::low);
  queue_->add("sync-b", Priority::low);
  queue_->add("change", Priority::normal);
  queue_->add("sync-b", Priority::normal);  // changed while it waited: no longer last
  EXPECT_EQ(queue_->stats().depth, 3U);
  EXPECT_EQ(get(*queue_), "change");
  EXPECT_EQ(get(*queue_), "sync-b");
  EXPECT_EQ(get(*queue_), "sync-a");
  // A low add of a waiting normal key leaves it normal.
  queue_->add("x", Priority::normal);
  queue_->add("y", Priority::low);
  queue_->add("x", Priority::low);
  EXPECT_EQ(get(*queue_), "x");
  EXPECT_EQ(get(*queue_), "y");
}

}  // namespace
