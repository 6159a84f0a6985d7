// SPDX-License-Identifier: Apache-2.0
// The asynchronous Client against the real kube-apiserver of tools/testenv: completion tokens
// (coroutines, futures, callbacks, no-throw tuples), the connection pool and its limits
// (checked against the kernel's socket table), streaming bodies (watch) with cancellation,
// idle timeout and clean end, the rate limiter, and default headers.

#include <kubex/client/blocking.hpp>
#include <kubex/client/client.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/requests.hpp>
#include <kubex/testing/sockets.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <simdjson.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
using kubex::client::BlockingClient;
using kubex::client::Client;
using kubex::client::ClientOptions;
using kubex::client::HttpRequest;
using kubex::client::HttpResponse;
using kubex::testing::sockets_to;
using Clock = std::chrono::steady_clock;

class client_testenv_test : public kubex::testing::TestenvTest {};

using kubex::testing::error_of;
using kubex::testing::get;
using kubex::testing::resource_version_of;

// kube-apiserver listens on one address, 127.0.0.1 in testenv (binding it to every interface
// only to reach ::1 is not worth exposing it). This relay copies bytes between [::1] and the
// apiserver; TLS runs end to end between kubex and the real server, so kubex's IPv6 path (URL
// brackets, connect, IP SAN ::1 verification, Host header) is what is tested.
class Ipv6Relay {
 public:
  explicit Ipv6Relay(std::uint16_t target_port) : target_port_(target_port) {
    accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~Ipv6Relay() {
    ioc_.stop();
    thread_.join();
  }
  Ipv6Relay(const Ipv6Relay&) = delete;
  Ipv6Relay& operator=(const Ipv6Relay&) = delete;
  [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  using tcp = asio::ip::tcp;
  struct Pipe {
    explicit Pipe(asio::io_context& ioc) : client(ioc), server(ioc) {}
    tcp::socket client;
    tcp::socket server;
    std::array<char, 16384> up{};
    std::array<char, 16384> down{};
  };

  void accept() {
    auto pipe = std::make_shared<Pipe>(ioc_);
    acceptor_.async_accept(pipe->client, [this, pipe](const boost::system::error_code& ec) {
      if (ec) {
        return;
      }
      pipe->server.async_connect({asio::ip::make_address("127.0.0.1"), target_port_},
                                 [pipe](const boost::system::error_code& e) {
                                   if (!e) {
                                     pump(pipe, pipe->client, pipe->server, pipe->up);
                                     pump(pipe, pipe->server, pipe->client, pipe->down);
                                   }
                                 });
      accept();
    });
  }

  static void pump(const std::shared_ptr<Pipe>& pipe, tcp::socket& from, tcp::socket& to,
                   std::array<char, 16384>& buffer) {
    from.async_read_some(
        asio::buffer(buffer),
        [pipe, &from, &to, &buffer](const boost::system::error_code& ec, std::size_t n) {
          if (ec) {
            boost::system::error_code ignored;
            to.shutdown(tcp::socket::shutdown_send, ignored);
            return;
          }
          asio::async_write(
              to, asio::buffer(buffer.data(), n),
              [pipe, &from, &to, &buffer](const boost::system::error_code& e, std::size_t) {
                if (!e) {
                  pump(pipe, from, to, buffer);
                }
              });
        });
  }

  asio::io_context ioc_;
  tcp::acceptor acceptor_{ioc_, {asio::ip::make_address("::1"), 0}};
  std::uint16_t target_port_;
  std::thread thread_;
};

TEST_F(client_testenv_test, ipv6_loopback_server) {
  auto cfg = config();
  const Ipv6Relay relay(cfg.server.port);
  cfg.server = kubex::parse_server_url("https://[::1]:" + std::to_string(relay.port()));
  BlockingClient client(cfg);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-admin");
  EXPECT_EQ(client.get("/api/v1/namespaces/default").status, 200U);
  EXPECT_EQ(client.stats().connections_opened, 1U);
}

// A watch on a peer that died silently must not hang for the kernel's default two hours
// before the first keep-alive probe. The options are read back from the socket itself.
TEST_F(client_testenv_test, connections_probe_a_silent_peer_after_30_seconds) {
  for (const bool h2 : {false, true}) {
    BlockingClient client(config(), ClientOptions{.http2 = h2});
    ASSERT_EQ(client.get("/version").status, 200U);
    const auto port = config().server.port;
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      const auto link = std::filesystem::read_symlink(entry.path(), ec).string();
      if (ec || !link.starts_with("socket:[") ||
          !sockets_to(port).contains(std::stoul(link.substr(8)))) {
        continue;
      }
      const int fd = std::stoi(entry.path().filename().string());
      int on = 0;
      int idle = 0;
      int interval = 0;
      socklen_t size = sizeof(int);
      ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &size), 0);
      ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &size), 0);
      ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, &size), 0);
      EXPECT_EQ(on, 1);
      EXPECT_EQ(idle, 30);
      EXPECT_EQ(interval, 30);
      ++checked;
    }
    EXPECT_EQ(checked, 1) << (h2 ? "HTTP/2" : "HTTP/1.1");
  }
}

