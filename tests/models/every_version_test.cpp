// SPDX-License-Identifier: Apache-2.0
// The models of one generated Kubernetes version, compiled once per version (models_under_test.hpp
// names it): every served kind's traits and codecs, including fields the version does not know,
// the objects a v1.35.4 server sent read and written back losslessly, and the same lists read
// from protobuf by the version's generated readers. The ci and asan builds
// run it for the default version; scripts/test.sh builds every version and runs it for each.
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/resource.hpp>

#include "model_fixtures.hpp"
#include "models_under_test.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstddef>
#include <set>
#include <string>
#include <type_traits>

namespace {

namespace models = kubex::testing::models;
using kubex::resource_traits;
using kubex::Verb;
using kubex::json::decode;
using kubex::json::DecodeError;
using kubex::json::encode;
using kubex::testing::expect_same;
using kubex::testing::fixture;

// A field no version has: each codec must keep it, at the top and inside metadata.
constexpr const char* unknown = R"("x-kubex-future":{"k":[1,"two",null,true,{"n":2.5}]})";

std::string object_json(std::string_view api_version, std::string_view kind) {
  return std::string(R"({"apiVersion":")") + std::string(api_version) + R"(","kind":")" +
         std::string(kind) +
         R"(","metadata":{"name":"n","namespace":"ns","labels":{"a":"b"},)"
         R"("annotations":{"c":"d"},"resourceVersion":"7",)" +
         unknown + "}," + unknown + "}";
}

// Every member of `a` is in `b` with the same value. `b` may have more: a writer emits the
// required fields of a kind (a Binding's target, a PriorityClass's value) even when unset.
void expect_kept(simdjson::dom::element a, simdjson::dom::element b, const std::string& path) {
  if (a.is_object() && b.is_object()) {
    const simdjson::dom::object ao = a.get_object().value();
    const simdjson::dom::object bo = b.get_object().value();
    for (auto [k, v] : ao) {
      auto other = bo.at_key(k);
      ASSERT_FALSE(other.error()) << path << "." << k << " lost";
      expect_kept(v, other.value(), path + "." + std::string(k));
    }
    return;
  }
  if (a.is_array() && b.is_array()) {
    const simdjson::dom::array aa = a.get_array().value();
    const simdjson::dom::array ba = b.get_array().value();
    ASSERT_EQ(aa.size(), ba.size()) << path;
    for (std::size_t i = 0; i < aa.size(); ++i) {
      expect_kept(aa.at(i).value(), ba.at(i).value(), path + "[" + std::to_string(i) + "]");
    }
    return;
  }
  expect_same(a, b, path);
}

// decode -> encode -> decode gives the same object, and the JSON keeps what `json` had (with
// `strict`, nothing else either).
template <class T>
void expect_round_trip(const std::string& json, const std::string& what, bool strict) {
  const T first = decode<T>(json);
  const std::string encoded = encode(first);
  EXPECT_EQ(decode<T>(encoded), first) << what;
  simdjson::dom::parser pa;
  simdjson::dom::parser pb;
  if (strict) {
    expect_same(pa.parse(json).value(), pb.parse(encoded).value(), what);
  } else {
    expect_kept(pa.parse(json).value(), pb.parse(encoded).value(), what);
  }
}

TEST(every_version, every_kind_is_consistent) {
  std::size_t count = 0;
  std::set<std::string> seen;
  models::for_each_resource([&]<class T>() {
    using R = resource_traits<T>;
    ++count;
    const std::string key = std::string(R::api_version) + "/" + std::string(R::plural);
    EXPECT_TRUE(seen.insert(key).second) << key << " twice";
    EXPECT_EQ(R::api_version, R::group.empty()
                                  ? std::string(R::version)
                                  : std::string(R::group) + "/" + std::string(R::version));
    EXPECT_FALSE(R::plural.empty());
    for (char c : R::plural) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) << key;
    }
    T object{};
    EXPECT_EQ(object.kind, R::kind) << key;
    EXPECT_EQ(object.api_version, R::api_version) << key;
    EXPECT_FALSE(R::verbs.empty()) << key;
    if constexpr (!std::is_void_v<typename R::list_type>) {
      typename R::list_type list{};
      EXPECT_EQ(list.kind, std::string(R::kind) + "List") << key;
      EXPECT_TRUE(R::verbs.contains(Verb::list)) << key;
    }
  });
  EXPECT_EQ(count, models::resource_count);
  EXPECT_GE(count, 80U);  // 1.32 serves 80 kinds; later versions more
  EXPECT_TRUE(seen.contains("v1/pods"));
  EXPECT_TRUE(seen.contains("apps/v1/deployments"));
}

