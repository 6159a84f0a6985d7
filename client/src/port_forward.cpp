// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/port_forward.hpp>
#include <kubex/core/error.hpp>

#include "detail/refuse.hpp"
#include "detail/spdy.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <utility>

namespace kubex::client {
namespace {

namespace asio = boost::asio;
namespace spdy = detail::spdy;
using asio::awaitable;
using asio::use_awaitable;
using Strand = asio::strand<asio::any_io_executor>;
using Clock = std::chrono::steady_clock;
constexpr auto use_tuple = asio::as_tuple(use_awaitable);

// A tunnel stops reading while its streams hold this much that their readers have not taken:
// the bound on what a slow reader costs.
constexpr std::size_t max_buffered = std::size_t{1} << 20U;
// Bytes per DATA frame (and WebSocket message) sent.
constexpr std::size_t data_piece = std::size_t{32} << 10U;

// A coroutine waiting on the strand until another step of the strand wakes it.
struct Signal {
  explicit Signal(const Strand& strand) : timer(strand, Clock::time_point::max()) {}
  awaitable<void> wait() {
    timer.expires_at(Clock::time_point::max());
    (void)co_await timer.async_wait(use_tuple);
  }
  void wake() { timer.cancel(); }
  asio::steady_timer timer;
};

[[noreturn]] void cancelled(const std::string& where) {
  throw Error(std::make_error_code(std::errc::operation_canceled), where + ": cancelled");
}

}  // namespace

struct PortForwarder::Tunnel : std::enable_shared_from_this<PortForwarder::Tunnel> {
  Tunnel(WebSocket s, const asio::any_io_executor& executor)
      : strand(asio::make_strand(executor)), socket(std::move(s)), resume(strand) {}

  // Runs on the strand: the tunnel is over; every stream learns why.
  void fail(std::exception_ptr why);
  void close() noexcept {
    try {
      asio::dispatch(strand, [self = shared_from_this()] {
        self->fail(
            std::make_exception_ptr(Error(std::make_error_code(std::errc::operation_canceled),
                                          self->socket.location() + ": closed")));
        self->socket.cancel();
      });
    } catch (...) {
      socket.cancel();
    }
  }
  void handle(spdy::Frame& frame);
  void write(std::string frame) {
    // Frames leave in the order written: the WebSocket sends its writes in order.
    socket.async_write(std::move(frame), [self = shared_from_this()](std::exception_ptr e) {
      if (e) {
        asio::dispatch(self->strand, [self, e] { self->fail(e); });
      }
    });
  }

  Strand strand;
  WebSocket socket;
  spdy::Writer writer;
  spdy::Reader reader;
  std::uint32_t next_stream = 1;  // client streams are odd
  std::uint32_t next_request = 0;
  // By data and error stream id. Weak: a stream's state belongs to its PortStream (and holds
  // the tunnel), so that a stream dropped while nothing runs the executor frees both.
  std::map<std::uint32_t, std::weak_ptr<PortStream::State>> streams;
  std::size_t buffered = 0;
  Signal resume;
  std::exception_ptr failure;  // set once the tunnel is over
  std::size_t owners = 0;      // the forwarder and the streams that keep it open
};

struct PortStream::State {
  State(std::shared_ptr<PortForwarder::Tunnel> t, std::uint16_t p)
      : tunnel(std::move(t)), port(p), wake(tunnel->strand) {}

  std::shared_ptr<PortForwarder::Tunnel> tunnel;
  std::uint16_t port;
  std::uint32_t data_id = 0;
  std::uint32_t error_id = 0;
  std::string in;  // received, not yet read
  std::string error_text;
  bool data_done = false;   // FIN or reset from the pod's side
  bool error_done = false;  // the kubelet closed the error stream
  bool write_closed = false;
  bool reset = false;  // by us
  std::exception_ptr failure;
  Signal wake;

