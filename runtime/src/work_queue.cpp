// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/runtime/work_queue.hpp>

#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <system_error>
#include <utility>

namespace kubex::runtime {

namespace {

std::exception_ptr canceled() {
  return std::make_exception_ptr(
      Error(make_error_code(std::errc::operation_canceled), "work queue: shut down"));
}

}  // namespace

WorkQueue::WorkQueue(boost::asio::any_io_executor executor, WorkQueueConfig config)
    : executor_(std::move(executor)),
      config_(std::move(config)),
      timer_(executor_),
      bucket_(config_.failure_qps, config_.failure_burst, clock::now()) {}

std::shared_ptr<WorkQueue> WorkQueue::make(boost::asio::any_io_executor executor,
                                           WorkQueueConfig config) {
  return std::make_shared<WorkQueue>(std::move(executor), std::move(config));
}

void WorkQueue::add(const std::string& key, Priority priority) {
  std::unique_lock lock(mutex_);
  add_locked(key, clock::now(), priority, lock);
}

void WorkQueue::add_after(const std::string& key, clock::duration delay) {
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

WorkQueue::clock::duration WorkQueue::add_rate_limited(const std::string& key) {
  clock::duration delay{};
  {
    const std::lock_guard lock(mutex_);
    const auto now = clock::now();
    auto [it, inserted] =
        failures_.try_emplace(key, Failures{Backoff(config_.failure_backoff, ++seed_)});
    ++it->second.count;
    delay = std::max<clock::duration>(it->second.backoff.next(now), bucket_delay(now));
  }
  add_after(key, delay);
  return delay;
}

void WorkQueue::forget(const std::string& key) {
  const std::lock_guard lock(mutex_);
  failures_.erase(key);
}

std::size_t WorkQueue::failures(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second.count;
}

void WorkQueue::done(const std::string& key) {
  std::unique_lock lock(mutex_);
  processing_.erase(key);
  const auto it = dirty_.find(key);
  if (it != dirty_.end() && !shut_down_) {
    queue_of(it->second.priority).push_back(key);
    hand_out(lock);
  }
}

void WorkQueue::shut_down() {
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

bool WorkQueue::shutting_down() const {
  const std::lock_guard lock(mutex_);
  return shut_down_;
}

WorkQueueStats WorkQueue::stats() const {
  const std::lock_guard lock(mutex_);
  return {ready_.size() + ready_low_.size(), delayed_.size(), processing_.size(), adds_};
}

// mutex_ held. How long a failed key waits for a token of the overall bucket (reserving it).
WorkQueue::clock::duration WorkQueue::bucket_delay(clock::time_point now) {
  if (config_.failure_qps <= 0) {
    return clock::duration::zero();
  }
  return bucket_.take(now);
}

std::deque<std::string>& WorkQueue::queue_of(Priority priority) {
  return priority == Priority::low ? ready_low_ : ready_;
}

void WorkQueue::add_locked(const std::string& key, clock::time_point since, Priority priority,
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
void WorkQueue::hand_out(std::unique_lock<std::mutex>& lock) {
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
WorkItem WorkQueue::take(std::unique_lock<std::mutex>& /*lock*/) {
  auto& queue = ready_.empty() ? ready_low_ : ready_;
  WorkItem item{std::move(queue.front()), {}};
  queue.pop_front();
  const auto it = dirty_.find(item.key);
  item.waited = clock::now() - it->second.since;
  dirty_.erase(it);
  processing_.insert(item.key);
  return item;
}

void WorkQueue::get(boost::asio::any_completion_handler<Signature> handler) {
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
void WorkQueue::arm_timer(clock::time_point at) {
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

void WorkQueue::promote_due() {
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

void WorkQueue::complete(boost::asio::any_completion_handler<Signature> handler,
                         std::exception_ptr error, WorkItem item) {
  boost::asio::post(executor_,
                    boost::asio::append(std::move(handler), std::move(error), std::move(item)));
}

}  // namespace kubex::runtime
