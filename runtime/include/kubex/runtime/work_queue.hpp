// SPDX-License-Identifier: Apache-2.0
#pragma once

// The controller's work queue, with client-go's workqueue semantics: a key waits at most once
// (adding it again while it waits changes nothing), a key is handed to one worker at a time,
// and a key added while a worker has it is handed out again once that worker is done, so the
// last change is never missed and never reconciled concurrently with an earlier one. Delayed
// adds keep the earliest time; failed keys come back after a per-key jittered exponential
// delay, bounded overall by a token bucket. Keys added at low priority (a controller's initial
// state) are handed out after every normal one, as controller-runtime's priority queue does,
// so a change made during a large sync does not wait for the whole sync.

#include <kubex/core/error.hpp>
#include <kubex/runtime/backoff.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace kubex::runtime {

/// How a WorkQueue delays the keys that failed. The defaults are client-go's controller
/// rate limiter's: the larger of a per-key exponential delay and a 10 qps, burst 100 bucket.
struct WorkQueueConfig {
  /// Per-key delays after consecutive failures (forget() starts a key over).
  BackoffPolicy failure_backoff{std::chrono::milliseconds(5), std::chrono::milliseconds(1'000'000),
                                2.0, 1.0, std::chrono::hours(24)};
  /// Rate of the overall bucket for failed keys, per second; 0 disables it.
  double failure_qps = 10.0;
  /// Size of that bucket.
  double failure_burst = 100.0;
};

/// What a WorkQueue has done, for metrics.
struct WorkQueueStats {
  /// Keys waiting to be handed out (not counting delayed ones).
  std::size_t depth = 0;
  /// Keys waiting for their delay.
  std::size_t delayed = 0;
  /// Keys a worker holds.
  std::size_t processing = 0;
  /// Adds, counting those that changed nothing.
  std::size_t adds = 0;
};

/// How soon a key is handed out among those waiting.
enum class Priority : std::uint8_t {
  normal,  ///< A change: before every low one.
  low,     ///< Part of an initial state (a sync), handed out when no normal key waits.
};

/// A key handed to a worker, with how long it waited since it was first added.
struct WorkItem {
  /// The key.
  std::string key{};
  /// From the add that queued it (or the end of its delay) to the hand-out.
  std::chrono::steady_clock::duration waited{};
};

/// A thread-safe work queue of string keys; see the file comment. Every method may be called
/// from any thread; completions run on the executor given at construction.
class WorkQueue : public std::enable_shared_from_this<WorkQueue> {
 public:
  /// The clock of delays.
  using clock = std::chrono::steady_clock;
  /// Completion signature of async_get.
  using Signature = void(std::exception_ptr, WorkItem);

  /// Use make(): the queue's timer needs a shared owner.
  WorkQueue(boost::asio::any_io_executor executor, WorkQueueConfig config)
      : executor_(std::move(executor)),
        config_(std::move(config)),
        timer_(executor_),
        tokens_(config_.failure_burst),
        refilled_(clock::now()) {}

  /// A new queue whose completions and timers run on `executor`.
  static std::shared_ptr<WorkQueue> make(boost::asio::any_io_executor executor,
                                         WorkQueueConfig config = {}) {
    return std::make_shared<WorkQueue>(std::move(executor), std::move(config));
  }

  /// Queues `key` now, unless it is already waiting (then a normal add raises a low key to
  /// normal). Ignored after shut_down().
  void add(const std::string& key, Priority priority = Priority::normal) {
    std::unique_lock lock(mutex_);
    add_locked(key, clock::now(), priority, lock);
  }

  /// Queues `key` after `delay`; of several delays for one key, the earliest wins.
  void add_after(const std::string& key, clock::duration delay) {
    if (delay <= clock::duration::zero()) {
      add(key);
      return;
    }
    std::unique_lock lock(mutex_);
    if (shut_down_) {
      return;
    }
    ++adds_;
    const auto at = clock::now() + delay;
    const auto it = delayed_at_.find(key);
    if (it != delayed_at_.end()) {
      if (it->second <= at) {
        return;
      }
      delayed_.erase({it->second, key});
      it->second = at;
    } else {
      delayed_at_.emplace(key, at);
    }
    delayed_.emplace(at, key);
    if (delayed_.begin()->first == at) {
      arm_timer(at);
    }
  }