  [[nodiscard]] std::string where() const {
    return tunnel->socket.location() + " port " + std::to_string(port);
  }
};

namespace {

using Tunnel = PortForwarder::Tunnel;
using StreamState = PortStream::State;

// Holds a tunnel open; the last holder closes it.
void hold(Tunnel& t) {
  ++t.owners;
}
void release(const std::shared_ptr<Tunnel>& t) {
  asio::dispatch(t->strand, [t] {
    if (--t->owners == 0) {
      t->close();
    }
  });
}

}  // namespace

void Tunnel::fail(std::exception_ptr why) {
  if (!failure) {
    failure = std::move(why);
  }
  for (auto& [id, weak] : streams) {
    if (const auto stream = weak.lock()) {
      stream->wake.wake();
    }
  }
  resume.wake();
}

void Tunnel::handle(spdy::Frame& frame) {
  switch (frame.type) {
    case spdy::FrameType::data:
    case spdy::FrameType::syn_reply:
    case spdy::FrameType::rst_stream: {
      const auto it = streams.find(frame.stream_id);
      if (it == streams.end()) {
        return;  // a stream we reset; its last frames may still come
      }
      const auto held = it->second.lock();
      if (!held) {
        streams.erase(it);
        return;
      }
      auto& s = *held;
      const bool is_data = frame.stream_id == s.data_id;
      const bool ended =
          frame.type == spdy::FrameType::rst_stream || (frame.flags & spdy::flag_fin) != 0;
      if (frame.type == spdy::FrameType::data) {
        if (is_data) {
          buffered += frame.data.size();
          s.in += frame.data;
        } else if (s.error_text.size() < 4096) {
          s.error_text += frame.data.substr(0, 4096 - s.error_text.size());
        }
      }
      if (ended) {
        (is_data ? s.data_done : s.error_done) = true;
      }
      s.wake.wake();
      return;
    }
    case spdy::FrameType::ping:
      write(spdy::ping(frame.ping_id));
      return;
    case spdy::FrameType::goaway:
      fail(std::make_exception_ptr(Error(std::make_error_code(std::errc::connection_aborted),
                                         socket.location() + ": the kubelet ended the tunnel")));
      return;
    default:
      return;  // SETTINGS, WINDOW_UPDATE, HEADERS: nothing port-forward needs
  }
}

namespace {

// Reads the tunnel while it is open, pausing while its streams hold max_buffered unread.
awaitable<void> pump(std::shared_ptr<Tunnel> t) {
  try {
    for (;;) {
      while (t->buffered >= max_buffered && !t->failure) {
        co_await t->resume.wait();
      }
      if (t->failure) {
        co_return;
      }
      std::string piece;
      const WebSocketRead r = co_await t->socket.async_read_some(piece, use_awaitable);
      if (r.closed) {
        t->fail(std::make_exception_ptr(Error(std::make_error_code(std::errc::connection_reset),
                                              t->socket.location() +
                                                  ": the apiserver closed the tunnel (code " +
                                                  std::to_string(r.close_code) + ")")));
        co_return;
      }
      t->reader.feed(piece);
      while (auto frame = t->reader.next()) {
        t->handle(*frame);
      }
    }
  } catch (...) {
    t->fail(std::current_exception());
  }
}

awaitable<std::shared_ptr<StreamState>> open_stream(std::shared_ptr<Tunnel> t, std::uint16_t port) {
  if (t->failure) {
    std::rethrow_exception(t->failure);
  }
  if (port == 0) {
    throw Error(errc::invalid_argument, t->socket.location() + ": port 0 is not a port");
  }
  auto s = std::make_shared<StreamState>(t, port);
  const std::string request = std::to_string(t->next_request++);
  s->error_id = t->next_stream;
  s->data_id = t->next_stream + 2;
  t->next_stream += 4;
  t->streams[s->error_id] = s;
  t->streams[s->data_id] = s;
  hold(*t);
  const std::string p = std::to_string(port);
  // The kubelet pairs the two streams by request id; nothing is ever written to the error
  // stream, so it is opened half-closed.
  t->write(t->writer.syn_stream(
      s->error_id, {{"streamtype", "error"}, {"port", p}, {"requestid", request}}, true));
  t->write(t->writer.syn_stream(
      s->data_id, {{"streamtype", "data"}, {"port", p}, {"requestid", request}}, false));
  co_return s;
}

awaitable<std::size_t> read_stream(std::shared_ptr<StreamState> s, std::string& out) {
  auto& t = *s->tunnel;
  for (;;) {
    if (s->reset) {
      cancelled(s->where());
    }
    if (!s->in.empty()) {
      const std::size_t n = s->in.size();
      out.append(s->in);
      s->in.clear();
      t.buffered -= n;
      t.resume.wake();
      co_return n;
    }
    if (s->data_done && s->error_done) {
      if (!s->error_text.empty()) {
        const bool refused = s->error_text.find("refused") != std::string::npos;
        throw Error(
            std::make_error_code(refused ? std::errc::connection_refused : std::errc::io_error),
            s->where() + ": " + s->error_text);
      }
      co_return 0;
    }
    if (t.failure) {
      std::rethrow_exception(t.failure);
    }
    co_await s->wake.wait();
  }
}

void check_writable(const StreamState& s) {
  if (s.reset) {
    cancelled(s.where());
  }
  if (s.tunnel->failure) {
    std::rethrow_exception(s.tunnel->failure);
  }
  if (s.write_closed) {
    throw Error(errc::invalid_argument, s.where() + ": written after async_close_write");
  }
}

// Waits until the WebSocket has taken `frame`, so that writers feel the tunnel's pace.
awaitable<void> send(Tunnel& t, std::string frame) {
  co_await t.socket.async_write(std::move(frame), use_awaitable);
}

awaitable<void> write_stream(std::shared_ptr<StreamState> s, std::string data) {
  std::string_view rest = data;
  while (!rest.empty()) {
    check_writable(*s);
    const auto n = std::min(rest.size(), data_piece);
    co_await send(*s->tunnel, spdy::data_frame(s->data_id, rest.substr(0, n), false));
    rest.remove_prefix(n);
  }
}

awaitable<void> close_write(std::shared_ptr<StreamState> s) {
  check_writable(*s);
  s->write_closed = true;
  co_await send(*s->tunnel, spdy::data_frame(s->data_id, {}, true));
}

}  // namespace

// --- PortStream ------------------------------------------------------------------------------

PortStream::~PortStream() {
  cancel();
}

PortStream& PortStream::operator=(PortStream&& other) noexcept {
  if (this != &other) {
    cancel();
    state_ = std::move(other.state_);
  }
  return *this;
}

std::uint16_t PortStream::port() const noexcept {
  return state_ ? state_->port : 0;
}

void PortStream::cancel() noexcept {
  if (!state_) {
    return;
  }
  try {
    auto s = std::move(state_);
    asio::dispatch(s->tunnel->strand, [s] {
      auto& t = *s->tunnel;
      if (!s->reset) {
        s->reset = true;
        // Both directions over: the kubelet drops the pair, and data on its way is ignored.
        if (!t.failure && !(s->data_done && s->error_done)) {
          t.write(spdy::rst_stream(s->data_id, spdy::status_cancel));
          t.write(spdy::rst_stream(s->error_id, spdy::status_cancel));
        }
        t.buffered -= s->in.size();
        s->in.clear();
        t.streams.erase(s->data_id);
        t.streams.erase(s->error_id);
        t.resume.wake();
        s->wake.wake();
        release(s->tunnel);
      }
    });
  } catch (...) {  // dispatching allocates; without memory the tunnel closes with its forwarder
  }
}

void PortStream::start_read(std::string& out, asio::any_completion_handler<PortReadSignature> h) {
  if (!state_) {
    detail::refuse<std::size_t>(std::move(h), "PortStream: the stream is empty");
    return;
  }
  asio::co_spawn(state_->tunnel->strand, read_stream(state_, out), std::move(h));
}

void PortStream::start_write(std::string data, asio::any_completion_handler<PortWriteSignature> h) {
  if (!state_) {
    detail::refuse<void>(std::move(h), "PortStream: the stream is empty");
    return;
  }
  asio::co_spawn(state_->tunnel->strand, write_stream(state_, std::move(data)), std::move(h));
}

void PortStream::start_close_write(asio::any_completion_handler<PortWriteSignature> h) {
  if (!state_) {
    detail::refuse<void>(std::move(h), "PortStream: the stream is empty");
    return;
  }
  asio::co_spawn(state_->tunnel->strand, close_write(state_), std::move(h));
}

// --- PortForwarder ---------------------------------------------------------------------------

PortForwarder::PortForwarder(WebSocket socket, asio::any_io_executor executor)
    : tunnel_(std::make_shared<Tunnel>(std::move(socket), executor)) {
  tunnel_->owners = 1;
  asio::co_spawn(tunnel_->strand, pump(tunnel_), asio::detached);
}

PortForwarder::~PortForwarder() {
  if (tunnel_) {
    release(tunnel_);
  }
}

void PortForwarder::cancel() noexcept {
  if (tunnel_) {
    tunnel_->close();
  }
}

void PortForwarder::start_open(std::uint16_t port,
                               asio::any_completion_handler<PortOpenSignature> h) {
  if (!tunnel_) {
    detail::refuse<PortStream>(std::move(h), "PortForwarder: the forwarder is empty");
    return;
  }
  asio::co_spawn(
      tunnel_->strand,
      [t = tunnel_, port]() -> awaitable<PortStream> {
        co_return PortStream(co_await open_stream(t, port));
      },
      std::move(h));
}

namespace detail {

void open_port_forward(const Client& client, Prepared prepared,
                       asio::any_completion_handler<PortForwardSignature> handler) {
  asio::co_spawn(
      client.get_executor(),
      [client, prepared = std::move(prepared)]() mutable -> awaitable<PortForwarder> {
        if (prepared.error) {
          std::rethrow_exception(prepared.error);
        }
        WebSocketOptions options;
        options.protocols = {std::string(port_forward_protocol)};
        WebSocket socket = co_await client.async_websocket(to_http(std::move(prepared.request)),
                                                           options, use_awaitable);
        co_return PortForwarder(std::move(socket), client.get_executor());
      },
      std::move(handler));
}

}  // namespace detail

// --- LocalPortForward ------------------------------------------------------------------------

struct LocalPortForward::State : std::enable_shared_from_this<LocalPortForward::State> {
  State(const Client& c, ApiRequest r, std::uint16_t remote)
      : client(c),
        request(std::move(r)),
        remote_port(remote),
        strand(asio::make_strand(c.get_executor())),
        acceptor(strand) {}

