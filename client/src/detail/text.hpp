// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: small text helpers of the client, among them the checks of secret-bearing text
// (tokens from files, kubeconfigs and exec plugins) before it goes into a header. Never
// installed.

#include <chrono>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// `text` with ASCII letters in lower case (host names, HTTP/2 field names); other bytes kept.
[[nodiscard]] inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

/// A duration as messages write it: "1500 ms".
[[nodiscard]] inline std::string ms_text(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

/// `text` without leading and trailing ASCII white space.
[[nodiscard]] inline std::string_view trim_space(std::string_view text) noexcept {
  constexpr std::string_view space = " \t\r\n\f\v";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

/// True if `text` holds a byte below 0x20 or DEL: such a token would break (or inject into) the
/// Authorization header.
[[nodiscard]] inline bool has_control_characters(std::string_view text) noexcept {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

}  // namespace kubex::client::detail
