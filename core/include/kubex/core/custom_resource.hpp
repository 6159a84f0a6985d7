// SPDX-License-Identifier: Apache-2.0
#pragma once

// Custom resources without code generation: a plain struct, KUBEX_JSON_OBJECT for its fields
// and KUBEX_CUSTOM_RESOURCE for where the server serves it.
//
//     namespace shop {
//     struct CronTabSpec {
//       std::string cronSpec;
//       std::optional<std::int32_t> replicas;
//     };
//     KUBEX_JSON_OBJECT(CronTabSpec, cronSpec, replicas)
//
//     struct CronTab {
//       std::string apiVersion{"stable.example.com/v1"};
//       std::string kind{"CronTab"};
//       kubex::api::meta::v1::ObjectMeta metadata;
//       std::optional<CronTabSpec> spec;
//       kubex::UnknownFields unknown_fields;  // optional: keeps fields the struct lacks
//     };
//     KUBEX_JSON_OBJECT(CronTab, apiVersion, kind, metadata, spec)
//     }  // namespace shop
//
//     KUBEX_CUSTOM_RESOURCE(shop::CronTab, "stable.example.com", "v1", "CronTab", "crontabs",
//                           namespaced, status, scale)
//
// The generator in tools/codegen also turns a CustomResourceDefinition manifest into such
// types (with every field of its schema typed); both kinds work with Api<T> alike.

#include <kubex/core/json_object.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/resource.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubex {

/// The metadata of a list response (the fields of meta/v1 ListMeta), for lists of custom
/// resources: kept in core so that generic code can page and watch any list.
struct ListMetadata {
  /// Continuation token of a paged list; absent on the last page.
  std::optional<std::string> continue_{};
  /// Items after this page, when the server can tell.
  std::optional<std::int64_t> remaining_item_count{};
  /// The resource version the list was read at; start a watch from it.
  std::optional<std::string> resource_version{};
  /// Deprecated and never set by current servers; kept for round-trips.
  std::optional<std::string> self_link{};
  /// Fields of newer servers.
  UnknownFields unknown_fields{};
  /// Field-by-field equality.
  friend bool operator==(const ListMetadata&, const ListMetadata&) = default;
};

/// JSON fields of ListMetadata.
constexpr auto kubex_fields(const ListMetadata*) noexcept {
  return std::tuple{json::field("continue", &ListMetadata::continue_),
                    json::field("remainingItemCount", &ListMetadata::remaining_item_count),
                    json::field("resourceVersion", &ListMetadata::resource_version),
                    json::field("selfLink", &ListMetadata::self_link)};
}

/// The list type of a custom resource T (what `GET .../<plural>` returns).
template <class T>
struct ObjectList {
  /// apiVersion as sent by the server ("<group>/<version>").
  std::string api_version{};
  /// kind as sent by the server ("<Kind>List").
  std::string kind{};
  /// Paging and resource version.
  ListMetadata metadata{};
  /// The objects.
  std::vector<T> items{};
  /// Fields of newer servers.
  UnknownFields unknown_fields{};
  /// Field-by-field equality.
  friend bool operator==(const ObjectList&, const ObjectList&) = default;
};

/// JSON fields of ObjectList.
template <class T>
constexpr auto kubex_fields(const ObjectList<T>*) noexcept {
  return std::tuple{json::field("apiVersion", &ObjectList<T>::api_version),
                    json::field("kind", &ObjectList<T>::kind),
                    json::field("metadata", &ObjectList<T>::metadata),
                    json::field("items", &ObjectList<T>::items)};
}

/// A string usable as a template argument, for custom_resource_traits.
template <std::size_t N>
struct FixedString {
  /// From a string literal.
  constexpr FixedString(const char (&text)[N]) noexcept {  // NOLINT(google-explicit-constructor)
    std::copy_n(text, N, chars);
  }
  /// The text without the terminating NUL.
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
  /// The characters, NUL-terminated.
  char chars[N]{};
};

