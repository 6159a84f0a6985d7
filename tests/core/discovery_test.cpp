// SPDX-License-Identifier: Apache-2.0
// Discovery documents and dynamic objects, parsed without a server. The integration tests
// check the same code against what the real apiserver sends.

#include <kubex/core/discovery.hpp>
#include <kubex/core/dynamic.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/table.hpp>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

namespace {

constexpr std::string_view aggregated =
    R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
 {"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[
  {"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},
   "scope":"Namespaced","singularResource":"deployment",
   "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],
   "shortNames":["deploy"],"categories":["all"],
   "subresources":[{"subresource":"scale","verbs":["get","patch","update"]},{"subresource":"status","verbs":["get"]}]}],
  "freshness":"Current"}]},
 {"metadata":{"name":"stable.example.com"},"versions":[
  {"version":"v1","resources":[{"resource":"crontabs","responseKind":{"group":"stable.example.com","version":"v1","kind":"CronTab"},"scope":"Namespaced","singularResource":"crontab","verbs":["get","list"]}]},
  {"version":"v1beta1","resources":[{"resource":"crontabs","responseKind":{"kind":"CronTab"},"scope":"Namespaced","verbs":["get"]}]}]},
 {"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"nodes","responseKind":{"kind":"Node"},"scope":"Cluster","verbs":["get","list","watch"]}]}]}]})";

TEST(discovery_test, aggregated_document) {
  EXPECT_TRUE(kubex::is_aggregated_discovery(aggregated));
  const auto rs = kubex::parse_aggregated_discovery(aggregated);
  ASSERT_EQ(rs.size(), 4U);
  const auto& d = rs[0];
  EXPECT_EQ(d.group, "apps");
  EXPECT_EQ(d.version, "v1");
  EXPECT_EQ(d.api_version(), "apps/v1");
  EXPECT_EQ(d.kind, "Deployment");
  EXPECT_EQ(d.plural, "deployments");
  EXPECT_EQ(d.singular, "deployment");
  EXPECT_EQ(d.scope, kubex::Scope::namespaced);
  EXPECT_EQ(d.verbs, kubex::all_verbs);
  EXPECT_EQ(d.short_names, std::vector<std::string>{"deploy"});
  EXPECT_EQ(d.subresources, (std::vector<std::string>{"scale", "status"}));
  // Versions in the server's preference order.
  EXPECT_EQ(rs[1].version, "v1");
  EXPECT_EQ(rs[2].version, "v1beta1");
  EXPECT_EQ(rs[3].api_version(), "v1");
  EXPECT_EQ(rs[3].scope, kubex::Scope::cluster);
  EXPECT_FALSE(rs[3].verbs.contains(kubex::Verb::create));
}

TEST(discovery_test, legacy_documents) {
  EXPECT_FALSE(kubex::is_aggregated_discovery(R"({"kind":"APIVersions","versions":["v1"]})"));
  EXPECT_EQ(kubex::parse_api_versions(R"({"kind":"APIVersions","versions":["v1"]})"),
            std::vector<std::string>{"v1"});
  const auto groups = kubex::parse_api_group_list(
      R"({"kind":"APIGroupList","groups":[{"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v1","version":"v1"},{"groupVersion":"autoscaling/v2","version":"v2"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}}]})");
  ASSERT_EQ(groups.size(), 1U);
  EXPECT_EQ(groups[0].versions, (std::vector<std::string>{"v2", "v1"}));
  const auto rs = kubex::parse_api_resource_list(
      R"({"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"]},{"name":"pods/log","namespaced":true,"kind":"Pod","verbs":["get"]},{"name":"namespaces","namespaced":false,"kind":"Namespace","verbs":["get"]}]})",
      "", "v1");
  ASSERT_EQ(rs.size(), 2U);
  EXPECT_EQ(rs[0].plural, "pods");
  EXPECT_EQ(rs[0].subresources, std::vector<std::string>{"log"});
  EXPECT_EQ(rs[0].verbs, (kubex::Verbs{kubex::Verb::get, kubex::Verb::list}));
  EXPECT_EQ(rs[1].scope, kubex::Scope::cluster);
  EXPECT_THROW((void)kubex::parse_aggregated_discovery(R"({"kind":"APIVersions"})"),
               kubex::json::DecodeError);
}

struct Meta {
  std::optional<std::string> name;
  std::map<std::string, std::string> labels;
};
KUBEX_JSON_OBJECT(Meta, name, labels)

struct Spec {
  std::string cronSpec;
  std::optional<int> replicas;
};
KUBEX_JSON_OBJECT(Spec, cronSpec, replicas)

TEST(dynamic_object_test, keeps_every_field_and_reads_parts_typed) {
  constexpr std::string_view text =
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"n","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":2},"status":{"x":[1,2]}})";
  auto o = kubex::json::decode<kubex::DynamicObject<Meta>>(text);
  EXPECT_EQ(o.kind, "CronTab");
  EXPECT_EQ(o.metadata.name, "n");
  ASSERT_NE(o.get("status"), nullptr);
  EXPECT_EQ(o.get("status")->text, R"({"x":[1,2]})");
  EXPECT_EQ(o.get_as<Spec>("spec").replicas, 2);
  EXPECT_EQ(kubex::json::encode(o), text);  // lossless

  o.set_as("spec", Spec{"@daily", 3});
  o.set("extra", kubex::RawJson{"true"});
  EXPECT_TRUE(o.erase("status"));
  EXPECT_FALSE(o.erase("status"));
  EXPECT_EQ(
      kubex::json::encode(o),
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"n","labels":{"a":"b"}},"spec":{"cronSpec":"@daily","replicas":3},"extra":true})");
  try {
    (void)o.get_as<Spec>("missing");
    ADD_FAILURE() << "no error for a missing field";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

TEST(table_test, decodes_a_server_table) {
  const auto t = kubex::json::decode<kubex::Table>(
      R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"d","priority":0},{"name":"Data","type":"integer","format":"","description":"","priority":1}],"rows":[{"cells":["a",2],"object":{"kind":"PartialObjectMetadata"}}]})");
  ASSERT_EQ(t.column_definitions.size(), 2U);
  EXPECT_EQ(t.column_definitions[1].priority, 1);
  ASSERT_EQ(t.rows.size(), 1U);
  EXPECT_EQ(t.rows[0].cells[0].text, R"("a")");
  EXPECT_EQ(t.rows[0].cells[1].text, "2");
}

}  // namespace
