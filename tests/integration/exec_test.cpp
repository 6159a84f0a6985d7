// SPDX-License-Identifier: Apache-2.0
// exec and attach through the real apiserver, which ends the WebSocket (v5.channel.k8s.io) and
// speaks SPDY to testenv's simulated kubelet; its built-in shell (tools/testenv/simkubelet)
// runs echo, printf, cat, sleep, exit, tty-size and sh -c over them. The machine's kubectl
// runs the same commands as the independent second client.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/exec.hpp>
#include <kubex/core/request.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace {

namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::ExecParams;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::client::ExecResult;
using kubex::client::OutputStream;
using kubex::testing::shell_quote;
using namespace std::chrono_literals;

corev1::Pod shell_pod(const std::string& name, bool attach_echo = false) {
  corev1::Pod pod;
  pod.metadata.name = name;
  if (attach_echo) {
    pod.metadata.annotations["sim.kubex.dev/attach"] = "echo";
  }
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  c.stdin = attach_echo;
  return pod;
}

ExecParams command(std::vector<std::string> words, bool with_stdin = false) {
  ExecParams params;
  params.command = std::move(words);
  params.with_stdin = with_stdin;
  return params;
}

// A pattern that shows any byte lost, repeated or reordered.
std::string pattern(std::size_t size) {
  std::string out(size, '\0');
  std::uint32_t x = 2463534242U;
  for (auto& c : out) {
    x ^= x << 13U;
    x ^= x >> 17U;
    x ^= x << 5U;
    c = static_cast<char>(x & 0xffU);
  }
  return out;
}

class exec_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    client_.emplace(config(), client_options());
  }

  BlockingApi<corev1::Pod> pods() {
    return BlockingApi<corev1::Pod>::namespaced(*client_, own_namespace());
  }

  void start(const corev1::Pod& pod) {
    auto api = pods();
    api.create(pod);
    for (int i = 0; i < 600; ++i) {
      const auto current = api.get(*pod.metadata.name);
      if (current.status && current.status->phase == corev1::PodStatusPhase::Running) {
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
    FAIL() << *pod.metadata.name << " did not start running";
  }

  std::optional<BlockingClient> client_;
};

TEST_F(exec_test, output_exit_code_and_stderr_apart) {
  start(shell_pod("shell"));
  auto api = pods();
  const ExecResult hi = api.run("shell", command({"echo", "hello", "world"}));
  EXPECT_EQ(hi.out, "hello world\n");
  EXPECT_EQ(hi.err, "");
  EXPECT_EQ(hi.exit_code, 0);

  const ExecResult split = api.run("shell", command({"sh", "-c", "echo out; echo err >&2"}));
  EXPECT_EQ(split.out, "out\n");
  EXPECT_EQ(split.err, "err\n");

  for (const int code : {0, 1, 137}) {
    const ExecResult r = api.run("shell", command({"sh", "-c", "exit " + std::to_string(code)}));
    EXPECT_EQ(r.exit_code, code);
  }

  // kubectl, the second client, sees the same.
  EXPECT_EQ(
      testenv().kubectl("exec -n " + shell_quote(own_namespace()) + " shell -- echo hello world"),
      hi.out);
}

// v4.channel.k8s.io, offered alone as an older apiserver would leave it: the apiserver passes it
// through to the kubelet, whose error channel carries the same Status.
TEST_F(exec_test, the_v4_protocol_runs_a_command_through_to_the_kubelet) {
  start(shell_pod("legacy"));
  const auto request = kubex::RequestBuilder("", "v1", "pods", own_namespace())
                           .exec("legacy", command({"sh", "-c", "echo out; echo err >&2; exit 3"}));
  auto process = client_->open_process(request, false, {.offer_v5 = false});
  EXPECT_EQ(process.subprotocol(), "v4.channel.k8s.io");
  std::string out;
  std::string err;
  while (auto piece = process.read()) {
    (piece->stream == OutputStream::err ? err : out) += piece->data;
  }
  EXPECT_EQ(out, "out\n");
  EXPECT_EQ(err, "err\n");
  EXPECT_EQ(process.exit_code(), 3);
}

TEST_F(exec_test, ten_megabytes_of_stdin_come_back_byte_for_byte) {
  start(shell_pod("cat"));
  const std::string input = pattern(std::size_t{10} << 20U);
  const auto started = std::chrono::steady_clock::now();
  const ExecResult r = pods().run("cat", command({"cat"}, true), input);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.out.size(), input.size());
  EXPECT_TRUE(r.out == input) << "the echo differs from what was sent";
  std::cout << "10 MiB through cat and back in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
}

TEST_F(exec_test, an_interactive_cat_ends_when_stdin_closes) {
  start(shell_pod("interactive"));
  auto process = pods().exec("interactive", command({"cat"}, true));
  EXPECT_EQ(process.exit_code(), std::nullopt);
  process.write("ping\n");
  std::string echoed;
  while (echoed.size() < 5) {
    auto piece = process.read();
    ASSERT_TRUE(piece) << "cat ended before echoing";
    EXPECT_EQ(piece->stream, OutputStream::out);
    echoed += piece->data;
  }
  EXPECT_EQ(echoed, "ping\n");
  process.close_stdin();
  while (auto piece = process.read()) {
    ADD_FAILURE() << "unexpected output after stdin closed: " << piece->data;
  }
  EXPECT_EQ(process.exit_code(), 0);
}

