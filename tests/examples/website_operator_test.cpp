// The example operator (examples/website_operator) against testenv, in two replicas: one
// leads, a Website converges into its ConfigMap, Deployment and Service (owned, and Ready once
// the simulated nodes run the pods), a deleted Deployment comes back, the leader killed with
// SIGKILL is replaced within the lease duration and the new leader reconciles, a deleted
// Website goes through the finalizer's cleanup, and SIGTERM hands the lease over at once.
// kubectl, the independent client, checks every step.

#include <kubex/testing/child_process.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using kubex::testing::ChildProcess;
using kubex::testing::shell_quote;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Short leases, so that failover fits a test: a replica takes over at most about
// lease + 2.2 retry periods after the leader's last renewal.
constexpr auto lease_duration = 3000ms;

class website_operator_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ns_ = own_namespace();
    testenv().kubectl("apply -f " + shell_quote(KUBEX_WEBSITE_CRD));
    testenv().kubectl(
        "wait --for=condition=Established --timeout=60s crd/websites.kubex.example.com");
  }

  std::unique_ptr<ChildProcess> replica(const std::string& identity) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KUBEX_WEBSITE_OPERATOR, "--namespace", ns_, "--identity", identity,
                                 "--lease-duration-ms", std::to_string(lease_duration.count()),
                                 "--renew-deadline-ms", "2000", "--retry-period-ms", "500"},
        std::vector<std::string>{"KUBECONFIG=" + testenv().kubeconfig()},
        dir_.path() / (identity + ".log"));
  }
  std::string kubectl(const std::string& args) {
    return testenv().kubectl("-n " + ns_ + " " + args);
  }
  std::string field(const std::string& object, const std::string& path) {
    return kubectl("get " + object + " --ignore-not-found -o jsonpath='" + path + "'");
  }
  static bool eventually(const std::function<bool()>& done, Clock::duration limit = 60s) {
    const auto until = Clock::now() + limit;
    while (!done()) {
      if (Clock::now() > until) {
        return false;
      }
      std::this_thread::sleep_for(100ms);
    }
    return true;
  }
  static bool said(ChildProcess& p, const std::string& line) {
    return p.output().find(line) != std::string::npos;
  }
  std::string outputs(ChildProcess& a, ChildProcess& b) {
    return "\n--- a:\n" + a.output() + "--- b:\n" + b.output();
  }

  std::string ns_;
  kubex::testing::TempDir dir_;
};

