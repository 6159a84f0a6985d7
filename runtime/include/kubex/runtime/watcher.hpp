// SPDX-License-Identifier: Apache-2.0
#pragma once

// The watcher: the state of a resource, then every change to it, for as long as it runs,
// through every fault a watch meets. It lists (in pages), watches from the list's
// resourceVersion, resumes a watch that ends from the last resourceVersion it saw, lists again
// only when the server says that version is gone (410) or not there yet (too large), and waits
// a jittered, growing delay after each failure. Its events have the shape of kube-rs's watcher:
//
//   init, init_apply(obj)..., init_done      the whole state, at start and after each relist
//   apply(obj), deleted(obj)                 changes after it
//
// Failures reach the caller as errors of async_next; the watcher itself goes on at the next
// call (after its backoff delay), so a caller that logs and calls again never loses its place.
// Built on kubex::client's public Api<T> only. What to do next is decided by
// detail::WatcherStep (watcher_step.hpp), with no I/O; BasicWatcher performs what it asks.
//
// The watch promises (W1-W10 of the reliability reference) and how the watcher keeps each:
//   W1  no change lost or doubled across faults: after any, a relist delivers the whole state
//       again (init ... init_done) for the store to replace, and changes resume after it.
//   W2  a watch the server ends cleanly is resumed at once from the last version, no relist.
//   W3  410/Expired/Gone (answer or ERROR event) relists, never re-watches that version; at
//       once if the watch had delivered events, else after a backoff delay (no 410 loop).
//   W4  a refused or failed watch request is reported and resumed from the same version after
//       a backoff delay (0.8 s, x2, 30 s cap, jitter [d, 2d)), without a relist.
//   W5  a watch silent past idle_timeout is torn down, reported as timed_out, and resumed.
//   W6  the version moves only with a delivered event, a bookmark (never handed out) or a
//       list's end; not with a watch's initial events, never past an event that failed.
//   W7  with InitialState::watch_list, init_done only at the bookmark annotated
//       k8s.io/initial-events-end; a break or a change before it starts over; a server that
//       refuses it (400/405/422) is listed instead, from then on.
//   W8  an event that does not decode is reported, the watch dropped and resumed from the last
//       version delivered (not past the bad event).
//   W9  an event over max_event_size is reported, then a relist after a delay (the same event
//       would come again on a resumed watch).
//   W10 a watch ended within very_short_watch without an event waits a backoff delay first.

#include <kubex/client/api.hpp>
#include <kubex/client/completion_token.hpp>
#include <kubex/client/dynamic.hpp>
#include <kubex/client/inline_guard.hpp>
#include <kubex/core/dynamic.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/params.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/watch.hpp>
#include <kubex/runtime/resource_version.hpp>
#include <kubex/runtime/watcher_config.hpp>
#include <kubex/runtime/watcher_event.hpp>
#include <kubex/runtime/watcher_step.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

namespace kubex::runtime {

namespace detail {

// Where a watcher lists and watches: Api<T>, for full objects or their metadata.
template <resource T, bool MetadataOnly>
struct TypedSource {
  using api_type = client::Api<T>;
  using object_type = std::conditional_t<MetadataOnly, PartialObjectMeta<T>, T>;
  using list_type = std::conditional_t<MetadataOnly, PartialObjectMetaList<T>,
                                       typename resource_traits<T>::list_type>;

  template <class Handler>
  static void list(const api_type& api, const ListParams& params, Handler&& handler) {
    if constexpr (MetadataOnly) {
      api.async_list_metadata(params, std::forward<Handler>(handler));
    } else {
      api.async_list(params, std::forward<Handler>(handler));
    }
  }
  template <class Handler>
  static void watch(const api_type& api, const WatchParams& params, Handler&& handler) {
    if constexpr (MetadataOnly) {
      api.async_watch_metadata(params, std::forward<Handler>(handler));
    } else {
      api.async_watch(params, std::forward<Handler>(handler));
    }
  }
  static std::string_view plural(const api_type& /*api*/) { return resource_traits<T>::plural; }
};

// Where a watcher lists and watches: DynamicApi, for a resource known at run time.
template <class Meta>
struct DynamicSource {
  using api_type = client::DynamicApi<Meta>;
  using object_type = DynamicObject<Meta>;
  using list_type = DynamicList<Meta>;