TEST_F(client_testenv_test, every_completion_token_works) {
  asio::io_context ioc;
  Client client(ioc.get_executor(), config());

  // C++20 coroutine: values come back from co_await, errors are thrown, or returned as a tuple.
  unsigned coroutine_status = 0;
  std::string thrown;
  std::error_code tuple_code;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        const auto response = co_await client.async_request(get("/version"), asio::use_awaitable);
        coroutine_status = response.status;
        try {
          (void)co_await client.async_request(get("no-leading-slash"), asio::use_awaitable);
        } catch (const kubex::Error& e) {
          thrown = e.what();
        }
        auto [error, ignored] =
            co_await client.async_request(get("/bad target"), asio::as_tuple(asio::use_awaitable));
        tuple_code = error ? error_of(error).code() : std::error_code{};
      },
      asio::detached);
  ioc.run();
  EXPECT_EQ(coroutine_status, 200U);
  EXPECT_NE(thrown.find("request target must be an absolute path"), std::string::npos) << thrown;
  EXPECT_EQ(tuple_code, kubex::errc::invalid_path);

  // Plain callback.
  unsigned callback_status = 0;
  client.async_request(get("/api/v1/namespaces/default"),
                       [&](std::exception_ptr error, HttpResponse response) {
                         EXPECT_FALSE(error);
                         callback_status = response.status;
                       });
  ioc.restart();
  ioc.run();
  EXPECT_EQ(callback_status, 200U);

  // std::future, with the io_context running on another thread.
  auto work = asio::make_work_guard(ioc);
  ioc.restart();
  std::thread runner([&] { ioc.run(); });
  auto future = client.async_request(get("/api/v1/namespaces/kube-system"), asio::use_future);
  EXPECT_EQ(future.get().status, 200U);
  auto failing = client.async_request(get("/x\r\nInjected: 1"), asio::use_future);
  EXPECT_THROW((void)failing.get(), kubex::Error);
  work.reset();
  runner.join();

  // All of it over one keep-alive connection.
  EXPECT_EQ(client.stats().connections_opened, 1U);
  EXPECT_EQ(client.stats().connections_reused, 2U);
}

