// The models of one generated Kubernetes version, compiled once per version (models_under_test.hpp
// names it): every served kind's traits and codecs, including fields the version does not know,
// and the objects a v1.35.4 server sent read and written back losslessly. The ci and asan builds
// run it for the default version; scripts/test.sh builds every version and runs it for each.
#include <kubex/core/json.hpp>
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

}  // namespace
