// SPDX-License-Identifier: Apache-2.0
#pragma once

// The watcher for code without an event loop: next() blocks until the next event, running the
// client's I/O on the calling thread meanwhile (BlockingClient::wait).

#include <kubex/client/api.hpp>
#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/watcher.hpp>

#include <boost/asio/use_future.hpp>

#include <utility>

namespace kubex::runtime {

/// A blocking BasicWatcher; use BlockingWatcher<T> and BlockingMetadataWatcher<T>. Its
/// BlockingClient must outlive it. Not thread-safe, except cancel().
template <resource T, bool MetadataOnly>
class BasicBlockingWatcher {
 public:
  /// The watcher it drives.
  using watcher_type = BasicWatcher<detail::TypedSource<T, MetadataOnly>>;
  /// What next() returns.
  using event_type = typename watcher_type::event_type;

  /// Watches what `api` addresses (one namespace, all namespaces, or the cluster).
  explicit BasicBlockingWatcher(const client::BlockingApi<T>& api, WatcherConfig config = {})
      : client_(&api.client()), watcher_(api.async(), std::move(config)) {}

  /// The next event. Throws what went wrong (see BasicWatcher::async_next); the next call
  /// goes on, after the backoff delay.
  event_type next() { return client_->wait(watcher_.async_next(boost::asio::use_future)); }
  /// Stops it, from any thread: a blocked next() throws operation_canceled.
  void cancel() { watcher_.cancel(); }
  /// The last resourceVersion seen.
  [[nodiscard]] const std::string& resource_version() const noexcept {
    return watcher_.resource_version();
  }
  /// What it has done so far.
  [[nodiscard]] const WatcherStats& stats() const noexcept { return watcher_.stats(); }

 private:
  client::BlockingClient* client_;
  watcher_type watcher_;
};

/// Watches full objects of T, blocking: `BlockingWatcher<Pod> w(BlockingApi<Pod>::all(bc));`.
template <resource T>
using BlockingWatcher = BasicBlockingWatcher<T, false>;

/// Watches only the metadata of T's objects, blocking.
template <resource T>
using BlockingMetadataWatcher = BasicBlockingWatcher<T, true>;

}  // namespace kubex::runtime
