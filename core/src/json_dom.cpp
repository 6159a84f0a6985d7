// SPDX-License-Identifier: Apache-2.0
#include "detail/json_dom.hpp"

#include <kubex/core/json.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace kubex::json::detail {

namespace dom = simdjson::dom;

namespace {

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

}  // namespace

dom::object as_object(dom::element e) {
  return unwrap<dom::object>(e.get_object());
}

dom::element parse_dom(dom::parser& parser, std::string_view text, const char* what) {
  dom::element doc;
  if (auto error = parser.parse(text.data(), text.size()).get(doc); error) {
    throw DecodeError(std::string(what) + " is not valid JSON: " + simdjson::error_message(error));
  }
  return doc;
}

bool same_json(dom::element a, dom::element b) {
  if (a.type() != b.type()) {
    const bool numbers = (a.is_number() && b.is_number());
    return numbers && double(a) == double(b);
  }
  switch (a.type()) {
    case dom::element_type::ARRAY: {
      const dom::array aa = unwrap<dom::array>(a.get_array());
      const dom::array ba = unwrap<dom::array>(b.get_array());
      if (aa.size() != ba.size()) {
        return false;
      }
      auto bi = ba.begin();
      for (dom::element e : aa) {
        if (!same_json(e, *bi)) {
          return false;
        }
        ++bi;
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      const dom::object ao = unwrap<dom::object>(a.get_object());
      const dom::object bo = unwrap<dom::object>(b.get_object());
      if (ao.size() != bo.size()) {
        return false;
      }
      for (auto [key, value] : ao) {
        dom::element other;
        if (bo.at_key(key).get(other) != simdjson::SUCCESS || !same_json(value, other)) {
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

}  // namespace kubex::json::detail
