// SPDX-License-Identifier: Apache-2.0
#include <kubex/testing/websocket_server.hpp>

#include "loopback_acceptor.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <exception>
#include <mutex>
#include <string>
#include <utility>

namespace kubex::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct ScriptedWebSocketServer::State {
  State(const KeyPair& certificate, std::string protocol, std::function<void(Socket&)> run)
      : subprotocol(std::move(protocol)), script(std::move(run)) {
    tls.use_certificate_chain(asio::buffer(certificate.certificate_pem));
    tls.use_private_key(asio::buffer(certificate.key_pem), ssl::context::pem);
  }

  void serve(tcp::socket& socket) {
    try {
      Socket ws(socket, tls);
      ws.next_layer().handshake(ssl::stream_base::server);
      beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(ws.next_layer(), buffer, request);
      {
        const std::lock_guard lock(mutex);
        last_offered = std::string(request[http::field::sec_websocket_protocol]);
      }
      ws.set_option(websocket::stream_base::decorator([this](websocket::response_type& response) {
        if (!subprotocol.empty()) {
          response.set(http::field::sec_websocket_protocol, subprotocol);
        }
      }));
      ws.accept(request);
      script(ws);
    } catch (const std::exception&) {
      // The client went away or the script ended the connection: the test checks the client.
    }
  }

  ssl::context tls{ssl::context::tls_server};
  std::string subprotocol;
  std::function<void(Socket&)> script;
  mutable std::mutex mutex;
  std::string last_offered;
  detail::LoopbackAcceptor acceptor;
};

ScriptedWebSocketServer::ScriptedWebSocketServer(const KeyPair& certificate,
                                                 std::string subprotocol,
                                                 std::function<void(Socket&)> script)
    : state_(std::make_unique<State>(certificate, std::move(subprotocol), std::move(script))) {
  state_->acceptor.start([state = state_.get()](tcp::socket& socket) { state->serve(socket); });
}

ScriptedWebSocketServer::~ScriptedWebSocketServer() {
  state_->acceptor.stop();
}

std::uint16_t ScriptedWebSocketServer::port() const noexcept {
  return state_->acceptor.port();
}

std::string ScriptedWebSocketServer::offered() const {
  const std::lock_guard lock(state_->mutex);
  return state_->last_offered;
}

}  // namespace kubex::testing
