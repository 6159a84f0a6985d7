// SPDX-License-Identifier: Apache-2.0
// Api<T> against the real apiserver: every verb and option, patches of every type, server-side
// apply, metadata-only calls, watch streams, pagination, subresources and logs. kubectl is the
// independent second client where what kubex wrote must be read identically.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/discovery.hpp>
#include <kubex/client/dynamic.hpp>
#include <kubex/client/pager.hpp>
#include <kubex/core/merge_patch.hpp>
#include <kubex/core/selector.hpp>
#include <kubex/core/time.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/authentication/v1.hpp>
#include <kubex/k8s/v1_35/autoscaling/v1.hpp>
#include <kubex/k8s/v1_35/certificates/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>
#include <kubex/k8s/v1_35/policy/v1.hpp>
#include <kubex/testing/crontab.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include "json_tree.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

namespace corev1 = kubex::k8s::v1_35::core::v1;
namespace appsv1 = kubex::k8s::v1_35::apps::v1;
namespace autoscalingv1 = kubex::k8s::v1_35::autoscaling::v1;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::testing::shell_quote;

corev1::ConfigMap config_map(const std::string& name,
                             std::map<std::string, std::string> data = {{"k", "v"}}) {
  corev1::ConfigMap cm;
  cm.metadata.name = name;
  cm.data = std::move(data);
  return cm;
}

// `object` as compact JSON with the whitespace inside raw values (managedFields' fieldsV1,
// which kubectl pretty-prints) normalised, so that equal objects compare equal as text.
template <class T>
std::string canonical(const T& object) {
  return kubex_test::to_json(kubex_test::parse_json(kubex::json::encode(object)));
}

// The ApiError a call throws; fails the test when it does not throw one.
template <class F>
std::optional<kubex::ApiError> api_error_of(F&& f) {
  try {
    f();
  } catch (const kubex::ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an ApiError";
  return std::nullopt;
}

class api_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    client_.emplace(config(), client_options());
    ns_ = own_namespace();
    // Tests watch and count what the namespace holds: let its one asynchronous arrival land
    // first.
    wait_for_root_ca();
  }
  void TearDown() override {
    // The h2. run must really have spoken HTTP/2, and the h1. run nothing but HTTP/1.1 (the
    // default run's mix is checked by http2_test).
    if (client_ && client_->stats().connections_opened > 0) {
      const auto options = client_options();
      if (options.http2) {
        EXPECT_GT(client_->stats().http2_streams, 0U);
      } else if (!options.http2_for_streams) {
        EXPECT_EQ(client_->stats().http2_streams, 0U);
      }
      // The pb. run must really have read protobuf where a test reads built-in kinds, and
      // JSON where it reads only custom resources (the server has no protobuf for them);
      // the other runs never protobuf.
      if (options.encoding == kubex::client::Encoding::protobuf && reads_builtin_kinds_) {
        EXPECT_GT(client_->stats().protobuf_responses, 0U);
      } else {
        EXPECT_EQ(client_->stats().protobuf_responses, 0U);
      }
    }
  }
  BlockingClient& client() { return *client_; }
  template <class T>
  BlockingApi<T> api() {
    return BlockingApi<T>::namespaced(*client_, ns_);
  }
  std::string kubectl(const std::string& args) {
    return testenv().kubectl("-n " + ns_ + " " + args);
  }

  std::optional<BlockingClient> client_;
  std::string ns_;
  // False in tests that read no built-in kind through Api<T>: none of their answers may come
  // as protobuf.
  bool reads_builtin_kinds_ = true;
};

TEST_F(api_test, create_get_list_replace_delete_round_trip) {
  auto cms = api<corev1::ConfigMap>();
  auto a = config_map("a", {{"k", "1"}});
  a.metadata.labels["test"] = "round-trip";
  auto created = cms.create(a);
  EXPECT_EQ(created.metadata.namespace_, ns_);
  ASSERT_TRUE(created.metadata.uid.has_value());

  const auto got = cms.get("a");
  EXPECT_EQ(got, created);
  EXPECT_FALSE(cms.get_opt("missing").has_value());
  EXPECT_TRUE(cms.get_opt("a").has_value());
  auto missing = api_error_of([&] { (void)cms.get("missing"); });
  ASSERT_TRUE(missing);
  EXPECT_TRUE(kubex::is_not_found(*missing));

  auto b = config_map("b");
  b.metadata.labels["test"] = "round-trip";
  cms.create(b);
  const auto list = cms.list({.label_selector = "test=round-trip"});
  ASSERT_EQ(list.items.size(), 2U);
  EXPECT_GE(cms.list().items.size(), 2U);  // plus kube-root-ca.crt once its controller made it
  EXPECT_TRUE(list.metadata.resource_version.has_value());

  // Optimistic concurrency: a replace from a stale copy fails with 409 Conflict.
  auto fresh = got;
  fresh.data["k"] = "2";
  const auto replaced = cms.replace(fresh);
  EXPECT_EQ(replaced.data.at("k"), "2");
  auto stale = got;
  stale.data["k"] = "3";
  auto conflict = api_error_of([&] { (void)cms.replace(stale); });
  ASSERT_TRUE(conflict);
  EXPECT_TRUE(kubex::is_conflict(*conflict));

  // A ConfigMap goes at once: the server answers with a Status, not the object.
  const auto deleted = cms.delete_("a");
  ASSERT_TRUE(std::holds_alternative<kubex::Status>(deleted));
  EXPECT_EQ(std::get<kubex::Status>(deleted).status, "Success");
  EXPECT_FALSE(cms.get_opt("a").has_value());
}

TEST_F(api_test, what_kubex_writes_kubectl_reads_and_vice_versa) {
  auto cms = api<corev1::ConfigMap>();
  auto cm = config_map("written-by-kubex", {{"text", "héllo \"world\"\n"}});
  cm.metadata.labels["app"] = "x";
  cms.create(cm);
  const auto by_kubectl = kubex::json::decode<corev1::ConfigMap>(
      kubectl("get configmap written-by-kubex -o json --show-managed-fields"));
  EXPECT_EQ(canonical(by_kubectl), canonical(cms.get("written-by-kubex")));
  EXPECT_EQ(by_kubectl.data.at("text"), "héllo \"world\"\n");

  kubectl("create configmap written-by-kubectl --from-literal=a=1 --from-literal=b=2");
  const auto read = cms.get("written-by-kubectl");
  EXPECT_EQ(read.data, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(canonical(read),
            canonical(kubex::json::decode<corev1::ConfigMap>(
                kubectl("get configmap written-by-kubectl -o json --show-managed-fields"))));
}

TEST_F(api_test, merge_patch_can_delete_a_field) {
  auto cms = api<corev1::ConfigMap>();
  auto cm = config_map("m", {{"keep", "1"}, {"drop", "2"}});
  cm.metadata.labels = {{"a", "1"}, {"b", "2"}};
  const auto original = cms.create(cm);

  const auto patched = cms.patch(
      "m", kubex::Patch::merge(R"({"metadata":{"labels":{"a":null}},"data":{"drop":null}})"));
  EXPECT_EQ(patched.metadata.labels, (std::map<std::string, std::string>{{"b", "2"}}));
  EXPECT_EQ(patched.data, (std::map<std::string, std::string>{{"keep", "1"}}));

  // The same from two typed objects: removing a map entry sends null for it.
  auto modified = patched;
  modified.metadata.labels.erase("b");
  const auto typed =
      cms.patch("m", kubex::Patch::merge(kubex::json::create_merge_patch(patched, modified)));
  EXPECT_TRUE(typed.metadata.labels.empty());
  EXPECT_EQ(kubectl("get configmap m -o jsonpath={.metadata.labels}"), "");
}

// What the apiserver sends for one kind is refused as another: its Deployment is not a Pod,
// and its single Pod is not a PodList (which would otherwise read as an empty list).
TEST_F(api_test, a_body_of_another_kind_is_refused_when_decoded) {
  reads_builtin_kinds_ = false;  // raw requests, decoded as JSON
  kubectl("create deployment web --image=registry.k8s.io/pause:3.10 >/dev/null");
  kubectl("create configmap settings --from-literal=a=1 >/dev/null");
  auto deployment = client().get("/apis/apps/v1/namespaces/" + ns_ + "/deployments/web");
  ASSERT_EQ(deployment.status, 200U);
  try {
    (void)kubex::client::detail::decode_body<corev1::Pod>(deployment.body);
    ADD_FAILURE() << "a Deployment decoded as a Pod";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "the response is a Deployment (apps/v1), not a Pod (v1)");
  }
  auto single = client().get("/api/v1/namespaces/" + ns_ + "/configmaps/settings");
  ASSERT_EQ(single.status, 200U);
  try {
    (void)kubex::client::detail::decode_body<corev1::ConfigMapList>(single.body);
    ADD_FAILURE() << "a ConfigMap decoded as a list";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "the response is a ConfigMap (v1), not a ConfigMapList (v1)");
  }
  // The same bodies decode as what they are.
  EXPECT_EQ(kubex::client::detail::decode_body<appsv1::Deployment>(deployment.body).metadata.name,
            "web");
}

