// SPDX-License-Identifier: Apache-2.0
// Generated models on real objects captured from testenv's kube-apiserver v1.35.4
// (tests/fixtures/v1.35.4): typed access, decode -> encode -> decode equality, and a
// semantic comparison of the re-encoded JSON with what the server sent.
// <csignal> first: its SIG* macros must not reach the generated enum constants.
#include <kubex/core/json.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/events/v1.hpp>

#include "model_fixtures.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace core = kubex::api::core::v1;
namespace apps = kubex::api::apps::v1;
using kubex::json::decode;
using kubex::json::encode;
using kubex::testing::expect_same;
using kubex::testing::fixture;

template <class T>
void expect_lossless(const std::string& name) {
  const std::string original = fixture(name);
  const T first = decode<T>(original);
  const std::string encoded = encode(first);
  EXPECT_EQ(decode<T>(encoded), first) << name;
  simdjson::dom::parser pa, pb;
  expect_same(pa.parse(original).value(), pb.parse(encoded).value(), name);
}

TEST(models, pod_fields_are_typed) {
  const auto pod = decode<core::Pod>(fixture("pod.json"));
  EXPECT_EQ(pod.api_version, "v1");
  EXPECT_EQ(pod.kind, "Pod");
  EXPECT_EQ(pod.metadata.name, "seed-0");
  EXPECT_EQ(pod.metadata.namespace_, "bench");
  ASSERT_TRUE(pod.spec);
  ASSERT_EQ(pod.spec->containers.size(), 1u);
  EXPECT_EQ(pod.spec->containers[0].name, "c");
  EXPECT_EQ(pod.spec->containers[0].image, "registry.k8s.io/pause:3.9");
  ASSERT_TRUE(pod.status);
  EXPECT_EQ(pod.status->phase, core::PodStatusPhase::Running);
  EXPECT_EQ(pod.status->qos_class, "BestEffort");
  ASSERT_TRUE(pod.status->start_time);
  EXPECT_GT(pod.status->start_time->time_point().time_since_epoch().count(), 0);
  ASSERT_FALSE(pod.metadata.managed_fields.empty());
  EXPECT_FALSE(pod.metadata.managed_fields[0].fields_v1.text.empty());
}

TEST(models, deployment_fields_are_typed) {
  const auto d = decode<apps::Deployment>(fixture("deployment.json"));
  ASSERT_TRUE(d.spec);
  EXPECT_EQ(d.spec->replicas, 2);
  const auto& c = d.spec->template_.spec->containers.at(0);
  EXPECT_EQ(c.resources->requests.at("cpu"), kubex::Quantity::must_parse("250m"));
  EXPECT_EQ(c.resources->limits.at("memory").to_string(), "128Mi");
  EXPECT_EQ(c.liveness_probe->http_get->port.string_value(), "http");
  EXPECT_EQ(c.ports.at(0).container_port, 80);
  EXPECT_EQ(c.env.at(1).value_from->field_ref->field_path, "metadata.name");
}

TEST(models, real_objects_round_trip_losslessly) {
  expect_lossless<core::Pod>("pod.json");
  expect_lossless<apps::Deployment>("deployment.json");
  expect_lossless<core::Node>("node.json");
  expect_lossless<core::PodList>("podlist-web.json");
  expect_lossless<core::PodList>("podlist-500.json");
}

TEST(models, list_metadata_and_items) {
  const auto list = decode<core::PodList>(fixture("podlist-500.json"));
  EXPECT_EQ(list.items.size(), 500u);
  EXPECT_TRUE(list.metadata.resource_version.has_value());
  for (const auto& p : list.items) {
    ASSERT_TRUE(p.status);
    EXPECT_EQ(p.status->phase, core::PodStatusPhase::Running) << *p.metadata.name;
  }
}

// Metadata-only lists (Accept: ...;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1) are not in
// the OpenAPI documents; the generator adds the types, and they must read what the server sends.
TEST(models, partial_object_metadata_list) {
  namespace meta = kubex::api::meta::v1;
  expect_lossless<meta::PartialObjectMetadataList>("partialobjectmetadatalist-100.json");
  const auto list =
      decode<meta::PartialObjectMetadataList>(fixture("partialobjectmetadatalist-100.json"));
  EXPECT_EQ(list.kind, "PartialObjectMetadataList");
  EXPECT_EQ(list.api_version, "meta.k8s.io/v1");
  ASSERT_EQ(list.items.size(), 100u);
  EXPECT_TRUE(list.unknown_fields.fields().empty());
  for (const auto& item : list.items) {
    EXPECT_TRUE(item.metadata.name.has_value());
    EXPECT_TRUE(item.metadata.uid.has_value());
    EXPECT_TRUE(item.unknown_fields.fields().empty()) << *item.metadata.name;
    EXPECT_TRUE(item.metadata.unknown_fields.fields().empty()) << *item.metadata.name;
  }
  meta::PartialObjectMetadata one;
  one.metadata.name = "x";
  EXPECT_EQ(
      encode(one),
      R"({"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"name":"x"}})");
}

