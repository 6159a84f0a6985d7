// SPDX-License-Identifier: Apache-2.0
// The controller against the real apiserver: config maps labelled role=source are reconciled
// into copies they own (server-side apply, an owner reference), and kubectl, the independent
// second client, checks that the copies converge, follow a change of their source, come back
// when deleted (the owns relation), and go with their source (the garbage collector follows
// the owner reference the controller wrote). A shutdown finishes cleanly.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking.hpp>
#include <kubex/client/client.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/events/v1.hpp>
#include <kubex/runtime/controller.hpp>
#include <kubex/runtime/event_recorder.hpp>
#include <kubex/runtime/finalizer.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;
using kubex::runtime::Action;
using kubex::runtime::Controller;
using namespace std::chrono_literals;

// The copy of a source config map, owned by it.
corev1::ConfigMap copy_of(const corev1::ConfigMap& source) {
  corev1::ConfigMap copy;
  copy.api_version = "v1";
  copy.kind = "ConfigMap";
  copy.metadata.name = source.metadata.name.value_or("") + "-copy";
  copy.metadata.namespace_ = source.metadata.namespace_;
  copy.metadata.labels = {{"role", "copy"}};
  copy.metadata.owner_references = {{.api_version = "v1",
                                     .kind = "ConfigMap",
                                     .block_owner_deletion = true,
                                     .controller = true,
                                     .name = source.metadata.name.value_or(""),
                                     .uid = source.metadata.uid.value_or("")}};
  copy.data = source.data;
  return copy;
}

const std::string finalizer_name = "kubex.test/copies";

// Applies the copy of `source`.
boost::asio::awaitable<Action> apply_copy(Api<corev1::ConfigMap> api,
                                          std::shared_ptr<const corev1::ConfigMap> source) {
  const corev1::ConfigMap copy = copy_of(*source);
  co_await api.async_apply(copy, "kubex-copier", true, boost::asio::use_awaitable);
  co_return Action::await_change();
}

// A controller of the namespace's sources and their copies, on a thread of its own. With
// `finalizer`, a source keeps a finalizer until its copy is deleted by the controller itself.
class RunningCopier {
 public:
  RunningCopier(const kubex::client::ClientConfig& config, const std::string& ns,
                bool finalizer = false)
      : client_(ioc_.get_executor(), config) {
    auto sources = Api<corev1::ConfigMap>::namespaced(client_, ns);
    kubex::runtime::ControllerConfig<corev1::ConfigMap> cc;
    cc.reflector.watcher.label_selector = "role=source";
    cc.on_reconcile = [this](const kubex::runtime::ReconcileRecord& r) {
      (r.error ? failures_ : reconciles_)++;
      const std::lock_guard lock(mutex_);
      ++by_key_[std::string(r.key)];
    };
    controller_.emplace(sources, cc);
    kubex::runtime::ReflectorConfig<kubex::PartialObjectMeta<corev1::ConfigMap>> copies;
    copies.watcher.label_selector = "role=copy";
    controller_->owns(sources, copies);
    // A secret labelled feeds=<source> is an input of that source: watches, with a mapper.
    kubex::runtime::ReflectorConfig<corev1::Secret> feeds;
    feeds.watcher.label_selector = "feeds";
    controller_->watches(
        Api<corev1::Secret>::namespaced(client_, ns),
        [](const corev1::Secret& secret) {
          const auto feeds_of = secret.metadata.labels.find("feeds");
          return std::vector<kubex::runtime::ObjectRef>{
              {feeds_of->second, secret.metadata.namespace_.value_or("")}};
        },
        feeds);
    auto plain = [sources](std::shared_ptr<const corev1::ConfigMap> source) {
      return apply_copy(sources, std::move(source));
    };
    auto finalized = [this, sources](std::shared_ptr<const corev1::ConfigMap> source) {
      return kubex::runtime::finalize(
          sources, finalizer_name, std::move(source),
          [this, sources](
              kubex::runtime::FinalizerEvent event,
              std::shared_ptr<const corev1::ConfigMap> object) -> boost::asio::awaitable<Action> {
            if (event == kubex::runtime::FinalizerEvent::apply) {
              co_return co_await apply_copy(sources, std::move(object));
            }
            const std::string copy = object->metadata.name.value_or("") + "-copy";
            auto [error, deleted] = co_await sources.async_delete(
                copy, boost::asio::as_tuple(boost::asio::use_awaitable));
            if (error && kubex::Failure(error).http_status() != 404) {
              std::rethrow_exception(error);  // gone already is done
            }
            ++cleanups_;
            co_return Action::await_change();
          });
    };
    using Reconciler = Controller<corev1::ConfigMap>::Reconciler;
    controller_->async_run(finalizer ? Reconciler(finalized) : Reconciler(plain),
                           [this](std::exception_ptr e) { done_.set_value(std::move(e)); });
    io_ = std::thread([this] { ioc_.run(); });
  }
  ~RunningCopier() {
    if (!stopped_) {
      controller_->shutdown();
      (void)done_.get_future().wait_for(30s);
    }
    work_.reset();
    ioc_.stop();
    io_.join();
  }
  RunningCopier(const RunningCopier&) = delete;
  RunningCopier& operator=(const RunningCopier&) = delete;

