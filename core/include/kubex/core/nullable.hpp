// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace kubex {

/// A field with three states: absent (left out of the JSON), explicitly null, or a value.
///
/// JSON merge patches (RFC 7396) need the difference: an absent field leaves the server's value
/// alone, `null` deletes it. std::optional cannot say "send null", which is why merge patches in
/// some clients can never remove a field. Use it in patch bodies declared with
/// KUBEX_JSON_OBJECT, e.g. `kubex::Nullable<std::int32_t> replicas;` then `replicas = nullptr;`.
template <class T>
class Nullable {
 public:
  /// Absent.
  constexpr Nullable() noexcept = default;
  /// Explicitly null.
  constexpr Nullable(std::nullptr_t) noexcept : state_(State::null) {}  // NOLINT
  /// A value.
  Nullable(T value) : value_(std::move(value)), state_(State::value) {}  // NOLINT

  /// Makes it explicitly null.
  Nullable& operator=(std::nullptr_t) noexcept {
    value_.reset();
    state_ = State::null;
    return *this;
  }
  /// Sets a value.
  Nullable& operator=(T value) {
    value_ = std::move(value);
    state_ = State::value;
    return *this;
  }

  /// True when the field is left out entirely.
  [[nodiscard]] constexpr bool is_absent() const noexcept { return state_ == State::absent; }
  /// True when the field is explicitly null.
  [[nodiscard]] constexpr bool is_null() const noexcept { return state_ == State::null; }
  /// True when the field holds a value.
  [[nodiscard]] constexpr bool has_value() const noexcept { return state_ == State::value; }

  /// The value; has_value() must be true.
  T& operator*() noexcept { return *value_; }
  /// The value; has_value() must be true.
  const T& operator*() const noexcept { return *value_; }
  /// Member access; has_value() must be true.
  T* operator->() noexcept { return &*value_; }
  /// Member access; has_value() must be true.
  const T* operator->() const noexcept { return &*value_; }
  /// The value, constructed in place (the state becomes "value").
  template <class... Args>
  T& emplace(Args&&... args) {
    state_ = State::value;
    return value_.emplace(std::forward<Args>(args)...);
  }
  /// Makes it absent.
  void reset() noexcept {
    value_.reset();
    state_ = State::absent;
  }

  /// Equal when the states are equal and, for values, the values are.
  friend bool operator==(const Nullable&, const Nullable&) = default;

 private:
  enum class State : std::uint8_t { absent, null, value };
  std::optional<T> value_{};
  State state_ = State::absent;
};

}  // namespace kubex
