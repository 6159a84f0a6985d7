# SPDX-License-Identifier: Apache-2.0
"""Tests of the proto side of the generator: reading generated.proto and Go struct tags, mapping
model structs onto messages (the exceptions included), and the rendered readers.

Run: python3 -m unittest discover -s tools/codegen/tests
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kubex_codegen import emit_proto, protomap, protoschema  # noqa: E402
from kubex_codegen.schema import Field, Struct, TypeRef  # noqa: E402

PROTO = """
// Comment with message Fake { in it.
syntax = "proto2";

package k8s.io.api.demo.v1;

import "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto";

// Rule is a rule.
message Rule {
  // +optional
  repeated string apiGroups = 1;

  optional string scope = 4;
}

message RuleWithOperations {
  repeated string operations = 1;

  optional Rule rule = 2;
}

message Hook {
  optional string Name = 1;

  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 2;

  map<string, string> labels = 3;

  optional RuleWithOperations rules = 4;

  optional int32 replicas = 5;
}
"""

GO = """
type Hook struct {
	metav1.TypeMeta `json:",inline"`
	// Name of it, with `quotes`.
	Name string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,3,rep,name=labels"`
	Rules RuleWithOperations `json:",inline" protobuf:"bytes,4,opt,name=rules"`
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,5,opt,name=replicas"`
}

type Empty struct{}

