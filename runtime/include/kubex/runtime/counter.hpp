// SPDX-License-Identifier: Apache-2.0
#pragma once

// A statistics counter that one thread (the I/O thread) increments while any other reads it.

#include <atomic>
#include <cstdint>
#include <ostream>

namespace kubex::runtime {

/// A count written by one thread and read by any: a copyable std::atomic, so that a struct of
/// them (WatcherStats) stays a plain value to copy and compare. Relaxed: a count orders nothing,
/// and a copy of several is each one's value, not one instant's.
class Counter {
 public:
  /// Starts at `value`; implicit, so that `Counter n = 0;` reads as the integer it replaces.
  constexpr Counter(std::uint64_t value = 0) noexcept : value_(value) {}  // NOLINT
  /// Copies `other`'s value now.
  Counter(const Counter& other) noexcept : value_(other.load()) {}
  /// Takes `other`'s value now.
  Counter& operator=(const Counter& other) noexcept {
    value_.store(other.load(), std::memory_order_relaxed);
    return *this;
  }
  ~Counter() = default;

  /// Adds one.
  Counter& operator++() noexcept {
    value_.fetch_add(1, std::memory_order_relaxed);
    return *this;
  }
  /// Adds `n`.
  Counter& operator+=(std::uint64_t n) noexcept {
    value_.fetch_add(n, std::memory_order_relaxed);
    return *this;
  }
  /// The count now.
  [[nodiscard]] std::uint64_t load() const noexcept {
    return value_.load(std::memory_order_relaxed);
  }
  /// The count now, as the integer it replaces.
  operator std::uint64_t() const noexcept { return load(); }  // NOLINT

  /// Prints the count (test failures show it).
  friend std::ostream& operator<<(std::ostream& out, const Counter& counter) {
    return out << counter.load();
  }

 private:
  std::atomic<std::uint64_t> value_;
};

}  // namespace kubex::runtime
