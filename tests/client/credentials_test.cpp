// SPDX-License-Identifier: Apache-2.0
// detail::Credentials alone, on an io_context of the test: token files, basic auth, and exec
// plugins, which are real processes (small shell scripts, as cloud CLIs are in real
// kubeconfigs). The transport's use of them against the real apiserver is in
// tests/integration/credentials_test.cpp.
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/temp_dir.hpp>

#include "detail/credentials.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using kubex::client::ClientConfig;
using kubex::client::ExecConfig;
using kubex::client::detail::BaseExecutor;
using kubex::client::detail::Call;
using kubex::client::detail::Credentials;
using kubex::client::detail::Strand;
using kubex::client::detail::Timer;
using namespace std::chrono_literals;

constexpr std::string_view plugin_token = "t0ken-from-the-PLUGIN";

class Credentials_test : public ::testing::Test {
 protected:
  ClientConfig base_config() const {
    ClientConfig config;
    config.source = "kubeconfig /k";
    config.user_name = "me";
    config.server = kubex::parse_server_url("https://10.0.0.1:6443");
    return config;
  }

  // A config whose exec plugin is a shell script: it counts its runs in `runs`, sleeps
  // `delay`, then runs `answer`.
  ClientConfig with_plugin(const std::string& delay, const std::string& answer) {
    const auto script = dir_.write("plugin.sh",
                                   "#!/bin/sh\necho run >> \"$(dirname \"$0\")/runs\"\n"
                                   "sleep " +
                                       delay + "\n" + answer + "\n");
    ::chmod(script.c_str(), 0700);
    auto config = base_config();
    config.exec = ExecConfig{.command = script.string(),
                             .api_version = "client.authentication.k8s.io/v1",
                             .interactive_mode = "Never"};
    return config;
  }

  static std::string token_answer() {
    return "printf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
           "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" +
           std::string(plugin_token) + "\"}}'";
  }

  std::size_t plugin_runs() const {
    std::ifstream in(dir_.path() / "runs");
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
    }
    return n;
  }

  std::unique_ptr<Credentials> make(ClientConfig config, std::chrono::milliseconds refresh = 1min) {
    return std::make_unique<Credentials>(
        strand_, std::move(config), refresh, 10s,
        [this](const std::string&, const std::string&) { ++certificates_; });
  }

  // A GET whose deadline is 10 s away; kept alive as long as the refresh that uses it.
  const Call& call() {
    auto& c = calls_.emplace_back();
    c.message.method(http::verb::get);
    c.message.target("/api");
    c.origin = "https://10.0.0.1:6443";
    c.read = true;
    c.deadline = std::chrono::steady_clock::now() + 10s;
    return c;
  }

  struct Outcome {
    bool done = false;
    bool changed = false;
    std::exception_ptr error;
  };

  // Starts a refresh on the strand; its outcome is filled when it completes.
  std::shared_ptr<Outcome> refresh(Credentials& credentials, bool force) {
    auto outcome = std::make_shared<Outcome>();
    asio::co_spawn(strand_, credentials.refresh(call(), force),
                   [outcome](std::exception_ptr error, bool changed) {
                     outcome->done = true;
                     outcome->changed = changed;
                     outcome->error = std::move(error);
                   });
    return outcome;
  }

  // Runs one refresh to its end.
  bool refresh_now(Credentials& credentials, bool force) {
    auto outcome = refresh(credentials, force);
    io_.restart();
    io_.run();
    EXPECT_TRUE(outcome->done);
    if (outcome->error) {
      std::rethrow_exception(outcome->error);
    }
    return outcome->changed;
  }

  static std::string authorization(const Credentials& credentials) {
    Call c;
    c.message.set(http::field::authorization, "stale");
    credentials.authorize(c);
    return std::string(c.message[http::field::authorization]);
  }

  kubex::testing::TempDir dir_;
  asio::io_context io_;
  Strand strand_{Strand::Inner(BaseExecutor(asio::any_io_executor(io_.get_executor())))};
  std::deque<Call> calls_;
  int certificates_ = 0;
};