type Rule struct {
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	Scope *ScopeType `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}
"""


def s(t):
    return TypeRef("scalar", t)


class ProtoSchemaTest(unittest.TestCase):
    def test_messages_fields_and_qualified_types(self):
        m = protoschema.extract(PROTO)
        self.assertEqual(sorted(m), ["k8s.io.api.demo.v1.Hook", "k8s.io.api.demo.v1.Rule",
                                     "k8s.io.api.demo.v1.RuleWithOperations"])
        hook = m["k8s.io.api.demo.v1.Hook"]
        self.assertEqual(hook[0], ["Name", 1, "optional", "string"])
        self.assertEqual(hook[1][3], "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        self.assertEqual(hook[2], ["labels", 3, "map", "string,string"])
        self.assertEqual(hook[3][3], "k8s.io.api.demo.v1.RuleWithOperations")

    def test_an_unknown_construct_fails_loudly(self):
        with self.assertRaises(SystemExit):
            protoschema.extract("package a;\nmessage M {\n  oneof x { string a = 1; }\n}\n")
        with self.assertRaises(SystemExit):
            protoschema.extract("package a;\nmessage M {\n  optional string a = 1;\n  optional string b = 1;\n}\n")

    def test_go_tags_say_how_json_treats_zero_values(self):
        go = protoschema.extract_go_fields(GO)
        self.assertEqual(go["Hook"], {1: "", 3: "o", 4: "", 5: "p"})
        self.assertEqual(go["Rule"], {1: "o", 4: "p"})
        self.assertNotIn("Empty", go)

    def test_proto_package_names(self):
        self.assertEqual(protoschema.proto_package("io.k8s.api.core.v1.Pod"), "k8s.io.api.core.v1.Pod")
        self.assertEqual(
            protoschema.proto_package("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON"),
            "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON")


def messages():
    go = protoschema.extract_go_fields(GO)
    out = {}
    for name, fields in protoschema.extract(PROTO).items():
        flags = go.get(name.rsplit(".", 1)[1], {})
        out[name] = [f + [flags.get(f[1], "?")] for f in fields]
    out["k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"] = [["name", 1, "optional", "string", "o"]]
    return out


def hook_struct(extra=()):
    fields = [Field("apiVersion", "api_version", s("std::string"), False),
              Field("kind", "kind", s("std::string"), False),
              Field("name", "name", s("std::string"), True),
              Field("metadata", "metadata", TypeRef("struct", "Meta", definition="ObjectMeta"), False),
              Field("labels", "labels", TypeRef("map", elem=s("std::string")), False),
              Field("operations", "operations", TypeRef("vector", elem=s("std::string")), False),
              Field("apiGroups", "api_groups", TypeRef("vector", elem=s("std::string")), False),
              Field("scope", "scope", s("std::string"), False),
              Field("replicas", "replicas", s("std::int32_t"), False), *extra]
    return Struct("io.k8s.api.demo.v1.Hook", "Hook", "demo/v1", "", fields=fields,
                  gvks=[{"group": "demo.k8s.io", "version": "v1", "kind": "Hook"}])


class ProtoMapTest(unittest.TestCase):
    def test_go_names_and_embedded_structs_map_onto_the_model(self):
        m = protomap.map_struct(hook_struct(), messages())
        by_number = {p.number: p for p in m.fields}
        self.assertEqual(sorted(by_number), [1, 2, 3, 4, 5])
        self.assertEqual(by_number[1].field.json_name, "name")  # proto's Go name `Name`
        rules = by_number[4]
        self.assertIsNone(rules.field)
        self.assertEqual([p.number for p in rules.embedded], [1, 2])
        rule = rules.embedded[1]
        self.assertEqual([p.field.json_name for p in rule.embedded], ["apiGroups", "scope"])
        self.assertEqual(by_number[5].go, "p")

    def test_a_model_field_without_a_proto_field_fails(self):
        with self.assertRaises(SystemExit) as e:
            protomap.map_struct(hook_struct([Field("extra", "extra", s("std::string"), False)]), messages())
        self.assertIn("no proto field for extra", str(e.exception))

    def test_a_struct_without_a_message_has_no_reader(self):
        info = Struct("io.k8s.apimachinery.pkg.version.Info", "Info", "version", "")
        self.assertIsNone(protomap.map_struct(info, messages()))


class EmitProtoTest(unittest.TestCase):
    def test_the_reader_nests_embedded_messages_and_reads_presence(self):
        text = emit_proto.source("// banner\n", "kubex/k8s/v1_99/demo/v1.hpp", "kubex::k8s::v1_99::demo::v1",
                                 [hook_struct()], messages())
        self.assertIn("void kubex_read_proto(pb::Reader& r, Hook& o) {", text)
        self.assertIn("pb::Reader m1 = r.message();", text)
        self.assertIn("pb::Reader m2 = m1.message();", text)
        self.assertIn("pb::read(m2, o.api_groups);", text)
        # scope: a Go pointer; replicas: a Go pointer; name: required, always written.
        self.assertIn("pb::read(m2, o.scope);", text)
        self.assertIn("pb::read(r, o.name);", text)
        self.assertNotIn("#include <kubex/core/json.hpp>", text)

    def test_the_reader_keeps_unknown_fields_of_its_own_message_only(self):
        text = emit_proto.source("", "h.hpp", "ns", [hook_struct()], messages())
        reader = text[text.index("void kubex_read_proto(pb::Reader& r, Hook& o)"):]
        reader = reader[:reader.index("\n}\n")]
        # Kept once, in the top-level default; an embedded message's unknown fields are skipped.
        self.assertEqual(reader.count("o.unknown_fields.add_protobuf(r.field_bytes());"), 1)
        self.assertIn("m2.skip();\n", reader)

    def test_the_writer_mirrors_the_reader(self):
        text = emit_proto.source("", "h.hpp", "ns", [hook_struct()], messages())
        writer = text[text.index("void kubex_write_proto(pb::Writer& w, const Hook& o) {"):]
        writer = writer[:writer.index("\n}\n")]
        lines = [line.strip() for line in writer.splitlines()[1:]]
        self.assertEqual(lines, [
            "pb::write(w, 1, o.name);",
            "pb::write(w, 2, o.metadata);",
            "pb::write(w, 3, o.labels);",
            "w.message(4, [&o](pb::Writer& m1) {",
            "pb::write(m1, 1, o.operations);",
            "m1.message(2, [&o](pb::Writer& m2) {",
            "pb::write(m2, 1, o.api_groups);",
            "pb::write(m2, 4, o.scope);",
            "});",
            "});",
            "pb::write(w, 5, o.replicas);",
            'pb::write_unknown(w, o.unknown_fields, "Hook");',
        ])
        decl = emit_proto.declarations([hook_struct()], messages())
        self.assertIn("void kubex_write_proto(::kubex::protobuf::Writer& w, const Hook& o);", decl)

    def test_omitempty_scalars_read_zero_as_absent(self):
        msgs = messages()
        msgs["k8s.io.api.demo.v1.Hook"][4][4] = "o"  # replicas as a Go value with omitempty
        text = emit_proto.source("", "h.hpp", "ns", [hook_struct()], msgs)
        self.assertIn("pb::read_omit_zero(r, o.replicas);", text)

    def test_shapes_it_cannot_read_fail_at_generation(self):
        msgs = messages()
        msgs["k8s.io.api.demo.v1.Hook"][2][2] = "repeated"  # labels: a map in JSON
        with self.assertRaises(SystemExit):
            emit_proto.source("", "h.hpp", "ns", [hook_struct()], msgs)


if __name__ == "__main__":
    unittest.main()
