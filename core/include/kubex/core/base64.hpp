#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kubex {

/// Decodes standard (RFC 4648 §4) base64 as used by kubeconfig `*-data` fields and Secret data.
/// ASCII whitespace is ignored, so wrapped values decode; padding may be omitted.
/// Returns std::nullopt for any other character, misplaced padding or a truncated final group.
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

}  // namespace kubex
