// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>
// The channel protocol of exec and attach (`v5.channel.k8s.io`, falling back to v4) as pure
// functions: every WebSocket message is one channel byte followed by that stream's bytes, and
// the error channel ends the session with a meta/v1 Status that carries the exit code.

#include <cstdint>
#include <string>
#include <string_view>

namespace kubex::remote_command {

/// The subprotocol with a close signal for stdin (Kubernetes 1.29+; the 1.30+ apiserver
/// answers it itself).
inline constexpr std::string_view v5_protocol = "v5.channel.k8s.io";
/// The older subprotocol: no close signal, so stdin ends only with the connection.
inline constexpr std::string_view v4_protocol = "v4.channel.k8s.io";

/// The first byte of every message.
enum class Channel : std::uint8_t {
  stdin_stream = 0,   ///< client to server: the process's standard input
  stdout_stream = 1,  ///< server to client: standard output (stdout and stderr with a tty)
  stderr_stream = 2,  ///< server to client: standard error
  error = 3,          ///< server to client: the final meta/v1 Status
  resize = 4,         ///< client to server: terminal size as JSON
  close = 255,        ///< v5 only: the next byte names a stream that has ended
};

/// A message carrying `data` on `channel`.
[[nodiscard]] KUBEX_API std::string frame(Channel channel, std::string_view data);

/// The resize message for a terminal of `width` columns and `height` rows.
[[nodiscard]] KUBEX_API std::string resize_frame(std::uint16_t width, std::uint16_t height);

/// The v5 message that ends stream `channel` (stdin, so that `cat` sees end of file).
[[nodiscard]] KUBEX_API std::string close_frame(Channel channel);

/// The exit code the error channel's message `status_json` reports: 0 for Success, N for a
/// Failure with reason NonZeroExitCode and an ExitCode cause. `context` names the request in
/// errors.
/// @throws kubex::ApiError for any other failure (a command that cannot start, a container that
///         is not running), with the server's Status.
/// @throws kubex::Error (errc::invalid_json) if the message is not a Status, or reports a
///         non-zero exit without a usable code.
[[nodiscard]] KUBEX_API int exit_code(std::string_view context, std::string_view status_json);

}  // namespace kubex::remote_command
