// SPDX-License-Identifier: Apache-2.0
// What the transport checks and adds to a request's head: targets and headers that cannot
// break the request line or inject headers, and the Impersonate-* headers of a kubeconfig user.
#pragma once

#include <kubex/client/kubeconfig.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client::detail {

/// Whether `target` is an absolute path (with optional query) with no byte at or below space
/// and no DEL: anything else could end the request line early.
[[nodiscard]] bool is_valid_target(std::string_view target) noexcept;

/// Whether `name` is a non-empty header name without control characters, spaces or ':', and
/// `value` has no control character but tab.
[[nodiscard]] bool is_valid_header(std::string_view name, std::string_view value) noexcept;

/// The header name Impersonate-Extra-<key>: every byte of `key` that is not a token character
/// (RFC 9110), and '%' itself, percent-encoded, as client-go writes it.
[[nodiscard]] std::string extra_header_name(std::string_view key);

/// The Impersonate-User, -Uid, -Group and -Extra-* headers for `as`, in that order (groups
/// and extra values one header each); none when `as.user` is empty.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> impersonation_headers(
    const Impersonation& as);

}  // namespace kubex::client::detail
