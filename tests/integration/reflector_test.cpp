// SPDX-License-Identifier: Apache-2.0
// The reflector's last synced resourceVersion and the blocking reflector against the real
// apiserver, kubectl the independent second client: a change kubectl makes has a
// resourceVersion, and once the reflector reports it (or a newer one) its store holds that
// change. The blocking reflector runs on a BlockingClient's own connections and sees what
// kubectl creates.

#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/blocking_reflector.hpp>
#include <kubex/runtime/reflector.hpp>
#include <kubex/runtime/resource_version.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <compare>
#include <exception>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace {

namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::runtime::compare_resource_versions;
using kubex::runtime::resource_version_reached;
using namespace std::chrono_literals;

// name -> resourceVersion.
using Contents = std::map<std::string, std::string>;

class reflector_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ns_ = own_namespace();
    wait_for_root_ca();
  }

  std::string kubectl(const std::string& args) {
    return testenv().kubectl("-n " + ns_ + " " + args);
  }
  // Runs a kubectl command that writes one object and returns that object's resourceVersion.
  std::string kubectl_rv(const std::string& args) {
    return kubectl(args + " -o jsonpath='{.metadata.resourceVersion}'");
  }
  // What kubectl lists of the namespace's config maps, a quorum read.
  Contents kubectl_contents() {
    std::istringstream lines(kubectl(
        R"(get configmaps -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion}{"\n"}{end}')"));
    Contents out;
    for (std::string line; std::getline(lines, line);) {
      if (const auto eq = line.find('='); eq != std::string::npos) {
        out[line.substr(0, eq)] = line.substr(eq + 1);
      }
    }
    return out;
  }
  template <class K>
  static Contents contents(const kubex::runtime::Store<K>& store) {
    Contents out;
    for (const auto& o : store.list()) {
      out[o->metadata.name.value_or("")] = o->metadata.resource_version.value_or("");
    }
    return out;
  }

  std::string ns_;
};

