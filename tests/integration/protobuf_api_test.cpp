// SPDX-License-Identifier: Apache-2.0
// Api<T> in protobuf (ClientOptions::encoding) against the v1.35.4 apiserver, where it goes
// beyond the pb. copies of the Api<T> suite: the same changes, watched from the same
// resourceVersion in JSON and in protobuf, give equal events; an expired resourceVersion gives
// the same typed 410; metadata-only calls come in protobuf for built-in and custom kinds and
// equal their JSON reads. kubectl makes the changes.

#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/crontab.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace apps = kubex::k8s::v1_35::apps::v1;
namespace core = kubex::k8s::v1_35::core::v1;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::client::ClientOptions;
using kubex::client::Encoding;
using kubex::testing::shell_quote;

ClientOptions protobuf_options() {
  ClientOptions options;
  options.encoding = Encoding::protobuf;
  return options;
}

// An event as the test compares it: its type and its object written as JSON.
template <class T>
std::vector<std::string> read_until_deleted(kubex::client::BlockingWatch<T>& watch) {
  std::vector<std::string> events;
  while (auto event = watch.next()) {
    if (event->type == kubex::WatchEventType::bookmark) {
      continue;
    }
    events.push_back(std::string(kubex::to_string(event->type)) + " " +
                     kubex::json::encode(event->object));
    if (event->type == kubex::WatchEventType::deleted) {
      break;
    }
  }
  return events;
}

class protobuf_api_test : public kubex::testing::TestenvTest {};

TEST_F(protobuf_api_test, a_typed_watch_reads_the_events_json_reads) {
  const std::string ns = own_namespace();
  BlockingClient json_client(config());
  BlockingClient protobuf_client(config(), protobuf_options());
  auto json_api = BlockingApi<apps::Deployment>::namespaced(json_client, ns);
  auto protobuf_api = BlockingApi<apps::Deployment>::namespaced(protobuf_client, ns);
  const auto from = json_api.list().metadata.resource_version.value();
  const kubex::WatchParams params{.resource_version = from, .timeout_seconds = 60};
  auto json_watch = json_api.watch(params);
  auto protobuf_watch = protobuf_api.watch(params);

  // A Deployment: the controller-manager and the scheduler add status, conditions, times,
  // quantities and managed fields, so the events exercise much of the reader.
  const std::string in = " -n " + shell_quote(ns);
  (void)testenv().kubectl("create deployment web --image=registry.k8s.io/pause:3.10" + in);
  (void)testenv().kubectl("scale deployment web --replicas=2" + in);
  (void)testenv().kubectl("label deployment web tier=front" + in);
  (void)testenv().kubectl("delete deployment web --wait=false" + in);

  const auto json_events = read_until_deleted(json_watch);
  const auto protobuf_events = read_until_deleted(protobuf_watch);
  ASSERT_GE(json_events.size(), 4U);
  EXPECT_EQ(json_events.front().substr(0, 6), "ADDED ");
  EXPECT_EQ(json_events.back().substr(0, 8), "DELETED ");
  EXPECT_EQ(protobuf_events, json_events);
  // The protobuf client's watch really came as protobuf, and the JSON one's as JSON.
  EXPECT_EQ(protobuf_client.stats().protobuf_responses, 1U);
  EXPECT_EQ(json_client.stats().protobuf_responses, 0U);
}

