// SPDX-License-Identifier: Apache-2.0
#include "detail/tunnel.hpp"

#include <kubex/core/base64.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <cstddef>

namespace kubex::client::detail {
namespace {

namespace http = boost::beast::http;

// A proxy's answer to CONNECT is small; this bounds what a hostile one can make us buffer.
constexpr std::uint32_t max_header_size = 64U * 1024U;

// HTTP CONNECT through proxy_ (RFC 9110 §9.3.6); the socket then carries TLS end to end.
awaitable<std::optional<TunnelFailure>> connect_tunnel(Connection& connection,
                                                       const ProxyConfig& proxy,
                                                       const ServerUrl& server,
                                                       std::string_view user_agent) {
  const std::string step = "CONNECT through proxy " + proxy.source;
  const std::string authority = (server.is_ipv6() ? "[" + server.host + "]" : server.host) + ":" +
                                std::to_string(server.port);
  http::request<http::empty_body> request{http::verb::connect, authority, 11};
  request.set(http::field::host, authority);
  request.set(http::field::user_agent, user_agent);
  if (!proxy.username.empty() || !proxy.password.empty()) {
    request.set(http::field::proxy_authorization,
                "Basic " + base64_encode(proxy.username + ":" + proxy.password));
  }
  auto& socket = connection.tcp();
  if (auto [ec, n] = co_await http::async_write(socket, request, use_tuple); ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  http::response_parser<http::empty_body> parser;
  parser.skip(true);  // a CONNECT answer has no body; the tunnel follows
  parser.header_limit(max_header_size);
  if (auto [ec, n] = co_await http::async_read_header(socket, connection.buffer, parser, use_tuple);
      ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  const auto status = parser.get().result_int();
  if (status / 100 != 2) {
    co_return TunnelFailure{.step = step,
                            .code = std::make_error_code(std::errc::connection_refused),
                            .detail = "the proxy answered " + std::to_string(status) + " " +
                                      std::string(parser.get().reason())};
  }
  if (connection.buffer.size() != 0) {
    co_return TunnelFailure{.step = step,
                            .code = std::make_error_code(std::errc::protocol_error),
                            .detail = "the proxy sent data before the TLS handshake"};
  }
  co_return std::nullopt;
}

// SOCKS5 (RFC 1928, username/password per RFC 1929); the proxy resolves the server's name.
awaitable<std::optional<TunnelFailure>> socks5_tunnel(Connection& connection,
                                                      const ProxyConfig& proxy,
                                                      const ServerUrl& server) {
  const std::string step = "SOCKS5 through proxy " + proxy.source;
  auto& socket = connection.tcp();
  const auto refuse = [&](const std::string& why) {
    return TunnelFailure{
        .step = step, .code = std::make_error_code(std::errc::connection_refused), .detail = why};
  };
  const bool with_password = !proxy.username.empty() || !proxy.password.empty();
  std::string out = with_password ? std::string("\x05\x01\x02", 3) : std::string("\x05\x01\x00", 3);
  std::array<unsigned char, 262> in{};
  if (auto [ec, n] = co_await asio::async_write(socket, asio::buffer(out), use_tuple); ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  if (auto [ec, n] = co_await asio::async_read(socket, asio::buffer(in.data(), 2), use_tuple); ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  if (in[0] != 5 || in[1] != (with_password ? 2 : 0)) {
    co_return refuse(in[1] == 0xFF ? "the proxy accepts none of the offered authentication methods"
                                   : "the proxy is not a SOCKS5 proxy");
  }
  if (with_password) {
    out.assign("\x01", 1);
    out += static_cast<char>(proxy.username.size());
    out += proxy.username;
    out += static_cast<char>(proxy.password.size());
    out += proxy.password;
    if (auto [ec, n] = co_await asio::async_write(socket, asio::buffer(out), use_tuple); ec) {
      co_return TunnelFailure{.step = step, .io_error = ec};
    }
    if (auto [ec, n] = co_await asio::async_read(socket, asio::buffer(in.data(), 2), use_tuple);
        ec) {
      co_return TunnelFailure{.step = step, .io_error = ec};
    }
    if (in[1] != 0) {
      co_return refuse("the proxy rejected the user name or password");
    }
  }
  // CONNECT to the server: IPv4, IPv6 or a domain name for the proxy to resolve.
  out.assign("\x05\x01\x00", 3);
  boost_error address_ec;
  const auto address = asio::ip::make_address(server.host, address_ec);
  if (!address_ec && address.is_v4()) {
    out += '\x01';
    const auto bytes = address.to_v4().to_bytes();
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  } else if (!address_ec) {
    out += '\x04';
    const auto bytes = address.to_v6().to_bytes();
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  } else {
    if (server.host.size() > 255) {
      co_return refuse("the server name is too long for SOCKS5");
    }
    out += '\x03';
    out += static_cast<char>(server.host.size());
    out += server.host;
  }
  out += static_cast<char>(server.port >> 8U);
  out += static_cast<char>(server.port & 0xFFU);
  if (auto [ec, n] = co_await asio::async_write(socket, asio::buffer(out), use_tuple); ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  // Reply: VER REP RSV ATYP, then the bound address (whose length ATYP gives) and port.
  if (auto [ec, n] = co_await asio::async_read(socket, asio::buffer(in.data(), 5), use_tuple); ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  if (in[0] != 5 || in[1] != 0) {
    static constexpr std::array<const char*, 9> reasons{
        "succeeded",           "general failure",       "not allowed by ruleset",
        "network unreachable", "host unreachable",      "connection refused",
        "TTL expired",         "command not supported", "address type not supported"};
    co_return refuse(std::string("the proxy could not connect: ") +
                     (in[1] < reasons.size() ? reasons[in[1]] : "unknown reply"));
  }
  std::size_t rest = 0;
  switch (in[3]) {
    case 1:
      rest = 4 - 1 + 2;
      break;
    case 4:
      rest = 16 - 1 + 2;
      break;
    case 3:
      rest = std::size_t{in[4]} + 2;
      break;
    default:
      co_return refuse("the proxy sent a malformed reply");
  }
  if (auto [ec, n] = co_await asio::async_read(socket, asio::buffer(in.data(), rest), use_tuple);
      ec) {
    co_return TunnelFailure{.step = step, .io_error = ec};
  }
  co_return std::nullopt;
}

}  // namespace

awaitable<std::optional<TunnelFailure>> open_tunnel(Connection& connection,
                                                    const ProxyConfig& proxy,
                                                    const ServerUrl& server,
                                                    std::string_view user_agent) {
  if (proxy.scheme == "http") {
    co_return co_await connect_tunnel(connection, proxy, server, user_agent);
  }
  co_return co_await socks5_tunnel(connection, proxy, server);
}

}  // namespace kubex::client::detail