  /// Queues `key` after its failure delay (see WorkQueueConfig) and returns that delay.
  clock::duration add_rate_limited(const std::string& key) {
    clock::duration delay{};
    {
      const std::lock_guard lock(mutex_);
      const auto now = clock::now();
      auto [it, inserted] = failures_.try_emplace(key, config_.failure_backoff, ++seed_);
      delay = std::max<clock::duration>(it->second.next(now), bucket_delay(now));
    }
    add_after(key, delay);
    return delay;
  }

  /// Forgets `key`'s failures: its next failure delay is the first again.
  void forget(const std::string& key) {
    const std::lock_guard lock(mutex_);
    failures_.erase(key);
  }

  /// The consecutive failures of `key` since it was last forgotten.
  [[nodiscard]] std::size_t failures(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    const auto it = failures_.find(key);
    return it == failures_.end() ? 0 : it->second.failures();
  }

  /// Waits for a key and hands it to the caller, who must call done() with it. Fails with
  /// operation_canceled once the queue is shut down.
  template <class CompletionToken>
  auto async_get(CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [](auto handler, std::shared_ptr<WorkQueue> self) { self->get(std::move(handler)); }, token,
        shared_from_this());
  }

  /// The worker is finished with `key`: if it was added meanwhile, it is queued again.
  void done(const std::string& key) {
    std::unique_lock lock(mutex_);
    processing_.erase(key);
    const auto it = dirty_.find(key);
    if (it != dirty_.end() && !shut_down_) {
      queue_of(it->second.priority).push_back(key);
      hand_out(lock);
    }
  }

  /// Stops handing out keys: waiting and later async_get calls fail with operation_canceled,
  /// keys waiting or delayed are dropped; keys being processed may still be done().
  void shut_down() {
    std::unique_lock lock(mutex_);
    if (shut_down_) {
      return;
    }
    shut_down_ = true;
    ready_.clear();
    ready_low_.clear();
    dirty_.clear();
    delayed_.clear();
    delayed_at_.clear();
    timer_.cancel();
    auto waiting = std::move(waiting_);
    waiting_.clear();
    lock.unlock();
    for (auto& handler : waiting) {
      complete(std::move(handler), canceled(), {});
    }
  }

  /// True once shut_down() was called.
  [[nodiscard]] bool shutting_down() const {
    const std::lock_guard lock(mutex_);
    return shut_down_;
  }

  /// The queue's counters now.
  [[nodiscard]] WorkQueueStats stats() const {
    const std::lock_guard lock(mutex_);
    return {ready_.size() + ready_low_.size(), delayed_.size(), processing_.size(), adds_};
  }

 private:
  // A Backoff that counts the failures it was asked about.
  class Failures {
   public:
    Failures(const BackoffPolicy& policy, std::uint64_t seed) : backoff_(policy, seed) {}
    clock::duration next(clock::time_point now) {
      ++count_;
      return backoff_.next(now);
    }
    [[nodiscard]] std::size_t failures() const { return count_; }

   private:
    Backoff backoff_;
    std::size_t count_ = 0;
  };

  // mutex_ held. How long a failed key waits for a token of the overall bucket (reserving it).
  clock::duration bucket_delay(clock::time_point now) {
    if (config_.failure_qps <= 0) {
      return clock::duration::zero();
    }
    const std::chrono::duration<double> elapsed = now - refilled_;
    refilled_ = now;
    tokens_ = std::min(config_.failure_burst, tokens_ + elapsed.count() * config_.failure_qps);
    tokens_ -= 1;
    if (tokens_ >= 0) {
      return clock::duration::zero();
    }
    return std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(-tokens_ / config_.failure_qps));
  }

  struct Waiting {
    clock::time_point since;
    Priority priority;
  };

  std::deque<std::string>& queue_of(Priority priority) {
    return priority == Priority::low ? ready_low_ : ready_;
  }

  void add_locked(const std::string& key, clock::time_point since, Priority priority,
                  std::unique_lock<std::mutex>& lock) {
    if (shut_down_) {
      return;
    }
    ++adds_;
    const auto [it, added] = dirty_.try_emplace(key, Waiting{since, priority});
    if (!added) {
      if (priority == Priority::normal && it->second.priority == Priority::low) {
        it->second.priority = Priority::normal;  // a change now waits for it
        const auto low = std::find(ready_low_.begin(), ready_low_.end(), key);
        if (low != ready_low_.end()) {
          ready_low_.erase(low);
          ready_.push_back(key);
        }
      }
      return;
    }
    if (processing_.contains(key)) {
      return;  // done() queues it again
    }
    queue_of(priority).push_back(key);
    hand_out(lock);
  }

  // mutex_ held; may release it. Hands the first ready key to the first waiting worker.
  void hand_out(std::unique_lock<std::mutex>& lock) {
    if (waiting_.empty() || (ready_.empty() && ready_low_.empty())) {
      return;
    }
    auto handler = std::move(waiting_.front());
    waiting_.pop_front();
    WorkItem item = take(lock);
    lock.unlock();
    complete(std::move(handler), nullptr, std::move(item));
  }

  // mutex_ held, a key ready.
  WorkItem take(std::unique_lock<std::mutex>&) {
    auto& queue = ready_.empty() ? ready_low_ : ready_;
    WorkItem item{std::move(queue.front()), {}};
    queue.pop_front();
    const auto it = dirty_.find(item.key);
    item.waited = clock::now() - it->second.since;
    dirty_.erase(it);
    processing_.insert(item.key);
    return item;
  }

  void get(boost::asio::any_completion_handler<Signature> handler) {
    std::unique_lock lock(mutex_);
    if (shut_down_) {
      lock.unlock();
      complete(std::move(handler), canceled(), {});
      return;
    }
    if (!ready_.empty() || !ready_low_.empty()) {
      WorkItem item = take(lock);
      lock.unlock();
      complete(std::move(handler), nullptr, std::move(item));
      return;
    }
    waiting_.push_back(std::move(handler));
  }

  // mutex_ held. One timer for the earliest delayed key; it holds the queue only weakly.
  void arm_timer(clock::time_point at) {
    timer_.expires_at(at);
    timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& error) {
      if (error) {
        return;
      }
      if (const auto self = weak.lock()) {
        self->promote_due();
      }
    });
  }

  void promote_due() {
    std::unique_lock lock(mutex_);
    const auto now = clock::now();
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
      auto node = delayed_.extract(delayed_.begin());
      delayed_at_.erase(node.value().second);
      add_locked(node.value().second, node.value().first, Priority::normal, lock);
      if (!lock.owns_lock()) {
        lock.lock();
      }
    }
    if (!delayed_.empty()) {
      arm_timer(delayed_.begin()->first);
    }
  }

  void complete(boost::asio::any_completion_handler<Signature> handler, std::exception_ptr error,
                WorkItem item) {
    boost::asio::post(executor_,
                      boost::asio::append(std::move(handler), std::move(error), std::move(item)));
  }

  static std::exception_ptr canceled() {
    return std::make_exception_ptr(
        Error(make_error_code(std::errc::operation_canceled), "work queue: shut down"));
  }

  boost::asio::any_io_executor executor_;
  WorkQueueConfig config_;
  mutable std::mutex mutex_;
  std::deque<std::string> ready_;                   // normal keys
  std::deque<std::string> ready_low_;               // low keys
  std::unordered_map<std::string, Waiting> dirty_;  // waiting (or to requeue after done)
  std::unordered_set<std::string> processing_;
  std::set<std::pair<clock::time_point, std::string>> delayed_;
  std::unordered_map<std::string, clock::time_point> delayed_at_;
  std::deque<boost::asio::any_completion_handler<Signature>> waiting_;
  boost::asio::steady_timer timer_;
  std::unordered_map<std::string, Failures> failures_;
  std::uint64_t seed_ = 0;
  double tokens_;
  clock::time_point refilled_;
  std::size_t adds_ = 0;
  bool shut_down_ = false;
};

}  // namespace kubex::runtime
