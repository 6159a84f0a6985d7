// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/proxy.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/percent.hpp>

#include "detail/text.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace kubex::client {
namespace {

namespace ip = boost::asio::ip;

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value == 0 ||
      value > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

std::optional<ip::address> parse_ip(std::string_view text) {
  boost::system::error_code ec;
  const auto address = ip::make_address(std::string(text), ec);
  if (ec) {
    return std::nullopt;
  }
  return address;
}

// Splits "host", "host:port", "[v6]" or "[v6]:port"; a bare IPv6 literal has no port.
bool split_host_port(std::string_view text, std::string& host, std::string& port) {
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return false;
    }
    host.assign(text.substr(1, close - 1));
    const auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        return false;
      }
      port.assign(rest.substr(1));
    }
    return true;
  }
  const auto colon = text.find(':');
  if (colon != std::string_view::npos && text.find(':', colon + 1) == std::string_view::npos) {
    host.assign(text.substr(0, colon));
    port.assign(text.substr(colon + 1));
  } else {
    host.assign(text);
  }
  return true;
}

bool in_cidr(std::string_view cidr, const ip::address& address) {
  boost::system::error_code ec;
  if (address.is_v4()) {
    const auto network = ip::make_network_v4(std::string(cidr), ec);
    if (ec) {
      return false;
    }
    return (address.to_v4().to_uint() & network.netmask().to_uint()) == network.network().to_uint();
  }
  const auto network = ip::make_network_v6(std::string(cidr), ec);
  if (ec) {
    return false;
  }
  const auto prefix = network.prefix_length();
  const auto a = address.to_v6().to_bytes();
  const auto n = network.network().to_bytes();
  for (unsigned bit = 0; bit < prefix; ++bit) {
    const auto byte = bit / 8;
    const auto mask = static_cast<unsigned char>(0x80U >> (bit % 8));
    if ((a[byte] & mask) != (n[byte] & mask)) {
      return false;
    }
  }
  return true;
}

}  // namespace

ProxyConfig parse_proxy_url(std::string_view url, std::string_view source) {
  const auto fail = [&](std::string_view problem) -> ProxyConfig {
    throw ConfigError(std::string(source) + ": invalid proxy URL: " + std::string(problem));
  };
  ProxyConfig proxy;
  proxy.source.assign(source);
  url = detail::trim_space(url);
  std::string_view rest = url;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    proxy.scheme = "http";  // Go reads "host:port" as an http proxy
  } else {
    proxy.scheme = detail::ascii_lower(url.substr(0, scheme_end));
    rest = url.substr(scheme_end + 3);
  }
  if (proxy.scheme == "socks5h") {
    proxy.scheme = "socks5";  // kubex always lets the proxy resolve names
  }
  if (proxy.scheme == "https") {
    return fail("https:// proxies are not supported; use http:// (CONNECT) or socks5://");
  }
  if (proxy.scheme != "http" && proxy.scheme != "socks5") {
    return fail("scheme must be http or socks5");
  }
  if (!rest.empty() && rest.back() == '/') {
    rest.remove_suffix(1);
  }
  if (rest.find_first_of("/?#") != std::string_view::npos) {
    return fail("a proxy URL has no path, query or fragment");
  }
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const auto userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = userinfo.find(':');
    auto user = kubex::percent_decode(userinfo.substr(0, colon));
    auto password = colon == std::string_view::npos
                        ? std::optional<std::string>("")
                        : kubex::percent_decode(userinfo.substr(colon + 1));
    if (!user || !password) {
      return fail("bad percent-encoding in the user information");
    }
    proxy.username = std::move(*user);
    proxy.password = std::move(*password);
  }
  std::string port;
  if (!split_host_port(rest, proxy.host, port) || proxy.host.empty()) {
    return fail("missing or malformed host");
  }
  if (detail::has_control_characters(proxy.host) ||
      proxy.host.find_first_of(" []@") != std::string::npos) {
    return fail("malformed host");
  }
  if (port.empty()) {
    proxy.port = proxy.scheme == "http" ? 80 : 1080;
  } else if (const auto p = parse_port(port)) {
    proxy.port = *p;
  } else {
    return fail("port must be a number from 1 to 65535");
  }
  if (proxy.scheme == "socks5" && (proxy.username.size() > 255 || proxy.password.size() > 255)) {
    return fail("SOCKS5 user name and password are limited to 255 bytes each");
  }
  return proxy;
}

