// SPDX-License-Identifier: Apache-2.0
#pragma once

// The controller: reconciles each object of T whenever it, or an object related to it,
// changes, as kube-rs's Controller and controller-runtime do. Changes come from reflectors
// (its own, or shared ones the caller runs) as keys into a WorkQueue; workers take keys and
// call the reconciler with the object as the store holds it then. Level-based: a reconcile
// sees the latest state, however many changes led to it, and never runs twice at once for one
// object. Workers start once every store has its first full state, as controller-runtime
// waits for its caches.

#include <kubex/client/api.hpp>
#include <kubex/client/completion_token.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/changes.hpp>
#include <kubex/runtime/reflector.hpp>
#include <kubex/runtime/work_queue.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace kubex::runtime {

/// What a reconcile asks for next.
class Action {
 public:
  /// Reconcile again after `delay`, even without a change (e.g. to poll an outside system).
  static Action requeue(std::chrono::milliseconds delay) { return Action(delay); }
  /// Reconcile again only when something changes.
  static Action await_change() { return Action(std::nullopt); }
  /// The delay of requeue(), if it was one.
  [[nodiscard]] std::optional<std::chrono::milliseconds> requeue_after() const { return after_; }

 private:
  explicit Action(std::optional<std::chrono::milliseconds> after) : after_(after) {}
  std::optional<std::chrono::milliseconds> after_;
};

/// An object a controller reconciles, by name.
struct ObjectRef {
  /// metadata.name.
  std::string name{};
  /// metadata.namespace; empty for a cluster-scoped kind.
  std::string namespace_{};

  /// The key of the object in a Store ("namespace/name" or "name").
  [[nodiscard]] std::string key() const {
    return namespace_.empty() ? name : namespace_ + "/" + name;
  }
};

/// One reconcile, for metrics (ControllerConfig::on_reconcile).
struct ReconcileRecord {
  /// The object's key.
  std::string_view key{};
  /// From the change that queued it to the start of the reconcile.
  std::chrono::steady_clock::duration queued{};
  /// How long the reconcile took.
  std::chrono::steady_clock::duration duration{};
  /// What it threw; null on success.
  std::exception_ptr error{};
  /// Keys waiting in the queue when it ended.
  std::size_t queue_depth = 0;
};

/// A controller's counters.
struct ControllerStats {
  /// Reconciles that returned.
  std::size_t reconciles = 0;
  /// Reconciles that threw.
  std::size_t failures = 0;
  /// Keys taken whose object was no longer stored (deleted): nothing to reconcile.
  std::size_t skipped = 0;
  /// Reconciles running now.
  std::size_t in_flight = 0;
};

/// How a controller works; K is the kind it reconciles.
template <class K>
struct ControllerConfig {
  /// At most this many reconciles at once (of different objects; one object never twice).
  std::size_t concurrency = 4;
  /// The work queue's delays after failures.
  WorkQueueConfig queue{};
  /// The reflector the controller makes for K (when given an Api, not a reflector).
  ReflectorConfig<K> reflector{};
  /// What follows a failed reconcile; none: the key comes back after the queue's jittered
  /// exponential failure delay (5 ms doubling up to 1000 s, as client-go's default).
  std::function<Action(const K& object, const std::exception_ptr& error)> error_policy{};
  /// Hears every reconcile (the controller's metrics hook).
  std::function<void(const ReconcileRecord&)> on_reconcile{};
  /// Events a trigger may fall behind its reflector before it catches up from the store.
  std::size_t trigger_capacity = 4096;
};