TEST_F(client_testenv_test, concurrent_requests_share_a_bounded_pool) {
  const auto cfg = config();
  const auto port = cfg.server.port;
  asio::io_context ioc;

  // Without a tight limit, eight requests in flight at once get eight connections...
  {
    Client wide(ioc.get_executor(), cfg);
    int ok = 0;
    for (int i = 0; i < 8; ++i) {
      wide.async_request(get("/api/v1/namespaces/default"),
                         [&](std::exception_ptr error, HttpResponse response) {
                           ok += !error && response.status == 200U ? 1 : 0;
                         });
    }
    ioc.run();
    EXPECT_EQ(ok, 8);
    EXPECT_EQ(wide.stats().connections_opened, 8U);
    EXPECT_EQ(sockets_to(port).size(), 8U);
    wide.transport()->close_idle();
    ioc.restart();
    ioc.run();
    EXPECT_TRUE(sockets_to(port).empty());
  }

  // ...with two per host, they queue for two connections, which stay open for the next ones.
  ClientOptions options;
  options.max_connections_per_host = 2;
  Client narrow(ioc.get_executor(), cfg, options);
  int ok = 0;
  for (int i = 0; i < 8; ++i) {
    narrow.async_request(get("/api/v1/namespaces/default"),
                         [&](std::exception_ptr error, HttpResponse response) {
                           ok += !error && response.status == 200U ? 1 : 0;
                         });
  }
  ioc.restart();
  ioc.run();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(narrow.stats().connections_opened, 2U);
  EXPECT_EQ(narrow.stats().connections_reused, 6U);
  EXPECT_EQ(narrow.stats().connections_open, 2U);
  const auto sockets = sockets_to(port);
  EXPECT_EQ(sockets.size(), 2U);
  for (const auto& [inode, state] : sockets) {
    EXPECT_EQ(state, kubex::testing::tcp_established) << inode;
  }
}

TEST_F(client_testenv_test, idle_connections_expire_after_the_keep_alive_timeout) {
  const auto cfg = config();
  ClientOptions options;
  options.keep_alive_timeout = std::chrono::milliseconds(300);
  BlockingClient client(cfg, options);
  ASSERT_EQ(client.get("/version").status, 200U);
  ASSERT_EQ(client.get("/version").status, 200U);  // reused while fresh
  EXPECT_EQ(client.stats().connections_opened, 1U);
  const auto first = sockets_to(cfg.server.port);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(client.get("/version").status, 200U);  // too old: closed, a new one opened
  EXPECT_EQ(client.stats().connections_opened, 2U);
  EXPECT_EQ(client.stats().connections_open, 1U);
  const auto second = sockets_to(cfg.server.port);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_FALSE(first.contains(second.begin()->first));

  // keep_alive = false: every request on its own connection, none left open.
  ClientOptions no_keep_alive;
  no_keep_alive.keep_alive = false;
  BlockingClient once(cfg, no_keep_alive);
  ASSERT_EQ(once.get("/version").status, 200U);
  ASSERT_EQ(once.get("/version").status, 200U);
  EXPECT_EQ(once.stats().connections_opened, 2U);
  EXPECT_EQ(once.stats().connections_open, 0U);
}

TEST_F(client_testenv_test, new_connections_resume_the_tls_session_and_keep_their_identity) {
  // keep_alive = false: every request opens a connection. The first gets a session ticket (in
  // TLS 1.3, after the handshake), the next ones resume it; the server still knows the client
  // by the certificate of the first, full handshake.
  ClientOptions options;
  options.keep_alive = false;
  BlockingClient client(config("admin-cert"), options);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-admin-cert");
  EXPECT_EQ(client.stats().tls_sessions_resumed, 0U);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-admin-cert");
  ASSERT_EQ(client.get("/version").status, 200U);
  EXPECT_EQ(client.stats().connections_opened, 3U);
  EXPECT_EQ(client.stats().tls_sessions_resumed, 2U);

  // Turned off: full handshakes only.
  options.tls_session_resumption = false;
  BlockingClient full(config(), options);
  ASSERT_EQ(full.get("/version").status, 200U);
  ASSERT_EQ(full.get("/version").status, 200U);
  EXPECT_EQ(full.stats().connections_opened, 2U);
  EXPECT_EQ(full.stats().tls_sessions_resumed, 0U);
}