TEST_F(Credentials_test, a_token_file_is_read_again_when_due_and_a_broken_one_is_ignored) {
  const auto file = dir_.write("token", "first\n");
  auto config = base_config();
  config.token = "first";
  config.token_file = file.string();
  auto credentials = make(config, 200ms);
  EXPECT_EQ(authorization(*credentials), "Bearer first");

  dir_.write("token", "second\n");
  EXPECT_FALSE(refresh_now(*credentials, false));  // read at load time: not due yet
  EXPECT_EQ(authorization(*credentials), "Bearer first");
  std::this_thread::sleep_for(250ms);
  EXPECT_TRUE(refresh_now(*credentials, false));
  EXPECT_EQ(authorization(*credentials), "Bearer second");
  EXPECT_EQ(credentials->generation(), 1U);
  EXPECT_EQ(credentials->config().token, "second");

  dir_.write("token", "broken\x01token");  // would break the header
  EXPECT_FALSE(refresh_now(*credentials, true));
  dir_.write("token", "");
  EXPECT_FALSE(refresh_now(*credentials, true));
  EXPECT_EQ(authorization(*credentials), "Bearer second");
  dir_.write("token", "third");
  EXPECT_TRUE(refresh_now(*credentials, true));  // a 401 forces the read
  EXPECT_EQ(authorization(*credentials), "Bearer third");
  EXPECT_EQ(credentials->generation(), 2U);
}

TEST_F(Credentials_test, basic_auth_and_no_credentials) {
  auto config = base_config();
  config.username = "admin";
  config.password = "pa:ss";
  EXPECT_EQ(authorization(*make(config)), "Basic YWRtaW46cGE6c3M=");  // admin:pa:ss
  EXPECT_EQ(authorization(*make(base_config())), "");
}

// 20 requests that need the plugin's token cause one run, and the strand goes on serving other
// work (here a timer) while the plugin takes its time.
TEST_F(Credentials_test, one_plugin_run_serves_every_waiter_without_blocking_the_strand) {
  auto credentials = make(with_plugin("1", token_answer()));
  std::vector<std::shared_ptr<Outcome>> outcomes;
  for (int i = 0; i < 20; ++i) {
    outcomes.push_back(refresh(*credentials, false));
  }
  bool pending_when_timer_fired = false;
  Timer timer(strand_);
  timer.expires_after(200ms);
  timer.async_wait([&](const boost::system::error_code&) {
    pending_when_timer_fired = !outcomes.front()->done;
  });
  const auto started = std::chrono::steady_clock::now();
  io_.run();
  EXPECT_TRUE(pending_when_timer_fired);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 900ms);
  for (const auto& outcome : outcomes) {
    ASSERT_TRUE(outcome->done);
    EXPECT_FALSE(outcome->error);
    EXPECT_TRUE(outcome->changed);
  }
  EXPECT_EQ(plugin_runs(), 1U);
  EXPECT_EQ(credentials->exec_runs(), 1U);
  EXPECT_EQ(authorization(*credentials), "Bearer " + std::string(plugin_token));
  EXPECT_FALSE(refresh_now(*credentials, false));  // no expiry: the token stays
  EXPECT_EQ(plugin_runs(), 1U);
  EXPECT_EQ(certificates_, 0);
}

TEST_F(Credentials_test, a_failed_plugin_run_fails_every_waiter_with_its_error) {
  auto credentials = make(with_plugin("0", "echo 'no account' >&2; exit 3"));
  std::vector<std::shared_ptr<Outcome>> outcomes;
  for (int i = 0; i < 3; ++i) {
    outcomes.push_back(refresh(*credentials, false));
  }
  io_.run();
  for (const auto& outcome : outcomes) {
    ASSERT_TRUE(outcome->done);
    ASSERT_TRUE(outcome->error);
    try {
      std::rethrow_exception(outcome->error);
    } catch (const kubex::Error& e) {
      EXPECT_NE(std::string(e.what()).find("plugin.sh"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(plugin_runs(), 1U);
}

// The credentials go away while the plugin is still running: its answer is dropped, not posted
// to a strand whose owner is gone (ASan would see a use after free).
TEST_F(Credentials_test, an_answer_after_the_credentials_are_gone_is_dropped) {
  auto credentials = make(with_plugin("0.3", token_answer()));
  auto outcome = refresh(*credentials, false);
  io_.poll();  // the fetch starts; the waiter parks
  EXPECT_FALSE(outcome->done);
  credentials.reset();
  std::this_thread::sleep_for(800ms);  // the plugin answers
  EXPECT_EQ(plugin_runs(), 1U);
  io_.restart();
  io_.poll();
  EXPECT_FALSE(outcome->done);  // nothing delivered the answer
}

}  // namespace
