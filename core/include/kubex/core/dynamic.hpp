// SPDX-License-Identifier: Apache-2.0
#pragma once

// Objects of kinds known only at run time (a CRD found by discovery, a kind named on a command
// line): apiVersion, kind and typed metadata, plus every other top-level field (spec, status,
// data, ...) kept verbatim as JSON. Parts can be read into typed structs on demand.

#include <kubex/core/custom_resource.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/resource.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex {

/// Where a resource known only at run time is served, and what it supports: what
/// resource_traits say at compile time, found by discovery (or written by hand).
struct ApiResource {
  /// API group; "" for the core group.
  std::string group{};
  /// Version, e.g. "v1".
  std::string version{};
  /// Kind, e.g. "CronTab".
  std::string kind{};
  /// Plural resource name used in paths, e.g. "crontabs".
  std::string plural{};
  /// Singular name, e.g. "crontab" (may be empty on old servers).
  std::string singular{};
  /// Namespaced or cluster-wide.
  Scope scope = Scope::namespaced;
  /// Verbs the server accepts on the resource.
  Verbs verbs{};
  /// Short names, e.g. {"ct"}.
  std::vector<std::string> short_names{};
  /// Categories, e.g. {"all"}.
  std::vector<std::string> categories{};
  /// Subresources, e.g. {"status", "scale"}.
  std::vector<std::string> subresources{};

  /// "group/version", or "version" for the core group.
  [[nodiscard]] std::string api_version() const {
    return group.empty() ? version : group + "/" + version;
  }
  /// The ApiResource of a type with resource_traits.
  template <resource T>
  static ApiResource of() {
    using R = resource_traits<T>;
    ApiResource r{std::string(R::group), std::string(R::version), std::string(R::kind),
                  std::string(R::plural)};
    r.scope = R::scope;
    r.verbs = R::verbs;
    for (const auto& s : R::subresources) {
      r.subresources.emplace_back(s.name);
    }
    return r;
  }
};

/// An object of any kind. `Meta` is the ObjectMeta type of the models in use, e.g.
/// `kubex::DynamicObject<kubex::api::meta::v1::ObjectMeta>`.
template <class Meta>
struct DynamicObject {
  /// "group/version".
  std::string api_version{};
  /// Kind.
  std::string kind{};
  /// Metadata, typed.
  Meta metadata{};
  /// Every other top-level field, verbatim, in the order read or set.
  std::vector<std::pair<std::string, RawJson>> fields{};

  /// The raw JSON of top-level field `name` (e.g. "spec"), or nullptr.
  [[nodiscard]] const RawJson* get(std::string_view name) const noexcept {
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [name](const auto& f) { return f.first == name; });
    return it == fields.end() ? nullptr : &it->second;
  }
  /// Field `name` decoded as a T (a struct with a kubex codec, a map, a string...).
  /// @throws kubex::Error (errc::invalid_argument) if the field is absent, json::DecodeError if
  ///         it does not fit T.
  template <class T>
  [[nodiscard]] T get_as(std::string_view name) const {
    const RawJson* raw = get(name);
    if (raw == nullptr) {
      std::string message = kind;
      message.append(": no field \"").append(name).append("\"");
      throw Error(errc::invalid_argument, message);
    }
    T out{};
    json::decode(raw->text, out);
    return out;
  }
  /// Sets top-level field `name` to `value` (raw JSON), replacing it if present.
  void set(std::string_view name, RawJson value) {
    for (auto& f : fields) {
      if (f.first == name) {
        f.second = std::move(value);
        return;
      }
    }
    fields.emplace_back(std::string(name), std::move(value));
  }
  /// Sets top-level field `name` to `value`, encoded with its codec.
  template <class T>
  void set_as(std::string_view name, const T& value) {
    set(name, RawJson{json::encode(value)});
  }
  /// Removes top-level field `name`; false if it was absent.
  bool erase(std::string_view name) {
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [name](const auto& f) { return f.first == name; });
    if (it == fields.end()) {
      return false;
    }
    fields.erase(it);
    return true;
  }
  /// Field-by-field equality.
  friend bool operator==(const DynamicObject&, const DynamicObject&) = default;
};

/// A list of objects of any kind.
template <class Meta>
struct DynamicList {
  /// apiVersion as sent.
  std::string api_version{};
  /// kind as sent ("<Kind>List").
  std::string kind{};
  /// Paging and resource version.
  ListMetadata metadata{};
  /// The objects.
  std::vector<DynamicObject<Meta>> items{};
  /// Field-by-field equality.
  friend bool operator==(const DynamicList&, const DynamicList&) = default;
};

/// JSON fields of DynamicList.
template <class Meta>
constexpr auto kubex_fields(const DynamicList<Meta>*) noexcept {
  using L = DynamicList<Meta>;
  return std::tuple{json::field("apiVersion", &L::api_version), json::field("kind", &L::kind),
                    json::field("metadata", &L::metadata), json::field("items", &L::items)};
}

}  // namespace kubex

namespace kubex::json {

/// apiVersion, kind and metadata typed; every other field kept raw, in order.
template <class Meta>
struct Codec<DynamicObject<Meta>> {
  static void read(Reader& r, DynamicObject<Meta>& o) {
    o = DynamicObject<Meta>{};
    r.for_each_field([&o](std::string_view key, Reader& v) {
      if (key == "apiVersion") {
        json::read(v, o.api_version);
      } else if (key == "kind") {
        json::read(v, o.kind);
      } else if (key == "metadata") {
        json::read(v, o.metadata);
      } else {
        o.fields.emplace_back(std::string(key), RawJson{v.get_raw()});
      }
    });
  }
  static void write(Writer& w, const DynamicObject<Meta>& o) {
    w.begin_object();
    w.key_literal("\"apiVersion\":");
    w.string(o.api_version);
    w.key_literal("\"kind\":");
    w.string(o.kind);
    w.key_literal("\"metadata\":");
    json::write(w, o.metadata);
    for (const auto& [name, value] : o.fields) {
      w.key(name);
      w.raw(value.text.empty() ? "null" : value.text);
    }
    w.end_object();
  }
};

}  // namespace kubex::json
