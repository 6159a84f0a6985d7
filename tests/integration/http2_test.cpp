// SPDX-License-Identifier: Apache-2.0
// HTTP/2 (ClientOptions::http2) against the real kube-apiserver of tools/testenv, which
// negotiates h2 by ALPN as it does for client-go: requests, lists and streams multiplexed on
// one connection (checked against the kernel's socket table), abandoned streams and late
// requests resetting only their own stream, body limits, idle limits, an idle client leaving
// its io_context, identities over h2, and the apiserver going away under open sessions. The
// whole Api<T> suite also runs over HTTP/2 (ctest's h2. tests, KUBEX_TEST_PROTOCOL=http2).

#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/core/error.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/requests.hpp>
#include <kubex/testing/sockets.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::client::BlockingClient;
using kubex::client::Client;
using kubex::client::ClientOptions;
using kubex::client::HttpRequest;
using kubex::client::HttpResponse;
using kubex::testing::sockets_to;
using Clock = std::chrono::steady_clock;

class http2_test : public kubex::testing::TestenvTest {
 protected:
  static ClientOptions h2(ClientOptions options = {}) {
    options.http2 = true;
    return options;
  }
  [[nodiscard]] std::uint16_t port() const { return config().server.port; }

  // Runs `ioc` until it has no work left, failing the test if that takes more than `limit`:
  // a session that kept a read pending while idle would never let run() return.
  static void run_to_completion(asio::io_context& ioc, std::chrono::seconds limit) {
    ioc.run_for(limit);
    EXPECT_TRUE(ioc.stopped()) << "the io_context still had work after " << limit.count() << " s";
  }
};

class http2_disruptive_test : public http2_test {};

using kubex::testing::error_of;
using kubex::testing::get;
using kubex::testing::resource_version_of;

std::string config_map(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"("},"data":{"k":"v"}})";
}

TEST_F(http2_test, requests_lists_and_streams_share_one_connection) {
  const std::string& ns = own_namespace();
  asio::io_context ioc;
  Client client(ioc.get_executor(), config(), h2());
  constexpr int gets = 16;
  int ok = 0;
  unsigned created = 0;
  unsigned watch_status = 0;
  std::string events;
  std::size_t sockets_while_busy = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        // A watch stays open while everything else runs beside it on the same connection.
        auto watch = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=30"),
            asio::use_awaitable);
        watch_status = watch.head().status;
        HttpRequest create;
        create.method = "POST";
        create.target = "/api/v1/namespaces/" + ns + "/configmaps";
        create.body = config_map("h2-a");
        created = (co_await client.async_request(create, asio::use_awaitable)).status;
        while (events.find(R"("name":"h2-a")") == std::string::npos) {
          if (co_await watch.async_read_some(events, asio::use_awaitable) == 0) {
            ADD_FAILURE() << "the watch ended early";
            co_return;
          }
        }
        sockets_while_busy = sockets_to(port()).size();
      },
      asio::detached);
  for (int i = 0; i < gets; ++i) {
    client.async_request(
        get("/api/v1/namespaces/" + ns + "/configmaps"),
        [&](const std::exception_ptr& error, const HttpResponse& response) {
          EXPECT_FALSE(error);
          if (!error && response.status == 200 &&
              response.body.find(R"("kind":"ConfigMapList")") != std::string::npos) {
            ++ok;
          }
        });
  }
  run_to_completion(ioc, std::chrono::seconds(60));
  EXPECT_EQ(ok, gets);
  EXPECT_EQ(created, 201U);
  EXPECT_EQ(watch_status, 200U);
  EXPECT_EQ(sockets_while_busy, 1U);
  const auto stats = client.stats();
  EXPECT_EQ(stats.connections_opened, 1U);
  EXPECT_EQ(stats.http2_streams, static_cast<std::size_t>(gets) + 2);
  EXPECT_EQ(stats.connections_open, 1U);
  // kubectl, a second client, sees what went over HTTP/2.
  EXPECT_EQ(testenv().kubectl("get configmap h2-a -n " + ns + " -o jsonpath={.data.k}"), "v");
}

