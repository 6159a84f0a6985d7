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
// Built on kubex::client's public Api<T> only.

#include <kubex/client/api.hpp>
#include <kubex/client/dynamic.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/dynamic.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/params.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/watch.hpp>
#include <kubex/runtime/backoff.hpp>
#include <kubex/runtime/counter.hpp>
#include <kubex/runtime/resource_version.hpp>
#include <kubex/runtime/watcher_event.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace kubex::runtime {

/// How a watcher gets the state it starts from.
enum class InitialState : std::uint8_t {
  /// A paged LIST, then a watch from its resourceVersion.
  list,
  /// One watch that first sends the current objects (sendInitialEvents, the "WatchList" or
  /// streaming list of Kubernetes 1.32+), ending at the bookmark annotated
  /// k8s.io/initial-events-end. A server that refuses it is listed instead, from then on.
  watch_list,
};

/// How a watcher lists and watches. The defaults follow client-go's reflector.
struct WatcherConfig {
  /// labelSelector of the list and the watch.
  std::string label_selector{};
  /// fieldSelector of the list and the watch.
  std::string field_selector{};
  /// How the initial state (and each relist) is read.
  InitialState initial_state = InitialState::list;
  /// Objects per page of the initial list (and of each relist); 0 lists everything at once.
  std::int64_t page_size = 500;
  /// timeoutSeconds of each watch: the server ends it after this long and the watcher resumes
  /// it. With jitter, drawn from [watch_timeout, 2 * watch_timeout), so that many watchers do
  /// not reconnect at once. Zero sends none: the apiserver's --min-request-timeout decides
  /// (it ends each watch after 1 to 2 times that, jittered by itself).
  std::chrono::seconds watch_timeout{300};
  /// See watch_timeout.
  bool jitter_watch_timeout = true;
  /// The delays after failures.
  BackoffPolicy backoff{};
  /// A watch the server ends this soon without a single event counts as a failure (backoff),
  /// so that a server that accepts and closes at once does not make a hot loop.
  std::chrono::milliseconds very_short_watch{1000};
  /// A watch that brings nothing (no event, no bookmark) for this long is presumed dead (a
  /// connection black-holed by the network: HTTP/1.1 has no health check of its own), torn
  /// down, reported as a timeout and resumed. It means what ClientOptions::stream_idle_timeout
  /// means. Unset (the default): kubex::watch_idle_timeout of the watch's timeoutSeconds, i.e.
  /// those plus 30 s, by which time a live server has ended it; without timeoutSeconds
  /// (watch_timeout zero), 3630 s, by which time a server with the default
  /// --min-request-timeout (1800 s) has ended it. Zero: none. Bookmarks come about every
  /// minute from a live server: set it shorter to find a dead connection sooner.
  std::optional<std::chrono::milliseconds> idle_timeout{};
  /// The largest event accepted; a larger one is reported (Failure::too_large()) and the
  /// watcher lists again after the backoff delay, as the same event would come again on a
  /// resumed watch (see client::default_max_watch_event_size; 0: no limit).
  std::size_t max_event_size = client::default_max_watch_event_size;
};

/// What a watcher has done so far. Any thread may read it while the watcher runs.
struct WatcherStats {
  /// LIST requests (pages count one each).
  Counter list_requests = 0;
  /// Watch requests.
  Counter watch_requests = 0;
  /// Relists because the server no longer had the resourceVersion (410 Gone / Expired).
  Counter relists = 0;
  /// Relists because the server did not have the resourceVersion yet (ResourceVersionTooLarge,
  /// is_resource_version_too_large), each after the backoff delay.
  Counter too_large_versions = 0;
  /// Failures reported through async_next.
  Counter errors = 0;
  /// Watches torn down because they stayed silent past the idle timeout (the watcher's, or
  /// the client's: a read that failed with std::errc::timed_out).
  Counter stalls = 0;
  /// Events that did not decode (Failure kind decode): each reported, the watch resumed
  /// before it.
  Counter decode_errors = 0;
  /// Events over max_event_size (Failure::too_large()): each reported, then a relist.
  Counter oversized_events = 0;
  /// Times the server refused a watch with initial events, so the watcher listed instead.
  Counter watch_list_refusals = 0;
  /// Watches the server ended too soon, without an event (see very_short_watch).
  Counter short_watches = 0;
};