TEST_F(api_test, strategic_and_json_patches) {
  auto deployments = api<appsv1::Deployment>();
  appsv1::Deployment d;
  d.metadata.name = "web";
  d.metadata.labels = {{"app", "web"}};
  auto& spec = d.spec.ensure();
  spec.selector.match_labels = {{"app", "web"}};
  auto& tpl = spec.template_;
  tpl.metadata.labels = {{"app", "web"}};
  corev1::Container a;
  a.name = "a";
  a.image = "registry.k8s.io/pause:3.10";
  corev1::Container b = a;
  b.name = "b";
  tpl.spec.ensure().containers = {a, b};
  deployments.create(d);

  // Strategic merge: containers merge by name, so this changes b's image and keeps a.
  const auto s = deployments.patch(
      "web", kubex::Patch::strategic(
                 R"({"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}})"));
  const auto& containers = s.spec->template_.spec->containers;
  ASSERT_EQ(containers.size(), 2U);
  EXPECT_EQ(containers[0].image, "registry.k8s.io/pause:3.10");
  EXPECT_EQ(containers[1].image, "b:2");

  // JSON patch with a test guard: applies when the guard holds, changes nothing when not.
  // The guard is on the spec: the deployment controller writes the metadata and status
  // (revision annotation) at any moment, so a resourceVersion guard would race with it.
  ASSERT_EQ(s.spec->replicas, 1);  // the server's default
  const auto j = deployments.patch(
      "web", kubex::Patch::json(
                 kubex::JsonPatch{}
                     .test("/spec/replicas", 1)
                     .replace("/spec/replicas", 3)
                     .add(kubex::json_pointer({"metadata", "labels", "example.com/x"}), "y")));
  EXPECT_EQ(j.spec->replicas, 3);
  EXPECT_EQ(j.metadata.labels.at("example.com/x"), "y");
  auto failed = api_error_of([&] {
    (void)deployments.patch(
        "web", kubex::Patch::json(
                   kubex::JsonPatch{}.test("/spec/replicas", 1).replace("/spec/replicas", 5)));
  });
  ASSERT_TRUE(failed);
  EXPECT_EQ(deployments.get("web").spec->replicas, 3);
}

TEST_F(api_test, server_side_apply_conflict_then_force) {
  auto cms = api<corev1::ConfigMap>();
  auto cm = config_map("ssa", {{"k", "from-a"}});
  cm.api_version.clear();  // apply must still send apiVersion and kind
  cm.kind.clear();
  const auto a = cms.apply(cm, "manager-a");
  EXPECT_EQ(a.data.at("k"), "from-a");

  auto other = config_map("ssa", {{"k", "from-b"}});
  auto conflict = api_error_of([&] { (void)cms.apply(other, "manager-b"); });
  ASSERT_TRUE(conflict);
  EXPECT_TRUE(kubex::is_conflict(*conflict));
  EXPECT_NE(std::string(conflict->what()).find("manager-a"), std::string::npos) << conflict->what();

  const auto forced = cms.apply(other, "manager-b", true);
  EXPECT_EQ(forced.data.at("k"), "from-b");
  std::set<std::string> managers;
  for (const auto& entry : forced.metadata.managed_fields) {
    managers.insert(entry.manager.value_or(""));
  }
  EXPECT_TRUE(managers.contains("manager-b"));
}

TEST_F(api_test, delete_preconditions_and_dry_run) {
  auto cms = api<corev1::ConfigMap>();
  const auto cm = cms.create(config_map("p"));

  auto wrong_uid = api_error_of([&] {
    (void)cms.delete_("p", {.preconditions = {.uid = "00000000-0000-0000-0000-000000000000"}});
  });
  ASSERT_TRUE(wrong_uid);
  EXPECT_TRUE(kubex::is_conflict(*wrong_uid));
  auto wrong_rv =
      api_error_of([&] { (void)cms.delete_("p", {.preconditions = {.resource_version = "1"}}); });
  ASSERT_TRUE(wrong_rv);
  EXPECT_TRUE(kubex::is_conflict(*wrong_rv));

  // dryRun: the server validates and answers, but nothing is stored or removed.
  cms.create(config_map("dry"), {.dry_run = true});
  EXPECT_FALSE(cms.get_opt("dry").has_value());
  cms.delete_("p", {.dry_run = true});
  EXPECT_TRUE(cms.get_opt("p").has_value());
  cms.patch("p", kubex::Patch::merge(R"({"data":{"k":"changed"}})"), {.dry_run = true});
  EXPECT_EQ(cms.get("p").data.at("k"), "v");

  const auto gone =
      cms.delete_("p", {.grace_period_seconds = 0,
                        .propagation_policy = kubex::PropagationPolicy::background,
                        .preconditions = {.uid = cm.metadata.uid,
                                          .resource_version = cm.metadata.resource_version}});
  EXPECT_TRUE(std::holds_alternative<kubex::Status>(gone));
  EXPECT_FALSE(cms.get_opt("p").has_value());
}

TEST_F(api_test, delete_of_an_object_with_finalizers_returns_it_still_terminating) {
  auto cms = api<corev1::ConfigMap>();
  auto held = config_map("held");
  held.metadata.finalizers = {"example.com/hold"};
  cms.create(held);
  const auto result = cms.delete_("held");
  ASSERT_TRUE(std::holds_alternative<corev1::ConfigMap>(result));
  const auto& terminating = std::get<corev1::ConfigMap>(result);
  EXPECT_TRUE(terminating.metadata.deletion_timestamp.has_value());
  EXPECT_TRUE(cms.get_opt("held").has_value());
  // Removing the finalizer (merge patch with null) lets the deletion finish.
  cms.patch("held", kubex::Patch::merge(R"({"metadata":{"finalizers":null}})"));
  EXPECT_FALSE(cms.get_opt("held").has_value());
}

TEST_F(api_test, field_validation_strict_rejects_unknown_fields) {
  auto cms = api<corev1::ConfigMap>();
  auto cm = config_map("v");
  cm.unknown_fields.add("bogusField", "1");
  auto strict = api_error_of(
      [&] { (void)cms.create(cm, {.field_validation = kubex::FieldValidation::strict}); });
  ASSERT_TRUE(strict);
  EXPECT_TRUE(kubex::is_bad_request(*strict));
  EXPECT_NE(std::string(strict->what()).find("bogusField"), std::string::npos) << strict->what();
  // Ignore drops it and stores the rest.
  const auto stored = cms.create(cm, {.field_validation = kubex::FieldValidation::ignore});
  EXPECT_TRUE(stored.unknown_fields.empty());
}

TEST_F(api_test, delete_collection_by_label) {
  auto cms = api<corev1::ConfigMap>();
  for (const char* name : {"x1", "x2", "y1"}) {
    auto cm = config_map(name);
    cm.metadata.labels["group"] = std::string(name).substr(0, 1);
    cms.create(cm);
  }
  const auto result =
      cms.delete_collection({}, {.label_selector = kubex::LabelSelector{}.eq("group", "x").str()});
  ASSERT_TRUE(std::holds_alternative<corev1::ConfigMapList>(result));
  EXPECT_EQ(std::get<corev1::ConfigMapList>(result).items.size(), 2U);
  const auto left = cms.list({.label_selector = "group"});
  ASSERT_EQ(left.items.size(), 1U);
  EXPECT_EQ(left.items[0].metadata.name, "y1");
}

