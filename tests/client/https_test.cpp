// SPDX-License-Identifier: Apache-2.0
// BlockingClient behaviour that needs no server at all. Everything that talks to a server
// is tested against the real apiserver in tests/integration/https_test.cpp; the few faults the
// real server cannot be made to produce are in https_fault_test.cpp.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

namespace {

using kubex::client::BlockingClient;
using kubex::client::ClientConfig;

// A TCP port on 127.0.0.1 that is bound but not listening, so connecting to it is refused for
// as long as this object lives and no other process can start listening on it meanwhile.
class RefusingPort {
 public:
  RefusingPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    // The sockets API takes sockaddr_in through a sockaddr pointer.
    auto* generic = reinterpret_cast<sockaddr*>(&address);
    if (fd_ < 0 || ::bind(fd_, generic, length) != 0 || ::getsockname(fd_, generic, &length) != 0) {
      throw std::system_error(errno, std::generic_category(), "reserve a loopback port");
    }
    port_ = ntohs(address.sin_port);
  }
  ~RefusingPort() { ::close(fd_); }
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  int fd_;
  std::uint16_t port_ = 0;
};

TEST(https_test, connection_refused_is_an_error_naming_the_url) {
  const RefusingPort refusing;
  ClientConfig config;
  config.source = "test";
  // The base path is part of every request URL, including the one in error messages.
  config.server = kubex::parse_server_url("https://127.0.0.1:" + std::to_string(refusing.port()) +
                                          "/k8s/clusters/c-1");
  config.token = "s3cr3t-token";
  BlockingClient connection(config);
  try {
    (void)connection.get("/version");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::connection_refused) << e.what();
    const std::string expected = "GET https://127.0.0.1:" + std::to_string(refusing.port()) +
                                 "/k8s/clusters/c-1/version: connect: ";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0U) << e.what();
    EXPECT_EQ(std::string(e.what()).find("s3cr3t-token"), std::string::npos) << e.what();
  }
  EXPECT_EQ(connection.stats().connections_open, 0U);
  EXPECT_EQ(connection.stats().connections_opened, 0U);
}

TEST(https_test, rejects_malformed_targets) {
  ClientConfig config;
  config.server = kubex::parse_server_url("https://127.0.0.1:1");
  BlockingClient connection(config);
  for (const char* target : {"", "version", "/a b", "/a\r\nX-Evil: 1", "/a\tb", "/\x7f"}) {
    try {
      (void)connection.get(target);
      ADD_FAILURE() << "accepted " << target;
    } catch (const kubex::Error& e) {
      EXPECT_EQ(e.code(), kubex::errc::invalid_path);
    }
  }
  EXPECT_EQ(connection.stats().connections_opened, 0U);  // rejected before connecting
}

TEST(https_test, plain_http_server_url_is_rejected) {
  ClientConfig config;
  config.source = "kubeconfig x";
  config.cluster_name = "c";
  config.server = kubex::parse_server_url("http://127.0.0.1:8080");
  try {
    BlockingClient connection(config);
    FAIL() << "no exception";
  } catch (const kubex::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "kubeconfig x: clusters[c].server: kubex sends credentials over https:// only");
  }
}

TEST(https_test, warning_headers) {
  using kubex::client::parse_warning_header;
  std::vector<std::string> out;
  // As the apiserver writes them (k8s.io/apiserver/pkg/warning), one per header.
  parse_warning_header(R"(299 - "unknown field \"spec.foo\"")", out);
  parse_warning_header(
      R"(299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+")", out);
  // Several values in one header, a warn-date, escapes, other agents and codes.
  parse_warning_header(
      R"(299 - "a, b", 199 proxy.example:8080 "c\\d" "Sat, 01 Jan 2000 00:00:00 GMT",299 - "")",
      out);
  EXPECT_EQ(out, (std::vector<std::string>{
                     R"(unknown field "spec.foo")",
                     "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+", "a, b",
                     R"(c\d)", ""}));
  // Malformed values are skipped, the rest kept; nothing here may crash.
  out.clear();
  parse_warning_header(R"(29 - "short code", 299 - "good", 299 -, 299 - "unterminated)", out);
  EXPECT_EQ(out, (std::vector<std::string>{"good"}));
  for (const char* bad : {"", ",", "\"", "299", "299 ", "299 -", "299 - \"\\", "x, \"y\""}) {
    out.clear();
    parse_warning_header(bad, out);
    EXPECT_TRUE(out.empty()) << bad;
  }
}

}  // namespace
