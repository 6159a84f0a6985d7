// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON codecs for user-written structs without code generation: custom resources, patch bodies,
// anything an application exchanges with the API server.
//
//     struct CronTabSpec {
//       std::string cronSpec;
//       std::optional<std::int32_t> replicas;
//     };
//     KUBEX_JSON_OBJECT(CronTabSpec, cronSpec, replicas)
//
// The JSON name of a member is its C++ name, minus one trailing underscore (`namespace_` is
// "namespace"). For other names write the field list yourself; the macro only defines it:
//
//     constexpr auto kubex_fields(const CronTabSpec*) {
//       return std::tuple{kubex::json::field("cronSpec", &CronTabSpec::cron_spec)};
//     }
//
// Decoding keeps fields the struct does not declare in a member named `unknown_fields`
// (kubex::UnknownFields) if it has one, and writes them back on encode; otherwise they are
// skipped. On encode, empty optionals, Boxes, containers and absent Nullables are left out, as
// Go's `omitempty` does; explicit Nullable nulls are written as null.

#include <kubex/core/json.hpp>
#include <kubex/core/json_types.hpp>
#include <kubex/core/nullable.hpp>

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace kubex::json {

/// One member of a user-declared JSON object: its JSON name and the pointer to it.
template <class T, class M>
struct Field {
  /// The name in JSON.
  std::string_view name;
  /// The C++ member.
  M T::*member;
};

/// A Field for a kubex_fields list.
template <class T, class M>
constexpr Field<T, M> field(std::string_view name, M T::*member) noexcept {
  return {name, member};
}

/// A type whose fields are listed by a `kubex_fields(const T*)` function found by
/// argument-dependent lookup (KUBEX_JSON_OBJECT writes one).
template <class T>
concept described = requires { kubex_fields(static_cast<const T*>(nullptr)); };

template <class T>
struct Codec<Nullable<T>> {
  static void read(Reader& r, Nullable<T>& v) {
    if (r.is_null()) {
      v = nullptr;
    } else {
      Codec<T>::read(r, v.emplace());
    }
  }
  // Absent values are left out by the enclosing object; one that still gets here (an element
  // of a list) can only be written as null.
  static void write(Writer& w, const Nullable<T>& v) {
    if (v.has_value()) {
      Codec<T>::write(w, *v);
    } else {
      w.null();
    }
  }
};

namespace detail {

template <class M>
struct null_aware : std::false_type {};
template <class M>
struct null_aware<std::optional<M>> : std::true_type {};
template <class M>
struct null_aware<Box<M>> : std::true_type {};
template <class M>
struct null_aware<Nullable<M>> : std::true_type {};
template <class M>
struct null_aware<std::vector<M>> : std::true_type {};
template <class M>
struct null_aware<std::map<std::string, M>> : std::true_type {};
template <class M>
struct null_aware<Vector<M>> : std::true_type {};
template <class M>
struct null_aware<Map<String, M>> : std::true_type {};
template <>
struct null_aware<RawJson> : std::true_type {};

// Types whose codec gives null a meaning (reset, clear, keep verbatim) read it; for the rest,
// null means "not set" (Go decodes it so), and the member keeps its default.
template <class M>
void read_member(Reader& v, M& member) {
  if constexpr (null_aware<M>::value) {
    read(v, member);
  } else if (!v.is_null()) {
    read(v, member);
  }
}

template <class M>
bool omitted(const M& member) {
  if constexpr (requires { member.is_absent(); }) {
    return member.is_absent();
  } else if constexpr (null_aware<M>::value) {
    return is_absent(member);
  } else {
    return false;
  }
}

template <class T>
constexpr bool has_unknown_fields = requires(T & t) {
                                      { t.unknown_fields } -> std::same_as<UnknownFields&>;
                                    };

/// A member's JSON name from its C++ spelling: one trailing underscore is dropped, so that
/// C++ keywords (`namespace_`, `continue_`) can be used.
constexpr std::string_view member_json_name(std::string_view cpp) noexcept {
  return !cpp.empty() && cpp.back() == '_' ? cpp.substr(0, cpp.size() - 1) : cpp;
}

}  // namespace detail

template <described T>
struct Codec<T> {
  static void read(Reader& r, T& o) {
    static constexpr auto fields = kubex_fields(static_cast<const T*>(nullptr));
    o = T{};
    r.for_each_field([&o](std::string_view key, Reader& v) {
      const bool known = std::apply(
          [&](const auto&... f) {
            return ((key == f.name ? (detail::read_member(v, o.*f.member), true) : false) || ...);
          },
          fields);
      if constexpr (detail::has_unknown_fields<T>) {
        if (!known) {
          o.unknown_fields.add(std::string(key), v.get_raw());
        }
      }
    });
  }
  static void write(Writer& w, const T& o) {
    static constexpr auto fields = kubex_fields(static_cast<const T*>(nullptr));
    w.begin_object();
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                const auto& member = o.*f.member;
                if (detail::omitted(member)) {
                  return;
                }
                const Writer::Mark before = w.mark();
                w.key(f.name);
                const Writer::Mark value_at = w.mark();
                json::write(w, member);
                // As write_required: a partial writer leaves out what is always written
                // but was left empty.
                if constexpr (!detail::null_aware<std::decay_t<decltype(member)>>::value) {
                  if (w.partial() && w.empty_since(value_at)) {
                    w.rewind(before);
                  }
                }
              }(),
              ...);
        },
        fields);
    if constexpr (detail::has_unknown_fields<T>) {
      write_unknown(w, o.unknown_fields);
    }
    w.end_object();
  }
};

}  // namespace kubex::json

