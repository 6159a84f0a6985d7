// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/api_error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/protobuf_status.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace kubex {

// The wire form of meta/v1 Status; `kind` tells a Status from any other JSON body.
namespace {

struct WireStatus {
  std::string kind;
  std::string status;
  std::string message;
  std::string reason;
  std::optional<StatusDetails> details;
  std::int32_t code = 0;
};

}  // namespace

constexpr auto kubex_fields(const StatusCause*) noexcept {
  return std::tuple{json::field("reason", &StatusCause::reason),
                    json::field("message", &StatusCause::message),
                    json::field("field", &StatusCause::field)};
}

constexpr auto kubex_fields(const StatusDetails*) noexcept {
  return std::tuple{json::field("name", &StatusDetails::name),
                    json::field("group", &StatusDetails::group),
                    json::field("kind", &StatusDetails::kind),
                    json::field("uid", &StatusDetails::uid),
                    json::field("causes", &StatusDetails::causes),
                    json::field("retryAfterSeconds", &StatusDetails::retry_after_seconds)};
}

namespace {

constexpr auto kubex_fields(const WireStatus*) noexcept {
  return std::tuple{
      json::field("kind", &WireStatus::kind),       json::field("status", &WireStatus::status),
      json::field("message", &WireStatus::message), json::field("reason", &WireStatus::reason),
      json::field("details", &WireStatus::details), json::field("code", &WireStatus::code)};
}

}  // namespace

void kubex_read(json::Reader& r, Status& status) {
  WireStatus wire;
  json::read(r, wire);
  status = Status{std::move(wire.status), std::move(wire.message), std::move(wire.reason),
                  std::move(wire.details), wire.code};
}

namespace {

class http_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "kubex.http"; }
  [[nodiscard]] std::string message(int value) const override;
};

// The standard reason phrase of an HTTP status; nullptr for statuses the API does not use.
const char* reason_phrase(unsigned status) noexcept {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return nullptr;
  }
}

std::string http_status_text(unsigned status) {
  std::string text = std::to_string(status);
  if (const char* phrase = reason_phrase(status)) {
    text += ' ';
    text += phrase;
  }
  return text;
}

std::string http_category_impl::message(int value) const {
  const char* phrase = reason_phrase(static_cast<unsigned>(value));
  return phrase != nullptr ? std::string(phrase) : "HTTP status " + std::to_string(value);
}

// The reason client-go gives a status the server did not explain (ReasonForError's fallback).
std::string default_reason(unsigned status) {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return {};
  }
}

// A body that is not a Status, as a quoted snippet safe to print: at most 200 bytes (cut on
// a UTF-8 boundary), control characters and quotes escaped.
std::string quote_body(std::string_view body) {
  constexpr std::size_t limit = 200;
  bool cut = false;
  if (body.size() > limit) {
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(body[end]) & 0xC0U) == 0x80U) {
      --end;  // do not split a multi-byte character
    }
    body = body.substr(0, end);
    cut = true;
  }
  std::string out = "\"";
  for (const char c : body) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  out += '"';
  if (cut) {
    out += "...";
  }
  return out;
}

bool has(const ApiError& e, unsigned status, std::string_view reason) noexcept {
  return e.http_status() == status || e.reason() == reason;
}

}  // namespace

const std::error_category& http_category() noexcept {
  static const http_category_impl instance;
  return instance;
}

std::error_code make_error_code(http_status s) noexcept {
  return {static_cast<int>(s), http_category()};
}

ApiError::ApiError(unsigned http_status, Status status, const std::string& message)
    : Error(std::error_code(static_cast<int>(http_status), http_category()), message),
      status_(std::move(status)) {}

