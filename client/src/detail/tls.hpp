// SPDX-License-Identifier: Apache-2.0
// TLS for the transport's connections: the client context (protocol floor, trust, client
// certificate) and the cache of the session the next connection resumes.
#pragma once

#include <kubex/client/kubeconfig.hpp>

#include <boost/asio/ssl/context.hpp>
#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace kubex::client::detail {

/// A TLS client context for `config`'s server: TLS 1.2 or newer; the server verified against
/// the cluster's CA, or the system roots when it names none (never "trust anything"), unless
/// insecure-skip-tls-verify; the client certificate `certificate_pem` with `key_pem` when
/// given (`field` names their origin in errors); and, with `session_resumption`, a cache of
/// the latest session (offer_cached_session). A new context per credential change keeps a
/// session from outliving what it was made with.
/// @throws ConfigError naming `config.source` or `field` for unusable trust or credentials.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const ClientConfig& config,
                                                            bool session_resumption,
                                                            const std::string& certificate_pem,
                                                            const std::string& key_pem,
                                                            const std::string& field);

/// Offers the session cached in `ssl`'s context, if any, for its handshake to resume.
void offer_cached_session(SSL* ssl);

}  // namespace kubex::client::detail
