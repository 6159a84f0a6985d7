// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

// Percent-encoding (RFC 3986 §2.1) and the hex digits behind it: the one place the library
// writes %XX, for path segments, query values, form bodies and header names alike.

#include <optional>
#include <string>
#include <string_view>

namespace kubex {

/// Hex digits indexed by a nibble: upper case (percent-encoding, as Go's url package writes
/// it) and lower case (JSON's \u escapes).
inline constexpr std::string_view hex_upper = "0123456789ABCDEF";
inline constexpr std::string_view hex_lower = "0123456789abcdef";

/// The value of hex digit `c` (either case), or -1 if it is not one.
[[nodiscard]] constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

/// Whether `c` is an RFC 3986 unreserved character: ALPHA, DIGIT, '-', '.', '_' or '~'.
[[nodiscard]] constexpr bool is_unreserved(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

/// Appends `text` to `out`, writing every byte for which `keep(byte)` is false as %XX.
template <class Keep>
void append_percent_encoded(std::string& out, std::string_view text, Keep keep) {
  for (const char c : text) {
    if (keep(c)) {
      out.push_back(c);
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(hex_upper[byte >> 4U]);
      out.push_back(hex_upper[byte & 0x0FU]);
    }
  }
}

/// `text` with every byte but the unreserved ones percent-encoded: a query value, or a value
/// of an application/x-www-form-urlencoded body (RFC 6749 §2.3.1 client credentials).
[[nodiscard]] KUBEX_API std::string percent_encode(std::string_view text);

/// `text` with its %XX escapes decoded (either case of hex); std::nullopt if a '%' is not
/// followed by two hex digits.
[[nodiscard]] KUBEX_API std::optional<std::string> percent_decode(std::string_view text);

}  // namespace kubex
