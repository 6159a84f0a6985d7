// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reflector: a watcher whose events keep a Store current, for as long as it runs. Readers
// use the store, its last synced resourceVersion and its counters from any thread; failures are
// reported and never stop it (the watcher resumes by itself); it ends only when cancelled.

#include <kubex/client/api.hpp>
#include <kubex/client/completion_token.hpp>
#include <kubex/core/arena.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/changes.hpp>
#include <kubex/runtime/resource_version.hpp>
#include <kubex/runtime/store.hpp>
#include <kubex/runtime/subscription.hpp>
#include <kubex/runtime/watcher.hpp>

#include <boost/asio/compose.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace kubex::runtime {

/// A transform that drops metadata.managedFields and frees their memory: a fifth of a pod's
/// (benchmarks/runtime/report.md), which a controller seldom reads. The rest of the object
/// moves to an arena of its own (kubex::compact): the decode's blocks, which held the fields
/// too, go back only once nothing in them lives.
template <class K>
void drop_managed_fields(K& object) {
  if (object.metadata.managed_fields.empty()) {
    return;
  }
  decltype(object.metadata.managed_fields)().swap(object.metadata.managed_fields);
  kubex::compact(object);
}

/// How a reflector watches and what it keeps.
template <class K>
struct ReflectorConfig {
  /// The watcher's configuration.
  WatcherConfig watcher{};
  /// Runs on each object before it is stored, e.g. drop_managed_fields<K>.
  std::function<void(K&)> transform{};
  /// Hears each failure (the reflector goes on after it); none: failures are only counted.
  std::function<void(std::exception_ptr)> on_error{};
};

/// A reflector of the objects an Api addresses; use Reflector<T>, MetadataReflector<T> and
/// DynamicReflector<Meta>. Keep it alive while async_run is pending.
template <class Source>
class BasicReflector {
 public:
  /// The watcher it runs.
  using watcher_type = BasicWatcher<Source>;
  /// What the store holds.
  using object_type = typename watcher_type::object_type;
  /// Completion signature of async_run: null once cancelled.
  using Signature = void(std::exception_ptr);

  /// Reflects what `api` addresses. Nothing is sent before async_run.
  explicit BasicReflector(typename watcher_type::api_type api,
                          ReflectorConfig<object_type> config = {})
      : watcher_(std::move(api), config.watcher), config_(std::move(config)) {}

