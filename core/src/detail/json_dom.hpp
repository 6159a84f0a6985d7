// SPDX-License-Identifier: Apache-2.0
// What core's sources that walk simdjson's DOM share: parsing a document, an element's object, and
// deep equality. Private to core (simdjson is not in any public header).
#pragma once

#include <simdjson.h>

#include <string_view>

namespace kubex::json::detail {

/// `text` parsed with `parser`; throws json::DecodeError naming `what` if it is not JSON.
simdjson::dom::element parse_dom(simdjson::dom::parser& parser, std::string_view text,
                                 const char* what);

/// The object `e` holds; the caller has checked its type (throws json::DecodeError if not).
simdjson::dom::object as_object(simdjson::dom::element e);

/// Deep equality of two JSON values: object key order does not matter, and neither does
/// number representation (1 and 1.0 are the same value).
bool same_json(simdjson::dom::element a, simdjson::dom::element b);

}  // namespace kubex::json::detail
