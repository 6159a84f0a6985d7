#include <kubex/client/exec_credential.hpp>
#include <kubex/client/https.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>

#include "detail/pem.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <zlib.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#ifndef KUBEX_VERSION
#error "KUBEX_VERSION must be defined by the build"
#endif

// The platform in the default User-Agent, as client-go writes GOOS/GOARCH.
#if defined(__linux__)
#define KUBEX_OS "linux"
#elif defined(__APPLE__)
#define KUBEX_OS "darwin"
#elif defined(_WIN32)
#define KUBEX_OS "windows"
#else
#define KUBEX_OS "unknown"
#endif
#if defined(__x86_64__) || defined(_M_X64)
#define KUBEX_ARCH "amd64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define KUBEX_ARCH "arm64"
#else
#define KUBEX_ARCH "unknown"
#endif

namespace kubex::client {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost_error = boost::system::error_code;
using Clock = std::chrono::steady_clock;

// Response headers from the apiserver are small, but Warning headers can add up.
constexpr std::uint32_t max_header_size = 64U * 1024U;

// Impersonate-Extra-<key>: the key goes into a header name, so every byte that is not a
// token character (RFC 9110), and '%' itself, is percent-encoded, as client-go does.
std::string extra_header_name(std::string_view key) {
  static constexpr std::string_view token_chars = "!#$&'*+-.^_`|~";
  std::string name = "Impersonate-Extra-";
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
        token_chars.find(c) != std::string_view::npos) {
      name += c;
    } else {
      static constexpr char hex[] = "0123456789ABCDEF";
      name += '%';
      name += hex[u >> 4U];
      name += hex[u & 0xFU];
    }
  }
  return name;
}

template <class Request>
void add_impersonation_headers(Request& request, const Impersonation& as) {
  if (as.user.empty()) {
    return;
  }
  request.set("Impersonate-User", as.user);
  if (!as.uid.empty()) {
    request.set("Impersonate-Uid", as.uid);
  }
  for (const auto& group : as.groups) {
    request.insert("Impersonate-Group", group);
  }
  for (const auto& [key, values] : as.extra) {
    const std::string name = extra_header_name(key);
    for (const auto& value : values) {
      request.insert(name, value);
    }
  }
}

// Inflates a gzip body; std::nullopt (with `problem` set) if it is corrupt or would exceed
// `limit` bytes, which also stops decompression bombs.
std::optional<std::string> gunzip(std::string_view in, std::size_t limit, std::string& problem) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {  // 16: gzip framing only
    problem = "cannot start zlib";
    return std::nullopt;
  }
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // zlib's API is not const
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    const std::size_t before = out.size();
    out.resize(before + 65536);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = 65536;
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(before + (65536 - z.avail_out));
    if (out.size() > limit) {
      problem = "decompressed body exceeds the limit of " + std::to_string(limit) + " bytes";
      inflateEnd(&z);
      return std::nullopt;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      break;  // input ended before the gzip trailer
    }
  }
  const bool complete = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!complete) {
    problem = "corrupt gzip body";
    return std::nullopt;
  }
  return out;
}

bool is_valid_target(std::string_view target) noexcept {
  if (target.empty() || target.front() != '/') {
    return false;
  }
  for (const char c : target) {
    // Anything at or below space would let a caller inject headers or break the request line.
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return false;
    }
  }
  return true;
}

