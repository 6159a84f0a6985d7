// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small OpenID Connect issuer on 127.0.0.1 for the auth-provider tests: the discovery document
// and a token endpoint for the refresh-token grant (RFC 6749 §6), nothing else. The ID tokens it
// hands out are whatever the test gives it (service account tokens the real apiserver accepts).

#include <kubex/testing/pki.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kubex::testing {

class OidcIssuer {
 public:
  /// Starts serving HTTPS with `certificate`; accepts the client `client_id`/`client_secret`
  /// (HTTP Basic, RFC 6749 §2.3.1).
  OidcIssuer(const KeyPair& certificate, std::string client_id, std::string client_secret);
  /// Stops the server and joins its thread.
  ~OidcIssuer();
  OidcIssuer(const OidcIssuer&) = delete;
  OidcIssuer& operator=(const OidcIssuer&) = delete;

  /// https://127.0.0.1:<port>
  [[nodiscard]] std::string issuer_url() const;
  /// The next refresh grant with `refresh_token` gets `id_token` and `next_refresh_token`;
  /// any other refresh token gets 400 invalid_grant.
  void expect(std::string refresh_token, std::string id_token, std::string next_refresh_token);
  /// Successful refresh grants so far.
  [[nodiscard]] std::size_t refreshes() const;
  /// "METHOD target" of every request so far, in order.
  [[nodiscard]] std::vector<std::string> requests() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kubex::testing