TEST_F(protobuf_api_test, metadata_only_calls_come_in_protobuf_for_every_kind) {
  testenv().kubectl("apply -f " + shell_quote(KUBEX_CRD_MANIFEST));
  testenv().kubectl(
      "wait --for=condition=Established --timeout=60s crd/crontabs.stable.example.com");
  const std::string ns = own_namespace();
  const std::string in = " -n " + shell_quote(ns);
  for (int i = 0; i < 3; ++i) {
    (void)testenv().kubectl("create configmap cm-" + std::to_string(i) + " --from-literal=k=v" +
                            in);
  }
  (void)testenv().kubectl(
      "apply" + in + " -f - <<'EOF'\n" +
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly",)"
      R"("labels":{"tier":"batch"}},"spec":{"cronSpec":"0 0 * * *","image":"busybox"}})" +
      "\nEOF");
  BlockingClient json_client(config());
  BlockingClient protobuf_client(config(), protobuf_options());
  auto json_cms = BlockingApi<core::ConfigMap>::namespaced(json_client, ns);
  auto protobuf_cms = BlockingApi<core::ConfigMap>::namespaced(protobuf_client, ns);
  using CronTab = kubex_test::crd::v1::CronTab;
  auto json_tabs = BlockingApi<CronTab>::namespaced(json_client, ns);
  auto protobuf_tabs = BlockingApi<CronTab>::namespaced(protobuf_client, ns);

  const auto listed = protobuf_cms.list_metadata();
  EXPECT_EQ(listed.kind, "PartialObjectMetadataList");
  EXPECT_GE(listed.items.size(), 3U);
  const auto json_listed = json_cms.list_metadata();
  EXPECT_EQ(kubex::json::encode(listed.items), kubex::json::encode(json_listed.items));
  EXPECT_EQ(protobuf_cms.get_metadata("cm-1"), json_cms.get_metadata("cm-1"));
  // A custom resource's metadata comes in protobuf too, though its objects cannot.
  const auto tab = protobuf_tabs.get_metadata("nightly");
  EXPECT_EQ(tab.kind, "PartialObjectMetadata");
  EXPECT_EQ(tab.metadata.labels.at("tier"), "batch");
  EXPECT_EQ(tab, json_tabs.get_metadata("nightly"));
  EXPECT_EQ(kubex::json::encode(protobuf_tabs.list_metadata().items),
            kubex::json::encode(json_tabs.list_metadata().items));
  EXPECT_EQ(protobuf_client.stats().protobuf_responses, 4U);

  auto watch = protobuf_cms.watch_metadata(
      {.resource_version = listed.metadata.resource_version.value(), .timeout_seconds = 60});
  (void)testenv().kubectl("label configmap cm-2 tier=gold" + in);
  auto event = watch.next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, kubex::WatchEventType::modified);
  EXPECT_EQ(event->object.kind, "PartialObjectMetadata");
  EXPECT_EQ(event->object.metadata.name, "cm-2");
  EXPECT_EQ(event->object.metadata.labels.at("tier"), "gold");
  EXPECT_EQ(protobuf_client.stats().protobuf_responses, 5U);
  EXPECT_EQ(json_client.stats().protobuf_responses, 0U);
}

// A Deployment that exercises much of the writer: quantities, both forms of IntOrString,
// maps, lists, nested optionals, booleans and 64-bit integers.
apps::Deployment rich_deployment(const std::string& name) {
  apps::Deployment d;
  d.metadata.name = name;
  d.metadata.annotations["note"] = "written by kubex";
  auto& spec = d.spec.ensure();
  spec.replicas = 2;
  spec.revision_history_limit = 4;
  spec.selector.match_labels["app"] = name;
  auto& rolling = spec.strategy.ensure().rolling_update.ensure();
  rolling.max_surge = kubex::IntOrString("25%");
  rolling.max_unavailable = kubex::IntOrString(1);
  spec.template_.metadata.labels["app"] = name;
  auto& pod = spec.template_.spec.ensure();
  pod.termination_grace_period_seconds = 7;
  pod.node_selector["kubernetes.io/os"] = "linux";
  auto& toleration = pod.tolerations.emplace_back();
  toleration.key = "node.kubernetes.io/unreachable";
  toleration.operator_ = "Exists";
  toleration.effect = "NoExecute";
  toleration.toleration_seconds = 30;
  auto& c = pod.containers.emplace_back();
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  c.args = {"--a", "--b=c"};
  c.env.emplace_back().name = "MODE";
  c.env.back().value = "protobuf";
  auto& port = c.ports.emplace_back();
  port.name = "http";
  port.container_port = 8080;
  auto& resources = c.resources.ensure();
  resources.requests["cpu"] = kubex::Quantity::must_parse("100m");
  resources.limits["memory"] = kubex::Quantity::must_parse("64Mi");
  auto& probe = c.readiness_probe.ensure();
  probe.http_get.ensure().port = kubex::IntOrString("http");
  probe.http_get->path = "/ready";
  probe.period_seconds = 5;
  c.security_context.ensure().allow_privilege_escalation = false;
  c.volume_mounts.emplace_back().name = "scratch";
  c.volume_mounts.back().mount_path = "/scratch";
  auto& volume = pod.volumes.emplace_back();
  volume.name = "scratch";
  volume.empty_dir.ensure().size_limit = kubex::Quantity::must_parse("1Gi");
  return d;
}

