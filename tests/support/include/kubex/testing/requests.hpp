// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small helpers of the tests that drive kubex::client::Client directly. Header-only: users
// link kubex::client and simdjson themselves.

#include <kubex/client/http.hpp>
#include <kubex/core/error.hpp>

#include <simdjson.h>

#include <exception>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace kubex::testing {

/// A GET of `target` with the default headers.
inline client::HttpRequest get(std::string target) {
  client::HttpRequest request;
  request.target = std::move(target);
  return request;
}

/// The kubex::Error inside an exception pointer, or an invalid_argument one if it holds
/// something else (which the caller's expectations then reject).
inline kubex::Error error_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const kubex::Error& e) {
    return e;
  } catch (...) {
    return kubex::Error(std::make_error_code(std::errc::invalid_argument), "not a kubex::Error");
  }
}

/// metadata.resourceVersion of a list's JSON, for a watch to start from; empty if absent.
inline std::string resource_version_of(const std::string& list) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view rv;
  if (parser.parse(list).get(doc) != simdjson::SUCCESS ||
      doc.at_pointer("/metadata/resourceVersion").get(rv) != simdjson::SUCCESS) {
    return {};
  }
  return std::string(rv);
}

}  // namespace kubex::testing
