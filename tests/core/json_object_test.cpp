// SPDX-License-Identifier: Apache-2.0
// User-declared JSON objects (KUBEX_JSON_OBJECT), the tri-state Nullable and custom resource
// traits: what a custom resource or a hand-written patch body gets without code generation.
#include <kubex/core/custom_resource.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/merge_patch.hpp>
#include <kubex/core/nullable.hpp>
#include <kubex/core/quantity.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shop {

struct Meta {
  std::string name;
  std::optional<std::string> namespace_;
  std::map<std::string, std::string> labels;
  friend bool operator==(const Meta&, const Meta&) = default;
};
KUBEX_JSON_OBJECT(Meta, name, namespace_, labels)

struct CronTabSpec {
  std::string cronSpec;
  std::optional<std::int32_t> replicas;
  kubex::Nullable<std::string> image;
  std::vector<kubex::Quantity> sizes;
  kubex::RawJson extra;
  friend bool operator==(const CronTabSpec&, const CronTabSpec&) = default;
};
KUBEX_JSON_OBJECT(CronTabSpec, cronSpec, replicas, image, sizes, extra)

struct CronTab {
  std::string apiVersion{"stable.example.com/v1"};
  std::string kind{"CronTab"};
  Meta metadata;
  kubex::Box<CronTabSpec> spec;
  kubex::UnknownFields unknown_fields;
  friend bool operator==(const CronTab&, const CronTab&) = default;
};
KUBEX_JSON_OBJECT(CronTab, apiVersion, kind, metadata, spec)

// Renamed members: the field list written by hand.
struct Renamed {
  std::int64_t max_surge = 0;
  bool dry_run = false;
};
constexpr auto kubex_fields(const Renamed*) noexcept {
  return std::tuple{kubex::json::field("maxSurge", &Renamed::max_surge),
                    kubex::json::field("dryRun", &Renamed::dry_run)};
}

struct ClusterThing {
  std::string apiVersion{"infra.example.com/v1beta1"};
  std::string kind{"ClusterThing"};
  Meta metadata;
};
KUBEX_JSON_OBJECT(ClusterThing, apiVersion, kind, metadata)

}  // namespace shop

KUBEX_CUSTOM_RESOURCE(shop::CronTab, "stable.example.com", "v1", "CronTab", "crontabs", namespaced,
                      status, scale);
KUBEX_CUSTOM_RESOURCE(shop::ClusterThing, "infra.example.com", "v1beta1", "ClusterThing",
                      "clusterthings", cluster);

