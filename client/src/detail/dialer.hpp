// SPDX-License-Identifier: Apache-2.0
// Internal: how the transport opens a connection to its apiserver: resolve (unless the host is
// an address), TCP connect, a tunnel through the proxy if there is one, keep-alive probes, then
// the TLS handshake with SNI, the server's name or address verified and ALPN offered. Each
// phase has its own limit within the request's deadline. Never installed.
#pragma once

#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>
#include <kubex/client/proxy.hpp>

#include "detail/call.hpp"
#include "detail/io.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kubex::client::detail {

/// Opens TLS connections to one apiserver, directly or through `proxy`. Used on the strand.
class Dialer {
 public:
  /// Connections to `config.server` with `options`' limits; the watchdog enforces them.
  Dialer(const Strand& strand, std::shared_ptr<Watchdog> watchdog, const ClientConfig& config,
         const ClientOptions& options, std::optional<ProxyConfig> proxy);

  /// A connection for `call`, made with the TLS context `tls` (of credential generation
  /// `generation`), offering HTTP/2 by ALPN if `offer_h2`; `Connection::http2` says whether
  /// the server took it.
  /// @throws kubex::Error naming the call and the phase that failed.
  awaitable<std::unique_ptr<Connection>> connect(const Call& call,
                                                 std::shared_ptr<ssl::context> tls,
                                                 std::uint64_t generation, bool offer_h2);

  /// TLS connections established so far.
  [[nodiscard]] std::size_t opened() const noexcept { return opened_.load(); }
  /// Of those, how many resumed an earlier TLS session.
  [[nodiscard]] std::size_t resumed() const noexcept { return resumed_.load(); }

 private:
  void prepare_tls(const Call& call, Connection& connection, bool offer_h2) const;

  Strand strand_;
  std::shared_ptr<Watchdog> watchdog_;
  ServerUrl server_;
  bool insecure_ = false;  // insecure-skip-tls-verify
  std::string verify_name_;
  bool verify_name_is_ip_ = false;
  std::optional<ProxyConfig> proxy_;  // none: connect directly
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds handshake_timeout_;
  std::string user_agent_;
  std::size_t read_buffer_size_;
  std::atomic<std::size_t> opened_{0};
  std::atomic<std::size_t> resumed_{0};
};

}  // namespace kubex::client::detail
