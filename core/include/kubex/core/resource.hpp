// SPDX-License-Identifier: Apache-2.0
#pragma once

// What kubex knows about a Kubernetes resource type at compile time: where it lives in the API
// (group, version, plural), whether it is namespaced, and which verbs and subresources the
// server offers for it. The generated models specialise resource_traits for every kind of
// every Kubernetes version; custom resources declare theirs with KUBEX_CUSTOM_RESOURCE (see
// kubex/core/custom_resource.hpp). Api<T> reads nothing else, which keeps the client
// ignorant of the models and lets it reject, at compile time, calls the server would refuse.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <type_traits>

namespace kubex {

/// Whether objects of a resource live in a namespace or in the cluster as a whole.
enum class Scope : std::uint8_t {
  namespaced,  ///< Objects belong to a namespace (Pod, Deployment, ...).
  cluster,     ///< Objects are cluster-wide (Node, Namespace, ClusterRole, ...).
};

/// One Kubernetes API verb, as the apiserver's authorizer names it ("connect" is the
/// streaming verb of exec, attach, port-forward and proxy).
enum class Verb : std::uint16_t {
  get = 1U << 0U,
  list = 1U << 1U,
  watch = 1U << 2U,
  create = 1U << 3U,
  update = 1U << 4U,
  patch = 1U << 5U,
  delete_ = 1U << 6U,
  delete_collection = 1U << 7U,
  connect = 1U << 8U,
};

/// A set of verbs.
class Verbs {
 public:
  /// The empty set.
  constexpr Verbs() noexcept = default;
  /// The given verbs.
  constexpr Verbs(std::initializer_list<Verb> verbs) noexcept {
    for (Verb v : verbs) {
      bits_ |= static_cast<std::uint16_t>(v);
    }
  }
  /// True when `v` is in the set.
  [[nodiscard]] constexpr bool contains(Verb v) const noexcept {
    return (bits_ & static_cast<std::uint16_t>(v)) != 0;
  }
  /// Adds `v` to the set (for sets known only at run time, e.g. from discovery).
  constexpr Verbs& add(Verb v) noexcept {
    bits_ = static_cast<std::uint16_t>(bits_ | static_cast<std::uint16_t>(v));
    return *this;
  }
  /// True when the set is empty.
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  /// The set as a bit mask of Verb values.
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return bits_; }
  /// Set equality.
  friend constexpr bool operator==(Verbs, Verbs) noexcept = default;

 private:
  std::uint16_t bits_ = 0;
};

/// A subresource of a resource (`status`, `scale`, `log`, `exec`, ...) and the verbs it
/// accepts.
struct Subresource {
  /// The path segment after the object name, e.g. "status".
  std::string_view name;
  /// What may be done with it.
  Verbs verbs;
};

/// Compile-time facts about resource type T. Undefined unless specialised: the generated models
/// specialise it for every kind, custom resources through KUBEX_CUSTOM_RESOURCE. A
/// specialisation provides:
///
///     static constexpr std::string_view group;        // "" for the core group, "apps", ...
///     static constexpr std::string_view version;      // "v1"
///     static constexpr std::string_view api_version;  // "v1", "apps/v1"
///     static constexpr std::string_view kind;         // "Deployment"
///     static constexpr std::string_view plural;       // "deployments"
///     static constexpr Scope scope;
///     static constexpr Verbs verbs;
///     static constexpr std::array<Subresource, N> subresources;
///     using list_type = ...;                          // DeploymentList
template <class T>
struct resource_traits;

/// A type with complete resource traits.
template <class T>
concept resource = requires {
                     { resource_traits<T>::group } -> std::convertible_to<std::string_view>;
                     { resource_traits<T>::version } -> std::convertible_to<std::string_view>;
                     { resource_traits<T>::api_version } -> std::convertible_to<std::string_view>;
                     { resource_traits<T>::kind } -> std::convertible_to<std::string_view>;
                     { resource_traits<T>::plural } -> std::convertible_to<std::string_view>;
                     { resource_traits<T>::scope } -> std::convertible_to<Scope>;
                     { resource_traits<T>::verbs } -> std::convertible_to<Verbs>;
                     resource_traits<T>::subresources.size();
                     typename resource_traits<T>::list_type;
                   };

/// A resource whose objects live in namespaces.
template <class T>
concept namespace_scoped = resource<T> && resource_traits<T>::scope ==
Scope::namespaced;

/// A resource whose objects are cluster-wide.
template <class T>
concept cluster_scoped = resource<T> && resource_traits<T>::scope ==
Scope::cluster;

/// True when the server accepts verb `v` on resource T itself.
template <resource T>
constexpr bool supports(Verb v) noexcept {
  return resource_traits<T>::verbs.contains(v);
}

/// The verbs subresource `name` of T accepts; empty when T has no such subresource.
template <resource T>
constexpr Verbs subresource_verbs(std::string_view name) noexcept {
  for (const Subresource& s : resource_traits<T>::subresources) {
    if (s.name == name) {
      return s.verbs;
    }
  }
  return {};
}

/// True when T has subresource `name`, e.g. `has_subresource<Pod>("log")`.
template <resource T>
constexpr bool has_subresource(std::string_view name) noexcept {
  return !subresource_verbs<T>(name).empty();
}

/// True when subresource `name` of T accepts verb `v`.
template <resource T>
constexpr bool subresource_supports(std::string_view name, Verb v) noexcept {
  return subresource_verbs<T>(name).contains(v);
}

/// The verbs of an ordinary, fully served resource.
inline constexpr Verbs all_verbs{Verb::get,    Verb::list,  Verb::watch,   Verb::create,
                                 Verb::update, Verb::patch, Verb::delete_, Verb::delete_collection};

}  // namespace kubex