// The defaults (ClientOptions::http2_for_streams): watches and log follows are streams of one
// HTTP/2 connection, so restarting one opens nothing; every other request keeps HTTP/1.1.
TEST_F(http2_test, by_default_streams_use_http2_and_requests_http1) {
  const std::string& ns = own_namespace();
  wait_for_root_ca();  // its arrival would be the first watch's only event
  BlockingClient client(config());
  auto cms = kubex::client::BlockingApi<corev1::ConfigMap>::namespaced(client, ns);
  const auto list = cms.list();
  const auto rv = list.metadata.resource_version.value_or("");
  ASSERT_FALSE(rv.empty());
  EXPECT_EQ(client.stats().http2_streams, 0U);
  EXPECT_EQ(client.stats().connections_opened, 1U);

  for (int round = 1; round <= 3; ++round) {
    auto watch = cms.watch({.resource_version = rv, .timeout_seconds = 30});
    corev1::ConfigMap cm;
    cm.metadata.name = "mixed-" + std::to_string(round);
    cms.create(cm);  // over HTTP/1.1 while the watch is open on HTTP/2
    for (;;) {
      const auto event = watch.next();
      ASSERT_TRUE(event);
      if (event->object.metadata.name == cm.metadata.name) {
        break;
      }
    }
    EXPECT_EQ(sockets_to(port()).size(), 2U) << "round " << round;
    watch.cancel();  // abandoned: its stream is reset, its connection stays
  }
  const auto stats = client.stats();
  EXPECT_EQ(stats.http2_streams, 3U);
  EXPECT_EQ(stats.connections_opened, 2U);  // one HTTP/1.1, one HTTP/2
  // The HTTP/2 connection resumed the HTTP/1.1 one's TLS session: ALPN differs, the
  // session is the same server's.
  EXPECT_EQ(stats.tls_sessions_resumed, 1U);
  EXPECT_EQ(stats.connections_reused, 5U);  // three creates, the second and third watch
}

// With one connection slot, requests (HTTP/1.1) and streams (HTTP/2) must not wait for each
// other's idle connection: a stream takes an idle HTTP/1.1 connection's slot, and a request
// rides the HTTP/2 connection when it holds the slot.
TEST_F(http2_test, one_connection_slot_serves_requests_and_streams) {
  const std::string& ns = own_namespace();
  asio::io_context ioc;
  ClientOptions options;
  options.max_connections_per_host = 1;
  Client client(ioc.get_executor(), config(), options);
  int rounds = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (int round = 0; round < 2; ++round) {
          const auto list = co_await client.async_request(
              get("/api/v1/namespaces/" + ns + "/configmaps"), asio::use_awaitable);
          EXPECT_EQ(list.status, 200U);
          auto watch = co_await client.async_stream(
              get("/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=30"),
              asio::use_awaitable);
          EXPECT_EQ(watch.head().status, 200U);
          EXPECT_LE(sockets_to(port()).size(), 1U);
          watch.cancel();
          ++rounds;
        }
      },
      asio::detached);
  ioc.run_for(std::chrono::seconds(30));
  EXPECT_EQ(rounds, 2) << "a request or stream waited for a slot an idle connection held";
  const auto stats = client.stats();
  EXPECT_EQ(stats.connections_opened, 2U);  // the first list's, then the first watch's
  EXPECT_EQ(stats.http2_streams, 3U);       // two watches and the second list
}

// make_http1_transport (and http2_for_streams = false) keep streams on HTTP/1.1 too.
TEST_F(http2_test, http1_only_keeps_streams_off_http2) {
  const std::string& ns = own_namespace();
  ClientOptions options;
  options.http2_for_streams = false;
  BlockingClient client(config(), options);
  auto cms = kubex::client::BlockingApi<corev1::ConfigMap>::namespaced(client, ns);
  auto watch = cms.watch({.timeout_seconds = 30});
  watch.cancel();
  (void)cms.list();
  EXPECT_EQ(client.stats().http2_streams, 0U);
  EXPECT_EQ(client.stats().connections_opened, 2U);  // the abandoned watch took its own
}

