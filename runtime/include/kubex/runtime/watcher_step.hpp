// SPDX-License-Identifier: Apache-2.0
#pragma once

// The watcher's rule without its I/O: (state, input) -> (state, action), as Boost.MySQL's
// sans-io algorithms and kube-rs's watcher state enum. BasicWatcher (watcher.hpp) is its shell:
// it performs each action (a list, a watch, a read, a wait) and feeds the result back. The
// objects themselves stay in the shell; the step sees only what it decides on (versions,
// continue tokens, event types, errors), so it is no template and is compiled once, in
// runtime/src/watcher_step.cpp. The promises W1-W10 it keeps are listed in watcher.hpp.

#include <kubex/core/api_error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/params.hpp>
#include <kubex/core/watch.hpp>
#include <kubex/runtime/backoff.hpp>
#include <kubex/runtime/watcher_config.hpp>
#include <kubex/runtime/watcher_event.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <variant>

namespace kubex::runtime::detail {

/// The watcher's phases, each with its own data.
namespace watcher_state {
/// Next: queue `init` and read the initial state (a list, or a watch with initial events).
struct Start {};
/// Listing page by page; `continue_token` is empty for the first page.
struct Listing {
  std::string continue_token{};
};
/// Next: open a watch from the last version (`initial`: one that first sends the current
/// objects). `delivered`: a watch since the last list began brought an event.
struct Watch {
  bool initial = false;
  bool delivered = false;
};
/// A watch is open (`initial`: its initial events are still coming); `started` and `events`
/// tell a watch the server ends at once from a healthy one.
struct Watching {
  bool initial = false;
  bool delivered = false;
  Backoff::clock::time_point started{};
  std::uint64_t events = 0;
};
}  // namespace watcher_state

/// A watcher's phase.
using WatcherState = std::variant<watcher_state::Start, watcher_state::Listing,
                                  watcher_state::Watch, watcher_state::Watching>;

/// What the shell tells the step.
namespace watcher_input {
/// Nothing is queued: what next? (The first call, after each result, after a wait.)
struct Proceed {};
/// A page of the list arrived (its items are init_apply events, unless the answer is Fail).
/// Empty strings: the page has none.
struct ListPage {
  std::string_view continue_token{};
  std::string_view resource_version{};
};
/// The list request failed.
struct ListFailed {
  std::exception_ptr error{};
};
/// The watch request was answered: the stream is open.
struct WatchOpened {};
/// The watch request failed.
struct WatchRefused {
  std::exception_ptr error{};
};
/// An event of the open watch, as far as the step needs it.
struct Event {
  WatchEventType type = WatchEventType::added;
  /// The object's metadata.resourceVersion; empty: none.
  std::string_view resource_version{};
  /// A bookmark annotated k8s.io/initial-events-end: "true".
  bool initial_events_end = false;
  /// Of an ERROR event; null otherwise.
  const Status* status = nullptr;
};
/// The server ended the watch cleanly.
struct WatchEnded {};
/// Reading the watch failed (the shell's idle timeout: an error of code timed_out).
struct WatchFailed {
  std::exception_ptr error{};
};
}  // namespace watcher_input

/// An input of the step.
using WatcherInput =
    std::variant<watcher_input::Proceed, watcher_input::ListPage, watcher_input::ListFailed,
                 watcher_input::WatchOpened, watcher_input::WatchRefused, watcher_input::Event,
                 watcher_input::WatchEnded, watcher_input::WatchFailed>;

/// What the step asks the shell to do. Whenever the state is no longer Watching, the shell
/// closes the open watch (before doing what the action says).
namespace watcher_action {
/// Nothing: hand out what is queued, then Proceed.
struct Proceed {};
/// Queue an event of `type`: init and init_done carry no object; init_apply, apply and
/// deleted carry the object of the Event input. After a ListPage: init_done, after its items.
struct Emit {
  WatcherEventType type = WatcherEventType::init;
};
/// Wait `delay` (the backoff), then Proceed.
struct Wait {
  std::chrono::milliseconds delay{};
};
/// List a page.
struct List {
  ListParams params{};
};
/// Open a watch.
struct Watch {
  WatchParams params{};
};
/// Read the next event of the open watch.
struct Read {};
/// The caller has caught up with version() (a bookmark after what it took in).
struct Synced {};
/// Hand `error` to the caller (nothing else of the input is queued).
struct Fail {
  std::exception_ptr error{};
};
}  // namespace watcher_action

/// What the step asks for.
using WatcherAction =
    std::variant<watcher_action::Proceed, watcher_action::Emit, watcher_action::Wait,
                 watcher_action::List, watcher_action::Watch, watcher_action::Read,
                 watcher_action::Synced, watcher_action::Fail>;

/// The watcher's rule: a phase, the last version seen, the backoff and the statistics, moved
/// by one input at a time. Time is passed in. Not thread-safe (stats() may be read anywhere).
class KUBEX_API WatcherStep {
 public:
  /// The clock of the inputs' time points.
  using clock = Backoff::clock;

  /// A step for `config`; `what` names the watched objects in errors ("pods in default").
  /// `seed` makes the backoff's and the watch timeout's jitter reproducible.
  WatcherStep(WatcherConfig config, std::string what, std::uint64_t seed = std::random_device{}());

  /// Takes `input` at `now`: the next state, and what to do.
  [[nodiscard]] WatcherAction step(const WatcherInput& input, clock::time_point now);

  /// The phase.
  [[nodiscard]] const WatcherState& state() const noexcept { return state_; }
  /// The last resourceVersion seen: the list's, then each event's and bookmark's.
  [[nodiscard]] const std::string& version() const noexcept { return version_; }
  /// The idle timeout of the current watch (its timeoutSeconds decide the default); zero: none.
  [[nodiscard]] std::chrono::milliseconds idle_timeout() const noexcept;
  /// The configuration.
  [[nodiscard]] const WatcherConfig& config() const noexcept { return config_; }
  /// What the watcher has done so far.
  [[nodiscard]] const WatcherStats& stats() const noexcept { return stats_; }
  /// What the watched objects are called in errors.
  [[nodiscard]] const std::string& what() const noexcept { return what_; }

 private:
  WatcherAction proceed(clock::time_point now);
  WatcherAction list_page(const watcher_input::ListPage& page, clock::time_point now);
  WatcherAction list_failed(std::exception_ptr error, clock::time_point now);
  WatcherAction watch_refused(std::exception_ptr error, clock::time_point now);
  WatcherAction event(const watcher_input::Event& event, clock::time_point now);
  WatcherAction initial_event(const watcher_input::Event& event, clock::time_point now);
  WatcherAction watch_ended(clock::time_point now);
  WatcherAction watch_failed(std::exception_ptr error, clock::time_point now);

  void back_off(clock::time_point now);
  void relist_after_gone(bool delivered, clock::time_point now);
  void resume();
  WatcherAction fail(std::exception_ptr error);
  std::optional<std::int64_t> next_watch_timeout();

  WatcherConfig config_;
  std::string what_;
  Backoff backoff_;
  std::mt19937_64 random_;
  WatcherState state_{};
  std::string version_;
  bool watch_list_refused_ = false;  // the server refused a watch with initial events: list
  std::chrono::milliseconds delay_{0};
  std::int64_t watch_timeout_ = 0;  // timeoutSeconds of the current watch; 0: none
  WatcherStats stats_;
};

}  // namespace kubex::runtime::detail