/// The subresources a CustomResourceDefinition can enable.
enum class CrdSubresource : std::uint8_t {
  status = 1U << 0U,  ///< `/status`: get, update, patch.
  scale = 1U << 1U,   ///< `/scale`: get, update, patch (an autoscaling/v1 Scale).
};

namespace detail {
constexpr std::uint8_t crd_flags() noexcept {
  return 0;
}
template <class... Rest>
constexpr std::uint8_t crd_flags(CrdSubresource first, Rest... rest) noexcept {
  return static_cast<std::uint8_t>(static_cast<std::uint8_t>(first) | crd_flags(rest...));
}
template <std::uint8_t Flags>
constexpr auto crd_subresources() noexcept {
  constexpr Verbs rw{Verb::get, Verb::patch, Verb::update};
  constexpr bool status = (Flags & static_cast<std::uint8_t>(CrdSubresource::status)) != 0;
  constexpr bool scale = (Flags & static_cast<std::uint8_t>(CrdSubresource::scale)) != 0;
  std::array<Subresource, (status ? 1 : 0) + (scale ? 1 : 0)> out{};
  std::size_t i = 0;
  if constexpr (scale) {
    out[i++] = {"scale", rw};
  }
  if constexpr (status) {
    out[i++] = {"status", rw};
  }
  return out;
}
}  // namespace detail

/// resource_traits of a custom resource: derive the specialisation from it, or use
/// KUBEX_CUSTOM_RESOURCE. Every verb is served; `Subresources` is a mask of CrdSubresource.
template <class T, FixedString Group, FixedString Version, FixedString Kind, FixedString Plural,
          Scope ResourceScope, std::uint8_t Subresources = 0>
struct custom_resource_traits {
 private:
  // Storage for api_version (a string_view needs characters that outlive it).
  static constexpr std::array<char, Group.view().size() + 1 + Version.view().size()>
      api_version_chars = [] {
        std::array<char, Group.view().size() + 1 + Version.view().size()> out{};
        auto it = std::copy(Group.view().begin(), Group.view().end(), out.begin());
        *it++ = '/';
        std::copy(Version.view().begin(), Version.view().end(), it);
        return out;
      }();

 public:
  /// The CRD's spec.group.
  static constexpr std::string_view group = Group.view();
  /// One of the CRD's served versions.
  static constexpr std::string_view version = Version.view();
  /// "<group>/<version>".
  static constexpr std::string_view api_version{api_version_chars.data(), api_version_chars.size()};
  /// The CRD's spec.names.kind.
  static constexpr std::string_view kind = Kind.view();
  /// The CRD's spec.names.plural.
  static constexpr std::string_view plural = Plural.view();
  /// The CRD's spec.scope.
  static constexpr Scope scope = ResourceScope;
  /// Custom resources support every verb.
  static constexpr Verbs verbs = all_verbs;
  /// The enabled subresources.
  static constexpr auto subresources = detail::crd_subresources<Subresources>();
  /// Lists are ObjectList<T>.
  using list_type = ObjectList<T>;
};

}  // namespace kubex

#define KUBEX_DETAIL_CRD_SUBRESOURCE(unused, name) ::kubex::CrdSubresource::name

/// Declares `Type` a custom resource served at `/apis/<Group>/<Version>/.../<Plural>`, scope
/// `namespaced` or `cluster`, followed by the CRD's enabled subresources (`status`, `scale`).
/// Use at global scope.
#define KUBEX_CUSTOM_RESOURCE(Type, Group, Version, Kind, Plural, scope_, ...)            \
  template <>                                                                             \
  struct kubex::resource_traits<Type>                                                     \
      : ::kubex::custom_resource_traits<Type, Group, Version, Kind, Plural,               \
                                        ::kubex::Scope::scope_,                           \
                                        ::kubex::detail::crd_flags(KUBEX_DETAIL_FOR_EACH( \
                                            KUBEX_DETAIL_CRD_SUBRESOURCE, _, __VA_ARGS__))> {}
