// SPDX-License-Identifier: Apache-2.0
#pragma once

// Patch bodies for `PATCH`: the four types the apiserver accepts, each with its Content-Type,
// and a builder for RFC 6902 JSON patches with RFC 6901 pointer escaping.

#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kubex {

/// The patch types of the Kubernetes API.
enum class PatchType : std::uint8_t {
  json,       ///< RFC 6902 JSON Patch, `application/json-patch+json`.
  merge,      ///< RFC 7396 JSON Merge Patch, `application/merge-patch+json`.
  strategic,  ///< Strategic Merge Patch (built-in kinds only), `...strategic-merge-patch+json`.
  apply,      ///< Server-side apply, `application/apply-patch+yaml` (JSON is valid YAML).
};

/// The Content-Type header of a patch type.
[[nodiscard]] constexpr std::string_view content_type(PatchType type) noexcept {
  switch (type) {
    case PatchType::json:
      return "application/json-patch+json";
    case PatchType::merge:
      return "application/merge-patch+json";
    case PatchType::strategic:
      return "application/strategic-merge-patch+json";
    case PatchType::apply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

/// Escapes one reference token for a JSON pointer (RFC 6901 §3: '~' as "~0", '/' as "~1"),
/// e.g. the label key "app.kubernetes.io/name" becomes "app.kubernetes.io~1name".
[[nodiscard]] KUBEX_API std::string escape_pointer_token(std::string_view token);

/// The JSON pointer made of `tokens`, each escaped:
/// `json_pointer({"metadata", "labels", "app.kubernetes.io/name"})` is
/// "/metadata/labels/app.kubernetes.io~1name".
[[nodiscard]] KUBEX_API std::string json_pointer(std::initializer_list<std::string_view> tokens);

/// An RFC 6902 JSON Patch: a list of operations applied in order, atomically. Values are
/// written with their kubex codec, so strings, numbers, models and kubex::RawJson all work.
///
///     auto p = kubex::JsonPatch{}
///                  .test("/metadata/resourceVersion", rv)
///                  .replace("/spec/replicas", 3)
///                  .remove(kubex::json_pointer({"metadata", "labels", "app.kubernetes.io/name"}));
class KUBEX_API JsonPatch {
 public:
  /// Adds `value` at `path` (inserting into arrays; "/-" appends).
  template <class T>
  JsonPatch& add(std::string_view path, const T& value) {
    return op_with_value("add", path, value);
  }
  /// Removes the value at `path`.
  JsonPatch& remove(std::string_view path) { return op("remove", path, {}); }
  /// Replaces the value at `path`, which must exist.
  template <class T>
  JsonPatch& replace(std::string_view path, const T& value) {
    return op_with_value("replace", path, value);
  }
  /// Moves the value at `from` to `path`.
  JsonPatch& move(std::string_view from, std::string_view path) { return op("move", path, from); }
  /// Copies the value at `from` to `path`.
  JsonPatch& copy(std::string_view from, std::string_view path) { return op("copy", path, from); }
  /// Fails the whole patch unless the value at `path` equals `value`.
  template <class T>
  JsonPatch& test(std::string_view path, const T& value) {
    return op_with_value("test", path, value);
  }
  /// True when no operation was added.
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  /// The patch document, a JSON array.
  [[nodiscard]] std::string str() const { return body_ + "]"; }

 private:
  JsonPatch& op(std::string_view name, std::string_view path, std::string_view from);
  template <class T>
  JsonPatch& op_with_value(std::string_view name, std::string_view path, const T& value) {
    op(name, path, {});
    body_.pop_back();  // reopen the object to append "value"
    body_.append(",\"value\":");
    if constexpr (std::is_convertible_v<const T&, std::string_view> &&
                  !std::is_same_v<T, RawJson>) {
      json::Writer w(body_);
      w.string(std::string_view(value));
    } else {
      json::encode(value, body_);
    }
    body_.push_back('}');
    return *this;
  }
  std::string body_ = "[";
  std::size_t count_ = 0;
};

/// A patch: its type and its body.
class Patch {
 public:
  /// A JSON Merge Patch from its JSON text. `null` deletes a field:
  /// `Patch::merge(R"({"metadata":{"labels":{"stale":null}}})")`. See also
  /// kubex::json::create_merge_patch and kubex::Nullable.
  static Patch merge(std::string json) { return {PatchType::merge, std::move(json)}; }
  /// A Strategic Merge Patch from its JSON text (lists merge by their key, e.g. containers by
  /// name; `$patch: delete` and friends are passed through).
  static Patch strategic(std::string json) { return {PatchType::strategic, std::move(json)}; }
  /// A JSON Patch from its JSON text (an array of operations).
  static Patch json(std::string json) { return {PatchType::json, std::move(json)}; }
  /// A JSON Patch from the builder.
  static Patch json(const JsonPatch& patch) { return {PatchType::json, patch.str()}; }
  /// A server-side apply patch: the fully specified intent, as JSON or YAML text. It must carry
  /// apiVersion, kind and metadata.name (Api::apply writes them from the object).
  static Patch apply(std::string body) { return {PatchType::apply, std::move(body)}; }
  /// A merge, strategic or apply patch from a value (a model or any type with a kubex codec).
  /// Required fields left empty are not sent (json::Writer::Mode::partial): in a patch they
  /// would clear or claim what the caller never set.
  template <class T>
    requires(!std::is_convertible_v<const T&, std::string_view>)
  static Patch from(PatchType type, const T& value) {
    std::string body;
    json::encode(value, body, json::Writer::Mode::partial);
    return {type, std::move(body)};
  }

  /// The patch type.
  [[nodiscard]] PatchType type() const noexcept { return type_; }
  /// The body as sent.
  [[nodiscard]] const std::string& body() const noexcept { return body_; }
  /// The Content-Type header for the body.
  [[nodiscard]] std::string_view content_type() const noexcept {
    return kubex::content_type(type_);
  }

 private:
  Patch(PatchType type, std::string body) : type_(type), body_(std::move(body)) {}
  PatchType type_;
  std::string body_;
};

}  // namespace kubex
