// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small, mutable JSON tree for the round-trip tests: parsed with simdjson's DOM (which is
// read-only), written back by a serializer of its own, and compared semantically. Objects keep
// their key order and may hold duplicate keys, which the probes in roundtrip_test.cpp rely on.
// Independent of kubex's codec on purpose: it is what the codec is checked against.

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex_test {

/// One JSON value.
struct Json {
  enum class Type { null, boolean, integer, unsigned_integer, real, string, array, object };

  Type type = Type::null;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double real = 0;
  std::string string{};
  std::vector<Json> array{};
  std::vector<std::pair<std::string, Json>> object{};
  /// Write this value's own punctuation with extra spaces (not its children's): a decoder
  /// that re-serializes the value loses them, one that keeps its raw text does not.
  bool spaced = false;

  [[nodiscard]] bool is_object() const noexcept { return type == Type::object; }
  [[nodiscard]] bool is_array() const noexcept { return type == Type::array; }
  [[nodiscard]] bool is_number() const noexcept {
    return type == Type::integer || type == Type::unsigned_integer || type == Type::real;
  }
  /// null, [] or {}: what Go decodes like an absent field.
  [[nodiscard]] bool is_empty_value() const noexcept {
    return type == Type::null || (type == Type::array && array.empty()) ||
           (type == Type::object && object.empty());
  }

  /// The first field named `key` of an object, or nullptr.
  [[nodiscard]] const Json* find(std::string_view key) const {
    if (type != Type::object) {
      return nullptr;
    }
    for (const auto& [k, v] : object) {
      if (k == key) {
        return &v;
      }
    }
    return nullptr;
  }
  [[nodiscard]] Json* find(std::string_view key) {
    return const_cast<Json*>(static_cast<const Json&>(*this).find(key));
  }
  /// The string at `key`, or "" when there is none.
  [[nodiscard]] std::string string_at(std::string_view key) const {
    const Json* v = find(key);
    return v != nullptr && v->type == Type::string ? v->string : std::string();
  }
};

/// Converts a simdjson DOM element.
inline Json from_dom(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  Json j;
  switch (e.type()) {
    case element_type::NULL_VALUE:
      j.type = Json::Type::null;
      break;
    case element_type::BOOL:
      j.type = Json::Type::boolean;
      j.boolean = e.get_bool().value();
      break;
    case element_type::INT64:
      j.type = Json::Type::integer;
      j.integer = e.get_int64().value();
      break;
    case element_type::UINT64:
      j.type = Json::Type::unsigned_integer;
      j.unsigned_integer = e.get_uint64().value();
      break;
    case element_type::DOUBLE:
      j.type = Json::Type::real;
      j.real = e.get_double().value();
      break;
    case element_type::STRING:
      j.type = Json::Type::string;
      j.string = std::string(e.get_string().value());
      break;
    case element_type::ARRAY: {
      j.type = Json::Type::array;
      const simdjson::dom::array array = e.get_array().value();
      for (simdjson::dom::element child : array) {
        j.array.push_back(from_dom(child));
      }
      break;
    }
    case element_type::OBJECT: {
      j.type = Json::Type::object;
      const simdjson::dom::object object = e.get_object().value();
      for (auto field : object) {
        j.object.emplace_back(std::string(field.key), from_dom(field.value));
      }
      break;
    }
  }
  return j;
}

/// Parses one JSON document. @throws std::runtime_error naming `what` if it is not JSON.
inline Json parse_json(std::string_view text, const std::string& what = "document") {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded(text);
  if (const auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    throw std::runtime_error(what + " is not JSON: " + simdjson::error_message(error) + ": " +
                             std::string(text.substr(0, 400)));
  }
  return from_dom(root);
}

inline void write_json_string(std::string_view s, std::string& out) {
  out.push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

/// Appends `j` as compact JSON (with spaces only where a node is marked `spaced`).
inline void write_json(const Json& j, std::string& out) {
  const char* colon = j.spaced ? " : " : ":";
  const char* comma = j.spaced ? " , " : ",";
  switch (j.type) {
    case Json::Type::null:
      out += "null";
      break;
    case Json::Type::boolean:
      out += j.boolean ? "true" : "false";
      break;
    case Json::Type::integer:
      out += std::to_string(j.integer);
      break;
    case Json::Type::unsigned_integer:
      out += std::to_string(j.unsigned_integer);
      break;
    case Json::Type::real: {
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof buf, j.real);
      std::string text(buf, r.ptr);
      if (text.find_first_of(".eE") == std::string::npos && std::isfinite(j.real)) {
        text += ".0";  // stays a floating-point number when read back
      }
      out += text;
      break;
    }
    case Json::Type::string:
      write_json_string(j.string, out);
      break;
    case Json::Type::array:
      out += j.spaced ? "[ " : "[";
      for (std::size_t i = 0; i < j.array.size(); ++i) {
        if (i > 0) {
          out += comma;
        }
        write_json(j.array[i], out);
      }
      out += j.spaced ? " ]" : "]";
      break;
    case Json::Type::object:
      out += j.spaced ? "{ " : "{";
      for (std::size_t i = 0; i < j.object.size(); ++i) {
        if (i > 0) {
          out += comma;
        }
        write_json_string(j.object[i].first, out);
        out += colon;
        write_json(j.object[i].second, out);
      }
      out += j.spaced ? " }" : "}";
      break;
  }
}

/// `j` as compact JSON.
inline std::string to_json(const Json& j) {
  std::string out;
  write_json(j, out);
  return out;
}

/// How strictly compare_json treats the second value.
enum class Compare {
  /// Everything in the first value must be in the second and equal, except that a null, []
  /// or {} in the first may be missing from the second; the second may add apiVersion and
  /// kind, nothing else. (What an encoder may do with what a server sent.)
  lossless,
  /// Same types, same fields, same values (key order aside).
  exact,
};

/// Compares `a` with `b` and appends a description of each difference, with its path, to
/// `problems` (at most `limit` of them).
inline void compare_json(const Json& a, const Json& b, const std::string& path, Compare mode,
                         std::vector<std::string>& problems, std::size_t limit = 20) {
  if (problems.size() >= limit) {
    return;
  }
  const std::string where = path.empty() ? "<root>" : path;
  if (a.is_number() && b.is_number()) {
    const bool a_real = a.type == Json::Type::real;
    const bool b_real = b.type == Json::Type::real;
    if (a_real != b_real) {
      problems.push_back(where + ": number " + to_json(a) + " became " + to_json(b));
    } else if (a_real ? a.real != b.real : to_json(a) != to_json(b)) {
      problems.push_back(where + ": " + to_json(a) + " became " + to_json(b));
    }
    return;
  }
  if (a.type != b.type) {
    problems.push_back(where + ": " + to_json(a).substr(0, 200) + " became " +
                       to_json(b).substr(0, 200));
    return;
  }
  switch (a.type) {
    case Json::Type::object:
      for (const auto& [key, value] : a.object) {
        const Json* other = b.find(key);
        const std::string child = path.empty() ? key : path + "." + key;
        if (other == nullptr) {
          if (mode == Compare::exact || !value.is_empty_value()) {
            problems.push_back(child + ": lost (was " + to_json(value).substr(0, 200) + ")");
          }
          continue;
        }
        compare_json(value, *other, child, mode, problems, limit);
      }
      for (const auto& [key, value] : b.object) {
        if (a.find(key) == nullptr &&
            (mode == Compare::exact || (key != "apiVersion" && key != "kind"))) {
          problems.push_back((path.empty() ? key : path + "." + key) + ": added (" +
                             to_json(value).substr(0, 200) + ")");
        }
      }
      break;
    case Json::Type::array:
      if (a.array.size() != b.array.size()) {
        problems.push_back(where + ": " + std::to_string(a.array.size()) + " elements became " +
                           std::to_string(b.array.size()));
        return;
      }
      for (std::size_t i = 0; i < a.array.size(); ++i) {
        compare_json(a.array[i], b.array[i], path + "[" + std::to_string(i) + "]", mode, problems,
                     limit);
      }
      break;
    case Json::Type::string:
      if (a.string != b.string) {
        problems.push_back(where + ": " + to_json(a).substr(0, 200) + " became " +
                           to_json(b).substr(0, 200));
      }
      break;
    case Json::Type::boolean:
      if (a.boolean != b.boolean) {
        problems.push_back(where + ": " + to_json(a) + " became " + to_json(b));
      }
      break;
    default:
      break;
  }
}

}  // namespace kubex_test
