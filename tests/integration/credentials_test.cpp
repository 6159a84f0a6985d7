// SPDX-License-Identifier: Apache-2.0
// Credentials that take time to get, against the real apiserver: an exec plugin (a shell script
// standing for a cloud CLI) that answers after 5 s must not hold up a watch already open on the
// same client, and requests that all need the new credential share one run of it.

#include <kubex/client/blocking.hpp>
#include <kubex/client/client.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using kubex::client::Client;
using kubex::client::HttpRequest;
using kubex::client::HttpResponse;
using namespace std::chrono_literals;

// The first run answers at once; later runs take 5 s. Each credential lasts 4 s; its expiry,
// in seconds since the epoch, goes to the file "expires" (the test waits for it to pass).
constexpr const char* slow_plugin = R"sh(#!/bin/sh
d=$(dirname "$0")
echo run >> "$d/runs"
[ "$(wc -l < "$d/runs")" -gt 1 ] && sleep 5
e=$(( $(date +%s) + 4 ))
exp=$(date -u -d "@$e" +%Y-%m-%dT%H:%M:%SZ)
echo "$e" > "$d/expires"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}' "$(cat "$d/token")" "$exp"
)sh";

// The threads of this process now.
std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++n;
  }
  return n;
}

class credentials_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    auto cfg = config("admin");
    dir_.write("token", cfg.token);
    const auto plugin = dir_.write("plugin.sh", slow_plugin);
    ::chmod(plugin.c_str(), 0700);
    cfg.token.clear();
    cfg.exec = kubex::client::ExecConfig{.command = plugin.string(),
                                         .api_version = "client.authentication.k8s.io/v1",
                                         .interactive_mode = "Never"};
    client_.emplace(ioc_.get_executor(), cfg);
    runner_ = std::thread([this] { ioc_.run(); });
  }
  void TearDown() override {
    guard_.reset();
    ioc_.stop();
    runner_.join();
  }

  // Waits (bounded) until the system clock has passed the expiry of the last credential the
  // plugin gave: the next request must run it again.
  bool wait_for_expiry() {
    const auto until = Clock::now() + 10s;
    while (Clock::now() < until) {
      std::ifstream in(dir_.path() / "expires");
      long long expires = 0;
      if (in >> expires &&
          std::chrono::system_clock::now() >=
              std::chrono::system_clock::time_point(std::chrono::seconds(expires))) {
        return true;
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }
  // Waits (bounded) until the plugin was started `n` times.
  bool wait_for_runs(int n) {
    const auto until = Clock::now() + 10s;
    while (Clock::now() < until) {
      std::ifstream in(dir_.path() / "runs");
      int lines = 0;
      for (std::string line; std::getline(in, line);) {
        ++lines;
      }
      if (lines >= n) {
        return true;
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  HttpResponse get(const std::string& target) {
    return client_->async_request(HttpRequest{.target = target}, boost::asio::use_future).get();
  }

  kubex::testing::TempDir dir_;
  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_{
      ioc_.get_executor()};
  std::optional<Client> client_;
  std::thread runner_;
};

TEST_F(credentials_test, a_slow_exec_plugin_holds_up_neither_an_open_watch_nor_other_runs) {
  const std::string ns = own_namespace();
  const std::string configmaps = "/api/v1/namespaces/" + ns + "/configmaps";
  const auto list = get(configmaps);  // run 1, at once
  ASSERT_EQ(list.status, 200U) << list.body;
  const auto rv_at = list.body.find(R"("resourceVersion":")");
  ASSERT_NE(rv_at, std::string::npos) << list.body;
  const auto rv_start = rv_at + 19;
  const std::string rv = list.body.substr(rv_start, list.body.find('"', rv_start) - rv_start);

  // A watch from the list, read on the client's io_context; each event's arrival is noted.
  std::mutex mutex;
  std::vector<std::pair<std::string, Clock::time_point>> arrivals;
  auto stream =
      client_
          ->async_stream(HttpRequest{.target = configmaps + "?watch=true&resourceVersion=" + rv},
                         boost::asio::use_future)
          .get();
  ASSERT_EQ(stream.head().status, 200U);
  boost::asio::co_spawn(
      ioc_,
      [&]() -> boost::asio::awaitable<void> {
        std::string bytes;
        while (co_await stream.async_read_some(bytes, boost::asio::use_awaitable) != 0) {
          std::size_t end;
          while ((end = bytes.find('\n')) != std::string::npos) {
            const std::lock_guard lock(mutex);
            arrivals.emplace_back(bytes.substr(0, end), Clock::now());
            bytes.erase(0, end + 1);
          }
        }
      },
      [](std::exception_ptr) {});  // cancelled at the end of the test
  const auto arrived = [&](const std::string& name) -> std::optional<Clock::time_point> {
    const std::lock_guard lock(mutex);
    for (const auto& [line, at] : arrivals) {
      if (line.find(R"("name":")" + name + "\"") != std::string::npos) {
        return at;
      }
    }
    return std::nullopt;
  };

  // The credential lapses; the next request runs the plugin, which now takes 5 s.
  ASSERT_TRUE(wait_for_expiry());
  const auto slow_start = Clock::now();
  auto slow = client_->async_request(HttpRequest{.target = configmaps}, boost::asio::use_future);
  ASSERT_TRUE(wait_for_runs(2));  // the plugin is running (the file is its first line)
  const auto created = Clock::now();
  testenv().kubectl("-n " + ns + " create configmap during-the-plugin --from-literal=a=b");
  std::optional<Clock::time_point> event;
  while (!(event = arrived("during-the-plugin")) && Clock::now() - created < 10s) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(event) << "the watch delivered nothing while the plugin ran";
  EXPECT_LT(*event - created, 2s) << "the event waited for the plugin";
  EXPECT_EQ(slow.wait_for(0s), std::future_status::timeout) << "the plugin was not slow";
  EXPECT_EQ(slow.get().status, 200U);
  EXPECT_GE(Clock::now() - slow_start, 4500ms);
  EXPECT_EQ(client_->stats().exec_plugin_runs, 2U);

  // 20 requests that all need the next credential share one run of the plugin.
  ASSERT_TRUE(wait_for_expiry());
  std::vector<std::future<HttpResponse>> many;
  for (int i = 0; i < 20; ++i) {
    many.push_back(
        client_->async_request(HttpRequest{.target = configmaps}, boost::asio::use_future));
  }
  for (auto& response : many) {
    EXPECT_EQ(response.get().status, 200U);
  }
  EXPECT_EQ(client_->stats().exec_plugin_runs, 3U);
  stream.cancel();
}

TEST_F(credentials_test, a_failing_plugin_fails_every_waiting_request_with_its_error) {
  const std::string configmaps = "/api/v1/namespaces/" + own_namespace() + "/configmaps";
  ASSERT_EQ(get(configmaps).status, 200U);  // run 1
  dir_.write("plugin.sh", "#!/bin/sh\nsleep 1\necho 'no credential today' >&2\nexit 3\n");
  ASSERT_TRUE(wait_for_expiry());
  std::vector<std::future<HttpResponse>> waiting;
  for (int i = 0; i < 5; ++i) {
    waiting.push_back(
        client_->async_request(HttpRequest{.target = configmaps}, boost::asio::use_future));
  }
  for (auto& response : waiting) {
    try {
      (void)response.get();
      ADD_FAILURE() << "a request went without a credential";
    } catch (const kubex::Error& e) {
      EXPECT_NE(std::string(e.what()).find("exit"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(client_->stats().exec_plugin_runs, 1U);  // failed runs give no credential
}

// The plugin answers after the request gave up and the client, with its io_context, is gone:
// the worker thread must touch neither (before the fix it posted to the freed strand, which
// ASan reports as a use after free).
TEST_F(credentials_test, a_client_gone_before_its_plugin_answers_is_left_alone) {
  const auto plugin =
      dir_.write("late.sh",
                 "#!/bin/sh\nsleep 1\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                 "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"late\"}}'\n");
  ::chmod(plugin.c_str(), 0700);
  auto cfg = config("admin");
  cfg.token.clear();
  cfg.exec = kubex::client::ExecConfig{.command = plugin.string(),
                                       .api_version = "client.authentication.k8s.io/v1",
                                       .interactive_mode = "Never"};
  kubex::client::ClientOptions options;
  options.timeout = 200ms;
  const std::size_t threads = thread_count();
  {
    kubex::client::BlockingClient client(cfg, options);
    try {
      (void)client.get("/api");
      ADD_FAILURE() << "the request did not wait for the plugin";
    } catch (const kubex::Error& e) {
      EXPECT_EQ(e.code(), std::errc::timed_out) << e.what();
      EXPECT_NE(std::string(e.what()).find("waiting for credentials"), std::string::npos)
          << e.what();
    }
  }
  // The plugin answers; its thread finds no client and ends: this process is back to the
  // threads it had before the client.
  const auto until = Clock::now() + 10s;
  while (thread_count() > threads && Clock::now() < until) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(thread_count(), threads) << "the plugin's thread did not end";
}

}  // namespace
