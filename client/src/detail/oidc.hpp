// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: the OpenID Connect auth provider's token handling. Never installed.

#include <kubex/client/kubeconfig.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// The `exp` claim of a JWT (seconds since the epoch), or std::nullopt when the token is not a
/// JWT or has no readable `exp`. The signature is not checked: the server does that.
[[nodiscard]] std::optional<double> jwt_expiry(std::string_view token);

/// New tokens from the issuer.
struct OidcTokens {
  /// The new ID token.
  std::string id_token;
  /// The new refresh token; empty when the issuer keeps the old one valid.
  std::string refresh_token;
};

/// Refreshes `oidc`'s tokens: reads the issuer's discovery document for the token endpoint and
/// posts the refresh-token grant with the client's credentials (HTTP Basic, RFC 6749 §2.3.1).
/// @throws kubex::Error naming the issuer and the OAuth error (`invalid_grant`...), never a
///         token or secret.
[[nodiscard]] OidcTokens refresh_oidc_tokens(const OidcConfig& oidc,
                                             std::chrono::milliseconds timeout);

}  // namespace kubex::client::detail
