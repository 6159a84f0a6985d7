// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using kubex::parse_server_url;

TEST(url_test, https_with_ip_and_port) {
  const auto url = parse_server_url("https://127.0.0.1:6443");
  EXPECT_EQ(url.scheme, "https");
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 6443);
  EXPECT_EQ(url.base_path, "");
  EXPECT_FALSE(url.is_ipv6());
  EXPECT_EQ(url.authority(), "127.0.0.1:6443");
}

TEST(url_test, default_ports_and_case) {
  const auto https = parse_server_url("HTTPS://Kubernetes.Default.svc");
  EXPECT_EQ(https.scheme, "https");
  EXPECT_EQ(https.host, "Kubernetes.Default.svc");
  EXPECT_EQ(https.port, 443);
  EXPECT_EQ(https.authority(), "Kubernetes.Default.svc");

  const auto http = parse_server_url("http://localhost");
  EXPECT_EQ(http.port, 80);
}

TEST(url_test, ipv6_literal) {
  const auto url = parse_server_url("https://[::1]:6443/");
  EXPECT_EQ(url.host, "::1");
  EXPECT_TRUE(url.is_ipv6());
  EXPECT_EQ(url.port, 6443);
  EXPECT_EQ(url.base_path, "");
  EXPECT_EQ(url.authority(), "[::1]:6443");
}

TEST(url_test, base_path_without_trailing_slash) {
  const auto url = parse_server_url("https://rancher.example.com/k8s/clusters/c-1/");
  EXPECT_EQ(url.host, "rancher.example.com");
  EXPECT_EQ(url.base_path, "/k8s/clusters/c-1");
}

std::string url_error(const std::string& text) {
  try {
    (void)parse_server_url(text);
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_url);
    return e.what();
  }
  return {};
}

TEST(url_test, rejects_malformed_urls) {
  EXPECT_EQ(url_error("127.0.0.1:6443"), "missing scheme; expected https://host[:port]");
  EXPECT_EQ(url_error("ftp://host"), "unsupported scheme \"ftp\"; expected https or http");
  EXPECT_EQ(url_error("https://"), "missing host");
  EXPECT_EQ(url_error("https://:6443"), "missing host");
  EXPECT_EQ(url_error("https://host:"), "empty port");
  EXPECT_EQ(url_error("https://host:0"), "invalid port");
  EXPECT_EQ(url_error("https://host:65536"), "invalid port");
  EXPECT_EQ(url_error("https://host:64x"), "invalid port");
  EXPECT_EQ(url_error("https://[::1"), "unterminated IPv6 address");
  EXPECT_EQ(url_error("https://[zz]:1"), "invalid IPv6 address");
  EXPECT_EQ(url_error("https://host?x=1"), "queries and fragments are not supported");
  EXPECT_EQ(url_error("https://host/a#b"), "queries and fragments are not supported");
  EXPECT_EQ(url_error("https://ho st"), "invalid character in host name");
}

TEST(url_test, user_information_is_rejected_without_echo) {
  const auto message = url_error("https://admin:hunter2@host:6443");
  EXPECT_EQ(message, "user information in the URL is not supported");
  EXPECT_EQ(message.find("hunter2"), std::string::npos);
}

}  // namespace
