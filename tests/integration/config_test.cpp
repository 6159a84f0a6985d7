// SPDX-License-Identifier: Apache-2.0
// Configuration sources against the real apiserver of tools/testenv: a KUBECONFIG list of
// files that kubectl itself wrote, and the in-cluster configuration of a real service account.
// kubectl is the independent second client: it must agree on the merged files.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/testing/scoped_env.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace {

using kubex::client::BlockingClient;
using kubex::testing::ScopedEnv;
using kubex::testing::shell_quote;
using kubex::testing::TempDir;
using kubex::testing::whoami;

// Runs a shell command and returns its stdout; fails the test if it exits non-zero, naming the
// command by `what` (commands may hold a token, which must not be printed).
std::string run(const std::string& command, const std::string& what) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "cannot run " << what;
    return out;
  }
  char buf[256];
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
    out += buf;
  }
  EXPECT_EQ(::pclose(p), 0) << what;
  return out;
}

class config_testenv_test : public kubex::testing::TestenvTest {};

TEST_F(config_testenv_test, kubeconfig_list_written_by_kubectl) {
  const auto admin = config("admin");
  const auto user = config("user");
  TempDir dir;
  const auto ca = dir.write("pki/ca.crt", admin.certificate_authority_pem);
  const auto a = dir.path() / "a" / "config";
  const auto b = dir.path() / "b" / "config";
  std::filesystem::create_directories(a.parent_path());
  std::filesystem::create_directories(b.parent_path());
  const std::string server = "https://" + admin.server.authority();
  // a: the cluster and the contexts; b: the users, and a cluster of the same name that must
  // lose to a's. kubectl writes both files.
  const auto kubectl = [&](const std::filesystem::path& file, const std::string& args) {
    (void)run("kubectl config --kubeconfig " + shell_quote(file.string()) + " " + args,
              "kubectl config " + args.substr(0, args.find(' ')));
  };
  kubectl(a, "set-cluster testenv --server " + server + " --certificate-authority " +
                 shell_quote(ca.string()) + " --embed-certs");
  kubectl(a, "set-context mine --cluster testenv --user me --namespace kubex-user");
  kubectl(a, "use-context mine");
  kubectl(b, "set-cluster testenv --server https://127.0.0.2:1");
  kubectl(b, "set-credentials me --token " + shell_quote(user.token));
  kubectl(b, "set-credentials admin --token " + shell_quote(admin.token));
  kubectl(b, "set-context admin --cluster testenv --user admin");
  kubectl(b, "use-context admin");

  const std::string list = a.string() + ":" + b.string();
  ScopedEnv env("KUBECONFIG", list);
  const auto merged = kubex::client::infer_config();
  EXPECT_EQ(merged.source, "kubeconfig " + list);
  EXPECT_EQ(merged.context_name, "mine");  // a's current-context wins
  EXPECT_EQ(merged.namespace_name, "kubex-user");
  BlockingClient me(merged);
  EXPECT_EQ(whoami(me), "kubex-user");
  EXPECT_EQ(me.get("/api/v1/namespaces/kubex-user/configmaps").status, 200U);

  // kubectl, given the same list, resolves the same identity.
  const std::string kubectl_env = "KUBECONFIG=" + shell_quote(list) + " kubectl ";
  EXPECT_EQ(run(kubectl_env + "auth whoami -o jsonpath={.status.userInfo.username}",
                "kubectl auth whoami"),
            "kubex-user");

  const auto other = kubex::client::infer_config({.context = "admin"});
  BlockingClient as_admin(other);
  EXPECT_EQ(whoami(as_admin), "kubex-admin");
}

TEST_F(config_testenv_test, in_cluster_with_a_real_service_account) {
  const std::string ns = own_namespace();
  (void)testenv().kubectl("create serviceaccount kubex-pod -n " + ns);
  const std::string token = testenv().create_token("kubex-pod", ns);
  const auto admin = config("admin");
  TempDir dir;
  dir.write("sa/token", token);
  dir.write("sa/ca.crt", admin.certificate_authority_pem);
  dir.write("sa/namespace", ns);
  ScopedEnv host("KUBERNETES_SERVICE_HOST", admin.server.host);
  ScopedEnv port("KUBERNETES_SERVICE_PORT", std::to_string(admin.server.port));
  const auto config = kubex::client::incluster_config({.service_account_dir = dir.path() / "sa"});
  EXPECT_EQ(config.namespace_name, ns);
  BlockingClient pod(config);
  EXPECT_EQ(whoami(pod), "system:serviceaccount:" + ns + ":kubex-pod");
  // A service account has no rights of its own.
  EXPECT_EQ(pod.get("/api/v1/namespaces/" + ns + "/secrets").status, 403U);
}

}  // namespace