namespace detail {

// A watch's ERROR event as the error a failed request would have given.
inline std::exception_ptr watch_error(const Status& status, std::string_view what) {
  const unsigned code = status.code > 0 ? static_cast<unsigned>(status.code) : 500U;
  // The Status as the server would have answered it (its details are not kept).
  const std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":)" +
                           json::encode(status.message) + R"(,"reason":)" +
                           json::encode(status.reason) + R"(,"code":)" + std::to_string(code) + "}";
  return std::make_exception_ptr(ApiError::from_response("GET", what, code, body));
}

inline bool gone_status(const Status& status) noexcept {
  return status.code == 410 || status.reason == "Expired" || status.reason == "Gone";
}

// The server does not have the version yet: relist after a delay, as client-go's reflector.
inline bool too_large_version(const Failure& failure) noexcept {
  const ApiError* api = failure.api_error();
  return api != nullptr && is_resource_version_too_large(*api);
}

// A server that does not serve watches with initial events answers the request itself with a
// client error (an unknown or invalid parameter); anything else is a failure to retry.
inline bool refuses_watch_list(const Failure& failure) noexcept {
  const ApiError* api = failure.api_error();
  if (api == nullptr) {
    return false;
  }
  const unsigned code = api->http_status();
  return code == 400 || code == 405 || code == 422;
}

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
        config_(std::move(config)),
        backoff_(config_.backoff),
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
  template <class CompletionToken>
  auto async_next(CompletionToken&& token) {
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
  [[nodiscard]] const std::string& resource_version() const noexcept { return version_; }
  /// The resourceVersion its caller has caught up with, readable and awaitable from any thread:
  /// that of the last init_done, apply or deleted it handed out, once the caller asked for the
  /// next event (a reflector has stored it by then), or of a bookmark after them. Empty until
  /// the first init_done was taken in; a relist leaves it until its own init_done.
  [[nodiscard]] const SyncedResourceVersion& synced_resource_version() const noexcept {
    return synced_;
  }
  /// What the watcher has done so far; any thread may read it meanwhile.
  [[nodiscard]] const WatcherStats& stats() const noexcept { return stats_; }
  /// The Api it watches through.
  [[nodiscard]] const api_type& api() const noexcept { return api_; }

 private:
  enum class Phase : std::uint8_t { start, listing, watch, watching };
  using clock = Backoff::clock;

  struct NextOp {
    BasicWatcher* w;
    // False until this operation has waited for something: completing before that would run
    // the caller's handler inside async_next, so the result is posted instead.
    bool waited = false;

    // Delivers a pending event, or takes the next step.
    template <class Self>
    void operator()(Self& self) {
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return finish(
            self, std::make_exception_ptr(
                      Error(make_error_code(std::errc::operation_canceled), "watcher: canceled")));
      }
      if (!s.pending_.empty()) {
        if (!waited) {
          return post(self);
        }
        event_type event = std::move(s.pending_.front());
        s.pending_.pop_front();
        if (event.type != WatcherEventType::init && event.type != WatcherEventType::init_apply) {
          s.handed_out_ = s.version_;  // nothing was read since it was queued: still its version
        }
        self.complete(nullptr, std::move(event));
        return;
      }
      if (s.delay_ > std::chrono::milliseconds::zero()) {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        if (!s.canceled_) {
          s.timer_.expires_after(std::exchange(s.delay_, std::chrono::milliseconds::zero()));
          s.timer_.async_wait(std::move(self));
          return;
        }
      }
      switch (s.phase_) {
        case Phase::start:
          s.continue_.clear();
          s.watched_since_list_ = false;
          s.initializing_ =
              s.config_.initial_state == InitialState::watch_list && !s.watch_list_refused_;
          s.phase_ = s.initializing_ ? Phase::watch : Phase::listing;
          s.pending_.push_back(event_type{WatcherEventType::init});
          return (*this)(self);
        case Phase::listing: {
          ++s.stats_.list_requests;
          const ListParams params{.label_selector = s.config_.label_selector,
                                  .field_selector = s.config_.field_selector,
                                  .limit = s.config_.page_size,
                                  .continue_token = s.continue_};
          Source::list(s.api_, params, std::move(self));
          return;
        }
        case Phase::watch: {
          ++s.stats_.watch_requests;
          WatchParams params{.label_selector = s.config_.label_selector,
                             .field_selector = s.config_.field_selector,
                             .resource_version = s.version_,
                             .allow_bookmarks = true,
                             .timeout_seconds = s.watch_timeout()};
          // The client's idle timeout of the stream is the watcher's (unless the
          // ClientOptions set one for every stream); either that finds a dead one counts.
          params.idle_timeout = s.idle_timeout();
          if (s.initializing_) {
            // The current state, as a quorum read would see it, then the changes after it.
            params.resource_version.clear();
            params.resource_version_match = ResourceVersionMatch::not_older_than;
            params.send_initial_events = true;
          }
          Source::watch(s.api_, params, std::move(self));
          return;
        }
        case Phase::watching: {
          const std::lock_guard<std::mutex> lock(s.guard_->mutex);
          if (!s.canceled_) {
            s.stream_->async_next(std::move(self));
            return;
          }
          break;
        }
      }
      (*this)(self);  // canceled meanwhile
    }

    // The backoff delay has passed (or was cancelled).
    template <class Self>
    void operator()(Self& self, boost::system::error_code /*ec*/) {
      waited = true;
      (*this)(self);
    }

    // A page of the list.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, list_type page) {
      waited = true;
      BasicWatcher& s = *w;
      if (!error && !s.canceled_) {
        for (auto& item : page.items) {
          s.pending_.push_back(event_type{WatcherEventType::init_apply, std::move(item)});
        }
        const auto& next = page.metadata.continue_;
        if (next && !next->empty()) {
          s.continue_ = *next;
        } else if (page.metadata.resource_version && !page.metadata.resource_version->empty()) {
          s.version_ = *page.metadata.resource_version;
          s.pending_.push_back(event_type{WatcherEventType::init_done});
          s.phase_ = Phase::watch;
        } else {
          error = std::make_exception_ptr(
              Error(make_error_code(std::errc::protocol_error),
                    "watcher: the list has no metadata.resourceVersion to watch from"));
        }
      }
      if (error && !s.canceled_) {
        // Start over with a fresh init: what was listed so far is incomplete. An expired
        // continue token (410), or a version the server does not have yet, is the server's
        // doing, not the caller's news.
        s.pending_.clear();
        s.phase_ = Phase::start;
        s.back_off();
        const Failure failure(error);
        if (failure.gone()) {
          ++s.stats_.relists;
          return (*this)(self);
        }
        if (detail::too_large_version(failure)) {
          ++s.stats_.too_large_versions;
          return (*this)(self);
        }
        return s.fail(self, std::move(error));
      }
      (*this)(self);
    }

