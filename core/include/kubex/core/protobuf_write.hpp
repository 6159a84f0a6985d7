// SPDX-License-Identifier: Apache-2.0
// Writing the generated models' value types as protobuf fields: the counterpart of
// protobuf_read.hpp. The generated `kubex_write_proto(protobuf::Writer&, const T&)` of each
// model calls `protobuf::write(w, number, member)` for every member it holds, in field-number
// order, then appends the fields it read but did not know.
#pragma once

#include <kubex/core/box.hpp>
#include <kubex/core/bytes.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/int_or_string.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_containers.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/string_enum.hpp>
#include <kubex/core/time.hpp>
#include <kubex/core/vector.hpp>

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kubex::protobuf {

/// Thrown by a writer for an object protobuf cannot carry without loss: one holding fields
/// read from JSON that its model does not know (only JSON can write them back), or a free-form
/// value whose message has no room for it. A caller that has JSON to fall back on sends JSON;
/// `code()` is errc::invalid_argument and the message names what could not be written.
class KUBEX_API Unrepresentable : public Error {
 public:
  /// Creates the error with its complete message.
  explicit Unrepresentable(const std::string& reason);
};

/// A `string` field (written even when empty: Go writes every value field).
KUBEX_API void write(Writer& w, std::uint32_t field, std::string_view value);
/// A `string` field; exact for std::string, which IntOrString would also take.
inline void write(Writer& w, std::uint32_t field, const std::string& value) {
  write(w, field, std::string_view(value));
}
/// A `string` field.
inline void write(Writer& w, std::uint32_t field, const String& value) {
  write(w, field, value.view());
}
/// A `bool` field.
KUBEX_API void write(Writer& w, std::uint32_t field, bool value);
/// An `int32` field.
KUBEX_API void write(Writer& w, std::uint32_t field, std::int32_t value);
/// An `int64` field.
KUBEX_API void write(Writer& w, std::uint32_t field, std::int64_t value);
/// A `double` field.
KUBEX_API void write(Writer& w, std::uint32_t field, double value);
/// A `bytes` field.
KUBEX_API void write(Writer& w, std::uint32_t field, const Bytes& value);
/// A resource.Quantity message ({string = 1}).
KUBEX_API void write(Writer& w, std::uint32_t field, const Quantity& value);
/// An intstr.IntOrString message ({type = 1, intVal = 2, strVal = 3}).
KUBEX_API void write(Writer& w, std::uint32_t field, const IntOrString& value);
/// A metav1.Time message ({seconds = 1, nanos = 2}).
KUBEX_API void write(Writer& w, std::uint32_t field, const Time& value);
/// A metav1.MicroTime message ({seconds = 1, nanos = 2}).
KUBEX_API void write(Writer& w, std::uint32_t field, const MicroTime& value);
/// A message whose field 1 holds JSON text (RawExtension, FieldsV1, the apiextensions JSON
/// type); nothing for an empty (null) value.
KUBEX_API void write(Writer& w, std::uint32_t field, const RawJson& value);
/// An empty message that JSON shows as `{}` (CustomResourceSubresourceStatus).
/// @throws Unrepresentable when the value is anything but `{}` or null.
KUBEX_API void write_empty_object(Writer& w, std::uint32_t field, const RawJson& value);

/// The unknown fields of an object, appended after its known ones.
/// @throws Unrepresentable when some were read from JSON.
KUBEX_API void write_unknown(Writer& w, const UnknownFields& unknown, std::string_view type);

// The templates are declared before any is defined, so that each finds the others whatever
// they nest (see protobuf_read.hpp).

/// An enumeration field: a string.
template <class E>
  requires std::derived_from<E, StringEnumBase>
void write(Writer& w, std::uint32_t field, const E& value);
/// An embedded message, written by the model's own `kubex_write_proto`.
template <class T>
  requires requires(Writer& m, const T& o) { kubex_write_proto(m, o); }
void write(Writer& w, std::uint32_t field, const T& value);
/// An optional field: written only when present.
template <class T>
void write(Writer& w, std::uint32_t field, const std::optional<T>& value);
/// A boxed embedded message: written only when present.
template <class T>
void write(Writer& w, std::uint32_t field, const Box<T>& value);
/// A repeated field: one field per element, unpacked, as Go's proto2 code writes them.
template <detail::list L>
void write(Writer& w, std::uint32_t field, const L& values);
/// A message wrapping a list of strings as its field 1 (metav1.Verbs, ExtraValue).
template <detail::list L>
void write_string_list(Writer& w, std::uint32_t field, const L& values);
/// A map field: one entry message {key = 1, value = 2} per element, in key order as Go writes
/// them; `write_value(Writer&, number, value)` writes a value.
template <detail::string_map M, class WriteValue>
void write_map(Writer& w, std::uint32_t field, const M& values, WriteValue&& write_value);
/// A map field whose values write as themselves.
template <detail::string_map M>
void write(Writer& w, std::uint32_t field, const M& values);

template <class E>
  requires std::derived_from<E, StringEnumBase>
void write(Writer& w, std::uint32_t field, const E& value) {
  write(w, field, std::string_view(value));
}

template <class T>
  requires requires(Writer& m, const T& o) { kubex_write_proto(m, o); }
void write(Writer& w, std::uint32_t field, const T& value) {
  w.message(field, [&value](Writer& m) { kubex_write_proto(m, value); });
}

template <class T>
void write(Writer& w, std::uint32_t field, const std::optional<T>& value) {
  if (value) {
    write(w, field, *value);
  }
}

template <class T>
void write(Writer& w, std::uint32_t field, const Box<T>& value) {
  if (value) {
    write(w, field, *value);
  }
}

template <detail::list L>
void write(Writer& w, std::uint32_t field, const L& values) {
  using T = typename L::value_type;
  for (const auto& v : values) {
    if constexpr (std::is_same_v<T, bool>) {
      write(w, field, static_cast<bool>(v));
    } else if constexpr (std::is_same_v<T, RawJson>) {
      // An element is written even when null, so that the others keep their places.
      w.message(field, [&v](Writer& m) {
        if (!v.empty()) {
          m.bytes(1, v.text.view());
        }
      });
    } else {
      write(w, field, v);
    }
  }
}

template <detail::list L>
void write_string_list(Writer& w, std::uint32_t field, const L& values) {
  w.message(field, [&values](Writer& m) {
    for (const auto& s : values) {
      m.bytes(1, std::string_view(s));
    }
  });
}

template <detail::string_map M, class WriteValue>
void write_map(Writer& w, std::uint32_t field, const M& values, WriteValue&& write_value) {
  for (const auto& element : values) {
    // Not a structured binding: clang 15 cannot capture one in a lambda.
    w.message(field, [&element, &write_value](Writer& entry) {
      write(entry, 1, std::string_view(element.first));
      write_value(entry, 2, element.second);
    });
  }
}

template <detail::string_map M>
void write(Writer& w, std::uint32_t field, const M& values) {
  write_map(w, field, values,
            [](Writer& e, std::uint32_t number, const typename M::mapped_type& v) {
              write(e, number, v);
            });
}

}  // namespace kubex::protobuf
