// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a watcher lists and watches (WatcherConfig), and what it has done so far (WatcherStats):
// shared by the watcher's rule (watcher_step.hpp) and its I/O (watcher.hpp).

#include <kubex/client/stream_items.hpp>
#include <kubex/runtime/backoff.hpp>
#include <kubex/runtime/counter.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

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

}  // namespace kubex::runtime
