// SPDX-License-Identifier: Apache-2.0
#pragma once
// Failed API calls: the HTTP status as a std::error_code, the server's `Status` object as data,
// and predicates in the manner of client-go's apierrors (IsNotFound, IsConflict, ...).

#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace kubex {

/// HTTP statuses the Kubernetes API fails with, as error codes of http_category(). Any other
/// status is a valid code too: `std::error_code(status, http_category())`.
enum class http_status {
  bad_request = 400,               ///< Malformed request (bad selector, bad patch body).
  unauthorized = 401,              ///< No or invalid credentials.
  forbidden = 403,                 ///< Authenticated, but RBAC or admission said no.
  not_found = 404,                 ///< The object, namespace or resource does not exist.
  method_not_allowed = 405,        ///< The resource does not support the verb.
  not_acceptable = 406,            ///< No representation matches the Accept header.
  conflict = 409,                  ///< Stale resourceVersion, or the object already exists.
  gone = 410,                      ///< The resourceVersion or continue token expired.
  request_entity_too_large = 413,  ///< The request body exceeds the server's limit.
  unsupported_media_type = 415,    ///< The patch type or Content-Type is not accepted.
  unprocessable_entity = 422,      ///< Validation failed (reason Invalid).
  too_many_requests = 429,         ///< Throttled by API priority and fairness or a webhook.
  internal_server_error = 500,     ///< The server failed.
  service_unavailable = 503,       ///< The server cannot answer now.
  gateway_timeout = 504,           ///< The server timed out.
};

/// The category of HTTP status error codes; its name is "kubex.http" and a code's value is
/// the status number.
KUBEX_API const std::error_category& http_category() noexcept;

/// Makes `s` usable as a std::error_code (found by argument-dependent lookup).
KUBEX_API std::error_code make_error_code(http_status s) noexcept;

/// One cause of a failure, e.g. a field that failed validation.
struct StatusCause {
  /// Machine-readable cause, e.g. "FieldValueRequired"; may be empty.
  std::string reason;
  /// Human-readable description.
  std::string message;
  /// The field at fault, e.g. "spec.containers[0].image"; may be empty.
  std::string field;
};

/// What the failure was about: the object and its causes.
struct StatusDetails {
  /// Name of the object concerned, if there is one.
  std::string name;
  /// API group of the object.
  std::string group;
  /// Kind (or resource, for some errors) of the object.
  std::string kind;
  /// UID of the object, when the error is about one object instance.
  std::string uid;
  /// The individual causes, e.g. one per invalid field.
  std::vector<StatusCause> causes;
  /// Seconds the server asks the client to wait before retrying.
  std::optional<std::int32_t> retry_after_seconds;
};

/// The meta/v1 `Status` object the apiserver sends with every failure.
struct Status {
  /// "Success" or "Failure".
  std::string status;
  /// Human-readable description, e.g. `pods "x" not found`.
  std::string message;
  /// Machine-readable reason, e.g. "NotFound", "AlreadyExists", "Conflict", "Invalid".
  std::string reason;
  /// Extra data; absent when the server sends none.
  std::optional<StatusDetails> details;
  /// The HTTP status the server meant, 0 if it sent none.
  std::int32_t code = 0;
};

namespace json {
class Reader;
}  // namespace json

/// Reads a meta/v1 Status from JSON (the hook the kubex JSON codec finds for Status, e.g.
/// inside a watch ERROR event).
KUBEX_API void kubex_read(json::Reader& r, Status& status);