  // Shuts the controller down; true when async_run completed without error in time.
  bool shutdown() {
    stopped_ = true;
    controller_->shutdown();
    auto result = done_.get_future();
    return result.wait_for(30s) == std::future_status::ready && result.get() == nullptr;
  }
  Controller<corev1::ConfigMap>& controller() { return *controller_; }
  [[nodiscard]] int reconciles() const { return reconciles_; }
  [[nodiscard]] int failures() const { return failures_; }
  [[nodiscard]] int cleanups() const { return cleanups_; }
  // Reconciles of `key` ("namespace/name") that returned.
  [[nodiscard]] int reconciles_of(const std::string& key) {
    const std::lock_guard lock(mutex_);
    return by_key_[key];
  }

 private:
  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      ioc_.get_executor()};
  kubex::client::Client client_;
  std::optional<Controller<corev1::ConfigMap>> controller_;
  std::promise<std::exception_ptr> done_;
  std::atomic<int> reconciles_{0};
  std::atomic<int> failures_{0};
  std::atomic<int> cleanups_{0};
  std::mutex mutex_;
  std::map<std::string, int> by_key_;
  bool stopped_ = false;
  std::thread io_;
};

class controller_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ns_ = own_namespace();
  }

  std::string kubectl(const std::string& args) {
    return testenv().kubectl("-n " + ns_ + " " + args);
  }
  // A jsonpath of config map `name`, empty when there is none.
  std::string field(const std::string& name, const std::string& path) {
    return kubectl("get configmap " + name + " --ignore-not-found -o jsonpath='" + path + "'");
  }
  void source(const std::string& name, const std::string& value) {
    kubectl("create configmap " + name + " --from-literal=k=" + value);
    kubectl("label configmap " + name + " role=source");
  }

  static bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = 30s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) {
        return false;
      }
      std::this_thread::sleep_for(100ms);
    }
    return true;
  }

  std::string ns_;
};

TEST_F(controller_test, copies_converge_follow_changes_heal_and_go_with_their_source) {
  source("one", "1");
  RunningCopier copier(config(), ns_);
  source("two", "2");
  source("three", "3");
  kubectl("create configmap bystander --from-literal=k=x");  // not a source: left alone

  // Convergence: a copy of each source, owned by it (the source's uid), with its data.
  ASSERT_TRUE(eventually([&] {
    return field("one-copy", "{.data.k}") == "1" && field("two-copy", "{.data.k}") == "2" &&
           field("three-copy", "{.data.k}") == "3";
  })) << kubectl("get configmaps --show-labels");
  EXPECT_EQ(field("two-copy", "{.metadata.ownerReferences[0].uid}"),
            field("two", "{.metadata.uid}"));
  EXPECT_EQ(field("two-copy", "{.metadata.ownerReferences[0].controller}"), "true");
  EXPECT_EQ(field("bystander-copy", "{.metadata.name}"), "");

  // A change of a source reaches its copy.
  kubectl(R"(patch configmap one --type merge -p '{"data":{"k":"1b"}}')");
  EXPECT_TRUE(eventually([&] { return field("one-copy", "{.data.k}") == "1b"; }));

  // Self-healing: a deleted copy is an owned object's change; its owner is reconciled again.
  const std::string old_uid = field("two-copy", "{.metadata.uid}");
  kubectl("delete configmap two-copy --wait=false");
  EXPECT_TRUE(eventually([&] {
    const std::string uid = field("two-copy", "{.metadata.uid}");
    return !uid.empty() && uid != old_uid && field("two-copy", "{.data.k}") == "2";
  }));

  // An edit of a copy by someone else is put right the same way.
  kubectl(R"(patch configmap three-copy --type merge -p '{"data":{"k":"tampered"}}')");
  EXPECT_TRUE(eventually([&] { return field("three-copy", "{.data.k}") == "3"; }));

  // A deleted source takes its copy with it: the garbage collector follows the owner
  // reference the controller wrote.
  kubectl("delete configmap three --wait=false");
  EXPECT_TRUE(eventually([&] { return field("three-copy", "{.metadata.name}").empty(); }, 60s));

  EXPECT_EQ(copier.failures(), 0);
  EXPECT_EQ(copier.controller().stats().in_flight, 0U);
  EXPECT_TRUE(copier.shutdown());
  // No reconcile without a change over the whole test, each change queueing at most one: the
  // three sources and their three copies created, one's change and its copy's, two-copy's
  // deletion and its new copy, three-copy's edit and its repair (the deletions of three and
  // of its copy find no source: skipped).
  EXPECT_GE(copier.reconciles(), 5);
  EXPECT_LE(copier.reconciles(), 12);
}

