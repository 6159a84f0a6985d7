// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to kubex_test_support: the accept loop of the small loopback servers (FaultServer,
// OidcIssuer). Serves one connection at a time on a background thread.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

namespace kubex::testing::detail {

class LoopbackAcceptor {
 public:
  using tcp = boost::asio::ip::tcp;

  LoopbackAcceptor()
      : acceptor_(ioc_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)),
        port_(acceptor_.local_endpoint().port()) {}
  ~LoopbackAcceptor() { stop(); }
  LoopbackAcceptor(const LoopbackAcceptor&) = delete;
  LoopbackAcceptor& operator=(const LoopbackAcceptor&) = delete;

  /// Calls `serve` with each accepted connection until stop().
  void start(std::function<void(tcp::socket&)> serve) {
    thread_ = std::thread([this, serve = std::move(serve)] {
      while (!stopping_) {
        tcp::socket socket(ioc_);
        boost::system::error_code ec;
        acceptor_.accept(socket, ec);
        if (stopping_ || ec) {
          break;
        }
        // A stuck test must not hang the server thread forever.
        timeval timeout{10, 0};
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        current_fd_ = socket.native_handle();
        serve(socket);
        current_fd_ = -1;
      }
    });
  }

  /// Unblocks a pending read on the current connection, then the pending accept, and joins.
  void stop() {
    if (!thread_.joinable()) {
      return;
    }
    stopping_ = true;
    if (const int fd = current_fd_.load(); fd >= 0) {
      ::shutdown(fd, SHUT_RDWR);
    }
    boost::asio::io_context wake_ioc;
    tcp::socket wake(wake_ioc);
    boost::system::error_code ec;
    wake.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), ec);
    thread_.join();
  }

  [[nodiscard]] bool stopping() const noexcept { return stopping_; }
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::uint16_t port_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> current_fd_{-1};
  std::thread thread_;
};

}  // namespace kubex::testing::detail
