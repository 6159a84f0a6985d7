// SPDX-License-Identifier: Apache-2.0
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

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
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

// Polls `done` every 100 ms for at most `limit`.
bool eventually(const std::function<bool()>& done, Clock::duration limit = 60s) {
  const auto until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) {
      return false;
    }
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

// `kubectl get RESOURCE --watch` in a namespace, the independent second client, over the whole
// test: one line (jsonpath `format`) for each state the server reports, from an empty start.
class KubectlWatch {
 public:
  KubectlWatch(const kubex::testing::Testenv& env, const std::string& ns, const std::string& what,
               const std::string& format, const std::filesystem::path& output)
      : log_(output.string() + ".log"),
        process_({"/bin/sh", "-c",
                  "exec kubectl --kubeconfig " + shell_quote(env.kubeconfig()) + " -n " +
                      shell_quote(ns) + " get " + what + " --watch -v=6 -o jsonpath=" +
                      shell_quote(format + R"({"\n"})") + " 2>" + shell_quote(log_.string())},
                 {}, output) {}

  // True once the watch request was answered (its requests are logged at -v=6): it runs from
  // the list before it, so nothing later is missed.
  bool started() {
    return eventually(
        [this] {
          std::ifstream in(log_);
          for (std::string line; std::getline(in, line);) {
            if (line.find("watch=true") != std::string::npos &&
                line.find("200 OK") != std::string::npos) {
              return true;
            }
          }
          return false;
        },
        30s);
  }
  // The lines of the states seen so far.
  [[nodiscard]] std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(process_.output());
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) {
        out.push_back(line);
      }
    }
    return out;
  }
  [[nodiscard]] std::string output() const { return process_.output(); }

 private:
  std::filesystem::path log_;
  ChildProcess process_;
};

// What the Lease watch prints of each state.
const std::string lease_format =
    "{.metadata.resourceVersion}|{.spec.holderIdentity}|{.spec.leaseTransitions}|"
    "{.spec.acquireTime}|{.spec.renewTime}|{.spec.leaseDurationSeconds}";

// A MicroTime ("2026-01-02T03:04:05.123456Z") in microseconds since the epoch; none if malformed.
std::optional<std::int64_t> micros(const std::string& text) {
  std::tm tm{};
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  std::int64_t fraction = 0;
  int digits = 0;
  for (auto at = text.find('.') + 1; at != 0 && at < text.size() && std::isdigit(text[at]) != 0;
       ++at) {
    if (digits++ < 6) {
      fraction = fraction * 10 + (text[at] - '0');
    }
  }
  for (; digits < 6; ++digits) {
    fraction *= 10;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm)) * 1000000 + fraction;
}

struct LeaseState {
  std::string line;
  std::string holder;
  long transitions = 0;
  std::int64_t acquired = 0;  // microseconds
  std::int64_t renewed = 0;
  std::int64_t duration = 0;
};

