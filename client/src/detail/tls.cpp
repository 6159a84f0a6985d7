// SPDX-License-Identifier: Apache-2.0
#include "detail/tls.hpp"

#include <kubex/core/error.hpp>

#include "detail/pem.hpp"

#include <openssl/err.h>
#include <openssl/x509_vfy.h>

#include <mutex>
#include <utility>

namespace kubex::client::detail {
namespace {

namespace ssl = boost::asio::ssl;
using boost_error = boost::system::error_code;

// The latest resumable TLS session of one SSL_CTX, for the next connection to resume. The
// SSL_CTX owns it (ex_data, freed with the context), and a transport makes a new context
// whenever its credentials or trust change, so a session never outlives what it was
// established with. Every connection may resume the same ticket: the apiserver (Go's
// crypto/tls) accepts that, and a client talks to one server, so linkability is moot.
class SessionCache {
 public:
  SessionCache(const SessionCache&) = delete;
  SessionCache& operator=(const SessionCache&) = delete;

  // Turns on client-side session caching into a new cache owned by ctx.
  static void attach(SSL_CTX* ctx) {
    auto* cache = new SessionCache;  // NOLINT(cppcoreguidelines-owning-memory): ctx owns it
    if (SSL_CTX_set_ex_data(ctx, index(), cache) != 1) {
      delete cache;  // NOLINT(cppcoreguidelines-owning-memory)
      ERR_clear_error();
      return;  // no resumption; connections still work
    }
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, &SessionCache::on_new_session);
  }

  // Offers the cached session, if any, for ssl's handshake.
  static void offer(SSL* ssl) {
    auto* cache = of(SSL_get_SSL_CTX(ssl));
    if (cache == nullptr) {
      return;
    }
    SSL_SESSION* session = nullptr;
    {
      const std::lock_guard lock(cache->mutex_);
      session = cache->latest_;
      if (session != nullptr) {
        SSL_SESSION_up_ref(session);
      }
    }
    if (session != nullptr) {
      if (SSL_set_session(ssl, session) != 1) {
        ERR_clear_error();  // a full handshake follows
      }
      SSL_SESSION_free(session);
    }
  }

 private:
  SessionCache() = default;
  ~SessionCache() {
    if (latest_ != nullptr) {
      SSL_SESSION_free(latest_);
    }
  }

  static int index() {
    static const int i = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, &on_free);
    return i;
  }

  static SessionCache* of(SSL_CTX* ctx) {
    return static_cast<SessionCache*>(SSL_CTX_get_ex_data(ctx, index()));
  }

  // OpenSSL's new-session callback: TLS 1.3 tickets arrive after the handshake, during a read.
  // Returning 1 keeps the reference OpenSSL passes.
  static int on_new_session(SSL* ssl, SSL_SESSION* session) {
    auto* cache = of(SSL_get_SSL_CTX(ssl));
    if (cache == nullptr || SSL_SESSION_is_resumable(session) != 1) {
      return 0;
    }
    int kept = 1;
    if (SSL_SESSION_get_protocol_version(session) == TLS1_3_VERSION) {
      // Connections close without close_notify (Connection::close), and OpenSSL then marks
      // the connection's session unresumable, as TLS 1.2 requires (RFC 5246 §7.2.1). TLS 1.3
      // drops that rule and a ticket stands on its own, so the cache keeps a copy. A TLS 1.2
      // session stays shared, and an abrupt close still invalidates it.
      session = SSL_SESSION_dup(session);
      if (session == nullptr) {
        ERR_clear_error();
        return 0;
      }
      kept = 0;  // OpenSSL keeps its reference; the copy is ours
    }
    SSL_SESSION* old = nullptr;
    {
      const std::lock_guard lock(cache->mutex_);
      old = std::exchange(cache->latest_, session);
    }
    if (old != nullptr) {
      SSL_SESSION_free(old);
    }
    return kept;
  }

  static void on_free(void* /*parent*/, void* ptr, CRYPTO_EX_DATA* /*ad*/, int /*idx*/,
                      long /*argl*/, void* /*argp*/) {
    delete static_cast<SessionCache*>(ptr);  // NOLINT(cppcoreguidelines-owning-memory)
  }

  std::mutex mutex_;
  SSL_SESSION* latest_ = nullptr;
};

}  // namespace

std::shared_ptr<ssl::context> make_tls_context(const ClientConfig& config, bool session_resumption,
                                               const std::string& certificate_pem,
                                               const std::string& key_pem,
                                               const std::string& field) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* ctx = tls->native_handle();
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    throw ConfigError(config.source + ": cannot restrict TLS to version 1.2 or newer");
  }
  if (session_resumption) {
    SessionCache::attach(ctx);
  }
  if (config.insecure_skip_tls_verify) {
    tls->set_verify_mode(ssl::verify_none);
  } else {
    tls->set_verify_mode(ssl::verify_peer);
    if (config.certificate_authority_pem.empty()) {
      // No CA configured means the system roots, never "trust anything" (CVE-2022-0759).
      boost_error ec;
      tls->set_default_verify_paths(ec);
      if (ec) {
        throw ConfigError(config.source + ": cannot load the system trust store: " + ec.message());
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
  if (!certificate_pem.empty() || !key_pem.empty()) {
    const auto chain = detail::read_pem_certificates(certificate_pem);
    if (chain.empty()) {
      throw ConfigError(field + ": client certificate is not valid PEM");
    }
    const auto key = detail::read_pem_private_key(key_pem);
    if (!key) {
      throw ConfigError(field + ": client key is not a valid, unencrypted PEM private key");
    }
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
  return tls;
}

void offer_cached_session(SSL* ssl) {
  SessionCache::offer(ssl);
}

}  // namespace kubex::client::detail
