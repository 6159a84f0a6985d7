// Proxies between kubex and the real kube-apiserver of tools/testenv: tinyproxy (HTTP CONNECT,
// Basic proxy authentication) and microsocks (SOCKS5, username/password), both real proxies from
// Debian packages (scripts/install-deps.sh). The kernel's socket table shows that the client
// talks to the proxy only, and the apiserver's SelfSubjectReview that TLS and authentication
// ran end to end through the tunnel.

#include <kubex/client/blocking.hpp>
#include <kubex/client/client.hpp>
#include <kubex/core/error.hpp>
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
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace asio = boost::asio;
using kubex::client::BlockingClient;
using kubex::client::ClientOptions;
using kubex::testing::sockets_to;

std::uint16_t free_port() {
  asio::io_context ioc;
  asio::ip::tcp::acceptor acceptor(ioc, {asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

// A proxy program running for the lifetime of the object, its output discarded.
class ProxyProcess {
 public:
  ProxyProcess(std::vector<std::string> argv, std::uint16_t port) : port_(port) {
    std::vector<char*> args;
    for (auto& arg : argv) {
      args.push_back(arg.data());
    }
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      throw std::system_error(rc, std::generic_category(), "cannot start " + argv[0]);
    }
    // Ready once it accepts connections.
    for (int i = 0; i < 100; ++i) {
      asio::io_context ioc;
      asio::ip::tcp::socket probe(ioc);
      boost::system::error_code ec;
      probe.connect({asio::ip::make_address("127.0.0.1"), port_}, ec);
      if (!ec) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error(argv[0] + " did not listen on port " + std::to_string(port_));
  }
  ~ProxyProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  ProxyProcess(const ProxyProcess&) = delete;
  ProxyProcess& operator=(const ProxyProcess&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_;
};

class proxy_testenv_test : public kubex::testing::TestenvTest {
 protected:
  // tinyproxy allows CONNECT to any port when the configuration lists no ConnectPort.
  std::unique_ptr<ProxyProcess> start_tinyproxy() {
    const auto port = free_port();
    const auto conf = dir_.write("tinyproxy.conf", "Port " + std::to_string(port) +
                                                       "\nListen 127.0.0.1\nTimeout 60\n"
                                                       "MaxClients 20\nLogLevel Critical\n"
                                                       "BasicAuth kubex s3cret\n");
    return std::make_unique<ProxyProcess>(
        std::vector<std::string>{"tinyproxy", "-d", "-c", conf.string()}, port);
  }

  static std::unique_ptr<ProxyProcess> start_microsocks() {
    const auto port = free_port();
    return std::make_unique<ProxyProcess>(
        std::vector<std::string>{"microsocks", "-i", "127.0.0.1", "-p", std::to_string(port), "-u",
                                 "kubex", "-P", "s3cret"},
        port);
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
