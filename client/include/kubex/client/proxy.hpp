// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>
#include <kubex/core/export.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client {

/// A proxy between the client and the apiserver: an HTTP proxy reached with CONNECT, or a
/// SOCKS5 proxy (RFC 1928). Either way TLS runs end to end, so the proxy sees no request.
struct ProxyConfig {
  /// "http" (CONNECT) or "socks5".
  std::string scheme{};
  /// Host name or IP address (IPv6 without brackets).
  std::string host{};
  /// Port; defaults to 80 for http and 1080 for socks5.
  std::uint16_t port = 0;
  /// Credentials from the URL's user information (Proxy-Authorization: Basic, or SOCKS5
  /// username/password); empty for none. Never printed.
  std::string username{};
  /// See username.
  std::string password{};
  /// Where the setting came from, for messages ("ClientOptions::proxy", "HTTPS_PROXY", ...).
  std::string source{};
};

/// Parses `http://[user:pass@]host[:port]` or `socks5://...` (a bare `host:port` means http, as
/// in Go). `source` names the setting in errors; errors never repeat the user information.
/// @throws kubex::ConfigError for other schemes (https proxies are not supported) or bad URLs.
[[nodiscard]] KUBEX_API ProxyConfig parse_proxy_url(std::string_view url, std::string_view source);

/// True if a NO_PROXY list excludes `host`:`port`, with Go's rules: comma-separated entries;
/// `*` matches everything; an IP address or CIDR range matches addresses; `example.com`
/// matches it and its subdomains, `.example.com` only subdomains; an entry may carry a port.
[[nodiscard]] KUBEX_API bool no_proxy_matches(std::string_view no_proxy, std::string_view host,
                                              std::uint16_t port);

/// Looks up an environment variable; nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

/// The proxy for `config`'s server, by precedence: ClientOptions::proxy ("direct" forces no
/// proxy), then the kubeconfig's `proxy-url`, then — when `options.trust_env` — HTTPS_PROXY
/// (or https_proxy) unless NO_PROXY (or no_proxy) excludes the server; loopback servers are
/// never proxied from the environment. std::nullopt for a direct connection.
/// @throws kubex::ConfigError for an unusable proxy URL.
[[nodiscard]] KUBEX_API std::optional<ProxyConfig> select_proxy(const ClientConfig& config,
                                                                const ClientOptions& options,
                                                                const EnvLookup& getenv = {});

}  // namespace kubex::client
