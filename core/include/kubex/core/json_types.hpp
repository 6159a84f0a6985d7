// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON codecs of kubex's value types, as the Kubernetes API writes them. Generated model
// sources and user-defined types include this next to json.hpp.

#include <kubex/core/bytes.hpp>
#include <kubex/core/int_or_string.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/core/string_enum.hpp>
#include <kubex/core/time.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace kubex::json {

/// Enumerations travel as plain strings; unknown values are kept.
template <class T>
struct Codec<T, std::enable_if_t<std::is_base_of_v<StringEnumBase, T>>> {
  static void read(Reader& r, T& v) { v = T(r.get_string()); }
  static void write(Writer& w, const T& v) { w.string(v.value().view()); }
};

/// A quantity is a string ("500m", "1Gi"); a bare number is accepted too, as Go does.
template <>
struct Codec<Quantity> {
  static void read(Reader& r, Quantity& v) {
    const std::string_view text = r.type() == Reader::Type::number ? r.get_raw() : r.get_string();
    auto q = Quantity::parse(text);
    if (!q) {
      Reader::fail("invalid quantity \"" + std::string(text) + "\"");
    }
    v = std::move(*q);
  }
  static void write(Writer& w, const Quantity& v) { w.string(v.to_string()); }
};

/// metav1.Time: RFC 3339 in UTC with second precision.
template <>
struct Codec<Time> {
  static void read(Reader& r, Time& v) {
    const std::string_view text = r.get_string();
    auto t = Time::parse(text);
    if (!t) {
      Reader::fail("invalid RFC 3339 time \"" + std::string(text) + "\"");
    }
    v = *t;
  }
  static void write(Writer& w, const Time& v) { w.string(v.format()); }
};

/// metav1.MicroTime: RFC 3339 in UTC with six fractional digits.
template <>
struct Codec<MicroTime> {
  static void read(Reader& r, MicroTime& v) {
    const std::string_view text = r.get_string();
    auto t = MicroTime::parse(text);
    if (!t) {
      Reader::fail("invalid RFC 3339 time \"" + std::string(text) + "\"");
    }
    v = *t;
  }
  static void write(Writer& w, const MicroTime& v) { w.string(v.format()); }
};

/// IntOrString: a JSON number (32-bit) or a string.
template <>
struct Codec<IntOrString> {
  static void read(Reader& r, IntOrString& v) {
    if (r.type() == Reader::Type::number) {
      const std::int64_t i = r.get_int64();
      if (i < std::numeric_limits<std::int32_t>::min() ||
          i > std::numeric_limits<std::int32_t>::max()) {
        Reader::fail("expected a 32-bit integer or a string, got " + std::to_string(i));
      }
      v = IntOrString(static_cast<std::int32_t>(i));
    } else {
      v = IntOrString(r.get_string());
    }
  }
  static void write(Writer& w, const IntOrString& v) {
    if (v.is_int()) {
      w.int64(v.int_value());
    } else {
      w.string(v.string_value().view());
    }
  }
};

/// OpenAPI `format: byte`: standard base64 with padding.
template <>
struct Codec<Bytes> {
  static void read(Reader& r, Bytes& v) {
    auto b = Bytes::from_base64(r.get_string());
    if (!b) {
      Reader::fail("invalid base64");
    }
    v = std::move(*b);
  }
  static void write(Writer& w, const Bytes& v) { w.string(v.to_base64()); }
};

}  // namespace kubex::json
