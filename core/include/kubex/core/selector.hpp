// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

// Typed builders for the labelSelector and fieldSelector query parameters. Keys and values are
// checked when added, so a typo fails in the program with a message naming it, not as a 400
// from the server. Raw strings are accepted by ListParams/WatchParams as well.

#include <initializer_list>
#include <string>
#include <string_view>

namespace kubex {

/// A label selector: requirements joined by ',' (all must hold).
///
///     auto s = kubex::LabelSelector{}.eq("app", "web").in("tier", {"front",
///     "back"}).exists("team"); api.list({.label_selector = s.str()});  // "app=web,tier in
///     (front,back),team"
class KUBEX_API LabelSelector {
 public:
  /// `key=value`.
  LabelSelector& eq(std::string_view key, std::string_view value);
  /// `key!=value` (also matches objects without the label).
  LabelSelector& ne(std::string_view key, std::string_view value);
  /// `key in (v1,v2)`.
  LabelSelector& in(std::string_view key, std::initializer_list<std::string_view> values);
  /// `key notin (v1,v2)` (also matches objects without the label).
  LabelSelector& not_in(std::string_view key, std::initializer_list<std::string_view> values);
  /// `key`: the label is present, with any value.
  LabelSelector& exists(std::string_view key);
  /// `!key`: the label is absent.
  LabelSelector& not_exists(std::string_view key);
  /// The selector text; "" selects everything.
  [[nodiscard]] const std::string& str() const noexcept { return text_; }

 private:
  LabelSelector& set(std::string_view key, std::string_view op,
                     std::initializer_list<std::string_view> values);
  std::string text_;
};

/// A field selector: `field=value` / `field!=value` requirements joined by ','. Which fields a
/// resource supports is up to the server (metadata.name and metadata.namespace always work).
class KUBEX_API FieldSelector {
 public:
  /// `field=value`.
  FieldSelector& eq(std::string_view field, std::string_view value);
  /// `field!=value`.
  FieldSelector& ne(std::string_view field, std::string_view value);
  /// The selector text.
  [[nodiscard]] const std::string& str() const noexcept { return text_; }

 private:
  FieldSelector& add(std::string_view field, std::string_view op, std::string_view value);
  std::string text_;
};

/// True if `key` is a valid label key: an optional DNS-subdomain prefix and '/', then a name of
/// 1-63 characters [A-Za-z0-9_.-] starting and ending with an alphanumeric.
[[nodiscard]] KUBEX_API bool is_valid_label_key(std::string_view key) noexcept;
/// True if `value` is a valid label value: empty, or as a label key's name part.
[[nodiscard]] KUBEX_API bool is_valid_label_value(std::string_view value) noexcept;

}  // namespace kubex
