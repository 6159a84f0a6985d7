// SPDX-License-Identifier: Apache-2.0
// Proxies between kubex and the real kube-apiserver of tools/testenv: tinyproxy (HTTP CONNECT,
// Basic proxy authentication) and microsocks (SOCKS5, username/password), both real proxies from
// Debian packages (scripts/install-deps.sh). The kernel's socket table shows that the client
// talks to the proxy only, and the apiserver's SelfSubjectReview that TLS and authentication
// ran end to end through the tunnel.

#include <kubex/client/blocking.hpp>
#include <kubex/client/client.hpp>
#include <kubex/core/error.hpp>
#include <kubex/testing/proxy_process.hpp>
#include <kubex/testing/scoped_env.hpp>
#include <kubex/testing/sockets.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
using kubex::client::BlockingClient;
using kubex::client::ClientOptions;
using kubex::testing::ProxyProcess;
using kubex::testing::sockets_to;

class proxy_testenv_test : public kubex::testing::TestenvTest {
 protected:
  std::unique_ptr<ProxyProcess> start_tinyproxy() {
    return kubex::testing::start_tinyproxy(dir_, "kubex", "s3cret");
  }

  static std::unique_ptr<ProxyProcess> start_microsocks() {
    return kubex::testing::start_microsocks("kubex", "s3cret");
  }

  static std::string error_of(BlockingClient& client, std::error_code& code) {
    try {
      (void)client.get("/version");
    } catch (const kubex::Error& e) {
      code = e.code();
      return e.what();
    }
    return "<no error>";
  }

 private:
  kubex::testing::TempDir dir_;
};

TEST_F(proxy_testenv_test, http_connect_proxy_from_the_kubeconfig) {
  const auto proxy = start_tinyproxy();
  auto cfg = config();
  const auto server_port = cfg.server.port;
  cfg.proxy_url = "http://kubex:s3cret@127.0.0.1:" + std::to_string(proxy->port());
  BlockingClient client(cfg);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-admin");
  EXPECT_EQ(client.get("/version").status, 200U);
  EXPECT_EQ(sockets_to(proxy->port()).size(), 1U);
  EXPECT_TRUE(sockets_to(server_port).empty()) << "connected to the apiserver directly";
  EXPECT_EQ(client.stats().connections_opened, 1U);

  // A watch streams through the tunnel like any other response.
  asio::io_context ioc;
  kubex::client::Client async(ioc.get_executor(), cfg);
  std::size_t reads = 0;
  unsigned status = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        kubex::client::HttpRequest request;
        request.target = "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1";
        auto stream = co_await async.async_stream(request, asio::use_awaitable);
        status = stream.head().status;
        std::string data;
        while (co_await stream.async_read_some(data, asio::use_awaitable) != 0) {
          ++reads;
        }
        EXPECT_NE(data.find("kube-root-ca.crt"), std::string::npos);
      },
      asio::detached);
  ioc.run();
  EXPECT_EQ(status, 200U);
  EXPECT_GE(reads, 1U);
}

TEST_F(proxy_testenv_test, http_proxy_refusal_is_an_error_without_the_password) {
  const auto proxy = start_tinyproxy();
  ClientOptions options;
  options.proxy = "http://kubex:wrong-pass@127.0.0.1:" + std::to_string(proxy->port());
  BlockingClient client(config(), options);
  std::error_code code;
  const auto message = error_of(client, code);
  EXPECT_EQ(code, std::errc::connection_refused) << message;
  // tinyproxy answers a wrong password with 401 (most proxies say 407).
  EXPECT_NE(message.find("the proxy answered 401"), std::string::npos) << message;
  EXPECT_EQ(message.find("wrong-pass"), std::string::npos) << message;
}

TEST_F(proxy_testenv_test, socks5_proxy_with_password_and_a_host_name) {
  const auto proxy = start_microsocks();
  auto cfg = config();
  const auto server_port = cfg.server.port;
  // The proxy resolves the name; the serving certificate has "localhost" among its SANs.
  cfg.server.host = "localhost";
  ClientOptions options;
  options.proxy = "socks5://kubex:s3cret@127.0.0.1:" + std::to_string(proxy->port());
  BlockingClient client(cfg, options);
  EXPECT_EQ(kubex::testing::whoami(client), "kubex-admin");
  EXPECT_EQ(sockets_to(proxy->port()).size(), 1U);
  EXPECT_TRUE(sockets_to(server_port).empty()) << "connected to the apiserver directly";

  options.proxy = "socks5://kubex:wrong-pass@127.0.0.1:" + std::to_string(proxy->port());
  BlockingClient refused(cfg, options);
  std::error_code code;
  const auto message = error_of(refused, code);
  EXPECT_EQ(code, std::errc::connection_refused) << message;
  EXPECT_NE(message.find("rejected the user name or password"), std::string::npos) << message;
  EXPECT_EQ(message.find("wrong-pass"), std::string::npos) << message;
}

TEST_F(proxy_testenv_test, environment_proxy_is_not_used_for_loopback) {
  const auto proxy = start_tinyproxy();
  const kubex::testing::ScopedEnv https_proxy(
      "HTTPS_PROXY", "http://kubex:s3cret@127.0.0.1:" + std::to_string(proxy->port()));
  const auto cfg = config();
  BlockingClient client(cfg);
  EXPECT_EQ(client.get("/version").status, 200U);
  EXPECT_TRUE(sockets_to(proxy->port()).empty());
  EXPECT_EQ(sockets_to(cfg.server.port).size(), 1U);
}

}  // namespace
