// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubex::Map<K, V>: the map type of the generated models (labels, annotations, resource
// quantities). A sorted kubex::Vector of pairs: 16 bytes, one block of memory for all its
// entries (std::map takes one per entry), found by binary search. It has std::map's interface
// for what models need: operator[], find, contains, at, insert, emplace, erase, and iteration in
// key order. Keys are not to be changed through an iterator: that would break the order.

#include <kubex/core/vector.hpp>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kubex {

/// A compact sorted map; see the file comment.
template <class K, class V>
class Map {
 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using size_type = std::size_t;
  using iterator = value_type*;
  using const_iterator = const value_type*;

  Map() noexcept = default;
  Map(std::initializer_list<value_type> entries) {
    for (const auto& e : entries) {
      insert(e);
    }
  }
  /// From a std::map, entry by entry.
  template <class K2, class V2, class C, class A>
  Map(const std::map<K2, V2, C, A>& m) {  // NOLINT(google-explicit-constructor)
    items_.reserve(m.size());
    for (const auto& [k, v] : m) {
      insert_or_assign(k, v);
    }
  }

  [[nodiscard]] size_type size() const noexcept { return items_.size(); }
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }
  [[nodiscard]] iterator begin() noexcept { return items_.begin(); }
  [[nodiscard]] iterator end() noexcept { return items_.end(); }
  [[nodiscard]] const_iterator begin() const noexcept { return items_.begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return items_.end(); }
  void clear() noexcept { items_.clear(); }

  template <class Key>
  [[nodiscard]] iterator find(const Key& key) noexcept {
    auto* it = lower_bound(key);
    return it != end() && it->first == key ? it : end();
  }
  template <class Key>
  [[nodiscard]] const_iterator find(const Key& key) const noexcept {
    return const_cast<Map*>(this)->find(key);
  }
  template <class Key>
  [[nodiscard]] bool contains(const Key& key) const noexcept {
    return find(key) != end();
  }
  template <class Key>
  [[nodiscard]] size_type count(const Key& key) const noexcept {
    return contains(key) ? 1 : 0;
  }
  template <class Key>
  [[nodiscard]] V& at(const Key& key) {
    auto* it = find(key);
    if (it == end()) {
      throw std::out_of_range("kubex::Map::at: no such key");
    }
    return it->second;
  }
  template <class Key>
  [[nodiscard]] const V& at(const Key& key) const {
    return const_cast<Map*>(this)->at(key);
  }
  /// The value of `key`, inserted default-constructed if absent.
  template <class Key>
  V& operator[](const Key& key) {
    return try_emplace(key).first->second;
  }

  /// Inserts `args` as the value of `key` unless the key is present.
  template <class Key, class... Args>
  std::pair<iterator, bool> try_emplace(const Key& key, Args&&... args) {
    auto* it = lower_bound(key);
    if (it != end() && it->first == key) {
      return {it, false};
    }
    const auto i = it - begin();
    items_.emplace(it, std::piecewise_construct, std::forward_as_tuple(key),
                   std::forward_as_tuple(std::forward<Args>(args)...));
    return {begin() + i, true};
  }
  std::pair<iterator, bool> insert(const value_type& entry) {
    return try_emplace(entry.first, entry.second);
  }
  std::pair<iterator, bool> insert(value_type&& entry) {
    return try_emplace(entry.first, std::move(entry.second));
  }
  template <class Key, class Value>
  std::pair<iterator, bool> emplace(Key&& key, Value&& value) {
    return try_emplace(key, std::forward<Value>(value));
  }
  template <class Key, class Value>
  std::pair<iterator, bool> insert_or_assign(const Key& key, Value&& value) {
    auto r = try_emplace(key);
    r.first->second = std::forward<Value>(value);
    return r;
  }
  /// As above, the key moved in (a decoded key stays in the decode's arena; a copy would not).
  template <class Value>
  std::pair<iterator, bool> insert_or_assign(K&& key, Value&& value) {
    auto* it = lower_bound(key);
    if (it != end() && it->first == key) {
      it->second = std::forward<Value>(value);
      return {it, false};
    }
    const auto i = it - begin();
    items_.emplace(it, std::move(key), std::forward<Value>(value));
    return {begin() + i, true};
  }
  template <class Key>
  size_type erase(const Key& key)
    requires(!std::is_convertible_v<const Key&, const_iterator>)
  {
    auto* it = find(key);
    if (it == end()) {
      return 0;
    }
    items_.erase(it);
    return 1;
  }
  iterator erase(const_iterator pos) { return items_.erase(pos); }
  void swap(Map& other) noexcept { items_.swap(other.items_); }

  /// Takes decoded entries in any order by moving them; a repeated key keeps its last value,
  /// as decoding into std::map did.
  void assign_moved(std::vector<value_type>& entries) {
    const auto by_key = [](const value_type& a, const value_type& b) {
      return a.first < b.first;
    };
    if (!std::is_sorted(entries.begin(), entries.end(), by_key)) {
      std::stable_sort(entries.begin(), entries.end(), by_key);
    }
    // Keep the last of equal keys: walk backwards, drop a key seen just after.
    auto out = entries.end();
    for (auto it = entries.end(); it != entries.begin();) {
      --it;
      if (out != entries.end() && !(it->first < out->first)) {
        continue;
      }
      --out;
      if (out != it) {
        *out = std::move(*it);
      }
    }
    entries.erase(entries.begin(), out);
    items_.assign_moved(entries);
  }

  friend bool operator==(const Map& a, const Map& b) { return a.items_ == b.items_; }

 private:
  template <class Key>
  iterator lower_bound(const Key& key) noexcept {
    return std::lower_bound(begin(), end(), key,
                            [](const value_type& e, const Key& k) { return e.first < k; });
  }

  Vector<value_type> items_;
};

}  // namespace kubex
