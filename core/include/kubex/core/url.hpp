// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kubex {

/// An apiserver base URL as written in a kubeconfig `server` field, split into the parts a
/// transport needs. Only `scheme://host[:port][/path]` is accepted: user information, queries
/// and fragments have no meaning for an apiserver address and are rejected.
struct KUBEX_API ServerUrl {
  /// "https" or "http", lower case.
  std::string scheme{};
  /// Host name or IP address; IPv6 addresses are stored without brackets.
  std::string host{};
  /// Port from the URL, or the scheme's default (443 or 80).
  std::uint16_t port = 0;
  /// Path prefix that every request path is appended to (e.g. behind a proxy such as
  /// `https://rancher/k8s/clusters/c-1`), without trailing '/'; empty for most clusters.
  std::string base_path{};

  /// True if `host` is an IPv6 literal.
  [[nodiscard]] bool is_ipv6() const noexcept;
  /// The `host[:port]` form for the HTTP Host header: brackets around IPv6, port omitted when it
  /// is the scheme's default.
  [[nodiscard]] std::string authority() const;
};

/// Parses an apiserver URL.
/// @throws kubex::Error with errc::invalid_url and a reason that never repeats user information.
[[nodiscard]] KUBEX_API ServerUrl parse_server_url(std::string_view text);

}  // namespace kubex
