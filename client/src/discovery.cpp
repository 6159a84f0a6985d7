// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/discovery.hpp>
#include <kubex/core/api_error.hpp>

#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client {
namespace {

namespace asio = boost::asio;

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A discovery document; fails with the ApiError of any status but 200, except that a 503
// comes back as a response when `skip_unavailable` (see legacy_discovery). Coroutine
// parameters by value: the frame outlives the caller's arguments.
asio::awaitable<HttpResponse> fetch(Client client, std::string target, std::string_view accept,
                                    bool skip_unavailable = false) {
  HttpRequest request;
  request.target = target;
  request.accept.assign(accept);
  auto response = co_await client.async_request(std::move(request), asio::use_awaitable);
  if (response.status != 200 && !(skip_unavailable && response.status == 503)) {
    throw ApiError::from_response("GET", target, response.status, response.body);
  }
  co_return response;
}

void append(std::vector<ApiResource>& out, std::vector<ApiResource> more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// The per-group-version documents: one request per group-version. Group-versions that fail
// with 503 (an aggregated API whose backend is down, e.g. metrics) are skipped, as kubectl
// does, so that one broken extension does not hide every other resource.
asio::awaitable<std::vector<ApiResource>> legacy_discovery(Client client) {
  std::vector<ApiResource> out;
  const auto core = co_await fetch(client, "/api", "application/json");
  for (const auto& v : parse_api_versions(core.body)) {
    const std::string target = "/api/" + v;  // named: see the GCC 12 note in README
    const auto r = co_await fetch(client, target, "application/json");
    append(out, parse_api_resource_list(r.body, "", v));
  }
  const auto groups = co_await fetch(client, "/apis", "application/json");
  for (const auto& g : parse_api_group_list(groups.body)) {
    for (const auto& v : g.versions) {
      const std::string target = "/apis/" + g.name + "/" + v;
      const auto r = co_await fetch(client, target, "application/json", true);
      if (r.status == 200) {
        append(out, parse_api_resource_list(r.body, g.name, v));
      }
    }
  }
  co_return out;
}

}  // namespace

namespace detail {

asio::awaitable<void> discovery_refresh(std::shared_ptr<DiscoveryState> state) {
  std::vector<ApiResource> resources;
  bool aggregated = false;
  if (state->options.aggregated) {
    const auto core = co_await fetch(state->client, "/api", accept_aggregated_discovery);
    if (is_aggregated_discovery(core.body)) {
      const auto groups = co_await fetch(state->client, "/apis", accept_aggregated_discovery);
      if (is_aggregated_discovery(groups.body)) {
        resources = parse_aggregated_discovery(core.body);
        append(resources, parse_aggregated_discovery(groups.body));
        aggregated = true;
      }
    }
  }
  if (!aggregated) {
    resources = co_await legacy_discovery(state->client);
  }
  state->resources = std::move(resources);
  state->aggregated = aggregated;
  state->refreshed = true;
  state->refreshed_at = std::chrono::steady_clock::now();
}

asio::awaitable<ApiResource> discovery_resolve(std::shared_ptr<DiscoveryState> state,
                                               std::string group, std::string kind) {
  const auto lookup = [&]() -> const ApiResource* {
    for (const auto& r : state->resources) {
      if (r.group == group && r.kind == kind) {
        return &r;
      }
    }
    return nullptr;
  };
  const bool fresh = state->refreshed &&
                     std::chrono::steady_clock::now() - state->refreshed_at < state->options.ttl;
  if (!fresh || lookup() == nullptr) {
    co_await discovery_refresh(state);
  }
  if (const auto* r = lookup()) {
    co_return *r;
  }
  std::string message = "discovery: the server serves no kind \"";
  message.append(kind).append("\" in group \"").append(group).append("\"");
  throw Error(errc::invalid_argument, message);
}

}  // namespace detail

std::optional<ApiResource> Discovery::find_kind(std::string_view group,
                                                std::string_view kind) const {
  for (const auto& r : state_->resources) {
    if (r.group == group && r.kind == kind) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<ApiResource> Discovery::find(std::string_view group, std::string_view version,
                                           std::string_view kind) const {
  for (const auto& r : state_->resources) {
    if (r.group == group && r.version == version && r.kind == kind) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<ApiResource> Discovery::find_name(std::string_view name) const {
  // "deployments.apps": the part after the first '.' is the group, if it names one.
  std::string_view resource = name;
  std::optional<std::string_view> group;
  if (const auto dot = name.find('.'); dot != std::string_view::npos) {
    resource = name.substr(0, dot);
    group = name.substr(dot + 1);
  }
  for (const auto& r : state_->resources) {
    if (group && r.group != *group) {
      continue;
    }
    const bool match =
        iequals(r.plural, resource) || iequals(r.singular, resource) || iequals(r.kind, resource) ||
        std::any_of(r.short_names.begin(), r.short_names.end(),
                    [resource](const std::string& s) { return iequals(s, resource); });
    if (match) {
      return r;
    }
  }
  return std::nullopt;
}

bool Discovery::is_fresh() const noexcept {
  return state_->refreshed &&
         std::chrono::steady_clock::now() - state_->refreshed_at < state_->options.ttl;
}

}  // namespace kubex::client