  template <class Handler>
  static void list(const api_type& api, const ListParams& params, Handler&& handler) {
    api.async_list(params, std::forward<Handler>(handler));
  }
  template <class Handler>
  static void watch(const api_type& api, const WatchParams& params, Handler&& handler) {
    api.async_watch(params, std::forward<Handler>(handler));
  }
  static std::string_view plural(const api_type& api) { return api.resource().plural; }
};

}  // namespace detail

/// A watcher of the objects an Api addresses (one namespace, all namespaces, or the cluster):
/// use Watcher<T> (full objects), MetadataWatcher<T> (PartialObjectMetadata) and
/// DynamicWatcher<Meta> (DynamicObject, through a DynamicApi). One async_next at a time; keep
/// the watcher alive until it completes.
template <class Source>
class BasicWatcher {
 public:
  /// The Api it lists and watches through.
  using api_type = typename Source::api_type;
  /// What the events carry.
  using object_type = typename Source::object_type;
  /// What a list answers.
  using list_type = typename Source::list_type;
  /// The events.
  using event_type = WatcherEvent<object_type>;
  /// Completion signature of async_next: an event, or a failure (the watcher goes on).
  using Signature = void(std::exception_ptr, event_type);

  /// Watches what `api` addresses. Nothing is sent before the first async_next.
  explicit BasicWatcher(api_type api, WatcherConfig config = {})
      : api_(std::move(api)),
        step_(std::move(config), describe(api_)),
        timer_(api_.client().get_executor()),
        idle_timer_(api_.client().get_executor()) {}
  BasicWatcher(const BasicWatcher&) = delete;
  BasicWatcher& operator=(const BasicWatcher&) = delete;
  /// No async_next may be pending.
  ~BasicWatcher() {
    const std::lock_guard<std::mutex> lock(guard_->mutex);
    guard_->stream = nullptr;  // an idle timeout already on its way finds nothing to cancel
    idle_timer_.cancel();
  }