TEST(every_version, every_kind_and_list_round_trips_with_fields_it_does_not_know) {
  models::for_each_resource([&]<class T>() {
    using R = resource_traits<T>;
    const std::string key = std::string(R::api_version) + " " + std::string(R::kind);
    const std::string json = object_json(R::api_version, R::kind);
    const T object = decode<T>(json);
    EXPECT_EQ(object.metadata.name, "n") << key;
    EXPECT_EQ(object.metadata.resource_version, "7") << key;
    expect_round_trip<T>(json, key, false);
    EXPECT_EQ(decode<T>(encode(T{})), T{}) << key;
    if constexpr (!std::is_void_v<typename R::list_type>) {
      using L = typename R::list_type;
      const std::string list = std::string(R"({"apiVersion":")") + std::string(R::api_version) +
                               R"(","kind":")" + std::string(R::kind) +
                               R"(List","metadata":{"resourceVersion":"9","continue":"c"},)" +
                               R"("items":[)" + json + "," + json + "]," + unknown + "}";
      const L decoded = decode<L>(list);
      EXPECT_EQ(decoded.items.size(), 2U) << key;
      expect_round_trip<L>(list, key + "List", false);
    }
    // A body cut anywhere is refused with a DecodeError, never read as an object.
    for (std::size_t cut = 0; cut + 1 < json.size(); cut += 7) {
      EXPECT_THROW((void)decode<T>(std::string_view(json).substr(0, cut)), DecodeError)
          << key << " cut at " << cut;
    }
  });
}

TEST(every_version, what_a_v1_35_server_sent_round_trips_losslessly) {
  namespace core = models::core::v1;
  namespace apps = models::apps::v1;
  expect_round_trip<core::Pod>(fixture("pod.json"), "pod.json", true);
  expect_round_trip<core::Node>(fixture("node.json"), "node.json", true);
  expect_round_trip<apps::Deployment>(fixture("deployment.json"), "deployment.json", true);
  expect_round_trip<core::PodList>(fixture("podlist-web.json"), "podlist-web.json", true);
  const auto pods = decode<core::PodList>(fixture("podlist-500.json"));
  EXPECT_EQ(pods.items.size(), 500U);
  const auto pod = decode<core::Pod>(fixture("pod.json"));
  ASSERT_TRUE(pod.spec);
  ASSERT_EQ(pod.spec->containers.size(), 1U);
  EXPECT_EQ(pod.spec->containers[0].image, "registry.k8s.io/pause:3.9");
}

// A list the server sent in protobuf, read by the version's generated readers.
template <class L>
L read_protobuf(const std::string& body) {
  L list{};
  kubex::protobuf::decode_object(body, list);
  return list;
}

// The same list in JSON and in protobuf, read at one resourceVersion
// (tools/fixtures/capture.sh protobuf), must read to the same model. Fields a version does not
// know are kept in both, but as JSON from one and as protobuf bytes from the other: versions
// before 1.35 must agree on every value protobuf gave them; 1.35 and later on everything.
// Written back in protobuf, the list reads as it did, unknown fields included.
template <class L>
void expect_same_in_both_encodings(const std::string& name) {
  const std::string json = fixture("protobuf/" + name + ".json");
  const L from_protobuf = read_protobuf<L>(fixture("protobuf/" + name + ".pb"));
  const L from_json = decode<L>(json);
  ASSERT_FALSE(from_json.items.empty()) << name;
  ASSERT_EQ(from_protobuf.items.size(), from_json.items.size()) << name;
  simdjson::dom::parser pa;
  simdjson::dom::parser pb;
  const std::string protobuf_as_json = encode(from_protobuf);
  const std::string json_as_json = encode(from_json);
  expect_kept(pa.parse(protobuf_as_json).value(), pb.parse(json_as_json).value(), name);
  // Kept values must also be most of them: the fields 1.35 added are a few per object.
  EXPECT_GE(protobuf_as_json.size() * 10, json_as_json.size() * 9) << name;
  if (kubex::testing::models_minor >= 35) {
    EXPECT_EQ(from_protobuf, from_json) << name;
  }
  const std::string written =
      kubex::protobuf::encode_object(from_protobuf, from_protobuf.api_version, from_protobuf.kind);
  EXPECT_EQ(read_protobuf<L>(written), from_protobuf) << name;
}

TEST(every_version, what_a_v1_35_server_sent_in_protobuf_reads_as_its_json) {
  namespace core = models::core::v1;
  namespace apps = models::apps::v1;
  expect_same_in_both_encodings<core::PodList>("pods");
  expect_same_in_both_encodings<core::NodeList>("nodes");
  expect_same_in_both_encodings<apps::DeploymentList>("deployments");
  expect_same_in_both_encodings<apps::ReplicaSetList>("replicasets");
  expect_same_in_both_encodings<core::ServiceList>("services");
  expect_same_in_both_encodings<models::coordination::v1::LeaseList>("leases");
  expect_same_in_both_encodings<core::NamespaceList>("namespaces");
}

}  // namespace