TEST_F(client_testenv_test, watch_stream_delivers_events_as_they_happen_and_cancels_promptly) {
  const std::string& ns = own_namespace();
  // The last read must wait for the cancel: no late kube-root-ca.crt event may end it.
  wait_for_root_ca();
  const auto cfg = config();
  BlockingClient admin(cfg);
  const auto list = admin.get("/api/v1/namespaces/" + ns + "/configmaps");
  ASSERT_EQ(list.status, 200U) << list.body;
  const auto rv = resource_version_of(list.body);
  ASSERT_FALSE(rv.empty());

  asio::io_context ioc;
  // HTTP/1.1's stream mechanics (http2_test has HTTP/2's): the watch owns its connection.
  ClientOptions options;
  options.http2_for_streams = false;
  Client client(ioc.get_executor(), cfg, options);
  unsigned status = 0;
  std::string events;
  std::error_code cancel_code;
  Clock::duration cancel_latency{};
  // Outside the coroutine: GCC 12 mishandles a braced list's backing array in a coroutine frame.
  const std::array<const char*, 2> names{"w1", "w2"};
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto stream = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/configmaps?watch=1&resourceVersion=" + rv),
            asio::use_awaitable);
        status = stream.head().status;
        // The server has answered the head before anything happened: events arrive later.
        for (const char* name : names) {
          const auto created = admin.request(
              "POST", "/api/v1/namespaces/" + ns + "/configmaps",
              std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")") + name +
                  R"("}})");
          EXPECT_EQ(created.status, 201U) << created.body;
          const std::string needle = std::string(R"("name":")") + name + '"';
          while (events.find(needle) == std::string::npos) {
            if (co_await stream.async_read_some(events, asio::use_awaitable) == 0) {
              ADD_FAILURE() << "the watch ended early";
              co_return;
            }
          }
        }
        // Nothing more happens; a read waits until cancelled from elsewhere.
        asio::steady_timer timer(ioc, std::chrono::milliseconds(200));
        // Only while the stream lives: if the read ended otherwise, the timer is cancelled below.
        timer.async_wait([&](const boost::system::error_code& ec) {
          if (!ec) {
            stream.cancel();
          }
        });
        const auto start = Clock::now();
        auto [error, n] =
            co_await stream.async_read_some(events, asio::as_tuple(asio::use_awaitable));
        timer.cancel();
        cancel_latency = Clock::now() - start;
        cancel_code = error ? error_of(error).code() : std::error_code{};
      },
      asio::detached);
  ioc.run();
  EXPECT_EQ(status, 200U);
  EXPECT_NE(events.find(R"({"type":"ADDED","object":{"kind":"ConfigMap")"), std::string::npos)
      << events;
  EXPECT_LT(events.find(R"("name":"w1")"), events.find(R"("name":"w2")")) << events;
  EXPECT_EQ(cancel_code, std::errc::operation_canceled);
  EXPECT_GE(cancel_latency, std::chrono::milliseconds(150));
  EXPECT_LT(cancel_latency, std::chrono::seconds(3));
  EXPECT_EQ(client.stats().connections_open, 0U);  // a cancelled stream's connection is gone
}

TEST_F(client_testenv_test, stream_ends_cleanly_and_its_connection_is_reused) {
  const std::string& ns = own_namespace();
  asio::io_context ioc;
  // The request timeout bounds the head only: this one-second watch outlives it. Over
  // HTTP/1.1, whose connection the stream hands back (HTTP/2 streams share theirs).
  ClientOptions options;
  options.timeout = std::chrono::milliseconds(400);
  options.http2_for_streams = false;
  Client client(ioc.get_executor(), config(), options);
  std::string body;
  std::size_t reads = 0;
  unsigned status = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        // The server ends this watch itself after one second.
        auto stream = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=1"),
            asio::use_awaitable);
        status = stream.head().status;
        while (co_await stream.async_read_some(body, asio::use_awaitable) != 0) {
          ++reads;
        }
        // Read to its end, the stream handed its connection back.
        const auto next = co_await client.async_request(get("/version"), asio::use_awaitable);
        EXPECT_EQ(next.status, 200U);
      },
      asio::detached);
  const auto start = Clock::now();
  ioc.run();
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(900));
  EXPECT_EQ(status, 200U);
  EXPECT_EQ(client.stats().connections_opened, 1U);
  EXPECT_EQ(client.stats().connections_reused, 1U);
  EXPECT_EQ(client.stats().connections_open, 1U);
  (void)reads;  // the namespace's kube-root-ca.crt may or may not be sent first
}

