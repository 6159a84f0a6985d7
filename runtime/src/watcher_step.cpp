// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/request.hpp>
#include <kubex/runtime/watcher_step.hpp>

#include <algorithm>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <utility>

namespace kubex::runtime::detail {

namespace {

// A watch's ERROR event as the error a failed request would have given.
std::exception_ptr watch_error(const Status& status, std::string_view what) {
  const unsigned code = status.code > 0 ? static_cast<unsigned>(status.code) : 500U;
  // The Status as the server would have answered it (its details are not kept).
  const std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":)" +
                           json::encode(status.message) + R"(,"reason":)" +
                           json::encode(status.reason) + R"(,"code":)" + std::to_string(code) + "}";
  return std::make_exception_ptr(ApiError::from_response("GET", what, code, body));
}

bool gone_status(const Status& status) noexcept {
  return status.code == 410 || status.reason == "Expired" || status.reason == "Gone";
}

// The server does not have the version yet: relist after a delay, as client-go's reflector.
bool too_large_version(const Failure& failure) noexcept {
  const ApiError* api = failure.api_error();
  return api != nullptr && is_resource_version_too_large(*api);
}

// A server that does not serve watches with initial events answers the request itself with a
// client error (an unknown or invalid parameter); anything else is a failure to retry.
bool refuses_watch_list(const Failure& failure) noexcept {
  const ApiError* api = failure.api_error();
  if (api == nullptr) {
    return false;
  }
  const unsigned code = api->http_status();
  return code == 400 || code == 405 || code == 422;
}

std::exception_ptr protocol_error(std::string message) {
  return std::make_exception_ptr(
      Error(make_error_code(std::errc::protocol_error), std::move(message)));
}

// The phase an input belongs to; any other is the shell's bug.
template <class Phase>
Phase& expect(WatcherState& state, const char* input) {
  if (auto* phase = std::get_if<Phase>(&state)) {
    return *phase;
  }
  throw std::logic_error(std::string("watcher step: ") + input + " in the wrong phase");
}

}  // namespace

WatcherStep::WatcherStep(WatcherConfig config, std::string what, std::uint64_t seed)
    : config_(std::move(config)),
      what_(std::move(what)),
      backoff_(config_.backoff, seed),
      random_(seed ^ 0x9e3779b97f4a7c15ULL) {}

WatcherAction WatcherStep::step(const WatcherInput& input, clock::time_point now) {
  return std::visit(
      [&](const auto& in) -> WatcherAction {
        using In = std::decay_t<decltype(in)>;
        if constexpr (std::is_same_v<In, watcher_input::Proceed>) {
          return proceed(now);
        } else if constexpr (std::is_same_v<In, watcher_input::ListPage>) {
          return list_page(in, now);
        } else if constexpr (std::is_same_v<In, watcher_input::ListFailed>) {
          expect<watcher_state::Listing>(state_, "a list failure");
          return list_failed(in.error, now);
        } else if constexpr (std::is_same_v<In, watcher_input::WatchOpened>) {
          const auto opening = expect<watcher_state::Watch>(state_, "an opened watch");
          state_ = watcher_state::Watching{.initial = opening.initial,
                                           .delivered = opening.delivered,
                                           .started = now,
                                           .events = 0};
          return watcher_action::Proceed{};
        } else if constexpr (std::is_same_v<In, watcher_input::WatchRefused>) {
          return watch_refused(in.error, now);
        } else if constexpr (std::is_same_v<In, watcher_input::Event>) {
          return event(in, now);
        } else if constexpr (std::is_same_v<In, watcher_input::WatchEnded>) {
          return watch_ended(now);
        } else {
          static_assert(std::is_same_v<In, watcher_input::WatchFailed>);
          return watch_failed(in.error, now);
        }
      },
      input);
}

WatcherAction WatcherStep::proceed(clock::time_point /*now*/) {
  if (delay_ > std::chrono::milliseconds::zero()) {
    return watcher_action::Wait{std::exchange(delay_, std::chrono::milliseconds::zero())};
  }
  if (std::holds_alternative<watcher_state::Start>(state_)) {
    // The whole state again: from a list, or from a watch's initial events.
    if (config_.initial_state == InitialState::watch_list && !watch_list_refused_) {
      state_ = watcher_state::Watch{.initial = true};
    } else {
      state_ = watcher_state::Listing{};
    }
    return watcher_action::Emit{WatcherEventType::init};
  }
  if (const auto* listing = std::get_if<watcher_state::Listing>(&state_)) {
    ++stats_.list_requests;
    return watcher_action::List{ListParams{.label_selector = config_.label_selector,
                                           .field_selector = config_.field_selector,
                                           .limit = config_.page_size,
                                           .continue_token = listing->continue_token}};
  }
  if (const auto* watch = std::get_if<watcher_state::Watch>(&state_)) {
    ++stats_.watch_requests;
    WatchParams params{.label_selector = config_.label_selector,
                       .field_selector = config_.field_selector,
                       .resource_version = version_,
                       .allow_bookmarks = true,
                       .timeout_seconds = next_watch_timeout()};
    // The client's idle timeout of the stream is the watcher's (unless the ClientOptions set
    // one for every stream); either that finds a dead one counts.
    params.idle_timeout = idle_timeout();
    if (watch->initial) {
      // The current state, as a quorum read would see it, then the changes after it.
      params.resource_version.clear();
      params.resource_version_match = ResourceVersionMatch::not_older_than;
      params.send_initial_events = true;
    }
    return watcher_action::Watch{std::move(params)};
  }
  return watcher_action::Read{};
}

WatcherAction WatcherStep::list_page(const watcher_input::ListPage& page, clock::time_point now) {
  expect<watcher_state::Listing>(state_, "a list page");
  if (!page.continue_token.empty()) {
    state_ = watcher_state::Listing{std::string(page.continue_token)};
    return watcher_action::Proceed{};
  }
  if (!page.resource_version.empty()) {
    version_ = page.resource_version;
    state_ = watcher_state::Watch{};
    return watcher_action::Emit{WatcherEventType::init_done};
  }
  return list_failed(
      protocol_error("watcher: the list has no metadata.resourceVersion to watch from"), now);
}

WatcherAction WatcherStep::list_failed(std::exception_ptr error, clock::time_point now) {
  // Start over with a fresh init: what was listed so far is incomplete. An expired continue
  // token (410), or a version the server does not have yet, is the server's doing, not the
  // caller's news.
  state_ = watcher_state::Start{};
  back_off(now);
  const Failure failure(error);
  if (failure.gone()) {
    ++stats_.relists;
    return watcher_action::Proceed{};
  }
  if (too_large_version(failure)) {
    ++stats_.too_large_versions;
    return watcher_action::Proceed{};
  }
  return fail(std::move(error));
}

WatcherAction WatcherStep::watch_refused(std::exception_ptr error, clock::time_point now) {
  const auto watch = expect<watcher_state::Watch>(state_, "a refused watch");
  const Failure failure(error);
  if (failure.gone()) {
    ++stats_.relists;
    relist_after_gone(watch.delivered, now);
    return watcher_action::Proceed{};
  }
  if (too_large_version(failure)) {
    ++stats_.too_large_versions;
    state_ = watcher_state::Start{};  // the server lags: list (a quorum read), after a delay
    back_off(now);
    return watcher_action::Proceed{};
  }
  if (watch.initial && refuses_watch_list(failure)) {
    // A server without WatchList: list instead (init was delivered already).
    ++stats_.watch_list_refusals;
    watch_list_refused_ = true;
    state_ = watcher_state::Listing{};
    return watcher_action::Proceed{};
  }
  // Resume from the same version (or start the initial state again), later.
  resume();
  back_off(now);
  return fail(std::move(error));
}

WatcherAction WatcherStep::event(const watcher_input::Event& event, clock::time_point now) {
  auto& watching = expect<watcher_state::Watching>(state_, "a watch event");
  ++watching.events;
  if (event.type != WatchEventType::error && !watching.initial) {
    watching.delivered = true;
  }
  if (watching.initial && event.type != WatchEventType::error) {
    return initial_event(event, now);
  }
  switch (event.type) {
    case WatchEventType::added:
    case WatchEventType::modified:
    case WatchEventType::deleted:
      if (event.resource_version.empty()) {
        state_ = watcher_state::Start{};
        back_off(now);
        return fail(protocol_error("watcher: a watch event without metadata.resourceVersion"));
      }
      version_ = event.resource_version;
      return watcher_action::Emit{event.type == WatchEventType::deleted ? WatcherEventType::deleted
                                                                        : WatcherEventType::apply};
    case WatchEventType::bookmark:
      if (!event.resource_version.empty()) {
        version_ = event.resource_version;
        return watcher_action::Synced{};  // all before it was taken in: the caller asks for more
      }
      return watcher_action::Proceed{};
    case WatchEventType::error:
      break;
  }
  static const Status none{};
  const Status& status = event.status != nullptr ? *event.status : none;
  if (gone_status(status)) {
    ++stats_.relists;
    relist_after_gone(watching.delivered, now);
    return watcher_action::Proceed{};
  }
  if (is_resource_version_too_large(status)) {
    // As the cache of kube-apiserver answers a watch from a version it does not have yet
    // (after waiting for it): an ERROR event. List, after a delay.
    ++stats_.too_large_versions;
    state_ = watcher_state::Start{};
    back_off(now);
    return watcher_action::Proceed{};
  }
  resume();
  back_off(now);
  return fail(watch_error(status, "watch of " + what_));
}

// An event of a watch's initial state: objects until the bookmark that ends it. The version
// stays where it is until then: initial events are not in resourceVersion order.
WatcherAction WatcherStep::initial_event(const watcher_input::Event& event, clock::time_point now) {
  switch (event.type) {
    case WatchEventType::added:
      return watcher_action::Emit{WatcherEventType::init_apply};
    case WatchEventType::bookmark:
      if (event.initial_events_end && !event.resource_version.empty()) {
        version_ = event.resource_version;
        std::get<watcher_state::Watching>(state_).initial = false;
        return watcher_action::Emit{WatcherEventType::init_done};
      }
      return watcher_action::Proceed{};
    default:
      // Changes come after the end bookmark; one before it means the state is not what the
      // server promised. Start again.
      state_ = watcher_state::Start{};
      back_off(now);
      return fail(protocol_error("watcher: a change among the initial events of " + what_));
  }
}

WatcherAction WatcherStep::watch_ended(clock::time_point now) {
  const auto watching = expect<watcher_state::Watching>(state_, "an ended watch");
  const bool very_short = watching.events == 0 && now - watching.started < config_.very_short_watch;
  resume();
  if (very_short) {
    // A server that accepts a watch and closes it at once must not make a hot loop.
    ++stats_.short_watches;
    back_off(now);
  }
  return watcher_action::Proceed{};
}

WatcherAction WatcherStep::watch_failed(std::exception_ptr error, clock::time_point now) {
  expect<watcher_state::Watching>(state_, "a failed watch");
  const Failure failure(error);
  if (failure.code() == std::errc::timed_out) {
    ++stats_.stalls;  // the idle timeout (the shell's, the client's, or HTTP/2's health check)
  }
  if (failure.too_large()) {
    // The same event would come again on a resumed watch: list instead, where the object is
    // one item of a body (ClientOptions::max_body_size), after the delay.
    ++stats_.oversized_events;
    state_ = watcher_state::Start{};
    back_off(now);
    return fail(std::move(error));
  }
  if (failure.kind() == failure_kind::decode) {
    ++stats_.decode_errors;
  }
  // A stream that failed or sent what does not decode: resume from the last version that was
  // delivered, never skipping past the bad event.
  resume();
  back_off(now);
  return fail(std::move(error));
}

// The next attempt waits the next backoff delay.
void WatcherStep::back_off(clock::time_point now) {
  delay_ = backoff_.next(now);
}

// After a 410: list again, at once when a watch since the last list delivered something (the
// version aged out while it was in use), after the backoff delay otherwise, so that a server
// that answers every watch with 410 does not make a list-watch-410 loop.
void WatcherStep::relist_after_gone(bool delivered, clock::time_point now) {
  state_ = watcher_state::Start{};
  if (!delivered) {
    back_off(now);
  }
}

// A watch from the last version; while reading a watch's initial events, the initial state
// again.
void WatcherStep::resume() {
  bool initial = false;
  bool delivered = false;
  if (const auto* watch = std::get_if<watcher_state::Watch>(&state_)) {
    initial = watch->initial;
    delivered = watch->delivered;
  } else if (const auto* watching = std::get_if<watcher_state::Watching>(&state_)) {
    initial = watching->initial;
    delivered = watching->delivered;
  }
  if (initial) {
    state_ = watcher_state::Start{};
  } else {
    state_ = watcher_state::Watch{.initial = false, .delivered = delivered};
  }
}

WatcherAction WatcherStep::fail(std::exception_ptr error) {
  ++stats_.errors;
  return watcher_action::Fail{std::move(error)};
}

std::chrono::milliseconds WatcherStep::idle_timeout() const noexcept {
  if (config_.idle_timeout) {
    return std::max(*config_.idle_timeout, std::chrono::milliseconds::zero());
  }
  // What the client gives a watch by default: the same limit, whichever notices first.
  return watch_idle_timeout(watch_timeout_ > 0 ? std::optional<std::int64_t>(watch_timeout_)
                                               : std::nullopt);
}

// timeoutSeconds of the next watch; none lets the server choose.
std::optional<std::int64_t> WatcherStep::next_watch_timeout() {
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

}  // namespace kubex::runtime::detail