namespace {

using kubex::json::decode;
using kubex::json::encode;

static_assert(kubex::json::described<shop::CronTab>);
static_assert(!kubex::json::described<std::string>);
static_assert(kubex::resource<shop::CronTab>);
static_assert(kubex::namespace_scoped<shop::CronTab>);
static_assert(kubex::cluster_scoped<shop::ClusterThing>);
static_assert(kubex::resource_traits<shop::CronTab>::api_version == "stable.example.com/v1");
static_assert(kubex::resource_traits<shop::ClusterThing>::api_version ==
              "infra.example.com/v1beta1");
static_assert(kubex::has_subresource<shop::CronTab>("status"));
static_assert(kubex::subresource_supports<shop::CronTab>("scale", kubex::Verb::patch));
static_assert(!kubex::has_subresource<shop::ClusterThing>("status"));
static_assert(kubex::supports<shop::CronTab>(kubex::Verb::watch));
static_assert(std::is_same_v<kubex::resource_traits<shop::CronTab>::list_type,
                             kubex::ObjectList<shop::CronTab>>);

TEST(JsonObject, DecodesEncodesAndKeepsUnknownFields) {
  const std::string json =
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab",)"
      R"("metadata":{"name":"c1","namespace":"ns","labels":{"app":"x"}},)"
      R"("spec":{"cronSpec":"*/5 * * * *","replicas":2,"image":"busybox","sizes":["1Gi","500m"],)"
      R"("extra":{"k":[1,null]}},"status":{"lastRun":"2026-01-01T00:00:00Z"}})";
  const auto c = decode<shop::CronTab>(json);
  EXPECT_EQ(c.metadata.name, "c1");
  EXPECT_EQ(c.metadata.namespace_, "ns");
  ASSERT_TRUE(c.spec);
  EXPECT_EQ(c.spec->replicas, 2);
  ASSERT_TRUE(c.spec->image.has_value());
  EXPECT_EQ(*c.spec->image, "busybox");
  ASSERT_EQ(c.spec->sizes.size(), 2U);
  EXPECT_EQ(c.spec->sizes[0], kubex::Quantity::parse("1Gi"));
  EXPECT_EQ(c.spec->extra.text, R"({"k":[1,null]})");
  ASSERT_EQ(c.unknown_fields.fields().size(), 1U);
  EXPECT_EQ(c.unknown_fields.fields()[0].first, "status");
  // Same keys, same order (status, unknown, goes last), same values.
  EXPECT_EQ(encode(c), json);
  EXPECT_EQ(decode<shop::CronTab>(encode(c)), c);
}

TEST(JsonObject, OmitsAbsentAndWritesDefaults) {
  shop::CronTab c;
  c.metadata.name = "x";
  EXPECT_EQ(encode(c),
            R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"}})");
  c.spec.ensure().cronSpec = "";
  EXPECT_EQ(encode(*c.spec), R"({"cronSpec":""})");
}

TEST(JsonObject, NullLeavesPlainMembersAtDefault) {
  const auto c =
      decode<shop::CronTab>(R"({"kind":null,"metadata":{"name":null,"labels":null},"spec":null})");
  EXPECT_EQ(c.kind, "CronTab");
  EXPECT_EQ(c.metadata.name, "");
  EXPECT_FALSE(c.spec);
}

TEST(JsonObject, ErrorsNameThePath) {
  try {
    (void)decode<shop::CronTab>(R"({"spec":{"sizes":["1Gi","lots"]}})");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(e.path(), "spec.sizes[1]");
  }
  try {
    (void)decode<shop::CronTab>(R"({"spec":{"replicas":"two"}})");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(e.path(), "spec.replicas");
  }
}

TEST(JsonObject, HandWrittenFieldList) {
  const auto r = decode<shop::Renamed>(R"({"maxSurge":3,"dryRun":true,"other":1})");
  EXPECT_EQ(r.max_surge, 3);
  EXPECT_TRUE(r.dry_run);
  EXPECT_EQ(encode(r), R"({"maxSurge":3,"dryRun":true})");
}

TEST(JsonObject, DroppedFieldsMustStillBeValidJson) {
  // Renamed keeps no unknown fields: what it drops is skipped, and checked as it goes. Without
  // the check simdjson skipped such values by counting brackets and accepted these documents.
  const auto reason = [](std::string_view json) -> std::string {
    try {
      (void)decode<shop::Renamed>(json);
    } catch (const kubex::json::DecodeError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(reason(R"({"other":{"a" "b" ]},"dryRun":true})"),
            "other: invalid JSON: The JSON document has an improper structure: missing or "
            "superfluous commas, braces, missing keys, etc.");
  EXPECT_EQ(reason(R"({"other":[1 2],"dryRun":true})"),
            "other: invalid JSON: expected ',' or ']' in an array");
  EXPECT_EQ(reason(R"({"other":tru,"dryRun":true})"), "other: invalid JSON: invalid literal");
  // A dropped string followed by ':' was taken for a key, with the value after it.
  EXPECT_EQ(reason(R"({"other":"a":"b"}})").substr(0, 50),
            "invalid JSON: The JSON document has an improper st");
  EXPECT_EQ(reason(R"({"other":"\x"})"),
            "other: invalid JSON: invalid escape sequence in a string");
  const auto r =
      decode<shop::Renamed>(R"({"other":{"a":["b",{"c":null}]},"o2":"x:y","dryRun":true})");
  EXPECT_TRUE(r.dry_run);
}

TEST(Nullable, ThreeStates) {
  kubex::Nullable<int> n;
  EXPECT_TRUE(n.is_absent());
  n = nullptr;
  EXPECT_TRUE(n.is_null());
  EXPECT_FALSE(n.has_value());
  n = 4;
  EXPECT_TRUE(n.has_value());
  EXPECT_EQ(*n, 4);
  EXPECT_NE(n, kubex::Nullable<int>(nullptr));
  EXPECT_NE(kubex::Nullable<int>(), kubex::Nullable<int>(nullptr));
  n.reset();
  EXPECT_EQ(n, kubex::Nullable<int>());
}

TEST(Nullable, PatchBodyCanDeleteAField) {
  // Explicit null is written (it deletes the field on the server); absent is left out.
  shop::CronTabSpec spec;
  spec.image = nullptr;
  EXPECT_EQ(encode(spec), R"({"cronSpec":"","image":null})");
  const auto back = decode<shop::CronTabSpec>(R"({"image":null})");
  EXPECT_TRUE(back.image.is_null());
  const auto absent = decode<shop::CronTabSpec>(R"({})");
  EXPECT_TRUE(absent.image.is_absent());
  EXPECT_EQ(kubex::json::apply_merge_patch(R"({"cronSpec":"a","image":"b","replicas":1})",
                                           R"({"image":null,"replicas":3})"),
            R"({"cronSpec":"a","replicas":3})");
}

TEST(JsonObject, TypedMergePatch) {
  shop::CronTab before;
  before.metadata.name = "c";
  before.metadata.labels = {{"a", "1"}, {"b", "2"}};
  before.spec.ensure().replicas = 3;
  before.spec->image = "busybox";
  shop::CronTab after = before;
  after.metadata.labels.erase("a");
  after.spec->replicas.reset();
  EXPECT_EQ(kubex::json::create_merge_patch(before, after),
            R"({"metadata":{"labels":{"a":null}},"spec":{"replicas":null}})");
}

TEST(ObjectList, DecodesAListOfCustomResources) {
  const auto list = decode<kubex::ObjectList<shop::CronTab>>(
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTabList","metadata":{"continue":"t",)"
      R"("remainingItemCount":5,"resourceVersion":"42"},"items":[{"metadata":{"name":"a"}},)"
      R"({"metadata":{"name":"b"}}]})");
  EXPECT_EQ(list.kind, "CronTabList");
  EXPECT_EQ(list.metadata.continue_, "t");
  EXPECT_EQ(list.metadata.remaining_item_count, 5);
  EXPECT_EQ(list.metadata.resource_version, "42");
  ASSERT_EQ(list.items.size(), 2U);
  EXPECT_EQ(list.items[1].metadata.name, "b");
}

}  // namespace