TEST_F(api_test, pagination_over_250_objects_with_limit_100) {
  // 250 creates in flight together through the async Api (the pool bounds the connections).
  auto cms = kubex::client::Api<corev1::ConfigMap>::namespaced(client().async_client(), ns_);
  std::vector<std::future<corev1::ConfigMap>> pending;
  for (int i = 0; i < 250; ++i) {
    pending.push_back(
        cms.async_create(config_map("page-" + std::to_string(i)), boost::asio::use_future));
  }
  for (auto& f : pending) {
    client().wait(std::move(f));
  }

  kubex::client::Pager<corev1::ConfigMap> pager(cms, {.limit = 100});
  std::vector<std::size_t> sizes;
  std::set<std::string> names;
  std::optional<std::int64_t> first_remaining;
  while (auto page = client().wait(pager.async_next(boost::asio::use_future))) {
    if (sizes.empty()) {
      first_remaining = page->metadata.remaining_item_count;
    }
    sizes.push_back(page->items.size());
    for (const auto& cm : page->items) {
      names.insert(*cm.metadata.name);
    }
  }
  // kube-root-ca.crt is in every namespace too.
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 100, 51}));
  EXPECT_EQ(first_remaining, 151);
  EXPECT_EQ(names.size(), 251U);
  EXPECT_EQ(pager.restarts(), 0U);
  EXPECT_TRUE(pager.done());
}

TEST_F(api_test, metadata_only_get_list_patch_and_watch) {
  auto cms = api<corev1::ConfigMap>();
  auto cm = config_map("meta", {{"big", std::string(10000, 'x')}});
  cm.metadata.labels["l"] = "1";
  cms.create(cm);

  const auto m = cms.get_metadata("meta");
  EXPECT_EQ(m.kind, "PartialObjectMetadata");
  EXPECT_EQ(m.metadata.labels.at("l"), "1");
  EXPECT_TRUE(m.unknown_fields.empty());  // no data: the server sent metadata only

  const auto list = cms.list_metadata({.label_selector = "l=1"});
  EXPECT_EQ(list.kind, "PartialObjectMetadataList");
  ASSERT_EQ(list.items.size(), 1U);
  EXPECT_EQ(list.items[0].metadata.name, "meta");

  auto watch = cms.watch_metadata({.resource_version = *list.metadata.resource_version});
  const auto patched = client().wait(cms.async().async_patch_metadata(
      "meta", kubex::Patch::merge(R"({"metadata":{"labels":{"l":"2"}}})"), {},
      boost::asio::use_future));
  EXPECT_EQ(patched.metadata.labels.at("l"), "2");
  EXPECT_TRUE(patched.unknown_fields.empty());
  auto event = watch.next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, kubex::WatchEventType::modified);
  EXPECT_EQ(event->object.kind, "PartialObjectMetadata");
  EXPECT_EQ(event->object.metadata.labels.at("l"), "2");
  EXPECT_TRUE(event->object.unknown_fields.empty());
}

TEST_F(api_test, watch_sees_create_modify_delete_in_order) {
  auto cms = api<corev1::ConfigMap>();
  const auto start = cms.list();
  auto watch = cms.watch({.resource_version = *start.metadata.resource_version,
                          .allow_bookmarks = true,
                          .timeout_seconds = 60});
  cms.create(config_map("w"));
  cms.patch("w", kubex::Patch::merge(R"({"data":{"k":"2"}})"));
  cms.delete_("w");

  std::vector<kubex::WatchEventType> seen;
  while (seen.size() < 3) {
    auto event = watch.next();
    ASSERT_TRUE(event) << "the watch ended early";
    if (event->type == kubex::WatchEventType::bookmark) {
      continue;
    }
    EXPECT_EQ(event->object.metadata.name, "w");
    seen.push_back(event->type);
    if (event->type == kubex::WatchEventType::modified) {
      EXPECT_EQ(event->object.data.at("k"), "2");
    }
  }
  EXPECT_EQ(seen, (std::vector<kubex::WatchEventType>{kubex::WatchEventType::added,
                                                      kubex::WatchEventType::modified,
                                                      kubex::WatchEventType::deleted}));
}

// Compaction expires resourceVersions for every test running at the same time: these run
// serially (ctest RUN_SERIAL, selected by the _disruptive_test suffix).
using api_disruptive_test = api_test;

TEST_F(api_disruptive_test, watch_from_a_compacted_resource_version_is_a_typed_410) {
  // testenv serves podtemplates without the watch cache, so this watch reaches etcd, whose
  // history before the compaction is gone.
  auto templates = api<corev1::PodTemplate>();
  corev1::PodTemplate pt;
  pt.metadata.name = "before";
  auto& c = pt.template_.ensure().spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  const auto old_rv = *templates.create(pt).metadata.resource_version;
  pt.metadata.name = "after";
  templates.create(pt);
  // One more write, so that the watch's first revision (old_rv + 1) is below the compaction.
  templates.patch("after", kubex::Patch::merge(R"({"metadata":{"labels":{"x":"1"}}})"));
  testenv().compact_etcd();
  auto watch = templates.watch({.resource_version = old_rv});
  auto event = watch.next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, kubex::WatchEventType::error);
  EXPECT_EQ(event->status.code, 410);
  EXPECT_EQ(event->status.reason, "Expired");
  EXPECT_FALSE(event->status.message.empty());
  // The server ends the stream after the ERROR event: the end is clean and distinguishable.
  EXPECT_FALSE(watch.next().has_value());
}

TEST_F(api_disruptive_test, pager_restarts_when_its_continue_token_expires) {
  // PodTemplates: served from etcd (testenv disables their watch cache, which would otherwise
  // answer continued lists from its own snapshots).
  auto templates = api<corev1::PodTemplate>();
  corev1::PodTemplate pt;
  pt.metadata.labels["pager"] = "yes";
  auto& c = pt.template_.ensure().spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  for (int i = 0; i < 5; ++i) {
    pt.metadata.name = "c" + std::to_string(i);
    templates.create(pt);
  }
  kubex::client::Pager<corev1::PodTemplate> pager(templates.async(),
                                                  {.label_selector = "pager=yes", .limit = 2});
  auto first = client().wait(pager.async_next(boost::asio::use_future));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->items.size(), 2U);
  ASSERT_TRUE(first->metadata.continue_.has_value());

  // The token now points at compacted data: without the pager, the server answers 410.
  pt.metadata.name = "bump";
  pt.metadata.labels.clear();
  templates.create(pt);
  testenv().compact_etcd();
  auto expired = api_error_of([&] {
    (void)templates.list(
        {.label_selector = "pager=yes", .limit = 2, .continue_token = *first->metadata.continue_});
  });
  ASSERT_TRUE(expired);
  EXPECT_TRUE(kubex::is_gone(*expired)) << expired->what();

  std::vector<std::string> names;
  while (auto page = client().wait(pager.async_next(boost::asio::use_future))) {
    for (const auto& item : page->items) {
      names.push_back(*item.metadata.name);
    }
  }
  EXPECT_EQ(pager.restarts(), 1U);
  // Started over: the whole list again, in order.
  EXPECT_EQ(names, (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4"}));
}

TEST_F(api_test, watch_ends_cleanly_on_server_timeout_and_can_be_cancelled) {
  auto cms = api<corev1::ConfigMap>();
  // A selector nothing matches: the namespace is new, and its kube-root-ca.crt may appear
  // while the watch runs.
  auto timed = cms.watch({.label_selector = "kubex-test=nothing",
                          .resource_version = *cms.list().metadata.resource_version,
                          .timeout_seconds = 1});
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(timed.next().has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));

  // Cancellation from another thread ends a pending next() with operation_canceled.
  auto open = cms.watch({.label_selector = "kubex-test=nothing",
                         .resource_version = *cms.list().metadata.resource_version});
  std::thread canceller([&open] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    open.cancel();
  });
  try {
    (void)open.next();
    ADD_FAILURE() << "next() returned after cancel()";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_canceled) << e.what();
  }
  canceller.join();
}