  awaitable<void> accept_loop();
  awaitable<void> serve(std::shared_ptr<asio::ip::tcp::socket> local);

  Client client;
  ApiRequest request;
  std::uint16_t remote_port;
  Strand strand;
  asio::ip::tcp::acceptor acceptor;
  std::uint16_t port = 0;
  std::atomic<bool> stopped{false};
  mutable std::mutex mutex;  // guards stats and sockets
  LocalForwardStats counters;
  std::set<std::shared_ptr<asio::ip::tcp::socket>> sockets;
};

awaitable<void> LocalPortForward::State::accept_loop() {
  auto self = shared_from_this();
  for (;;) {
    // Each connection on a strand of its own: stop() closes it from another thread.
    auto local = std::make_shared<asio::ip::tcp::socket>(asio::make_strand(client.get_executor()));
    const auto [ec] = co_await acceptor.async_accept(*local, use_tuple);
    if (ec || stopped) {
      co_return;
    }
    {
      const std::lock_guard lock(mutex);
      ++counters.connections;
      ++counters.active;
      sockets.insert(local);
    }
    asio::co_spawn(local->get_executor(), serve(local), asio::detached);
  }
}

awaitable<void> LocalPortForward::State::serve(std::shared_ptr<asio::ip::tcp::socket> local) {
  auto self = shared_from_this();
  bool failed = false;
  try {
    PortForwarder forwarder =
        co_await asio::async_initiate<const asio::use_awaitable_t<>&, PortForwardSignature>(
            [this](auto handler) {
              detail::open_port_forward(client, request, std::move(handler));
            },
            use_awaitable);
    auto stream =
        std::make_shared<PortStream>(co_await forwarder.async_open(remote_port, use_awaitable));
    // Up: the local peer to the pod, half-closing when it has sent all.
    auto up = [&]() -> awaitable<void> {
      std::string buffer(data_piece, '\0');
      for (;;) {
        const auto [ec, n] = co_await local->async_read_some(asio::buffer(buffer), use_tuple);
        if (ec == asio::error::eof) {
          co_await stream->async_close_write(use_awaitable);
          co_return;
        }
        if (ec) {
          throw boost::system::system_error(ec);
        }
        co_await stream->async_write(buffer.substr(0, n), use_awaitable);
        const std::lock_guard lock(mutex);
        counters.bytes_to_pod += n;
      }
    };
    // Down: the pod to the local peer, written before the next read, so a slow local reader
    // slows the tunnel.
    auto down = [&]() -> awaitable<void> {
      std::string buffer;
      for (;;) {
        buffer.clear();
        const auto n = co_await stream->async_read_some(buffer, use_awaitable);
        if (n == 0) {
          boost::system::error_code ignored;
          local->shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
          co_return;
        }
        co_await asio::async_write(*local, asio::buffer(buffer), use_awaitable);
        const std::lock_guard lock(mutex);
        counters.bytes_from_pod += n;
      }
    };
    using namespace asio::experimental::awaitable_operators;
    co_await (up() && down());
  } catch (...) {
    failed = true;
  }
  boost::system::error_code ignored;
  local->close(ignored);
  const std::lock_guard lock(mutex);
  --counters.active;
  counters.failed += failed ? 1 : 0;
  sockets.erase(local);
}

LocalPortForward::LocalPortForward(const Client& client, ApiRequest request,
                                   std::uint16_t remote_port, std::uint16_t local_port)
    : state_(std::make_shared<State>(client, std::move(request), remote_port)) {
  auto& acceptor = state_->acceptor;
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), local_port);
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) {
    acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  }
  if (!ec) {
    acceptor.bind(endpoint, ec);
  }
  if (!ec) {
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    throw Error(std::error_code(ec), "port-forward: cannot listen on 127.0.0.1:" +
                                         std::to_string(local_port) + ": " + ec.message());
  }
  state_->port = acceptor.local_endpoint().port();
  asio::co_spawn(state_->strand, state_->accept_loop(), asio::detached);
}

LocalPortForward::~LocalPortForward() {
  stop();
}

std::uint16_t LocalPortForward::local_port() const noexcept {
  return state_->port;
}

LocalForwardStats LocalPortForward::stats() const {
  const std::lock_guard lock(state_->mutex);
  return state_->counters;
}

void LocalPortForward::stop() noexcept {
  if (state_->stopped.exchange(true)) {
    return;
  }
  try {
    asio::dispatch(state_->strand, [s = state_] {
      boost::system::error_code ignored;
      s->acceptor.close(ignored);
      const std::lock_guard lock(s->mutex);
      for (const auto& socket : s->sockets) {
        asio::dispatch(socket->get_executor(), [socket] {
          boost::system::error_code ignore;
          socket->close(ignore);
        });
      }
    });
  } catch (...) {
  }
}

}  // namespace kubex::client