/// The group of an apiVersion: "apps" for "apps/v1", "" for "v1".
[[nodiscard]] inline std::string_view api_group(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

/// The objects of kind Owner that `object` names in its ownerReferences (any, controller or
/// not, as kube-rs's owns), in `object`'s namespace when Owner is namespaced.
template <resource Owner, class K>
[[nodiscard]] std::vector<ObjectRef> owners_of(const K& object) {
  std::vector<ObjectRef> out;
  const auto& meta = object.metadata;
  for (const auto& ref : meta.owner_references) {
    if (ref.kind == resource_traits<Owner>::kind &&
        api_group(ref.api_version) == resource_traits<Owner>::group) {
      out.push_back({ref.name, resource_traits<Owner>::scope == Scope::namespaced
                                   ? std::string(meta.namespace_.value_or(""))
                                   : std::string{}});
    }
  }
  return out;
}

/// Reconciles objects of T: see the file comment. Build it, add relations (owns, watches),
/// then async_run with a reconciler; keep it alive while async_run is pending.
template <resource T>
class Controller {
 public:
  /// An object as the store holds it.
  using object_ptr = std::shared_ptr<const T>;
  /// Reconciles one object: returns what to do next, or throws (see error_policy). Called
  /// with the latest stored state; never twice at once for one object.
  using Reconciler = std::function<boost::asio::awaitable<Action>(object_ptr)>;
  /// Completion signature of async_run: null after shutdown(), or why it stopped.
  using Signature = void(std::exception_ptr);

  /// Reconciles what `api` addresses, through a reflector it makes and runs.
  explicit Controller(client::Api<T> api, ControllerConfig<T> config = {})
      // A braced list is evaluated in order: config.reflector is read before config moves.
      : Controller(Parts{std::make_shared<Reflector<T>>(std::move(api), config.reflector),
                         std::move(config)},
                   true) {}

  /// Reconciles what a shared reflector holds; the caller runs that reflector.
  explicit Controller(std::shared_ptr<Reflector<T>> reflector, ControllerConfig<T> config = {})
      : Controller(Parts{std::move(reflector), std::move(config)}, false) {}

  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Reconciles an owner when an object of U that it owns (ownerReferences) changes, through a
  /// metadata-only reflector it makes and runs over `api` (owner references are metadata).
  /// Without a transform of the caller's, that store drops managedFields: only the owner
  /// references are read from it.
  template <resource U>
  Controller& owns(client::Api<U> api, ReflectorConfig<PartialObjectMeta<U>> config = {}) {
    if (!config.transform) {
      config.transform = drop_managed_fields<PartialObjectMeta<U>>;
    }
    return add_source(std::make_shared<MetadataReflector<U>>(std::move(api), std::move(config)),
                      true, [](const PartialObjectMeta<U>& o) { return owners_of<T>(o); });
  }
  /// As owns(Api), through a shared reflector the caller runs.
  template <class Source>
  Controller& owns(std::shared_ptr<BasicReflector<Source>> reflector) {
    using U = typename BasicReflector<Source>::object_type;
    return add_source(std::move(reflector), false, [](const U& o) { return owners_of<T>(o); });
  }
  /// Reconciles the objects `mapper` names whenever an object of U changes, through a
  /// reflector it makes and runs over `api`.
  template <resource U>
  Controller& watches(client::Api<U> api,
                      std::type_identity_t<std::function<std::vector<ObjectRef>(const U&)>> mapper,
                      ReflectorConfig<U> config = {}) {
    return add_source(std::make_shared<Reflector<U>>(std::move(api), std::move(config)), true,
                      std::move(mapper));
  }
  /// As watches(Api, mapper), through a shared reflector the caller runs.
  template <class Source>
  Controller& watches(
      std::shared_ptr<BasicReflector<Source>> reflector,
      std::function<std::vector<ObjectRef>(const typename BasicReflector<Source>::object_type&)>
          mapper) {
    return add_source(std::move(reflector), false, std::move(mapper));
  }

  /// Runs until shutdown(): reflectors, triggers, then `concurrency` workers once every store
  /// is ready. Completes with null after a shutdown, or with the reason it stopped (the
  /// reflector of T, shared, was stopped by its owner).
  /// Cancellation: shutdown() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_run(Reconciler reconcile, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [this](auto handler, Reconciler r) { start(std::move(r), std::move(handler)); }, token,
        std::move(reconcile));
  }

  /// Stops gracefully, from any thread: no new reconcile starts, those in flight finish, then
  /// the reflectors it runs stop and async_run completes.
  void shutdown() { stop(nullptr); }

  /// Queues a reconcile of `object` now (e.g. from an outside event).
  void reconcile(const ObjectRef& object) { queue_->add(object.key()); }

  /// The store of T, as the reconciler sees it.
  [[nodiscard]] const Store<T>& store() const noexcept { return main_->store(); }
  /// The reflector of T.
  [[nodiscard]] const std::shared_ptr<Reflector<T>>& reflector() const noexcept { return main_; }
  /// The counters.
  [[nodiscard]] ControllerStats stats() const {
    const std::lock_guard lock(mutex_);
    return stats_;
  }
  /// The work queue's counters (its depth is the metric of a controller falling behind).
  [[nodiscard]] WorkQueueStats queue_stats() const { return queue_->stats(); }

 private:
  using clock = std::chrono::steady_clock;

  // A reflector whose changes become keys in the queue.
  class SourceBase {
   public:
    virtual ~SourceBase() = default;
    virtual bool ready() const = 0;
    // Runs the reflector if the controller owns it; `done` when it ends.
    virtual void run_reflector(std::function<void(std::exception_ptr)> done) = 0;
    virtual void stop_reflector() = 0;
    virtual boost::asio::awaitable<void> triggers(Controller& c) = 0;
    virtual void stop_triggers() = 0;
    virtual bool owned() const = 0;
  };

  template <class Source>
  class TriggerSource final : public SourceBase {
   public:
    using K = typename BasicReflector<Source>::object_type;
    using Mapper = std::function<std::vector<ObjectRef>(const K&)>;

    TriggerSource(std::shared_ptr<BasicReflector<Source>> reflector, bool owned, Mapper mapper)
        : reflector_(std::move(reflector)), owned_(owned), mapper_(std::move(mapper)) {}

    bool ready() const override { return reflector_->store().ready(); }
    bool owned() const override { return owned_; }
    void run_reflector(std::function<void(std::exception_ptr)> done) override {
      reflector_->async_run(std::move(done));
    }
    void stop_reflector() override { reflector_->cancel(); }

    boost::asio::awaitable<void> triggers(Controller& c) override {
      for (;;) {
        Changes<K>* changes = nullptr;
        {
          const std::lock_guard lock(mutex_);
          if (stopped_) {
            co_return;
          }
          changes_.emplace(reflector_->changes(c.config_.trigger_capacity));
          changes = &*changes_;
        }
        for (;;) {
          auto [error, change] =
              co_await changes->async_next(boost::asio::as_tuple(boost::asio::use_awaitable));
          if (error) {
            if (Failure(error).code() == std::errc::no_buffer_space) {
              break;  // fell behind: start over from the store, every object queued again
            }
            co_return;  // canceled: the reflector or the controller stopped
          }
          enqueue(c, change);
        }
      }
    }
    void stop_triggers() override {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
      if (changes_) {
        changes_->cancel();
      }
    }

   private:
    // The keys a change names, each once: a key added twice could be taken by a worker in
    // between and reconciled twice for one change.
    void enqueue(Controller& c, const Change<K>& change) {
      const Priority priority = change.initial ? Priority::low : Priority::normal;
      if (!mapper_) {
        c.queue_->add(object_key(*change.object), priority);
        return;
      }
      std::vector<std::string> keys;
      for (const auto& ref : mapper_(*change.object)) {
        keys.push_back(ref.key());
      }
      if (change.old) {  // e.g. an owner reference that was removed: the old owner too
        for (const auto& ref : mapper_(*change.old)) {
          keys.push_back(ref.key());
        }
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      for (const auto& key : keys) {
        c.queue_->add(key, priority);
      }
    }

    std::shared_ptr<BasicReflector<Source>> reflector_;
    bool owned_;
    Mapper mapper_;  // none: the object itself
    std::mutex mutex_;
    std::optional<Changes<K>> changes_;
    bool stopped_ = false;
  };

  struct Parts {
    std::shared_ptr<Reflector<T>> reflector;
    ControllerConfig<T> config;
  };

  Controller(Parts parts, bool owned)
      : config_(std::move(parts.config)),
        main_(std::move(parts.reflector)),
        strand_(boost::asio::make_strand(main_->get_executor())),
        queue_(WorkQueue::make(main_->get_executor(), config_.queue)) {
    if (config_.concurrency == 0) {
      config_.concurrency = 1;
    }
    add_source(main_, owned, nullptr);
  }

  template <class Source, class Mapper>
  Controller& add_source(std::shared_ptr<BasicReflector<Source>> reflector, bool owned,
                         Mapper mapper) {
    sources_.push_back(
        std::make_unique<TriggerSource<Source>>(std::move(reflector), owned, std::move(mapper)));
    return *this;
  }

  void start(Reconciler reconcile, boost::asio::any_completion_handler<Signature> handler) {
    reconcile_ = std::move(reconcile);
    handler_.emplace(std::move(handler));
    {
      // Every part counted before any starts: a reflector may end on another thread at once.
      const std::lock_guard lock(mutex_);
      tasks_ = 1 + sources_.size();
      for (const auto& source : sources_) {
        tasks_ += source->owned() ? 1 : 0;
      }
    }
    for (const auto& source : sources_) {
      if (source->owned()) {
        source->run_reflector([this](std::exception_ptr) { finish_task(nullptr); });
      }
    }
    for (const auto& source : sources_) {
      const bool is_main = source.get() == sources_.front().get();
      boost::asio::co_spawn(
          strand_, source->triggers(*this), [this, is_main](std::exception_ptr error) {
            if (is_main && !error && !queue_->shutting_down()) {
              // The main changes end only when stopped, or when the
              // reflector of T stopped: the controller cannot go on.
              stop(std::make_exception_ptr(Error(make_error_code(std::errc::operation_canceled),
                                                 "controller: the reflector of " +
                                                     std::string(resource_traits<T>::kind) +
                                                     " stopped")));
            }
            finish_task(error);
          });
    }
    boost::asio::co_spawn(strand_, supervise(), [this](std::exception_ptr error) {
      stop_sources();
      finish_task(error);
    });
  }

  // Waits for every store, runs the workers, and returns once they all ended.
  boost::asio::awaitable<void> supervise() {
    boost::asio::steady_timer timer(strand_);
    for (;;) {
      if (queue_->shutting_down()) {
        co_return;
      }
      bool ready = true;
      for (const auto& source : sources_) {
        ready = ready && source->ready();
      }
      if (ready) {
        break;
      }
      timer.expires_after(std::chrono::milliseconds(10));
      co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    workers_done_.emplace(strand_, clock::time_point::max());
    workers_ = config_.concurrency;
    for (std::size_t i = 0; i < config_.concurrency; ++i) {
      boost::asio::co_spawn(strand_, work(), [this](std::exception_ptr error) {
        if (error) {
          stop(error);
        }
        if (--workers_ == 0) {
          workers_done_->cancel();
        }
      });
    }
    while (workers_ > 0) {
      co_await workers_done_->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
  }

  boost::asio::awaitable<void> work() {
    for (;;) {
      auto [error, item] =
          co_await queue_->async_get(boost::asio::as_tuple(boost::asio::use_awaitable));
      if (error) {
        co_return;  // shut down
      }
      const object_ptr object = main_->store().get(item.key);
      if (!object) {
        queue_->forget(item.key);
        queue_->done(item.key);
        const std::lock_guard lock(mutex_);
        ++stats_.skipped;
        continue;
      }
      {
        const std::lock_guard lock(mutex_);
        ++stats_.in_flight;
      }
      const auto started = clock::now();
      std::exception_ptr failure;
      std::optional<Action> action;
      try {
        boost::asio::awaitable<Action> pending = reconcile_(object);
        action = co_await std::move(pending);
      } catch (...) {
        failure = std::current_exception();
      }
      const auto took = clock::now() - started;
      {
        const std::lock_guard lock(mutex_);
        --stats_.in_flight;
        ++stats_.reconciles;
        if (failure) {
          ++stats_.failures;
        }
      }
      queue_->done(item.key);
      if (failure && !config_.error_policy) {
        queue_->add_rate_limited(item.key);
      } else {
        if (failure) {
          action = config_.error_policy(*object, failure);
        } else {
          queue_->forget(item.key);
        }
        if (const auto after = action->requeue_after()) {
          queue_->add_after(item.key, *after);
        }
      }
      if (config_.on_reconcile) {
        config_.on_reconcile({item.key, item.waited, took, failure, queue_->stats().depth});
      }
    }
  }

  void stop(std::exception_ptr why) {
    {
      const std::lock_guard lock(mutex_);
      if (!error_ && why) {
        error_ = why;
      }
    }
    queue_->shut_down();
  }

  // After the workers: nothing reads the stores any more.
  void stop_sources() {
    for (const auto& source : sources_) {
      source->stop_triggers();
      if (source->owned()) {
        source->stop_reflector();
      }
    }
  }

  void finish_task(const std::exception_ptr& error) {
    std::exception_ptr result;
    {
      const std::lock_guard lock(mutex_);
      if (error && !error_ && !Failure(error).canceled()) {
        error_ = error;
      }
      if (--tasks_ > 0) {
        return;
      }
      result = error_;
    }
    auto handler = std::move(*handler_);
    handler_.reset();
    // Through the handler's own executor, never inside a caller's frame.
    boost::asio::post(main_->get_executor(), boost::asio::append(std::move(handler), result));
  }

  ControllerConfig<T> config_;
  std::shared_ptr<Reflector<T>> main_;
  // The controller's own coroutines (workers, triggers, supervisor) and so the reconciles run
  // here: one at a time, interleaved at each co_await, whatever threads run the client.
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  std::shared_ptr<WorkQueue> queue_;
  std::vector<std::unique_ptr<SourceBase>> sources_;  // the first: T itself
  Reconciler reconcile_;
  std::optional<boost::asio::any_completion_handler<Signature>> handler_;
  std::optional<boost::asio::steady_timer> workers_done_;
  std::size_t workers_ = 0;  // the strand's
  mutable std::mutex mutex_;
  std::size_t tasks_ = 0;  // running parts of async_run
  ControllerStats stats_;
  std::exception_ptr error_;
};

}  // namespace kubex::runtime