TEST(models, unknown_fields_injected_into_real_json_survive) {
  std::string json = fixture("pod.json");
  json.insert(json.rfind('}'), R"(,"futureField":{"nested":[1,"two",null]})");
  const auto spec_at = json.find("\"spec\":{") + 8;
  json.insert(spec_at, R"("newSpecField":true,)");
  const auto pod = decode<core::Pod>(json);
  ASSERT_EQ(pod.unknown_fields.fields().size(), 1u);
  ASSERT_EQ(pod.spec->unknown_fields.fields().size(), 1u);
  const std::string out = encode(pod);
  EXPECT_NE(out.find(R"("futureField":{"nested":[1,"two",null]})"), std::string::npos);
  EXPECT_NE(out.find(R"("newSpecField":true)"), std::string::npos);
}

TEST(models, encode_sets_api_version_and_kind) {
  core::ConfigMap cm;
  cm.metadata.name = "x";
  cm.data = {{"k", "v"}};
  EXPECT_EQ(encode(cm),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"v"}})");
  apps::Deployment d;
  EXPECT_EQ(encode(d).substr(0, 40), R"({"apiVersion":"apps/v1","kind":"Deployme)");
}

TEST(models, empty_api_version_and_kind_survive_a_round_trip) {
  // Defaults fill in what is absent; what was sent, even empty, is written back as it was.
  const auto cm = decode<core::ConfigMap>(R"({"apiVersion":"","kind":"","metadata":{"name":"x"}})");
  EXPECT_EQ(cm.api_version, "");
  EXPECT_EQ(cm.kind, "");
  EXPECT_EQ(encode(cm), R"({"apiVersion":"","kind":"","metadata":{"name":"x"}})");
  EXPECT_EQ(decode<core::ConfigMap>(encode(cm)), cm);
  EXPECT_EQ(decode<core::ConfigMap>(R"({"metadata":{"name":"x"}})").kind, "ConfigMap");
}

TEST(models, wrong_types_name_the_field) {
  try {
    (void)decode<core::Pod>(R"({"spec":{"containers":[{"name":"c"},{"name":5}]}})");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_STREQ(e.what(), "spec.containers[1].name: expected a string, got a number");
  }
}

// The server sends a required time as null when it is zero (Go marshals a zero metav1.Time as
// null): events made through core/v1 have "eventTime": null. Writing a time back instead is
// refused ("field is immutable"), so null must stay null and a set time must stay a time.
TEST(models, required_times_keep_null) {
  namespace events = kubex::api::events::v1;
  auto e = decode<events::Event>(R"({"metadata":{"name":"e"},"eventTime":null})");
  EXPECT_FALSE(e.event_time.has_value());
  EXPECT_EQ(encode(e), R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},)"
                       R"("eventTime":null})");
  e = decode<events::Event>(
      R"({"metadata":{"name":"e"},"eventTime":"2026-11-30T10:00:00.123456Z"})");
  ASSERT_TRUE(e.event_time.has_value());
  EXPECT_EQ(e.event_time->format(), "2026-11-30T10:00:00.123456Z");
  EXPECT_NE(encode(e).find(R"("eventTime":"2026-11-30T10:00:00.123456Z")"), std::string::npos);

  auto c = decode<kubex::api::meta::v1::Condition>(
      R"({"type":"Ready","status":"True","lastTransitionTime":null,"reason":"r","message":""})");
  EXPECT_FALSE(c.last_transition_time.has_value());
  EXPECT_NE(encode(c).find(R"("lastTransitionTime":null)"), std::string::npos);
}

TEST(models, signal_names_survive_signal_h_macros) {
  using Signal = kubex::k8s::v1_35::core::v1::ContainerStatusStopSignal;
  EXPECT_EQ(Signal::SIGKILL_, "SIGKILL");
  EXPECT_EQ(Signal::SIGRTMIN_, "SIGRTMIN");
  EXPECT_EQ(Signal(std::string("SIGTERM")), Signal::SIGTERM_);
}

}  // namespace

// Server-side apply sends a partial object: a required field left empty would claim it, empty,
// for the caller's field manager (or be refused), so the partial writer leaves it out.
TEST(models, a_partial_writer_leaves_out_required_fields_left_empty) {
  namespace apps = kubex::k8s::v1_35::apps::v1;
  namespace core = kubex::k8s::v1_35::core::v1;
  apps::Deployment d;
  d.metadata.name = "web";
  d.spec.emplace().replicas = 3;
  std::string partial;
  kubex::json::encode(d, partial, kubex::json::Writer::Mode::partial);
  EXPECT_EQ(partial, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
                     R"("spec":{"replicas":3}})");
  // The whole object still writes them, as the schema asks.
  EXPECT_NE(kubex::json::encode(d).find(R"("selector":{})"), std::string::npos);
  // A required field that is set is sent; so is an optional one set empty (emptyDir: {}).
  core::Container c;
  c.name = "web";
  core::PodSpec spec;
  spec.containers = {c};
  spec.volumes = {core::Volume{}};
  spec.volumes[0].name = "scratch";
  spec.volumes[0].empty_dir.emplace();
  std::string pod_spec;
  kubex::json::encode(spec, pod_spec, kubex::json::Writer::Mode::partial);
  EXPECT_EQ(pod_spec,
            R"({"containers":[{"name":"web"}],"volumes":[{"emptyDir":{},"name":"scratch"}]})");
  // A zero number and false are values, never "unset".
  core::ContainerPort port;
  std::string port_json;
  kubex::json::encode(port, port_json, kubex::json::Writer::Mode::partial);
  EXPECT_EQ(port_json, R"({"containerPort":0})");
}
