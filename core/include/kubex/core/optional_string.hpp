// SPDX-License-Identifier: Apache-2.0
#pragma once

// std::optional<kubex::String> specialized to 16 bytes, as the standard allows for a
// program-defined type: an absent string is a tag value that String itself never takes. A
// model holds about one optional string in six members (207 in core/v1), and std::optional
// would add 8 bytes of flag and padding to each. string.hpp includes this header, so no code
// can name the type before the specialization is declared.

#include <kubex/core/string.hpp>

#include <optional>
#include <type_traits>
#include <utility>

/// std::optional<kubex::String> in 16 bytes: the whole interface of std::optional (C++20), with
/// absence kept in the String's tag. Moving from an optional leaves it holding an empty string,
/// as std::optional leaves a moved-from value.
template <>
class std::optional<kubex::String> {
  using String = kubex::String;
  template <class U>
  static constexpr bool from_value =
      std::is_constructible_v<String, U&&> &&
      !std::is_same_v<std::remove_cvref_t<U>, std::optional<String>> &&
      !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t>;
  template <class U>
  static constexpr bool from_other =
      !std::is_same_v<U, String> && std::is_constructible_v<String, const U&>;

 public:
  using value_type = String;

  optional() noexcept : s_(String::Absent{}) {}
  optional(std::nullopt_t) noexcept : s_(String::Absent{}) {}  // NOLINT
  optional(const optional& o) : s_(String::Absent{}) {
    if (o.has_value()) {
      emplace(o.s_);
    }
  }
  optional(optional&& o) noexcept : s_(String::Absent{}) {
    s_.rep_ = o.s_.rep_;
    if (o.has_value()) {
      o.s_.set_inline_size(0);
    }
  }
  template <class... Args>
  explicit optional(std::in_place_t, Args&&... args) : s_(std::forward<Args>(args)...) {}
  template <class U = String>
    requires from_value<U>
  explicit(!std::is_convertible_v<U&&, String>) optional(U&& v)  // NOLINT
      : s_(std::forward<U>(v)) {}
  template <class U>
    requires from_other<U>
  explicit(!std::is_convertible_v<const U&, String>) optional(const optional<U>& o)  // NOLINT
      : s_(String::Absent{}) {
    if (o.has_value()) {
      emplace(*o);
    }
  }
  template <class U>
    requires(!std::is_same_v<U, String> && std::is_constructible_v<String, U &&>)
  explicit(!std::is_convertible_v<U&&, String>) optional(optional<U>&& o)  // NOLINT
      : s_(String::Absent{}) {
    if (o.has_value()) {
      emplace(std::move(*o));
    }
  }
  ~optional() = default;

  optional& operator=(std::nullopt_t) noexcept {
    reset();
    return *this;
  }
  optional& operator=(const optional& o) {
    if (o.has_value()) {
      present() = o.s_;
    } else {
      reset();
    }
    return *this;
  }
  optional& operator=(optional&& o) noexcept {
    if (o.has_value()) {
      present() = std::move(o.s_);
    } else {
      reset();
    }
    return *this;
  }
  template <class U = String>
    requires from_value<U>
  optional& operator=(U&& v) {
    if constexpr (std::is_assignable_v<String&, U&&>) {
      present() = std::forward<U>(v);
    } else {
      present() = String(std::forward<U>(v));
    }
    return *this;
  }
  template <class U>
    requires from_other<U>
  optional& operator=(const optional<U>& o) {
    if (o.has_value()) {
      present() = String(*o);
    } else {
      reset();
    }
    return *this;
  }
  template <class U>
    requires(!std::is_same_v<U, String> && std::is_constructible_v<String, U &&>)
  optional& operator=(optional<U>&& o) {
    if (o.has_value()) {
      present() = String(std::move(*o));
    } else {
      reset();
    }
    return *this;
  }

  template <class... Args>
  String& emplace(Args&&... args) {
    reset();
    String made(std::forward<Args>(args)...);
    s_.rep_ = made.rep_;
    made.set_inline_size(0);
    return s_;
  }
  void swap(optional& o) noexcept { s_.swap(o.s_); }

  [[nodiscard]] const String* operator->() const noexcept { return &s_; }
  [[nodiscard]] String* operator->() noexcept { return &s_; }
  [[nodiscard]] const String& operator*() const& noexcept { return s_; }
  [[nodiscard]] String& operator*() & noexcept { return s_; }
  [[nodiscard]] String&& operator*() && noexcept { return std::move(s_); }
  [[nodiscard]] const String&& operator*() const&& noexcept { return std::move(s_); }
  explicit operator bool() const noexcept { return has_value(); }
  [[nodiscard]] bool has_value() const noexcept { return !s_.is_absent(); }

  [[nodiscard]] const String& value() const& {
    checked();
    return s_;
  }
  [[nodiscard]] String& value() & {
    checked();
    return s_;
  }
  [[nodiscard]] String&& value() && {
    checked();
    return std::move(s_);
  }
  [[nodiscard]] const String&& value() const&& {
    checked();
    return std::move(s_);
  }
  template <class U>
  [[nodiscard]] String value_or(U&& fallback) const& {
    return has_value() ? s_ : static_cast<String>(std::forward<U>(fallback));
  }
  template <class U>
  [[nodiscard]] String value_or(U&& fallback) && {
    return has_value() ? std::move(s_) : static_cast<String>(std::forward<U>(fallback));
  }

  void reset() noexcept {
    s_.destroy();
    s_.set_absent();
  }

 private:
  String& present() noexcept {
    if (!has_value()) {
      s_.set_inline_size(0);
    }
    return s_;
  }
  void checked() const {
    if (!has_value()) {
      throw std::bad_optional_access();
    }
  }

  String s_;
};
