// SPDX-License-Identifier: Apache-2.0
// The generated protobuf readers on hand-written messages, one per mapping rule the generator
// applies (field numbers from k8s.io/api v0.35.4's generated.proto): proto2 presence against
// JSON's omitempty, fields of Go embedded structs read into the outer struct, wrapper messages
// JSON shows as lists, the apiextensions "schema or ..." messages, unknown fields kept as their
// bytes; and the generated writers, which write back what the readers read.
// The readers against the real apiserver, for every listable kind, are in
// tests/integration/roundtrip_test.cpp.
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/protobuf_read.hpp>
#include <kubex/core/protobuf_write.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/core/time.hpp>
#include <kubex/k8s/v1_35/admissionregistration/v1.hpp>
#include <kubex/k8s/v1_35/apiextensions/v1.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pb = kubex::protobuf;
namespace apps = kubex::k8s::v1_35::apps::v1;
namespace meta = kubex::k8s::v1_35::meta::v1;
namespace admission = kubex::k8s::v1_35::admissionregistration::v1;
namespace apiext = kubex::k8s::v1_35::apiextensions::v1;

template <class F>
std::string bytes_of(F&& write) {
  std::string bytes;
  pb::Writer w(bytes);
  write(w);
  return bytes;
}

template <class T>
std::string encode(const T& o) {
  return bytes_of([&o](pb::Writer& w) { kubex_write_proto(w, o); });
}

template <class T, class F>
T decode(F&& write) {
  std::string bytes;
  pb::Writer w(bytes);
  write(w);
  pb::Reader r(bytes);
  T out;
  kubex_read_proto(r, out);
  return out;
}

TEST(protobuf_models, presence_follows_the_go_field_as_json_does) {
  const auto d = decode<apps::Deployment>([](pb::Writer& w) {
    w.message(1, [](pb::Writer& m) {     // metadata
      m.bytes(1, "web");                 // name
      m.bytes(2, "");                    // generateName: a Go string with omitempty, so absent
      m.int64(7, 0);                     // generation: int64 with omitempty, so absent
      m.message(8, [](pb::Writer&) {});  // creationTimestamp: a zero time, JSON's null
      m.message(11, [](pb::Writer& e) {  // labels
        e.bytes(1, "app");
        e.bytes(2, "web");
      });
      m.uint64(99, 1);  // a field this version does not know: kept as its bytes
    });
    w.message(2, [](pb::Writer& spec) {
      spec.int64(1, 0);  // replicas: a Go pointer, so 0 is set
      spec.int64(5, 0);  // minReadySeconds: a value with omitempty, so absent
    });
  });
  EXPECT_EQ(d.api_version, "apps/v1");  // the type's own: it travels in the envelope
  EXPECT_EQ(d.kind, "Deployment");
  EXPECT_EQ(d.metadata.name, "web");
  EXPECT_FALSE(d.metadata.generate_name.has_value());
  EXPECT_FALSE(d.metadata.generation.has_value());
  EXPECT_FALSE(d.metadata.creation_timestamp.has_value());
  EXPECT_EQ(d.metadata.labels.at("app"), "web");
  ASSERT_TRUE(d.spec);
  EXPECT_EQ(d.spec->replicas, 0);
  EXPECT_FALSE(d.spec->min_ready_seconds.has_value());
  // JSON has no way to write the unknown protobuf field back; protobuf has.
  EXPECT_EQ(kubex::json::encode(d.metadata), R"({"labels":{"app":"web"},"name":"web"})");
  EXPECT_EQ(d.metadata.unknown_fields.protobuf(), std::string_view("\x98\x06\x01", 3));
}

