#pragma once

// Protobuf codecs of kubex's compact containers (String, Vector, Map), beside those of the
// standard ones in protobuf_read.hpp and protobuf_write.hpp. A repeated field is sized on its
// first occurrence: Go writes a field's occurrences one after another, so counting the run
// from there (keys and lengths only) gives the exact count, and the decode's arena keeps no
// storage a growing vector outgrew.

#include <kubex/core/arena.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/protobuf_read.hpp>
#include <kubex/core/protobuf_write.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <type_traits>

namespace kubex::protobuf {

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

/// A `string` field.
inline void read(Reader& r, String& out) {
  out.assign(r.string());
}
/// A message wrapping a list of strings as its field 1 (metav1.Verbs, ExtraValue).
inline void read_string_list(Reader& r, Vector<String>& out) {
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

/// One occurrence of a repeated field: one element, or a packed run of scalars.
template <class T>
void read(Reader& r, Vector<T>& out) {
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
  T& element = out.emplace_back();
  if constexpr (detail::kind_object<T>) {
    // Each item of a list gets its own arena, as on the JSON list path: an item kept after its
    // neighbours are gone (a reflector's) keeps only its own block, sized per input byte as
    // the JSON decoder sizes its arenas.
    thread_local ArenaEstimate estimate;
    Reader item = r.message();
    const std::size_t bytes = item.data().size();
    Arena arena(estimate.first_block(bytes));
    {
      const ArenaScope scope(&arena);
      kubex_read_proto(item, element);
    }
    estimate.learn(arena, bytes);
  } else {
    read(r, element);
  }
}

/// One entry of a map field: a message {key = 1, value = 2}. A later entry with the same key
/// replaces an earlier one, as in protobuf.
template <class V, class ReadValue>
void read_map_entry(Reader& r, Map<String, V>& out, ReadValue&& read_value) {
  Reader entry = r.message();
  String key;
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
void read(Reader& r, Map<String, V>& out) {
  read_map_entry(r, out, [](Reader& e, V& v) { read(e, v); });
}

/// A `string` field.
inline void write(Writer& w, std::uint32_t field, const String& value) {
  write(w, field, value.view());
}
/// A message wrapping a list of strings as its field 1.
inline void write_string_list(Writer& w, std::uint32_t field, const Vector<String>& value) {
  w.message(field, [&value](Writer& m) {
    for (const auto& s : value) {
      write(m, 1, s.view());
    }
  });
}

/// A repeated field: one field per element, unpacked, as Go's proto2 code writes them.
template <class T>
void write(Writer& w, std::uint32_t field, const Vector<T>& values) {
  for (const auto& v : values) {
    if constexpr (std::is_same_v<T, RawJson>) {
      // An element is written even when null, so that the others keep their places.
      w.message(field, [&v](Writer& m) {
        if (!v.empty()) {
          m.bytes(1, v.text);
        }
      });
    } else {
      write(w, field, v);
    }
  }
}

/// A map field: one entry message per element, in key order as Go writes them.
template <class V, class WriteValue>
void write_map(Writer& w, std::uint32_t field, const Map<String, V>& values,
               WriteValue&& write_value) {
  for (const auto& element : values) {
    w.message(field, [&element, &write_value](Writer& entry) {
      write(entry, 1, element.first.view());
      write_value(entry, 2, element.second);
    });
  }
}

/// A map field whose values write as themselves.
template <class V>
void write(Writer& w, std::uint32_t field, const Map<String, V>& values) {
  write_map(w, field, values,
            [](Writer& e, std::uint32_t number, const V& v) { write(e, number, v); });
}

}  // namespace kubex::protobuf