  /// The next event. Fails with what went wrong (a refused list, a dropped or undecodable
  /// stream, an ERROR event other than 410); the next call goes on after the backoff delay.
  /// After cancel(), fails with std::errc::operation_canceled.
  /// Cancellation: cancel() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_next(CompletionToken&& token = {}) {
    if (!handed_out_.empty()) {
      synced_.set(std::exchange(handed_out_, {}));  // the caller took it in: it asks for more
    }
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token,
                                                                  api_.client().get_executor());
  }

  /// Stops the watcher, from any thread: a pending async_next fails with operation_canceled
  /// (at once when it waits on the watch or a delay, after the request in flight otherwise).
  void cancel() {
    const std::lock_guard<std::mutex> lock(guard_->mutex);
    canceled_ = true;
    timer_.cancel();
    idle_timer_.cancel();
    if (stream_) {
      stream_->cancel();
    }
  }

  /// The last resourceVersion seen: the list's, then each event's and bookmark's.
  [[nodiscard]] const std::string& resource_version() const noexcept { return step_.version(); }
  /// The resourceVersion its caller has caught up with, readable and awaitable from any thread:
  /// that of the last init_done, apply or deleted it handed out, once the caller asked for the
  /// next event (a reflector has stored it by then), or of a bookmark after them. Empty until
  /// the first init_done was taken in; a relist leaves it until its own init_done.
  [[nodiscard]] const SyncedResourceVersion& synced_resource_version() const noexcept {
    return synced_;
  }
  /// What the watcher has done so far; any thread may read it meanwhile.
  [[nodiscard]] const WatcherStats& stats() const noexcept { return step_.stats(); }
  /// The Api it watches through.
  [[nodiscard]] const api_type& api() const noexcept { return api_; }

 private:
  using clock = detail::WatcherStep::clock;

  // One async_next: performs what the step asks and feeds it the results.
  struct NextOp {
    BasicWatcher* w;
    // Until this operation has waited for something, completing would run the caller's
    // handler inside async_next, so the result is posted instead.
    client::InlineGuard inline_guard{};

    // Delivers a pending event, or asks the step what next.
    template <class Self>
    void operator()(Self& self) {
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return finish(
            self, std::make_exception_ptr(
                      Error(make_error_code(std::errc::operation_canceled), "watcher: canceled")));
      }
      if (!s.pending_.empty()) {
        if (inline_guard.inline_now()) {
          return post(self);
        }
        event_type event = std::move(s.pending_.front());
        s.pending_.pop_front();
        if (event.type != WatcherEventType::init && event.type != WatcherEventType::init_apply) {
          s.handed_out_ = s.step_.version();  // nothing was read since it was queued
        }
        self.complete(nullptr, std::move(event));
        return;
      }
      perform(self, s.step_.step(detail::watcher_input::Proceed{}, clock::now()));
    }

    // The backoff delay has passed (or was cancelled).
    template <class Self>
    void operator()(Self& self, boost::system::error_code /*ec*/) {
      inline_guard.waited();
      (*this)(self);
    }

    // A page of the list.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, list_type page) {
      inline_guard.waited();
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return (*this)(self);
      }
      if (error) {
        return perform(
            self, s.step_.step(detail::watcher_input::ListFailed{std::move(error)}, clock::now()));
      }
      const auto& meta = page.metadata;
      auto action = s.step_.step(
          detail::watcher_input::ListPage{.continue_token = view(meta.continue_),
                                          .resource_version = view(meta.resource_version)},
          clock::now());
      if (!std::holds_alternative<detail::watcher_action::Fail>(action)) {
        for (auto& item : page.items) {
          s.pending_.push_back(event_type{WatcherEventType::init_apply, std::move(item)});
        }
      }
      perform(self, std::move(action));
    }

    // The watch was opened, or refused.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, client::WatchStream<object_type> stream) {
      inline_guard.waited();
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return (*this)(self);
      }
      if (error) {
        return perform(self, s.step_.step(detail::watcher_input::WatchRefused{std::move(error)},
                                          clock::now()));
      }
      stream.set_max_item_size(s.step_.config().max_event_size);
      {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        s.stream_.emplace(std::move(stream));
        s.guard_->stream = &*s.stream_;
        s.arm_idle_timer();
      }
      perform(self, s.step_.step(detail::watcher_input::WatchOpened{}, clock::now()));
    }

    // The next event of the watch, its clean end, or a failure.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error,
                    std::optional<WatchEvent<object_type>> event) {
      inline_guard.waited();
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return (*this)(self);
      }
      if (error && s.take_stall()) {
        error =
            std::make_exception_ptr(Error(make_error_code(std::errc::timed_out),
                                          "watch of " + s.step_.what() + ": nothing received for " +
                                              std::to_string(s.step_.idle_timeout().count()) +
                                              " ms; the connection is presumed dead"));
      }
      if (error) {
        return perform(
            self, s.step_.step(detail::watcher_input::WatchFailed{std::move(error)}, clock::now()));
      }
      if (!event) {
        return perform(self, s.step_.step(detail::watcher_input::WatchEnded{}, clock::now()));
      }
      {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        s.arm_idle_timer();  // it is alive
      }
      const auto& meta = event->object.metadata;
      detail::watcher_input::Event seen{.type = event->type,
                                        .resource_version = view(meta.resource_version)};
      if (event->type == WatchEventType::bookmark) {
        const auto end = meta.annotations.find("k8s.io/initial-events-end");
        seen.initial_events_end = end != meta.annotations.end() && end->second == "true";
      } else if (event->type == WatchEventType::error) {
        seen.status = &event->status;
      }
      perform(self, s.step_.step(seen, clock::now()), &event->object);
    }

    // Does what the step asks; `object` is that of the event it was given.
    template <class Self>
    void perform(Self& self, detail::WatcherAction action, object_type* object = nullptr) {
      namespace act = detail::watcher_action;
      BasicWatcher& s = *w;
      if (s.stream_ && !std::holds_alternative<detail::watcher_state::Watching>(s.step_.state())) {
        s.drop_stream();
      }
      if (const auto* emit = std::get_if<act::Emit>(&action)) {
        const bool carries = emit->type == WatcherEventType::init_apply ||
                             emit->type == WatcherEventType::apply ||
                             emit->type == WatcherEventType::deleted;
        s.pending_.push_back(carries && object != nullptr
                                 ? event_type{emit->type, std::move(*object)}
                                 : event_type{emit->type});
      } else if (const auto* wait = std::get_if<act::Wait>(&action)) {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        if (!s.canceled_) {
          s.timer_.expires_after(wait->delay);
          s.timer_.async_wait(std::move(self));
          return;
        }
      } else if (auto* list = std::get_if<act::List>(&action)) {
        return Source::list(s.api_, list->params, std::move(self));
      } else if (auto* watch = std::get_if<act::Watch>(&action)) {
        return Source::watch(s.api_, watch->params, std::move(self));
      } else if (std::holds_alternative<act::Read>(action)) {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        if (!s.canceled_) {
          s.stream_->async_next(std::move(self));
          return;
        }
      } else if (std::holds_alternative<act::Synced>(action)) {
        s.synced_.set(s.step_.version());
      } else if (auto* fail = std::get_if<act::Fail>(&action)) {
        return self.complete(std::move(fail->error), event_type{});
      }
      (*this)(self);  // go on (or, cancelled meanwhile, end)
    }

    // Through the client's executor, not the handler's: a future's would complete it on
    // another thread, unseen by a BlockingClient waiting on its own loop.
    template <class Self>
    void post(Self& self) {
      inline_guard.post(self, w->api_.client().get_executor());
    }

    template <class Self>
    void finish(Self& self, std::exception_ptr error) {
      if (inline_guard.inline_now()) {
        return post(self);
      }
      self.complete(std::move(error), event_type{});
    }
  };

  void drop_stream() {
    const std::lock_guard<std::mutex> lock(guard_->mutex);
    guard_->stream = nullptr;
    ++guard_->generation;
    guard_->stalled = false;
    idle_timer_.cancel();
    stream_.reset();
  }

  // (Re)starts the idle timeout of the open watch; guard_->mutex held. The handler may run
  // after the watcher is gone, so it holds only the guard, weakly.
  void arm_idle_timer() {
    const auto timeout = step_.idle_timeout();
    if (canceled_ || timeout == std::chrono::milliseconds::zero()) {
      return;
    }
    const std::uint64_t generation = ++guard_->generation;
    idle_timer_.expires_after(timeout);
    idle_timer_.async_wait(
        [weak = std::weak_ptr<Guard>(guard_), generation](boost::system::error_code ec) {
          const auto guard = weak.lock();
          if (ec || !guard) {
            return;
          }
          const std::lock_guard<std::mutex> lock(guard->mutex);
          if (guard->generation == generation && guard->stream != nullptr) {
            guard->stalled = true;
            guard->stream->cancel();
          }
        });
  }

  // True once after the idle timeout cancelled the stream.
  bool take_stall() {
    const std::lock_guard<std::mutex> lock(guard_->mutex);
    return std::exchange(guard_->stalled, false);
  }

  // Generic, so that an optional<kubex::String> (the models' metadata) is viewed in place, not
  // converted to a temporary optional<std::string> whose view would dangle.
  template <class Text>
  static std::string_view view(const std::optional<Text>& text) noexcept {
    return text ? std::string_view(*text) : std::string_view();
  }

  static std::string describe(const api_type& api) {
    std::string out(Source::plural(api));
    if (!api.namespace_name().empty()) {
      out.append(" in ").append(api.namespace_name());
    }
    return out;
  }

  api_type api_;
  detail::WatcherStep step_;  // what to do next; all the state but the I/O's
  // What cancel() and the idle timeout share with the operation; the timeout's handler holds
  // it weakly, as it may run after the watcher is gone.
  struct Guard {
    std::mutex mutex;  // canceled_, timer_, idle_timer_, stream_ and what is below
    client::WatchStream<object_type>* stream = nullptr;  // the open watch
    std::uint64_t generation = 0;                        // of the idle timer's arming
    bool stalled = false;                                // the idle timeout cancelled it
  };

  std::shared_ptr<Guard> guard_ = std::make_shared<Guard>();
  boost::asio::steady_timer timer_;       // the backoff delay
  boost::asio::steady_timer idle_timer_;  // the idle timeout of the open watch
  std::atomic<bool> canceled_{false};
  std::optional<client::WatchStream<object_type>> stream_;
  std::deque<event_type> pending_;
  std::string handed_out_;        // the version of the event just handed out, until taken in
  SyncedResourceVersion synced_;  // see synced_resource_version()
};

/// Watches full objects of T: `Watcher<Pod> w(Api<Pod>::all(client));`.
template <resource T>
using Watcher = BasicWatcher<detail::TypedSource<T, false>>;

/// Watches only the metadata of T's objects (PartialObjectMetadata): a fraction of the bytes
/// and memory, for controllers that need names, labels, owners and versions.
template <resource T>
using MetadataWatcher = BasicWatcher<detail::TypedSource<T, true>>;

/// Watches a resource known at run time (a custom resource found by Discovery, say) as
/// DynamicObject: `DynamicWatcher<ObjectMeta> w(DynamicApi<ObjectMeta>::all(client, r));`.
template <class Meta>
using DynamicWatcher = BasicWatcher<detail::DynamicSource<Meta>>;

}  // namespace kubex::runtime
