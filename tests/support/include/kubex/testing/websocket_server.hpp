// SPDX-License-Identifier: Apache-2.0
#pragma once

// ScriptedWebSocketServer exists ONLY for channel-protocol faults the real kube-apiserver never
// shows: a frame on an unknown channel, a text frame, a huge frame, no pong, a malformed
// Status, a subprotocol the client did not offer. exec, attach and port-forward themselves
// are tested against the real control plane in tests/integration/.

#include <kubex/testing/pki.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace kubex::testing {

/// A loopback TLS WebSocket server on 127.0.0.1 that accepts every upgrade, answers with a
/// chosen subprotocol, and then runs a script on the connection (on its own thread, one
/// connection at a time).
class ScriptedWebSocketServer {
 public:
  /// The server's side of a connection.
  using Socket =
      boost::beast::websocket::stream<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>>;

  /// Starts listening; `subprotocol` is what the handshake answers ("" sends none), and
  /// `script` runs after it.
  ScriptedWebSocketServer(const KeyPair& certificate, std::string subprotocol,
                          std::function<void(Socket&)> script);
  /// Stops the server and joins its thread.
  ~ScriptedWebSocketServer();
  ScriptedWebSocketServer(const ScriptedWebSocketServer&) = delete;
  ScriptedWebSocketServer& operator=(const ScriptedWebSocketServer&) = delete;

  /// The TCP port it listens on.
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// The Sec-WebSocket-Protocol header of the last upgrade request.
  [[nodiscard]] std::string offered() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kubex::testing
