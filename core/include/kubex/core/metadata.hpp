// SPDX-License-Identifier: Apache-2.0
#pragma once

// Metadata-only objects (meta/v1 PartialObjectMetadata): what the apiserver sends when asked
// for `as=PartialObjectMetadata` — apiVersion, kind and metadata, no spec or status. Generic
// over the ObjectMeta type of the resource, so that Api<T> can use it without knowing which
// Kubernetes version's models T comes from.

#include <kubex/core/custom_resource.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/raw_json.hpp>

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kubex {

/// An object's metadata without its spec and status.
template <class Meta>
struct PartialObjectMetadata {
  /// "meta.k8s.io/v1".
  std::string api_version{"meta.k8s.io/v1"};
  /// "PartialObjectMetadata".
  std::string kind{"PartialObjectMetadata"};
  /// The object's metadata (name, namespace, labels, resourceVersion, ...).
  Meta metadata{};
  /// Fields of newer servers (or spec/status when the server ignored the Accept header).
  UnknownFields unknown_fields{};
  /// Field-by-field equality.
  friend bool operator==(const PartialObjectMetadata&, const PartialObjectMetadata&) = default;
};

/// JSON fields of PartialObjectMetadata.
template <class Meta>
constexpr auto kubex_fields(const PartialObjectMetadata<Meta>*) noexcept {
  using P = PartialObjectMetadata<Meta>;
  return std::tuple{json::field("apiVersion", &P::api_version), json::field("kind", &P::kind),
                    json::field("metadata", &P::metadata)};
}

/// The type of T's `metadata` member (the ObjectMeta of T's Kubernetes version).
template <class T>
using metadata_type_t = std::remove_cvref_t<decltype(std::declval<T&>().metadata)>;

/// The metadata-only form of a T.
template <class T>
using PartialObjectMeta = PartialObjectMetadata<metadata_type_t<T>>;

/// A metadata-only list of T (meta/v1 PartialObjectMetadataList).
template <class T>
using PartialObjectMetaList = ObjectList<PartialObjectMeta<T>>;

}  // namespace kubex
