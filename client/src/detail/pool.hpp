// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: the transport's connection slots. HTTP/1.1 connections (busy or idle), HTTP/2
// sessions and a connection still being made each hold one slot; ClientOptions'
// max_connections (and _per_host) bound them. The pool keeps the idle HTTP/1.1 connections
// and the requests waiting for a slot. It does no I/O and reads no clock: the transport
// passes the time, so tests drive it with their own. Never installed.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace kubex::client::detail {

/// Slots and idle connections. `Conn` has `close()`, `idle_since` (a time point of `Clock`),
/// `generation` (of the TLS settings it was made with) and `timed_out` (closed for good by
/// the watchdog); `Waiter` has `wake()`. Used on one strand; open() may be read anywhere.
template <class Conn, class Waiter, class Clock = std::chrono::steady_clock>
class SlotPool {
 public:
  /// What the pool keeps and for how long.
  struct Limits {
    /// Slots in all (at least 1).
    std::size_t max_open = 1;
    /// An idle connection older than this is closed instead of reused.
    typename Clock::duration keep_alive_timeout{};
    /// Keep connections between requests at all.
    bool keep_alive = true;
  };

  explicit SlotPool(Limits limits) : limits_(limits) {
    limits_.max_open = std::max<std::size_t>(1, limits_.max_open);
  }

  /// Slots held now.
  [[nodiscard]] std::size_t open() const noexcept { return open_.load(); }
  /// The most slots there may be.
  [[nodiscard]] std::size_t limit() const noexcept { return limits_.max_open; }
  /// True when every slot is held.
  [[nodiscard]] bool full() const noexcept { return open_.load() >= limits_.max_open; }
  /// True when an idle connection is kept.
  [[nodiscard]] bool has_idle() const noexcept { return !idle_.empty(); }

  /// Takes a slot for a connection about to be made; false when every slot is held.
  bool reserve() {
    if (full()) {
      return false;
    }
    ++open_;
    return true;
  }

  /// Gives back the slot of a connection or session that is gone, and wakes one waiter.
  void forget() {
    --open_;
    wake_one();
  }

  /// The most recently used idle connection that is still fresh and of TLS generation
  /// `generation`, or null; stale ones met on the way are closed and their slots freed.
  std::unique_ptr<Conn> take_idle(typename Clock::time_point now, std::uint64_t generation) {
    while (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      if (now - connection->idle_since < limits_.keep_alive_timeout &&
          connection->generation == generation) {
        return connection;
      }
      close(std::move(connection));
    }
    return nullptr;
  }

  /// Takes a connection back after its exchange: kept idle (and a waiter woken) if
  /// `reusable`, keep-alive is on, it is of TLS generation `generation` and the watchdog did
  /// not close it; otherwise closed and its slot freed.
  void release(std::unique_ptr<Conn> connection, bool reusable, typename Clock::time_point now,
               std::uint64_t generation) {
    if (!connection) {
      return;
    }
    if (reusable && limits_.keep_alive && connection->generation == generation &&
        !connection->timed_out) {
      connection->idle_since = now;
      idle_.push_back(std::move(connection));
      wake_one();
      return;
    }
    close(std::move(connection));
  }

  /// Closes the least recently used idle connection, so that its slot can go to something
  /// else (an HTTP/2 session); false if none is idle.
  bool evict_oldest_idle() {
    if (idle_.empty()) {
      return false;
    }
    auto oldest = std::move(idle_.front());
    idle_.erase(idle_.begin());
    close(std::move(oldest));
    return true;
  }

  /// Closes every idle connection and frees their slots.
  void close_idle() {
    auto idle = std::move(idle_);
    idle_.clear();
    for (auto& connection : idle) {
      close(std::move(connection));
    }
  }

  /// Queues a request that waits for a slot or an idle connection; wake() is called once
  /// one may be there (first come, first woken).
  void wait(std::shared_ptr<Waiter> waiter) { waiters_.push_back(std::move(waiter)); }
  /// Drops a waiter that gave up (its deadline passed) before it was woken.
  void stop_waiting(const std::shared_ptr<Waiter>& waiter) { std::erase(waiters_, waiter); }
  /// Wakes the longest waiting request, if any.
  void wake_one() {
    if (!waiters_.empty()) {
      auto waiter = std::move(waiters_.front());
      waiters_.pop_front();
      waiter->wake();
    }
  }
  /// Wakes every waiting request (an HTTP/2 session now takes streams: each may ride it).
  void wake_all() {
    while (!waiters_.empty()) {
      wake_one();
    }
  }

 private:
  void close(std::unique_ptr<Conn> connection) {
    connection->close();
    forget();
  }

  Limits limits_;
  std::atomic<std::size_t> open_{0};
  std::vector<std::unique_ptr<Conn>> idle_;  // least recently used first
  std::deque<std::shared_ptr<Waiter>> waiters_;
};

}  // namespace kubex::client::detail