TEST_F(api_test, coroutines_use_the_same_api) {
  boost::asio::io_context ioc;
  kubex::client::Client c(ioc.get_executor(), config());
  auto cms = kubex::client::Api<corev1::ConfigMap>::namespaced(c, ns_);
  // Built outside the coroutine: GCC 12 miscompiles braced string literals inside one.
  const auto cm = config_map("co", {{"k", "coroutine"}});
  auto result = boost::asio::co_spawn(
      ioc,
      [cms, cm]() -> boost::asio::awaitable<std::string> {
        co_await cms.async_create(cm, boost::asio::use_awaitable);
        auto got = co_await cms.async_get("co", boost::asio::use_awaitable);
        auto none = co_await cms.async_get_opt("nope", boost::asio::use_awaitable);
        co_return got.data.at("k") + (none ? "!" : "");
      },
      boost::asio::use_future);
  ioc.run();
  EXPECT_EQ(result.get(), "coroutine");
}

TEST_F(api_test, status_and_scale_subresources) {
  auto deployments = api<appsv1::Deployment>();
  appsv1::Deployment d;
  d.metadata.name = "scaled";
  auto& spec = d.spec.ensure();
  spec.replicas = 2;
  spec.selector.match_labels = {{"app", "scaled"}};
  spec.template_.metadata.labels = {{"app", "scaled"}};
  corev1::Container c;
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  spec.template_.spec.ensure().containers = {c};
  deployments.create(d);

  const auto& a = deployments.async();
  auto scale = client().wait(
      a.async_get_subresource<"scale", autoscalingv1::Scale>("scaled", boost::asio::use_future));
  EXPECT_EQ(scale.spec->replicas, 2);
  scale.spec->replicas = 0;  // zero must be sent, not dropped as "empty"
  // Unconditional, as kubectl scale does: the deployment controller keeps writing the object's
  // status, so the resourceVersion just read may already be stale.
  scale.metadata.resource_version.reset();
  const auto scaled = client().wait(a.async_replace_subresource<"scale", autoscalingv1::Scale>(
      "scaled", scale, {}, boost::asio::use_future));
  // The server leaves replicas out of a Scale when it is 0 (Go's omitempty).
  EXPECT_EQ(scaled.spec->replicas.value_or(0), 0);
  EXPECT_EQ(deployments.get("scaled").spec->replicas, 0);
  EXPECT_EQ(kubectl("get deployment scaled -o jsonpath={.spec.replicas}"), "0");

  const auto patched = client().wait(a.async_patch_subresource<"scale", autoscalingv1::Scale>(
      "scaled", kubex::Patch::merge(R"({"spec":{"replicas":1}})"), {}, boost::asio::use_future));
  EXPECT_EQ(patched.spec->replicas, 1);

  // status: written through the subresource only. The deployment controller rewrites its own
  // fields (observedGeneration, replicas), so the test sets a condition type of its own, which
  // the controller keeps.
  const auto has_check = [](const appsv1::Deployment& dep) {
    if (!dep.status) {
      return false;
    }
    for (const auto& cond : dep.status->conditions) {
      if (cond.type == "example.com/Checked" && cond.status == "True") {
        return true;
      }
    }
    return false;
  };
  const auto status = client().wait(a.async_patch_status(
      "scaled",
      // Strategic merge: conditions merge by type, and the list need not exist yet (the
      // controller may not have written status when this runs).
      kubex::Patch::strategic(
          R"({"status":{"conditions":[{"type":"example.com/Checked","status":"True"}]}})"),
      {}, boost::asio::use_future));
  EXPECT_TRUE(has_check(status));
  const auto read = client().wait(a.async_get_status("scaled", boost::asio::use_future));
  EXPECT_TRUE(has_check(read));
  // A plain update does not touch status. The deployment controller writes the object too, so
  // a replace may meet a 409 Conflict: re-read and retry, as every controller does.
  for (int attempt = 0;; ++attempt) {
    auto without = deployments.get("scaled");
    without.status->conditions.clear();
    without.metadata.labels["touched"] = "yes";
    try {
      EXPECT_TRUE(has_check(deployments.replace(without)));
      break;
    } catch (const kubex::ApiError& e) {
      if (!kubex::is_conflict(e) || attempt == 10) {
        throw;
      }
    }
  }
}

// Service status has no controller in testenv (no cloud provider), so the test owns it: what
// replace_status writes is exactly what the server keeps.
TEST_F(api_test, status_is_replaced_through_the_subresource_only) {
  auto services = api<corev1::Service>();
  corev1::Service svc;
  svc.metadata.name = "lb";
  auto& spec = svc.spec.ensure();
  spec.type = corev1::ServiceSpecType::LoadBalancer;
  spec.ports.emplace_back().port = 80;
  auto created = services.create(svc);

  auto with_ingress = created;
  with_ingress.status.ensure().load_balancer.ensure().ingress.emplace_back().ip = "192.0.2.10";
  with_ingress.spec->ports[0].port = 81;  // ignored: the status subresource keeps the spec
  const auto replaced = services.replace_status(with_ingress);
  ASSERT_EQ(replaced.status->load_balancer->ingress.size(), 1U);
  EXPECT_EQ(replaced.status->load_balancer->ingress[0].ip, "192.0.2.10");
  EXPECT_EQ(replaced.spec->ports[0].port, 80);
  EXPECT_EQ(kubectl("get service lb -o jsonpath={.status.loadBalancer.ingress[0].ip}"),
            "192.0.2.10");
  EXPECT_EQ(services.get_status("lb"), services.get("lb"));

  // A stale copy is refused like any replace.
  auto stale_status = created;
  stale_status.status.ensure().load_balancer.ensure().ingress.emplace_back().ip = "192.0.2.11";
  auto stale = api_error_of([&] { (void)services.replace_status(stale_status); });
  ASSERT_TRUE(stale);
  EXPECT_TRUE(kubex::is_conflict(*stale)) << stale->what();

  // And the main resource ignores status: a replace without it leaves the ingress alone.
  auto without = services.get("lb");
  without.status.reset();
  without.metadata.labels["touched"] = "yes";
  const auto touched = services.replace(without);
  EXPECT_EQ(touched.metadata.labels.at("touched"), "yes");
  ASSERT_TRUE(touched.status && touched.status->load_balancer);
  EXPECT_EQ(touched.status->load_balancer->ingress.at(0).ip, "192.0.2.10");

  // Patch through the blocking facade too: JSON merge replaces the ingress list.
  const auto patched = services.patch_status(
      "lb",
      kubex::Patch::merge(R"({"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.12"}]}}})"));
  EXPECT_EQ(patched.status->load_balancer->ingress.at(0).ip, "192.0.2.12");
}

// fieldValidation=Warn stores the object and reports each unknown field through the Warning
// header, which typed calls hand to ClientOptions::on_warning.
TEST_F(api_test, field_validation_warn_surfaces_the_server_warnings) {
  std::mutex mutex;
  std::vector<std::string> warnings;
  kubex::client::ClientOptions options = client_options();
  options.on_warning = [&](std::string_view w) {
    const std::lock_guard lock(mutex);
    warnings.emplace_back(w);
  };
  BlockingClient warned(config(), options);
  auto cms = BlockingApi<corev1::ConfigMap>::namespaced(warned, ns_);
  auto cm = config_map("warned");
  cm.unknown_fields.add("bogusField", "1");
  const auto stored = cms.create(cm, {.field_validation = kubex::FieldValidation::warn});
  EXPECT_TRUE(stored.unknown_fields.empty());
  {
    const std::lock_guard lock(mutex);
    ASSERT_EQ(warnings.size(), 1U);
    EXPECT_NE(warnings[0].find("unknown field \"bogusField\""), std::string::npos) << warnings[0];
  }
  // Ignore asks for silence.
  auto quiet = config_map("quiet");
  quiet.unknown_fields.add("bogusField", "1");
  (void)cms.create(quiet, {.field_validation = kubex::FieldValidation::ignore});
  const std::lock_guard lock(mutex);
  EXPECT_EQ(warnings.size(), 1U);
}

