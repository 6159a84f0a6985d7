#pragma once

// JSON codecs of kubex's compact containers (String, Vector, Map). A decoded list or map is
// gathered in a scratch std::vector that the thread reuses, then moved into storage of its
// exact size in the decode's Arena: nothing a growing vector outgrew is left behind.

#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <type_traits>
#include <vector>

namespace kubex::json {

namespace detail {

// In user-declared objects (KUBEX_JSON_OBJECT), lists and maps read null as empty and are left
// out when empty, as std::vector and std::map are (see json_object.hpp).
template <class T>
struct null_aware<Vector<T>> : std::true_type {};
template <class T>
struct null_aware<Map<String, T>> : std::true_type {};

// A scratch vector of T for one decode; taken from the thread's spare and given back after,
// unless it grew past 64 KiB (a list of hundreds of items keeps no memory for later).
template <class T>
class Scratch {
 public:
  Scratch() : items_(std::move(spare())) { items_.clear(); }
  ~Scratch() {
    items_.clear();
    if (items_.capacity() * sizeof(T) <= (std::size_t{64} << 10)) {
      spare() = std::move(items_);
    }
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::vector<T>& items() noexcept { return items_; }

 private:
  static std::vector<T>& spare() {
    thread_local std::vector<T> s;
    return s;
  }
  std::vector<T> items_;
};

}  // namespace detail

template <>
struct Codec<String> {
  static void read(Reader& r, String& v) { v.assign(r.get_string()); }
  static void write(Writer& w, const String& v) { w.string(v.view()); }
};

template <class T>
struct Codec<Vector<T>> {
  static void read(Reader& r, Vector<T>& v) {
    if (r.is_null()) {
      v.clear();
      return;
    }
    detail::Scratch<T> scratch;
    auto& items = scratch.items();
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> has no bool& to read into (as in Codec<std::vector<bool>>).
      r.for_each_element([&items](Reader& e) {
        bool element = false;
        Codec<bool>::read(e, element);
        items.push_back(element);
      });
    } else {
      r.for_each_element([&items](Reader& e) { Codec<T>::read(e, items.emplace_back()); });
    }
    v.assign_moved(items);
  }
  static void write(Writer& w, const Vector<T>& v) {
    w.begin_array();
    for (const auto& e : v) {
      Codec<T>::write(w, e);
    }
    w.end_array();
  }
};

template <class T>
struct Codec<Map<String, T>> {
  static void read(Reader& r, Map<String, T>& v) {
    if (r.is_null()) {
      v.clear();
      return;
    }
    detail::Scratch<std::pair<String, T>> scratch;
    auto& entries = scratch.items();
    r.for_each_field([&entries](std::string_view key, Reader& e) {
      auto& entry = entries.emplace_back(String(key), T{});
      Codec<T>::read(e, entry.second);
    });
    v.assign_moved(entries);
  }
  static void write(Writer& w, const Map<String, T>& v) {
    w.begin_object();
    for (const auto& [key, e] : v) {
      w.key(key.view());
      Codec<T>::write(w, e);
    }
    w.end_object();
  }
};

}  // namespace kubex::json