// Reconciles are counted over the whole test and compared with what the changes warrant: a
// source is reconciled once for its creation and once for its copy's (the apply that made the
// copy is the only write to it; a reconcile that applies the same copy again changes nothing),
// then once for each change of a secret whose mapper names it.
TEST_F(controller_test, a_watched_object_reconciles_what_its_mapper_names) {
  source("one", "1");
  source("two", "2");
  RunningCopier copier(config(), ns_);
  ASSERT_TRUE(eventually([&] {
    return field("one-copy", "{.data.k}") == "1" && field("two-copy", "{.data.k}") == "2";
  }));
  // The copies' creations came back (the queue never drops a key queued during its reconcile).
  ASSERT_TRUE(eventually([&] {
    return copier.reconciles_of(ns_ + "/one") == 2 && copier.reconciles_of(ns_ + "/two") == 2;
  })) << copier.reconciles_of(ns_ + "/one")
      << " " << copier.reconciles_of(ns_ + "/two");
  kubectl("create secret generic feed --from-literal=k=v");
  kubectl("label secret feed feeds=one");
  EXPECT_TRUE(eventually([&] { return copier.reconciles_of(ns_ + "/one") == 3; }));
  // Relabelled: the old name and the new one are both reconciled; the new one names no
  // source, so nothing is there to reconcile and it is skipped.
  kubectl("label secret feed feeds=nobody --overwrite");
  EXPECT_TRUE(eventually([&] {
    return copier.reconciles_of(ns_ + "/one") == 4 && copier.controller().stats().skipped == 1;
  })) << copier.reconciles_of(ns_ + "/one");
  EXPECT_TRUE(copier.shutdown());
  // Nothing else happened over the whole test: two was never named by the mapper, one not
  // reconciled more than its changes warrant, nobody never reconciled.
  EXPECT_EQ(copier.reconciles_of(ns_ + "/one"), 4);
  EXPECT_EQ(copier.reconciles_of(ns_ + "/two"), 2);
  EXPECT_EQ(copier.reconciles_of(ns_ + "/nobody"), 0);
  EXPECT_EQ(copier.controller().stats().skipped, 1U);
  EXPECT_EQ(copier.failures(), 0);
}

TEST_F(controller_test, a_reconcile_the_server_refuses_is_retried_until_it_succeeds) {
  // The copy of "blocked" cannot be applied while a config map of that name is immutable with
  // other data; once it is deleted, the retries get through.
  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"blocked-copy"},)"
      R"("immutable":true,"data":{"k":"old"}})"
      "\nEOF");
  source("blocked", "new");
  RunningCopier copier(config(), ns_);
  ASSERT_TRUE(eventually([&] { return copier.failures() >= 2; }));
  EXPECT_EQ(field("blocked-copy", "{.data.k}"), "old");
  kubectl("delete configmap blocked-copy --wait=false");
  EXPECT_TRUE(eventually([&] { return field("blocked-copy", "{.data.k}") == "new"; }));
  EXPECT_TRUE(copier.shutdown());
}