TEST_F(website_operator_test, converges_heals_fails_over_and_cleans_up_through_its_finalizer) {
  auto a = replica("replica-a");
  auto b = replica("replica-b");
  ASSERT_TRUE(
      eventually([&] { return said(*a, "started leading") || said(*b, "started leading"); }, 30s))
      << outputs(*a, *b);
  std::this_thread::sleep_for(1s);
  ASSERT_NE(said(*a, "started leading"), said(*b, "started leading")) << outputs(*a, *b);
  auto& leader = said(*a, "started leading") ? a : b;
  auto& follower = said(*a, "started leading") ? b : a;

  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"kubex.example.com/v1","kind":"Website","metadata":{"name":"site"},)"
      R"("spec":{"replicas":2,"content":"<h1>hello</h1>"}})"
      "\nEOF");
  // Converges: the three owned objects, the finalizer, and a Ready status.
  const std::string uid = field("website site", "{.metadata.uid}");
  EXPECT_TRUE(eventually([&] {
    return field("configmap site-content", "{.data.index\\.html}") == "<h1>hello</h1>" &&
           field("deployment site", "{.spec.replicas}") == "2" &&
           field("service site", "{.spec.ports[0].port}") == "80";
  })) << outputs(*a, *b);
  for (const std::string owned : {"configmap site-content", "deployment site", "service site"}) {
    EXPECT_EQ(field(owned, "{.metadata.ownerReferences[0].uid}"), uid) << owned;
  }
  EXPECT_EQ(field("website site", "{.metadata.finalizers[0]}"), "kubex.example.com/cleanup");
  EXPECT_TRUE(eventually([&] {
    return field("website site", R"({.status.conditions[?(@.type=="Ready")].status})") == "True" &&
           field("website site", "{.status.readyReplicas}") == "2";
  })) << kubectl("get website site -o yaml")
      << outputs(*a, *b);
  EXPECT_EQ(field("website site", "{.status.observedGeneration}"),
            field("website site", "{.metadata.generation}"));
  EXPECT_TRUE(eventually([&] {
    return kubectl(R"(get events.events.k8s.io -o jsonpath='{.items[*].reason}')").find("Ready") !=
           std::string::npos;
  }));

  // Heals: a deleted Deployment is an owned object's change; it comes back.
  const std::string old = field("deployment site", "{.metadata.uid}");
  kubectl("delete deployment site --wait=false");
  EXPECT_TRUE(eventually([&] {
    const std::string now = field("deployment site", "{.metadata.uid}");
    return !now.empty() && now != old;
  })) << outputs(*a, *b);

  // Fails over: the leader dies without a word; the other replica leads within the lease
  // duration (plus its retry wait) and reconciles the next change.
  const auto killed = Clock::now();
  leader->signal(SIGKILL);
  ASSERT_TRUE(eventually([&] { return said(*follower, "started leading"); }, 15s))
      << outputs(*a, *b);
  const auto took = Clock::now() - killed;
  EXPECT_LT(took, lease_duration + 2s + 1500ms)
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
  kubectl(R"(patch website site --type merge -p '{"spec":{"replicas":3,"content":"v2"}}')");
  EXPECT_TRUE(eventually([&] {
    return field("deployment site", "{.spec.replicas}") == "3" &&
           field("configmap site-content", "{.data.index\\.html}") == "v2";
  })) << outputs(*a, *b);
  EXPECT_EQ(kubectl("get lease kubex-website-operator -o jsonpath='{.spec.holderIdentity}'"),
            follower == a ? "replica-a" : "replica-b");

  // Deleted: the finalizer holds the Website until the cleanup ran, then it goes, and the
  // garbage collector takes what it owned.
  kubectl("delete website site --wait=false");
  EXPECT_TRUE(eventually([&] { return field("website site", "{.metadata.name}").empty(); }))
      << outputs(*a, *b);
  EXPECT_TRUE(said(*follower, "cleaned up site")) << outputs(*a, *b);
  EXPECT_TRUE(eventually([&] { return field("deployment site", "{.metadata.name}").empty(); }));

  // SIGTERM: stops reconciling, releases the lease at once, exits 0.
  follower->signal(SIGTERM);
  EXPECT_EQ(follower->wait_exit(10s), 0) << outputs(*a, *b);
  EXPECT_TRUE(said(*follower, "released")) << outputs(*a, *b);
  EXPECT_EQ(kubectl("get lease kubex-website-operator -o jsonpath='{.spec.holderIdentity}'"), "");
}

TEST_F(website_operator_test, sigterm_on_the_leader_hands_over_well_within_the_lease) {
  auto a = replica("first");
  ASSERT_TRUE(eventually([&] { return said(*a, "started leading"); }, 30s)) << a->output();
  auto b = replica("second");
  std::this_thread::sleep_for(1s);  // b is campaigning
  EXPECT_FALSE(said(*b, "started leading")) << b->output();
  const auto sent = Clock::now();
  a->signal(SIGTERM);
  EXPECT_EQ(a->wait_exit(10s), 0) << a->output();
  ASSERT_TRUE(eventually([&] { return said(*b, "started leading"); }, 15s)) << b->output();
  // Released: taken at b's next try, not after the lease duration.
  EXPECT_LT(Clock::now() - sent, lease_duration) << a->output() << b->output();
}

}  // namespace
