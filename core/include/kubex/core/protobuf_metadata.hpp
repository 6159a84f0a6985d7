// SPDX-License-Identifier: Apache-2.0
// Protobuf readers for core's generic metadata types: ListMetadata (meta/v1 ListMeta), the
// metadata-only PartialObjectMetadata and ObjectList. They make metadata-only calls readable
// from protobuf for every kind whose ObjectMeta has a generated reader, custom resources
// included: the apiserver converts any object to PartialObjectMetadata before encoding it.
#pragma once

#include <kubex/core/custom_resource.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_read.hpp>

namespace kubex {

/// Reads meta/v1 ListMeta: selfLink 1, resourceVersion 2, continue 3, remainingItemCount 4
/// (empty strings read as absent, as JSON omits them).
KUBEX_API void kubex_read_proto(protobuf::Reader& r, ListMetadata& o);

/// Reads meta/v1 PartialObjectMetadata: metadata 1. The type meta travels in the envelope.
template <class Meta>
  requires requires(protobuf::Reader& r, Meta& m) { kubex_read_proto(r, m); }
void kubex_read_proto(protobuf::Reader& r, PartialObjectMetadata<Meta>& o) {
  o.metadata = Meta{};
  while (r.next()) {
    if (r.field() == 1) {
      protobuf::read(r, o.metadata);
    } else {
      r.skip();
    }
  }
}

/// Reads a list message (metadata 1, items 2), as every <Kind>List and
/// PartialObjectMetadataList is laid out.
template <class T>
  requires requires(protobuf::Reader& r, T& item) { kubex_read_proto(r, item); }
void kubex_read_proto(protobuf::Reader& r, ObjectList<T>& o) {
  o.metadata = ListMetadata{};
  o.items.clear();
  while (r.next()) {
    if (r.field() == 1) {
      protobuf::read(r, o.metadata);
    } else if (r.field() == 2) {
      protobuf::read(r, o.items);
    } else {
      r.skip();
    }
  }
}

}  // namespace kubex
