// SPDX-License-Identifier: Apache-2.0
#pragma once
// exec and attach: a process in a container, reached through the apiserver over a WebSocket
// that speaks the channel protocol (v5.channel.k8s.io, or v4 from older servers). Output is
// read when asked for and stdin is written when the socket takes it, so a slow side slows the
// other end and nothing is dropped.

#include <kubex/client/client.hpp>
#include <kubex/client/process_output.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/client/websocket.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace kubex::client {

/// Completion signature of a read: the next piece of output, or std::nullopt once the process
/// has ended and all of its output has been read.
using ProcessReadSignature = void(std::exception_ptr, std::optional<ProcessOutput>);
/// Completion signature of writes, stdin's close and resizes.
using ProcessWriteSignature = void(std::exception_ptr);

/// A running process (exec) or a container's main process (attach). Read its output with
/// async_read until it returns std::nullopt; exit_code() then holds the exit code. A process
/// that could not run (a command that does not exist, a container that is not running) fails
/// that last read with kubex::ApiError carrying the server's Status. One read at a time;
/// writes, stdin's close and resizes may overlap reads and each other (they go in order).
/// Destroying it closes the connection, which ends an exec'd process. Cancelling one operation
/// through its token's cancellation slot (terminal) fails it with std::errc::operation_canceled
/// and leaves the session unusable; emit the signal where Asio asks, on the thread that runs
/// the client's executor. From any other thread, cancel() is the way.
class KUBEX_API RemoteProcess {
 public:
  /// An empty session; only assignable and destructible.
  RemoteProcess() = default;
  /// A session over `socket` (upgraded with a channel subprotocol); handlers run on
  /// `executor` unless they carry their own; `tty` says whether resizes are allowed.
  RemoteProcess(WebSocket socket, boost::asio::any_io_executor executor, bool tty);
  /// Closes the connection if it is still open.
  ~RemoteProcess();
  /// Takes over `other`'s session.
  RemoteProcess(RemoteProcess&& other) noexcept;
  /// Closes this session and takes over `other`'s.
  RemoteProcess& operator=(RemoteProcess&& other) noexcept;
  RemoteProcess(const RemoteProcess&) = delete;
  RemoteProcess& operator=(const RemoteProcess&) = delete;

  /// The next piece of output (at most process_output_piece bytes), or std::nullopt once the
  /// process has ended. Output is taken off the connection only here, so a slow reader slows
  /// the process instead of making kubex buffer it.
  /// Completion signature: void(std::exception_ptr, std::optional<ProcessOutput>).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_read(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, ProcessReadSignature>(
        [this](auto handler) { start_read(std::move(handler)); }, token);
  }

  /// Writes `data` to the process's standard input; completes once the socket has taken all
  /// of it (large writes go as messages of process_input_piece bytes, one after the other), so
  /// a process that reads slowly holds the writer back (see ProcessStats::peak_buffered_input).
  /// Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_write(std::string data, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, ProcessWriteSignature>(
        [this](auto handler, std::string d) { start_write(std::move(d), std::move(handler)); },
        token, std::move(data));
  }

  /// Closes the process's standard input, so that a reader of it (cat) sees end of file.
  /// Needs v5.channel.k8s.io: over v4 it fails with errc::invalid_argument, as v4 has no way
  /// to say it short of closing the connection.
  /// Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_close_stdin(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, ProcessWriteSignature>(
        [this](auto handler) { start_close_stdin(std::move(handler)); }, token);
  }

  /// Tells the terminal its new size in columns and rows; only with a tty (errc::invalid_argument
  /// otherwise). Completion signature: void(std::exception_ptr).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_resize(std::uint16_t width, std::uint16_t height, CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, ProcessWriteSignature>(
        [this, width, height](auto handler) { start_resize(width, height, std::move(handler)); },
        token);
  }

  /// The exit code, once a read has returned std::nullopt.
  [[nodiscard]] std::optional<int> exit_code() const noexcept;
  /// The subprotocol the server chose (v5.channel.k8s.io or v4.channel.k8s.io).
  [[nodiscard]] const std::string& subprotocol() const noexcept;
  /// Closes the connection at once; pending and later operations fail with
  /// std::errc::operation_canceled (a kubex::Failure whose canceled() is true). Safe from any
  /// thread, also while another thread waits in a read or a write: the close runs on the
  /// connection's strand.
  void cancel() noexcept;
  /// Bytes moved so far and the most held at once (any thread); zeros for an empty session.
  [[nodiscard]] ProcessStats stats() const noexcept;

  /// The session's state, shared with its pending operations (internal).
  struct State;

 private:
  void start_read(boost::asio::any_completion_handler<ProcessReadSignature> handler);
  void start_write(std::string data,
                   boost::asio::any_completion_handler<ProcessWriteSignature> handler);
  void start_close_stdin(boost::asio::any_completion_handler<ProcessWriteSignature> handler);
  void start_resize(std::uint16_t width, std::uint16_t height,
                    boost::asio::any_completion_handler<ProcessWriteSignature> handler);

  std::shared_ptr<State> state_;
};

/// Completion signature of opening a session.
using ProcessOpenSignature = void(std::exception_ptr, RemoteProcess);
/// Completion signature of running a command to its end.
using ProcessRunSignature = void(std::exception_ptr, ExecResult);

namespace detail {

/// Upgrades `prepared` (RequestBuilder::exec or attach) to a session.
KUBEX_API void open_process(const Client& client, Prepared prepared, bool tty,
                            ProcessOptions options,
                            boost::asio::any_completion_handler<ProcessOpenSignature> handler);

/// Runs `prepared` (RequestBuilder::exec) to its end: writes `input` to its stdin and closes
/// it when `with_stdin`, and collects its output while doing so.
KUBEX_API void run_process(const Client& client, Prepared prepared, std::string input,
                           bool with_stdin, ProcessOptions options,
                           boost::asio::any_completion_handler<ProcessRunSignature> handler);

}  // namespace detail

/// Opens an exec or attach session for `request` (built by RequestBuilder::exec or attach, or
/// by hand): completes once the server has accepted it. Refusals (no such pod or container,
/// 403) fail with kubex::ApiError.
template <class CompletionToken = DefaultCompletionToken>
auto async_open_process(const Client& client, ApiRequest request, bool tty,
                        const ProcessOptions& options, CompletionToken&& token = {}) {
  return boost::asio::async_initiate<CompletionToken, ProcessOpenSignature>(
      [&client, tty, options](auto handler, ApiRequest r) {
        detail::open_process(client, detail::Prepared(std::move(r)), tty, options,
                             std::move(handler));
      },
      token, std::move(request));
}

}  // namespace kubex::client
