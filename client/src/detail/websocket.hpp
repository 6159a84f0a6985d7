// SPDX-License-Identifier: Apache-2.0
// Internal: the WebSocket upgrade of a freshly dialed connection (Boost.Beast), and the open
// WebSocket behind kubex::client::WebSocket. Never installed.
#pragma once

#include <kubex/client/http.hpp>
#include <kubex/client/websocket.hpp>

#include "detail/call.hpp"
#include "detail/io.hpp"

#include <chrono>
#include <memory>

namespace kubex::client::detail {

/// What an upgrade gave: the open WebSocket, or the server's answer when it declined.
struct Upgrade {
  std::unique_ptr<WebSocket::Impl> socket;  // null when declined
  HttpResponse refusal;                     // status and body of a non-101 answer
};

/// Sends `call` (a GET with its credentials set) over `connection` as a WebSocket upgrade
/// offering `options.protocols`; the handshake, and later close handshakes, have `timeout`.
/// Runs on the connection's strand.
/// @throws kubex::Error for transport failures, and std::errc::protocol_error when the server
///         chose no subprotocol or one that was not offered.
awaitable<Upgrade> upgrade_websocket(std::unique_ptr<Connection> connection, const Call& call,
                                     const WebSocketOptions& options,
                                     std::chrono::milliseconds timeout);

}  // namespace kubex::client::detail
