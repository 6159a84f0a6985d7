// SPDX-License-Identifier: Apache-2.0
#pragma once

// One consumer's share of a reflector: the events the reflector applied to its store, in
// order, with the stored objects themselves (shared, not copied). Several consumers share one
// watch and one store this way, as with client-go's shared informers.
//
// A consumer that falls more than its capacity behind is cut off with an error instead of
// slowing the reflector and every other consumer, or losing events silently: it subscribes
// again and reads the store, which is always whole.

#include <kubex/client/completion_token.hpp>
#include <kubex/core/error.hpp>
#include <kubex/runtime/watcher.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>

#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace kubex::runtime {

/// An event as a subscriber sees it: what happened and the object as the store now holds it
/// (null for init and init_done).
template <class K>
struct StoreEvent {
  /// What happened.
  WatcherEventType type = WatcherEventType::init;
  /// The object the store holds (for deleted: its last state, no longer in the store).
  std::shared_ptr<const K> object{};
};

namespace detail {

// The queue between a reflector (one producer) and one subscriber.
template <class K>
class SubscriberQueue {
 public:
  using Signature = void(std::exception_ptr, StoreEvent<K>);

  SubscriberQueue(boost::asio::any_io_executor executor, std::size_t capacity)
      : executor_(std::move(executor)), capacity_(capacity) {}

  // The producer's side: false once the subscriber is cut off or gone.
  bool push(const StoreEvent<K>& event) {
    std::unique_lock lock(mutex_);
    if (end_) {
      return false;
    }
    if (waiting_) {
      auto handler = std::move(*waiting_);
      waiting_.reset();
      lock.unlock();
      complete(std::move(handler), nullptr, event);
      return true;
    }
    if (events_.size() >= capacity_) {
      end_ = std::make_exception_ptr(
          Error(make_error_code(std::errc::no_buffer_space),
                "subscription: more than " + std::to_string(capacity_) +
                    " events behind the reflector; subscribe again and read the store"));
      events_.clear();
      return false;
    }
    events_.push_back(event);
    return true;
  }

  // The reflector stopped: what is queued is still delivered, then `error`.
  void close(std::exception_ptr error) {
    std::unique_lock lock(mutex_);
    if (end_) {
      return;
    }
    end_ = std::move(error);
    if (waiting_ && events_.empty()) {
      auto handler = std::move(*waiting_);
      waiting_.reset();
      lock.unlock();
      complete(std::move(handler), end_, {});
    }
  }

  [[nodiscard]] const boost::asio::any_io_executor& executor() const { return executor_; }

  void next(boost::asio::any_completion_handler<Signature> handler) {
    std::unique_lock lock(mutex_);
    if (!events_.empty()) {
      StoreEvent<K> event = std::move(events_.front());
      events_.pop_front();
      lock.unlock();
      complete(std::move(handler), nullptr, std::move(event));
      return;
    }
    if (end_) {
      auto error = end_;
      lock.unlock();
      complete(std::move(handler), std::move(error), {});
      return;
    }
    waiting_.emplace(std::move(handler));
  }

 private:
  // Always through the handler's executor (by default the reflector's), never inside the
  // caller's frame.
  void complete(boost::asio::any_completion_handler<Signature> handler, std::exception_ptr error,
                StoreEvent<K> event) {
    boost::asio::post(executor_,
                      boost::asio::append(std::move(handler), std::move(error), std::move(event)));
  }

  boost::asio::any_io_executor executor_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::deque<StoreEvent<K>> events_;
  std::optional<boost::asio::any_completion_handler<Signature>> waiting_;
  std::exception_ptr end_;  // set: no more events after those queued
};

}  // namespace detail

/// A consumer's handle on a reflector's events (Reflector::subscribe). Dropping it ends the
/// subscription. One async_next at a time.
template <class K>
class Subscription {
 public:
  /// Completion signature of async_next.
  using Signature = void(std::exception_ptr, StoreEvent<K>);

  /// Wraps the queue a reflector feeds.
  explicit Subscription(std::shared_ptr<detail::SubscriberQueue<K>> queue)
      : queue_(std::move(queue)) {}

  /// The executor its completions run on (the reflector's client's, by default).
  [[nodiscard]] boost::asio::any_io_executor get_executor() const { return queue_->executor(); }

  /// The next event the reflector applied. Fails with std::errc::no_buffer_space once this
  /// subscriber fell behind by more than its capacity, and with operation_canceled after the
  /// reflector stopped (and the events before that were delivered).
  /// Cancellation: cancel() of the reflector stops it from any thread; a cancellation slot bound to
  /// the token is not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_next(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [](auto handler, std::shared_ptr<detail::SubscriberQueue<K>> queue) {
          queue->next(std::move(handler));
        },
        token, queue_);
  }
  /// Ends the subscription from any thread: the events queued are still delivered, then a
  /// pending or later async_next fails with operation_canceled.
  void cancel() {
    queue_->close(std::make_exception_ptr(
        Error(make_error_code(std::errc::operation_canceled), "subscription: canceled")));
  }

 private:
  std::shared_ptr<detail::SubscriberQueue<K>> queue_;
};

}  // namespace kubex::runtime