TEST_F(controller_test, a_finalizer_holds_the_source_until_the_cleanup_deleted_its_copy) {
  // Another controller's finalizer is there first: ours is added beside it and removed alone.
  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","labels":{"role":"source"},)"
      R"("finalizers":["other.example/keep"]},"data":{"k":"v"}})"
      "\nEOF");
  RunningCopier copier(config(), ns_, true);
  ASSERT_TRUE(eventually([&] {
    return field("held", "{.metadata.finalizers}") ==
               R"(["other.example/keep","kubex.test/copies"])" &&
           field("held-copy", "{.data.k}") == "v";
  })) << field("held", "{.metadata.finalizers}");

  kubectl("delete configmap held --wait=false");
  // The cleanup deleted the copy itself (the garbage collector would wait for the owner) and
  // removed our finalizer only; the other one still holds the source.
  EXPECT_TRUE(eventually([&] {
    return field("held", "{.metadata.finalizers}") == R"(["other.example/keep"])";
  })) << field("held", "{.metadata.finalizers}");
  EXPECT_EQ(field("held-copy", "{.metadata.name}"), "");
  // At least once: a reconcile may still see the source with our finalizer after it was
  // removed (the cache lags), so a cleanup must be idempotent, as with kube-rs and
  // controller-runtime.
  EXPECT_GE(copier.cleanups(), 1);
  EXPECT_NE(field("held", "{.metadata.deletionTimestamp}"), "");
  kubectl(
      R"(patch configmap held --type json -p '[{"op":"remove","path":"/metadata/finalizers/0"}]')");
  EXPECT_TRUE(eventually([&] { return field("held", "{.metadata.name}").empty(); }));
  EXPECT_TRUE(copier.shutdown());
}

// finalize() on its own, with an object read before another controller (kubectl) changed the
// finalizer list: its patch tests the list it read, the server refuses it, and finalize() reads
// the object again and redoes the change, keeping the other controller's finalizers.
class StaleFinalizerRun {
 public:
  explicit StaleFinalizerRun(const kubex::client::ClientConfig& config)
      : client_(ioc_.get_executor(), config) {}
  ~StaleFinalizerRun() {
    work_.reset();
    ioc_.stop();
    io_.join();
  }
  StaleFinalizerRun(const StaleFinalizerRun&) = delete;
  StaleFinalizerRun& operator=(const StaleFinalizerRun&) = delete;

  corev1::ConfigMap get(const std::string& ns, const std::string& name) {
    return Api<corev1::ConfigMap>::namespaced(client_, ns)
        .async_get(name, boost::asio::use_future)
        .get();
  }
  // finalize() on `stale`; the cleanups it ran.
  int finalize(const std::string& ns, const corev1::ConfigMap& stale) {
    auto api = Api<corev1::ConfigMap>::namespaced(client_, ns);
    auto object = std::make_shared<const corev1::ConfigMap>(stale);
    std::atomic<int> cleanups{0};
    const auto reconcile =
        [&cleanups](kubex::runtime::FinalizerEvent event,
                    std::shared_ptr<const corev1::ConfigMap>) -> boost::asio::awaitable<Action> {
      if (event == kubex::runtime::FinalizerEvent::cleanup) {
        ++cleanups;
      }
      co_return Action::await_change();
    };
    boost::asio::co_spawn(
        ioc_,
        [&]() -> boost::asio::awaitable<void> {
          (void)co_await kubex::runtime::finalize(api, finalizer_name, object, reconcile);
        },
        boost::asio::use_future)
        .get();
    return cleanups;
  }

 private:
  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      ioc_.get_executor()};
  kubex::client::Client client_;
  std::thread io_{[this] {
    ioc_.run();
  }};
};