TEST(protobuf_models, fields_of_go_embedded_structs_fill_the_outer_struct) {
  // RuleWithOperations {operations 1, rule 2 (the embedded Rule: apiGroups 1, apiVersions 2,
  // resources 3, scope 4)}: JSON shows Rule's fields inline.
  const auto rule = decode<admission::RuleWithOperations>([](pb::Writer& w) {
    w.bytes(1, "CREATE");
    w.bytes(1, "UPDATE");
    w.message(2, [](pb::Writer& r) {
      r.bytes(1, "apps");
      r.bytes(2, "v1");
      r.bytes(3, "deployments");
      r.bytes(4, "Namespaced");
    });
  });
  EXPECT_EQ(rule.operations.size(), 2U);
  EXPECT_EQ(rule.api_groups, std::vector<std::string>{"apps"});
  EXPECT_EQ(rule.api_versions, std::vector<std::string>{"v1"});
  EXPECT_EQ(rule.resources, std::vector<std::string>{"deployments"});
  EXPECT_EQ(rule.scope, "Namespaced");
}

TEST(protobuf_models, the_writer_nests_go_embedded_structs_as_go_does) {
  admission::RuleWithOperations rule;
  rule.operations = {"CREATE", "UPDATE"};
  rule.api_groups = {"apps"};
  rule.api_versions = {"v1"};
  rule.resources = {"deployments"};
  rule.scope = "Namespaced";
  EXPECT_EQ(encode(rule), bytes_of([](pb::Writer& w) {
              w.bytes(1, "CREATE");
              w.bytes(1, "UPDATE");
              w.message(2, [](pb::Writer& r) {
                r.bytes(1, "apps");
                r.bytes(2, "v1");
                r.bytes(3, "deployments");
                r.bytes(4, "Namespaced");
              });
            }));
}

TEST(protobuf_models, unknown_fields_are_written_back_where_they_were_read) {
  const auto with_unknown = [](pb::Writer& w) {
    w.message(1, [](pb::Writer& m) {
      m.bytes(1, "web");
      m.bytes(9000, "in metadata");
    });
    w.message(2, [](pb::Writer& spec) {
      spec.int64(1, 3);
      // selector, template and the template's metadata: Go values, always written.
      spec.message(2, [](pb::Writer&) {});
      spec.message(3, [](pb::Writer& t) { t.message(1, [](pb::Writer&) {}); });
      spec.message(9001, [](pb::Writer& x) { x.int64(1, -5); });
    });
    w.fixed64(9002, 42);  // at the top
  };
  const auto d = decode<apps::Deployment>(with_unknown);
  ASSERT_TRUE(d.spec);
  EXPECT_FALSE(d.metadata.unknown_fields.protobuf().empty());
  EXPECT_FALSE(d.spec->unknown_fields.protobuf().empty());
  EXPECT_FALSE(d.unknown_fields.protobuf().empty());
  // Known fields first, in number order, then the unknown ones: here the same bytes.
  EXPECT_EQ(encode(d), bytes_of(with_unknown));
  // Through the envelope too, and an object that holds fields read from JSON is refused:
  // only JSON can write those back.
  const std::string body = pb::encode_object(d, "apps/v1", "Deployment");
  apps::Deployment back;
  pb::decode_object(body, back);
  EXPECT_EQ(back, d);
  back.spec->unknown_fields.add("futureField", "1");
  EXPECT_THROW((void)pb::encode_object(back, "apps/v1", "Deployment"), pb::Unrepresentable);
}

TEST(protobuf_models, what_the_writer_writes_the_reader_reads) {
  apps::Deployment d;
  d.metadata.name = "web";
  d.metadata.labels["app"] = "web";
  d.metadata.creation_timestamp = kubex::Time::parse("2026-12-04T10:00:00Z").value();
  auto& spec = d.spec.ensure();
  spec.replicas = 0;
  spec.paused = true;
  auto& rolling = spec.strategy.ensure().rolling_update.ensure();
  rolling.max_surge = kubex::IntOrString("25%");
  rolling.max_unavailable = kubex::IntOrString(0);
  auto& pod = spec.template_.spec.ensure();
  pod.active_deadline_seconds = -1;
  auto& c = pod.containers.emplace_back();
  c.name = "main";
  c.args = {"", "x"};  // an empty element keeps its place
  c.resources.ensure().limits["memory"] = kubex::Quantity::must_parse("1.5Gi");
  c.ports.emplace_back().container_port = 65535;
  auto& status = d.status.ensure();
  auto& condition = status.conditions.emplace_back();
  condition.type = "Available";
  condition.status = "True";
  condition.last_update_time = kubex::Time::parse("2026-12-04T10:00:01Z").value();
  const std::string bytes = encode(d);
  apps::Deployment back;
  pb::Reader r(bytes);
  kubex_read_proto(r, back);
  EXPECT_EQ(back, d);
  EXPECT_EQ(kubex::json::encode(back), kubex::json::encode(d));
}

