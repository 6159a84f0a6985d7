// SPDX-License-Identifier: Apache-2.0
// Internal: a request as the transport performs it, and the errors that name it
// ("GET https://host:port/api/v1/pods: connect: timed out after 5000 ms"). Never installed.
#pragma once

#include "detail/io.hpp"
#include "detail/observed_body.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

namespace kubex::client::detail {

/// A request being performed: the message, built once and sent by each attempt.
struct Call {
  /// The request as it goes on the wire (HTTP/2 takes its fields from it too).
  boost::beast::http::request<boost::beast::http::string_body> message;
  /// https://host:port, for messages.
  std::string_view origin;
  /// GET or HEAD: may be sent again after a transport failure.
  bool read = false;
  /// A watch or a log follow: only its head has a deadline.
  bool streaming = false;
  /// When a whole response must be in.
  Clock::time_point deadline{};
  /// HttpRequest::on_body and its inflater, if the request has a body reader.
  std::shared_ptr<ObservedBody> observer;
};

/// "GET https://host:port/base/target", derived from the request itself.
std::string describe(const Call& call);

/// Throws the Error of `call` failing at `step` with `code`, its message `detail`.
[[noreturn]] void fail(const Call& call, std::string_view step, std::error_code code,
                       const std::string& detail);

/// Throws the Error of an I/O step that failed with `ec`; `limit` is the deadline that step had,
/// named when it timed out.
[[noreturn]] void fail(const Call& call, std::string_view step, const boost_error& ec,
                       std::chrono::milliseconds limit = {});

/// Throws std::errc::timed_out for `step`, naming its `limit`.
[[noreturn]] void fail_timeout(const Call& call, std::string_view step,
                               std::chrono::milliseconds limit);

/// Whether `call` may still wait `delay`: streams have no total deadline, a request must have
/// time left after it.
[[nodiscard]] inline bool time_left(const Call& call, Clock::duration delay) {
  return call.streaming || Clock::now() + delay <= call.deadline;
}

}  // namespace kubex::client::detail
