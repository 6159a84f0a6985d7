// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reflector for code without an event loop, beside a BlockingClient and on its connection
// pool. A BlockingClient has no I/O thread: it runs its I/O on the calling thread inside each
// of its calls. The reflector runs on that same I/O, so its store moves on whenever this thread
// is inside a call of the client (any request, or this object's waits) and stands still
// between them; the events meanwhile wait in the connection (a server that gives up on a watch
// read too slowly ends it, and the watcher resumes, or relists, when it runs again).

#include <kubex/client/api.hpp>
#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/reflector.hpp>
#include <kubex/runtime/store.hpp>
#include <kubex/runtime/watcher.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace kubex::runtime {

/// A BasicReflector run by a BlockingClient's calls; use BlockingReflector<T> and
/// BlockingMetadataReflector<T>. Its BlockingClient must outlive it. The waits and stop() are
/// for the thread that uses the client; store(), last_synced_resource_version(), stats() and
/// cancel() may be called from any thread.
template <resource T, bool MetadataOnly>
class BasicBlockingReflector {
 public:
  /// The reflector it runs.
  using reflector_type = BasicReflector<detail::TypedSource<T, MetadataOnly>>;
  /// What the store holds.
  using object_type = typename reflector_type::object_type;

  /// Reflects what `api` addresses, through `api`'s client: its first list goes out at the
  /// client's next call (wait_until_synced, say).
  explicit BasicBlockingReflector(const client::BlockingApi<T>& api,
                                  ReflectorConfig<object_type> config = {})
      : client_(&api.client()), reflector_(api.async(), std::move(config)) {
    reflector_.async_run(
        [ended = ended_](std::exception_ptr /*null: cancelled*/) { *ended = true; });
  }
  /// Stops the reflector (see stop()).
  ~BasicBlockingReflector() {
    try {
      stop();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a handler's exception; it is gone anyway
    }
  }
  BasicBlockingReflector(const BasicBlockingReflector&) = delete;
  BasicBlockingReflector& operator=(const BasicBlockingReflector&) = delete;

  /// Runs the client until the store holds its first full state, at most `timeout`; returns
  /// store().ready().
  bool wait_until_synced(std::chrono::milliseconds timeout) {
    return client_->wait_until([this] { return store().ready() || *ended_; }, timeout) &&
           store().ready();
  }
  /// Runs the client until the store is synced to `version` or newer (resource_version_reached:
  /// the RV of an object this program wrote, say), at most `timeout`; returns whether it is.
  bool wait_until_synced_to(std::string_view version, std::chrono::milliseconds timeout) {
    const auto reached = [this, version] {
      return resource_version_reached(last_synced_resource_version(), version);
    };
    return client_->wait_until([&] { return reached() || *ended_; }, timeout) && reached();
  }
  /// Runs the client for `duration`, the store catching up meanwhile.
  void run_for(std::chrono::milliseconds duration) {
    client_->wait_until([] { return false; }, duration);
  }

  /// The store: what the reflector had applied when this thread last ran the client.
  [[nodiscard]] const Store<object_type>& store() const noexcept { return reflector_.store(); }
  /// See BasicReflector::last_synced_resource_version.
  [[nodiscard]] std::string last_synced_resource_version() const {
    return reflector_.last_synced_resource_version();
  }
  /// The watcher's counters.
  [[nodiscard]] const WatcherStats& stats() const noexcept { return reflector_.stats(); }
  /// Adds an index to the store (see Store::add_index).
  void add_index(std::string name, typename Store<object_type>::IndexFunc values) {
    reflector_.add_index(std::move(name), std::move(values));
  }
  /// The reflector itself, for what this class does not pass on (subscribe(), changes(),
  /// whose events come on the client's I/O).
  [[nodiscard]] reflector_type& reflector() noexcept { return reflector_; }

  /// Stops the reflector from any thread; the next call of the client ends it.
  void cancel() { reflector_.cancel(); }
  /// Stops the reflector and runs the client until it has ended (at once, but for a request
  /// in flight). Nothing moves the store after it.
  void stop() {
    reflector_.cancel();
    while (!*ended_) {
      client_->wait_until([this] { return *ended_; }, std::chrono::minutes(1));
    }
  }
  /// True once the reflector has ended (after cancel() and a call of the client, or stop()).
  [[nodiscard]] bool stopped() const noexcept { return *ended_; }

 private:
  client::BlockingClient* client_;
  reflector_type reflector_;
  // Set by async_run's completion, on the thread that runs the client; shared, as the handler
  // is the reflector's to destroy.
  std::shared_ptr<bool> ended_ = std::make_shared<bool>(false);
};

/// Reflects full objects of T, blocking: `BlockingReflector<Pod> r(BlockingApi<Pod>::all(bc));`.
template <resource T>
using BlockingReflector = BasicBlockingReflector<T, false>;

/// Reflects only the metadata of T's objects, blocking.
template <resource T>
using BlockingMetadataReflector = BasicBlockingReflector<T, true>;

}  // namespace kubex::runtime
