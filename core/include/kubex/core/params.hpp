// SPDX-License-Identifier: Apache-2.0
#pragma once

// Options of API calls, as the apiserver names them in the query string or the DeleteOptions
// body. Every member has a default meaning "not sent", so designated initializers may name
// only what they set: `api.list({.label_selector = "app=web", .limit = 100})`.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kubex {

/// How the server treats fields a write does not know (`fieldValidation`).
enum class FieldValidation : std::uint8_t {
  server_default,  ///< Not sent: the server's default (Warn since 1.27).
  ignore,          ///< Drop unknown and duplicate fields silently.
  warn,            ///< Drop them and answer with a Warning header for each.
  strict,          ///< Fail the request with 400 naming them.
};

/// How a list or watch interprets `resourceVersion` (`resourceVersionMatch`).
enum class ResourceVersionMatch : std::uint8_t {
  unset,           ///< Not sent.
  not_older_than,  ///< Any data at least as new as resourceVersion (may come from the cache).
  exact,           ///< Data exactly at resourceVersion (lists only; fails with 410 if compacted).
};

/// What happens to dependents of a deleted object (`propagationPolicy`).
enum class PropagationPolicy : std::uint8_t {
  server_default,  ///< Not sent: the resource's default (usually background).
  orphan,          ///< Dependents are kept, their owner references removed.
  background,      ///< The object goes at once; the garbage collector removes dependents.
  foreground,      ///< The object stays (with a finalizer) until its dependents are gone.
};

/// `GET` of one object.
struct GetParams {
  /// resourceVersion: "" (not sent) reads the latest data from etcd; "0" allows any cached
  /// version.
  std::string resource_version{};
};

/// `GET` of a collection.
struct ListParams {
  /// labelSelector, e.g. "app=web,tier in (front,back)" (see kubex::LabelSelector).
  std::string label_selector{};
  /// fieldSelector, e.g. "status.phase=Running" (see kubex::FieldSelector).
  std::string field_selector{};
  /// limit: at most this many items per response; 0 is not sent (everything at once).
  std::int64_t limit = 0;
  /// continue: the token of the previous page.
  std::string continue_token{};
  /// resourceVersion; "" is not sent.
  std::string resource_version{};
  /// resourceVersionMatch (requires resource_version).
  ResourceVersionMatch resource_version_match = ResourceVersionMatch::unset;
  /// timeoutSeconds: the server's limit on the call.
  std::optional<std::int64_t> timeout_seconds{};
};

/// `GET ...?watch=true`.
struct WatchParams {
  /// labelSelector.
  std::string label_selector{};
  /// fieldSelector.
  std::string field_selector{};
  /// resourceVersion to start after (e.g. a list's metadata.resourceVersion: only changes
  /// after it are sent). "" and "0" start with synthetic ADDED events for every existing object
  /// ("" at the latest state, "0" at any state the cache holds).
  std::string resource_version{};
  /// resourceVersionMatch; sendInitialEvents requires not_older_than.
  ResourceVersionMatch resource_version_match = ResourceVersionMatch::unset;
  /// allowWatchBookmarks: let the server send BOOKMARK events carrying a resourceVersion.
  bool allow_bookmarks = false;
  /// sendInitialEvents: start with ADDED events for the current state, then a BOOKMARK with the
  /// annotation "k8s.io/initial-events-end" (requires allow_bookmarks and not_older_than).
  bool send_initial_events = false;
  /// timeoutSeconds: the server ends the watch after this long; unset lets it choose.
  std::optional<std::int64_t> timeout_seconds{};
  /// Not sent: the watch's idle timeout, as ClientOptions::stream_idle_timeout means it (a
  /// watch silent this long is presumed dead and fails with std::errc::timed_out; zero: none),
  /// used when the client's is unset. Unset: watch_idle_timeout(timeout_seconds), i.e.
  /// timeoutSeconds plus 30 s, or 3630 s without them (<kubex/core/request.hpp>).
  std::optional<std::chrono::milliseconds> idle_timeout{};
};

/// `POST` and `PUT` (create, replace, subresource writes).
struct PostParams {
  /// dryRun=All: validate and admit, but persist nothing.
  bool dry_run = false;
  /// fieldManager: who owns the fields this write sets (managedFields); "" is not sent.
  std::string field_manager{};
  /// fieldValidation.
  FieldValidation field_validation = FieldValidation::server_default;
};

/// `PATCH`, including server-side apply.
struct PatchParams {
  /// dryRun=All.
  bool dry_run = false;
  /// fieldManager; required by server-side apply.
  std::string field_manager{};
  /// fieldValidation.
  FieldValidation field_validation = FieldValidation::server_default;
  /// force=true: server-side apply takes fields other managers own instead of failing with
  /// 409 Conflict. Only valid with apply patches.
  bool force = false;
};

/// Conditions a delete checks atomically; it fails with 409 Conflict if one does not hold.
struct Preconditions {
  /// The object's metadata.uid must be this (guards against deleting a re-created object).
  std::optional<std::string> uid{};
  /// The object's metadata.resourceVersion must be this (nobody changed it since it was read).
  std::optional<std::string> resource_version{};
};

/// `DELETE` of one object or a collection: sent as a meta/v1 DeleteOptions body.
struct DeleteParams {
  /// dryRun: ["All"].
  bool dry_run = false;
  /// gracePeriodSeconds: 0 deletes a pod immediately; unset uses the object's own value.
  std::optional<std::int64_t> grace_period_seconds{};
  /// propagationPolicy.
  PropagationPolicy propagation_policy = PropagationPolicy::server_default;
  /// preconditions.
  Preconditions preconditions{};
};

/// `GET .../pods/NAME/log`: which log and how much of it.
struct LogParams {
  /// container: required when the pod has more than one.
  std::string container{};
  /// previous: the log of the container's previous, terminated instance.
  bool previous = false;
  /// sinceSeconds: only lines newer than this many seconds.
  std::optional<std::int64_t> since_seconds{};
  /// sinceTime (RFC 3339): only lines after this time; exclusive with since_seconds.
  std::string since_time{};
  /// tailLines: only the last N lines.
  std::optional<std::int64_t> tail_lines{};
  /// limitBytes: stop after this many bytes (the last line may be cut).
  std::optional<std::int64_t> limit_bytes{};
  /// timestamps: prefix each line with its RFC 3339 time.
  bool timestamps = false;
};

/// `.../pods/NAME/exec`: the command and which of its streams to connect.
struct ExecParams {
  /// command: the program and its arguments (required; no shell is implied).
  std::vector<std::string> command{};
  /// container: required when the pod has more than one.
  std::string container{};
  /// stdin: connect the process's standard input.
  bool with_stdin = false;
  /// stdout: receive its standard output.
  bool with_stdout = true;
  /// stderr: receive its standard error; must be false with a tty, which merges the two.
  bool with_stderr = true;
  /// tty: run it on a terminal (resizable through RemoteProcess::async_resize).
  bool tty = false;
};

/// `.../pods/NAME/attach`: which container and which of its main process's streams.
struct AttachParams {
  /// container: required when the pod has more than one.
  std::string container{};
  /// stdin: write to the process's standard input (the container needs `stdin: true`).
  bool with_stdin = false;
  /// stdout: receive its standard output from now on.
  bool with_stdout = true;
  /// stderr: receive its standard error; must be false with a tty.
  bool with_stderr = true;
  /// tty: the container runs on a terminal (`tty: true` in its spec).
  bool tty = false;
};

}  // namespace kubex
