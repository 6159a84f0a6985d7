// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubex::Vector<T>: the list type of the generated models. 16 bytes (std::vector takes 24); its
// elements are on the heap or, when decoded, in the decode's Arena (see arena.hpp). It has
// std::vector's interface for what models need: iteration, indexing, push_back and emplace_back,
// insert, erase, resize, comparison. A copy is on the heap (or in the arena of an
// ArenaCopyScope).

#include <kubex/core/arena.hpp>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace kubex {

/// A compact vector; see the file comment.
template <class T>
class Vector {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  Vector() noexcept = default;
  Vector(std::initializer_list<T> items) { assign_range(items.begin(), items.end()); }
  template <std::input_iterator It>
  Vector(It first, It last) {
    assign_range(first, last);
  }
  /// From a std::vector, element by element.
  Vector(const std::vector<T>& items) {  // NOLINT(google-explicit-constructor)
    assign_range(items.begin(), items.end());
  }
  explicit Vector(size_type n) { resize(n); }
  Vector(size_type n, const T& value) { resize(n, value); }
  /// A copy is on the heap, whatever the original's memory (or in an ArenaCopyScope's arena).
  Vector(const Vector& other) {
    const ArenaScope copy(detail::copy_arena);
    assign_range(other.begin(), other.end());
  }
  Vector(Vector&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        cap_(std::exchange(other.cap_, 0)) {}
  ~Vector() { reset(); }

  Vector& operator=(const Vector& other) {
    if (this != &other) {
      Vector copy(other);
      swap(copy);
    }
    return *this;
  }
  Vector& operator=(Vector&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      size_ = std::exchange(other.size_, 0);
      cap_ = std::exchange(other.cap_, 0);
    }
    return *this;
  }
  Vector& operator=(std::initializer_list<T> items) {
    Vector v(items);
    swap(v);
    return *this;
  }

  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] size_type capacity() const noexcept { return cap_ & cap_mask; }
  [[nodiscard]] T* data() noexcept { return ptr_; }
  [[nodiscard]] const T* data() const noexcept { return ptr_; }
  [[nodiscard]] iterator begin() noexcept { return ptr_; }
  [[nodiscard]] iterator end() noexcept { return ptr_ + size_; }
  [[nodiscard]] const_iterator begin() const noexcept { return ptr_; }
  [[nodiscard]] const_iterator end() const noexcept { return ptr_ + size_; }
  [[nodiscard]] const_iterator cbegin() const noexcept { return ptr_; }
  [[nodiscard]] const_iterator cend() const noexcept { return ptr_ + size_; }
  [[nodiscard]] reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  [[nodiscard]] reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  [[nodiscard]] const_reverse_iterator rbegin() const noexcept {
    return const_reverse_iterator(end());
  }
  [[nodiscard]] const_reverse_iterator rend() const noexcept {
    return const_reverse_iterator(begin());
  }
  [[nodiscard]] T& operator[](size_type i) noexcept { return ptr_[i]; }
  [[nodiscard]] const T& operator[](size_type i) const noexcept { return ptr_[i]; }
  [[nodiscard]] T& at(size_type i) {
    check(i);
    return ptr_[i];
  }
  [[nodiscard]] const T& at(size_type i) const {
    check(i);
    return ptr_[i];
  }
  [[nodiscard]] T& front() noexcept { return ptr_[0]; }
  [[nodiscard]] const T& front() const noexcept { return ptr_[0]; }
  [[nodiscard]] T& back() noexcept { return ptr_[size_ - 1]; }
  [[nodiscard]] const T& back() const noexcept { return ptr_[size_ - 1]; }

  /// True when the elements live in a decode's Arena (for tests and measurements).
  [[nodiscard]] bool in_arena() const noexcept { return (cap_ & arena_bit) != 0; }

  void reserve(size_type n) {
    if (n > capacity()) {
      reallocate(n);
    }
  }
  void shrink_to_fit() {
    if (size_ < capacity()) {
      reallocate(size_);
    }
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity()) {
      // Construct first: `args` may refer to an element that growing moves.
      T value(std::forward<Args>(args)...);
      reallocate(grown(size_ + 1));
      ::new (static_cast<void*>(ptr_ + size_)) T(std::move(value));
    } else {
      ::new (static_cast<void*>(ptr_ + size_)) T(std::forward<Args>(args)...);
    }
    return ptr_[size_++];
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  void pop_back() noexcept { ptr_[--size_].~T(); }
  void clear() noexcept {
    std::destroy(ptr_, ptr_ + size_);
    size_ = 0;
  }
  void resize(size_type n) {
    resize_with(n, [](T* p) { ::new (static_cast<void*>(p)) T(); });
  }
  void resize(size_type n, const T& value) {
    resize_with(n, [&value](T* p) { ::new (static_cast<void*>(p)) T(value); });
  }
  template <class... Args>
  iterator emplace(const_iterator pos, Args&&... args) {
    const auto i = static_cast<size_type>(pos - ptr_);
    emplace_back(std::forward<Args>(args)...);
    std::rotate(ptr_ + i, ptr_ + size_ - 1, ptr_ + size_);
    return ptr_ + i;
  }
  iterator insert(const_iterator pos, const T& value) { return emplace(pos, value); }
  iterator insert(const_iterator pos, T&& value) { return emplace(pos, std::move(value)); }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    const auto i = static_cast<size_type>(pos - ptr_);
    const size_type old = size_;
    for (; first != last; ++first) {
      emplace_back(*first);
    }
    std::rotate(ptr_ + i, ptr_ + old, ptr_ + size_);
    return ptr_ + i;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    T* f = ptr_ + (first - ptr_);
    T* l = ptr_ + (last - ptr_);
    if (f != l) {
      T* new_end = std::move(l, end(), f);
      std::destroy(new_end, end());
      size_ = static_cast<std::uint32_t>(new_end - ptr_);
    }
    return f;
  }
  void swap(Vector& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(size_, other.size_);
    std::swap(cap_, other.cap_);
  }

  /// Takes the elements of `items` by moving them into storage of exactly their count, from the
  /// current arena while decoding (so a decoded list keeps no spare capacity).
  void assign_moved(std::vector<T>& items) {
    reset();
    if (items.empty()) {
      return;
    }
    allocate(items.size());
    std::uninitialized_move(items.begin(), items.end(), ptr_);
    size_ = static_cast<std::uint32_t>(items.size());
  }

  friend bool operator==(const Vector& a, const Vector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  /// Element-wise, against a std::vector of anything T compares with (std::string for a
  /// Vector<String>).
  template <class U, class A>
  friend bool operator==(const Vector& a, const std::vector<U, A>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  // A template, so that the constraint is checked where the ordering is used: a model holds
  // a Vector of itself while still incomplete (JSONSchemaProps), and clang checks the
  // constraints of a plain friend when the class is instantiated.
  template <class U = T>
    requires std::three_way_comparable<U>
  friend auto operator<=>(const Vector& a, const Vector<U>& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr std::uint32_t arena_bit = 0x8000'0000U;
  static constexpr std::uint32_t cap_mask = 0x7FFF'FFFFU;
  static constexpr bool arena_ok = alignof(T) <= 8;

  void check(size_type i) const {
    if (i >= size_) {
      throw std::out_of_range("kubex::Vector::at: index out of range");
    }
  }
  [[nodiscard]] size_type grown(size_type need) const noexcept {
    return std::max({need, size_type{4}, capacity() * 2});
  }

  // Storage for `n` elements, with nothing in it.
  void allocate(size_type n) {
    if (n > cap_mask || n > std::numeric_limits<size_type>::max() / sizeof(T)) {
      throw std::length_error("kubex::Vector: too many elements");
    }
    Arena* a = arena_ok ? current_arena() : nullptr;
    if (a != nullptr) {
      ptr_ = static_cast<T*>(a->allocate(n * sizeof(T)));
      cap_ = static_cast<std::uint32_t>(n) | arena_bit;
    } else {
      ptr_ = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{alignof(T)}));
      cap_ = static_cast<std::uint32_t>(n);
    }
  }
  static void deallocate(T* p, std::uint32_t cap) noexcept {
    if (p == nullptr) {
      return;
    }
    if ((cap & arena_bit) != 0) {
      arena_release(p);
    } else {
      ::operator delete(static_cast<void*>(p), std::align_val_t{alignof(T)});
    }
  }
  void reallocate(size_type n) {
    T* old = ptr_;
    const std::uint32_t old_cap = cap_;
    allocate(n);
    std::uninitialized_move(old, old + size_, ptr_);
    std::destroy(old, old + size_);
    deallocate(old, old_cap);
  }
  void reset() noexcept {
    std::destroy(ptr_, ptr_ + size_);
    deallocate(ptr_, cap_);
    ptr_ = nullptr;
    size_ = 0;
    cap_ = 0;
  }
  template <class It>
  void assign_range(It first, It last) {
    if constexpr (std::forward_iterator<It>) {
      reserve(static_cast<size_type>(std::distance(first, last)));
    }
    for (; first != last; ++first) {
      emplace_back(*first);
    }
  }
  template <class Make>
  void resize_with(size_type n, Make make) {
    if (n < size_) {
      std::destroy(ptr_ + n, ptr_ + size_);
      size_ = static_cast<std::uint32_t>(n);
      return;
    }
    reserve(n);
    while (size_ < n) {
      make(ptr_ + size_);
      ++size_;
    }
  }

  T* ptr_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = 0;
};

}  // namespace kubex
