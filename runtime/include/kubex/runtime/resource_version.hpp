// SPDX-License-Identifier: Apache-2.0
#pragma once

// resourceVersions: how two compare, and the one a watcher (so a reflector's store) has synced
// to, published for other threads to read and wait for.
//
// A resourceVersion is an opaque string to a client by the API's old rules, which promise only
// equality; client-go's reflector compares no more. Kubernetes 1.35 (KEP-5504, "Comparable
// Resource Version", stable) makes the versions of one resource comparable: a positive decimal
// integer without leading zeros, larger is newer (an etcd revision for kube-apiserver). kubex
// relies on that order only where both sides are such integers, and on equality otherwise.

#include <chrono>
#include <compare>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kubex::runtime {

/// The order of two resourceVersions of the same resource (KEP-5504): by value, when both are
/// positive decimal integers without leading zeros (of any length); std::nullopt otherwise (an
/// empty one, "0", or a server whose versions are not integers: then only equality means
/// anything). Versions of different resources, or a list's and an object's of another kind,
/// order nothing.
[[nodiscard]] constexpr std::optional<std::strong_ordering> compare_resource_versions(
    std::string_view a, std::string_view b) noexcept {
  const auto integer = [](std::string_view v) {
    if (v.empty() || v.front() == '0') {
      return false;
    }
    for (const char c : v) {
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  };
  if (!integer(a) || !integer(b)) {
    return std::nullopt;
  }
  if (a.size() != b.size()) {
    return a.size() <=> b.size();  // no leading zeros: the longer is the larger
  }
  const int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

/// True when `reached` is `target` or, both comparable, newer: a store synced to `reached`
/// holds every change up to `target`. Empty `target`: true.
[[nodiscard]] constexpr bool resource_version_reached(std::string_view reached,
                                                      std::string_view target) noexcept {
  if (target.empty() || reached == target) {
    return true;
  }
  const auto order = compare_resource_versions(reached, target);
  return order && *order >= 0;
}

/// A resourceVersion that one thread advances and any thread reads or waits for.
class SyncedResourceVersion {
 public:
  /// The version now; empty before the first.
  [[nodiscard]] std::string get() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return version_;
  }
  /// Waits until the version has reached `target` (resource_version_reached), at most
  /// `timeout`; returns whether it has. Never on the thread that advances it. With versions
  /// that are not integers only the very same version counts: one a bookmark passes is missed.
  bool wait_until_reached(std::string_view target, std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout,
                             [&] { return resource_version_reached(version_, target); });
  }
  /// Advances it to `version` and wakes the waiters.
  void set(std::string version) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (version_ == version) {
        return;
      }
      version_ = std::move(version);
    }
    changed_.notify_all();
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string version_;
};

}  // namespace kubex::runtime
