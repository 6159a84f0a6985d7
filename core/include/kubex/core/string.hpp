// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubex::String: the string of the generated models. 16 bytes (std::string takes 32), up to 15
// characters held inline, longer ones on the heap or, when decoded, in the decode's Arena. It
// reads like std::string: it converts to std::string_view and std::string, compares with
// both, and is NUL-terminated. std::optional<String> takes 16 bytes too (optional_string.hpp).

#include <kubex/core/arena.hpp>
#include <kubex/core/export.hpp>

#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <optional>  // the friend std::optional<String> (optional_string.hpp)
#include <string>
#include <string_view>

namespace kubex {

/// A compact string; see the file comment.
class KUBEX_API String {
 public:
  using value_type = char;
  using size_type = std::size_t;
  using const_iterator = const char*;
  using iterator = char*;
  static constexpr size_type npos = std::string_view::npos;

  String() noexcept { set_inline_size(0); }
  String(std::string_view s) { init(s.data(), s.size()); }    // NOLINT(google-explicit-constructor)
  String(const char* s) : String(std::string_view(s)) {}      // NOLINT(google-explicit-constructor)
  String(const std::string& s) { init(s.data(), s.size()); }  // NOLINT(google-explicit-constructor)
  String(const char* s, size_type n) { init(s, n); }
  String(size_type n, char c);
  /// A copy is on the heap, whatever the original's memory (or in an ArenaCopyScope's arena).
  String(const String& other) {
    const std::string_view s = other.view();
    init_copy(s.data(), s.size());
  }
  String(String&& other) noexcept : rep_(other.rep_) { other.set_inline_size(0); }
  ~String() { destroy(); }

  String& operator=(const String& other) {
    if (this != &other) {
      assign(other.view());
    }
    return *this;
  }
  String& operator=(String&& other) noexcept {
    if (this != &other) {
      destroy();
      rep_ = other.rep_;
      other.set_inline_size(0);
    }
    return *this;
  }
  String& operator=(std::string_view s) { return assign(s); }
  String& operator=(const char* s) { return assign(std::string_view(s)); }
  String& operator=(const std::string& s) { return assign(std::string_view(s)); }

  /// Replaces the contents; reuses the memory held when it is large enough.
  String& assign(std::string_view s);