// The Lease's history, checked: holders never overlap. A holder keeps its term (acquireTime,
// leaseTransitions) and only renews forward; it releases (no holder) or another takes over
// after its lease expired (acquireTime at least renewTime + leaseDurationSeconds of the last
// renewal), starting a new term with one more transition. Returns what is wrong (empty when
// nothing) and, in `acquired_by`, the holder of each term in order.
std::string check_lease_history(const std::vector<std::string>& lines,
                                std::vector<std::string>& acquired_by) {
  std::ostringstream wrong;
  std::optional<LeaseState> prev;
  for (const std::string& line : lines) {
    std::vector<std::string> f;
    std::istringstream in(line);
    std::string part;
    while (std::getline(in, part, '|')) {
      f.push_back(part);
    }
    f.resize(6);
    LeaseState cur{.line = line, .holder = f[1]};
    const auto acquired = micros(f[3]);
    const auto renewed = micros(f[4]);
    if (!acquired || !renewed || f[5].empty()) {
      wrong << "unreadable state: " << line << "\n";
      continue;
    }
    cur.transitions = f[2].empty() ? 0 : std::stol(f[2]);
    cur.acquired = *acquired;
    cur.renewed = *renewed;
    cur.duration = std::stol(f[5]) * 1000000;
    const std::string was = prev ? prev->holder : "";
    if (cur.holder.empty()) {
      if (prev && cur.transitions != prev->transitions) {
        wrong << "released with another transition count: " << prev->line << " -> " << line << "\n";
      }
    } else if (prev && cur.holder == was) {
      if (cur.transitions != prev->transitions || cur.acquired != prev->acquired ||
          cur.renewed < prev->renewed) {
        wrong << "a renewal changed the term or went back: " << prev->line << " -> " << line
              << "\n";
      }
    } else {  // a new term
      acquired_by.push_back(cur.holder);
      const long want = prev ? prev->transitions + 1 : 0;
      if (cur.transitions != want || cur.acquired != cur.renewed) {
        wrong << "a new term without one more transition: " << (prev ? prev->line : "none")
              << " -> " << line << "\n";
      }
      if (prev && !was.empty() && cur.acquired < prev->renewed + prev->duration) {
        wrong << "taken over before the holder's lease expired: " << prev->line << " -> " << line
              << "\n";
      }
      if (prev && was.empty() && cur.acquired < prev->renewed) {
        wrong << "taken before it was released: " << prev->line << " -> " << line << "\n";
      }
    }
    prev = cur;
  }
  return wrong.str();
}

// How many times `text` occurs in `output`.
int count(const std::string& output, const std::string& text) {
  int n = 0;
  for (auto at = output.find(text); at != std::string::npos; at = output.find(text, at + 1)) {
    ++n;
  }
  return n;
}

// True when `output` reports no reconcile before it started leading.
bool reconciles_only_while_leading(const std::string& output) {
  const auto first = std::min(output.find("reconciled "), output.find("cleaned up "));
  return first == std::string::npos || output.find("started leading") < first;
}

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
  std::unique_ptr<KubectlWatch> watch(const std::string& what, const std::string& format) {
    auto w = std::make_unique<KubectlWatch>(testenv(), ns_, what, format,
                                            dir_.path() / ("watch-" + std::to_string(++watches_)));
    EXPECT_TRUE(w->started()) << w->output();
    return w;
  }
  std::unique_ptr<KubectlWatch> lease_watch() {
    return watch("leases", lease_format);  // the namespace has no other
  }
  static bool said(ChildProcess& p, const std::string& line) {
    return p.output().find(line) != std::string::npos;
  }
  std::string outputs(ChildProcess& a, ChildProcess& b) {
    return "\n--- a:\n" + a.output() + "--- b:\n" + b.output();
  }

  std::string ns_;
  kubex::testing::TempDir dir_;
  int watches_ = 0;
};

