// SPDX-License-Identifier: Apache-2.0
#pragma once

// Discovery: which groups, versions and resources the server serves, so that a kind known
// only at run time (a CRD, a name typed by a user) can be resolved to its plural, scope and
// verbs. Uses aggregated discovery (two requests for everything) when the server offers it,
// and the per-group-version documents otherwise; results are cached for a TTL.

#include <kubex/client/client.hpp>
#include <kubex/core/discovery.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubex::client {

/// Options of Discovery.
struct DiscoveryOptions {
  /// How long a refresh is trusted; async_resolve refreshes when it is older.
  std::chrono::seconds ttl{600};
  /// Ask for aggregated discovery first; false always uses the per-group-version documents.
  bool aggregated = true;
};

namespace detail {
/// The cache a Discovery shares with its refresh operations.
struct DiscoveryState {
  Client client;
  DiscoveryOptions options;
  std::vector<ApiResource> resources{};
  std::chrono::steady_clock::time_point refreshed_at{};
  bool refreshed = false;
  bool aggregated = false;
};
KUBEX_API boost::asio::awaitable<void> discovery_refresh(std::shared_ptr<DiscoveryState> state);
KUBEX_API boost::asio::awaitable<ApiResource> discovery_resolve(
    std::shared_ptr<DiscoveryState> state, std::string group, std::string kind);
}  // namespace detail

/// The server's resources, cached. Lookups are not synchronised with a refresh in progress:
/// use one Discovery from one strand or thread at a time.
class KUBEX_API Discovery {
 public:
  /// A discovery cache for `client`; empty until the first refresh.
  explicit Discovery(Client client, DiscoveryOptions options = {})
      : state_(std::make_shared<detail::DiscoveryState>(
            detail::DiscoveryState{std::move(client), options})) {}

  /// Fetches everything the server serves. Completion signature void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_refresh(CompletionToken&& token = {}) {
    return boost::asio::co_spawn(state_->client.get_executor(), detail::discovery_refresh(state_),
                                 std::forward<CompletionToken>(token));
  }
  /// The preferred version of `kind` in `group` ("" for the core group), refreshing first when
  /// the cache is older than the TTL or does not know the kind yet (a CRD created since).
  /// Completion signature void(std::exception_ptr, ApiResource); an unknown kind fails with
  /// errc::invalid_argument naming it.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_resolve(std::string_view group, std::string_view kind, CompletionToken&& token = {}) {
    return boost::asio::co_spawn(
        state_->client.get_executor(),
        detail::discovery_resolve(state_, std::string(group), std::string(kind)),
        std::forward<CompletionToken>(token));
  }

  /// The preferred version of `kind` in `group`, from the cache.
  [[nodiscard]] std::optional<ApiResource> find_kind(std::string_view group,
                                                     std::string_view kind) const;
  /// `kind` in `group`/`version`, from the cache.
  [[nodiscard]] std::optional<ApiResource> find(std::string_view group, std::string_view version,
                                                std::string_view kind) const;
  /// A resource named as kubectl accepts it: plural, singular, short name or kind, optionally
  /// qualified by group ("deploy", "deployments.apps", "CronTab.stable.example.com"); the
  /// preferred version.
  [[nodiscard]] std::optional<ApiResource> find_name(std::string_view name) const;
  /// Everything cached: groups in the server's order, preferred versions first.
  [[nodiscard]] const std::vector<ApiResource>& resources() const noexcept {
    return state_->resources;
  }
  /// True when the cache was refreshed less than the TTL ago.
  [[nodiscard]] bool is_fresh() const noexcept;
  /// True when the last refresh used aggregated discovery.
  [[nodiscard]] bool used_aggregated() const noexcept { return state_->aggregated; }

 private:
  std::shared_ptr<detail::DiscoveryState> state_;
};

}  // namespace kubex::client
