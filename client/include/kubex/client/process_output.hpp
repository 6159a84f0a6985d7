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
