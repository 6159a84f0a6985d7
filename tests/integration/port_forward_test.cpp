// SPDX-License-Identifier: Apache-2.0
// port-forward through the real apiserver, which relays the SPDY/3.1 tunnel inside the
// WebSocket (`SPDY/3.1+portforward.k8s.io`) to testenv's simulated kubelet; behind each
// declared container port is a loopback TCP echo server, or for ports named http*, a small
// HTTP server whose GET /bytes/N answers N bytes of 'a' + i % 26.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/exec.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::client::Client;
using kubex::client::PortForwarder;
using kubex::client::PortStream;
using namespace std::chrono_literals;

constexpr std::uint16_t echo_port = 7000;
constexpr std::uint16_t http_port = 8080;

corev1::Pod server_pod(const std::string& name) {
  corev1::Pod pod;
  pod.metadata.name = name;
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "server";
  c.image = "registry.k8s.io/pause:3.10";
  auto& echo = c.ports.emplace_back();
  echo.name = "echo";
  echo.container_port = echo_port;
  auto& http = c.ports.emplace_back();
  http.name = "http";
  http.container_port = http_port;
  return pod;
}

// Peak resident memory of this process so far (VmHWM), in bytes.
std::size_t peak_rss() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) {
      return std::stoul(line.substr(6)) * 1024;
    }
  }
  return 0;
}

class port_forward_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    client_.emplace(ioc_.get_executor(), config());
    runner_ = std::thread([this] { ioc_.run(); });
  }
  void TearDown() override {
    work_.reset();
    ioc_.stop();
    if (runner_.joinable()) {
      runner_.join();
    }
  }

  Api<corev1::Pod> pods() { return Api<corev1::Pod>::namespaced(*client_, own_namespace()); }

  void start(const std::string& name) {
    BlockingClient blocking(config());
    auto api = BlockingApi<corev1::Pod>::namespaced(blocking, own_namespace());
    api.create(server_pod(name));
    for (int i = 0; i < 600; ++i) {
      const auto pod = api.get(name);
      if (pod.status && pod.status->phase == corev1::PodStatusPhase::Running) {
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
    FAIL() << name << " did not start running";
  }

  template <class T>
  T run(asio::awaitable<T> work) {
    return asio::co_spawn(ioc_, std::move(work), asio::use_future).get();
  }

  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(ioc_)};
  std::optional<Client> client_;
  std::thread runner_;
};

// 100 MB from the pod to a reader that takes 32 MB/s at most, slower than the tunnel delivers:
// every byte arrives in order, and the process's memory stays far below the transfer (the
// tunnel pauses its reads; without that, tens of megabytes would pile up).
TEST_F(port_forward_test, a_hundred_megabytes_to_a_slow_reader_arrive_whole_in_bounded_memory) {
  start("bulk");
  const std::size_t size = 100'000'000;
  const std::size_t before = peak_rss();
  const auto started = std::chrono::steady_clock::now();
  const std::size_t received = run([&]() -> asio::awaitable<std::size_t> {
    auto forwarder = co_await pods().async_port_forward("bulk", asio::use_awaitable);
    auto stream = co_await forwarder.async_open(http_port, asio::use_awaitable);
    co_await stream.async_write("GET /bytes/" + std::to_string(size) +
                                    " HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n",
                                asio::use_awaitable);
    std::string head;
    std::size_t body = 0;
    bool in_body = false;
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (;;) {
      std::string piece;
      const auto n = co_await stream.async_read_some(piece, asio::use_awaitable);
      if (n == 0) {
        break;
      }
      const auto check = [&](std::string_view data) {
        for (const char c : data) {
          if (c != static_cast<char>('a' + body % 26)) {
            throw std::runtime_error("byte " + std::to_string(body) + " differs");
          }
          ++body;
        }
      };
      if (in_body) {
        check(piece);
      } else {
        head += piece;
        const auto end = head.find("\r\n\r\n");
        if (end == std::string::npos) {
          continue;
        }
        in_body = true;
        check(std::string_view(head).substr(end + 4));
      }
      // At most 32 MB/s: slower than the tunnel delivers.
      pause.expires_after(std::chrono::microseconds(piece.size() / 32));
      co_await pause.async_wait(asio::use_awaitable);
    }
    co_return body;
  }());
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(received, size);
  EXPECT_GE(took, 2900ms) << "the reader was not slower than the tunnel";
  const std::size_t grown = peak_rss() - before;
#if defined(__SANITIZE_ADDRESS__)
  // ASan's quarantine keeps freed memory resident (256 MiB by default): the bound is checked
  // in the other builds.
  (void)grown;
#else
  EXPECT_LT(grown, std::size_t{24} << 20U) << "peak RSS grew by " << grown << " bytes";
#endif
  std::cout << "100 MB through the tunnel in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms; peak RSS grew by " << (grown >> 20U) << " MiB\n";
}

