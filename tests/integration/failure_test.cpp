// SPDX-License-Identifier: Apache-2.0
// kubex::Failure on what the real apiserver and a real network answer: each failure the
// runtime will have to tell apart (give up, retry, stop) arrives through the handler as an
// exception pointer and is classified without a catch block. kubectl makes the objects, so
// the conflicts are the server's own.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <arpa/inet.h>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <string>
#include <system_error>
#include <thread>

namespace {

namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::Failure;
using kubex::failure_kind;
using kubex::client::Api;
using kubex::client::BlockingClient;
using namespace std::chrono_literals;

// The exception pointer the operation `start(handler)` completes with: a plain callback,
// the token a runtime's own loop would pass (Boost 1.81's as_tuple does not compose with
// use_future), run to completion by `client`.
template <class Start>
std::exception_ptr error_of(BlockingClient& client, Start&& start) {
  std::promise<std::exception_ptr> done;
  auto error = done.get_future();
  start([&done](std::exception_ptr e, auto&&... /*result*/) { done.set_value(std::move(e)); });
  return client.wait(std::move(error));
}

// A loopback port nothing listens on: one the kernel handed out, closed again.
std::uint16_t unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ADD_FAILURE() << "no loopback port";
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

corev1::ConfigMap config_map(const std::string& name) {
  corev1::ConfigMap cm;
  cm.metadata.name = name;
  cm.data = {{"k", "v"}};
  return cm;
}

class failure_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ns_ = own_namespace();
  }

  // The failure `call(api, handler)` completes with, through a client for `cfg`.
  template <class Call>
  Failure failure_of(const kubex::client::ClientConfig& cfg, Call&& call) {
    BlockingClient client(cfg);
    auto api = Api<corev1::ConfigMap>::namespaced(client.async_client(), ns_);
    return Failure(error_of(client, [&](auto handler) { call(api, std::move(handler)); }));
  }
  template <class Call>
  Failure failure_of(Call&& call) {
    return failure_of(config(), std::forward<Call>(call));
  }

  std::string ns_;
};

TEST_F(failure_test, answers_that_do_not_change_on_retry) {
  testenv().kubectl("-n " + ns_ + " create configmap taken --from-literal=k=v");

  const Failure missing =
      failure_of([](auto& api, auto h) { api.async_get("missing", std::move(h)); });
  EXPECT_EQ(missing.kind(), failure_kind::api) << missing.message();
  EXPECT_EQ(missing.http_status(), 404U);
  ASSERT_NE(missing.api_error(), nullptr);
  EXPECT_TRUE(kubex::is_not_found(*missing.api_error()));
  EXPECT_FALSE(missing.retryable());
  EXPECT_FALSE(missing.gone());

  const Failure exists = failure_of(
      [](auto& api, auto h) { api.async_create(config_map("taken"), {}, std::move(h)); });
  EXPECT_EQ(exists.http_status(), 409U) << exists.message();
  ASSERT_NE(exists.api_error(), nullptr);
  EXPECT_TRUE(kubex::is_already_exists(*exists.api_error()));
  EXPECT_FALSE(exists.retryable());

  const Failure stale = failure_of([](auto& api, auto h) {
    auto cm = config_map("taken");
    cm.metadata.resource_version = "1";  // long gone: the server's copy is newer
    api.async_replace(cm, {}, std::move(h));
  });
  EXPECT_EQ(stale.http_status(), 409U) << stale.message();
  ASSERT_NE(stale.api_error(), nullptr);
  EXPECT_TRUE(kubex::is_conflict(*stale.api_error()));
  EXPECT_FALSE(stale.retryable());

  const Failure invalid = failure_of(
      [](auto& api, auto h) { api.async_create(config_map("Not_A_DNS_Name"), {}, std::move(h)); });
  EXPECT_EQ(invalid.http_status(), 422U) << invalid.message();
  ASSERT_NE(invalid.api_error(), nullptr);
  EXPECT_TRUE(kubex::is_invalid(*invalid.api_error()));
  EXPECT_FALSE(invalid.retryable());

  // kubex-user may read only its own namespace.
  const Failure forbidden =
      failure_of(config("user"), [](auto& api, auto h) { api.async_get("taken", std::move(h)); });
  EXPECT_EQ(forbidden.http_status(), 403U) << forbidden.message();
  EXPECT_FALSE(forbidden.retryable());
}

TEST_F(failure_test, a_bad_argument_is_reported_before_anything_is_sent) {
  const Failure nameless = failure_of(
      [](auto& api, auto h) { api.async_replace(corev1::ConfigMap{}, {}, std::move(h)); });
  EXPECT_EQ(nameless.kind(), failure_kind::invalid_argument) << nameless.message();
  EXPECT_FALSE(nameless.retryable());
}

TEST_F(failure_test, a_refused_connection_is_a_transport_failure_worth_retrying) {
  auto cfg = config();
  cfg.server.port = unused_port();
  kubex::client::ClientOptions options;
  options.retry.max_transport_retries = 0;  // the failure itself, not the retries' outcome
  BlockingClient client(cfg, options);
  auto api = Api<corev1::ConfigMap>::namespaced(client.async_client(), ns_);
  const Failure refused(error_of(client, [&](auto h) { api.async_get("x", std::move(h)); }));
  EXPECT_EQ(refused.kind(), failure_kind::transport) << refused.message();
  EXPECT_EQ(refused.code(), std::errc::connection_refused) << refused.message();
  EXPECT_TRUE(refused.retryable());
  EXPECT_EQ(refused.http_status(), 0U);
}

TEST_F(failure_test, a_certificate_for_another_name_is_a_transport_failure_not_retried) {
  auto cfg = config();
  cfg.tls_server_name = "not-the-apiserver.example";  // not among the certificate's names
  const Failure tls = failure_of(cfg, [](auto& api, auto h) { api.async_get("x", std::move(h)); });
  EXPECT_EQ(tls.kind(), failure_kind::transport) << tls.message();
  EXPECT_EQ(tls.code(), kubex::errc::tls_verification_failed) << tls.message();
  EXPECT_FALSE(tls.retryable());
}

TEST_F(failure_test, a_cancelled_watch_says_stop) {
  BlockingClient client(config());
  auto api = Api<corev1::ConfigMap>::namespaced(client.async_client(), ns_);
  auto watch = client.wait(api.async_watch({}, boost::asio::use_future));
  std::thread canceller([&watch] {
    std::this_thread::sleep_for(200ms);
    watch.cancel();
  });
  // Events of the namespace's own config map may come first; the cancellation ends the loop.
  Failure ended;
  for (int i = 0; i < 100 && !ended; ++i) {
    bool end = false;
    ended = Failure(error_of(client, [&](auto h) {
      watch.async_next([&end, h = std::move(h)](std::exception_ptr e, auto event) mutable {
        end = !e && !event;
        h(std::move(e));
      });
    }));
    if (end) {
      break;  // the server ended the watch: fails below
    }
  }
  canceller.join();
  EXPECT_EQ(ended.kind(), failure_kind::canceled) << ended.message();
  EXPECT_TRUE(ended.canceled());
  EXPECT_FALSE(ended.retryable());
}

}  // namespace
