// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/remote_process.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/remote_command.hpp>

#include "detail/refuse.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace kubex::client {
namespace {

namespace asio = boost::asio;
namespace rc = kubex::remote_command;
using asio::awaitable;
using asio::use_awaitable;

// Stdin goes in messages of at most this size, as client-go writes it: the apiserver's
// WebSocket reader has a per-message limit of its own.
constexpr std::size_t stdin_piece = process_input_piece;

// Asio fails the next co_await of a coroutine whose cancellation slot fired with
// boost::system::system_error (operation_aborted, "co_await"); callers get the kubex::Error that
// every other way of cancelling gives, so that Failure::canceled() holds.
// `where` names the session for the message.
template <class T, class Where>
awaitable<T> cancel_as_error(awaitable<T> work, Where where) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(work);
      co_return;
    } else {
      co_return co_await std::move(work);
    }
  } catch (const boost::system::system_error& e) {
    if (e.code() != asio::error::operation_aborted) {
      throw;
    }
  }
  throw Error(std::make_error_code(std::errc::operation_canceled), where() + ": cancelled");
}

// Raises `peak` to `value` if it is lower.
void raise(std::atomic<std::size_t>& peak, std::size_t value) noexcept {
  std::size_t seen = peak.load(std::memory_order_relaxed);
  while (seen < value && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

struct RemoteProcess::State {
  WebSocket socket;
  asio::any_io_executor executor;
  bool tty = false;
  bool v5 = false;
  // The message being read: its channel, and for the error channel its bytes so far.
  bool in_message = false;
  rc::Channel channel = rc::Channel::stdout_stream;
  std::string status;
  std::size_t status_limit = 0;
  bool status_seen = false;
  std::exception_ptr failure;  // what the error channel said when it was not an exit code
  std::optional<int> exit;
  bool ended = false;
  // Counters (ProcessStats); atomic, as stats() may be called from any thread and reads and
  // writes may run on different threads of a pool.
  std::atomic<std::size_t> output_bytes{0};
  std::atomic<std::size_t> input_bytes{0};
  std::atomic<std::size_t> buffered_input{0};
  std::atomic<std::size_t> peak_output{0};
  std::atomic<std::size_t> peak_input{0};

  [[noreturn]] void protocol_error(const std::string& what) {
    socket.cancel();
    throw Error(std::make_error_code(std::errc::protocol_error), socket.location() + ": " + what);
  }

  // The end of the session: the exit code, or the failure the error channel reported.
  std::optional<ProcessOutput> finish() {
    ended = true;
    if (failure) {
      std::rethrow_exception(failure);
    }
    return std::nullopt;
  }
};

namespace {

using State = RemoteProcess::State;

awaitable<std::optional<ProcessOutput>> read_output(std::shared_ptr<State> s) {
  if (s->ended) {
    co_return s->finish();
  }
  for (;;) {
    std::string piece;
    const WebSocketRead r = co_await s->socket.async_read_some(piece, use_awaitable);
    raise(s->peak_output, piece.size());
    if (r.closed) {
      if (!s->status_seen) {
        s->ended = true;
        throw Error(std::make_error_code(std::errc::connection_reset),
                    s->socket.location() + ": the server closed the connection (code " +
                        std::to_string(r.close_code) + ") before the process's exit status");
      }
      co_return s->finish();
    }
    if (r.text) {
      s->protocol_error("a text message; the channel protocol sends binary messages only");
    }
    std::size_t skip = 0;
    if (!s->in_message) {
      if (piece.empty()) {
        continue;  // an empty message carries no channel and nothing else
      }
      const auto channel = static_cast<rc::Channel>(static_cast<unsigned char>(piece[0]));
      switch (channel) {
        case rc::Channel::stdout_stream:
        case rc::Channel::stderr_stream:
        case rc::Channel::error:
        case rc::Channel::close:
          break;
        default:
          s->protocol_error("a message on channel " +
                            std::to_string(static_cast<unsigned>(channel)) +
                            ", which the server may not send on (1 stdout, 2 stderr, 3 error)");
      }
      s->channel = channel;
      s->in_message = true;
      skip = 1;
    }
    if (r.message_done) {
      s->in_message = false;
    }
    if (s->channel == rc::Channel::error) {
      if (s->status.size() + piece.size() - skip > s->status_limit) {
        s->protocol_error("an error-channel message larger than " +
                          std::to_string(s->status_limit) + " bytes");
      }
      s->status.append(piece, skip);
      if (!s->in_message) {
        s->status_seen = true;
        try {
          s->exit = rc::exit_code(s->socket.location(), s->status);
        } catch (...) {
          s->failure = std::current_exception();
        }
      }
      continue;
    }
    if (s->channel == rc::Channel::close) {
      continue;  // the server ended one of its streams; the connection's end ends them all
    }
    piece.erase(0, skip);
    if (piece.empty()) {
      continue;
    }
    s->output_bytes.fetch_add(piece.size(), std::memory_order_relaxed);
    co_return ProcessOutput{
        s->channel == rc::Channel::stderr_stream ? OutputStream::err : OutputStream::out,
        std::move(piece)};
  }
}

awaitable<void> write_input(std::shared_ptr<State> s, std::string data) {
  // The write's data counts as held until the socket has taken it, however it ends.
  struct Held {
    State& state;
    std::size_t size;
    ~Held() { state.buffered_input.fetch_sub(size, std::memory_order_relaxed); }
  } held{*s, data.size()};
  raise(s->peak_input,
        s->buffered_input.fetch_add(data.size(), std::memory_order_relaxed) + data.size());
  std::string_view rest = data;
  while (!rest.empty()) {
    const auto n = std::min(rest.size(), stdin_piece);
    co_await s->socket.async_write(rc::frame(rc::Channel::stdin_stream, rest.substr(0, n)),
                                   use_awaitable);
    rest.remove_prefix(n);
    held.size -= n;
    s->buffered_input.fetch_sub(n, std::memory_order_relaxed);
    s->input_bytes.fetch_add(n, std::memory_order_relaxed);
  }
}

awaitable<void> close_input(std::shared_ptr<State> s) {
  if (!s->v5) {
    throw Error(errc::invalid_argument,
                s->socket.location() +
                    ": closing stdin needs v5.channel.k8s.io; the server chose " +
                    s->socket.subprotocol());
  }
  co_await s->socket.async_write(rc::close_frame(rc::Channel::stdin_stream), use_awaitable);
}

awaitable<void> resize(std::shared_ptr<State> s, std::uint16_t width, std::uint16_t height) {
  if (!s->tty) {
    throw Error(errc::invalid_argument,
                s->socket.location() + ": a resize needs a session with a tty");
  }
  co_await s->socket.async_write(rc::resize_frame(width, height), use_awaitable);
}

WebSocketOptions socket_options(const ProcessOptions& options) {
  WebSocketOptions o;
  if (options.offer_v5) {
    o.protocols.emplace_back(rc::v5_protocol);
  }
  o.protocols.emplace_back(rc::v4_protocol);
  o.max_message_size = options.max_message_size;
  o.ping_timeout = options.ping_timeout;
  return o;
}

awaitable<RemoteProcess> open(Client client, detail::Prepared prepared, bool tty,
                              ProcessOptions options) {
  if (prepared.error) {
    std::rethrow_exception(prepared.error);
  }
  WebSocket socket = co_await client.async_websocket(detail::to_http(std::move(prepared.request)),
                                                     socket_options(options), use_awaitable);
  co_return RemoteProcess(std::move(socket), client.get_executor(), tty);
}

}  // namespace

RemoteProcess::RemoteProcess(WebSocket socket, asio::any_io_executor executor, bool tty)
    : state_(std::make_shared<State>()) {
  state_->v5 = socket.subprotocol() == rc::v5_protocol;
  state_->socket = std::move(socket);
  state_->executor = std::move(executor);
  state_->tty = tty;
  // A Status is small; the limit only stops a peer that never ends the message.
  state_->status_limit = std::size_t{1} << 20U;
}

RemoteProcess::~RemoteProcess() {
  cancel();
}

RemoteProcess::RemoteProcess(RemoteProcess&& other) noexcept = default;

RemoteProcess& RemoteProcess::operator=(RemoteProcess&& other) noexcept {
  if (this != &other) {
    cancel();
    state_ = std::move(other.state_);
  }
  return *this;
}

std::optional<int> RemoteProcess::exit_code() const noexcept {
  return state_ ? state_->exit : std::nullopt;
}

const std::string& RemoteProcess::subprotocol() const noexcept {
  static const std::string none;
  return state_ ? state_->socket.subprotocol() : none;
}

void RemoteProcess::cancel() noexcept {
  if (state_) {
    state_->socket.cancel();
  }
}

ProcessStats RemoteProcess::stats() const noexcept {
  ProcessStats stats;
  if (state_) {
    stats.output_bytes = state_->output_bytes.load(std::memory_order_relaxed);
    stats.input_bytes = state_->input_bytes.load(std::memory_order_relaxed);
    stats.peak_buffered_output = state_->peak_output.load(std::memory_order_relaxed);
    stats.peak_buffered_input = state_->peak_input.load(std::memory_order_relaxed);
  }
  return stats;
}

namespace {

// The session's location, for messages, once they need it.
auto where(const std::shared_ptr<State>& s) {
  return [s] {
    return s->socket.location();
  };
}

constexpr const char* empty_session =
    "RemoteProcess: the session is empty (default-constructed or moved from)";

}  // namespace

void RemoteProcess::start_read(asio::any_completion_handler<ProcessReadSignature> handler) {
  if (!state_) {
    detail::refuse<std::optional<ProcessOutput>>(std::move(handler), empty_session);
    return;
  }
  asio::co_spawn(state_->executor, cancel_as_error(read_output(state_), where(state_)),
                 std::move(handler));
}

void RemoteProcess::start_write(std::string data,
                                asio::any_completion_handler<ProcessWriteSignature> handler) {
  if (!state_) {
    detail::refuse<void>(std::move(handler), empty_session);
    return;
  }
  asio::co_spawn(state_->executor,
                 cancel_as_error(write_input(state_, std::move(data)), where(state_)),
                 std::move(handler));
}

void RemoteProcess::start_close_stdin(asio::any_completion_handler<ProcessWriteSignature> handler) {
  if (!state_) {
    detail::refuse<void>(std::move(handler), empty_session);
    return;
  }
  asio::co_spawn(state_->executor, cancel_as_error(close_input(state_), where(state_)),
                 std::move(handler));
}

void RemoteProcess::start_resize(std::uint16_t width, std::uint16_t height,
                                 asio::any_completion_handler<ProcessWriteSignature> handler) {
  if (!state_) {
    detail::refuse<void>(std::move(handler), empty_session);
    return;
  }
  asio::co_spawn(state_->executor, cancel_as_error(resize(state_, width, height), where(state_)),
                 std::move(handler));
}

namespace detail {

void open_process(const Client& client, Prepared prepared, bool tty, ProcessOptions options,
                  asio::any_completion_handler<ProcessOpenSignature> handler) {
  asio::co_spawn(client.get_executor(),
                 cancel_as_error(open(client, std::move(prepared), tty, options),
                                 [] { return std::string("exec or attach"); }),
                 std::move(handler));
}

namespace {

// Collects the output of `process` to its end.
awaitable<ExecResult> collect(std::shared_ptr<RemoteProcess> process) {
  ExecResult result;
  try {
    while (auto piece = co_await process->async_read(use_awaitable)) {
      (piece->stream == OutputStream::err ? result.err : result.out).append(piece->data);
    }
  } catch (...) {
    process->cancel();  // a write of stdin still pending fails at once
    throw;
  }
  process->cancel();
  result.exit_code = process->exit_code().value_or(0);
  co_return result;
}

// Feeds `input` and closes stdin. A process that ends without reading all of it (exit 3)
// closes the connection under the write: that is its answer, not a failure of the run.
awaitable<void> feed(std::shared_ptr<RemoteProcess> process, std::string input) {
  try {
    if (!input.empty()) {
      co_await process->async_write(std::move(input), use_awaitable);
    }
    co_await process->async_close_stdin(use_awaitable);
  } catch (const Error& e) {
    if (e.code() == errc::invalid_argument) {
      throw;  // v4: stdin cannot be closed, so the run could not end
    }
  }
}

awaitable<ExecResult> run(Client client, Prepared prepared, std::string input, bool with_stdin,
                          ProcessOptions options) {
  auto process =
      std::make_shared<RemoteProcess>(co_await open(client, std::move(prepared), false, options));
  if (!with_stdin) {
    co_return co_await collect(process);
  }
  using namespace asio::experimental::awaitable_operators;
  co_return co_await (collect(process) && feed(process, std::move(input)));
}

}  // namespace

void run_process(const Client& client, Prepared prepared, std::string input, bool with_stdin,
                 ProcessOptions options,
                 asio::any_completion_handler<ProcessRunSignature> handler) {
  asio::co_spawn(
      client.get_executor(),
      cancel_as_error(run(client, std::move(prepared), std::move(input), with_stdin, options),
                      [] { return std::string("exec"); }),
      std::move(handler));
}

}  // namespace detail

}  // namespace kubex::client