TEST_F(http2_test, abandoned_streams_reset_only_themselves) {
  const std::string& ns = own_namespace();
  BlockingClient admin(config());
  ASSERT_EQ(
      admin.request("POST", "/api/v1/namespaces/" + ns + "/configmaps", config_map("seen")).status,
      201U);
  asio::io_context ioc;
  Client client(ioc.get_executor(), config(), h2());
  std::vector<std::error_code> outcomes;
  unsigned after = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 5; ++i) {
          // Each watch first lists the existing config map, then would wait for a change.
          auto stream = co_await client.async_stream(
              get("/api/v1/namespaces/" + ns + "/configmaps?watch=1"), asio::use_awaitable);
          std::string data;
          while (data.find(R"("name":"seen")") == std::string::npos) {
            if (co_await stream.async_read_some(data, asio::use_awaitable) == 0) {
              ADD_FAILURE() << "the watch ended early";
              co_return;
            }
          }
          if (i % 2 == 0) {
            stream.cancel();  // a read then fails as cancelled
            auto [error, n] =
                co_await stream.async_read_some(data, asio::as_tuple(asio::use_awaitable));
            outcomes.push_back(error ? error_of(error).code() : std::error_code{});
          }
          // Odd rounds drop the stream by destroying it.
        }
        after = (co_await client.async_request(get("/version"), asio::use_awaitable)).status;
      },
      asio::detached);
  run_to_completion(ioc, std::chrono::seconds(60));
  EXPECT_EQ(after, 200U);
  ASSERT_EQ(outcomes.size(), 3U);
  for (const auto& code : outcomes) {
    EXPECT_EQ(code, std::errc::operation_canceled);
  }
  // Over HTTP/1.1 each abandoned watch would have cost its connection.
  EXPECT_EQ(client.stats().connections_opened, 1U);
  EXPECT_EQ(client.stats().connections_open, 1U);
}

TEST_F(http2_test, a_late_request_resets_its_stream_and_spares_the_others) {
  const std::string& ns = own_namespace();
  asio::io_context ioc;
  ClientOptions options;
  options.timeout = std::chrono::milliseconds(1000);
  Client client(ioc.get_executor(), config(), h2(options));
  std::error_code late_code;
  std::string late_message;
  Clock::duration late_after{};
  int quick = 0;
  const auto start = Clock::now();
  // A watch asked for as a whole response never ends: the request deadline must cut it.
  client.async_request(get("/api/v1/namespaces/" + ns + "/configmaps?watch=1"),
                       [&](const std::exception_ptr& error, const HttpResponse&) {
                         late_after = Clock::now() - start;
                         if (error) {
                           late_code = error_of(error).code();
                           late_message = error_of(error).what();
                         }
                       });
  asio::steady_timer later(ioc, std::chrono::milliseconds(300));
  later.async_wait([&](const boost::system::error_code&) {
    for (int i = 0; i < 3; ++i) {
      client.async_request(get("/version"),
                           [&](const std::exception_ptr& error, const HttpResponse& response) {
                             EXPECT_FALSE(error);
                             quick += response.status == 200 ? 1 : 0;
                           });
    }
  });
  run_to_completion(ioc, std::chrono::seconds(30));
  EXPECT_EQ(late_code, std::errc::timed_out) << late_message;
  EXPECT_NE(late_message.find("timed out after 1000 ms"), std::string::npos) << late_message;
  EXPECT_GE(late_after, std::chrono::milliseconds(950));
  EXPECT_LT(late_after, std::chrono::seconds(5));
  EXPECT_EQ(quick, 3);
  ioc.restart();
  int again = 0;
  client.async_request(get("/version"),
                       [&](const std::exception_ptr& error, const HttpResponse& response) {
                         EXPECT_FALSE(error);
                         again = static_cast<int>(response.status);
                       });
  run_to_completion(ioc, std::chrono::seconds(30));
  EXPECT_EQ(again, 200);
  EXPECT_EQ(client.stats().connections_opened, 1U);
}

