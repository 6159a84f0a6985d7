// SPDX-License-Identifier: Apache-2.0
#pragma once

// The plain event stream of a reflector: added, modified, deleted, as client-go's informer
// handlers (OnAdd, OnUpdate, OnDelete) see them. Every object already stored comes first as
// added; a relist is turned into the additions, modifications and deletions it implies, so a
// consumer that keeps no state of its own misses no change and sees none twice.

#include <kubex/client/completion_token.hpp>
#include <kubex/client/inline_guard.hpp>
#include <kubex/runtime/store.hpp>
#include <kubex/runtime/subscription.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/compose.hpp>

#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kubex::runtime {

/// What happened to an object.
enum class ChangeType { added, modified, deleted };

/// One change, with the stored objects themselves (shared, not copied).
template <class K>
struct Change {
  /// What happened.
  ChangeType type = ChangeType::added;
  /// The object now (for deleted: its last state).
  std::shared_ptr<const K> object{};
  /// The object before (modified only).
  std::shared_ptr<const K> old{};
  /// Part of the state the stream started from (the store's objects, or the first list),
  /// not a change seen since: a controller reconciles these after live changes.
  bool initial = false;
};

/// A consumer's plain event stream (BasicReflector::changes). One async_next at a time; it
/// fails as its Subscription does (cut off when too far behind, canceled once the reflector
/// stopped): call changes() again, which starts over with every stored object as added.
template <class K>
class Changes {
 public:
  /// An object as the store holds it.
  using object_ptr = std::shared_ptr<const K>;
  /// Completion signature of async_next.
  using Signature = void(std::exception_ptr, Change<K>);

  /// Follows `subscription` from the state it starts at: `stored` (the store's objects, each
  /// delivered as added when `ready`) and, when a (re)list was being received, `listing`.
  Changes(Subscription<K> subscription, const std::vector<object_ptr>& stored, bool ready,
          const std::unordered_map<std::string, object_ptr>* listing)
      : subscription_(std::move(subscription)) {
    if (ready) {
      for (const auto& object : stored) {
        known_[object_key(*object)] = object;
        ready_.push_back({ChangeType::added, object, nullptr, true});
      }
    }
    synced_ = ready;
    if (listing != nullptr) {
      listing_.emplace(*listing);
    }
  }

  /// The next change.
  /// Cancellation: cancel() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_next(CompletionToken&& token = {}) {
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token,
                                                                  subscription_.get_executor());
  }
  /// Ends the stream from any thread (see Subscription::cancel).
  void cancel() { subscription_.cancel(); }

 private:
  using Map = std::unordered_map<std::string, object_ptr>;

  struct NextOp {
    Changes* c;
    client::InlineGuard inline_guard{};

    template <class Self>
    void operator()(Self& self) {
      if (c->ready_.empty()) {
        inline_guard.waited();
        c->subscription_.async_next(std::move(self));
      } else if (inline_guard.inline_now()) {
        inline_guard.post(self, c->subscription_.get_executor());
      } else {
        self.complete(nullptr, c->pop());
      }
    }

    template <class Self>
    void operator()(Self& self, std::exception_ptr error, StoreEvent<K> event) {
      if (error) {
        self.complete(std::move(error), Change<K>{});
        return;
      }
      c->feed(event);
      if (c->ready_.empty()) {
        c->subscription_.async_next(std::move(self));
      } else {
        self.complete(nullptr, c->pop());
      }
    }
  };

  Change<K> pop() {
    Change<K> change = std::move(ready_.front());
    ready_.pop_front();
    return change;
  }

  static bool same_version(const K& a, const K& b) {
    return a.metadata.resource_version == b.metadata.resource_version;
  }

  // The changes one store event implies, queued in ready_. An event may repeat what the
  // starting state already holds (same resourceVersion): it implies nothing.
  void feed(const StoreEvent<K>& event) {
    switch (event.type) {
      case WatcherEventType::init:
        listing_.emplace();
        break;
      case WatcherEventType::init_apply:
        if (listing_) {
          (*listing_)[object_key(*event.object)] = event.object;
        }
        break;
      case WatcherEventType::init_done:
        if (listing_) {
          swap_in(std::move(*listing_));
          listing_.reset();
        }
        break;
      case WatcherEventType::apply: {
        auto& slot = known_[object_key(*event.object)];
        if (!slot) {
          ready_.push_back({ChangeType::added, event.object, nullptr});
        } else if (!same_version(*slot, *event.object)) {
          ready_.push_back({ChangeType::modified, event.object, slot});
        }
        slot = event.object;
        break;
      }
      case WatcherEventType::deleted: {
        const auto it = known_.find(object_key(*event.object));
        if (it != known_.end()) {
          known_.erase(it);
          ready_.push_back({ChangeType::deleted, event.object, nullptr});
        }
        break;
      }
    }
  }

  // A relist's state replaces what was known: what is new was added, what differs modified,
  // what is gone deleted (its last known state).
  void swap_in(Map listed) {
    const bool initial = !std::exchange(synced_, true);  // the first list; a relist is changes
    for (const auto& [key, object] : listed) {
      const auto it = known_.find(key);
      if (it == known_.end()) {
        ready_.push_back({ChangeType::added, object, nullptr, initial});
      } else if (!same_version(*it->second, *object)) {
        ready_.push_back({ChangeType::modified, object, it->second});
      }
    }
    for (const auto& [key, object] : known_) {
      if (!listed.contains(key)) {
        ready_.push_back({ChangeType::deleted, object, nullptr});
      }
    }
    known_ = std::move(listed);
  }

  Subscription<K> subscription_;
  Map known_;                    // the state the changes so far describe
  std::optional<Map> listing_;   // a (re)list being received
  std::deque<Change<K>> ready_;  // changes not yet delivered
  bool synced_ = false;          // a first state was delivered
};

}  // namespace kubex::runtime
