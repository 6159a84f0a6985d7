// SPDX-License-Identifier: Apache-2.0
#include "detail/call.hpp"

#include <kubex/core/error.hpp>

#include "detail/text.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>

namespace kubex::client::detail {

std::string describe(const Call& call) {
  std::string text(call.message.method_string());
  text.append(" ").append(call.origin).append(call.message.target());
  return text;
}

void fail(const Call& call, std::string_view step, std::error_code code,
          const std::string& detail) {
  throw Error(code, describe(call) + ": " + std::string(step) + ": " + detail);
}

void fail(const Call& call, std::string_view step, const boost_error& ec,
          std::chrono::milliseconds limit) {
  if (ec == beast::error::timeout) {
    if (limit.count() > 0) {
      fail_timeout(call, step, limit);
    }
    fail(call, step, std::make_error_code(std::errc::timed_out), "timed out");
  }
  if (ec == asio::error::operation_aborted) {
    fail(call, step, std::make_error_code(std::errc::operation_canceled), "cancelled");
  }
  fail(call, step, std::error_code(ec), ec.message());
}

void fail_timeout(const Call& call, std::string_view step, std::chrono::milliseconds limit) {
  fail(call, step, std::make_error_code(std::errc::timed_out), "timed out after " + ms_text(limit));
}

}  // namespace kubex::client::detail
