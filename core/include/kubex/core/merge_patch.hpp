// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON merge patches (RFC 7396, `application/merge-patch+json`) computed from two versions of
// an object, the way `kubectl edit` and client-go's CreateTwoWayMergePatch send changes: only
// what changed is sent, and a field that was removed is sent as null, which deletes it on the
// server.

#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>

#include <concepts>
#include <string>
#include <string_view>

namespace kubex::json {

/// The merge patch that turns JSON document `original` into `modified`: changed and new fields
/// with their new values, removed fields as null, unchanged fields left out; arrays are replaced
/// whole (RFC 7396 has no element-wise merge). "{}" when nothing changed.
/// @throws DecodeError if either text is not valid JSON.
KUBEX_API std::string create_merge_patch(std::string_view original, std::string_view modified);

/// The merge patch that turns `original` into `modified`, both encoded with their codecs.
/// Clearing an optional field of `modified` sends null for it.
template <class T>
  requires(!std::convertible_to<const T&, std::string_view>)
std::string create_merge_patch(const T& original, const T& modified) {
  return create_merge_patch(encode(original), encode(modified));
}

/// Applies merge patch `patch` to document `target` as RFC 7396 §2 defines, e.g. to preview
/// what the server will store. Fields keep their order; new fields come last.
/// @throws DecodeError if either text is not valid JSON.
KUBEX_API std::string apply_merge_patch(std::string_view target, std::string_view patch);

}  // namespace kubex::json