TEST_F(http2_test, a_cancellation_signal_resets_the_pending_request) {
  const std::string& ns = own_namespace();
  asio::io_context ioc;
  Client client(ioc.get_executor(), config(), h2());
  asio::cancellation_signal cancel;
  std::exception_ptr error;
  client.async_request(
      get("/api/v1/namespaces/" + ns + "/configmaps?watch=1"),
      asio::bind_cancellation_slot(
          cancel.slot(), [&](const std::exception_ptr& e, const HttpResponse&) { error = e; }));
  asio::steady_timer timer(ioc, std::chrono::milliseconds(200));
  timer.async_wait(
      [&](const boost::system::error_code&) { cancel.emit(asio::cancellation_type::terminal); });
  // Left open, the watch stream would keep the session reading and run() from returning.
  run_to_completion(ioc, std::chrono::seconds(30));
  ASSERT_TRUE(error);
  EXPECT_EQ(error_of(error).code(), std::errc::operation_canceled) << error_of(error).what();
  EXPECT_EQ(client.stats().connections_open, 1U);
}

TEST_F(http2_test, a_body_over_the_limit_fails_and_the_connection_carries_on) {
  const std::string& ns = own_namespace();
  BlockingClient admin(config());
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(admin
                  .request("POST", "/api/v1/namespaces/" + ns + "/configmaps",
                           config_map("big-" + std::to_string(i)))
                  .status,
              201U);
  }
  ClientOptions options;
  options.max_body_size = 1000;
  BlockingClient client(config(), h2(options));
  try {
    (void)client.get("/api/v1/namespaces/" + ns + "/configmaps");
    ADD_FAILURE() << "a list larger than max_body_size was accepted";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::message_size) << e.what();
    EXPECT_NE(std::string(e.what()).find("max_body_size (1000 bytes)"), std::string::npos)
        << e.what();
  }
  // A typed list decodes its items while they arrive, taking them out of the buffer: the
  // limit still counts every byte received.
  try {
    (void)kubex::client::BlockingApi<corev1::ConfigMap>::namespaced(client, ns).list();
    ADD_FAILURE() << "a typed list larger than max_body_size was accepted";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::message_size) << e.what();
  }
  EXPECT_EQ(client.get("/version").status, 200U);
  EXPECT_EQ(client.stats().connections_opened, 1U);
}

TEST_F(http2_test, a_quiet_stream_times_out_with_an_idle_limit) {
  const std::string& ns = own_namespace();
  BlockingClient admin(config());
  const auto list = admin.get("/api/v1/namespaces/" + ns + "/secrets");
  const auto rv = resource_version_of(list.body);
  ASSERT_FALSE(rv.empty()) << list.body;

  asio::io_context ioc;
  ClientOptions options;
  options.stream_idle_timeout = std::chrono::milliseconds(500);
  Client client(ioc.get_executor(), config(), h2(options));
  std::error_code code;
  std::string message;
  Clock::duration waited{};
  unsigned after = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto stream = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/secrets?watch=1&resourceVersion=" + rv),
            asio::use_awaitable);
        std::string data;
        const auto start = Clock::now();
        auto [error, n] =
            co_await stream.async_read_some(data, asio::as_tuple(asio::use_awaitable));
        waited = Clock::now() - start;
        if (error) {
          code = error_of(error).code();
          message = error_of(error).what();
        }
        after = (co_await client.async_request(get("/version"), asio::use_awaitable)).status;
      },
      asio::detached);
  run_to_completion(ioc, std::chrono::seconds(30));
  EXPECT_EQ(code, std::errc::timed_out) << message;
  EXPECT_NE(message.find("no data for 500 ms"), std::string::npos) << message;
  EXPECT_GE(waited, std::chrono::milliseconds(450));
  EXPECT_LT(waited, std::chrono::seconds(5));
  EXPECT_EQ(after, 200U);
  EXPECT_EQ(client.stats().connections_opened, 1U);  // the idle limit reset one stream only
}

