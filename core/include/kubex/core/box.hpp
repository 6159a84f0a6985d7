// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <type_traits>
#include <utility>

namespace kubex {

namespace box_detail {

// A type may declare, next to its definition, where its objects are created, copied and
// destroyed when a Box holds them (found by argument-dependent lookup):
//   T* kubex_box_new(std::type_identity<T>);    // new T()
//   T* kubex_box_copy(const T& from);           // new T(from)
//   void kubex_box_delete(T* p) noexcept;       // delete p
// The generated models declare them for every struct and define them in their group's .cpp:
// a user's translation unit that destroys a Pod then calls ~PodSpec there instead of compiling
// the destructors of everything below it (every Container, Volume, Probe...), which is most of
// what using a model used to cost to compile. Types without them (hand-written custom
// resources) get new and delete inline.
template <class T>
concept out_of_line = requires(T* p, const T& c) {
                        kubex_box_new(std::type_identity<T>{});
                        kubex_box_copy(c);
                        kubex_box_delete(p);
                      };

}  // namespace box_detail

/// An optional value stored on the heap: null when absent, deep-copied, compared by value.
///
/// Models use it for optional nested objects. Most of them are absent in real objects (a Pod
/// volume uses one of thirty sources), so a pointer-sized slot keeps models small, and it
/// allows recursive types. Unlike std::optional it works with incomplete types, and it costs
/// a fraction of std::optional's compile time across hundreds of model types.
template <class T>
class Box {
 public:
  /// An absent value.
  constexpr Box() noexcept = default;
  /// A present value.
  Box(T value) : ptr_(adopt(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  /// Deep copy.
  Box(const Box& other) : ptr_(other.ptr_ ? clone(*other.ptr_) : nullptr) {}
  /// Takes over other's value; other becomes absent.
  Box(Box&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  /// Deep copy.
  Box& operator=(const Box& other) {
    if (this != &other) {
      Box tmp(other);
      swap(tmp);
    }
    return *this;
  }
  /// Takes over other's value; other becomes absent.
  Box& operator=(Box&& other) noexcept {
    Box tmp(std::move(other));
    swap(tmp);
    return *this;
  }
  /// Replaces the value.
  Box& operator=(T value) {
    if (ptr_ != nullptr) {
      *ptr_ = std::move(value);
    } else {
      ptr_ = adopt(std::move(value));
    }
    return *this;
  }
  ~Box() { destroy(ptr_); }

  /// True when a value is present.
  [[nodiscard]] bool has_value() const noexcept { return ptr_ != nullptr; }
  /// True when a value is present.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

  /// The value; the Box must not be empty.
  T& operator*() noexcept { return *ptr_; }
  /// The value; the Box must not be empty.
  const T& operator*() const noexcept { return *ptr_; }
  /// Member access; the Box must not be empty.
  T* operator->() noexcept { return ptr_; }
  /// Member access; the Box must not be empty.
  const T* operator->() const noexcept { return ptr_; }
  /// The value or nullptr.
  T* get() noexcept { return ptr_; }
  /// The value or nullptr.
  const T* get() const noexcept { return ptr_; }

  /// The value, default-constructed first if absent: for building objects field by field,
  /// e.g. `pod.spec.ensure().containers.push_back(c)`.
  T& ensure() {
    if (ptr_ == nullptr) {
      ptr_ = make();
    }
    return *ptr_;
  }
  /// Constructs a new value in place of the old one.
  template <class... Args>
  T& emplace(Args&&... args) {
    reset();
    ptr_ = adopt(T(std::forward<Args>(args)...));
    return *ptr_;
  }
  /// Makes the Box absent.
  void reset() noexcept { destroy(std::exchange(ptr_, nullptr)); }
  /// Exchanges two Boxes without copying.
  void swap(Box& other) noexcept { std::swap(ptr_, other.ptr_); }

  /// Equal when both are absent or both hold equal values.
  friend bool operator==(const Box& a, const Box& b) {
    if (a.ptr_ == nullptr || b.ptr_ == nullptr) {
      return a.ptr_ == b.ptr_;
    }
    return *a.ptr_ == *b.ptr_;
  }

 private:
  // A value made by make(), so that the type's own hooks (which may use tagged or arena
  // memory, box_memory.hpp) are the only ones that allocate what destroy() frees.
  static T* adopt(T&& value) {
    T* p = make();
    try {
      *p = std::move(value);
    } catch (...) {
      destroy(p);
      throw;
    }
    return p;
  }
  static T* make() {
    if constexpr (box_detail::out_of_line<T>) {
      return kubex_box_new(std::type_identity<T>{});
    } else {
      return new T();
    }
  }
  static T* clone(const T& from) {
    if constexpr (box_detail::out_of_line<T>) {
      return kubex_box_copy(from);
    } else {
      return new T(from);
    }
  }
  static void destroy(T* p) noexcept {
    if (p == nullptr) {
      return;
    }
    if constexpr (box_detail::out_of_line<T>) {
      kubex_box_delete(p);
    } else {
      delete p;
    }
  }

  T* ptr_ = nullptr;
};

}  // namespace kubex
