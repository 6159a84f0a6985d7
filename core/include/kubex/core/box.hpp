#pragma once

#include <utility>

namespace kubex {

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
  Box(T value) : ptr_(new T(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  /// Deep copy.
  Box(const Box& other) : ptr_(other.ptr_ ? new T(*other.ptr_) : nullptr) {}
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
      ptr_ = new T(std::move(value));
    }
    return *this;
  }
  ~Box() { delete ptr_; }

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
      ptr_ = new T();
    }
    return *ptr_;
  }
  /// Constructs a new value in place of the old one.
  template <class... Args>
  T& emplace(Args&&... args) {
    reset();
    ptr_ = new T(std::forward<Args>(args)...);
    return *ptr_;
  }
  /// Makes the Box absent.
  void reset() noexcept { delete std::exchange(ptr_, nullptr); }
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
  T* ptr_ = nullptr;
};

}  // namespace kubex
