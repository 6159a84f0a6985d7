// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <string>
#include <string_view>

namespace kubex {

/// True if `segment` may be used as one segment of a request path: it is non-empty, is not
/// "." or "..", and contains neither '/' nor '%' (client-go's IsValidPathSegmentName). Escaping
/// alone is not enough for those, because the apiserver decodes the path before routing.
[[nodiscard]] KUBEX_API bool is_valid_path_segment(std::string_view segment) noexcept;

/// Percent-encodes every byte of `segment` except RFC 3986 unreserved characters, ':' and '@',
/// so the result is exactly one path segment. Does not validate; see is_valid_path_segment.
[[nodiscard]] KUBEX_API std::string escape_path_segment(std::string_view segment);

/// The parts of a Kubernetes REST path. Designed for designated initializers:
/// `resource_path({.version = "v1", .resource = "pods", .namespace_name = "default"})`.
/// Empty optional parts are left out of the path.
// Every member has a default initializer so that designated initializers may omit any of them
// (GCC's -Wmissing-field-initializers would flag them otherwise); the same holds for the other
// option structs in kubex.
struct ResourcePathParts {
  /// API group, e.g. "apps"; empty for the legacy core group served under /api.
  std::string_view group{};
  /// API version, e.g. "v1". Required.
  std::string_view version{};
  /// Plural resource name, e.g. "pods". Required.
  std::string_view resource{};
  /// Namespace of a namespaced resource; empty for cluster-scoped resources or all namespaces.
  std::string_view namespace_name{};
  /// Object name; empty addresses the whole collection.
  std::string_view name{};
  /// Subresource such as "status" or "log"; requires `name`.
  std::string_view subresource{};
};

/// Builds the request path for `parts`, e.g. `/api/v1/namespaces/default/pods` or
/// `/apis/apps/v1/namespaces/web/deployments/front/scale`.
/// @throws kubex::Error with errc::invalid_path naming the part that is missing or
///         not a valid path segment.
[[nodiscard]] KUBEX_API std::string resource_path(const ResourcePathParts& parts);

}  // namespace kubex
