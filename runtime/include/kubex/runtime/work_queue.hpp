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

#include <kubex/client/completion_token.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/token_bucket.hpp>
#include <kubex/runtime/backoff.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
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
class KUBEX_API WorkQueue : public std::enable_shared_from_this<WorkQueue> {
 public:
  /// The clock of delays.
  using clock = std::chrono::steady_clock;
  /// Completion signature of async_get.
  using Signature = void(std::exception_ptr, WorkItem);

  /// Use make(): the queue's timer needs a shared owner.
  WorkQueue(boost::asio::any_io_executor executor, WorkQueueConfig config);

  /// A new queue whose completions and timers run on `executor`.
  static std::shared_ptr<WorkQueue> make(boost::asio::any_io_executor executor,
                                         WorkQueueConfig config = {});

  /// Queues `key` now, unless it is already waiting (then a normal add raises a low key to
  /// normal). Ignored after shut_down().
  void add(const std::string& key, Priority priority = Priority::normal);

  /// Queues `key` after `delay`; of several delays for one key, the earliest wins.
  void add_after(const std::string& key, clock::duration delay);

  /// Queues `key` after its failure delay (see WorkQueueConfig) and returns that delay.
  clock::duration add_rate_limited(const std::string& key);

  /// Forgets `key`'s failures: its next failure delay is the first again.
  void forget(const std::string& key);

  /// The consecutive failures of `key` since it was last forgotten.
  [[nodiscard]] std::size_t failures(const std::string& key) const;

  /// Waits for a key and hands it to the caller, who must call done() with it. Fails with
  /// operation_canceled once the queue is shut down.
  /// Cancellation: shut_down() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_get(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [](auto handler, std::shared_ptr<WorkQueue> self) { self->get(std::move(handler)); }, token,
        shared_from_this());
  }

  /// The worker is finished with `key`: if it was added meanwhile, it is queued again.
  void done(const std::string& key);

  /// Stops handing out keys: waiting and later async_get calls fail with operation_canceled,
  /// keys waiting or delayed are dropped; keys being processed may still be done().
  void shut_down();

  /// True once shut_down() was called.
  [[nodiscard]] bool shutting_down() const;

  /// The queue's counters now.
  [[nodiscard]] WorkQueueStats stats() const;

 private:
  // A key's Backoff and the failures it was asked about.
  struct Failures {
    Backoff backoff;
    std::size_t count = 0;
  };

  struct Waiting {
    clock::time_point since;
    Priority priority;
  };

  clock::duration bucket_delay(clock::time_point now);
  std::deque<std::string>& queue_of(Priority priority);
  void add_locked(const std::string& key, clock::time_point since, Priority priority,
                  std::unique_lock<std::mutex>& lock);
  void hand_out(std::unique_lock<std::mutex>& lock);
  WorkItem take(std::unique_lock<std::mutex>& lock);
  void get(boost::asio::any_completion_handler<Signature> handler);
  void arm_timer(clock::time_point at);
  void promote_due();
  void complete(boost::asio::any_completion_handler<Signature> handler, std::exception_ptr error,
                WorkItem item);

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
  TokenBucket bucket_;  // unused when failure_qps is 0
  std::size_t adds_ = 0;
  bool shut_down_ = false;
};

}  // namespace kubex::runtime