TEST_F(controller_test, a_finalizer_added_from_a_stale_object_keeps_the_others) {
  StaleFinalizerRun run(config());
  // Read with no finalizers; another controller adds its own before ours is added. A patch
  // made from the stale (empty) list would replace the list with ours alone.
  kubectl("create configmap empty --from-literal=k=v");
  const corev1::ConfigMap empty = run.get(ns_, "empty");
  kubectl(
      R"(patch configmap empty --type merge -p '{"metadata":{"finalizers":["other.example/keep"]}}')");
  EXPECT_EQ(run.finalize(ns_, empty), 0);
  EXPECT_EQ(field("empty", "{.metadata.finalizers}"),
            R"(["other.example/keep","kubex.test/copies"])");

  // Read with one finalizer; a second one arrives before ours.
  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one","finalizers":["a.example/first"]}})"
      "\nEOF");
  const corev1::ConfigMap one = run.get(ns_, "one");
  kubectl(
      R"(patch configmap one --type json -p '[{"op":"add","path":"/metadata/finalizers/-","value":"b.example/second"}]')");
  EXPECT_EQ(run.finalize(ns_, one), 0);
  EXPECT_EQ(field("one", "{.metadata.finalizers}"),
            R"(["a.example/first","b.example/second","kubex.test/copies"])");

  // Ours is there already in what the server has: nothing is added twice.
  EXPECT_EQ(run.finalize(ns_, one), 0);
  EXPECT_EQ(field("one", "{.metadata.finalizers}"),
            R"(["a.example/first","b.example/second","kubex.test/copies"])");
  for (const std::string name : {"empty", "one"}) {
    kubectl("patch configmap " + name + R"( --type merge -p '{"metadata":{"finalizers":null}}')");
  }
}

TEST_F(controller_test, a_finalizer_removed_from_a_stale_object_keeps_the_others) {
  StaleFinalizerRun run(config());
  // Being deleted, read with ours in the middle; the first controller then removes its own,
  // which moves ours to index 0: removing index 1 as read would drop the last one instead.
  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"going","finalizers":)"
      R"(["a.example/first","kubex.test/copies","z.example/last"]}})"
      "\nEOF");
  kubectl("delete configmap going --wait=false");
  const corev1::ConfigMap going = run.get(ns_, "going");
  ASSERT_TRUE(going.metadata.deletion_timestamp);
  kubectl(
      R"(patch configmap going --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"a.example/first"},{"op":"remove","path":"/metadata/finalizers/0"}]')");
  EXPECT_EQ(run.finalize(ns_, going), 1);  // the cleanup ran once, not once per attempt
  EXPECT_EQ(field("going", "{.metadata.finalizers}"), R"(["z.example/last"])");
  kubectl(R"(patch configmap going --type merge -p '{"metadata":{"finalizers":null}}')");
  EXPECT_TRUE(eventually([&] { return field("going", "{.metadata.name}").empty(); }));
}

TEST_F(controller_test, repeated_events_about_an_object_count_in_one_series) {
  kubectl("create configmap subject --from-literal=k=v");
  boost::asio::io_context ioc;
  auto work = boost::asio::make_work_guard(ioc);
  std::thread io([&ioc] { ioc.run(); });
  {
    kubex::client::Client client(ioc.get_executor(), config());
    const auto subject = Api<corev1::ConfigMap>::namespaced(client, ns_)
                             .async_get("subject", boost::asio::use_future)
                             .get();
    kubex::runtime::EventRecorder<kubex::k8s::v1_35::events::v1::Event> recorder(
        client, {.reporting_controller = "kubex.test/copier", .reporting_instance = "test-0"});
    using kubex::runtime::EventType;
    for (int i = 0; i < 3; ++i) {
      recorder
          .async_record(subject, EventType::warning, "FailedSync", "Reconcile",
                        "the outside system is down", boost::asio::use_future)
          .get();
    }
    recorder
        .async_record(subject, EventType::normal, "Synced", "Reconcile", std::string(3000, 'x'),
                      boost::asio::use_future)
        .get();
    EXPECT_EQ(recorder.created(), 2U);
  }
  work.reset();
  io.join();
  const std::string events = kubectl(
      R"(get events.events.k8s.io -o jsonpath='{range .items[*]}{.reason},{.type},)"
      R"({.regarding.name},{.regarding.uid},{.reportingController},{.series.count};{end}')");
  const std::string uid = field("subject", "{.metadata.uid}");
  EXPECT_NE(events.find("FailedSync,Warning,subject," + uid + ",kubex.test/copier,3;"),
            std::string::npos)
      << events;
  EXPECT_NE(events.find("Synced,Normal,subject," + uid + ",kubex.test/copier,;"), std::string::npos)
      << events;
  const std::string note =
      kubectl(R"(get events.events.k8s.io -o jsonpath='{.items[?(@.reason=="Synced")].note}')");
  EXPECT_EQ(note.size(), 1024U);  // cut to the API's limit instead of refused
}

}  // namespace
