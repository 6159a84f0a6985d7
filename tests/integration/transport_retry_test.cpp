// SPDX-License-Identifier: Apache-2.0
// Reads that meet a transport failure (RetryPolicy::max_transport_retries), against the real
// apiserver through TcpProxy, which resets connections and refuses new ones on demand: an
// apiserver restarting or a load balancer failing over, at a moment of the test's choosing.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/testing/tcp_proxy.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using kubex::client::BlockingClient;
using kubex::client::ClientOptions;
using kubex::testing::TcpProxy;
using namespace std::chrono_literals;

class transport_retry_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    admin_ = config("admin");
    proxy_ = std::make_unique<TcpProxy>(admin_.server.host, admin_.server.port);
  }

  // The admin configuration, through the proxy (the apiserver's certificate names 127.0.0.1).
  [[nodiscard]] kubex::client::ClientConfig through_proxy() const {
    auto cfg = admin_;
    cfg.server.port = proxy_->port();
    return cfg;
  }

  // GETs in a loop for `duration` while the proxy resets every connection and refuses new
  // ones for half a second; every GET must succeed, and some must have been retried.
  void reads_ride_out_an_outage(ClientOptions options) {
    BlockingClient client(through_proxy(), options);
    ASSERT_EQ(client.get("/api/v1/namespaces/default").status, 200U);  // connected
    std::atomic<bool> done{false};
    std::thread disruptor([&] {
      std::this_thread::sleep_for(300ms);
      proxy_->disrupt(500ms);
      std::this_thread::sleep_for(300ms);
      done = true;
    });
    int reads = 0;
    std::string failure;
    while (!done) {
      try {
        const auto r = client.get("/api/v1/namespaces/default");
        if (r.status != 200) {
          failure = "status " + std::to_string(r.status);
          break;
        }
        ++reads;
      } catch (const kubex::Error& e) {
        failure = e.what();
        break;
      }
    }
    disruptor.join();
    EXPECT_EQ(failure, "") << "after " << reads << " reads";
    EXPECT_GT(reads, 3);
    EXPECT_GT(client.stats().retries, 0U) << "the outage was never met";
    EXPECT_GE(proxy_->connections_accepted(), 2U) << "no new connection after the outage";
  }

  kubex::client::ClientConfig admin_;
  std::unique_ptr<TcpProxy> proxy_;
};

TEST_F(transport_retry_test, reads_ride_out_resets_and_refusals_over_http1) {
  ClientOptions options;
  options.http2 = false;
  reads_ride_out_an_outage(options);
}

TEST_F(transport_retry_test, reads_ride_out_resets_and_refusals_over_http2) {
  ClientOptions options;
  options.http2 = true;
  reads_ride_out_an_outage(options);
}

TEST_F(transport_retry_test, reads_fail_when_retries_are_off) {
  ClientOptions options;
  options.http2 = false;
  options.retry.max_transport_retries = 0;
  BlockingClient client(through_proxy(), options);
  std::thread disruptor([&] { proxy_->disrupt(2s); });
  std::this_thread::sleep_for(500ms);  // refusing by now: disrupt() stops listening first
  try {
    (void)client.get("/api/v1/namespaces/default");
    ADD_FAILURE() << "a refused connection succeeded";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GET https://127.0.0.1:" + std::to_string(proxy_->port()) +
                                         "/api/v1/namespaces/default: connect"),
              std::string::npos)
        << e.what();
  }
  disruptor.join();
}

TEST_F(transport_retry_test, a_write_in_flight_fails_and_is_not_sent_again) {
  const std::string ns = own_namespace();
  ClientOptions options;
  options.http2 = false;
  BlockingClient client(through_proxy(), options);
  ASSERT_EQ(client.get("/api/v1/namespaces/" + ns).status, 200U);  // the connection is pooled
  proxy_->reset_after_next_request();
  const std::string body =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"once-",)"
      R"("labels":{"kubex-test":"write-once"}},"data":{"a":"b"}})";
  try {
    const auto r = client.request("POST", "/api/v1/namespaces/" + ns + "/configmaps", body);
    ADD_FAILURE() << "the POST got an answer through a reset connection: " << r.status;
  } catch (const kubex::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("POST https://127.0.0.1:" + std::to_string(proxy_->port()) +
                           "/api/v1/namespaces/" + ns + "/configmaps: "),
              std::string::npos)
        << message;
  }
  // The server got the POST once; a retry would have made a second ConfigMap.
  const std::string names = testenv().kubectl(
      "-n " + ns +
      " get configmaps -l kubex-test=write-once -o jsonpath={.items[*].metadata.name}");
  EXPECT_EQ(std::count(names.begin(), names.end(), ' '), 0) << names;
  EXPECT_EQ(names.rfind("once-", 0), 0U) << names;
  // And the client carries on.
  EXPECT_EQ(client.get("/api/v1/namespaces/" + ns).status, 200U);
}

}  // namespace