ApiError ApiError::from_response(std::string_view method, std::string_view target,
                                 unsigned http_status, std::string_view body) {
  std::string message;
  message.append(method).append(" ").append(target).append(": ").append(
      http_status_text(http_status));
  WireStatus wire;
  bool is_status = false;
  if (!body.empty() && body.front() == '{') {
    try {
      json::decode(body, wire);
      is_status = wire.kind == "Status";
    } catch (const json::DecodeError&) {
      is_status = false;  // quoted below, like any body that is not a Status
    }
  }
  Status status;
  // A client that asked for protobuf gets its errors as a protobuf Status.
  std::optional<Status> from_protobuf;
  if (!is_status) {
    from_protobuf = protobuf::status_of_body(body);
  }
  if (is_status || from_protobuf) {
    status = from_protobuf ? std::move(*from_protobuf)
                           : Status{std::move(wire.status), std::move(wire.message),
                                    std::move(wire.reason), std::move(wire.details), wire.code};
    if (!status.message.empty()) {
      message.append(": ").append(status.message);
    }
    if (!status.reason.empty()) {
      message.append(" (").append(status.reason).append(")");
    }
  } else {
    status.status = "Failure";
    status.code = static_cast<std::int32_t>(http_status);
    status.reason = default_reason(http_status);
    if (!body.empty()) {
      message.append(": ").append(quote_body(body));
    }
  }
  return {http_status, std::move(status), message};
}

ApiError ApiError::from_status(std::string_view context, Status status) {
  const unsigned code =
      status.code >= 400 && status.code <= 599 ? static_cast<unsigned>(status.code) : 500U;
  std::string message(context);
  message.append(": ").append(http_status_text(code));
  if (!status.message.empty()) {
    message.append(": ").append(status.message);
  }
  if (!status.reason.empty()) {
    message.append(" (").append(status.reason).append(")");
  }
  return {code, std::move(status), message};
}

std::optional<std::chrono::seconds> ApiError::retry_after() const noexcept {
  if (status_.details && status_.details->retry_after_seconds) {
    return std::chrono::seconds(*status_.details->retry_after_seconds);
  }
  return std::nullopt;
}

bool is_not_found(const ApiError& e) noexcept {
  return has(e, 404, "NotFound");
}

bool is_already_exists(const ApiError& e) noexcept {
  return e.reason() == "AlreadyExists";
}

bool is_conflict(const ApiError& e) noexcept {
  return (e.http_status() == 409 && e.reason() != "AlreadyExists") || e.reason() == "Conflict";
}

bool is_gone(const ApiError& e) noexcept {
  return has(e, 410, "Gone") || e.reason() == "Expired";
}

bool is_invalid(const ApiError& e) noexcept {
  return has(e, 422, "Invalid");
}

bool is_bad_request(const ApiError& e) noexcept {
  return has(e, 400, "BadRequest");
}

bool is_unauthorized(const ApiError& e) noexcept {
  return has(e, 401, "Unauthorized");
}

bool is_forbidden(const ApiError& e) noexcept {
  return has(e, 403, "Forbidden");
}

bool is_method_not_allowed(const ApiError& e) noexcept {
  return has(e, 405, "MethodNotAllowed");
}

bool is_too_many_requests(const ApiError& e) noexcept {
  return has(e, 429, "TooManyRequests");
}

bool is_timeout(const ApiError& e) noexcept {
  return has(e, 504, "Timeout") || e.reason() == "ServerTimeout";
}

bool is_resource_version_too_large(const Status& status) noexcept {
  constexpr std::string_view text = "Too large resource version";
  if (status.details) {
    for (const auto& cause : status.details->causes) {
      if (cause.reason == "ResourceVersionTooLarge") {
        return true;
      }
    }
  }
  // Older servers: a Timeout with the text in a cause or in the message.
  if (status.code != 504 && status.reason != "Timeout") {
    return false;
  }
  if (status.details) {
    for (const auto& cause : status.details->causes) {
      if (cause.message == text) {
        return true;
      }
    }
  }
  return status.message.find(text) != std::string::npos;
}

bool is_resource_version_too_large(const ApiError& e) noexcept {
  return is_resource_version_too_large(e.status());
}

bool is_internal_error(const ApiError& e) noexcept {
  return has(e, 500, "InternalError");
}

bool is_service_unavailable(const ApiError& e) noexcept {
  return has(e, 503, "ServiceUnavailable");
}

}  // namespace kubex
