// Reading protobuf fields into the value types the generated models use. The generated
// `kubex_read_proto(protobuf::Reader&, T&)` of each model calls `protobuf::read` for a field's
// value once `Reader::next()` stands on it; overloads here cover scalars, enums, the
// apimachinery value types, and the containers, and hand embedded messages to the model's
// own reader, found by argument-dependent lookup.
#pragma once

#include <kubex/core/box.hpp>
#include <kubex/core/bytes.hpp>
#include <kubex/core/int_or_string.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/string_enum.hpp>
#include <kubex/core/time.hpp>

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kubex::protobuf {

/// A `string` field.
void read(Reader& r, std::string& out);
/// A `bool` field.
void read(Reader& r, bool& out);
/// An `int32` field.
void read(Reader& r, std::int32_t& out);
/// An `int64` field.
void read(Reader& r, std::int64_t& out);
/// A `double` field.
void read(Reader& r, double& out);
/// A `bytes` field.
void read(Reader& r, Bytes& out);
/// A resource.Quantity message ({string = 1}); a string that is not a quantity is refused.
void read(Reader& r, Quantity& out);
/// An intstr.IntOrString message ({type = 1, intVal = 2, strVal = 3}).
void read(Reader& r, IntOrString& out);
/// A metav1.Time message ({seconds = 1, nanos = 2}); the nanoseconds are dropped, as Go's
/// Time keeps seconds only on the wire in JSON.
void read(Reader& r, Time& out);
/// A metav1.MicroTime message ({seconds = 1, nanos = 2}), kept to the microsecond.
void read(Reader& r, MicroTime& out);
/// An optional metav1.Time: Go writes a zero time as an empty message, which JSON shows as
/// null, so it reads as absent.
void read(Reader& r, std::optional<Time>& out);
/// An optional metav1.MicroTime; an empty message reads as absent, as for Time.
void read(Reader& r, std::optional<MicroTime>& out);
/// A message whose field 1 holds JSON text: runtime.RawExtension, metav1.FieldsV1, the
/// apiextensions JSON type. A raw value that is not JSON (an embedded protobuf object) is
/// refused.
void read(Reader& r, RawJson& out);
/// An empty message that JSON shows as the free-form object `{}` (a marker type such as
/// CustomResourceSubresourceStatus); any field it carries is refused, so nothing is lost
/// silently.
void read_empty_object(Reader& r, RawJson& out);
/// A message wrapping a list of strings as its field 1 (metav1.Verbs, ExtraValue): JSON shows
/// the list itself.
void read_string_list(Reader& r, std::vector<std::string>& out);

/// An enumeration field: a string.
template <class E>
  requires std::derived_from<E, StringEnumBase>
void read(Reader& r, E& out) {
  out = E(r.string());
}

/// An embedded message, read by the model's own `kubex_read_proto`.
template <class T>
  requires requires(Reader& m, T& o) { kubex_read_proto(m, o); }
void read(Reader& r, T& out) {
  Reader m = r.message();
  kubex_read_proto(m, out);
}

/// An optional field: present once it is on the wire, even with a zero value (proto2).
template <class T>
void read(Reader& r, std::optional<T>& out) {
  if (!out) {
    out.emplace();
  }
  read(r, *out);
}

/// A Go value field that JSON leaves out when zero (omitempty): protobuf writes it even when
/// zero, so a zero value reads as absent, as it does from JSON.
template <class T>
void read_omit_zero(Reader& r, std::optional<T>& out) {
  T value{};
  read(r, value);
  if (value == T{}) {
    out.reset();
  } else {
    out = std::move(value);
  }
}

/// A boxed embedded message, made by the Box's own hooks (in the decode's arena for models).
template <class T>
void read(Reader& r, Box<T>& out) {
  read(r, out.ensure());
}

/// One occurrence of a repeated field: one element, or a packed run of scalars.
template <class T>
void read(Reader& r, std::vector<T>& out) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> ||
                std::is_same_v<T, std::int64_t>) {
    if (r.wire_type() == WireType::bytes) {
      std::vector<std::uint64_t> values;
      r.packed_varints(values);
      for (std::uint64_t v : values) {
        if constexpr (std::is_same_v<T, bool>) {
          out.push_back(v != 0);
        } else if constexpr (std::is_same_v<T, std::int32_t>) {
          out.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(v & 0xFFFFFFFFU)));
        } else {
          out.push_back(static_cast<std::int64_t>(v));
        }
      }
      return;
    }
  }
  if constexpr (std::is_same_v<T, bool>) {
    bool value = false;  // std::vector<bool> has no element to bind a reference to
    read(r, value);
    out.push_back(value);
  } else {
    read(r, out.emplace_back());
  }
}

/// One entry of a map field: a message {key = 1, value = 2}. A later entry with the same key
/// replaces an earlier one, as in protobuf.
template <class V, class ReadValue>
void read_map_entry(Reader& r, std::map<std::string, V>& out, ReadValue&& read_value) {
  Reader entry = r.message();
  std::string key;
  V value{};
  while (entry.next()) {
    if (entry.field() == 1) {
      read(entry, key);
    } else if (entry.field() == 2) {
      read_value(entry, value);
    } else {
      entry.skip();
    }
  }
  out.insert_or_assign(std::move(key), std::move(value));
}

/// One entry of a map field whose values read as themselves.
template <class V>
void read(Reader& r, std::map<std::string, V>& out) {
  read_map_entry(r, out, [](Reader& e, V& v) { read(e, v); });
}

}  // namespace kubex::protobuf
