// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>
#include <kubex/core/string.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kubex {

/// A field that is either an integer or a string (k8s.io/apimachinery intstr.IntOrString), such
/// as a container port ("http" or 8080) or a rolling-update bound ("25%" or 1).
///
/// The constructors are implicit so that fields read naturally: `spec.max_surge = "25%";`,
/// `port.target_port = 8080;`. The integer is 32-bit, as in Go.
class KUBEX_API IntOrString {
 public:
  /// The integer 0 (Go's zero value).
  IntOrString() noexcept = default;

  /// An integer.
  IntOrString(std::int32_t value) noexcept
      : value_(value) {}  // NOLINT(google-explicit-constructor)

  /// A string.
  IntOrString(String value) noexcept  // NOLINT(google-explicit-constructor)
      : value_(std::move(value)) {}

  /// A string.
  IntOrString(const std::string& value)  // NOLINT(google-explicit-constructor)
      : value_(String(value)) {}

  /// A string.
  IntOrString(std::string_view value)  // NOLINT(google-explicit-constructor)
      : value_(String(value)) {}

  /// A string; without this overload a literal would be ambiguous between the string types.
  IntOrString(const char* value)  // NOLINT(google-explicit-constructor)
      : value_(String(value)) {}

  /// True if this holds an integer.
  [[nodiscard]] bool is_int() const noexcept { return value_.index() == 0; }

  /// The integer. Precondition: is_int().
  /// @throws std::bad_variant_access if this holds a string (Go would instead try to parse the
  ///         string as an integer; kubex leaves that to the caller).
  [[nodiscard]] std::int32_t int_value() const { return std::get<std::int32_t>(value_); }

  /// The string. Precondition: !is_int().
  /// @throws std::bad_variant_access if this holds an integer; see to_string().
  [[nodiscard]] const String& string_value() const { return std::get<String>(value_); }

  /// The string, or the integer in decimal (Go's String()).
  [[nodiscard]] std::string to_string() const;

  /// Resolves an absolute-or-percentage value against `total`, as Kubernetes'
  /// intstr.GetScaledValueFromIntOrPercent does for maxSurge, maxUnavailable and the like:
  /// an integer is returned unchanged (not scaled); a string must be an integer followed by
  /// '%' (optional sign, no spaces or fraction: "25%", "-10%", "+5%", "007%") and yields
  /// value × total / 100, rounded up if `round_up` and down otherwise. Returns std::nullopt
  /// for any other string ("25", "%", "2.5%", " 5%") or a result outside the range of int.
  /// The arithmetic is exact, where Go goes through float64 (same results in practice).
  [[nodiscard]] std::optional<int> scaled_value(int total, bool round_up) const noexcept;

  /// Same kind and same value; the integer 5 and the string "5" differ.
  friend bool operator==(const IntOrString&, const IntOrString&) = default;

 private:
  std::variant<std::int32_t, String> value_;
};

}  // namespace kubex
