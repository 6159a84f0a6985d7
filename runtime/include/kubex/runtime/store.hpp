// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reflector's store: the objects a watcher's events describe, readable from any thread
// while the events are applied, with the initial state swapped in whole at init_done, and
// indexes (by namespace, and any others the caller defines) kept up to date with each change.

#include <kubex/runtime/watcher_event.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kubex::runtime {

/// The key of an object in a Store: "namespace/name", or "name" for a cluster-scoped one (as
/// client-go's MetaNamespaceKeyFunc).
template <class K>
[[nodiscard]] std::string object_key(const K& object) {
  const auto& meta = object.metadata;
  std::string key;
  if (meta.namespace_ && !meta.namespace_->empty()) {
    key.append(*meta.namespace_).push_back('/');
  }
  key.append(meta.name.value_or(""));
  return key;
}

/// The objects of a watcher, by key. apply() is called by one writer (the reflector); every
/// reader (get, list, by_index, wait_until_ready) may run on any thread meanwhile. Objects are
/// shared and immutable: a reader keeps what it got even after the store moves on.
template <class K>
class Store {
 public:
  /// An object held by the store.
  using object_ptr = std::shared_ptr<const K>;
  /// Computes the values an object is indexed under.
  using IndexFunc = std::function<std::vector<std::string>(const K&)>;

  /// An empty store with the built-in index "namespace".
  Store() {
    add_index("namespace", [](const K& o) {
      const auto& ns = o.metadata.namespace_;
      return ns && !ns->empty() ? std::vector<std::string>{*ns} : std::vector<std::string>{};
    });
  }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Adds index `name`, filled from what is stored now and kept up to date.
  void add_index(std::string name, IndexFunc values) {
    const std::unique_lock lock(mutex_);
    Index& index = indexes_[name];
    index.values = std::move(values);
    fill(index);
  }

  /// Applies one event of a watcher: init starts a new state, init_apply adds to it, init_done
  /// swaps it in at once (readers see the old state or the new one, never a mix), apply and
  /// deleted change one object. Returns the event's object as now shared (for deleted, its
  /// last state, no longer stored); null for init and init_done.
  object_ptr apply(WatcherEvent<K> event) {
    switch (event.type) {
      case WatcherEventType::init:
        building_.clear();
        listing_ = true;
        return nullptr;
      case WatcherEventType::init_apply: {
        std::string key = object_key(event.object);
        auto object = std::make_shared<const K>(std::move(event.object));
        building_[std::move(key)] = object;
        return object;
      }
      case WatcherEventType::init_done: {
        {
          const std::unique_lock lock(mutex_);
          objects_.swap(building_);
          for (auto& [name, index] : indexes_) {
            fill(index);
          }
          ready_ = true;
        }
        building_.clear();
        listing_ = false;
        ready_changed_.notify_all();
        return nullptr;
      }
      case WatcherEventType::apply: {
        std::string key = object_key(event.object);
        auto object = std::make_shared<const K>(std::move(event.object));
        const std::unique_lock lock(mutex_);
        auto& slot = objects_[key];
        if (slot) {
          unindex(key, *slot);
        }
        slot = object;
        index(key, *slot);
        return object;
      }
      case WatcherEventType::deleted: {
        const std::string key = object_key(event.object);
        auto last = std::make_shared<const K>(std::move(event.object));
        const std::unique_lock lock(mutex_);
        const auto it = objects_.find(key);
        if (it != objects_.end()) {
          unindex(key, *it->second);
          objects_.erase(it);
        }
        return last;
      }
    }
    return nullptr;
  }

  /// The writer's side only (while no event is being applied): the (re)list being received,
  /// by key, or null when none is.
  [[nodiscard]] const std::unordered_map<std::string, object_ptr>* listing() const {
    return listing_ ? &building_ : nullptr;
  }

  /// The object stored under `key` ("namespace/name" or "name"), or null.
  [[nodiscard]] object_ptr get(std::string_view key) const {
    const std::shared_lock lock(mutex_);
    const auto it = objects_.find(std::string(key));
    return it == objects_.end() ? nullptr : it->second;
  }
  /// Every object stored.
  [[nodiscard]] std::vector<object_ptr> list() const {
    const std::shared_lock lock(mutex_);
    std::vector<object_ptr> out;
    out.reserve(objects_.size());
    for (const auto& [key, object] : objects_) {
      out.push_back(object);
    }
    return out;
  }
  /// The objects index `name` files under `value` (e.g. by_index("namespace", "default")),
  /// in key order. Unknown indexes and values give none.
  [[nodiscard]] std::vector<object_ptr> by_index(std::string_view name,
                                                 std::string_view value) const {
    const std::shared_lock lock(mutex_);
    std::vector<object_ptr> out;
    const auto index = indexes_.find(std::string(name));
    if (index == indexes_.end()) {
      return out;
    }
    const auto keys = index->second.keys.find(std::string(value));
    if (keys == index->second.keys.end()) {
      return out;
    }
    for (const auto& key : keys->second) {
      out.push_back(objects_.at(key));
    }
    return out;
  }
  /// The number of objects stored.
  [[nodiscard]] std::size_t size() const {
    const std::shared_lock lock(mutex_);
    return objects_.size();
  }
  /// True once the first initial state was swapped in.
  [[nodiscard]] bool ready() const {
    const std::shared_lock lock(mutex_);
    return ready_;
  }
  /// Waits until ready(), at most `timeout`; returns ready().
  bool wait_until_ready(std::chrono::milliseconds timeout) const {
    std::shared_lock lock(mutex_);
    return ready_changed_.wait_for(lock, timeout, [this] { return ready_; });
  }

 private:
  struct Index {
    IndexFunc values;
    std::map<std::string, std::set<std::string>> keys;  // value -> keys of the objects
  };

  // mutex_ held exclusively.
  void fill(Index& index) {
    index.keys.clear();
    for (const auto& [key, object] : objects_) {
      for (auto& value : index.values(*object)) {
        index.keys[std::move(value)].insert(key);
      }
    }
  }
  void index(const std::string& key, const K& object) {
    for (auto& [name, index] : indexes_) {
      for (auto& value : index.values(object)) {
        index.keys[std::move(value)].insert(key);
      }
    }
  }
  void unindex(const std::string& key, const K& object) {
    for (auto& [name, index] : indexes_) {
      for (const auto& value : index.values(object)) {
        const auto it = index.keys.find(value);
        if (it != index.keys.end()) {
          it->second.erase(key);
          if (it->second.empty()) {
            index.keys.erase(it);
          }
        }
      }
    }
  }

  mutable std::shared_mutex mutex_;
  mutable std::condition_variable_any ready_changed_;
  std::unordered_map<std::string, object_ptr> objects_;
  std::map<std::string, Index> indexes_;
  bool ready_ = false;
  std::unordered_map<std::string, object_ptr> building_;  // the writer's only
  bool listing_ = false;                                  // the writer's only
};

}  // namespace kubex::runtime
