// SPDX-License-Identifier: Apache-2.0
// Runs the kubex-list-pods example as a program, so the example keeps working as the library
// evolves. `list_pods_usage_test` needs no server (ctest label unit); `list_pods_testenv_test`
// runs it against the real control plane of tools/testenv (label integration) and checks its
// numbers against kubectl.

#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <sstream>
#include <string>

#ifndef KUBEX_LIST_PODS_EXE
#error "KUBEX_LIST_PODS_EXE must name the kubex-list-pods executable"
#endif

namespace {

using kubex::testing::run_command;
using kubex::testing::shell_quote;

// Runs the example with `arguments` (pasted into a shell command line); output is stdout and
// stderr together.
kubex::testing::CommandResult run(const std::string& arguments) {
  return run_command(shell_quote(KUBEX_LIST_PODS_EXE) + " " + arguments + " 2>&1");
}

// The number after `label` at the start of an output line, e.g. 20 for "pods: 20"; -1 if no
// line starts with `label`.
long count(const std::string& output, const std::string& label) {
  const std::string text = "\n" + output;
  const auto pos = text.find("\n" + label);
  if (pos == std::string::npos) {
    return -1;
  }
  return std::stol(text.substr(pos + 1 + label.size()));
}

std::set<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::set<std::string> result;
  for (std::string word; in >> word;) {
    result.insert(word);
  }
  return result;
}

TEST(list_pods_usage_test, bad_usage_exits_with_2) {
  EXPECT_EQ(run("").exit_code, 2);
  EXPECT_EQ(run("--kubeconfig").exit_code, 2);
  EXPECT_EQ(run("--kubeconfig x --what y").exit_code, 2);
}

TEST(list_pods_usage_test, help_exits_with_0) {
  const auto result = run("--help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output.rfind("usage: kubex-list-pods", 0), 0U) << result.output;
}

TEST(list_pods_usage_test, config_errors_exit_with_1) {
  const kubex::testing::TempDir dir;
  const auto missing = run("--kubeconfig " + shell_quote((dir.path() / "missing").string()));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("cannot read file"), std::string::npos) << missing.output;

  const auto kubeconfig = dir.write("kubeconfig", R"(
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
)");
  const auto no_context =
      run("--kubeconfig " + shell_quote(kubeconfig.string()) + " --context nope");
  EXPECT_EQ(no_context.exit_code, 1);
  EXPECT_NE(no_context.output.find("nope"), std::string::npos) << no_context.output;
}

class list_pods_testenv_test : public kubex::testing::TestenvTest {
 protected:
  std::string kubeconfig_argument() const {
    return "--kubeconfig " + shell_quote(testenv().kubeconfig());
  }
};

TEST_F(list_pods_testenv_test, summarises_a_seeded_namespace) {
  const std::string& ns = own_namespace();
  testenv().seed(ns, 20);

  // The admin context's namespace is default; --namespace overrides it.
  const auto result =
      run(kubeconfig_argument() + " --context admin --namespace " + shell_quote(ns));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.rfind("namespace: " + ns + "\n", 0), 0U) << result.output;
  EXPECT_EQ(count(result.output, "pods: "), 20) << result.output;
  EXPECT_EQ(count(result.output, "  Running: "), 20) << result.output;
  EXPECT_NE(result.output.find("response: "), std::string::npos) << result.output;

  // Cross-check with kubectl: the same pods, the same nodes.
  const auto quoted = shell_quote(ns);
  EXPECT_EQ(words(testenv().kubectl("get pods -n " + quoted + " -o name")).size(), 20U);
  const auto nodes = words(
      testenv().kubectl("get pods -n " + quoted + " -o jsonpath='{.items[*].spec.nodeName}'"));
  const auto all_nodes = words(testenv().kubectl("get nodes -o name"));
  EXPECT_GE(count(result.output, "nodes: "), 1) << result.output;
  EXPECT_LE(nodes.size(), all_nodes.size());
  EXPECT_EQ(count(result.output, "nodes: "), static_cast<long>(nodes.size())) << result.output;
}

TEST_F(list_pods_testenv_test, uses_the_context_namespace) {
  const auto result = run(kubeconfig_argument() + " --context user");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.rfind("namespace: kubex-user\n", 0), 0U) << result.output;
  const auto pods = words(testenv().kubectl("get pods -n kubex-user -o name"));
  EXPECT_EQ(count(result.output, "pods: "), static_cast<long>(pods.size())) << result.output;
}

TEST_F(list_pods_testenv_test, reports_the_server_status_message) {
  // kubex-user may only list pods in kubex-user.
  const auto result = run(kubeconfig_argument() + " --context user --namespace default");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(R"(HTTP 403: pods is forbidden: User "kubex-user" cannot list)"),
            std::string::npos)
      << result.output;
}

}  // namespace