/// A failed API call: the HTTP status as `code()` (category http_category()), the server's
/// Status, and a message naming the request, e.g.
/// `GET /api/v1/namespaces/default/pods/x: 404 Not Found: pods "x" not found (NotFound)`.
/// The message is never empty. It holds no credentials: only the method, the path and what
/// the server answered (a body that is not a Status is quoted, cut to 200 bytes, with
/// control characters escaped).
class KUBEX_API ApiError : public Error {
 public:
  /// Builds the error for a response with a non-2xx `http_status` and body `body` to the
  /// request `method` `target` (path and query). A body that is not a Status JSON object is
  /// quoted in the message; status() is then made up from the HTTP status.
  static ApiError from_response(std::string_view method, std::string_view target,
                                unsigned http_status, std::string_view body);
  /// Builds the error for a failure Status the server sent outside an HTTP response (exec's
  /// error channel). http_status() is `status.code`, or 500 when the Status has none; the
  /// message starts with `context` (the request, e.g. "GET /api/v1/.../exec?...").
  static ApiError from_status(std::string_view context, Status status);
  /// The HTTP status, e.g. 404.
  [[nodiscard]] unsigned http_status() const noexcept {
    return static_cast<unsigned>(code().value());
  }
  /// The server's Status, or one made up from the HTTP status if it sent none.
  [[nodiscard]] const Status& status() const noexcept { return status_; }
  /// Status.reason, e.g. "NotFound"; empty if the server gave none.
  [[nodiscard]] const std::string& reason() const noexcept { return status_.reason; }
  /// How long the server asked to wait before retrying (details.retryAfterSeconds), if it did.
  [[nodiscard]] std::optional<std::chrono::seconds> retry_after() const noexcept;

 private:
  ApiError(unsigned http_status, Status status, const std::string& message);
  Status status_;
};

/// 404, or reason NotFound.
[[nodiscard]] KUBEX_API bool is_not_found(const ApiError& e) noexcept;
/// 409 with reason AlreadyExists: a create found the name taken.
[[nodiscard]] KUBEX_API bool is_already_exists(const ApiError& e) noexcept;
/// 409 for any other reason than AlreadyExists, typically a stale resourceVersion.
[[nodiscard]] KUBEX_API bool is_conflict(const ApiError& e) noexcept;
/// 410, or reason Gone or Expired: the resourceVersion or continue token is too old, so a
/// watch or paginated list must start again from a fresh list.
[[nodiscard]] KUBEX_API bool is_gone(const ApiError& e) noexcept;
/// 422, or reason Invalid: the object failed validation (see details().causes).
[[nodiscard]] KUBEX_API bool is_invalid(const ApiError& e) noexcept;
/// 400, or reason BadRequest.
[[nodiscard]] KUBEX_API bool is_bad_request(const ApiError& e) noexcept;
/// 401, or reason Unauthorized.
[[nodiscard]] KUBEX_API bool is_unauthorized(const ApiError& e) noexcept;
/// 403, or reason Forbidden.
[[nodiscard]] KUBEX_API bool is_forbidden(const ApiError& e) noexcept;
/// 405, or reason MethodNotAllowed.
[[nodiscard]] KUBEX_API bool is_method_not_allowed(const ApiError& e) noexcept;
/// 429, or reason TooManyRequests.
[[nodiscard]] KUBEX_API bool is_too_many_requests(const ApiError& e) noexcept;
/// 504, or reason Timeout or ServerTimeout: the server gave up, the request may be retried.
[[nodiscard]] KUBEX_API bool is_timeout(const ApiError& e) noexcept;
/// The resourceVersion asked for is newer than the server has yet (an apiserver whose cache
/// lags the one a list came from): a Status with the cause ResourceVersionTooLarge, or a
/// Timeout (504) whose cause or message says "Too large resource version", as servers before
/// 1.18.6 answer. A watch must start again from a fresh list, after a delay.
[[nodiscard]] KUBEX_API bool is_resource_version_too_large(const Status& status) noexcept;
/// is_resource_version_too_large of the error's Status.
[[nodiscard]] KUBEX_API bool is_resource_version_too_large(const ApiError& e) noexcept;
/// 500, or reason InternalError.
[[nodiscard]] KUBEX_API bool is_internal_error(const ApiError& e) noexcept;
/// 503, or reason ServiceUnavailable.
[[nodiscard]] KUBEX_API bool is_service_unavailable(const ApiError& e) noexcept;

}  // namespace kubex

/// Lets kubex::http_status values convert to and compare with std::error_code.
template <>
struct std::is_error_code_enum<kubex::http_status> : std::true_type {};
