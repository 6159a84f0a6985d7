// SPDX-License-Identifier: Apache-2.0
#pragma once

// Discovery documents, parsed without I/O: aggregated discovery (apidiscovery.k8s.io/v2
// APIGroupDiscoveryList, what /api and /apis answer when asked for it) and the legacy documents
// (APIVersions, APIGroupList, APIResourceList) that older servers and proxies return.

#include <kubex/core/dynamic.hpp>
#include <kubex/core/export.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kubex {

/// Accept header asking /api and /apis for aggregated discovery, with the legacy documents as
/// the fallback a server without it answers with.
inline constexpr std::string_view accept_aggregated_discovery =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/// True if `json` is an APIGroupDiscoveryList (the server honoured the aggregated Accept).
[[nodiscard]] KUBEX_API bool is_aggregated_discovery(std::string_view json);

/// The resources of an APIGroupDiscoveryList: groups in the server's order, and in each group
/// its versions in preference order (the preferred version first). Subresources are folded
/// into their resource.
/// @throws json::DecodeError if `json` is not such a document.
[[nodiscard]] KUBEX_API std::vector<ApiResource> parse_aggregated_discovery(std::string_view json);

/// One API group of an APIGroupList.
struct GroupVersions {
  /// Group name.
  std::string name{};
  /// Its versions, the preferred one first.
  std::vector<std::string> versions{};
};

/// The versions of the core group from an APIVersions document (`GET /api`).
[[nodiscard]] KUBEX_API std::vector<std::string> parse_api_versions(std::string_view json);

/// The groups of an APIGroupList document (`GET /apis`).
[[nodiscard]] KUBEX_API std::vector<GroupVersions> parse_api_group_list(std::string_view json);

/// The resources of an APIResourceList (`GET /apis/<group>/<version>`), subresources folded
/// into their resource.
[[nodiscard]] KUBEX_API std::vector<ApiResource> parse_api_resource_list(std::string_view json,
                                                                         std::string_view group,
                                                                         std::string_view version);

/// The Verbs named by discovery's verb strings ("get", "deletecollection", ...); unknown names
/// are ignored.
[[nodiscard]] KUBEX_API Verbs parse_verbs(const std::vector<std::string>& names) noexcept;

}  // namespace kubex
