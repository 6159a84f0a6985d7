// SPDX-License-Identifier: Apache-2.0
#include "detail/dialer.hpp"

#include <kubex/core/error.hpp>

#include "detail/tls.hpp"
#include "detail/tunnel.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <string_view>
#include <utility>

namespace kubex::client::detail {
namespace {

bool is_ip_address(const std::string& host) {
  boost_error ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

Dialer::Dialer(const Strand& strand, std::shared_ptr<Watchdog> watchdog, const ClientConfig& config,
               const ClientOptions& options, std::optional<ProxyConfig> proxy)
    : strand_(strand),
      watchdog_(std::move(watchdog)),
      server_(config.server),
      insecure_(config.insecure_skip_tls_verify),
      verify_name_(config.tls_server_name.empty() ? config.server.host : config.tls_server_name),
      verify_name_is_ip_(is_ip_address(verify_name_)),
      proxy_(std::move(proxy)),
      timeout_(options.timeout),
      connect_timeout_(options.connect_timeout),
      handshake_timeout_(options.tls_handshake_timeout),
      user_agent_(options.user_agent),
      read_buffer_size_(options.read_buffer_size) {}

awaitable<std::unique_ptr<Connection>> Dialer::connect(const Call& call,
                                                       std::shared_ptr<ssl::context> tls,
                                                       std::uint64_t generation, bool offer_h2) {
  auto connection = std::make_unique<Connection>(strand_, std::move(tls), generation);
  auto& socket = connection->tcp();
  // Each phase has its own limit, within the request's deadline; messages name the one hit.
  const auto phase_deadline = [&](std::chrono::milliseconds limit) {
    const auto own = Clock::now() + limit;
    return call.streaming || own <= call.deadline ? std::pair{own, limit}
                                                  : std::pair{call.deadline, timeout_};
  };
  const auto [connect_deadline, connect_limit] = phase_deadline(connect_timeout_);
  // With a proxy, TCP goes to the proxy, which opens the tunnel to the apiserver.
  const std::string& peer_host = proxy_ ? proxy_->host : server_.host;
  const std::uint16_t peer_port = proxy_ ? proxy_->port : server_.port;
  const std::string peer_step = proxy_ ? "connect to proxy " + proxy_->source : "connect";
  tcp::resolver::results_type endpoints;
  boost_error address_ec;
  const auto address = asio::ip::make_address(peer_host, address_ec);
  if (!address_ec) {
    endpoints = tcp::resolver::results_type::create(tcp::endpoint(address, peer_port), peer_host,
                                                    std::to_string(peer_port));
  } else {
    Resolver resolver(strand_);
    Timer guard(strand_);
    guard.expires_at(connect_deadline);
    guard.async_wait([&resolver](const boost_error& ec) {
      if (!ec) {
        resolver.cancel();
      }
    });
    auto [ec, results] =
        co_await resolver.async_resolve(peer_host, std::to_string(peer_port), use_tuple);
    guard.cancel();
    if (ec == asio::error::operation_aborted) {
      fail_timeout(call, "resolve " + peer_host, connect_limit);
    }
    if (ec) {
      fail(call, "resolve " + peer_host, ec);
    }
    endpoints = std::move(results);
  }

  watchdog_->watch(*connection, connect_deadline);
  if (const auto [ec, endpoint] = co_await asio::async_connect(socket, endpoints, use_tuple);
      ec || connection->timed_out) {
    fail(call, peer_step, connection->outcome(ec), connect_limit);
  }
  if (proxy_) {
    if (const auto failed = co_await open_tunnel(*connection, *proxy_, server_, user_agent_)) {
      if (failed->io_error) {
        fail(call, failed->step, connection->outcome(failed->io_error), connect_limit);
      }
      fail(call, failed->step, failed->code, failed->detail);
    }
  }
  boost_error ignored;
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
#if defined(TCP_KEEPIDLE) && defined(TCP_KEEPINTVL)
  // The kernel's default waits two hours before its first probe: a watch on a dead peer would
  // hang that long. Go's dialer probes after 30 s, every 30 s; so does kubex.
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPIDLE>(30), ignored);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPINTVL>(30), ignored);
#endif
  socket.set_option(tcp::no_delay(true), ignored);

  prepare_tls(call, *connection, offer_h2);
  SSL* ssl = connection->stream.native_handle();
  const auto [handshake_deadline, handshake_limit] = phase_deadline(handshake_timeout_);
  watchdog_->watch(*connection, handshake_deadline);
  if (const auto [ec] =
          co_await connection->stream.async_handshake(ssl::stream_base::client, use_tuple);
      ec || connection->timed_out) {
    const long verify_result = SSL_get_verify_result(ssl);
    ERR_clear_error();
    if (connection->timed_out) {
      fail_timeout(call, "TLS handshake", handshake_limit);
    }
    if (!insecure_ && verify_result != X509_V_OK) {
      fail(call, "TLS handshake", make_error_code(errc::tls_verification_failed),
           "server certificate not trusted for \"" + verify_name_ +
               "\": " + X509_verify_cert_error_string(verify_result));
    }
    fail(call, "TLS handshake", ec);
  }
  watchdog_->unwatch(*connection);
  if (offer_h2) {
    const unsigned char* protocol = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &protocol, &length);
    connection->http2 =
        length == 2 && protocol != nullptr && protocol[0] == 'h' && protocol[1] == '2';
  }
  if (!connection->http2) {
    connection->buffer.reserve(read_buffer_size_);
  }
  ++opened_;
  if (SSL_session_reused(ssl) == 1) {
    ++resumed_;
  }
  co_return connection;
}

// Buffers, SNI, the name or address to verify, ALPN and the session to resume.
void Dialer::prepare_tls(const Call& call, Connection& connection, bool offer_h2) const {
  SSL* ssl = connection.stream.native_handle();
  // Asio turns on SSL_MODE_RELEASE_BUFFERS, which frees the 16 KiB record buffer whenever it
  // runs empty: a 2 MB list then costs hundreds of malloc/free pairs of fresh pages. A
  // connection is reused for many responses, so it keeps its buffers.
  SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
  // SNI carries host names only (RFC 6066); verification still checks the IP SAN.
  // SSL_set_tlsext_host_name is a macro with a C-style cast; this is its expansion.
  if (!verify_name_is_ip_ && SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                      const_cast<char*>(verify_name_.c_str())) != 1) {
    ERR_clear_error();
    fail(call, "TLS setup", make_error_code(errc::invalid_config),
         "cannot use \"" + verify_name_ + "\" as TLS server name");
  }
  if (!insecure_) {
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int set = verify_name_is_ip_
                        ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), verify_name_.c_str())
                        : SSL_set1_host(ssl, verify_name_.c_str());
    if (set != 1) {
      ERR_clear_error();
      fail(call, "TLS setup", make_error_code(errc::invalid_config),
           "cannot verify against \"" + verify_name_ + "\"");
    }
  }
  // ALPN per connection: with http2_for_streams, requests' connections offer no h2.
  if (offer_h2) {
    // Preference order; a server without HTTP/2 picks http/1.1 or ignores the extension.
    static constexpr unsigned char protocols[] = "\x02h2\x08http/1.1";
    if (SSL_set_alpn_protos(ssl, protocols, sizeof(protocols) - 1) != 0) {
      ERR_clear_error();
      fail(call, "TLS setup", make_error_code(errc::invalid_config), "cannot offer HTTP/2 (ALPN)");
    }
  }
  offer_cached_session(ssl);
}

}  // namespace kubex::client::detail
