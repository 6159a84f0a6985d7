// SPDX-License-Identifier: Apache-2.0
// Runs each Api<T> example as a program against testenv (ctest label integration), in a
// namespace of its own, and checks what it prints, so the examples keep working.

#include <kubex/testing/child_process.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>

namespace {

using kubex::testing::run_command;
using kubex::testing::shell_quote;

class api_examples_test : public kubex::testing::TestenvTest {
 protected:
  // Runs `exe arguments` with KUBECONFIG pointing at testenv; stdout and stderr together.
  kubex::testing::CommandResult run(const char* exe, const std::string& arguments) {
    return run_command("KUBECONFIG=" + shell_quote(testenv().kubeconfig()) + " " +
                       shell_quote(exe) + " " + arguments + " 2>&1");
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(api_examples_test, watch_pods) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " run existing --image=registry.k8s.io/pause:3.10");
  // "later" is created once the example has printed its list, so the watch must report it.
  bool created = false;
  const auto r = run_command(
      "KUBECONFIG=" + shell_quote(testenv().kubeconfig()) + " " +
          shell_quote(KUBEX_EXAMPLE_WATCH_PODS) + " " + shell_quote(ns) + " 4 2>&1",
      [&](std::string_view line) {
        if (!created && line.starts_with("first: ")) {
          created = true;
          testenv().kubectl("-n " + ns + " run later --image=registry.k8s.io/pause:3.10");
        }
      });
  EXPECT_TRUE(created) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 pods in " + ns)) << r.output;
  EXPECT_TRUE(contains(r.output, "first: existing")) << r.output;
  EXPECT_TRUE(contains(r.output, "ADDED later")) << r.output;
  EXPECT_TRUE(contains(r.output, "watch ended")) << r.output;
}

TEST_F(api_examples_test, pod_cache) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " run existing --image=registry.k8s.io/pause:3.10");
  // Changes made once the cache has synced must each be printed.
  bool changed = false;
  const auto r = run_command(
      "KUBECONFIG=" + shell_quote(testenv().kubeconfig()) + " " +
          shell_quote(KUBEX_EXAMPLE_POD_CACHE) + " " + shell_quote(ns) + " 6 2>&1",
      [&](std::string_view line) {
        if (!changed && line.starts_with("synced: ")) {
          changed = true;
          testenv().kubectl("-n " + ns + " run later --image=registry.k8s.io/pause:3.10");
          testenv().kubectl("-n " + ns +
                            " delete pod existing --grace-period=0 --force --wait=false");
        }
      });
  EXPECT_TRUE(changed) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "synced: 1 pods")) << r.output;
  EXPECT_TRUE(contains(r.output, "+ later ")) << r.output;
  EXPECT_TRUE(contains(r.output, "- existing")) << r.output;
  EXPECT_FALSE(contains(r.output, "watch failed")) << r.output;
}

TEST_F(api_examples_test, deployment) {
  const auto r = run(KUBEX_EXAMPLE_DEPLOYMENT, shell_quote(own_namespace()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "replicas: 3")) << r.output;
  EXPECT_TRUE(contains(r.output, "image: registry.k8s.io/pause:3.9")) << r.output;
  EXPECT_TRUE(contains(r.output, "deleted: ")) << r.output;
}

TEST_F(api_examples_test, server_side_apply) {
  const auto r = run(KUBEX_EXAMPLE_SSA, shell_quote(own_namespace()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "hotfix conflicts:")) << r.output;
  EXPECT_TRUE(contains(r.output, "hotfix forced mode=green")) << r.output;
}

TEST_F(api_examples_test, custom_resource) {
  testenv().kubectl("apply -f " + shell_quote(KUBEX_CRD_MANIFEST));
  testenv().kubectl(
      "wait --for=condition=Established --timeout=60s crd/crontabs.stable.example.com");
  const auto r = run(KUBEX_EXAMPLE_CUSTOM_RESOURCE, shell_quote(own_namespace()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "created kubex-nightly")) << r.output;
  EXPECT_TRUE(contains(r.output, "replicas after merge patch with null: unset")) << r.output;
  EXPECT_TRUE(contains(r.output, "applied: 30 4 * * * replicas=3")) << r.output;
  EXPECT_TRUE(contains(r.output, "crontab kubex-nightly: 30 4 * * *")) << r.output;
}