TEST_F(protobuf_api_test, writes_sent_in_protobuf_keep_every_field_json_keeps) {
  const std::string ns = own_namespace();
  BlockingClient json_client(config());
  BlockingClient protobuf_client(config(), protobuf_options());
  auto json_api = BlockingApi<apps::Deployment>::namespaced(json_client, ns);
  auto protobuf_api = BlockingApi<apps::Deployment>::namespaced(protobuf_client, ns);
  (void)protobuf_api.create(rich_deployment("same"));
  (void)json_api.create(rich_deployment("twin"));
  EXPECT_EQ(protobuf_client.stats().protobuf_requests, 1U);
  EXPECT_EQ(json_client.stats().protobuf_requests, 0U);

  // kubectl reads both: the server stored the same spec from either body (the names aside).
  const std::string in = " -n " + shell_quote(ns);
  const auto stored = [&](const std::string& name) {
    apps::Deployment d;
    kubex::json::decode(testenv().kubectl("get deployment " + name + " -o json" + in), d);
    return d;
  };
  auto from_protobuf = stored("same");
  auto from_json = stored("twin");
  ASSERT_TRUE(from_protobuf.spec && from_json.spec);
  from_json.spec->selector.match_labels["app"] = "same";
  from_json.spec->template_.metadata.labels["app"] = "same";
  EXPECT_EQ(kubex::json::encode(*from_protobuf.spec), kubex::json::encode(*from_json.spec));
  EXPECT_EQ(from_protobuf.metadata.annotations.at("note"), "written by kubex");
  const auto& rolling = *from_protobuf.spec->strategy->rolling_update;
  EXPECT_EQ(rolling.max_surge, kubex::IntOrString("25%"));
  EXPECT_EQ(rolling.max_unavailable, kubex::IntOrString(1));
  const auto& c = from_protobuf.spec->template_.spec->containers.at(0);
  EXPECT_EQ(c.resources->limits.at("memory").to_string(), "64Mi");
  EXPECT_EQ(c.readiness_probe->http_get->port, kubex::IntOrString("http"));
  EXPECT_EQ(from_protobuf.spec->template_.spec->tolerations.at(0).toleration_seconds, 30);

  // A replace in protobuf of what was read in protobuf.
  auto current = protobuf_api.get("same");
  current.spec->replicas = 3;
  current.metadata.labels["tier"] = "front";
  const auto replaced = protobuf_api.replace(current);
  EXPECT_EQ(replaced.spec->replicas, 3);
  EXPECT_EQ(testenv().kubectl("get deployment same -o jsonpath={.spec.replicas}" + in), "3");
  EXPECT_EQ(testenv().kubectl("get deployment same -o jsonpath={.metadata.labels.tier}" + in),
            "front");
  EXPECT_EQ(protobuf_client.stats().protobuf_requests, 2U);
}