// Bytes sent to the echo port come back; half-closing ends the echo.
TEST_F(port_forward_test, echo_with_half_close) {
  start("echo");
  const std::string sent = [] {
    std::string s(std::size_t{4} << 20U, '\0');
    for (std::size_t i = 0; i < s.size(); ++i) {
      s[i] = static_cast<char>((i * 7919U) >> 3U);
    }
    return s;
  }();
  const std::string echoed = run([&]() -> asio::awaitable<std::string> {
    auto forwarder = co_await pods().async_port_forward("echo", asio::use_awaitable);
    auto stream =
        std::make_shared<PortStream>(co_await forwarder.async_open(echo_port, asio::use_awaitable));
    auto writer = [stream, &sent]() -> asio::awaitable<void> {
      co_await stream->async_write(sent, asio::use_awaitable);
      co_await stream->async_close_write(asio::use_awaitable);
    };
    asio::co_spawn(co_await asio::this_coro::executor, writer(), asio::detached);
    std::string got;
    while (co_await stream->async_read_some(got, asio::use_awaitable) != 0) {
    }
    co_return got;
  }());
  ASSERT_EQ(echoed.size(), sent.size());
  EXPECT_TRUE(echoed == sent);
}

// The blocking facade: a connection through a tunnel of its own, read and written in turn.
TEST_F(port_forward_test, the_blocking_facade_forwards_a_connection) {
  start("blocking");
  BlockingClient blocking(config());
  auto api = BlockingApi<corev1::Pod>::namespaced(blocking, own_namespace());
  auto stream = api.port_forward("blocking", echo_port);
  stream.write("ping");
  std::string back;
  while (back.size() < 4) {
    ASSERT_NE(stream.read_some(back), 0U);
  }
  EXPECT_EQ(back, "ping");
  stream.close_write();
  while (stream.read_some(back) != 0) {
  }
  EXPECT_EQ(back, "ping");
}

// Two ports, 20 connections at once through the local listener, as kubectl port-forward
// serves them.
TEST_F(port_forward_test, two_ports_and_twenty_concurrent_connections) {
  start("many");
  auto echo_forward = pods().forward_local_port("many", echo_port);
  auto http_forward = pods().forward_local_port("many", http_port);
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 20; ++i) {
    clients.emplace_back([&, i] {
      try {
        asio::io_context io;
        asio::ip::tcp::socket socket(io);
        const bool http = i % 2 == 1;
        socket.connect({asio::ip::make_address("127.0.0.1"),
                        http ? http_forward->local_port() : echo_forward->local_port()});
        if (http) {
          const std::string request = "GET /bytes/" + std::to_string(1000 + i) +
                                      " HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n";
          asio::write(socket, asio::buffer(request));
          std::string response;
          boost::system::error_code ec;
          asio::read(socket, asio::dynamic_buffer(response), ec);
          const auto body = response.substr(response.find("\r\n\r\n") + 4);
          if (response.starts_with("HTTP/1.1 200") && body.size() == 1000U + i &&
              body.starts_with("abcdefghijklmnopqrstuvwxyz")) {
            ++good;
          }
        } else {
          const std::string message = "connection " + std::to_string(i) + std::string(5000, '.');
          asio::write(socket, asio::buffer(message));
          std::string back(message.size(), '\0');
          asio::read(socket, asio::buffer(back));
          if (back == message) {
            ++good;
          }
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "connection " << i << ": " << e.what();
      }
    });
  }
  for (auto& t : clients) {
    t.join();
  }
  EXPECT_EQ(good.load(), 20);
  EXPECT_EQ(echo_forward->stats().connections + http_forward->stats().connections, 20U);
}

TEST_F(port_forward_test, refusals_and_closed_ports_are_clear_errors) {
  start("errors");
  // An undeclared port: the kubelet reports the refused connection on the error stream.
  try {
    run([&]() -> asio::awaitable<void> {
      auto forwarder = co_await pods().async_port_forward("errors", asio::use_awaitable);
      auto stream = co_await forwarder.async_open(9999, asio::use_awaitable);
      std::string got;
      while (co_await stream.async_read_some(got, asio::use_awaitable) != 0) {
      }
    }());
    ADD_FAILURE() << "forwarding to a closed port succeeded";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("9999"), std::string::npos) << e.what();
  }
  // A pod that does not exist: the upgrade is refused with the server's Status.
  try {
    run([&]() -> asio::awaitable<void> {
      (void)co_await pods().async_port_forward("no-such-pod", asio::use_awaitable);
    }());
    ADD_FAILURE() << "port-forward to a missing pod succeeded";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_not_found(e)) << e.what();
  }
}

}  // namespace
