// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/string.hpp>

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace kubex {
namespace {

// Storage for `cap` characters and a NUL: from the current arena while decoding, else the heap.
char* allocate_chars(std::size_t cap, bool& in_arena) {
  if (cap > 0x3FFF'FFFFU) {
    throw std::length_error("kubex::String: longer than 1 GiB");
  }
  if (Arena* a = current_arena()) {
    in_arena = true;
    return static_cast<char*>(a->allocate(cap + 1));
  }
  in_arena = false;
  return static_cast<char*>(::operator new(cap + 1));
}

}  // namespace

String::String(size_type n, char c) {
  set_inline_size(0);
  resize(n, c);
}

void String::init(const char* s, size_type n) {
  if (n <= inline_capacity) {
    if (n != 0) {  // `s` may be null then (a default std::string_view)
      std::memcpy(rep_.s, s, n);
    }
    set_inline_size(n);
    return;
  }
  bool in_arena = false;
  char* p = allocate_chars(n, in_arena);
  std::memcpy(p, s, n);
  p[n] = '\0';
  rep_.l = Long{p, static_cast<std::uint32_t>(n),
                static_cast<std::uint32_t>(n) | long_bit | (in_arena ? arena_bit : 0U)};
}

void String::init_copy(const char* s, size_type n) {
  const ArenaScope copy(detail::copy_arena);
  init(s, n);
}

void String::release(const Long& l) noexcept {
  if ((l.cap & arena_bit) != 0) {
    arena_release(l.ptr);
  } else {
    ::operator delete(l.ptr);
  }
}

String& String::assign(std::string_view s) {
  if (s.size() <= capacity()) {
    if (!s.empty()) {  // an empty `s` may have a null data()
      std::memmove(data(), s.data(), s.size());
    }
    resize_unchecked(s.size());
    return *this;
  }
  String fresh(s);  // before destroy(): `s` may point into this string
  swap(fresh);
  return *this;
}

void String::reserve(size_type n) {
  if (n <= capacity()) {
    return;
  }
  bool in_arena = false;
  char* p = allocate_chars(n, in_arena);
  const size_type len = size();
  std::memcpy(p, data(), len);
  p[len] = '\0';
  destroy();
  rep_.l = Long{p, static_cast<std::uint32_t>(len),
                static_cast<std::uint32_t>(n) | long_bit | (in_arena ? arena_bit : 0U)};
}

void String::resize(size_type n, char c) {
  const size_type len = size();
  if (n > len) {
    if (n > capacity()) {
      reserve(std::max(n, std::min<size_type>(2 * capacity(), cap_mask)));
    }
    std::memset(data() + len, c, n - len);
  }
  resize_unchecked(n);
}

String& String::append(std::string_view s) {
  const size_type len = size();
  if (len + s.size() > capacity()) {
    // Copy first: `s` may point into this string, which reserve() frees.
    const std::string keep(s);
    reserve(std::max(len + keep.size(), std::min<size_type>(2 * capacity(), cap_mask)));
    std::memcpy(data() + len, keep.data(), keep.size());
  } else if (!s.empty()) {  // an empty `s` may have a null data()
    std::memmove(data() + len, s.data(), s.size());
  }
  resize_unchecked(len + s.size());
  return *this;
}

std::string String::join(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a);
  out.append(b);
  return out;
}

std::ostream& operator<<(std::ostream& os, const String& s) {
  return os << s.view();
}

}  // namespace kubex