// A list larger than the 16 KiB where splitting starts and the 64 KiB after which decoded
// bytes are dropped is decoded while it arrives, in protobuf as in JSON: the body the
// transport holds stays a fraction of the list, and the items are the JSON list's.
TEST_F(protobuf_api_test, a_large_list_is_decoded_while_it_arrives_as_json_reads_it) {
  const std::string ns = own_namespace();
  BlockingClient json_client(config());
  BlockingClient protobuf_client(config(), protobuf_options());
  auto json_cms = BlockingApi<core::ConfigMap>::namespaced(json_client, ns);
  auto protobuf_cms = BlockingApi<core::ConfigMap>::namespaced(protobuf_client, ns);
  // 150 ConfigMaps of 2,000 hex digits (which gzip halves only, so that the apiserver's
  // compressed answers to the Api<T> calls below come in many reads too): over 300 KB.
  std::uint32_t x = 2463534242U;
  for (int i = 0; i < 150; ++i) {
    core::ConfigMap cm;
    cm.metadata.name = "bulk-" + std::to_string(i);
    cm.metadata.labels["bulk"] = "yes";
    std::string text;
    for (int c = 0; c < 2000; ++c) {
      x ^= x << 13U;
      x ^= x >> 17U;
      x ^= x << 5U;
      text += "0123456789abcdef"[x & 15U];
    }
    cm.data["text"] = std::move(text);
    (void)json_cms.create(cm);
  }
  const kubex::ListParams bulk{.label_selector = "bulk=yes"};
  const auto from_json = json_cms.list(bulk);
  ASSERT_EQ(from_json.items.size(), 150U);

  // Through the list reader Api<T> uses, uncompressed, watching what the transport holds
  // after each read.
  auto uncompressed = protobuf_options();
  uncompressed.compression = false;
  BlockingClient plain(config(), uncompressed);
  kubex::client::detail::ListBody<core::ConfigMapList> list_body;
  kubex::client::HttpRequest request;
  request.target = "/api/v1/namespaces/" + ns + "/configmaps?labelSelector=bulk%3Dyes";
  request.accept = std::string(kubex::protobuf::media_type);
  std::size_t reads = 0;
  std::size_t most_held = 0;
  request.on_body = [&reads, &most_held, observe = list_body.observer()](std::string& body,
                                                                         bool start) {
    observe(body, start);
    reads += start ? 0 : 1;
    most_held = std::max(most_held, body.size());
  };
  auto response =
      plain.wait(plain.async_client().async_request(std::move(request), boost::asio::use_future));
  ASSERT_EQ(response.status, 200U);
  ASSERT_TRUE(kubex::protobuf::is_media_type(response.content_type));
  const auto streamed = list_body.decoder()(response);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(kubex::json::encode(streamed->items), kubex::json::encode(from_json.items));
  EXPECT_GT(reads, 5U);
  EXPECT_LT(most_held, std::size_t{150} << 10U);  // the list is over 300 KB
  EXPECT_LT(response.body.size(), std::size_t{64} << 10U);

  // And through Api<T>, objects and metadata only.
  EXPECT_EQ(kubex::json::encode(protobuf_cms.list(bulk).items),
            kubex::json::encode(from_json.items));
  EXPECT_EQ(kubex::json::encode(protobuf_cms.list_metadata(bulk).items),
            kubex::json::encode(json_cms.list_metadata(bulk).items));
  EXPECT_EQ(protobuf_client.stats().protobuf_responses, 2U);
}

// Compaction expires resourceVersions for every test running at the same time: this runs
// serially (ctest RUN_SERIAL, selected by the _disruptive_test suffix).
using protobuf_api_disruptive_test = protobuf_api_test;

TEST_F(protobuf_api_disruptive_test, an_expired_resource_version_is_a_typed_410) {
  // PodTemplates: served without the watch cache in testenv, so the watch reaches etcd.
  BlockingClient client(config(), protobuf_options());
  auto templates = BlockingApi<core::PodTemplate>::namespaced(client, own_namespace());
  core::PodTemplate pt;
  pt.metadata.name = "before";
  auto& c = pt.template_.ensure().spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.10";
  const auto old_rv = *templates.create(pt).metadata.resource_version;
  pt.metadata.name = "after";
  templates.create(pt);
  templates.patch("after", kubex::Patch::merge(R"({"metadata":{"labels":{"x":"1"}}})"));
  testenv().compact_etcd();
  auto watch = templates.watch({.resource_version = old_rv});
  auto event = watch.next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, kubex::WatchEventType::error);
  EXPECT_EQ(event->status.code, 410);
  EXPECT_EQ(event->status.reason, "Expired");
  EXPECT_FALSE(event->status.message.empty());
  EXPECT_FALSE(watch.next().has_value());
  EXPECT_GE(client.stats().protobuf_responses, 4U);  // three writes and the watch
}

}  // namespace
