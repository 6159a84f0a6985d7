// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fields one field manager owns, as client-go's Extract<Kind> functions give them: the
// object cut down to what a manager's server-side apply set, so a controller can change one
// field and apply again without taking, or dropping, fields it never set.

#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>

#include <string>
#include <string_view>

namespace kubex {

/// The parts of JSON object `object` that field set `fields_v1` (a managedFields entry's
/// fieldsV1: "f:<field>", "k:<list item keys>", "v:<set value>", "i:<index>" and ".") names,
/// as compact JSON.
/// @throws json::DecodeError if either text is not valid JSON or the field set is not an object.
KUBEX_API std::string extract_fields(std::string_view object, std::string_view fields_v1);

/// The fieldsV1 of the managedFields entry of `manager` whose operation is Apply, for
/// `subresource` ("" for the object itself, "status"), in JSON object `object`; empty when
/// there is none.
/// @throws json::DecodeError if `object` is not valid JSON.
KUBEX_API std::string applied_fields(std::string_view object, std::string_view manager,
                                     std::string_view subresource = {});

/// `object` cut down to the fields `manager` set by server-side apply on `subresource` ("" for
/// the object itself), with its apiVersion, kind, name and namespace: the partial object to
/// change and apply again as that manager. Nothing else when the manager applied nothing.
template <class T>
T extract_applied(const T& object, std::string_view manager, std::string_view subresource = {}) {
  const std::string text = json::encode(object);
  const std::string fields = applied_fields(text, manager, subresource);
  T out{};
  if (!fields.empty()) {
    json::decode(extract_fields(text, fields), out);
  }
  out.api_version = object.api_version;
  out.kind = object.kind;
  out.metadata.name = object.metadata.name;
  out.metadata.namespace_ = object.metadata.namespace_;
  return out;
}

}  // namespace kubex
