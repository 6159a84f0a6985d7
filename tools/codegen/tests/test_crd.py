# SPDX-License-Identifier: Apache-2.0
"""Tests of the CRD model generator (kubex_codegen.crd) on small manifests; the C++ side is
tested by tests/models/crd_models_test.cpp and, against the real apiserver, by
tests/integration/crd_test.cpp."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kubex_codegen import crd  # noqa: E402


def crd_doc(schema, scope="Namespaced", subresources=None, versions=None):
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if subresources is not None:
        version["subresources"] = subresources
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "scope": scope,
                     "names": {"kind": "Thing", "plural": "things"},
                     "versions": versions or [version]}}


SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "count": {"type": "integer"}, "small": {"type": "integer", "format": "int32"},
        "mode": {"type": "string", "enum": ["A", "b-c", "9"]},
        "when": {"type": "string", "format": "date-time"}, "blob": {"type": "string", "format": "byte"},
        "ios": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "items": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "nested": {"type": "object", "properties": {"deep": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}},
        "namespace": {"type": "string"}}}}}


class CrdTest(unittest.TestCase):
    def render(self, *docs):
        return crd.render(list(docs), "acme::models", "1.35", "test.yaml")

    def test_types(self):
        h = self.render(crd_doc(SCHEMA, subresources={"status": {}}))
        for line in ["std::string name{};", "std::optional<std::int64_t> count{};",
                     "std::optional<std::int32_t> small{};", "std::optional<ThingSpecMode> mode{};",
                     "std::optional<::kubex::Time> when{};", "std::optional<::kubex::Bytes> blob{};",
                     "std::optional<::kubex::IntOrString> ios{};", "::kubex::RawJson any{};",
                     "std::map<std::string, std::string> labels{};", "std::vector<ThingSpecItemsItem> items{};",
                     "::kubex::Box<ThingSpecNested> nested{};", "::kubex::Box<ThingSpecNestedDeep> deep{};",
                     "std::optional<std::string> namespace_{};",
                     "::kubex::k8s::v1_35::meta::v1::ObjectMeta metadata{};",
                     'std::string api_version{"example.com/v1"};', 'std::string kind{"Thing"};']:
            self.assertIn(line, h)
        self.assertIn('::kubex::json::field("namespace", &ThingSpec::namespace_)', h)
        self.assertIn('static constexpr std::string_view b_c{"b-c"};', h)
        self.assertIn('static constexpr std::string_view v9{"9"};', h)
        self.assertIn('KUBEX_CUSTOM_RESOURCE(::acme::models::v1::Thing, "example.com", "v1", "Thing", "things", '
                      'namespaced, status);', h)
        # Children are defined before the structs that hold them.
        self.assertLess(h.index("struct ThingSpecNestedDeep {"), h.index("struct ThingSpecNested {"))
        self.assertLess(h.index("struct ThingSpec {"), h.index("struct Thing {"))

    def test_scope_versions_and_subresources(self):
        v = lambda name, served=True: {"name": name, "served": served, "storage": name == "v2",
                                        "schema": {"openAPIV3Schema": {"type": "object"}},
                                        "subresources": {"scale": {"specReplicasPath": ".spec.r"}}}
        h = self.render(crd_doc({}, scope="Cluster", versions=[v("v2"), v("v1beta1"), v("v1alpha1", False)]))
        self.assertIn("namespace acme::models::v2 {", h)
        self.assertIn("namespace acme::models::v1beta1 {", h)
        self.assertNotIn("v1alpha1", h)
        self.assertIn('"things", cluster, scale);', h)

    def test_errors_name_the_problem(self):
        with self.assertRaisesRegex(crd.CrdError, r"version v1 has no schema.openAPIV3Schema"):
            doc = crd_doc({})
            del doc["spec"]["versions"][0]["schema"]
            self.render(doc)
        with self.assertRaisesRegex(crd.CrdError, r"Thing.spec.bad: unsupported type 'tuple'"):
            self.render(crd_doc({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "bad": {"type": "tuple"}}}}}))
        with self.assertRaisesRegex(crd.CrdError, r"Thing.spec.list: array without items"):
            self.render(crd_doc({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "list": {"type": "array"}}}}}))
        with self.assertRaisesRegex(crd.CrdError, r"spec.names is missing"):
            doc = crd_doc({})
            del doc["spec"]["names"]
            self.render(doc)
        with self.assertRaisesRegex(crd.CrdError, r"not a C\+\+ namespace"):
            crd.render([crd_doc({})], "acme-models", "1.35", "x")

    def test_manifest_files(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.json")
            with open(path, "w") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "items": [crd_doc(SCHEMA), {"kind": "ConfigMap"}]}, f)
            self.assertEqual(len(crd.load_manifest(path)), 1)
            out = os.path.join(d, "out", "x.hpp")
            self.assertEqual(crd.main([path, "--namespace", "a::b", "--output", out]), 0)
            with open(out, encoding="utf-8") as f:
                self.assertTrue(f.read().startswith(
                    "// SPDX-License-Identifier: Apache-2.0\n// Generated by tools/codegen from m.json"))
            empty = os.path.join(d, "e.yaml")
            with open(empty, "w") as f:
                f.write("apiVersion: v1\nkind: ConfigMap\n")
            with self.assertRaisesRegex(crd.CrdError, "no CustomResourceDefinition"):
                crd.load_manifest(empty)
            self.assertEqual(crd.main([empty, "--namespace", "a", "--output", out]), 1)
            bad = os.path.join(d, "b.yaml")
            with open(bad, "w") as f:
                f.write("a: [unclosed\n")
            with self.assertRaisesRegex(crd.CrdError, "invalid YAML"):
                crd.load_manifest(bad)


if __name__ == "__main__":
    unittest.main()