TEST_F(website_operator_test, converges_heals_fails_over_and_cleans_up_through_its_finalizer) {
  // Watched over the whole test: the Lease (no two holders overlap), and every change of what
  // the operator watches (each reconcile must answer one).
  const auto lease = lease_watch();
  const auto websites = watch("websites", "{.metadata.resourceVersion}");
  const std::string selector = "-l app.kubernetes.io/managed-by=kubex-website-operator";
  const auto deployments = watch("deployments " + selector, "{.metadata.resourceVersion}");
  const auto config_maps = watch("configmaps " + selector, "{.metadata.resourceVersion}");
  const auto services = watch("services " + selector, "{.metadata.resourceVersion}");
  auto a = replica("replica-a");
  auto b = replica("replica-b");
  ASSERT_TRUE(
      eventually([&] { return said(*a, "started leading") || said(*b, "started leading"); }, 30s))
      << outputs(*a, *b);
  auto& leader = said(*a, "started leading") ? a : b;
  auto& follower = said(*a, "started leading") ? b : a;
  const std::string leader_name = leader == a ? "replica-a" : "replica-b";
  // The other replica found the Lease held: it campaigns, and must not lead (the Lease's
  // history, checked at the end, shows whether it ever did meanwhile).
  ASSERT_TRUE(eventually([&] { return said(*follower, "sees leader " + leader_name); }, 30s))
      << outputs(*a, *b);
  EXPECT_FALSE(said(*follower, "started leading")) << outputs(*a, *b);

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

  // The Lease's whole history: the leader's term, its expiry, the follower's term, the release;
  // no overlap, and each replica led exactly when the Lease says it did.
  EXPECT_TRUE(eventually([&] {
    const auto states = lease->lines();
    return !states.empty() && states.back().find("||") != std::string::npos;
  })) << lease->output();
  std::vector<std::string> terms;
  EXPECT_EQ(check_lease_history(lease->lines(), terms), "") << lease->output();
  const std::string follower_name = follower == a ? "replica-a" : "replica-b";
  EXPECT_EQ(terms, (std::vector<std::string>{leader_name, follower_name})) << lease->output();
  EXPECT_EQ(count(leader->output(), "started leading"), 1) << outputs(*a, *b);
  EXPECT_EQ(count(follower->output(), "started leading"), 1) << outputs(*a, *b);

  // No reconcile without a cause: each answers a change of the Website or of what it owns, or
  // the initial lists (one per watched kind) when a replica starts leading; a replica that
  // reconciled while not leading, or reconciles that repeat by themselves, exceed this.
  EXPECT_TRUE(reconciles_only_while_leading(a->output())) << a->output();
  EXPECT_TRUE(reconciles_only_while_leading(b->output())) << b->output();
  const int reconciles =
      count(a->output(), "reconciled site") + count(a->output(), "cleaned up site") +
      count(b->output(), "reconciled site") + count(b->output(), "cleaned up site");
  const std::size_t changes = websites->lines().size() + deployments->lines().size() +
                              config_maps->lines().size() + services->lines().size();
  EXPECT_GE(reconciles, 3);  // created, changed after the failover, cleaned up
  EXPECT_LE(static_cast<std::size_t>(reconciles), changes + 2 * 4) << changes << " changes\n"
                                                                   << outputs(*a, *b);
}

TEST_F(website_operator_test, sigterm_on_the_leader_hands_over_well_within_the_lease) {
  const auto lease = lease_watch();
  auto a = replica("first");
  ASSERT_TRUE(eventually([&] { return said(*a, "started leading"); }, 30s)) << a->output();
  auto b = replica("second");
  // b campaigns: it read the Lease, held by a.
  ASSERT_TRUE(eventually([&] { return said(*b, "sees leader first"); }, 30s)) << b->output();
  EXPECT_FALSE(said(*b, "started leading")) << b->output();
  const auto sent = Clock::now();
  a->signal(SIGTERM);
  EXPECT_EQ(a->wait_exit(10s), 0) << a->output();
  ASSERT_TRUE(eventually([&] { return said(*b, "started leading"); }, 15s)) << b->output();
  // Released: taken at b's next try, not after the lease duration.
  EXPECT_LT(Clock::now() - sent, lease_duration) << a->output() << b->output();
  // The Lease went from a to nobody to b, and never to b while a held it.
  EXPECT_TRUE(eventually([&] {
    const auto states = lease->lines();
    return !states.empty() && states.back().find("|second|") != std::string::npos;
  })) << lease->output();
  std::vector<std::string> terms;
  EXPECT_EQ(check_lease_history(lease->lines(), terms), "") << lease->output();
  EXPECT_EQ(terms, (std::vector<std::string>{"first", "second"})) << lease->output();
  const auto states = lease->lines();
  const auto released = std::find_if(states.begin(), states.end(), [](const std::string& l) {
    return l.find("||") != std::string::npos;
  });
  EXPECT_NE(released, states.end()) << "a did not release the Lease\n" << lease->output();
}

}  // namespace
