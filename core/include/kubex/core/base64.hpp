// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kubex {

/// Decodes standard (RFC 4648 §4) base64 as used by kubeconfig `*-data` fields and Secret data.
/// ASCII whitespace is ignored, so wrapped values decode; padding may be omitted.
/// Returns std::nullopt for any other character, misplaced padding or a truncated final group.
[[nodiscard]] KUBEX_API std::optional<std::string> base64_decode(std::string_view text);

/// Decodes standard base64 exactly as Go's `base64.StdEncoding` does, which is what the
/// apiserver uses for `format: byte` fields such as Secret data: padding is required, '\r' and
/// '\n' are skipped anywhere, every other character outside the alphabet is an error, and so is
/// anything after the padding. Unused low bits of the last symbol are ignored, as in Go's
/// default (non-Strict) mode. Returns std::nullopt for malformed input.
[[nodiscard]] KUBEX_API std::optional<std::string> base64_decode_padded(std::string_view text);

/// Encodes `data` as standard base64 with '=' padding and without line breaks (RFC 4648 §4,
/// Go's `base64.StdEncoding`).
[[nodiscard]] KUBEX_API std::string base64_encode(std::string_view data);

}  // namespace kubex
