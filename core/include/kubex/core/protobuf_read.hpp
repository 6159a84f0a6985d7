// SPDX-License-Identifier: Apache-2.0
// Reading protobuf fields into the value types the generated models use. The generated
// `kubex_read_proto(protobuf::Reader&, T&)` of each model calls `protobuf::read` for a field's
// value once `Reader::next()` stands on it; overloads here cover scalars, enums, the
// apimachinery value types, and the containers (std and kubex's compact ones alike), and hand
// embedded messages to the model's own reader, found by argument-dependent lookup.
//
// A repeated field is sized on its first occurrence: Go writes a field's occurrences one after
// another, so counting the run from there (keys and lengths only) gives the exact count, and a
// decode's arena keeps no storage a growing vector outgrew.
#pragma once

#include <kubex/core/arena.hpp>
#include <kubex/core/box.hpp>
#include <kubex/core/bytes.hpp>
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
#include <type_traits>
#include <vector>

namespace kubex::protobuf {

/// A `string` field.
KUBEX_API void read(Reader& r, std::string& out);
/// A `string` field.
inline void read(Reader& r, String& out) {
  out.assign(r.string());
}
/// A `bool` field.
KUBEX_API void read(Reader& r, bool& out);
/// An `int32` field.
KUBEX_API void read(Reader& r, std::int32_t& out);
/// An `int64` field.
KUBEX_API void read(Reader& r, std::int64_t& out);
/// A `double` field.
KUBEX_API void read(Reader& r, double& out);
/// A `bytes` field.
KUBEX_API void read(Reader& r, Bytes& out);
/// A resource.Quantity message ({string = 1}); a string that is not a quantity is refused.
KUBEX_API void read(Reader& r, Quantity& out);
/// An intstr.IntOrString message ({type = 1, intVal = 2, strVal = 3}).
KUBEX_API void read(Reader& r, IntOrString& out);
/// A metav1.Time message ({seconds = 1, nanos = 2}); the nanoseconds are dropped, as Go's
/// Time keeps seconds only on the wire in JSON.
KUBEX_API void read(Reader& r, Time& out);
/// A metav1.MicroTime message ({seconds = 1, nanos = 2}), kept to the microsecond.
KUBEX_API void read(Reader& r, MicroTime& out);
/// An optional metav1.Time: Go writes a zero time as an empty message, which JSON shows as
/// null, so it reads as absent.
KUBEX_API void read(Reader& r, std::optional<Time>& out);
/// An optional metav1.MicroTime; an empty message reads as absent, as for Time.
KUBEX_API void read(Reader& r, std::optional<MicroTime>& out);
/// A message whose field 1 holds JSON text: runtime.RawExtension, metav1.FieldsV1, the
/// apiextensions JSON type. A raw value that is not JSON (an embedded protobuf object) is
/// refused.
KUBEX_API void read(Reader& r, RawJson& out);
/// An empty message that JSON shows as the free-form object `{}` (a marker type such as
/// CustomResourceSubresourceStatus); any field it carries is refused, so nothing is lost
/// silently.
KUBEX_API void read_empty_object(Reader& r, RawJson& out);

// The templates are declared before any is defined, so that each finds the others whatever
// they nest (an optional list, a map of lists): argument-dependent lookup would not, as the
// containers live outside this namespace.

/// An enumeration field: a string.
template <class E>
  requires std::derived_from<E, StringEnumBase>
void read(Reader& r, E& out);
/// An embedded message, read by the model's own `kubex_read_proto`.
template <class T>
  requires requires(Reader& m, T& o) { kubex_read_proto(m, o); }
void read(Reader& r, T& out);
/// An optional field: present once it is on the wire, even with a zero value (proto2).
template <class T>
void read(Reader& r, std::optional<T>& out);
/// A Go value field that JSON leaves out when zero (omitempty): protobuf writes it even when
/// zero, so a zero value reads as absent, as it does from JSON.
template <class T>
void read_omit_zero(Reader& r, std::optional<T>& out);
/// A boxed embedded message, made by the Box's own hooks (in the decode's arena for models).
template <class T>
void read(Reader& r, Box<T>& out);
/// One occurrence of a repeated field: one element, or a packed run of scalars. An object of
/// a kind (a list's item) gets its own arena.
template <detail::list L>
void read(Reader& r, L& out);
/// A message wrapping a list of strings as its field 1 (metav1.Verbs, ExtraValue): JSON shows
/// the list itself.
template <detail::list L>
void read_string_list(Reader& r, L& out);
/// One entry of a map field: a message {key = 1, value = 2}, the value read by
/// `read_value(Reader&, value&)`. A later entry with the same key replaces an earlier one, as
/// in protobuf.
template <detail::string_map M, class ReadValue>
void read_map_entry(Reader& r, M& out, ReadValue&& read_value);
/// One entry of a map field whose values read as themselves.
template <detail::string_map M>
void read(Reader& r, M& out);

namespace detail {
// How many occurrences of the current field follow one another from here, this one included.
inline std::size_t run_length(const Reader& r) {
  Reader ahead = r;
  const std::uint32_t field = ahead.field();
  std::size_t n = 0;
  do {
    if (ahead.field() != field) {
      break;
    }
    ++n;
    ahead.skip();
  } while (ahead.next());
  return n;
}
// An object of a kind (an item of a list), as opposed to a part of one.
template <class T>
concept kind_object = requires(T& o) {
                        o.metadata;
                        o.kind;
                      };
}  // namespace detail

template <class E>
  requires std::derived_from<E, StringEnumBase>
void read(Reader& r, E& out) {
  out = E(r.string());
}

template <class T>
  requires requires(Reader& m, T& o) { kubex_read_proto(m, o); }
void read(Reader& r, T& out) {
  Reader m = r.message();
  kubex_read_proto(m, out);
}

template <class T>
void read(Reader& r, std::optional<T>& out) {
  if (!out) {
    out.emplace();
  }
  read(r, *out);
}

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

template <class T>
void read(Reader& r, Box<T>& out) {
  read(r, out.ensure());
}

template <detail::list L>
void read(Reader& r, L& out) {
  using T = typename L::value_type;
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> ||
                std::is_same_v<T, std::int64_t>) {
    if (r.wire_type() == WireType::bytes) {
      std::vector<std::uint64_t> values;
      r.packed_varints(values);
      out.reserve(out.size() + values.size());
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
  if (out.empty()) {
    out.reserve(detail::run_length(r));
  }
  if constexpr (std::is_same_v<T, bool>) {
    bool value = false;  // std::vector<bool> has no element to bind a reference to
    read(r, value);
    out.push_back(value);
  } else if constexpr (detail::kind_object<T>) {
    // Each item of a list gets its own arena, as on the JSON list path: an item kept after its
    // neighbours are gone (a reflector's) keeps only its own block, sized per input byte as
    // the JSON decoder sizes its arenas.
    thread_local ArenaEstimate estimate;
    T& element = out.emplace_back();
    Reader item = r.message();
    const std::size_t bytes = item.data().size();
    Arena arena(estimate.first_block(bytes));
    {
      const ArenaScope scope(&arena);
      kubex_read_proto(item, element);
    }
    estimate.learn(arena, bytes);
  } else {
    read(r, out.emplace_back());
  }
}

template <detail::list L>
void read_string_list(Reader& r, L& out) {
  Reader m = r.message();
  while (m.next()) {
    if (m.field() == 1) {
      if (out.empty()) {
        out.reserve(detail::run_length(m));
      }
      out.emplace_back(m.string());
    } else {
      m.skip();
    }
  }
}

template <detail::string_map M, class ReadValue>
void read_map_entry(Reader& r, M& out, ReadValue&& read_value) {
  Reader entry = r.message();
  typename M::key_type key;
  typename M::mapped_type value{};
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

template <detail::string_map M>
void read(Reader& r, M& out) {
  read_map_entry(r, out, [](Reader& e, typename M::mapped_type& v) { read(e, v); });
}

}  // namespace kubex::protobuf