  [[nodiscard]] const char* data() const noexcept { return is_long() ? rep_.l.ptr : rep_.s; }
  [[nodiscard]] char* data() noexcept { return is_long() ? rep_.l.ptr : rep_.s; }
  [[nodiscard]] const char* c_str() const noexcept { return data(); }
  [[nodiscard]] size_type size() const noexcept {
    return is_long() ? rep_.l.size : inline_capacity - static_cast<unsigned char>(rep_.s[15]);
  }
  [[nodiscard]] size_type length() const noexcept { return size(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] size_type capacity() const noexcept {
    return is_long() ? (rep_.l.cap & cap_mask) : inline_capacity;
  }
  [[nodiscard]] std::string_view view() const noexcept { return {data(), size()}; }
  [[nodiscard]] std::string str() const { return std::string(view()); }
  operator std::string_view() const noexcept { return view(); }  // NOLINT
  operator std::string() const { return str(); }                 // NOLINT

  [[nodiscard]] const_iterator begin() const noexcept { return data(); }
  [[nodiscard]] const_iterator end() const noexcept { return data() + size(); }
  [[nodiscard]] iterator begin() noexcept { return data(); }
  [[nodiscard]] iterator end() noexcept { return data() + size(); }
  [[nodiscard]] char operator[](size_type i) const noexcept { return data()[i]; }
  [[nodiscard]] char& operator[](size_type i) noexcept { return data()[i]; }
  [[nodiscard]] char front() const noexcept { return data()[0]; }
  [[nodiscard]] char back() const noexcept { return data()[size() - 1]; }

  void clear() noexcept { resize_unchecked(0); }
  void reserve(size_type n);
  void resize(size_type n, char c = '\0');
  String& append(std::string_view s);
  String& operator+=(std::string_view s) { return append(s); }
  String& operator+=(const char* s) { return append(std::string_view(s)); }
  String& operator+=(const std::string& s) { return append(std::string_view(s)); }
  String& operator+=(const String& s) { return append(s.view()); }
  String& operator+=(char c) { return append(std::string_view(&c, 1)); }
  void push_back(char c) { append(std::string_view(&c, 1)); }
  void swap(String& other) noexcept { std::swap(rep_, other.rep_); }

  [[nodiscard]] size_type find(std::string_view s, size_type pos = 0) const noexcept {
    return view().find(s, pos);
  }
  [[nodiscard]] size_type find(char c, size_type pos = 0) const noexcept {
    return view().find(c, pos);
  }
  [[nodiscard]] size_type rfind(std::string_view s, size_type pos = npos) const noexcept {
    return view().rfind(s, pos);
  }
  [[nodiscard]] size_type rfind(char c, size_type pos = npos) const noexcept {
    return view().rfind(c, pos);
  }
  [[nodiscard]] bool starts_with(std::string_view s) const noexcept {
    return view().starts_with(s);
  }
  [[nodiscard]] bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
  [[nodiscard]] bool contains(std::string_view s) const noexcept { return view().find(s) != npos; }
  [[nodiscard]] std::string substr(size_type pos = 0, size_type n = npos) const {
    return std::string(view().substr(pos, n));
  }
  [[nodiscard]] int compare(std::string_view s) const noexcept { return view().compare(s); }

  /// True when the characters live in a decode's Arena (for tests and measurements).
  [[nodiscard]] bool in_arena() const noexcept { return is_long() && (rep_.l.cap & arena_bit); }

  friend bool operator==(const String& a, const String& b) noexcept { return a.view() == b.view(); }
  friend bool operator==(const String& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const String& a, const char* b) noexcept {
    return a.view() == std::string_view(b);
  }
  friend bool operator==(const String& a, const std::string& b) noexcept {
    return a.view() == std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const String& a, const String& b) noexcept {
    return a.view() <=> b.view();
  }
  friend std::strong_ordering operator<=>(const String& a, std::string_view b) noexcept {
    return a.view() <=> b;
  }
  friend std::strong_ordering operator<=>(const String& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const String& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  friend std::string operator+(const String& a, std::string_view b) { return join(a.view(), b); }
  friend std::string operator+(std::string_view a, const String& b) { return join(a, b.view()); }
  friend std::string operator+(const String& a, const String& b) {
    return join(a.view(), b.view());
  }
  friend std::string operator+(const String& a, const char* b) { return join(a.view(), b); }
  friend std::string operator+(const char* a, const String& b) { return join(a, b.view()); }
  friend std::string operator+(const String& a, const std::string& b) { return join(a.view(), b); }
  friend std::string operator+(const std::string& a, const String& b) { return join(a, b.view()); }
  friend std::string operator+(const String& a, char b) {
    return join(a.view(), std::string_view(&b, 1));
  }

 private:
  friend class std::optional<String>;
  struct Absent {};

  static constexpr size_type inline_capacity = 15;
  // The last byte of a String that std::optional<String> holds as absent: inline strings tag
  // 0..15 there and long ones set the top bit.
  static constexpr unsigned char absent_tag = 0x40U;
  static constexpr std::uint32_t long_bit = 0x8000'0000U;
  static constexpr std::uint32_t arena_bit = 0x4000'0000U;
  static constexpr std::uint32_t cap_mask = 0x3FFF'FFFFU;
  static_assert(std::endian::native == std::endian::little, "String's tag is its last byte");

  // Inline: 15 characters, then 15 - size in the last byte, which is NUL when full. Long: a
  // pointer, the size, and the capacity with the long and arena bits on top, which the last
  // byte holds too.
  struct Long {
    char* ptr;
    std::uint32_t size;
    std::uint32_t cap;
  };
  union Rep {
    Long l;
    char s[16];
  };

  explicit String(Absent) noexcept { set_absent(); }
  void set_absent() noexcept { rep_.s[15] = static_cast<char>(absent_tag); }
  [[nodiscard]] bool is_absent() const noexcept {
    return static_cast<unsigned char>(rep_.s[15]) == absent_tag;
  }
  [[nodiscard]] bool is_long() const noexcept {
    return (static_cast<unsigned char>(rep_.s[15]) & 0x80U) != 0;
  }
  void set_inline_size(size_type n) noexcept {
    rep_.s[15] = static_cast<char>(inline_capacity - n);
    if (n < inline_capacity) {
      rep_.s[n] = '\0';
    }
  }
  void resize_unchecked(size_type n) noexcept {
    if (is_long()) {
      rep_.l.size = static_cast<std::uint32_t>(n);
      rep_.l.ptr[n] = '\0';
    } else {
      set_inline_size(n);
    }
  }
  void init(const char* s, size_type n);
  void init_copy(const char* s, size_type n);
  void destroy() noexcept {
    if (is_long()) {
      release(rep_.l);
    }
  }
  static void release(const Long& l) noexcept;
  static std::string join(std::string_view a, std::string_view b);

  Rep rep_;
};

/// Writes the characters.
KUBEX_API std::ostream& operator<<(std::ostream& os, const String& s);

}  // namespace kubex

/// Hashes as the characters' std::string_view does, so it mixes with std::string keys.
template <>
struct std::hash<kubex::String> {
  std::size_t operator()(const kubex::String& s) const noexcept {
    return std::hash<std::string_view>{}(s.view());
  }
};

// Every user of String sees the 16-byte std::optional<String> before it can name the type.
#include <kubex/core/optional_string.hpp>
