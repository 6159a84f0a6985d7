// SPDX-License-Identifier: Apache-2.0
// The kubeconfig `auth-provider: oidc` against the real kube-apiserver of tools/testenv and a
// small local issuer (kubex/testing/oidc_issuer.hpp: discovery and a refresh-token endpoint).
// The issuer hands out service account tokens minted by kubectl, which the real apiserver
// authenticates, so a refreshed id-token is proven good by the server itself.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/testing/oidc_issuer.hpp>
#include <kubex/testing/pki.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace {

using kubex::client::BlockingClient;
using kubex::testing::base64_encode;
using kubex::testing::OidcIssuer;
using kubex::testing::whoami;

// A JWT with the given claims and a signature nobody accepts.
std::string unsigned_jwt(const std::string& claims) {
  const auto url = [](std::string b64) {
    for (auto& c : b64) {
      c = c == '+' ? '-' : c == '/' ? '_' : c;
    }
    while (!b64.empty() && b64.back() == '=') {
      b64.pop_back();
    }
    return b64;
  };
  return url(base64_encode(R"({"alg":"RS256","kid":"nope"})")) + "." + url(base64_encode(claims)) +
         ".c2lnbmF0dXJl";
}

constexpr const char* client_secret = "s3cr:et/+&";

class oidc_testenv_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    ns_ = own_namespace();
    (void)testenv().kubectl("create serviceaccount oidc-user -n " + ns_);
    sa_token_ = testenv().create_token("oidc-user", ns_);
    issuer_ = std::make_unique<OidcIssuer>(certificate_, "kubex", client_secret);
  }

  // A kubeconfig for the testenv server whose user is the oidc auth provider.
  kubex::client::ClientConfig load(const std::string& id_token, const std::string& refresh) {
    const auto admin = config("admin");
    const std::string yaml =
        "apiVersion: v1\nkind: Config\ncurrent-context: oidc\n"
        "clusters:\n- name: testenv\n  cluster:\n    server: https://127.0.0.1:" +
        std::to_string(admin.server.port) +
        "\n    certificate-authority-data: " + base64_encode(admin.certificate_authority_pem) +
        "\ncontexts:\n- name: oidc\n  context: {cluster: testenv, user: oidc}\n"
        "users:\n- name: oidc\n  user:\n    auth-provider:\n      name: oidc\n      config:\n"
        "        client-id: kubex\n        client-secret: '" +
        client_secret + "'\n        id-token: " + id_token + "\n        refresh-token: " + refresh +
        "\n        idp-issuer-url: " + issuer_->issuer_url() +
        "\n        idp-certificate-authority-data: " + base64_encode(ca_.certificate_pem()) + "\n";
    return kubex::client::load_kubeconfig(dir_.write("kubeconfig", yaml));
  }

  [[nodiscard]] std::string service_account() const {
    return "system:serviceaccount:" + ns_ + ":oidc-user";
  }

  kubex::testing::TestCa ca_{"kubex-oidc-ca"};
  kubex::testing::KeyPair certificate_ =
      ca_.issue({.common_name = "issuer", .ip_addresses = {"127.0.0.1"}});
  kubex::testing::TempDir dir_;
  std::string ns_;
  std::string sa_token_;
  std::unique_ptr<OidcIssuer> issuer_;
};

TEST_F(oidc_testenv_test, expired_id_token_is_refreshed_before_the_request) {
  issuer_->expect("refresh-1", sa_token_, "refresh-2");
  BlockingClient client(load(unsigned_jwt(R"({"exp":1000000000})"), "refresh-1"));
  EXPECT_EQ(whoami(client), service_account());
  EXPECT_EQ(issuer_->refreshes(), 1U);
  EXPECT_EQ(issuer_->requests(),
            (std::vector<std::string>{"GET /.well-known/openid-configuration", "POST /token"}));
  // The new id-token (exp in ten minutes) is used until it expires; the rotated refresh token
  // is kept in memory.
  EXPECT_EQ(whoami(client), service_account());
  EXPECT_EQ(issuer_->refreshes(), 1U);
  EXPECT_EQ(client.stats().oidc_refreshes, 1U);
  EXPECT_EQ(client.config().oidc->refresh_token, "refresh-2");
}

TEST_F(oidc_testenv_test, rejected_id_token_is_refreshed_once_after_401) {
  // Not expired by its own claims, but the server cannot verify it: 401, refresh, retry.
  issuer_->expect("refresh-1", sa_token_, "refresh-2");
  BlockingClient client(load(unsigned_jwt(R"({"exp":4102444800})"), "refresh-1"));
  EXPECT_EQ(whoami(client), service_account());
  EXPECT_EQ(issuer_->refreshes(), 1U);
  EXPECT_EQ(client.stats().oidc_refreshes, 1U);
}

TEST_F(oidc_testenv_test, issuer_refusal_is_an_error_without_secrets) {
  issuer_->expect("refresh-1", sa_token_, "refresh-2");
  const auto expired = unsigned_jwt(R"({"exp":1000000000})");
  BlockingClient client(load(expired, "stale-refresh-token"));
  try {
    (void)client.get("/version");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), std::errc::permission_denied) << message;
    EXPECT_NE(message.find("answered 400 invalid_grant: refresh token is invalid"),
              std::string::npos)
        << message;
    for (const std::string& secret :
         {std::string("stale-refresh-token"), expired, std::string(client_secret), sa_token_}) {
      EXPECT_EQ(message.find(secret), std::string::npos) << message;
    }
  }
  EXPECT_EQ(issuer_->refreshes(), 0U);
}

TEST_F(oidc_testenv_test, expired_id_token_without_refresh_token_is_an_error) {
  auto cfg = load(unsigned_jwt(R"({"exp":1000000000})"), "x");
  cfg.oidc->refresh_token.clear();
  BlockingClient client(cfg);
  try {
    (void)client.get("/version");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("expired and there is no refresh-token"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(issuer_->requests().empty());
}

}  // namespace