// The health check against a live server: a watch quiet for several read-idle periods is
// pinged, kube-apiserver answers, and the watch goes on to deliver the next event.
TEST_F(http2_test, a_quiet_watch_survives_health_checks_the_server_answers) {
  const std::string& ns = own_namespace();
  wait_for_root_ca();
  BlockingClient admin(config());
  const auto list = admin.get("/api/v1/namespaces/" + ns + "/configmaps");
  const auto rv = resource_version_of(list.body);
  ASSERT_FALSE(rv.empty()) << list.body;

  asio::io_context ioc;
  ClientOptions options;
  options.http2_read_idle_timeout = std::chrono::milliseconds(200);
  options.http2_ping_timeout = std::chrono::milliseconds(1000);
  Client client(ioc.get_executor(), config(), h2(options));
  std::string events;
  std::exception_ptr failure;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto stream = co_await client.async_stream(
            get("/api/v1/namespaces/" + ns + "/configmaps?watch=1&resourceVersion=" + rv),
            asio::use_awaitable);
        asio::steady_timer quiet(ioc, std::chrono::milliseconds(1500));
        quiet.async_wait([&](const boost::system::error_code&) {
          EXPECT_EQ(admin
                        .request("POST", "/api/v1/namespaces/" + ns + "/configmaps",
                                 config_map("after-pings"))
                        .status,
                    201U);
        });
        while (events.find(R"("name":"after-pings")") == std::string::npos) {
          if (co_await stream.async_read_some(events, asio::use_awaitable) == 0) {
            ADD_FAILURE() << "the watch ended early";
            co_return;
          }
        }
      },
      [&](const std::exception_ptr& e) { failure = e; });
  run_to_completion(ioc, std::chrono::seconds(30));
  EXPECT_FALSE(failure) << (failure ? error_of(failure).what() : "");
  EXPECT_NE(events.find(R"("name":"after-pings")"), std::string::npos) << events;
  EXPECT_EQ(client.stats().connections_opened, 1U);
}

TEST_F(http2_test, identities_travel_over_http2) {
  BlockingClient token(config(), h2());
  BlockingClient certificate(config("admin-cert"), h2());
  BlockingClient user(config("user"), h2());
  EXPECT_EQ(kubex::testing::whoami(token), "kubex-admin");
  EXPECT_EQ(kubex::testing::whoami(certificate), "kubex-admin-cert");
  EXPECT_EQ(kubex::testing::whoami(user), "kubex-user");
  EXPECT_EQ(user.get("/api/v1/namespaces/kube-system/secrets").status, 403U);
  for (auto* c : {&token, &certificate, &user}) {
    EXPECT_EQ(c->stats().connections_opened, 1U);
    EXPECT_GE(c->stats().http2_streams, 1U);
  }
}

// The apiserver going away under an idle session (TERM: Go's server sends GOAWAY and closes
// its connections). The next request must find a new connection by itself. One restart only:
// the controller-manager's informers back off after each, and later tests wait for it to
// publish kube-root-ca.crt (a killed apiserver is https_test's disruptive case).
TEST_F(http2_disruptive_test, requests_survive_the_apiserver_going_away) {
  BlockingClient client(config(), h2());
  ASSERT_EQ(client.get("/version").status, 200U);
  testenv().restart_apiserver("TERM");
  EXPECT_EQ(client.get("/api/v1/namespaces/default").status, 200U);
  EXPECT_EQ(client.get("/api/v1/namespaces/kube-system").status, 200U);
  EXPECT_EQ(client.stats().connections_opened, 2U);
  EXPECT_EQ(client.stats().connections_open, 1U);
  // Leave the control plane settled for the tests that follow.
  wait_for_root_ca();
}

}  // namespace