TEST_F(client_testenv_test, quiet_stream_times_out_with_an_idle_limit) {
  const std::string& ns = own_namespace();
  BlockingClient admin(config());
  const auto rv = resource_version_of(admin.get("/api/v1/namespaces/" + ns + "/secrets").body);
  ASSERT_FALSE(rv.empty());

  asio::io_context ioc;
  ClientOptions options;
  options.stream_idle_timeout = std::chrono::milliseconds(500);
  Client client(ioc.get_executor(), config(), options);
  std::error_code code;
  std::string message;
  Clock::duration waited{};
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto stream = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/secrets?watch=1&resourceVersion=" + rv),
            asio::use_awaitable);
        std::string data;
        const auto start = Clock::now();
        auto [error, n] =
            co_await stream.async_read_some(data, asio::as_tuple(asio::use_awaitable));
        waited = Clock::now() - start;
        if (error) {
          code = error_of(error).code();
          message = error_of(error).what();
        }
      },
      asio::detached);
  ioc.run();
  EXPECT_EQ(code, std::errc::timed_out) << message;
  EXPECT_NE(message.find("no data for 500 ms"), std::string::npos) << message;
  EXPECT_GE(waited, std::chrono::milliseconds(450));
  EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST_F(client_testenv_test, stream_error_status_comes_with_its_body_and_no_data) {
  asio::io_context ioc;
  Client client(ioc.get_executor(), config());
  kubex::client::ResponseStream stream;
  std::string data;
  std::size_t n = 99;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        stream = co_await client.async_stream(
            get("/api/v1/namespaces/kubex-no-such-namespace/pods/kubex-no-such-pod/log?follow=1"),
            asio::use_awaitable);
        n = co_await stream.async_read_some(data, asio::use_awaitable);
      },
      asio::detached);
  ioc.run();
  EXPECT_EQ(stream.head().status, 404U);
  EXPECT_NE(stream.head().body.find(R"("reason":"NotFound")"), std::string::npos)
      << stream.head().body;
  EXPECT_EQ(n, 0U);
  EXPECT_TRUE(data.empty());
  EXPECT_EQ(client.stats().connections_open, 1U);  // kept for the next request
}

TEST_F(client_testenv_test, rate_limiter_spaces_requests) {
  asio::io_context ioc;
  ClientOptions options;
  options.qps = 10.0;
  options.burst = 1;
  Client client(ioc.get_executor(), config(), options);
  int ok = 0;
  const auto start = Clock::now();
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 6; ++i) {
          const auto response = co_await client.async_request(get("/version"), asio::use_awaitable);
          ok += response.status == 200U ? 1 : 0;
        }
      },
      asio::detached);
  ioc.run();
  // One token at once, then one every 100 ms: five waits.
  EXPECT_EQ(ok, 6);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(450));
}

TEST_F(client_testenv_test, default_headers_reach_the_server) {
  // Impersonation set as a plain default header is visible in the server's own account of
  // who is calling, so it shows that the header went out.
  ClientOptions options;
  options.default_headers = {{"Impersonate-User", "kubex-user"}};
  BlockingClient client(config(), options);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-user");

  ClientOptions broken;
  broken.default_headers = {{"X-Bad", "a\r\nInjected: 1"}};
  EXPECT_THROW(BlockingClient(config(), broken), kubex::ConfigError);
}

}  // namespace