TEST(protobuf_models, a_crd_schema_is_written_in_the_proto_form_of_its_json) {
  apiext::JSONSchemaProps s;
  // emplace, not `= "object"`: GCC 12 takes the latter for a read of the absent string
  // (-Wmaybe-uninitialized), depending on what it inlines around it.
  s.type.emplace("object");
  s.items.text = R"([{"type":"string"},{"type":"integer"}])";
  s.additional_properties.text = R"({"type":"string"})";
  s.additional_items.text = "false";
  s.dependencies["a"].text = R"(["b","c"])";
  s.dependencies["d"].text = R"({"required":["e"]})";
  s.properties["n"].type.emplace("number");
  const std::string bytes = encode(s);
  apiext::JSONSchemaProps back;
  pb::Reader r(bytes);
  kubex_read_proto(r, back);
  EXPECT_EQ(back, s);
  EXPECT_EQ(kubex::json::encode(back), kubex::json::encode(s));
  // A one-schema items is the schema form, not an array of one.
  s.items.text = R"({"type":"string"})";
  apiext::JSONSchemaProps one;
  const std::string one_bytes = encode(s);
  pb::Reader r1(one_bytes);
  kubex_read_proto(r1, one);
  EXPECT_EQ(one.items.text, R"({"type":"string"})");
}

TEST(protobuf_models, wrapper_messages_read_as_the_list_json_shows) {
  // APIResource.verbs is metav1.Verbs {items 1}.
  const auto r = decode<meta::APIResource>([](pb::Writer& w) {
    w.bytes(1, "pods");
    w.boolean(2, true);
    w.bytes(3, "Pod");
    w.message(4, [](pb::Writer& v) {
      v.bytes(1, "get");
      v.bytes(1, "list");
    });
  });
  EXPECT_EQ(r.name, "pods");
  EXPECT_TRUE(r.namespaced);
  EXPECT_EQ(r.verbs, (std::vector<std::string>{"get", "list"}));
}

TEST(protobuf_models, a_crd_schema_reads_as_the_json_it_stands_for) {
  // JSONSchemaProps: type 5, items 24 (JSONSchemaPropsOrArray {schema 1, jSONSchemas 2}),
  // additionalProperties 30 (JSONSchemaPropsOrBool {allows 1, schema 2}).
  const auto s = decode<apiext::JSONSchemaProps>([](pb::Writer& w) {
    w.bytes(5, "array");
    w.message(24, [](pb::Writer& items) {
      items.message(1, [](pb::Writer& schema) { schema.bytes(5, "string"); });
    });
    w.message(30, [](pb::Writer& b) { b.boolean(1, false); });
  });
  EXPECT_EQ(s.type, "array");
  EXPECT_EQ(s.items.text, R"({"type":"string"})");
  EXPECT_EQ(s.additional_properties.text, "false");
}

TEST(protobuf_models, malformed_messages_are_refused_with_the_byte) {
  std::string bytes;
  pb::Writer w(bytes);
  w.message(1, [](pb::Writer& m) { m.bytes(1, "web"); });
  bytes.resize(bytes.size() - 1);  // cut inside the name
  pb::Reader r(bytes);
  apps::Deployment d;
  try {
    kubex_read_proto(r, d);
    ADD_FAILURE() << "a truncated body decoded";
  } catch (const pb::DecodeError& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_protobuf);
    EXPECT_NE(std::string(e.what()).find("at byte"), std::string::npos) << e.what();
  }
}

}  // namespace