// resourceVersionMatch=Exact reads the past; NotOlderThan at least that state; timeoutSeconds is
// accepted on a list.
TEST_F(api_test, list_at_an_exact_resource_version_and_with_a_timeout) {
  auto cms = api<corev1::ConfigMap>();
  auto first = config_map("rv-first");
  first.metadata.labels["rv"] = "yes";
  cms.create(first);
  const auto then = cms.list({.label_selector = "rv=yes"});
  ASSERT_TRUE(then.metadata.resource_version);
  auto second = config_map("rv-second");
  second.metadata.labels["rv"] = "yes";
  const auto made = cms.create(second);
  ASSERT_TRUE(made.metadata.resource_version);

  const auto names = [](const corev1::ConfigMapList& list) {
    std::vector<std::string> out;
    for (const auto& cm : list.items) {
      out.push_back(*cm.metadata.name);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto exact = cms.list({.label_selector = "rv=yes",
                               .resource_version = *then.metadata.resource_version,
                               .resource_version_match = kubex::ResourceVersionMatch::exact});
  EXPECT_EQ(names(exact), std::vector<std::string>{"rv-first"});
  EXPECT_EQ(exact.metadata.resource_version, then.metadata.resource_version);
  // Not older than the second create: the watch cache has waited for it (not older than
  // `then` alone could be answered before the cache saw the second).
  const auto newer =
      cms.list({.label_selector = "rv=yes",
                .resource_version = *made.metadata.resource_version,
                .resource_version_match = kubex::ResourceVersionMatch::not_older_than,
                .timeout_seconds = 5});
  EXPECT_EQ(names(newer), (std::vector<std::string>{"rv-first", "rv-second"}));

  // Without a resourceVersion the match means nothing: refused before anything is sent.
  try {
    (void)cms.list({.resource_version_match = kubex::ResourceVersionMatch::exact});
    ADD_FAILURE() << "resourceVersionMatch without a resourceVersion was sent";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument) << e.what();
  }
}

TEST_F(api_test, large_lists_are_decoded_while_they_arrive_as_kubectl_reads_them) {
  // ~600 KB of ConfigMaps: the body comes in hundreds of reads.
  auto async_cms = kubex::client::Api<corev1::ConfigMap>::namespaced(client().async_client(), ns_);
  std::vector<std::future<corev1::ConfigMap>> pending;
  for (int i = 0; i < 150; ++i) {
    // Quotes, brackets and escapes in the data must not confuse where an item ends.
    // Hex digits of a pseudo-random sequence compress only about 2:1, so a gzip answer too
    // comes in many reads.
    std::string text;
    std::uint32_t x = 2463534242U + static_cast<std::uint32_t>(i);
    for (int c = 0; c < 4000; ++c) {
      x ^= x << 13U;
      x ^= x >> 17U;
      x ^= x << 5U;
      text += "0123456789abcdef"[x & 15U];
    }
    auto cm =
        config_map("big-" + std::to_string(i), {{"text", text + "\"}]}[{\\" + std::to_string(i)}});
    pending.push_back(async_cms.async_create(std::move(cm), boost::asio::use_future));
  }
  for (auto& f : pending) {
    client().wait(std::move(f));
  }
  std::map<std::string, std::string> expected;  // name -> canonical JSON, as kubectl reads it
  const auto from_kubectl = kubex::json::decode<corev1::ConfigMapList>(
      kubectl("get configmaps -o json --show-managed-fields"));
  for (const auto& cm : from_kubectl.items) {
    expected[*cm.metadata.name] = canonical(cm);
  }
  ASSERT_EQ(expected.size(), 151U);  // and kube-root-ca.crt

  const auto as_map = [](const corev1::ConfigMapList& list) {
    std::map<std::string, std::string> out;
    for (const auto& cm : list.items) {
      out[*cm.metadata.name] = canonical(cm);
    }
    return out;
  };
  // The items are decoded during the transfer, uncompressed or gzip-compressed (the
  // apiserver compresses answers over 128 KiB), over HTTP/1.1 and HTTP/2. All as kubectl.
  auto uncompressed = client_options();
  uncompressed.compression = false;
  BlockingClient plain(config(), uncompressed);
  auto h2_options = client_options();
  h2_options.http2 = true;
  BlockingClient h2(config(), h2_options);
  const auto streamed = BlockingApi<corev1::ConfigMap>::namespaced(plain, ns_).list();
  EXPECT_TRUE(streamed.metadata.resource_version);
  EXPECT_EQ(as_map(streamed), expected);
  const auto compressed = api<corev1::ConfigMap>().list();
  EXPECT_EQ(as_map(compressed), expected);
  EXPECT_EQ(as_map(BlockingApi<corev1::ConfigMap>::namespaced(h2, ns_).list()), expected);
  const auto metadata_only = BlockingApi<corev1::ConfigMap>::namespaced(plain, ns_).list_metadata();
  EXPECT_EQ(metadata_only.items.size(), 151U);

  // The transport shows the body as it grows (inflated when it came gzip) and keeps only what
  // its reader leaves.
  const auto observe = [&](BlockingClient& through, std::string_view encoding) {
    SCOPED_TRACE(std::string(encoding) + (&through == &h2 ? " over HTTP/2" : " over HTTP/1.1"));
    kubex::client::HttpRequest request;
    request.target = "/api/v1/namespaces/" + ns_ + "/configmaps";
    int starts = 0;
    int pieces = 0;
    std::string seen;
    request.on_body = [&](std::string& body, bool start) {
      if (start) {
        ++starts;
        EXPECT_TRUE(body.empty());
        return;
      }
      ++pieces;
      seen += body;
      body.clear();
    };
    const auto response = through.wait(
        through.async_client().async_request(std::move(request), boost::asio::use_future));
    EXPECT_EQ(response.status, 200U);
    EXPECT_EQ(response.content_encoding, encoding);
    EXPECT_EQ(starts, 1);
    EXPECT_GT(pieces, 10);
    EXPECT_TRUE(response.body.empty());
    EXPECT_EQ(as_map(kubex::json::decode<corev1::ConfigMapList>(seen)), expected);
  };
  observe(plain, "");
  observe(client(), "gzip");
  observe(h2, "gzip");
}

TEST_F(api_test, all_namespaces_and_invalid_names) {
  auto cms = api<corev1::ConfigMap>();
  cms.create(config_map("everywhere"));
  auto all = BlockingApi<corev1::ConfigMap>::all(client());
  const auto list = all.list({.field_selector = kubex::FieldSelector{}
                                                    .eq("metadata.name", "everywhere")
                                                    .eq("metadata.namespace", ns_)
                                                    .str()});
  ASSERT_EQ(list.items.size(), 1U);
  // One object needs a namespace; a bad name fails before anything is sent.
  try {
    (void)all.get("everywhere");
    ADD_FAILURE() << "get on all namespaces did not fail";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
  }
  const auto before = client().stats();
  try {
    (void)cms.get("a/b");
    ADD_FAILURE() << "an invalid name was accepted";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_path);
  }
  EXPECT_EQ(client().stats().connections_reused + client().stats().connections_opened,
            before.connections_reused + before.connections_opened);
  // Cluster-scoped kinds take no namespace (Api<Node>::namespaced does not compile).
  auto nodes = BlockingApi<corev1::Node>::all(client());
  EXPECT_FALSE(nodes.list().items.empty());
}

}  // namespace