  /// Keeps the store current until cancel(); then completes with null.
  /// Cancellation: cancel() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_run(CompletionToken&& token = {}) {
    return boost::asio::async_compose<CompletionToken, Signature>(
        RunOp{this}, token, watcher_.api().client().get_executor());
  }
  /// Stops async_run, from any thread.
  void cancel() { watcher_.cancel(); }
  /// The executor it runs on: its client's.
  [[nodiscard]] boost::asio::any_io_executor get_executor() const {
    return watcher_.api().client().get_executor();
  }

  /// The store, readable from any thread.
  [[nodiscard]] const Store<object_type>& store() const noexcept { return store_; }
  /// A new consumer of the events, after the store applied them, with the stored objects
  /// (shared). It sees the events from now on: read the store first for what came before.
  /// One that falls more than `capacity` events behind is cut off (see Subscription).
  Subscription<object_type> subscribe(std::size_t capacity = 4096) {
    const std::lock_guard<std::mutex> lock(subscribers_mutex_);
    return Subscription<object_type>(add_subscriber(capacity));
  }
  /// A new consumer of the plain event stream: every stored object as added, then each
  /// change, a relist turned into the changes it implies (see Changes). Capacity as subscribe.
  Changes<object_type> changes(std::size_t capacity = 4096) {
    const std::lock_guard<std::mutex> lock(subscribers_mutex_);
    // Under the lock no event is being applied: the store and the events after it agree.
    return Changes<object_type>(Subscription<object_type>(add_subscriber(capacity)), store_.list(),
                                store_.ready(), store_.listing());
  }
  /// Adds an index to the store (see Store::add_index).
  void add_index(std::string name, typename Store<object_type>::IndexFunc values) {
    store_.add_index(std::move(name), std::move(values));
  }
  /// The watcher's counters, readable from any thread while it runs (each is atomic).
  [[nodiscard]] const WatcherStats& stats() const noexcept { return watcher_.stats(); }

  /// The resourceVersion its store is synced to, from any thread (client-go's
  /// LastSyncResourceVersion): that of the last (re)list swapped in, then of each change
  /// applied and each bookmark after them. Empty until the first list is in. A store synced to
  /// version V holds every change up to V: compare with resource_version_reached (the RV of an
  /// object you wrote is the surest target; a list's is the cluster's latest, which a store of
  /// one namespace reaches only at its next event or bookmark, about once a minute). It moves
  /// just after the store: a reader may see a change stored before its version shows, never
  /// the version before the change.
  [[nodiscard]] std::string last_synced_resource_version() const {
    return watcher_.synced_resource_version().get();
  }
  /// Waits until the store is synced to `version` or newer (see resource_version_reached), at
  /// most `timeout`; returns whether it is. From any thread but the one that runs its client.
  bool wait_until_synced_to(std::string_view version, std::chrono::milliseconds timeout) const {
    return watcher_.synced_resource_version().wait_until_reached(version, timeout);
  }

 private:
  struct RunOp {
    BasicReflector* r;

    template <class Self>
    void operator()(Self& self) {
      r->watcher_.async_next(std::move(self));
    }

    template <class Self>
    void operator()(Self& self, std::exception_ptr error, WatcherEvent<object_type> event) {
      if (error) {
        if (Failure(error).canceled()) {
          r->stop_subscribers();
          self.complete(nullptr);
          return;
        }
        if (r->config_.on_error) {
          r->config_.on_error(error);
        }
      } else {
        if (r->config_.transform &&
            (event.type == WatcherEventType::init_apply || event.type == WatcherEventType::apply ||
             event.type == WatcherEventType::deleted)) {
          r->config_.transform(event.object);
        }
        r->apply(std::move(event));
      }
      r->watcher_.async_next(std::move(self));
    }
  };

  // A new subscriber's queue, closed at once when the reflector has stopped; the subscribers'
  // lock held.
  std::shared_ptr<detail::SubscriberQueue<object_type>> add_subscriber(std::size_t capacity) {
    auto queue = std::make_shared<detail::SubscriberQueue<object_type>>(
        watcher_.api().client().get_executor(), capacity);
    if (stopped_) {
      queue->close(canceled());
    } else {
      subscribers_.push_back(queue);
    }
    return queue;
  }

  // Applies an event to the store and hands it to the subscribers in one step, so that a new
  // consumer (changes()) starts from a state and the events after it: none missed, none twice.
  void apply(WatcherEvent<object_type> event) {
    const std::lock_guard<std::mutex> lock(subscribers_mutex_);
    const WatcherEventType type = event.type;
    const StoreEvent<object_type> applied{type, store_.apply(std::move(event))};
    std::erase_if(subscribers_, [&applied](const auto& weak) {
      const auto queue = weak.lock();
      return !queue || !queue->push(applied);
    });
  }

  void stop_subscribers() {
    const std::lock_guard<std::mutex> lock(subscribers_mutex_);
    stopped_ = true;
    for (const auto& weak : subscribers_) {
      if (const auto queue = weak.lock()) {
        queue->close(canceled());
      }
    }
    subscribers_.clear();
  }

  static std::exception_ptr canceled() {
    return std::make_exception_ptr(
        Error(make_error_code(std::errc::operation_canceled), "reflector: stopped"));
  }

  watcher_type watcher_;
  ReflectorConfig<object_type> config_;
  Store<object_type> store_;
  std::mutex subscribers_mutex_;
  std::vector<std::weak_ptr<detail::SubscriberQueue<object_type>>> subscribers_;
  bool stopped_ = false;
};

/// Reflects full objects of T.
template <resource T>
using Reflector = BasicReflector<detail::TypedSource<T, false>>;

/// Reflects only the metadata of T's objects: the cheapest store for controllers that need
/// names, labels, owners and versions.
template <resource T>
using MetadataReflector = BasicReflector<detail::TypedSource<T, true>>;

/// Reflects a resource known at run time as DynamicObject.
template <class Meta>
using DynamicReflector = BasicReflector<detail::DynamicSource<Meta>>;

}  // namespace kubex::runtime
