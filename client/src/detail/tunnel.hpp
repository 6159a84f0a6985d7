// SPDX-License-Identifier: Apache-2.0
// Tunnels through a proxy to the apiserver on a freshly connected socket, before TLS: HTTP
// CONNECT (RFC 9110 §9.3.6, Basic proxy credentials) or SOCKS5 (RFC 1928, username/password
// per RFC 1929, the proxy resolving the server's name). TLS then runs end to end.
#pragma once

#include <kubex/client/proxy.hpp>
#include <kubex/core/url.hpp>

#include "detail/io.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace kubex::client::detail {

/// Why a tunnel could not be opened: an I/O error (`io_error`, which the caller maps through
/// the connection's deadline), or the proxy's refusal (`code` and `detail`). `step` names the
/// proxy ("CONNECT through proxy HTTPS_PROXY"); nothing here holds its credentials.
struct TunnelFailure {
  std::string step;
  boost_error io_error{};
  std::error_code code{};
  std::string detail{};
};

/// Asks `proxy` for a tunnel to `server` over `connection`'s TCP socket; std::nullopt once it
/// stands. Deadlines are the connection's watchdog's.
awaitable<std::optional<TunnelFailure>> open_tunnel(Connection& connection,
                                                    const ProxyConfig& proxy,
                                                    const ServerUrl& server,
                                                    std::string_view user_agent);

}  // namespace kubex::client::detail
