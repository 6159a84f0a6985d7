#pragma once

// Small helpers of the tests that drive kubex::client::Client directly. Header-only.

#include <kubex/client/http.hpp>
#include <kubex/core/error.hpp>

#include <exception>
#include <string>
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

}  // namespace kubex::testing