TEST_F(api_examples_test, metadata_list) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " run meta-pod --image=registry.k8s.io/pause:3.10");
  const auto r = run(KUBEX_EXAMPLE_METADATA_LIST, "");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, ns)) << r.output;
  EXPECT_TRUE(contains(r.output, "pods: ")) << r.output;
}

TEST_F(api_examples_test, logs_follow) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns +
                    " run logger --image=registry.k8s.io/pause:3.10"
                    " --annotations=sim.kubex.dev/log-interval=10ms");
  testenv().kubectl("-n " + ns + " wait --for=condition=Ready --timeout=60s pod/logger");
  const auto r = run(KUBEX_EXAMPLE_LOGS_FOLLOW, "logger " + shell_quote(ns) + " 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 5) << r.output;
  EXPECT_TRUE(r.output.starts_with("line-")) << r.output;
  const auto usage = run(KUBEX_EXAMPLE_LOGS_FOLLOW, "");
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
}

TEST_F(api_examples_test, exec) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " run shell --image=registry.k8s.io/pause:3.10");
  testenv().kubectl("-n " + ns + " wait --for=condition=Ready --timeout=60s pod/shell");
  const auto r =
      run(KUBEX_EXAMPLE_EXEC, "-n " + shell_quote(ns) + " shell -- sh -c 'echo hi; exit 3'");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output, "hi\n");
  const auto piped = run_command(
      "printf 'from stdin' | KUBECONFIG=" + shell_quote(testenv().kubeconfig()) + " " +
      shell_quote(KUBEX_EXAMPLE_EXEC) + " -n " + shell_quote(ns) + " -i shell -- cat 2>&1");
  EXPECT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(piped.output, "from stdin");
  const auto missing = run(KUBEX_EXAMPLE_EXEC, "-n " + shell_quote(ns) + " nope -- true");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(contains(missing.output, "NotFound")) << missing.output;
  EXPECT_EQ(run(KUBEX_EXAMPLE_EXEC, "shell").exit_code, 2);
}

TEST_F(api_examples_test, port_forward) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " run web --image=registry.k8s.io/pause:3.10 --port=8080");
  testenv().kubectl("-n " + ns + " wait --for=condition=Ready --timeout=60s pod/web");
  kubex::testing::TempDir dir;
  kubex::testing::ChildProcess forward({KUBEX_EXAMPLE_PORT_FORWARD, "-n", ns, "web", "0:8080"},
                                       {"KUBECONFIG=" + testenv().kubeconfig()},
                                       dir.path() / "forward.log");
  std::string line;
  for (int i = 0; i < 100 && line.empty(); ++i) {
    const auto out = forward.output();
    if (const auto at = out.find("Forwarding from 127.0.0.1:");
        at != std::string::npos && out.find('\n', at) != std::string::npos) {
      line = out.substr(at, out.find('\n', at) - at);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(line.empty()) << forward.output();
  const auto port = static_cast<unsigned short>(
      std::stoul(line.substr(std::string("Forwarding from 127.0.0.1:").size())));
  // The pod's port 8080 is testenv's echo server (its name does not start with http).
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  const std::string message = "through kubex-port-forward";
  boost::asio::write(socket, boost::asio::buffer(message));
  std::string back(message.size(), '\0');
  boost::asio::read(socket, boost::asio::buffer(back));
  EXPECT_EQ(back, message);
  socket.close();
  forward.signal(SIGTERM);
  EXPECT_EQ(forward.wait_exit(std::chrono::seconds(10)), 0) << forward.output();
  EXPECT_EQ(run(KUBEX_EXAMPLE_PORT_FORWARD, "web").exit_code, 2);
}

TEST_F(api_examples_test, dynamic_object) {
  const auto& ns = own_namespace();
  testenv().kubectl("-n " + ns + " create configmap dyn --from-literal=a=1");
  const auto r = run(KUBEX_EXAMPLE_DYNAMIC, "cm " + shell_quote(ns));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "cm: v1/configmaps ConfigMap, namespaced")) << r.output;
  EXPECT_TRUE(contains(r.output, "  dyn (")) << r.output;
  EXPECT_TRUE(contains(r.output, "\"dyn\"")) << r.output;  // the Table's Name cell
  const auto unknown = run(KUBEX_EXAMPLE_DYNAMIC, "nosuchresource");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_TRUE(contains(unknown.output, "no resource \"nosuchresource\"")) << unknown.output;
}

}  // namespace
