// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/merge_patch.hpp>

#include "detail/json_dom.hpp"

#include <simdjson.h>

#include <string>
#include <string_view>
#include <utility>

namespace kubex::json {

namespace {

namespace dom = simdjson::dom;
using detail::as_object;
using detail::parse_dom;
using detail::same_json;

void write_value(Writer& w, dom::element e) {
  w.raw(simdjson::minify(e));
}

// Writes the patch from `a` to `b`; both are objects.
void diff(Writer& w, dom::object a, dom::object b) {
  w.begin_object();
  for (auto [key, value] : a) {
    dom::element other;
    if (b.at_key(key).get(other) != simdjson::SUCCESS) {
      w.key(key);
      w.null();
    } else if (!same_json(value, other)) {
      w.key(key);
      if (value.is_object() && other.is_object()) {
        diff(w, as_object(value), as_object(other));
      } else {
        write_value(w, other);
      }
    }
  }
  for (auto [key, value] : b) {
    dom::element unused;
    if (a.at_key(key).get(unused) != simdjson::SUCCESS) {
      w.key(key);
      write_value(w, value);
    }
  }
  w.end_object();
}

// RFC 7396 §2 MergePatch(Target, Patch); `target` is null when the target has no such field.
void apply(Writer& w, const dom::element* target, dom::element patch) {
  if (!patch.is_object()) {
    write_value(w, patch);
    return;
  }
  const dom::object p = as_object(patch);
  const bool target_is_object = target != nullptr && target->is_object();
  const dom::object t = target_is_object ? as_object(*target) : dom::object{};
  w.begin_object();
  if (target_is_object) {
    for (auto [key, value] : t) {
      dom::element change;
      if (p.at_key(key).get(change) != simdjson::SUCCESS) {
        w.key(key);
        write_value(w, value);
      } else if (!change.is_null()) {
        w.key(key);
        apply(w, &value, change);
      }
    }
  }
  for (auto [key, change] : p) {
    dom::element unused;
    const bool in_target = target_is_object && t.at_key(key).get(unused) == simdjson::SUCCESS;
    if (!in_target && !change.is_null()) {
      w.key(key);
      apply(w, nullptr, change);
    }
  }
  w.end_object();
}

}  // namespace

std::string create_merge_patch(std::string_view original, std::string_view modified) {
  dom::parser original_parser;
  dom::parser modified_parser;
  const dom::element a = parse_dom(original_parser, original, "the original document");
  const dom::element b = parse_dom(modified_parser, modified, "the modified document");
  std::string out;
  Writer w(out);
  if (a.is_object() && b.is_object()) {
    diff(w, as_object(a), as_object(b));
  } else {
    write_value(w, b);
  }
  return out;
}

std::string apply_merge_patch(std::string_view target, std::string_view patch) {
  dom::parser target_parser;
  dom::parser patch_parser;
  const dom::element t = parse_dom(target_parser, target, "the target document");
  const dom::element p = parse_dom(patch_parser, patch, "the patch");
  std::string out;
  Writer w(out);
  apply(w, &t, p);
  return out;
}

}  // namespace kubex::json
