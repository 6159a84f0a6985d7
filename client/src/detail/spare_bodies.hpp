// SPDX-License-Identifier: Apache-2.0
// Internal: response bodies given back by their readers (Transport::recycle), for the next
// responses to be read into: a client reading one large list after another then reuses the
// same multi-megabyte buffer instead of growing a fresh one. Never installed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kubex::client::detail {

/// A few empty strings with capacity, kept for reuse; safe from any thread.
class SpareBodies {
 public:
  /// Keeps at most `count` bodies of at most `max_capacity` bytes each.
  SpareBodies(std::size_t count, std::size_t max_capacity) : count_(count), max_(max_capacity) {
    bodies_.reserve(count_);
  }

  /// Takes `body`'s memory; keeps the largest buffers when full (a small one would only grow
  /// again on the next large list), and none above the cap, so that one huge response does
  /// not pin its memory for the client's life.
  void give(std::string&& body) noexcept {
    std::string taken(std::move(body));
    if (taken.capacity() > max_) {
      return;
    }
    taken.clear();
    const std::lock_guard lock(mutex_);
    if (bodies_.size() < count_) {
      bodies_.push_back(std::move(taken));  // capacity reserved: does not throw
      return;
    }
    auto smallest = std::min_element(
        bodies_.begin(), bodies_.end(),
        [](const std::string& a, const std::string& b) { return a.capacity() < b.capacity(); });
    if (smallest != bodies_.end() && smallest->capacity() < taken.capacity()) {
      smallest->swap(taken);
    }
  }

  /// An empty string, with the capacity of a kept body when there is one.
  std::string take() {
    const std::lock_guard lock(mutex_);
    if (bodies_.empty()) {
      return {};
    }
    std::string body = std::move(bodies_.back());
    bodies_.pop_back();
    return body;
  }

 private:
  std::size_t count_;
  std::size_t max_;
  std::mutex mutex_;
  std::vector<std::string> bodies_;
};

}  // namespace kubex::client::detail
