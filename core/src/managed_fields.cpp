// SPDX-License-Identifier: Apache-2.0
// Field sets (structured-merge-diff's fieldsV1) applied to an object's JSON: see
// managed_fields.hpp.

#include <kubex/core/error.hpp>
#include <kubex/core/managed_fields.hpp>

#include "detail/json_dom.hpp"

#include <simdjson.h>

#include <string>
#include <string_view>

namespace kubex {

namespace {

namespace dom = simdjson::dom;
using json::detail::parse_dom;
using json::detail::same_json;

void write_element(json::Writer& w, dom::element e) {
  w.raw(simdjson::minify(e));
}

// A field set that names no child: the whole value is owned.
bool whole(dom::object set) {
  for (auto [key, child] : set) {
    if (key != ".") {
      return false;
    }
  }
  return true;
}

// Does list item `item` have the key fields of `k:{...}` (`keys`)?
bool matches_keys(dom::element item, dom::object keys) {
  dom::object object;
  if (item.get_object().get(object) != simdjson::SUCCESS) {
    return false;
  }
  for (auto [key, value] : keys) {
    dom::element have;
    if (object.at_key(key).get(have) != simdjson::SUCCESS || !same_json(have, value)) {
      return false;
    }
  }
  return true;
}

void extract(json::Writer& w, dom::element value, dom::object set);

void extract_object(json::Writer& w, dom::object object, dom::object set) {
  w.begin_object();
  for (auto [key, child_set] : set) {
    if (!key.starts_with("f:")) {
      continue;
    }
    const std::string_view name = key.substr(2);
    dom::element child;
    if (object.at_key(name).get(child) != simdjson::SUCCESS) {
      continue;  // owned but since removed by someone else
    }
    w.key(name);
    dom::object child_fields;
    if (child_set.get_object().get(child_fields) != simdjson::SUCCESS || whole(child_fields)) {
      write_element(w, child);
    } else {
      extract(w, child, child_fields);
    }
  }
  w.end_object();
}

void extract_array(json::Writer& w, dom::array array, dom::object set) {
  w.begin_array();
  std::size_t index = 0;
  for (dom::element item : array) {
    bool written = false;
    for (auto [key, item_set] : set) {
      if (written) {
        break;
      }
      dom::object item_fields;
      const bool has_fields = item_set.get_object().get(item_fields) == simdjson::SUCCESS;
      bool hit = false;
      if (key.starts_with("k:")) {
        // A parser of its own: the set's parser holds the set it walks.
        dom::parser key_parser;
        const dom::element keys = parse_dom(key_parser, key.substr(2), "a field set's list key");
        dom::object key_object;
        hit = keys.get_object().get(key_object) == simdjson::SUCCESS &&
              matches_keys(item, key_object);
      } else if (key.starts_with("v:")) {
        dom::parser value_parser;
        hit = same_json(item, parse_dom(value_parser, key.substr(2), "a field set's set value"));
      } else if (key.starts_with("i:")) {
        hit = key.substr(2) == std::to_string(index);
      }
      if (hit) {
        if (!has_fields || whole(item_fields)) {
          write_element(w, item);
        } else {
          extract(w, item, item_fields);
        }
        written = true;
      }
    }
    ++index;
  }
  w.end_array();
}

void extract(json::Writer& w, dom::element value, dom::object set) {
  dom::object object;
  dom::array array;
  if (value.get_object().get(object) == simdjson::SUCCESS) {
    extract_object(w, object, set);
  } else if (value.get_array().get(array) == simdjson::SUCCESS) {
    extract_array(w, array, set);
  } else {
    write_element(w, value);
  }
}

}  // namespace

std::string extract_fields(std::string_view object, std::string_view fields_v1) {
  dom::parser object_parser;
  dom::parser set_parser;
  const dom::element doc = parse_dom(object_parser, object, "the object");
  const dom::element set = parse_dom(set_parser, fields_v1, "the field set");
  dom::object set_object;
  if (set.get_object().get(set_object) != simdjson::SUCCESS) {
    throw json::DecodeError("the field set is not a JSON object");
  }
  std::string out;
  json::Writer w(out);
  extract(w, doc, set_object);
  return out;
}

std::string applied_fields(std::string_view object, std::string_view manager,
                           std::string_view subresource) {
  dom::parser parser;
  const dom::element doc = parse_dom(parser, object, "the object");
  dom::array entries;
  if (doc["metadata"]["managedFields"].get(entries) != simdjson::SUCCESS) {
    return {};
  }
  for (dom::element entry : entries) {
    std::string_view name;
    std::string_view operation;
    std::string_view sub;
    if (entry["manager"].get(name) != simdjson::SUCCESS || name != manager ||
        entry["operation"].get(operation) != simdjson::SUCCESS || operation != "Apply") {
      continue;
    }
    if (entry["subresource"].get(sub) != simdjson::SUCCESS) {
      sub = {};
    }
    dom::element fields;
    if (sub == subresource && entry["fieldsV1"].get(fields) == simdjson::SUCCESS) {
      return std::string(simdjson::minify(fields));
    }
  }
  return {};
}

}  // namespace kubex
