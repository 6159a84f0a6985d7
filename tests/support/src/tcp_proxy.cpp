// SPDX-License-Identifier: Apache-2.0
#include <kubex/testing/tcp_proxy.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace kubex::testing {

struct TcpProxy::State {
  std::string target_host;
  std::uint16_t target_port = 0;
  std::uint16_t port = 0;
  std::atomic<bool> stopping{false};
  std::atomic<bool> refusing{false};
  std::atomic<bool> reset_next_request{false};
  std::atomic<std::size_t> accepted{0};
  std::atomic<std::size_t> silenced{0};  // connections numbered up to this are black-holed
  std::atomic<std::uint64_t> epoch{0};   // disrupt() resets connections accepted before it
  std::mutex mutex;
  std::condition_variable changed;
  bool listening = false;
  std::size_t live = 0;  // connection threads still running
  std::thread acceptor;
  std::list<std::thread> connections;
};

namespace {

using Clock = std::chrono::steady_clock;

int listen_on(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw std::runtime_error(std::string("TcpProxy: socket: ") + std::strerror(errno));
  }
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, 64) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error(std::string("TcpProxy: bind/listen: ") + std::strerror(error));
  }
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_in address{};
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  return ntohs(address.sin_port);
}

int connect_to(const std::string& host, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (fd < 0 || ::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (fd >= 0) {
      ::close(fd);
    }
    return -1;
  }
  return fd;
}

// Closes `fd` with an RST instead of a FIN.
void reset(int fd) {
  const linger abort{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  ::close(fd);
}

bool send_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const auto n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) {
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Forwards between `client` (the `number`th accepted) and the target until either side closes,
// the proxy stops, or a disruption (an epoch after `epoch`, the one it was accepted in) resets
// the client. Once black-holed, it reads both sides and forwards nothing, not even the
// target's close: a black hole on the network carries no FIN, and a server that ends the
// exchange (a watch at its timeoutSeconds) must not tell the client that the path is gone.
void forward(TcpProxy::State& state, int client, std::uint64_t epoch, std::size_t number) {
  const int upstream = connect_to(state.target_host, state.target_port);
  if (upstream < 0) {
    reset(client);
    return;
  }
  std::optional<Clock::time_point> reset_at;  // a delivered request's client is reset then
  bool upstream_open = true;
  char buffer[64 * 1024];
  for (;;) {
    if (state.stopping || state.epoch.load() != epoch || (reset_at && Clock::now() >= *reset_at)) {
      reset(client);
      ::close(upstream);
      return;
    }
    // A negative descriptor is left out by poll: the target's side once it closed, silenced.
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream_open ? upstream : -1, POLLIN, 0}};
    if (::poll(fds, 2, 20) <= 0) {
      continue;
    }
    const bool silent = number <= state.silenced.load();
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const auto n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0 || (!silent && !send_all(upstream, buffer, static_cast<std::size_t>(n)))) {
        break;
      }
      if (!reset_at && state.reset_next_request.exchange(false)) {
        reset_at = Clock::now() + std::chrono::milliseconds(200);
      }
    }
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const auto n = ::recv(upstream, buffer, sizeof buffer, 0);
      if (n <= 0 && silent) {
        upstream_open = false;
        continue;
      }
      if (n <= 0) {
        break;
      }
      if (!silent && !reset_at && !send_all(client, buffer, static_cast<std::size_t>(n))) {
        break;
      }
    }
  }
  ::close(client);
  ::close(upstream);
}

void accept_loop(const std::shared_ptr<TcpProxy::State>& state, int listener) {
  for (;;) {
    if (state->stopping) {
      break;
    }
    if (state->refusing) {
      if (listener >= 0) {
        ::close(listener);
        listener = -1;
        std::lock_guard lock(state->mutex);
        state->listening = false;
        state->changed.notify_all();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (listener < 0) {
      listener = listen_on(state->port);
      std::lock_guard lock(state->mutex);
      state->listening = true;
      state->changed.notify_all();
    }
    pollfd fd{listener, POLLIN, 0};
    if (::poll(&fd, 1, 20) <= 0) {
      continue;
    }
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      continue;
    }
    const std::size_t number = ++state->accepted;
    // Read here, before this thread can close the listener for a disruption that bumps it.
    const std::uint64_t epoch = state->epoch.load();
    std::lock_guard lock(state->mutex);
    ++state->live;
    state->connections.emplace_back([state, client, epoch, number] {
      forward(*state, client, epoch, number);
      std::lock_guard done(state->mutex);
      --state->live;
      state->changed.notify_all();
    });
  }
  if (listener >= 0) {
    ::close(listener);
  }
}

}  // namespace

TcpProxy::TcpProxy(const std::string& target_host, std::uint16_t target_port)
    : state_(std::make_shared<State>()) {
  state_->target_host = target_host;
  state_->target_port = target_port;
  const int listener = listen_on(0);
  state_->port = local_port(listener);
  state_->listening = true;
  state_->acceptor = std::thread([state = state_, listener] { accept_loop(state, listener); });
}

TcpProxy::~TcpProxy() {
  state_->stopping = true;
  state_->acceptor.join();
  // The connection threads end within a poll interval; no new ones start after the acceptor.
  for (auto& thread : state_->connections) {
    thread.join();
  }
}

std::uint16_t TcpProxy::port() const noexcept {
  return state_->port;
}

void TcpProxy::disrupt(std::chrono::milliseconds outage) {
  std::unique_lock lock(state_->mutex);
  state_->refusing = true;
  state_->changed.wait(lock, [&] { return !state_->listening; });
  ++state_->epoch;
  state_->changed.wait(lock, [&] { return state_->live == 0; });
  lock.unlock();
  std::this_thread::sleep_for(outage);
  lock.lock();
  state_->refusing = false;
  state_->changed.wait(lock, [&] { return state_->listening; });
}

void TcpProxy::black_hole_open_connections() {
  state_->silenced = state_->accepted.load();
}

void TcpProxy::reset_after_next_request() {
  state_->reset_next_request = true;
}

std::size_t TcpProxy::connections_accepted() const noexcept {
  return state_->accepted;
}

}  // namespace kubex::testing
