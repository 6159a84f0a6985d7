// SPDX-License-Identifier: Apache-2.0
#pragma once
// A typed decode must not take one kind for another: a Deployment answered to a GET of a Pod,
// or a single object answered to a list call (which would otherwise read as an empty list:
// "no pods"), is refused with both kinds named. The body's kind and apiVersion are what is
// compared: a model's members hold its own kind and apiVersion by default, so a body that
// carries none of them passes (the apiserver leaves them out of list items).

#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/resource.hpp>

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {

namespace detail {

// The text of a kind or apiVersion member (std::string, or optional in hand-written types).
template <class M>
std::string_view member_text(const M& member) {
  if constexpr (requires { member.has_value(); }) {
    return member ? std::string_view(*member) : std::string_view();
  } else {
    return std::string_view(member);
  }
}

// Throws the DecodeError of a body of kind `got` (`got_version`) where `want` was expected.
[[noreturn]] KUBEX_API void kind_mismatch(std::string_view got, std::string_view got_version,
                                          std::string_view want, std::string_view want_version);

// Checks a decoded kind and apiVersion (empty: the body carried none) against the expected.
inline void check_kind_text(std::string_view kind, std::string_view api_version,
                            std::string_view want, std::string_view want_version) {
  if ((!kind.empty() && kind != want) || (!api_version.empty() && api_version != want_version)) {
    kind_mismatch(kind, api_version, want, want_version);
  }
}

}  // namespace detail

/// Throws json::DecodeError when `object`, decoded from a body, is not a T according to the
/// kind or apiVersion the body carried.
template <class T>
  requires resource<T>
void check_kind(const T& object) {
  if constexpr (requires {
                  object.kind;
                  object.api_version;
                }) {
    detail::check_kind_text(detail::member_text(object.kind),
                            detail::member_text(object.api_version), resource_traits<T>::kind,
                            resource_traits<T>::api_version);
  }
}

/// Throws json::DecodeError when `list`, decoded from a body, is not a list of its item type
/// (kind "<Kind>List") or one of its items is of another kind (named by its index).
template <class L>
  requires requires(const L& l) { l.items; }
void check_list_kind(const L& list) {
  using item_type = typename decltype(L::items)::value_type;
  if constexpr (resource<item_type> && requires {
                                         list.kind;
                                         list.api_version;
                                       }) {
    using traits = resource_traits<item_type>;
    const std::string want = std::string(traits::kind) + "List";
    detail::check_kind_text(detail::member_text(list.kind), detail::member_text(list.api_version),
                            want, traits::api_version);
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      try {
        check_kind(list.items[i]);
      } catch (json::DecodeError& e) {
        e.prepend_index(i);
        e.prepend_field("items");
        throw;
      }
    }
  }
}

/// check_kind for a resource, check_list_kind for a list of resources, nothing for anything
/// else (a Status, a Scale, PartialObjectMetadata, ...).
template <class R>
void check_decoded_kind(const R& decoded) {
  if constexpr (resource<R>) {
    check_kind(decoded);
  } else if constexpr (requires { decoded.items; }) {
    check_list_kind(decoded);
  }
}

}  // namespace kubex
