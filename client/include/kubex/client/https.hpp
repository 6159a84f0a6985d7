#pragma once

#include <kubex/client/kubeconfig.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kubex::client {

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
};

/// Parses the values of `Warning` headers (RFC 7234 §5.5, as the apiserver writes them:
/// `299 - "text"`, several possibly comma-separated in one header) and appends their texts
/// to `out`, unescaped. Malformed values are skipped, as client-go skips them.
void parse_warning_header(std::string_view value, std::vector<std::string>& out);

/// Tuning knobs for BasicHttpsConnection.
struct ConnectionOptions {
  /// Deadline for one whole request: resolve, connect, TLS handshake, write and read.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  /// Largest response body accepted, compressed and decompressed; bigger responses fail
  /// instead of exhausting memory.
  std::size_t max_body_size = std::size_t{256} * 1024 * 1024;
  /// Ask for gzip-compressed responses (the apiserver compresses those over 128 KiB). Off
  /// when false or when the cluster sets `disable-compression`.
  bool compression = true;
  /// Value of the User-Agent header; empty selects `kubex-cpp/<library version> (<os>/<arch>)`.
  std::string user_agent{};
  /// Called with each warning the server sends (HttpResponse::warnings), e.g. to log it; none
  /// by default.
  std::function<void(std::string_view warning)> on_warning{};
  /// How often the token file (ClientConfig::token_file) is re-read, so that rotated tokens
  /// (projected service account tokens, tokenFile) are picked up; a 401 re-reads it at once.
  std::chrono::milliseconds token_file_refresh = std::chrono::minutes(1);
};

/// A blocking HTTPS/1.1 client for one apiserver, authenticated as configured by a ClientConfig.
///
/// This is the bootstrap transport: it proves the TLS and authentication path end to end and
/// backs the examples until the asynchronous transport (Asio completion tokens) replaces it.
/// It keeps one TLS connection alive across requests and reconnects when the server closes it.
///
/// Security: TLS 1.2 or newer; the server certificate is verified against the configured CA
/// (or the system trust store when none is set) and against `tls_server_name` or the server
/// host, matching IP addresses against IP SANs. CA, certificate and key are loaded from memory
/// and never written to disk. The bearer token is sent only over this verified connection.
///
/// Not thread-safe: use one connection per thread. A moved-from connection may only be
/// destroyed or assigned to.
class BasicHttpsConnection {
 public:
  /// Prepares the TLS context; does not connect yet.
  /// @throws kubex::ConfigError if the configuration cannot be used (plain http server,
  ///         unusable certificate or key).
  explicit BasicHttpsConnection(ClientConfig config, ConnectionOptions options = {});
  /// Closes the connection (see close()).
  ~BasicHttpsConnection();
  /// Takes over `other`'s connection and settings.
  BasicHttpsConnection(BasicHttpsConnection&& other) noexcept;
  /// Closes this connection and takes over `other`'s.
  BasicHttpsConnection& operator=(BasicHttpsConnection&& other) noexcept;
  BasicHttpsConnection(const BasicHttpsConnection&) = delete;
  BasicHttpsConnection& operator=(const BasicHttpsConnection&) = delete;

  /// Sends `GET <server base path><target>` with `Accept: application/json` and reads the whole
  /// response. `target` is an absolute path with optional query, e.g. from resource_path().
  /// Connects first if needed. A reused connection that the server closed while idle is
  /// retried once on a fresh connection, which is safe because GET is idempotent.
  /// @throws kubex::Error: errc::invalid_path for a malformed target,
  ///         errc::tls_verification_failed if the server certificate is not trusted, and the
  ///         transport's own code (e.g. connection refused, std::errc::timed_out) otherwise.
  HttpResponse get(std::string_view target);
  /// Sends `method` (GET, HEAD, POST, PUT, PATCH or DELETE) to `target` with `body` of type
  /// `content_type` (sent when the body is not empty, and always for POST, PUT and PATCH), and
  /// reads the whole response. Only idempotent methods (GET, HEAD, PUT, DELETE) are retried on
  /// a reused connection the server had closed.
  /// @throws kubex::Error as get() does; errc::invalid_path for another method.
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       std::string_view content_type = "application/json");

  /// Closes the TLS connection, if any, without waiting for the server. The next get()
  /// reconnects.
  void close() noexcept;

  /// True while a TLS connection is established.
  [[nodiscard]] bool is_open() const noexcept;

  /// Number of TLS connections established so far; shows whether keep-alive worked.
  [[nodiscard]] std::size_t connection_count() const noexcept;

  /// How often the exec credential plugin (ClientConfig::exec) has run: once for the first
  /// request, again when its credential expires or the server answers 401.
  [[nodiscard]] std::size_t exec_plugin_runs() const noexcept;
  /// The configuration this connection uses.
  [[nodiscard]] const ClientConfig& config() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubex::client