    // The watch was opened, or refused.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, client::WatchStream<object_type> stream) {
      waited = true;
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return (*this)(self);
      }
      if (error) {
        const Failure failure(error);
        if (failure.gone()) {
          ++s.stats_.relists;
          s.relist_after_gone();
          return (*this)(self);
        }
        if (detail::too_large_version(failure)) {
          ++s.stats_.too_large_versions;
          s.phase_ = Phase::start;  // the server lags: list (a quorum read), after a delay
          s.back_off();
          return (*this)(self);
        }
        if (s.initializing_ && detail::refuses_watch_list(failure)) {
          // A server without WatchList: list instead (init was delivered already).
          ++s.stats_.watch_list_refusals;
          s.watch_list_refused_ = true;
          s.initializing_ = false;
          s.phase_ = Phase::listing;
          return (*this)(self);
        }
        // Resume from the same version (or start the initial state again), later.
        s.phase_ = s.resume_phase();
        s.back_off();
        return s.fail(self, std::move(error));
      }
      stream.set_max_item_size(s.config_.max_event_size);
      {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        s.stream_.emplace(std::move(stream));
        s.guard_->stream = &*s.stream_;
        s.arm_idle_timer();
      }
      s.stream_started_ = clock::now();
      s.stream_events_ = 0;
      s.phase_ = Phase::watching;
      (*this)(self);
    }

    // The next event of the watch, its clean end, or a failure.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error,
                    std::optional<WatchEvent<object_type>> event) {
      waited = true;
      BasicWatcher& s = *w;
      if (s.canceled_) {
        return (*this)(self);
      }
      if (error && s.take_stall()) {
        ++s.stats_.stalls;
        error = std::make_exception_ptr(Error(
            make_error_code(std::errc::timed_out),
            "watch of " + s.describe() + ": nothing received for " +
                std::to_string(s.idle_timeout().count()) + " ms; the connection is presumed dead"));
      } else if (error && Failure(error).code() == std::errc::timed_out) {
        ++s.stats_.stalls;  // the client's idle timeout (or HTTP/2 health check) found it
      }
      if (error) {
        const Failure failure(error);
        if (failure.too_large()) {
          // The same event would come again on a resumed watch: list instead, where the
          // object is one item of a body (ClientOptions::max_body_size), after the delay.
          ++s.stats_.oversized_events;
          s.drop_stream(Phase::start);
          s.back_off();
          return s.fail(self, std::move(error));
        }
        if (failure.kind() == failure_kind::decode) {
          ++s.stats_.decode_errors;
        }
        // A stream that failed or sent what does not decode: drop it and resume from the last
        // version that was delivered, never skipping past the bad event.
        s.drop_stream(s.resume_phase());
        s.back_off();
        return s.fail(self, std::move(error));
      }
      if (!event) {
        const bool very_short =
            s.stream_events_ == 0 && clock::now() - s.stream_started_ < s.config_.very_short_watch;
        s.drop_stream(s.resume_phase());
        if (very_short) {
          ++s.stats_.short_watches;
          s.back_off();
        }
        return (*this)(self);
      }
      ++s.stream_events_;
      {
        const std::lock_guard<std::mutex> lock(s.guard_->mutex);
        s.arm_idle_timer();  // it is alive
      }
      if (event->type != WatchEventType::error && !s.initializing_) {
        s.watched_since_list_ = true;
      }
      if (s.initializing_ && event->type != WatchEventType::error) {
        if (auto failure = s.initial_event(std::move(*event))) {
          return s.fail(self, std::move(failure));
        }
        return (*this)(self);
      }
      switch (event->type) {
        case WatchEventType::added:
        case WatchEventType::modified:
        case WatchEventType::deleted: {
          const auto& version = event->object.metadata.resource_version;
          if (!version || version->empty()) {
            s.drop_stream(Phase::start);
            s.back_off();
            return s.fail(self, std::make_exception_ptr(Error(
                                    make_error_code(std::errc::protocol_error),
                                    "watcher: a watch event without metadata.resourceVersion")));
          }
          s.version_ = *version;
          s.pending_.push_back(event_type{event->type == WatchEventType::deleted
                                              ? WatcherEventType::deleted
                                              : WatcherEventType::apply,
                                          std::move(event->object)});
          break;
        }
        case WatchEventType::bookmark: {
          const auto& version = event->object.metadata.resource_version;
          if (version && !version->empty()) {
            s.version_ = *version;
            s.synced_.set(s.version_);  // all before it was taken in: this call asks for more
          }
          break;
        }
        case WatchEventType::error:
          if (detail::gone_status(event->status)) {
            ++s.stats_.relists;
            s.drop_stream(Phase::start);
            s.relist_after_gone();
            break;
          }
          if (is_resource_version_too_large(event->status)) {
            // As the cache of kube-apiserver answers a watch from a version it does not have
            // yet (after waiting for it): an ERROR event. List, after a delay.
            ++s.stats_.too_large_versions;
            s.drop_stream(Phase::start);
            s.back_off();
            break;
          }
          s.drop_stream(s.resume_phase());
          s.back_off();
          return s.fail(self, detail::watch_error(event->status, "watch of " + s.describe()));
      }
      (*this)(self);
    }

    // Through the client's executor, not the handler's: a future's would complete it on
    // another thread, unseen by a BlockingClient waiting on its own loop.
    template <class Self>
    void post(Self& self) {
      waited = true;
      boost::asio::post(w->api_.client().get_executor(), std::move(self));
    }

    template <class Self>
    void finish(Self& self, std::exception_ptr error) {
      if (!waited) {
        return post(self);
      }
      self.complete(std::move(error), event_type{});
    }
  };

  // An event of a watch's initial state: objects until the bookmark that ends it. The version
  // stays where it is until then: initial events are not in resourceVersion order.
  std::exception_ptr initial_event(WatchEvent<object_type> event) {
    const auto& meta = event.object.metadata;
    switch (event.type) {
      case WatchEventType::added:
        pending_.push_back(event_type{WatcherEventType::init_apply, std::move(event.object)});
        break;
      case WatchEventType::bookmark: {
        const auto end = meta.annotations.find("k8s.io/initial-events-end");
        if (end != meta.annotations.end() && end->second == "true" && meta.resource_version &&
            !meta.resource_version->empty()) {
          version_ = *meta.resource_version;
          initializing_ = false;
          pending_.push_back(event_type{WatcherEventType::init_done});
        }
        break;
      }
      default:
        // Changes come after the end bookmark; one before it means the state is not what
        // the server promised. Start again.
        drop_stream(Phase::start);
        back_off();
        return std::make_exception_ptr(
            Error(make_error_code(std::errc::protocol_error),
                  "watcher: a change among the initial events of " + describe()));
    }
    return nullptr;
  }

  // The next attempt waits the next backoff delay.
  void back_off() { delay_ = backoff_.next(clock::now()); }

  // After a 410: list again, at once when a watch since the last list delivered something (the
  // version aged out while it was in use), after the backoff delay otherwise, so that a server
  // that answers every watch with 410 does not make a list-watch-410 loop.
  void relist_after_gone() {
    phase_ = Phase::start;
    if (!watched_since_list_) {
      back_off();
    }
  }

  [[nodiscard]] Phase resume_phase() const noexcept {
    return initializing_ ? Phase::start : Phase::watch;
  }

  template <class Self>
  void fail(Self& self, std::exception_ptr error) {
    ++stats_.errors;
    self.complete(std::move(error), event_type{});
  }

  void drop_stream(Phase next) {
    const std::lock_guard<std::mutex> lock(guard_->mutex);
    guard_->stream = nullptr;
    ++guard_->generation;
    guard_->stalled = false;
    idle_timer_.cancel();
    stream_.reset();
    phase_ = next;
  }

  // The idle timeout of the current watch; zero: none.
  [[nodiscard]] std::chrono::milliseconds idle_timeout() const {
    if (config_.idle_timeout) {
      return std::max(*config_.idle_timeout, std::chrono::milliseconds::zero());
    }
    // What the client gives a watch by default: the same limit, whichever notices first.
    return watch_idle_timeout(watch_timeout_ > 0 ? std::optional<std::int64_t>(watch_timeout_)
                                                 : std::nullopt);
  }

  // (Re)starts the idle timeout of the open watch; guard_->mutex held. The handler may run
  // after the watcher is gone, so it holds only the guard, weakly.
  void arm_idle_timer() {
    if (canceled_ || idle_timeout() == std::chrono::milliseconds::zero()) {
      return;
    }
    const std::uint64_t generation = ++guard_->generation;
    idle_timer_.expires_after(idle_timeout());
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

  // timeoutSeconds of the next watch; none lets the server choose.
  [[nodiscard]] std::optional<std::int64_t> watch_timeout() {
    const auto base = config_.watch_timeout.count();
    watch_timeout_ = base;
    if (config_.jitter_watch_timeout && base > 0) {
      std::uniform_int_distribution<std::int64_t> spread(0, base - 1);
      watch_timeout_ = base + spread(random_);
    }
    if (watch_timeout_ <= 0) {
      return std::nullopt;
    }
    return watch_timeout_;
  }

  [[nodiscard]] std::string describe() const {
    std::string out(Source::plural(api_));
    if (!api_.namespace_name().empty()) {
      out.append(" in ").append(api_.namespace_name());
    }
    return out;
  }

  api_type api_;
  WatcherConfig config_;
  Backoff backoff_;
  std::mt19937_64 random_{std::random_device{}()};
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
  Phase phase_ = Phase::start;
  bool initializing_ = false;        // reading a watch's initial events (InitialState::watch_list)
  bool watch_list_refused_ = false;  // the server refused that: list
  bool watched_since_list_ = false;  // a watch delivered an event since the last (re)list began
  std::string continue_;
  std::string version_;
  std::string handed_out_;        // the version of the event just handed out, until taken in
  SyncedResourceVersion synced_;  // see synced_resource_version()
  std::chrono::milliseconds delay_{0};
  std::int64_t watch_timeout_ = 0;  // timeoutSeconds of the current watch; 0: none
  clock::time_point stream_started_{};
  std::uint64_t stream_events_ = 0;
  WatcherStats stats_;
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
