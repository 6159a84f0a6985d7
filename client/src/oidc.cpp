// SPDX-License-Identifier: Apache-2.0
#include "detail/oidc.hpp"

#include <kubex/client/blocking.hpp>
#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/percent.hpp>
#include <kubex/core/url.hpp>

#include "detail/text.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <tuple>

namespace kubex::client {
namespace {

struct JwtClaims {
  std::optional<double> exp;
};

struct Discovery {
  std::string issuer;
  std::string token_endpoint;
};

struct TokenResponse {
  std::string id_token;
  std::string refresh_token;
  std::string error;
  std::string error_description;
};

constexpr auto kubex_fields(const JwtClaims*) noexcept {
  return std::tuple{json::field("exp", &JwtClaims::exp)};
}

constexpr auto kubex_fields(const Discovery*) noexcept {
  return std::tuple{json::field("issuer", &Discovery::issuer),
                    json::field("token_endpoint", &Discovery::token_endpoint)};
}

constexpr auto kubex_fields(const TokenResponse*) noexcept {
  return std::tuple{json::field("id_token", &TokenResponse::id_token),
                    json::field("refresh_token", &TokenResponse::refresh_token),
                    json::field("error", &TokenResponse::error),
                    json::field("error_description", &TokenResponse::error_description)};
}

// Text from the issuer for an error message: printable, and short.
std::string quote(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 200)) {
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  }
  return out;
}

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw Error(std::make_error_code(std::errc::permission_denied),
              "oidc: refreshing the id-token at " + where + ": " + problem);
}

// A client for one https URL's host, trusting the issuer's CA.
BlockingClient client_for(const ServerUrl& url, const OidcConfig& oidc,
                          std::chrono::milliseconds timeout, bool with_client_credentials) {
  ClientConfig config;
  config.source = "oidc issuer " + oidc.issuer_url;
  config.cluster_name = "idp";
  config.server = url;
  config.server.base_path.clear();
  config.certificate_authority_pem = oidc.certificate_authority_pem;
  if (with_client_credentials) {
    config.username = percent_encode(oidc.client_id);
    config.password = percent_encode(oidc.client_secret);
  }
  ClientOptions options;
  options.timeout = timeout;
  options.compression = false;
  options.log_api_warnings = false;
  options.retry.max_retries = 0;
  return BlockingClient(std::move(config), std::move(options));
}

}  // namespace

namespace detail {

std::optional<double> jwt_expiry(std::string_view token) {
  const auto first = token.find('.');
  const auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos) {
    return std::nullopt;
  }
  std::string payload(token.substr(first + 1, second - first - 1));
  std::replace(payload.begin(), payload.end(), '-', '+');
  std::replace(payload.begin(), payload.end(), '_', '/');
  const auto json_text = base64_decode(payload);
  if (!json_text) {
    return std::nullopt;
  }
  JwtClaims claims;
  try {
    json::decode(*json_text, claims);
  } catch (const json::DecodeError&) {
    return std::nullopt;
  }
  return claims.exp;
}

OidcTokens refresh_oidc_tokens(const OidcConfig& oidc, std::chrono::milliseconds timeout) {
  const auto issuer = parse_server_url(oidc.issuer_url);
  Discovery discovery;
  {
    auto client = client_for(issuer, oidc, timeout, false);
    const auto target = issuer.base_path + "/.well-known/openid-configuration";
    const auto response = client.get(target);
    if (response.status != 200) {
      fail(oidc.issuer_url, "discovery answered " + std::to_string(response.status));
    }
    try {
      json::decode(response.body, discovery);
    } catch (const json::DecodeError& e) {
      fail(oidc.issuer_url, std::string("discovery document: ") + e.what());
    }
  }
  if (discovery.token_endpoint.empty()) {
    fail(oidc.issuer_url, "the discovery document has no token_endpoint");
  }
  ServerUrl endpoint;
  try {
    endpoint = parse_server_url(discovery.token_endpoint);
  } catch (const Error&) {
    fail(oidc.issuer_url, "the token_endpoint is not a usable URL");
  }
  if (endpoint.scheme != "https") {
    fail(oidc.issuer_url, "the token_endpoint is not https; credentials are never sent in clear");
  }
  const std::string where = "https://" + endpoint.authority() + endpoint.base_path;

  std::string form = "grant_type=refresh_token&refresh_token=" + percent_encode(oidc.refresh_token);
  if (!oidc.extra_scopes.empty()) {
    std::string scope = "openid";
    for (const auto& extra : oidc.extra_scopes) {
      scope += ' ';
      scope += extra;
    }
    form += "&scope=" + percent_encode(scope);
  }
  auto client = client_for(endpoint, oidc, timeout, true);
  const auto response =
      client.request("POST", endpoint.base_path.empty() ? "/" : endpoint.base_path, form,
                     "application/x-www-form-urlencoded");
  TokenResponse tokens;
  try {
    json::decode(response.body, tokens);
  } catch (const json::DecodeError&) {
    fail(where, "answered " + std::to_string(response.status) + " without a JSON token response");
  }
  if (response.status != 200 || !tokens.error.empty()) {
    std::string problem = "answered " + std::to_string(response.status);
    if (!tokens.error.empty()) {
      problem += " " + quote(tokens.error);
    }
    if (!tokens.error_description.empty()) {
      problem += ": " + quote(tokens.error_description);
    }
    fail(where, problem);
  }
  if (tokens.id_token.empty()) {
    fail(where, "the token response has no id_token");
  }
  if (has_control_characters(tokens.id_token) || has_control_characters(tokens.refresh_token)) {
    fail(where, "the token response holds control characters");
  }
  return {std::move(tokens.id_token), std::move(tokens.refresh_token)};
}

}  // namespace detail
}  // namespace kubex::client