TEST_F(reflector_test, reports_a_change_kubectl_made_once_its_store_holds_it) {
  const std::string before = kubectl_rv("create configmap before --from-literal=k=v");
  // The reflector's client runs on a thread of its own; this thread reads and waits.
  boost::asio::io_context ioc;
  auto work = boost::asio::make_work_guard(ioc);
  kubex::client::Client client(ioc.get_executor(), config(), client_options());
  kubex::runtime::Reflector<corev1::ConfigMap> reflector(
      kubex::client::Api<corev1::ConfigMap>::namespaced(client, ns_));
  EXPECT_EQ(reflector.last_synced_resource_version(), "");
  std::promise<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done.set_value(std::move(e)); });
  std::thread io([&ioc] { ioc.run(); });

  // The list's version is the cluster's at the read, so at or past the object made before it.
  ASSERT_TRUE(reflector.wait_until_synced_to(before, 30s));
  EXPECT_TRUE(reflector.store().ready());
  ASSERT_NE(reflector.store().get(ns_ + "/before"), nullptr);

  const std::string created = kubectl_rv("create configmap x --from-literal=k=v");
  // This server's versions are comparable (KEP-5504, Kubernetes 1.35): kubex relies on it.
  EXPECT_EQ(compare_resource_versions(created, before), std::strong_ordering::greater);
  ASSERT_TRUE(reflector.wait_until_synced_to(created, 30s))
      << "synced to " << reflector.last_synced_resource_version() << ", not " << created;
  auto x = reflector.store().get(ns_ + "/x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->metadata.resource_version, created);

  // kubectl label prints the object as it was before the patch: ask for it after.
  kubectl("label configmap x changed=yes");
  const std::string labelled = kubectl_rv("get configmap x");
  ASSERT_TRUE(reflector.wait_until_synced_to(labelled, 30s));
  x = reflector.store().get(ns_ + "/x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->metadata.resource_version, labelled);
  EXPECT_EQ(x->metadata.labels.at("changed"), "yes");
  EXPECT_TRUE(resource_version_reached(reflector.last_synced_resource_version(), labelled));
  EXPECT_EQ(contents(reflector.store()), kubectl_contents());
  EXPECT_EQ(reflector.stats().list_requests, 1U);  // read on this thread while the loop runs

  reflector.cancel();
  EXPECT_EQ(done.get_future().wait_for(30s), std::future_status::ready);
  work.reset();
  io.join();
}

TEST_F(reflector_test, a_blocking_reflector_shares_its_clients_connections_and_sees_kubectl) {
  for (const char* name : {"a", "b", "c"}) {
    kubectl(std::string("create configmap ") + name + " --from-literal=k=v");
  }
  BlockingClient bc(config(), client_options());
  auto api = BlockingApi<corev1::ConfigMap>::namespaced(bc, ns_);
  (void)api.list();  // the pool's first connection
  const auto before = bc.stats();
  ASSERT_EQ(before.connections_opened, 1U);

  kubex::runtime::BlockingReflector<corev1::ConfigMap> reflector(api);
  ASSERT_TRUE(reflector.wait_until_synced(30s));
  EXPECT_EQ(contents(reflector.store()), kubectl_contents());
  // Its list went through the BlockingClient's pool, on the connection already open.
  const auto synced = bc.stats();
  EXPECT_EQ(synced.connections_opened, 1U);
  EXPECT_GT(synced.connections_reused, before.connections_reused);

  const std::string created = kubectl_rv("create configmap d --from-literal=k=v");
  ASSERT_TRUE(reflector.wait_until_synced_to(created, 30s))
      << "synced to " << reflector.last_synced_resource_version() << ", not " << created;
  const auto d = reflector.store().get(ns_ + "/d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->metadata.resource_version, created);

  // The client's own calls go on beside the watch, which holds a connection of the same pool
  // (streams over HTTP/2 by default: at most one more).
  const std::string b_version = kubectl_rv("get configmap b");
  EXPECT_EQ(api.get("b").metadata.resource_version, b_version);
  kubectl("delete configmap b --wait=true");
  const std::string after_delete = kubectl_rv("create configmap e --from-literal=k=v");
  ASSERT_TRUE(reflector.wait_until_synced_to(after_delete, 30s));
  EXPECT_EQ(reflector.store().get(ns_ + "/b"), nullptr);
  EXPECT_EQ(contents(reflector.store()), kubectl_contents());
  // Any call of the client runs the reflector too: plain gets, until the change shows.
  const std::string made = kubectl_rv("create configmap f --from-literal=k=v");
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (!resource_version_reached(reflector.last_synced_resource_version(), made) &&
         std::chrono::steady_clock::now() < until) {
    (void)api.get("a");
  }
  EXPECT_NE(reflector.store().get(ns_ + "/f"), nullptr);
  EXPECT_LE(bc.stats().connections_opened, 2U);
  EXPECT_EQ(reflector.stats().list_requests, 1U);
  EXPECT_EQ(reflector.stats().watch_requests, 1U);

  reflector.stop();
  EXPECT_TRUE(reflector.stopped());
  (void)api.list();  // the client goes on without it
}

// A wait that cannot be met ends at its timeout, and the store stays usable.
TEST_F(reflector_test, a_blocking_reflectors_wait_for_a_version_not_yet_written_times_out) {
  BlockingClient bc(config(), client_options());
  kubex::runtime::BlockingReflector<corev1::ConfigMap> reflector(
      BlockingApi<corev1::ConfigMap>::namespaced(bc, ns_));
  ASSERT_TRUE(reflector.wait_until_synced(30s));
  const std::string synced = reflector.last_synced_resource_version();
  ASSERT_FALSE(synced.empty());
  // Far past anything the server will write during the test.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(reflector.wait_until_synced_to("9" + synced + "000000", 300ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(reflector.store().size(), 1U);  // kube-root-ca.crt
}

}  // namespace