// --- KUBEX_JSON_OBJECT ------------------------------------------------------------------------
// A FOR_EACH over the member names: each rescan of KUBEX_DETAIL_EXPAND handles one more name,
// 4^4 = 256 rescans, so up to 256 members.
#define KUBEX_DETAIL_PARENS ()
#define KUBEX_DETAIL_EXPAND(...) \
  KUBEX_DETAIL_EXPAND3(          \
      KUBEX_DETAIL_EXPAND3(KUBEX_DETAIL_EXPAND3(KUBEX_DETAIL_EXPAND3(__VA_ARGS__))))
#define KUBEX_DETAIL_EXPAND3(...) \
  KUBEX_DETAIL_EXPAND2(           \
      KUBEX_DETAIL_EXPAND2(KUBEX_DETAIL_EXPAND2(KUBEX_DETAIL_EXPAND2(__VA_ARGS__))))
#define KUBEX_DETAIL_EXPAND2(...) \
  KUBEX_DETAIL_EXPAND1(           \
      KUBEX_DETAIL_EXPAND1(KUBEX_DETAIL_EXPAND1(KUBEX_DETAIL_EXPAND1(__VA_ARGS__))))
#define KUBEX_DETAIL_EXPAND1(...) __VA_ARGS__
#define KUBEX_DETAIL_FOR_EACH(macro, arg, ...) \
  __VA_OPT__(KUBEX_DETAIL_EXPAND(KUBEX_DETAIL_FOR_EACH_STEP(macro, arg, __VA_ARGS__)))
#define KUBEX_DETAIL_FOR_EACH_STEP(macro, arg, first, ...) \
  macro(arg, first)                                        \
      __VA_OPT__(, KUBEX_DETAIL_FOR_EACH_AGAIN KUBEX_DETAIL_PARENS(macro, arg, __VA_ARGS__))
#define KUBEX_DETAIL_FOR_EACH_AGAIN() KUBEX_DETAIL_FOR_EACH_STEP
#define KUBEX_DETAIL_JSON_FIELD(Type, member) \
  ::kubex::json::field(::kubex::json::detail::member_json_name(#member), &Type::member)

/// Declares the JSON fields of struct `Type` (its members, named as in JSON), which gives it
/// the kubex JSON codec. Use it at namespace scope, in the namespace of `Type`.
#define KUBEX_JSON_OBJECT(Type, ...)                                                        \
  [[maybe_unused]] constexpr auto kubex_fields(const Type*) noexcept {                      \
    return ::std::tuple{KUBEX_DETAIL_FOR_EACH(KUBEX_DETAIL_JSON_FIELD, Type, __VA_ARGS__)}; \
  }
