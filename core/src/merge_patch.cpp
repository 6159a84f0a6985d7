// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/merge_patch.hpp>

#include <simdjson.h>

#include <string>
#include <string_view>
#include <utility>

namespace kubex::json {

namespace {

namespace dom = simdjson::dom;

dom::element parse(dom::parser& parser, std::string_view text, const char* what) {
  dom::element doc;
  if (auto error = parser.parse(text.data(), text.size()).get(doc); error) {
    throw DecodeError(std::string(what) + " is not valid JSON: " + simdjson::error_message(error));
  }
  return doc;
}

// The container an element holds; the caller has checked its type. (Binding the result of
// get_object().value_unsafe() directly would reference a destroyed temporary.)
template <class T, class Result>
T unwrap(Result&& result) {
  T out;
  if (std::forward<Result>(result).get(out) != simdjson::SUCCESS) {
    throw DecodeError("internal error: unexpected JSON type");
  }
  return out;
}
dom::object as_object(dom::element e) {
  return unwrap<dom::object>(e.get_object());
}
dom::array as_array(dom::element e) {
  return unwrap<dom::array>(e.get_array());
}

// Deep equality; object key order does not matter, number representation does not either
// (1 and 1.0 are the same value).
bool same(dom::element a, dom::element b) {
  if (a.type() != b.type()) {
    const bool numbers = (a.is_number() && b.is_number());
    return numbers && double(a) == double(b);
  }
  switch (a.type()) {
    case dom::element_type::ARRAY: {
      const dom::array aa = as_array(a);
      const dom::array ba = as_array(b);
      if (aa.size() != ba.size()) {
        return false;
      }
      auto bi = ba.begin();
      for (dom::element e : aa) {
        if (!same(e, *bi)) {
          return false;
        }
        ++bi;
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      const dom::object ao = as_object(a);
      const dom::object bo = as_object(b);
      if (ao.size() != bo.size()) {
        return false;
      }
      for (auto [key, value] : ao) {
        dom::element other;
        if (bo.at_key(key).get(other) != simdjson::SUCCESS || !same(value, other)) {
          return false;
        }
      }
      return true;
    }
    case dom::element_type::STRING:
      return std::string_view(a) == std::string_view(b);
    case dom::element_type::INT64:
      return int64_t(a) == int64_t(b);
    case dom::element_type::UINT64:
      return uint64_t(a) == uint64_t(b);
    case dom::element_type::DOUBLE:
      return double(a) == double(b);
    case dom::element_type::BOOL:
      return bool(a) == bool(b);
    case dom::element_type::NULL_VALUE:
      return true;
  }
  return false;
}

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
    } else if (!same(value, other)) {
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
  const dom::element a = parse(original_parser, original, "the original document");
  const dom::element b = parse(modified_parser, modified, "the modified document");
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
  const dom::element t = parse(target_parser, target, "the target document");
  const dom::element p = parse(patch_parser, patch, "the patch");
  std::string out;
  Writer w(out);
  apply(w, &t, p);
  return out;
}

}  // namespace kubex::json