bool is_ip_address(const std::string& host) {
  boost_error ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

struct BasicHttpsConnection::Impl {
  Impl(ClientConfig cfg, ConnectionOptions opts)
      : config(std::move(cfg)), options(std::move(opts)) {
    if (options.user_agent.empty()) {
      options.user_agent = "kubex-cpp/" KUBEX_VERSION " (" KUBEX_OS "/" KUBEX_ARCH ")";
    }
    if (config.server.scheme != "https") {
      throw ConfigError(config.source + ": clusters[" + config.cluster_name +
                        "].server: BasicHttpsConnection requires an https:// server");
    }
    verify_name = config.tls_server_name.empty() ? config.server.host : config.tls_server_name;
    verify_name_is_ip = is_ip_address(verify_name);
    location = "https://" + config.server.authority();
    // As in client-go, credentials written in the kubeconfig win over a plugin.
    uses_exec =
        config.exec.has_value() && config.token.empty() && config.client_certificate_pem.empty();
    setup_tls();
  }

  void setup_tls() {
    SSL_CTX* ctx = tls.native_handle();
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
      throw ConfigError(config.source + ": cannot restrict TLS to version 1.2 or newer");
    }
    if (config.insecure_skip_tls_verify) {
      tls.set_verify_mode(ssl::verify_none);
    } else {
      tls.set_verify_mode(ssl::verify_peer);
      if (config.certificate_authority_pem.empty()) {
        // No CA configured means the system roots, never "trust anything" (CVE-2022-0759).
        boost_error ec;
        tls.set_default_verify_paths(ec);
        if (ec) {
          throw ConfigError(config.source +
                            ": cannot load the system trust store: " + ec.message());
        }
      } else {
        const auto cas = detail::read_pem_certificates(config.certificate_authority_pem);
        if (cas.empty()) {
          throw ConfigError(config.source + ": clusters[" + config.cluster_name +
                            "]: certificate authority is not valid PEM");
        }
        X509_STORE* store = SSL_CTX_get_cert_store(ctx);
        for (const auto& ca : cas) {
          if (X509_STORE_add_cert(store, ca.get()) != 1) {
            ERR_clear_error();  // a CA listed twice is harmless
          }
        }
      }
    }

    if (!config.client_certificate_pem.empty() || !config.client_key_pem.empty()) {
      use_client_certificate(config.client_certificate_pem, config.client_key_pem,
                             config.source + ": users[" + config.user_name + "]");
    }
  }

  // Makes the TLS context present this certificate chain and key from the next handshake on.
  void use_client_certificate(const std::string& certificate_pem, const std::string& key_pem,
                              const std::string& field) {
    SSL_CTX* ctx = tls.native_handle();
    const auto chain = detail::read_pem_certificates(certificate_pem);
    if (chain.empty()) {
      throw ConfigError(field + ": client certificate is not valid PEM");
    }
    const auto key = detail::read_pem_private_key(key_pem);
    if (!key) {
      throw ConfigError(field + ": client key is not a valid, unencrypted PEM private key");
    }
    SSL_CTX_clear_chain_certs(ctx);
    bool ok = SSL_CTX_use_certificate(ctx, chain.front().get()) == 1;
    for (std::size_t i = 1; ok && i < chain.size(); ++i) {
      ok = SSL_CTX_add1_chain_cert(ctx, chain[i].get()) == 1;
    }
    ok = ok && SSL_CTX_use_PrivateKey(ctx, key.get()) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    ERR_clear_error();
    if (!ok) {
      throw ConfigError(field + ": client certificate and key cannot be used together");
    }
  }

  // Runs the private io_context until the pending operation sets `done`. Once `deadline` passes
  // the operation is cancelled through `cancel` and the call reports a timeout.
  template <class Cancel>
  bool run_until(const bool& done, Clock::time_point deadline, Cancel cancel) {
    ioc.restart();
    bool timed_out = false;
    while (!done) {
      if (timed_out) {
        ioc.run_one();
      } else if (ioc.run_one_until(deadline) == 0 && !done && Clock::now() >= deadline) {
        timed_out = true;
        cancel();
      }
      if (ioc.stopped()) {
        ioc.restart();
      }
    }
    return timed_out;
  }

  [[noreturn]] void fail(std::string_view target, std::string_view step, std::error_code code,
                         const std::string& detail) const {
    std::string message = method + " " + location;
    message.append(config.server.base_path).append(target).append(": ").append(step);
    message.append(": ").append(detail);
    throw Error(code, message);
  }

  [[noreturn]] void fail(std::string_view target, std::string_view step,
                         const boost_error& ec) const {
    fail(target, step, std::error_code(ec), ec.message());
  }

  [[noreturn]] void fail_timeout(std::string_view target, std::string_view step) const {
    const auto code = std::make_error_code(std::errc::timed_out);
    fail(target, step, code, "timed out after " + std::to_string(options.timeout.count()) + " ms");
  }

  void connect(std::string_view target, Clock::time_point deadline) {
    tcp::resolver::results_type endpoints;
    boost_error ec;
    bool done = false;

    boost_error address_ec;
    const auto address = asio::ip::make_address(config.server.host, address_ec);
    if (!address_ec) {
      endpoints = tcp::resolver::results_type::create(tcp::endpoint(address, config.server.port),
                                                      config.server.host,
                                                      std::to_string(config.server.port));
    } else {
      resolver.async_resolve(config.server.host, std::to_string(config.server.port),
                             [&](const boost_error& e, tcp::resolver::results_type results) {
                               ec = e;
                               endpoints = std::move(results);
                               done = true;
                             });
      if (run_until(done, deadline, [&] { resolver.cancel(); })) {
        fail_timeout(target, "resolve " + config.server.host);
      }
      if (ec) {
        fail(target, "resolve " + config.server.host, ec);
      }
    }

    stream.emplace(ioc, tls);
    auto& socket = stream->next_layer();
    const auto close_socket = [&] {
      boost_error ignored;
      socket.close(ignored);
    };

    done = false;
    asio::async_connect(socket, endpoints, [&](const boost_error& e, const tcp::endpoint&) {
      ec = e;
      done = true;
    });
    if (run_until(done, deadline, close_socket)) {
      stream.reset();
      fail_timeout(target, "connect");
    }
    if (ec) {
      stream.reset();
      fail(target, "connect", ec);
    }

    SSL* ssl = stream->native_handle();
    // SNI carries host names only (RFC 6066); verification still checks the IP SAN.
    // SSL_set_tlsext_host_name is a macro with a C-style cast; this is its expansion.
    if (!verify_name_is_ip && SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                       const_cast<char*>(verify_name.c_str())) != 1) {
      stream.reset();
      fail(target, "TLS setup", make_error_code(errc::invalid_config),
           "cannot use \"" + verify_name + "\" as TLS server name");
    }
    if (!config.insecure_skip_tls_verify) {
      SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      const int set = verify_name_is_ip
                          ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), verify_name.c_str())
                          : SSL_set1_host(ssl, verify_name.c_str());
      if (set != 1) {
        ERR_clear_error();
        stream.reset();
        fail(target, "TLS setup", make_error_code(errc::invalid_config),
             "cannot verify against \"" + verify_name + "\"");
      }
    }

    done = false;
    stream->async_handshake(ssl::stream_base::client, [&](const boost_error& e) {
      ec = e;
      done = true;
    });
    if (run_until(done, deadline, close_socket)) {
      stream.reset();
      fail_timeout(target, "TLS handshake");
    }
    if (ec) {
      const long verify_result = SSL_get_verify_result(ssl);
      ERR_clear_error();
      if (!config.insecure_skip_tls_verify && verify_result != X509_V_OK) {
        const std::string reason = X509_verify_cert_error_string(verify_result);
        stream.reset();
        fail(target, "TLS handshake", make_error_code(errc::tls_verification_failed),
             "server certificate not trusted for \"" + verify_name + "\": " + reason);
      }
      stream.reset();
      fail(target, "TLS handshake", ec);
    }
    buffer.clear();
    ++connections;
  }

  // One request/response exchange on the current stream. Returns the error instead of throwing
  // so that get() can decide whether a retry is safe; `received` tells whether any response
  // bytes arrived.
  boost_error exchange(const http::request<http::string_body>& request, HttpResponse& response,
                       Clock::time_point deadline, bool& received, bool& keep_alive,
                       bool& timed_out) {
    auto& socket = stream->next_layer();
    const auto close_socket = [&] {
      boost_error ignored;
      socket.close(ignored);
    };
    boost_error ec;
    bool done = false;
    received = false;

    http::async_write(*stream, request, [&](const boost_error& e, std::size_t) {
      ec = e;
      done = true;
    });
    timed_out = run_until(done, deadline, close_socket);
    if (timed_out || ec) {
      return ec;
    }

    http::response_parser<http::string_body> parser;
    parser.header_limit(max_header_size);
    parser.body_limit(options.max_body_size);
    done = false;
    http::async_read(*stream, buffer, parser, [&](const boost_error& e, std::size_t) {
      ec = e;
      done = true;
    });
    timed_out = run_until(done, deadline, close_socket);
    received = parser.got_some();
    if (timed_out || ec) {
      return ec;
    }

    auto message = parser.release();
    keep_alive = message.keep_alive();
    response.status = message.result_int();
    response.content_type = std::string(message[http::field::content_type]);
    response.content_encoding = std::string(message[http::field::content_encoding]);
    if (response.content_encoding == "gzip") {
      std::string problem;
      auto inflated = gunzip(message.body(), options.max_body_size, problem);
      if (!inflated) {
        throw Error(std::make_error_code(std::errc::bad_message),
                    method + " " + location + config.server.base_path +
                        std::string(request.target()) + ": " + problem);
      }
      response.body = std::move(*inflated);
    } else {
      response.body = std::move(message.body());
    }
    response.warnings.clear();
    for (const auto& field : message) {
      if (field.name() == http::field::warning) {
        parse_warning_header(field.value(), response.warnings);
      }
    }
    return {};
  }

  HttpResponse send(http::verb verb, std::string_view target, std::string_view body,
                    std::string_view content_type) {
    method = std::string(http::to_string(verb));
    if (!is_valid_target(target)) {
      throw Error(errc::invalid_path, method + " " + location +
                                          ": request target must be an absolute path without "
                                          "spaces or control characters");
    }
    const auto deadline = Clock::now() + options.timeout;

    http::request<http::string_body> request{verb, config.server.base_path + std::string(target),
                                             11};
    request.set(http::field::host, config.server.authority());
    request.set(http::field::user_agent, options.user_agent);
    request.set(http::field::accept, "application/json");
    if (options.compression && !config.disable_compression) {
      request.set(http::field::accept_encoding, "gzip");
    }
    refresh_token(false);
    refresh_exec(false);
    if (!config.token.empty()) {
      request.set(http::field::authorization, "Bearer " + config.token);
    }
    add_impersonation_headers(request, config.impersonate);
    if (!body.empty() || verb == http::verb::post || verb == http::verb::put ||
        verb == http::verb::patch) {
      request.set(http::field::content_type, content_type);
      request.body().assign(body);
      request.prepare_payload();
    }
    // A request the server may have received must not be sent twice unless repeating it is
    // harmless.
    const bool idempotent = verb == http::verb::get || verb == http::verb::head ||
                            verb == http::verb::put || verb == http::verb::delete_;

    HttpResponse response;
    bool retried_with_new_token = false;
    for (int attempt = 0;; ++attempt) {
      const bool reused = stream.has_value();
      if (!reused) {
        connect(target, deadline);
      }
      bool received = false;
      bool keep_alive = false;
      bool timed_out = false;
      const auto ec = exchange(request, response, deadline, received, keep_alive, timed_out);
      if (!timed_out && !ec) {
        if (!keep_alive) {
          close();
        }
        // A rotated token file may hold a new token already: the server refused the request
        // before acting on it, so sending it once more with the new token is safe.
        if (response.status == 401 && !retried_with_new_token &&
            (refresh_token(true) || refresh_exec(true))) {
          retried_with_new_token = true;
          if (config.token.empty()) {
            request.erase(http::field::authorization);
          } else {
            request.set(http::field::authorization, "Bearer " + config.token);
          }
          continue;
        }
        if (options.on_warning) {
          for (const auto& warning : response.warnings) {
            options.on_warning(warning);
          }
        }
        return response;
      }
      close();
      if (timed_out) {
        fail_timeout(target, "request");
      }
      // An idle keep-alive connection may have been closed by the server just before we used
      // it; that shows up as a failure before any response byte and deserves one more try.
      if (reused && !received && attempt == 0 && idempotent) {
        continue;
      }
      fail(target, received ? "read response" : "send request", ec);
    }
  }

  // Re-reads the token file (user `tokenFile`, or a service account token) when it is older
  // than options.token_file_refresh, or always if `force`. Returns true if the token changed.
  // A file that cannot be read keeps the current token: rotation replaces files atomically, so
  // a failed read is transient, and the server will say 401 if the old token is really dead.
  bool refresh_token(bool force) {
    if (config.token_file.empty()) {
      return false;
    }
    const auto now = Clock::now();
    if (!force && token_read_at && now - *token_read_at < options.token_file_refresh) {
      return false;
    }
    token_read_at = now;
    std::ifstream in(config.token_file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      return false;
    }
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto last = text.find_last_not_of(" \t\r\n");
    if (first == std::string::npos) {
      return false;
    }
    std::string token = text.substr(first, last - first + 1);
    for (const char c : token) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return false;  // would break the header; keep the token we have
      }
    }
    if (token == config.token) {
      return false;
    }
    config.token = std::move(token);
    return true;
  }

  // Runs the exec plugin when there is no credential yet, when it has expired, or if `force`
  // (after a 401). Returns true if the credential changed. A new client certificate closes the
  // connection, so that the next handshake presents it.
  bool refresh_exec(bool force) {
    if (!uses_exec) {
      return false;
    }
    if (!force && exec_credential &&
        (!exec_credential->expiration || Time::now() < *exec_credential->expiration)) {
      return false;
    }
    auto fresh = run_exec_plugin(config);
    ++exec_runs;
    const bool changed = !exec_credential || fresh.token != exec_credential->token ||
                         fresh.client_certificate_pem != exec_credential->client_certificate_pem;
    if (!fresh.client_certificate_pem.empty() &&
        (!exec_credential ||
         fresh.client_certificate_pem != exec_credential->client_certificate_pem)) {
      use_client_certificate(fresh.client_certificate_pem, fresh.client_key_pem,
                             "exec plugin \"" + config.exec->command + "\"");
      close();
    }
    config.token = fresh.token;
    exec_credential = std::move(fresh);
    return changed;
  }

  void close() noexcept {
    if (stream) {
      // No TLS close_notify: waiting for the peer's reply could block, and the apiserver does
      // not need it to release the connection.
      boost_error ignored;
      stream->next_layer().close(ignored);
      stream.reset();
    }
    buffer.clear();
  }

  ClientConfig config;
  ConnectionOptions options;
  std::string verify_name;
  bool verify_name_is_ip = false;
  std::string location;
  std::string method = "GET";                      // of the request in flight, for messages
  std::optional<Clock::time_point> token_read_at;  // last read of config.token_file
  bool uses_exec = false;                          // the exec plugin supplies credentials
  std::optional<ExecCredential> exec_credential;   // its last answer
  std::size_t exec_runs = 0;
  std::size_t connections = 0;

  // Destruction order matters: the stream uses the TLS context and the io_context.
  asio::io_context ioc{1};
  ssl::context tls{ssl::context::tls_client};
  tcp::resolver resolver{ioc};
  std::optional<ssl::stream<tcp::socket>> stream;
  boost::beast::flat_buffer buffer;
};

