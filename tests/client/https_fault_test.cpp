// BasicHttpsConnection against FaultServer, a scripted loopback server that exists ONLY for
// faults the real kube-apiserver cannot be made to produce: a server that accepts a request
// and never answers, one that ends every HTTP/1.1 exchange with `Connection: close`, and one
// that speaks plain HTTP. Ordinary behaviour (authentication, keep-alive, chunked bodies, error
// statuses, TLS verification, retry after the server closed an idle connection) is tested
// against the real apiserver in tests/integration/. These tests carry the ctest label `fault`
// and need no testenv.

#include <kubex/client/https.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/fault_server.hpp>
#include <kubex/testing/pki.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace {

using kubex::client::BasicHttpsConnection;
using kubex::client::ClientConfig;
using kubex::client::ConnectionOptions;
using kubex::testing::Fault;
using kubex::testing::FaultServer;

struct Pki {
  kubex::testing::TestCa ca{"kubex-fault-ca"};
  kubex::testing::KeyPair server =
      ca.issue({.common_name = "fault-server", .ip_addresses = {"127.0.0.1"}});
};

class https_fault_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pki_ = std::make_unique<Pki>(); }
  static void TearDownTestSuite() { pki_.reset(); }

  static std::unique_ptr<FaultServer> start(Fault fault) {
    return std::make_unique<FaultServer>(fault, pki_->server);
  }

  static ClientConfig config_for(const FaultServer& server) {
    ClientConfig config;
    config.source = "test";
    config.cluster_name = "fault";
    config.server = kubex::parse_server_url("https://127.0.0.1:" + std::to_string(server.port()));
    config.certificate_authority_pem = pki_->ca.certificate_pem();
    config.token = "s3cr3t-token";
    return config;
  }

 private:
  static std::unique_ptr<Pki> pki_;
};

std::unique_ptr<Pki> https_fault_test::pki_;

// The apiserver always answers or ends a request itself, so only a stalled server shows that
// the client's own deadline works.
TEST_F(https_fault_test, stalled_server_times_out) {
  const auto server = start(Fault::stall);
  BasicHttpsConnection connection(config_for(*server),
                                  ConnectionOptions{.timeout = std::chrono::milliseconds(300)});
  const auto start_time = std::chrono::steady_clock::now();
  try {
    (void)connection.get("/hang");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::timed_out) << e.what();
    EXPECT_NE(std::string(e.what()).find("timed out after 300 ms"), std::string::npos) << e.what();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start_time;
  EXPECT_GE(elapsed, std::chrono::milliseconds(250));
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  EXPECT_FALSE(connection.is_open());
  EXPECT_EQ(server->request_targets(), std::vector<std::string>{"/hang"});
}

// The apiserver sends `Connection: close` only while it shuts down, which cannot be timed
// against a request.
TEST_F(https_fault_test, connection_close_is_honoured_and_the_next_get_reconnects) {
  const auto server = start(Fault::close_after_reply);
  BasicHttpsConnection connection(config_for(*server));
  const auto first = connection.get("/a");
  EXPECT_EQ(first.status, 200U);
  EXPECT_EQ(first.body, "/a");
  EXPECT_FALSE(connection.is_open());
  const auto second = connection.get("/b");
  EXPECT_EQ(second.status, 200U);
  EXPECT_EQ(second.body, "/b");
  EXPECT_EQ(connection.connection_count(), 2U);
  EXPECT_EQ(server->connections(), 2U);
  EXPECT_EQ(server->request_targets(), (std::vector<std::string>{"/a", "/b"}));
}

// The apiserver serves TLS only. A server that answers the TLS ClientHello in plain HTTP must
// fail the handshake, and the request (with its token) must never be sent.
TEST_F(https_fault_test, plain_http_server_fails_the_tls_handshake) {
  const auto server = start(Fault::plain_http);
  BasicHttpsConnection connection(config_for(*server));
  try {
    (void)connection.get("/version");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_NE(e.code(), kubex::errc::tls_verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("TLS handshake"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("s3cr3t-token"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(connection.is_open());
  EXPECT_EQ(connection.connection_count(), 0U);
  EXPECT_EQ(server->connections(), 1U);
  EXPECT_TRUE(server->request_targets().empty());
}

}  // namespace