namespace {

// A pod whose simulated container (testenv's kubelet) logs "line-N" every 5 ms.
corev1::Pod log_pod(const std::string& name) {
  corev1::Pod pod;
  pod.metadata.name = name;
  pod.metadata.annotations["sim.kubex.dev/log-interval"] = "5ms";
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  return pod;
}

TEST_F(api_test, logs_one_shot_and_follow_through_the_kubelet) {
  auto pods = api<corev1::Pod>();
  pods.create(log_pod("logger"));
  for (int i = 0; i < 600; ++i) {
    const auto pod = pods.get("logger");
    if (pod.status && pod.status->phase == corev1::PodStatusPhase::Running) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // some lines to read

  const std::string tail = pods.logs("logger", {.container = "c", .tail_lines = 3});
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < tail.size();) {
    const auto nl = tail.find('\n', at);
    ASSERT_NE(nl, std::string::npos) << "every line ends with a newline: " << tail;
    lines.push_back(tail.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 3U) << tail;
  for (const auto& line : lines) {
    EXPECT_TRUE(line.starts_with("line-")) << line;
  }
  EXPECT_EQ(pods.logs("logger", {.limit_bytes = 4}), "line");
  const std::string stamped = pods.logs("logger", {.tail_lines = 1, .timestamps = true});
  EXPECT_TRUE(stamped.starts_with("20")) << stamped;  // RFC 3339 time first
  EXPECT_NE(stamped.find(" line-"), std::string::npos) << stamped;

  // Follow: lines arrive in order as the container writes them, without line endings.
  auto stream = pods.log_stream("logger", {.tail_lines = 1});
  long previous = -1;
  for (int i = 0; i < 20; ++i) {
    const auto line = stream.next_line();
    ASSERT_TRUE(line);
    ASSERT_TRUE(line->starts_with("line-")) << *line;
    EXPECT_EQ(line->find('\n'), std::string::npos);
    const long n = std::stol(line->substr(5));
    if (previous >= 0) {
      EXPECT_EQ(n, previous + 1);
    }
    previous = n;
  }
  stream.cancel();

  // A missing container is the server's 400, typed.
  auto bad = api_error_of([&] { (void)pods.logs("logger", {.container = "nope"}); });
  ASSERT_TRUE(bad);
  EXPECT_TRUE(kubex::is_bad_request(*bad)) << bad->what();
}

// Splits log text into lines (each ends with a newline).
std::vector<std::string> log_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const auto nl = text.find('\n', at);
    if (nl == std::string::npos) {
      ADD_FAILURE() << "a line without its newline: " << text.substr(at);
      break;
    }
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

// The RFC 3339 time that starts a line read with timestamps=true.
kubex::MicroTime::time_point_type line_time(const std::string& line) {
  const auto t = kubex::MicroTime::parse(line.substr(0, line.find(' ')));
  EXPECT_TRUE(t) << line;
  return t ? t->time_point() : kubex::MicroTime::time_point_type{};
}

TEST_F(api_test, logs_since_a_time_or_an_age_and_previous) {
  auto pods = api<corev1::Pod>();
  pods.create(log_pod("since"));
  for (int i = 0; i < 600; ++i) {
    const auto pod = pods.get("since");
    if (pod.status && pod.status->phase == corev1::PodStatusPhase::Running) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Long enough for lines on both sides of a whole second (sinceTime has second precision).
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));

  const auto all = log_lines(pods.logs("since", {.timestamps = true}));
  ASSERT_GT(all.size(), 100U);
  // The whole second after the first line.
  const auto cut =
      std::chrono::floor<std::chrono::seconds>(line_time(all.front())) + std::chrono::seconds(1);
  const auto cut_text = kubex::Time(cut).format();
  const auto since_time =
      log_lines(pods.logs("since", {.since_time = cut_text, .timestamps = true}));
  ASSERT_FALSE(since_time.empty()) << cut_text;
  for (const auto& line : since_time) {
    EXPECT_GE(line_time(line), cut) << line << " is before " << cut_text;
  }
  // Nothing after the cut is lost: the first line is the first of `all` from the cut on.
  // (Counting lines would not do: the pod writes more between the two calls.)
  const auto first_kept = std::find_if(
      all.begin(), all.end(), [&](const std::string& line) { return line_time(line) >= cut; });
  ASSERT_NE(first_kept, all.end());
  EXPECT_EQ(since_time.front(), *first_kept);

  const auto asked = std::chrono::system_clock::now();
  const auto young = log_lines(pods.logs("since", {.since_seconds = 1, .timestamps = true}));
  ASSERT_FALSE(young.empty());
  // One second before the call, with slack for the round trip (same machine, same clock).
  EXPECT_GE(line_time(young.front()), asked - std::chrono::milliseconds(1500)) << young.front();
  EXPECT_LT(young.size(), log_lines(pods.logs("since", {.timestamps = true})).size());

  // The simulated container never restarted: no previous instance, as a kubelet says it.
  auto previous = api_error_of([&] { (void)pods.logs("since", {.previous = true}); });
  ASSERT_TRUE(previous);
  EXPECT_TRUE(kubex::is_bad_request(*previous)) << previous->what();
  EXPECT_NE(std::string(previous->what()).find("previous terminated container"), std::string::npos)
      << previous->what();
}

}  // namespace

