// SPDX-License-Identifier: Apache-2.0
#pragma once

// A real proxy program beside the test: tinyproxy (HTTP CONNECT, Basic authentication) or
// microsocks (SOCKS5, username/password), both Debian packages that scripts/install-deps.sh
// installs. Started with posix_spawn, ready once it accepts connections, stopped when the
// object goes. Header-only (Asio and POSIX).

#include <kubex/testing/temp_dir.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT: POSIX declares it nowhere

namespace kubex::testing {

/// A free TCP port on 127.0.0.1 (free when asked; the caller binds it soon after).
inline std::uint16_t free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor acceptor(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

/// A proxy program running for the lifetime of the object, its output discarded.
class ProxyProcess {
 public:
  /// Starts `argv` (argv[0] looked up in PATH), which must listen on 127.0.0.1:`port`.
  /// @throws std::system_error or std::runtime_error if it does not start or listen.
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
      boost::asio::io_context ioc;
      boost::asio::ip::tcp::socket probe(ioc);
      boost::system::error_code ec;
      probe.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
      if (!ec) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stop();
    throw std::runtime_error(argv[0] + " did not listen on port " + std::to_string(port_));
  }
  ~ProxyProcess() { stop(); }
  ProxyProcess(const ProxyProcess&) = delete;
  ProxyProcess& operator=(const ProxyProcess&) = delete;

  /// The port it listens on.
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  void stop() noexcept {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  pid_t pid_ = -1;
  std::uint16_t port_;
};

/// tinyproxy on a free port, with Basic authentication `user`:`password`; its configuration
/// goes into `dir`. It allows CONNECT to any port, as its configuration lists no ConnectPort.
inline std::unique_ptr<ProxyProcess> start_tinyproxy(const TempDir& dir, const std::string& user,
                                                     const std::string& password) {
  const auto port = free_port();
  const auto conf = dir.write("tinyproxy.conf", "Port " + std::to_string(port) +
                                                    "\nListen 127.0.0.1\nTimeout 60\n"
                                                    "MaxClients 20\nLogLevel Critical\n"
                                                    "BasicAuth " +
                                                    user + " " + password + "\n");
  return std::make_unique<ProxyProcess>(
      std::vector<std::string>{"tinyproxy", "-d", "-c", conf.string()}, port);
}

/// microsocks on a free port, with username/password authentication.
inline std::unique_ptr<ProxyProcess> start_microsocks(const std::string& user,
                                                      const std::string& password) {
  const auto port = free_port();
  return std::make_unique<ProxyProcess>(
      std::vector<std::string>{"microsocks", "-i", "127.0.0.1", "-p", std::to_string(port), "-u",
                               user, "-P", password},
      port);
}

}  // namespace kubex::testing
