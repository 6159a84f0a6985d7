// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client {

/// One HTTP request to the apiserver, before authentication: the transport adds Host,
/// User-Agent, Authorization, Impersonate-* and Accept-Encoding itself.
struct HttpRequest {
  /// GET, HEAD, POST, PUT, PATCH or DELETE.
  std::string method = "GET";
  /// Absolute path with optional query, below the server's base path, e.g. from resource_path().
  std::string target{};
  /// Request body; sent (with `content_type`) when not empty, and always for POST, PUT, PATCH.
  std::string body{};
  /// Content-Type of `body`.
  std::string content_type = "application/json";
  /// Value of the Accept header.
  std::string accept = "application/json";
  /// Further headers, sent as given after the client's default headers.
  std::vector<std::pair<std::string, std::string>> headers{};
  /// Optional reader of the body while it arrives (whole-response requests): called on the
  /// transport's strand with `start` true when an attempt's response head is in (anything
  /// seen before belongs to an abandoned attempt), then, for a 2xx answer (identity, or gzip:
  /// inflated as it arrives), with the body received so far after each read. It may remove
  /// bytes it is done with from the front; the response then carries what is left. Must not
  /// throw. Lists use it to decode items during the transfer.
  std::function<void(std::string& body, bool start)> on_body{};
  /// Streams only: the idle timeout used when ClientOptions::stream_idle_timeout is unset (a
  /// watch's comes from its timeoutSeconds, kubex::watch_idle_timeout); unset: none.
  std::optional<std::chrono::milliseconds> idle_timeout{};
};

/// A complete HTTP response held in memory.
struct HttpResponse {
  /// HTTP status code, e.g. 200 or 403. Non-2xx statuses are returned, not thrown.
  unsigned status = 0;
  /// Value of the Content-Type header; empty if the server sent none.
  std::string content_type{};
  /// The Content-Encoding the server used ("gzip"), empty for none; `body` is decoded.
  std::string content_encoding{};
  /// The body with any chunked transfer encoding removed. For errors the apiserver sends a
  /// `Status` object here.
  std::string body{};
  /// The texts of the response's `Warning: 299 - "..."` headers (deprecated APIs, unknown
  /// fields with fieldValidation=Warn, admission webhooks' warnings), in order.
  std::vector<std::string> warnings{};
  /// Value of the Retry-After header when the server sent one (429, 503), else empty.
  std::string retry_after{};
};

/// Parses the values of `Warning` headers (RFC 7234 §5.5, as the apiserver writes them:
/// `299 - "text"`, several possibly comma-separated in one header) and appends their texts
/// to `out`, unescaped. Malformed values are skipped, as client-go skips them.
KUBEX_API void parse_warning_header(std::string_view value, std::vector<std::string>& out);

}  // namespace kubex::client