BasicHttpsConnection::BasicHttpsConnection(ClientConfig config, ConnectionOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

BasicHttpsConnection::~BasicHttpsConnection() = default;
BasicHttpsConnection::BasicHttpsConnection(BasicHttpsConnection&& other) noexcept = default;
BasicHttpsConnection& BasicHttpsConnection::operator=(BasicHttpsConnection&& other) noexcept =
    default;

void parse_warning_header(std::string_view value, std::vector<std::string>& out) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) {
      ++i;
    }
  };
  const auto skip_to_next = [&] {
    // Past the next comma outside a quoted string, to the next warning value.
    bool quoted = false;
    for (; i < value.size(); ++i) {
      if (quoted && value[i] == '\\') {
        ++i;
      } else if (value[i] == '"') {
        quoted = !quoted;
      } else if (!quoted && value[i] == ',') {
        ++i;
        return;
      }
    }
  };
  while (i < value.size()) {
    skip_space();
    // warn-code: three digits; warn-agent: a token (the apiserver writes "-").
    const std::size_t code = i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') {
      ++i;
    }
    const bool code_ok = i - code == 3 && i < value.size() && value[i] == ' ';
    ++i;
    while (code_ok && i < value.size() && value[i] != ' ') {
      ++i;
    }
    ++i;
    if (!code_ok || i >= value.size() || value[i] != '"') {
      skip_to_next();
      continue;
    }
    std::string text;
    bool closed = false;
    for (++i; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) {
        text += value[++i];
      } else if (value[i] == '"') {
        closed = true;
        ++i;
        break;
      } else {
        text += value[i];
      }
    }
    if (closed) {
      out.push_back(std::move(text));
    }
    skip_to_next();  // an optional warn-date, then the next value
  }
}

HttpResponse BasicHttpsConnection::get(std::string_view target) {
  return impl_->send(http::verb::get, target, {}, {});
}

HttpResponse BasicHttpsConnection::request(std::string_view method, std::string_view target,
                                           std::string_view body, std::string_view content_type) {
  const auto verb = http::string_to_verb(method);
  if (verb != http::verb::get && verb != http::verb::head && verb != http::verb::post &&
      verb != http::verb::put && verb != http::verb::patch && verb != http::verb::delete_) {
    throw Error(errc::invalid_path, "unsupported HTTP method \"" + std::string(method) +
                                        "\" (use GET, HEAD, POST, PUT, PATCH or DELETE)");
  }
  return impl_->send(verb, target, body, content_type);
}

void BasicHttpsConnection::close() noexcept {
  impl_->close();
}

bool BasicHttpsConnection::is_open() const noexcept {
  return impl_->stream.has_value();
}

std::size_t BasicHttpsConnection::connection_count() const noexcept {
  return impl_->connections;
}

std::size_t BasicHttpsConnection::exec_plugin_runs() const noexcept {
  return impl_->exec_runs;
}

const ClientConfig& BasicHttpsConnection::config() const noexcept {
  return impl_->config;
}

}  // namespace kubex::client
