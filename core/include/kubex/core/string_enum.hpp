// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/string.hpp>

#include <compare>
#include <string>
#include <string_view>
#include <utility>

namespace kubex {

/// Marks string-backed enumerations (see StringEnum) for the JSON codec.
struct StringEnumBase {};

/// A Kubernetes enumeration: a string that usually holds one of the values the API defines
/// (`Derived::known_values`), but keeps any other value as sent, because newer servers add
/// values and an old client must neither fail nor lose them on write-back.
///
/// Generated enums derive from it and name each value, so code reads
/// `if (pod.status->phase == PodStatusPhase::Running)`.
template <class Derived>
class StringEnum : public StringEnumBase {
 public:
  /// The empty value.
  StringEnum() = default;
  /// Any value, known or not.
  StringEnum(String value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  /// Any value, known or not.
  StringEnum(const std::string& value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  /// Any value, known or not.
  StringEnum(std::string_view value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  /// Any value, known or not.
  StringEnum(const char* value) : value_(value) {}  // NOLINT(google-explicit-constructor)

  /// The value as sent.
  [[nodiscard]] const String& value() const noexcept { return value_; }
  /// The value as sent.
  operator std::string_view() const noexcept {  // NOLINT(google-explicit-constructor)
    return value_.view();
  }
  /// True when the value is one this version of the API defines.
  [[nodiscard]] bool is_known() const noexcept {
    for (std::string_view k : Derived::known_values) {
      if (k == value_.view()) {
        return true;
      }
    }
    return false;
  }
  /// True for the empty string.
  [[nodiscard]] bool empty() const noexcept { return value_.empty(); }

  /// Compares with another value of the enumeration.
  friend bool operator==(const StringEnum& a, const StringEnum& b) noexcept {
    return a.value_ == b.value_;
  }
  /// Compares with a string, e.g. one of the named constants.
  friend bool operator==(const StringEnum& a, std::string_view b) noexcept { return a.value_ == b; }
  /// Compares with a string literal.
  friend bool operator==(const StringEnum& a, const char* b) noexcept { return a.value_ == b; }
  /// Orders by the string value.
  friend std::strong_ordering operator<=>(const StringEnum& a, const StringEnum& b) noexcept {
    return a.value_ <=> b.value_;
  }

 private:
  String value_;
};

}  // namespace kubex
