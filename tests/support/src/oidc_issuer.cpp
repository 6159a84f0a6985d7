// SPDX-License-Identifier: Apache-2.0
// OidcIssuer: see oidc_issuer.hpp. Serves one connection at a time on a background thread.

#include <kubex/testing/oidc_issuer.hpp>

#include "loopback_acceptor.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <openssl/evp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kubex::testing {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost_error = boost::system::error_code;

std::string url_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> form;
  while (!body.empty()) {
    const auto amp = body.find('&');
    const auto pair = body.substr(0, amp);
    const auto eq = pair.find('=');
    form[url_decode(pair.substr(0, eq))] =
        eq == std::string_view::npos ? "" : url_decode(pair.substr(eq + 1));
    body = amp == std::string_view::npos ? std::string_view{} : body.substr(amp + 1);
  }
  return form;
}

std::string unbase64(std::string_view text) {
  std::string out(3 * (text.size() / 4) + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) {
    return {};
  }
  out.resize(static_cast<std::size_t>(n));
  // EVP_DecodeBlock keeps the zero bytes that padding stands for.
  for (std::size_t pad = text.size(); pad > 0 && text[pad - 1] == '='; --pad) {
    out.pop_back();
  }
  return out;
}

}  // namespace

struct OidcIssuer::State {
  State(const KeyPair& certificate, std::string id, std::string secret)
      : client_id(std::move(id)), client_secret(std::move(secret)) {
    tls.use_certificate_chain(asio::buffer(certificate.certificate_pem));
    tls.use_private_key(asio::buffer(certificate.key_pem), ssl::context::pem);
    loop.start([this](tcp::socket& socket) { serve_connection(socket); });
  }

  [[nodiscard]] std::string url() const {
    return "https://127.0.0.1:" + std::to_string(loop.port());
  }

  void serve_connection(tcp::socket& socket) {
    ssl::stream<tcp::socket&> stream(socket, tls);
    boost_error ec;
    stream.handshake(ssl::stream_base::server, ec);
    boost::beast::flat_buffer buffer;
    while (!ec && !loop.stopping()) {
      http::request<http::string_body> request;
      http::read(stream, buffer, request, ec);
      if (ec) {
        return;
      }
      http::response<http::string_body> response{http::status::ok, 11};
      response.set(http::field::content_type, "application/json");
      answer(request, response);
      response.keep_alive(request.keep_alive());
      response.prepare_payload();
      http::write(stream, response, ec);
    }
  }

  void answer(const http::request<http::string_body>& request,
              http::response<http::string_body>& response) {
    const std::lock_guard lock(mutex);
    const std::string target(request.target());
    seen.push_back(std::string(request.method_string()) + " " + target);
    if (request.method() == http::verb::get && target == "/.well-known/openid-configuration") {
      response.body() = R"({"issuer":")" + url() + R"(","token_endpoint":")" + url() +
                        R"(/token","response_types_supported":["code"],)" +
                        R"("grant_types_supported":["refresh_token"]})";
      return;
    }
    if (request.method() != http::verb::post || target != "/token") {
      response.result(http::status::not_found);
      response.body() = R"({"error":"not_found"})";
      return;
    }
    // RFC 6749 §2.3.1: id and secret form-encoded, then Basic.
    const std::string authorization(request[http::field::authorization]);
    const std::string credentials =
        authorization.starts_with("Basic ") ? unbase64(authorization.substr(6)) : "";
    const auto colon = credentials.find(':');
    if (colon == std::string::npos || url_decode(credentials.substr(0, colon)) != client_id ||
        url_decode(credentials.substr(colon + 1)) != client_secret) {
      response.result(http::status::unauthorized);
      response.body() = R"({"error":"invalid_client"})";
      return;
    }
    auto form = parse_form(request.body());
    if (form["grant_type"] != "refresh_token" || form["refresh_token"].empty() ||
        form["refresh_token"] != expected_refresh_token) {
      response.result(http::status::bad_request);
      response.body() = R"({"error":"invalid_grant","error_description":"refresh token is )"
                        R"(invalid or expired"})";
      return;
    }
    ++granted;
    expected_refresh_token.clear();  // single use
    response.body() = R"({"access_token":"unused","token_type":"Bearer","expires_in":600,)"
                      R"("id_token":")" +
                      next_id_token + R"(","refresh_token":")" + next_refresh_token + R"("})";
  }

  std::string client_id;
  std::string client_secret;
  ssl::context tls{ssl::context::tls_server};
  mutable std::mutex mutex;
  std::string expected_refresh_token;
  std::string next_id_token;
  std::string next_refresh_token;
  std::size_t granted = 0;
  std::vector<std::string> seen;
  detail::LoopbackAcceptor loop;  // last: its thread uses the members above
};

OidcIssuer::OidcIssuer(const KeyPair& certificate, std::string client_id, std::string client_secret)
    : state_(std::make_unique<State>(certificate, std::move(client_id), std::move(client_secret))) {
}

OidcIssuer::~OidcIssuer() {
  state_->loop.stop();
}

std::string OidcIssuer::issuer_url() const {
  return state_->url();
}

void OidcIssuer::expect(std::string refresh_token, std::string id_token,
                        std::string next_refresh_token) {
  const std::lock_guard lock(state_->mutex);
  state_->expected_refresh_token = std::move(refresh_token);
  state_->next_id_token = std::move(id_token);
  state_->next_refresh_token = std::move(next_refresh_token);
}

std::size_t OidcIssuer::refreshes() const {
  const std::lock_guard lock(state_->mutex);
  return state_->granted;
}

std::vector<std::string> OidcIssuer::requests() const {
  const std::lock_guard lock(state_->mutex);
  return state_->seen;
}

}  // namespace kubex::testing
