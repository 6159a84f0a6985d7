// SPDX-License-Identifier: Apache-2.0
#pragma once
// What exec and attach sessions deliver, without the Asio machinery: shared by the
// asynchronous RemoteProcess and the blocking facade.

#include <chrono>
#include <cstddef>
#include <string>

namespace kubex::client {

/// Which output stream of a process a piece of output came from.
enum class OutputStream {
  out,  ///< standard output (everything, with a tty)
  err,  ///< standard error
};

/// A piece of a process's output, as the server sent it.
struct ProcessOutput {
  /// Where it came from.
  OutputStream stream = OutputStream::out;
  /// The bytes.
  std::string data{};
};

/// What a command run to its end gave.
struct ExecResult {
  /// Everything it wrote to standard output.
  std::string out{};
  /// Everything it wrote to standard error.
  std::string err{};
  /// Its exit code (0 for success).
  int exit_code = 0;
};

/// The most output bytes one read takes off the connection. Nothing is read from the socket
/// until a read asks, so this, with the TLS and WebSocket layers' fixed buffers (about 20 KiB),
/// is all the output kubex holds for a reader however slowly it reads: the rest waits in TCP
/// and the server, which in turn slows the process.
inline constexpr std::size_t process_output_piece = std::size_t{64} << 10U;

/// Stdin goes to the server in messages of at most this many bytes; a write copies one message
/// at a time out of its data.
inline constexpr std::size_t process_input_piece = std::size_t{32} << 10U;

/// What an exec or attach session has moved so far and the most it held at once: how a test,
/// or a careful caller, sees that a slow side costs bounded memory.
struct ProcessStats {
  /// Output bytes handed to reads (stdout and stderr).
  std::size_t output_bytes = 0;
  /// Stdin bytes the socket has taken.
  std::size_t input_bytes = 0;
  /// The most output bytes held at once between the socket and a reader: at most
  /// process_output_piece.
  std::size_t peak_buffered_output = 0;
  /// The most stdin bytes held at once by writes not yet complete. A write keeps its data
  /// until the socket has taken the last of it and completes only then, so a writer that
  /// waits for each write before the next never has more than one write's data here; a
  /// writer faster than the process is held back, not buffered.
  std::size_t peak_buffered_input = 0;
};

/// How an exec or attach session's connection is kept.
struct ProcessOptions {
  /// Largest WebSocket message accepted (WebSocketOptions::max_message_size).
  std::size_t max_message_size = std::size_t{16} << 20U;
  /// Keep-alive pings (WebSocketOptions::ping_timeout); zero turns them off.
  std::chrono::milliseconds ping_timeout = std::chrono::seconds(60);
  /// Offer v5.channel.k8s.io first (then v4); false offers v4 only, which the apiserver hands
  /// to the kubelet as it is (and which cannot close stdin alone).
  bool offer_v5 = true;
};

}  // namespace kubex::client