namespace {

namespace crd = kubex_test::crd::v1;
using Meta = kubex::k8s::v1_35::meta::v1::ObjectMeta;

class api_crd_test : public api_test {
 protected:
  void SetUp() override {
    api_test::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    testenv().kubectl("apply -f " + shell_quote(KUBEX_CRD_MANIFEST));
    testenv().kubectl(
        "wait --for=condition=Established --timeout=60s crd/crontabs.stable.example.com");
  }
};

TEST_F(api_crd_test, custom_resource_round_trip_typed) {
  reads_builtin_kinds_ = false;  // in the pb. run, every answer must be JSON
  auto crontabs = api<crd::CronTab>();
  crd::CronTab ct;
  ct.metadata.name = "typed";
  auto& spec = ct.spec.ensure();
  spec.cron_spec = "*/5 * * * *";
  spec.image = "busybox";
  spec.replicas = 2;
  const auto created = crontabs.create(ct);
  EXPECT_EQ(created.spec->replicas, 2);
  EXPECT_EQ(canonical(crontabs.get("typed")),
            canonical(kubex::json::decode<crd::CronTab>(
                kubectl("get crontab typed -o json --show-managed-fields"))));
  const auto patched =
      crontabs.patch("typed", kubex::Patch::merge(R"({"spec":{"replicas":null}})"));
  EXPECT_FALSE(patched.spec->replicas.has_value());
  // The schema's pattern is enforced by the server: a typed 422 with the field named.
  auto bad = ct;
  bad.metadata.name = "bad";
  bad.spec->cron_spec = "never";
  auto invalid = api_error_of([&] { (void)crontabs.create(bad); });
  ASSERT_TRUE(invalid);
  EXPECT_TRUE(kubex::is_invalid(*invalid));
  EXPECT_NE(std::string(invalid->what()).find("cronSpec"), std::string::npos) << invalid->what();
  crontabs.delete_("typed");
  EXPECT_FALSE(crontabs.get_opt("typed").has_value());
}

TEST_F(api_crd_test, discovery_resolves_a_crd_and_dynamic_api_uses_it) {
  boost::asio::io_context ioc;
  kubex::client::Client c(ioc.get_executor(), config());
  kubex::client::Discovery discovery(c);
  auto resolved = discovery.async_resolve("stable.example.com", "CronTab", boost::asio::use_future);
  ioc.run();
  const kubex::ApiResource r = resolved.get();
  EXPECT_TRUE(discovery.used_aggregated());
  EXPECT_TRUE(discovery.is_fresh());
  EXPECT_EQ(r.plural, "crontabs");
  EXPECT_EQ(r.version, "v1");  // the preferred (storage) version comes first
  EXPECT_EQ(r.scope, kubex::Scope::namespaced);
  EXPECT_TRUE(r.verbs.contains(kubex::Verb::watch));
  auto subresources = r.subresources;
  std::sort(subresources.begin(), subresources.end());
  EXPECT_EQ(subresources, (std::vector<std::string>{"scale", "status"}));
  ASSERT_TRUE(discovery.find_name("ct.stable.example.com") || discovery.find_name("crontab"));
  EXPECT_EQ(discovery.find_name("deploy")->kind, "Deployment");
  EXPECT_EQ(discovery.find_name("deployments.apps")->group, "apps");
  EXPECT_EQ(discovery.find_name("Node")->scope, kubex::Scope::cluster);
  EXPECT_FALSE(discovery.find_name("nosuchthing").has_value());

  using Dyn = kubex::client::DynamicApi<Meta>;
  auto api = Dyn::namespaced(c, r, ns_);
  kubex::DynamicObject<Meta> obj;
  obj.metadata.name = "dynamic";
  obj.set("spec", kubex::RawJson{R"({"cronSpec":"* * * * */2","image":"nginx","tags":["a"]})"});
  auto created = api.async_create(obj, {}, boost::asio::use_future);
  ioc.restart();
  ioc.run();
  const auto stored = created.get();
  EXPECT_EQ(stored.kind, "CronTab");
  EXPECT_EQ(stored.api_version, "stable.example.com/v1");
  EXPECT_EQ(stored.metadata.namespace_, ns_);
  // kubectl and the typed model see what the dynamic object wrote.
  const auto typed = kubex::json::decode<crd::CronTab>(kubectl("get crontab dynamic -o json"));
  EXPECT_EQ(typed.spec->image, "nginx");
  EXPECT_EQ(typed.spec->tags, std::vector<std::string>{"a"});

  auto patched = api.async_patch("dynamic", kubex::Patch::merge(R"({"spec":{"image":"redis"}})"),
                                 {}, boost::asio::use_future);
  auto listed = api.async_list({}, boost::asio::use_future);
  auto table = api.async_list_table({}, boost::asio::use_future);
  ioc.restart();
  ioc.run();
  EXPECT_EQ(patched.get().get_as<crd::CronTabSpec>("spec").image, "redis");
  const auto list = listed.get();
  ASSERT_EQ(list.items.size(), 1U);
  EXPECT_EQ(list.items[0].kind, "CronTab");
  const auto t = table.get();
  ASSERT_FALSE(t.column_definitions.empty());
  EXPECT_EQ(t.column_definitions[0].name, "Name");
  ASSERT_EQ(t.rows.size(), 1U);
  EXPECT_EQ(t.rows[0].cells[0].text, R"("dynamic")");

  auto deleted = api.async_delete("dynamic", {}, boost::asio::use_future);
  ioc.restart();
  ioc.run();
  EXPECT_EQ(deleted.get().index(), 1U);  // gone at once (no finalizers): the server's Status

  // Cluster-scoped resources take no namespace.
  const auto nodes = *discovery.find_name("nodes");
  EXPECT_THROW((void)Dyn::namespaced(c, nodes, ns_), kubex::Error);
}

TEST_F(api_test, legacy_discovery_finds_what_aggregated_discovery_finds) {
  boost::asio::io_context ioc;
  kubex::client::Client c(ioc.get_executor(), config());
  kubex::client::Discovery aggregated(c);
  kubex::client::Discovery legacy(c, {.aggregated = false});
  auto a = aggregated.async_refresh(boost::asio::use_future);
  auto l = legacy.async_refresh(boost::asio::use_future);
  ioc.run();
  a.get();
  l.get();
  EXPECT_TRUE(aggregated.used_aggregated());
  EXPECT_FALSE(legacy.used_aggregated());
  // Every built-in resource appears in both, with the same facts.
  for (const char* kind : {"Pod", "Deployment", "ConfigMap", "Node", "CustomResourceDefinition"}) {
    std::string group;
    for (const auto& r : aggregated.resources()) {
      if (r.kind == kind) {
        group = r.group;
        break;
      }
    }
    const auto x = aggregated.find_kind(group, kind);
    const auto y = legacy.find_kind(group, kind);
    ASSERT_TRUE(x && y) << kind;
    EXPECT_EQ(x->plural, y->plural) << kind;
    EXPECT_EQ(x->version, y->version) << kind;
    EXPECT_EQ(x->scope, y->scope) << kind;
    EXPECT_EQ(x->verbs, y->verbs) << kind;
    auto xs = x->subresources;
    auto ys = y->subresources;
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    EXPECT_EQ(xs, ys) << kind;
  }
  EXPECT_EQ(aggregated.find_kind("", "Pod")->subresources.size(),
            legacy.find_kind("", "Pod")->subresources.size());
}

TEST_F(api_test, table_lists_what_kubectl_get_shows) {
  auto cms = api<corev1::ConfigMap>();
  cms.create(config_map("t1", {{"a", "1"}, {"b", "2"}}));
  const auto table = client().wait(cms.async().async_list_table(
      {.field_selector = "metadata.name=t1"}, boost::asio::use_future));
  std::vector<std::string> columns;
  for (const auto& c : table.column_definitions) {
    columns.push_back(c.name);
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Data", "Age"}));
  ASSERT_EQ(table.rows.size(), 1U);
  EXPECT_EQ(table.rows[0].cells[0].text, R"("t1")");
  EXPECT_EQ(table.rows[0].cells[1].text, "2");
}

}  // namespace

namespace {

namespace policyv1 = kubex::k8s::v1_35::policy::v1;
namespace authnv1 = kubex::k8s::v1_35::authentication::v1;
namespace certsv1 = kubex::k8s::v1_35::certificates::v1;
namespace metav1 = kubex::k8s::v1_35::meta::v1;

corev1::Pod pause_pod(const std::string& name) {
  corev1::Pod pod;
  pod.metadata.name = name;
  pod.metadata.labels["app"] = name;
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  return pod;
}

void wait_running(BlockingApi<corev1::Pod>& pods, const std::string& name) {
  for (int i = 0; i < 600; ++i) {
    const auto pod = pods.get(name);
    if (pod.status && pod.status->phase == corev1::PodStatusPhase::Running) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL() << name << " did not start running";
}

TEST_F(api_test, eviction_blocked_by_a_disruption_budget_is_a_typed_429) {
  auto pods = api<corev1::Pod>();
  pods.create(pause_pod("guarded"));
  wait_running(pods, "guarded");
  policyv1::PodDisruptionBudget pdb;
  pdb.metadata.name = "keep-one";
  pdb.spec.ensure().min_available = kubex::IntOrString(1);
  pdb.spec->selector.ensure().match_labels = {{"app", "guarded"}};
  api<policyv1::PodDisruptionBudget>().create(pdb);

  policyv1::Eviction eviction;
  eviction.metadata.name = "guarded";
  eviction.metadata.namespace_ = ns_;
  const auto& a = pods.async();
  auto blocked = api_error_of([&] {
    (void)client().wait(a.async_create_subresource<"eviction", kubex::Status>(
        "guarded", eviction, {}, boost::asio::use_future));
  });
  ASSERT_TRUE(blocked);
  EXPECT_TRUE(kubex::is_too_many_requests(*blocked)) << blocked->what();
  EXPECT_TRUE(pods.get_opt("guarded").has_value());

  api<policyv1::PodDisruptionBudget>().delete_("keep-one");
  const auto done = client().wait(a.async_create_subresource<"eviction", kubex::Status>(
      "guarded", eviction, {}, boost::asio::use_future));
  EXPECT_EQ(done.status, "Success");
  const auto after = pods.get_opt("guarded");
  EXPECT_TRUE(!after || after->metadata.deletion_timestamp.has_value());
}

TEST_F(api_test, binding_ephemeral_containers_and_resize) {
  auto pods = api<corev1::Pod>();
  // A scheduler nobody runs: the pod stays pending until the test binds it.
  auto pending = pause_pod("unscheduled");
  pending.spec->scheduler_name = "kubex-test-scheduler";
  pods.create(pending);
  const auto nodes = BlockingApi<corev1::Node>::all(client()).list();
  ASSERT_FALSE(nodes.items.empty());
  corev1::Binding binding;
  binding.metadata.name = "unscheduled";
  binding.target.kind = "Node";
  binding.target.name = nodes.items[0].metadata.name;
  const auto& a = pods.async();
  client().wait(a.async_create_subresource<"binding", kubex::Status>("unscheduled", binding, {},
                                                                     boost::asio::use_future));
  EXPECT_EQ(pods.get("unscheduled").spec->node_name, nodes.items[0].metadata.name);

  // Ephemeral containers are added through their subresource only: with a strategic merge
  // patch, as kubectl debug does, so the kubelet's concurrent status writes cannot conflict.
  const auto with_debug = client().wait(a.async_patch_subresource<"ephemeralcontainers",
                                                                  corev1::Pod>(
      "unscheduled",
      kubex::Patch::strategic(
          R"({"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox","targetContainerName":"c"}]}})"),
      {}, boost::asio::use_future));
  ASSERT_EQ(with_debug.spec->ephemeral_containers.size(), 1U);
  EXPECT_EQ(with_debug.spec->ephemeral_containers[0].name, "debugger");

  // In-place resize of a pod's resources. testenv's simulated nodes do not declare resize
  // support, which the apiserver checks for pods on a node, so this pod stays unscheduled.
  auto sized = pause_pod("sized");
  sized.spec->scheduler_name = "kubex-test-scheduler";
  auto& res = sized.spec->containers[0].resources.ensure();
  res.requests = {{"cpu", kubex::Quantity::must_parse("100m")}};
  res.limits = {{"cpu", kubex::Quantity::must_parse("200m")}};
  pods.create(sized);
  const auto resized = client().wait(a.async_patch_subresource<"resize", corev1::Pod>(
      "sized",
      kubex::Patch::strategic(
          R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}})"),
      {}, boost::asio::use_future));
  EXPECT_EQ(resized.spec->containers[0].resources->requests.at("cpu"),
            kubex::Quantity::must_parse("150m"));
}

TEST_F(api_test, service_account_token_request) {
  auto sas = api<corev1::ServiceAccount>();
  corev1::ServiceAccount sa;
  sa.metadata.name = "robot";
  sas.create(sa);
  authnv1::TokenRequest request;
  request.spec.expiration_seconds = 600;
  request.spec.audiences = {"kubex-test"};
  const auto issued =
      client().wait(sas.async().async_create_subresource<"token", authnv1::TokenRequest>(
          "robot", request, {}, boost::asio::use_future));
  ASSERT_TRUE(issued.status);
  kubex::testing::record_secret(issued.status->token);
  EXPECT_EQ(std::count(issued.status->token.begin(), issued.status->token.end(), '.'), 2)
      << "not a JWT";  // the token itself is never printed
  // The server accepts the token for the service account (TokenReview through kubectl). The
  // review goes through a private file, so that no command line or error message holds it.
  kubex::testing::TempDir dir;
  const auto file =
      dir.write("review.json", R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                               R"("spec":{"audiences":["kubex-test"],"token":")" +
                                   issued.status->token + R"("}})");
  const std::string review = testenv().kubectl("create -o jsonpath={.status.user.username} -f " +
                                               shell_quote(file.string()));
  EXPECT_EQ(review, "system:serviceaccount:" + ns_ + ":robot");
}

