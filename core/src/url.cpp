// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace kubex {
namespace {

[[noreturn]] void fail(const std::string& reason) {
  throw Error(errc::invalid_url, reason);
}

char to_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_host_char(char c) noexcept {
  return is_alnum(c) || c == '-' || c == '.' || c == '_';
}

bool is_ipv6_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

std::uint16_t default_port(std::string_view scheme) noexcept {
  return scheme == "https" ? std::uint16_t{443} : std::uint16_t{80};
}

}  // namespace

bool ServerUrl::is_ipv6() const noexcept {
  return host.find(':') != std::string::npos;
}

std::string ServerUrl::authority() const {
  std::string out = is_ipv6() ? "[" + host + "]" : host;
  if (port != default_port(scheme)) {
    out.push_back(':');
    out.append(std::to_string(port));
  }
  return out;
}

ServerUrl parse_server_url(std::string_view text) {
  ServerUrl url;

  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) {
    fail("missing scheme; expected https://host[:port]");
  }
  for (const char c : text.substr(0, scheme_end)) {
    url.scheme.push_back(to_lower(c));
  }
  if (url.scheme != "https" && url.scheme != "http") {
    fail("unsupported scheme \"" + url.scheme + "\"; expected https or http");
  }
  text.remove_prefix(scheme_end + 3);

  const auto authority_end = text.find_first_of("/?#");
  std::string_view authority = text.substr(0, authority_end);
  std::string_view rest =
      authority_end == std::string_view::npos ? std::string_view{} : text.substr(authority_end);

  // Credentials in a server URL would end up in logs and error messages; refuse them without
  // echoing them back.
  if (authority.find('@') != std::string_view::npos) {
    fail("user information in the URL is not supported");
  }

  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      fail("unterminated IPv6 address");
    }
    const auto address = authority.substr(1, close - 1);
    if (address.empty() || address.find(':') == std::string_view::npos) {
      fail("invalid IPv6 address");
    }
    for (const char c : address) {
      if (!is_ipv6_char(c)) {
        fail("invalid IPv6 address");
      }
    }
    url.host.assign(address);
    const auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        fail("unexpected characters after the IPv6 address");
      }
      port_text = after.substr(1);
      if (port_text.empty()) {
        fail("empty port");
      }
    }
  } else {
    const auto colon = authority.find(':');
    const auto host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) {
        fail("empty port");
      }
    }
    for (const char c : host) {
      if (!is_host_char(c)) {
        fail("invalid character in host name");
      }
    }
    url.host.assign(host);
  }
  if (url.host.empty()) {
    fail("missing host");
  }

  if (port_text.empty()) {
    url.port = default_port(url.scheme);
  } else {
    unsigned value = 0;
    const auto* const end = port_text.data() + port_text.size();
    const auto [ptr, ec] = std::from_chars(port_text.data(), end, value);
    if (ec != std::errc{} || ptr != end || value == 0 || value > 65535) {
      fail("invalid port");
    }
    url.port = static_cast<std::uint16_t>(value);
  }

  if (!rest.empty() && rest.front() != '/') {
    fail("queries and fragments are not supported");
  }
  for (const char c : rest) {
    if (c == '?' || c == '#') {
      fail("queries and fragments are not supported");
    }
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      fail("invalid character in path");
    }
  }
  while (!rest.empty() && rest.back() == '/') {
    rest.remove_suffix(1);
  }
  url.base_path.assign(rest);
  return url;
}

}  // namespace kubex
