// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/int_or_string.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {
namespace {

/// The integer in `text` with Go's strconv.Atoi rules: optional '+' or '-', then one or more
/// decimal digits, within int64 (Go's int on 64-bit platforms).
std::optional<std::int64_t> parse_int64(std::string_view text) noexcept {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) {
    return std::nullopt;
  }
  // Accumulate the magnitude as unsigned so that the int64 minimum fits.
  constexpr std::uint64_t positive_limit = std::numeric_limits<std::int64_t>::max();
  const std::uint64_t limit = negative ? positive_limit + 1 : positive_limit;
  std::uint64_t magnitude = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      return std::nullopt;
    }
    magnitude = magnitude * 10 + digit;
  }
  if (negative) {
    return magnitude == positive_limit + 1 ? std::numeric_limits<std::int64_t>::min()
                                           : -static_cast<std::int64_t>(magnitude);
  }
  return static_cast<std::int64_t>(magnitude);
}

}  // namespace

std::string IntOrString::to_string() const {
  return is_int() ? std::to_string(int_value()) : string_value().str();
}

std::optional<int> IntOrString::scaled_value(int total, bool round_up) const noexcept {
  if (is_int()) {
    return int_value();
  }
  std::string_view text = std::get<String>(value_);
  if (text.empty() || text.back() != '%') {
    return std::nullopt;
  }
  text.remove_suffix(1);
  const auto percent = parse_int64(text);
  if (!percent) {
    return std::nullopt;
  }
  // |percent × total| < 2^63 × 2^31, so 128 bits hold it exactly.
  __extension__ using i128 = __int128;
  const i128 product = static_cast<i128>(*percent) * total;
  i128 quotient = product / 100;  // truncated toward zero
  const i128 remainder = product % 100;
  if (remainder > 0 && round_up) {
    ++quotient;
  } else if (remainder < 0 && !round_up) {
    --quotient;
  }
  if (quotient < std::numeric_limits<int>::min() || quotient > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(quotient);
}

}  // namespace kubex