TEST_F(api_test, certificate_signing_request_approval) {
  const auto csr_pem = kubex::testing::run_command(
      "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-keyout /dev/null -subj /CN=kubex-test-" +
      ns_ + " 2>/dev/null");
  ASSERT_EQ(csr_pem.exit_code, 0);
  auto csrs = BlockingApi<certsv1::CertificateSigningRequest>::all(client());
  certsv1::CertificateSigningRequest csr;
  csr.metadata.name = ns_;
  csr.spec.request = kubex::Bytes(csr_pem.output);
  csr.spec.signer_name = "example.com/kubex-test";
  csr.spec.usages = {certsv1::CertificateSigningRequestSpecUsagesItem("client auth")};
  auto created = csrs.create(csr);
  auto& cond = created.status.ensure().conditions.emplace_back();
  cond.type = "Approved";
  cond.status = "True";
  cond.reason = "KubexTest";
  cond.message = "approved by the kubex test";
  const auto approved = client().wait(
      csrs.async().async_replace_subresource<"approval", certsv1::CertificateSigningRequest>(
          ns_, created, {}, boost::asio::use_future));
  ASSERT_TRUE(approved.status);
  ASSERT_EQ(approved.status->conditions.size(), 1U);
  EXPECT_EQ(approved.status->conditions[0].type, "Approved");
  EXPECT_EQ(kubectl("get csr " + ns_ + " -o jsonpath={.status.conditions[0].reason}"), "KubexTest");
  csrs.delete_(ns_);
}

}  // namespace

namespace {

// What the server would refuse does not compile: subresources a kind lacks, a namespace for a
// cluster-scoped kind. Checked here as concepts, so a regression fails this file's build.
template <class T>
concept namespace_accepted =
    requires(kubex::client::Client c) { kubex::client::Api<T>::namespaced(c, "x"); };
template <class T>
concept scale_readable =
    requires(const kubex::client::Api<T>& a) {
      a.template async_get_subresource<"scale", autoscalingv1::Scale>("x", boost::asio::use_future);
    };
template <class T>
concept has_logs = requires(const kubex::client::Api<T>& a) {
                     a.async_logs("x", kubex::LogParams{}, boost::asio::use_future);
                   };
template <class T>
concept status_patchable = requires(const kubex::client::Api<T>& a) {
                             a.async_patch_status("x", kubex::Patch::merge("{}"),
                                                  kubex::PatchParams{}, boost::asio::use_future);
                           };
static_assert(namespace_accepted<corev1::Pod>);
static_assert(!namespace_accepted<corev1::Node>);
static_assert(!namespace_accepted<corev1::Namespace>);
static_assert(scale_readable<appsv1::Deployment>);
static_assert(!scale_readable<corev1::ConfigMap>);
static_assert(scale_readable<crd::CronTab>);
static_assert(has_logs<corev1::Pod>);
static_assert(!has_logs<appsv1::Deployment>);
static_assert(status_patchable<appsv1::Deployment>);
static_assert(!status_patchable<corev1::ConfigMap>);
// The blocking facade carries the same constraints.
template <class T>
concept blocking_status_replaceable =
    requires(BlockingApi<T>& a, const T& object) { a.replace_status(object); };
template <class T>
concept blocking_has_logs = requires(BlockingApi<T>& a) { a.logs("x"); };
static_assert(blocking_status_replaceable<corev1::Service>);
static_assert(!blocking_status_replaceable<corev1::ConfigMap>);
static_assert(blocking_has_logs<corev1::Pod>);
static_assert(!blocking_has_logs<corev1::Service>);

TEST_F(api_test, send_initial_events_then_the_end_bookmark) {
  auto cms = api<corev1::ConfigMap>();
  for (const char* name : {"i1", "i2"}) {
    auto cm = config_map(name);
    cm.metadata.labels["initial"] = "yes";
    cms.create(cm);
  }
  auto watch = cms.watch({.label_selector = "initial=yes",
                          .resource_version_match = kubex::ResourceVersionMatch::not_older_than,
                          .allow_bookmarks = true,
                          .send_initial_events = true});
  std::set<std::string> added;
  for (;;) {
    auto event = watch.next();
    ASSERT_TRUE(event);
    if (event->type == kubex::WatchEventType::bookmark) {
      EXPECT_EQ(event->object.metadata.annotations.at("k8s.io/initial-events-end"), "true");
      break;
    }
    ASSERT_EQ(event->type, kubex::WatchEventType::added);
    added.insert(*event->object.metadata.name);
  }
  EXPECT_EQ(added, (std::set<std::string>{"i1", "i2"}));
}

TEST_F(api_test, watch_events_of_any_size) {
  auto cms = api<corev1::ConfigMap>();
  const auto start = cms.list();
  auto watch = cms.watch({.resource_version = *start.metadata.resource_version});
  // Three values near the 1 MiB object limit: each event is one line of about 900 KB, far more
  // than one read of the transport.
  for (const char fill : {'a', 'b', 'c'}) {
    cms.create(config_map(std::string("big-") + fill, {{"v", std::string(900'000, fill)}}));
  }
  for (const char fill : {'a', 'b', 'c'}) {
    auto event = watch.next();
    ASSERT_TRUE(event);
    ASSERT_EQ(event->type, kubex::WatchEventType::added);
    EXPECT_EQ(event->object.data.at("v"), std::string(900'000, fill));
  }
}

}  // namespace
