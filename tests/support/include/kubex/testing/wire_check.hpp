// SPDX-License-Identifier: Apache-2.0
#pragma once

// An independent look at what a real server sends on the wire, for integration tests that must
// prove their premise (e.g. "this list really arrives chunked"). Deliberately not kubex's
// transport: a test of that transport cannot use it as its own witness.

#include <cstddef>
#include <cstdint>
#include <string>

namespace kubex::testing {

/// What one GET returned, as seen by a minimal Boost.Beast client.
struct WireResponse {
  /// HTTP status code.
  unsigned status = 0;
  /// True if the body came with `Transfer-Encoding: chunked`.
  bool chunked = false;
  /// Size of the body after removing the chunked encoding.
  std::size_t body_size = 0;
};

/// Sends one `GET target` over HTTP/1.1 and TLS to `host`:`port` (an IP address), trusting only
/// `ca_pem`, with `Authorization: Bearer <token>` and `Accept: application/json`.
/// @throws std::exception on any connection, TLS or protocol failure.
WireResponse wire_get(const std::string& host, std::uint16_t port, const std::string& ca_pem,
                      const std::string& token, const std::string& target);

}  // namespace kubex::testing