TEST_F(exec_test, a_tty_and_its_resizes_reach_the_process) {
  start(shell_pod("terminal"));
  ExecParams params = command({"tty-size"}, true);
  params.tty = true;
  params.with_stderr = false;
  auto process = pods().exec("terminal", params);
  process.resize(100, 40);
  std::string seen;
  while (seen.find("100x40") == std::string::npos) {
    auto piece = process.read();
    ASSERT_TRUE(piece) << "tty-size ended early; it printed: " << seen;
    seen += piece->data;
  }
  process.resize(132, 50);
  while (seen.find("132x50") == std::string::npos) {
    auto piece = process.read();
    ASSERT_TRUE(piece) << "tty-size ended early; it printed: " << seen;
    seen += piece->data;
  }
  process.close_stdin();
  while (process.read()) {
  }
  EXPECT_EQ(process.exit_code(), 0);
}

TEST_F(exec_test, attach_to_a_process_that_reads_its_stdin) {
  start(shell_pod("attached", true));
  kubex::AttachParams params;
  params.container = "main";
  params.with_stdin = true;
  auto process = pods().attach("attached", params);
  std::string seen;
  // The attach is in place once the server has answered the upgrade; the echo may need a
  // moment to show what was written.
  process.write("hello attach\n");
  while (seen.find("hello attach") == std::string::npos) {
    auto piece = process.read();
    ASSERT_TRUE(piece) << "the attach ended; seen: " << seen;
    seen += piece->data;
  }
  process.cancel();
  // The echo also went to the container's log, which kubectl reads.
  const auto logs = testenv().kubectl("logs -n " + shell_quote(own_namespace()) + " attached");
  EXPECT_NE(logs.find("hello attach"), std::string::npos) << logs;
}

// The asynchronous API, as a coroutine would use it.
TEST_F(exec_test, the_asynchronous_api_runs_a_command) {
  start(shell_pod("async"));
  boost::asio::io_context ioc;
  kubex::client::Client client(ioc.get_executor(), config());
  auto api = kubex::client::Api<corev1::Pod>::namespaced(client, own_namespace());
  // Built outside the coroutine: GCC 12 miscompiles a braced list of strings inside one.
  const ExecParams params = command({"sh", "-c", "printf 'a%sb' -"});
  auto result = boost::asio::co_spawn(
      ioc,
      [&]() -> boost::asio::awaitable<std::string> {
        auto process = co_await api.async_exec("async", params, boost::asio::use_awaitable);
        std::string out;
        while (auto piece = co_await process.async_read(boost::asio::use_awaitable)) {
          out += piece->data;
        }
        co_return out + " exit " + std::to_string(process.exit_code().value_or(-1));
      },
      boost::asio::use_future);
  ioc.run();
  EXPECT_EQ(result.get(), "a-b exit 0");
}

TEST_F(exec_test, refusals_and_failures_are_typed_errors) {
  start(shell_pod("errors"));
  auto api = pods();
  {
    const auto e = [&]() -> std::optional<kubex::ApiError> {
      try {
        (void)api.run("no-such-pod", command({"true"}));
      } catch (const kubex::ApiError& error) {
        return error;
      }
      return std::nullopt;
    }();
    ASSERT_TRUE(e) << "exec in a pod that does not exist";
    EXPECT_TRUE(kubex::is_not_found(*e)) << e->what();
  }
  {
    ExecParams params = command({"true"});
    params.container = "nope";
    try {
      (void)api.run("errors", params);
      ADD_FAILURE() << "exec in a container that does not exist";
    } catch (const kubex::ApiError& e) {
      EXPECT_EQ(e.http_status(), 400U) << e.what();
      EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
    }
  }
  try {
    (void)api.run("errors", command({"no-such-command"}));
    ADD_FAILURE() << "a command that does not exist";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_internal_error(e)) << e.what();
    EXPECT_NE(std::string(e.what()).find("executable file not found"), std::string::npos)
        << e.what();
  }
}

// 1.35 authorizes a WebSocket exec as `get` and also `create` on pods/exec: a service account
// that may only get it is refused with a typed 403.
TEST_F(exec_test, a_user_without_create_on_pods_exec_gets_403) {
  start(shell_pod("guarded"));
  const auto& ns = own_namespace();
  const auto in_ns = " -n " + shell_quote(ns);
  (void)testenv().kubectl("create serviceaccount exec-reader" + in_ns);
  (void)testenv().kubectl("create role exec-reader --verb=get,list --resource=pods,pods/exec" +
                          in_ns);
  (void)testenv().kubectl("create rolebinding exec-reader --role=exec-reader --serviceaccount=" +
                          ns + ":exec-reader" + in_ns);
  auto limited = config();
  limited.token = testenv().create_token("exec-reader", ns);
  limited.client_certificate_pem.clear();
  limited.client_key_pem.clear();
  BlockingClient reader(limited);
  auto api = BlockingApi<corev1::Pod>::namespaced(reader, ns);
  (void)api.get("guarded");  // it may read the pod
  try {
    (void)api.run("guarded", command({"true"}));
    ADD_FAILURE() << "exec without create on pods/exec";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_forbidden(e)) << e.what();
    EXPECT_EQ(e.http_status(), 403U);
  }
  // With create as well, the same account may exec: the refusal was the missing verb.
  (void)testenv().kubectl("create role exec-runner --verb=create --resource=pods/exec" + in_ns);
  (void)testenv().kubectl("create rolebinding exec-runner --role=exec-runner --serviceaccount=" +
                          ns + ":exec-reader" + in_ns);
  ExecResult allowed;
  for (int attempt = 0; attempt < 50; ++attempt) {  // RBAC changes reach the authorizer quickly
    try {
      allowed = api.run("guarded", command({"echo", "allowed"}));
      break;
    } catch (const kubex::ApiError& e) {
      ASSERT_TRUE(kubex::is_forbidden(e)) << e.what();
      std::this_thread::sleep_for(100ms);
    }
  }
  EXPECT_EQ(allowed.out, "allowed\n");
}

}  // namespace
