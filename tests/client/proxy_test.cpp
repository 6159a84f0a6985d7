// SPDX-License-Identifier: Apache-2.0
// Proxy selection and NO_PROXY matching (pure logic); tunnelling through real proxies is in
// tests/integration/proxy_test.cpp.

#include <kubex/client/proxy.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using kubex::client::ClientConfig;
using kubex::client::ClientOptions;
using kubex::client::no_proxy_matches;
using kubex::client::parse_proxy_url;
using kubex::client::select_proxy;

std::string parse_error(const std::string& url) {
  try {
    (void)parse_proxy_url(url, "test");
  } catch (const kubex::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(proxy, urls_are_parsed) {
  auto p = parse_proxy_url("http://proxy.corp:3128", "x");
  EXPECT_EQ(p.scheme, "http");
  EXPECT_EQ(p.host, "proxy.corp");
  EXPECT_EQ(p.port, 3128);
  EXPECT_TRUE(p.username.empty());

  p = parse_proxy_url("proxy.corp:8080", "x");  // Go reads a bare host:port as http
  EXPECT_EQ(p.scheme, "http");
  EXPECT_EQ(p.port, 8080);

  p = parse_proxy_url("HTTP://user%40corp:p%3Ass@[fd00::1]/", "x");
  EXPECT_EQ(p.scheme, "http");
  EXPECT_EQ(p.host, "fd00::1");
  EXPECT_EQ(p.port, 80);
  EXPECT_EQ(p.username, "user@corp");
  EXPECT_EQ(p.password, "p:ss");

  p = parse_proxy_url("socks5h://10.0.0.1", "x");
  EXPECT_EQ(p.scheme, "socks5");
  EXPECT_EQ(p.port, 1080);
}

TEST(proxy, bad_urls_are_refused_without_their_credentials) {
  EXPECT_NE(parse_error("https://u:hunter2@proxy:443").find("https:// proxies are not supported"),
            std::string::npos);
  EXPECT_EQ(parse_error("https://u:hunter2@proxy:443").find("hunter2"), std::string::npos);
  EXPECT_NE(parse_error("ftp://proxy").find("scheme must be http or socks5"), std::string::npos);
  EXPECT_NE(parse_error("http://proxy:0").find("port must be"), std::string::npos);
  EXPECT_NE(parse_error("http://proxy:99999").find("port must be"), std::string::npos);
  EXPECT_NE(parse_error("http://proxy/path").find("no path"), std::string::npos);
  EXPECT_NE(parse_error("http://").find("host"), std::string::npos);
  EXPECT_NE(parse_error("http://u:%zz@proxy").find("percent-encoding"), std::string::npos);
  EXPECT_EQ(parse_error("http://u:%zz@proxy").find("%zz"), std::string::npos);
}

TEST(proxy, no_proxy_follows_go) {
  EXPECT_TRUE(no_proxy_matches("*", "anything", 443));
  EXPECT_TRUE(no_proxy_matches("example.com", "example.com", 443));
  EXPECT_TRUE(no_proxy_matches("example.com", "api.example.com", 443));
  EXPECT_FALSE(no_proxy_matches("example.com", "notexample.com", 443));
  EXPECT_TRUE(no_proxy_matches(".example.com", "api.example.com", 443));
  EXPECT_FALSE(no_proxy_matches(".example.com", "example.com", 443));
  EXPECT_TRUE(no_proxy_matches("*.example.com", "a.example.com", 443));
  EXPECT_TRUE(no_proxy_matches(" other.org , EXAMPLE.com ", "Example.COM", 443));
  EXPECT_TRUE(no_proxy_matches("example.com:6443", "example.com", 6443));
  EXPECT_FALSE(no_proxy_matches("example.com:6443", "example.com", 443));
  EXPECT_TRUE(no_proxy_matches("10.0.0.0/8", "10.1.2.3", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "11.1.2.3", 443));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "ten.example", 443));
  EXPECT_TRUE(no_proxy_matches("192.168.1.5", "192.168.1.5", 443));
  EXPECT_TRUE(no_proxy_matches("fd00::/8", "fd12::1", 443));
  EXPECT_FALSE(no_proxy_matches("fd00::/8", "fe80::1", 443));
  EXPECT_TRUE(no_proxy_matches("[fd00::1]:443", "fd00::1", 443));
  EXPECT_TRUE(no_proxy_matches("fd00::1", "[fd00::1]", 443));
  EXPECT_FALSE(no_proxy_matches("", "example.com", 443));
  EXPECT_FALSE(no_proxy_matches(",,", "example.com", 443));
}

class select_proxy_test : public ::testing::Test {
 protected:
  ClientConfig config_for(const std::string& server) {
    ClientConfig config;
    config.source = "kubeconfig test";
    config.cluster_name = "c";
    config.server = kubex::parse_server_url(server);
    return config;
  }
  kubex::client::EnvLookup env() {
    return [this](const char* name) -> const char* {
      const auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
  }
  std::map<std::string, std::string> env_;
};

TEST_F(select_proxy_test, environment_is_used_unless_excluded) {
  const auto config = config_for("https://api.example.com:6443");
  ClientOptions options;
  EXPECT_FALSE(select_proxy(config, options, env()));
  env_["https_proxy"] = "http://lower:1";
  EXPECT_EQ(select_proxy(config, options, env())->host, "lower");
  env_["HTTPS_PROXY"] = "http://upper:2";
  EXPECT_EQ(select_proxy(config, options, env())->host, "upper");
  EXPECT_EQ(select_proxy(config, options, env())->source, "HTTPS_PROXY");
  env_["HTTP_PROXY"] = "http://plain:3";  // for http:// servers only
  EXPECT_EQ(select_proxy(config, options, env())->host, "upper");
  env_["no_proxy"] = ".example.com";
  EXPECT_FALSE(select_proxy(config, options, env()));
  env_["NO_PROXY"] = "other.org";  // upper case wins
  EXPECT_TRUE(select_proxy(config, options, env()));
  options.trust_env = false;
  EXPECT_FALSE(select_proxy(config, options, env()));
}

TEST_F(select_proxy_test, loopback_is_never_proxied_from_the_environment) {
  env_["HTTPS_PROXY"] = "http://proxy:3128";
  EXPECT_FALSE(select_proxy(config_for("https://127.0.0.1:6443"), {}, env()));
  EXPECT_FALSE(select_proxy(config_for("https://127.3.4.5:6443"), {}, env()));
  EXPECT_FALSE(select_proxy(config_for("https://[::1]:6443"), {}, env()));
  EXPECT_FALSE(select_proxy(config_for("https://LocalHost:6443"), {}, env()));
  EXPECT_TRUE(select_proxy(config_for("https://10.0.0.1:6443"), {}, env()));
}

TEST_F(select_proxy_test, explicit_settings_win) {
  env_["HTTPS_PROXY"] = "http://env:1";
  auto config = config_for("https://127.0.0.1:6443");
  config.proxy_url = "socks5://kubeconfig:2";
  const auto from_kubeconfig = select_proxy(config, {}, env());
  ASSERT_TRUE(from_kubeconfig);  // explicit proxies apply to loopback too
  EXPECT_EQ(from_kubeconfig->host, "kubeconfig");
  EXPECT_EQ(from_kubeconfig->scheme, "socks5");
  EXPECT_EQ(from_kubeconfig->source, "kubeconfig test: clusters[c].proxy-url");

  ClientOptions options;
  options.proxy = "http://option:3";
  EXPECT_EQ(select_proxy(config, options, env())->host, "option");
  options.proxy = "direct";
  EXPECT_FALSE(select_proxy(config, options, env()));
}

}  // namespace