bool no_proxy_matches(std::string_view no_proxy, std::string_view host_in, std::uint16_t port) {
  std::string host = detail::ascii_lower(host_in);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const auto host_ip = parse_ip(host);
  std::size_t start = 0;
  while (start <= no_proxy.size()) {
    auto end = no_proxy.find(',', start);
    if (end == std::string_view::npos) {
      end = no_proxy.size();
    }
    const std::string entry =
        detail::ascii_lower(detail::trim_space(no_proxy.substr(start, end - start)));
    start = end + 1;
    if (entry.empty()) {
      continue;
    }
    if (entry == "*") {
      return true;
    }
    if (entry.find('/') != std::string::npos) {
      if (host_ip && in_cidr(entry, *host_ip)) {
        return true;
      }
      continue;
    }
    std::string entry_host;
    std::string entry_port;
    if (!split_host_port(entry, entry_host, entry_port)) {
      continue;
    }
    if (!entry_port.empty()) {
      const auto p = parse_port(entry_port);
      if (!p || *p != port) {
        continue;
      }
    }
    if (const auto entry_ip = parse_ip(entry_host)) {
      if (host_ip && *host_ip == *entry_ip) {
        return true;
      }
      continue;
    }
    if (entry_host.starts_with("*.")) {
      entry_host.erase(0, 1);  // "*.example.com" means ".example.com"
    }
    if (entry_host.starts_with('.')) {
      if (host.size() > entry_host.size() && host.ends_with(entry_host)) {
        return true;
      }
    } else if (host == entry_host ||
               (host.size() > entry_host.size() && host.ends_with("." + entry_host))) {
      return true;
    }
  }
  return false;
}

std::optional<ProxyConfig> select_proxy(const ClientConfig& config, const ClientOptions& options,
                                        const EnvLookup& getenv) {
  if (!options.proxy.empty()) {
    if (options.proxy == "direct") {
      return std::nullopt;
    }
    return parse_proxy_url(options.proxy, "ClientOptions::proxy");
  }
  if (!config.proxy_url.empty()) {
    return parse_proxy_url(config.proxy_url,
                           config.source + ": clusters[" + config.cluster_name + "].proxy-url");
  }
  if (!options.trust_env) {
    return std::nullopt;
  }
  const auto lookup = [&](const char* name) -> std::string_view {
    const char* value = getenv ? getenv(name) : std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
    return value == nullptr ? std::string_view{} : std::string_view(value);
  };
  // Like Go: loopback servers are never proxied because of the environment.
  const auto& host = config.server.host;
  const auto ip = parse_ip(host);
  if (detail::ascii_lower(host) == "localhost" || (ip && ip->is_loopback())) {
    return std::nullopt;
  }
  const bool https = config.server.scheme == "https";
  auto value = lookup(https ? "HTTPS_PROXY" : "HTTP_PROXY");
  const char* name = https ? "HTTPS_PROXY" : "HTTP_PROXY";
  if (value.empty()) {
    value = lookup(https ? "https_proxy" : "http_proxy");
    name = https ? "https_proxy" : "http_proxy";
  }
  if (value.empty()) {
    return std::nullopt;
  }
  auto no_proxy = lookup("NO_PROXY");
  if (no_proxy.empty()) {
    no_proxy = lookup("no_proxy");
  }
  if (no_proxy_matches(no_proxy, host, config.server.port)) {
    return std::nullopt;
  }
  return parse_proxy_url(value, name);
}

}  // namespace kubex::client
