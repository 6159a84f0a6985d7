// SPDX-License-Identifier: Apache-2.0
#include <kubex/testing/wire_check.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <string>

namespace kubex::testing {

WireResponse wire_get(const std::string& host, std::uint16_t port, const std::string& ca_pem,
                      const std::string& token, const std::string& target) {
  namespace asio = boost::asio;
  namespace ssl = boost::asio::ssl;
  namespace http = boost::beast::http;

  asio::io_context ioc;
  ssl::context tls(ssl::context::tls_client);
  tls.add_certificate_authority(asio::buffer(ca_pem));
  tls.set_verify_mode(ssl::verify_peer);
  ssl::stream<asio::ip::tcp::socket> stream(ioc, tls);
  stream.next_layer().connect(asio::ip::tcp::endpoint(asio::ip::make_address(host), port));
  stream.handshake(ssl::stream_base::client);

  http::request<http::empty_body> request(http::verb::get, target, 11);
  request.set(http::field::host, host + ":" + std::to_string(port));
  request.set(http::field::authorization, "Bearer " + token);
  request.set(http::field::accept, "application/json");
  http::write(stream, request);

  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::uint64_t{1} << 30);
  http::read(stream, buffer, parser);

  WireResponse response;
  response.status = parser.get().result_int();
  response.chunked = parser.chunked();
  response.body_size = parser.get().body().size();
  boost::system::error_code ignored;
  stream.next_layer().close(ignored);
  return response;
}

}  // namespace kubex::testing
