// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a failed operation means, as a value: the decision a retry loop, a watcher or a
// controller's requeue takes (retry, list again, stop, report), made once from the exception
// pointer that every kubex operation completes with. See docs/architecture.md, "Errors".

#include <kubex/core/api_error.hpp>
#include <kubex/core/export.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace kubex {

/// What kind of failure a Failure holds.
enum class failure_kind {
  /// No failure: a default-constructed Failure, or one made from a null exception pointer.
  none,
  /// The caller cancelled the operation (std::errc::operation_canceled).
  canceled,
  /// No usable answer arrived: connection refused, reset or closed, a timeout, a TLS or name
  /// resolution failure. The server may not have seen the request.
  transport,
  /// The server answered with a non-2xx status; api_error() holds its Status.
  api,
  /// An answer arrived but does not fit the model (json::DecodeError, errc::invalid_json,
  /// errc::invalid_protobuf).
  decode,
  /// An item of a stream (a watch event, a log line) was over its size limit and refused
  /// unread (std::errc::message_size): not malformed, and it comes again if the stream is
  /// read again.
  too_large,
  /// The configuration or credentials are unusable (ConfigError, a credential plugin that
  /// failed): errc::invalid_config.
  config,
  /// The call itself was wrong (an invalid name, path, selector or option); nothing was sent.
  invalid_argument,
  /// Not a kubex::Error: an exception of the caller's own code, or std::bad_alloc.
  other,
};

/// A failure, classified. Operations complete with a std::exception_ptr (so co_await and
/// futures throw the full kubex::Error); a Failure looks inside once, so code that must decide
/// what to do next asks plain questions instead of writing a chain of catch blocks. Cheap to
/// copy; keeps the exception alive.
class KUBEX_API Failure {
 public:
  /// No failure.
  Failure() noexcept = default;
  /// Classifies `error` (rethrown once, inside); a null pointer is no failure.
  explicit Failure(std::exception_ptr error);

  /// True when there is a failure.
  explicit operator bool() const noexcept { return kind_ != failure_kind::none; }
  /// What kind of failure this is.
  [[nodiscard]] failure_kind kind() const noexcept { return kind_; }
  /// kubex::Error::code(): a kubex::errc, an HTTP status (http_category()) or the transport
  /// stack's code; empty for no failure and for failure_kind::other.
  [[nodiscard]] const std::error_code& code() const noexcept { return code_; }
  /// The exception's what(); empty for no failure. Never holds credentials.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  /// The server's answer when kind() is api, else null; valid as long as this Failure.
  [[nodiscard]] const ApiError* api_error() const noexcept { return api_.get(); }
  /// The HTTP status of an api failure (e.g. 404), else 0.
  [[nodiscard]] unsigned http_status() const noexcept;
  /// The exception this Failure was made from.
  [[nodiscard]] const std::exception_ptr& exception() const noexcept { return error_; }
  /// Throws the exception again (for code that prefers to catch it).
  [[noreturn]] void rethrow() const;

  /// The caller cancelled the operation.
  [[nodiscard]] bool canceled() const noexcept { return kind_ == failure_kind::canceled; }
  /// An item over its size limit (failure_kind::too_large), not a malformed one (decode).
  [[nodiscard]] bool too_large() const noexcept { return kind_ == failure_kind::too_large; }
  /// 410 Gone or reason Expired: a watch or paginated list must start again from a fresh
  /// list (is_gone()).
  [[nodiscard]] bool gone() const noexcept;
  /// The same request may succeed later unchanged: a transport failure other than a TLS
  /// certificate that did not verify, or an answer of 429, 500, 502, 503 or 504 (reasons
  /// TooManyRequests, InternalError, ServiceUnavailable, Timeout, ServerTimeout; the
  /// apiserver answers 500 for transient storage failures). Everything else needs a change
  /// first: a 404, 409 or 422 answers the same again, as does a bad argument or a bad config.
  [[nodiscard]] bool retryable() const noexcept;
  /// How long the server asked to wait (Status details.retryAfterSeconds), if it did.
  [[nodiscard]] std::optional<std::chrono::seconds> retry_after() const noexcept {
    return api_ ? api_->retry_after() : std::nullopt;
  }

 private:
  std::exception_ptr error_{};
  failure_kind kind_ = failure_kind::none;
  std::error_code code_{};
  std::string message_{};
  std::shared_ptr<const ApiError> api_{};
};

/// The name of `kind`, e.g. "transport".
[[nodiscard]] KUBEX_API std::string_view to_string(failure_kind kind) noexcept;

}  // namespace kubex
