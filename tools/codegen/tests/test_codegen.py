# SPDX-License-Identifier: Apache-2.0
"""Tests of the model generator on a small fixture spec: golden output plus structural checks.

Run: python3 -m unittest discover -s tools/codegen/tests   (UPDATE_GOLDEN=1 rewrites golden/)
"""

import io
import json
import lzma
import os
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kubex_codegen import goenums  # noqa: E402
from kubex_codegen.emit import Emitter, order  # noqa: E402
from kubex_codegen.schema import Field, Model, Struct, TypeRef, snake  # noqa: E402

REF = "#/components/schemas/"


def ref(name):
    return {"allOf": [{"$ref": REF + name}]}


META = "io.k8s.apimachinery.pkg.apis.meta.v1."
SCHEMAS = {
    META + "ObjectMeta": {"type": "object", "properties": {
        "name": {"type": "string"}, "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "creationTimestamp": ref(META + "Time")}},
    META + "Time": {"type": "string", "format": "date-time"},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"oneOf": [{"type": "string"}, {"type": "number"}]},
    "io.k8s.api.demo.v1.Widget": {
        "type": "object", "required": ["spec"],
        "x-kubernetes-group-version-kind": [{"group": "demo.k8s.io", "version": "v1", "kind": "Widget"}],
        "properties": {
            "status": ref("io.k8s.api.demo.v1.WidgetStatus"),
            "spec": ref("io.k8s.api.demo.v1.WidgetSpec"),
            "kind": {"type": "string"}, "apiVersion": {"type": "string"},
            "metadata": ref(META + "ObjectMeta")}},
    "io.k8s.api.demo.v1.WidgetSpec": {"type": "object", "required": ["size", "builtAt"], "properties": {
        "size": ref("io.k8s.apimachinery.pkg.api.resource.Quantity"),
        "builtAt": ref(META + "Time"),
        "podIPs": {"type": "array", "items": {"type": "string"}},
        "namespace": {"type": "string"}, "template": {"type": "integer", "format": "int32"},
        "x-kubernetes-thing": {"type": "boolean"}, "ratio": {"type": "number", "format": "double"},
        "data": {"type": "string", "format": "byte"}, "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "children": {"type": "array", "items": ref("io.k8s.api.demo.v1.WidgetSpec")},
        "parent": ref("io.k8s.api.demo.v1.WidgetSpec")}},
    "io.k8s.api.demo.v1.WidgetStatus": {"type": "object", "properties": {
        "phase": {"type": "string", "description": "Phase of the widget. More text here."},
        "modes": {"type": "array", "items": {"type": "string"}}}},
}
SCHEMAS["io.k8s.api.demo.v1.WidgetList"] = {
    "type": "object", "required": ["items"],
    "x-kubernetes-group-version-kind": [{"group": "demo.k8s.io", "version": "v1", "kind": "WidgetList"}],
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                   "items": {"type": "array", "items": ref("io.k8s.api.demo.v1.Widget")}}}
SCHEMAS["io.k8s.api.demo.v1.WidgetReview"] = {
    "type": "object",
    "x-kubernetes-group-version-kind": [{"group": "demo.k8s.io", "version": "v1", "kind": "WidgetReview"}],
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}}


def op(action, kind, params=()):
    return {"x-kubernetes-action": action, "parameters": [{"name": p} for p in params],
            "x-kubernetes-group-version-kind": {"group": "demo.k8s.io", "version": "v1", "kind": kind}}


W = "/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets"
PATHS = {
    "/apis/demo.k8s.io/v1/widgets": {"get": op("list", "Widget", ["watch"])},
    W: {"get": op("list", "Widget", ["limit", "watch"]), "post": op("post", "Widget"),
        "delete": op("deletecollection", "Widget")},
    W + "/{name}": {"get": op("get", "Widget"), "put": op("put", "Widget"), "patch": op("patch", "Widget"),
                    "delete": op("delete", "Widget")},
    W + "/{name}/status": {"get": op("get", "Widget"), "patch": op("patch", "Widget")},
    W + "/{name}/attach": {"get": op("connect", "Widget"), "post": op("connect", "Widget")},
    "/apis/demo.k8s.io/v1/watch/namespaces/{namespace}/widgets": {"get": op("watchlist", "Widget")},
    "/apis/demo.k8s.io/v1/widgetreviews": {"post": op("post", "WidgetReview")},
}
ENUMS = {"io.k8s.api.demo.v1.WidgetStatus": {"phase": ["Ready", "", "default", "9lives"], "modes[]": ["A", "B"]}}


def make_spec(directory):
    doc = json.dumps({"openapi": "3.0.0", "paths": PATHS, "components": {"schemas": SCHEMAS}}).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        ti = tarfile.TarInfo("v3/apis__demo__v1_openapi.json")
        ti.size = len(doc)
        tar.addfile(ti, io.BytesIO(doc))
    with open(os.path.join(directory, "openapi.tar.xz"), "wb") as f:
        f.write(lzma.compress(buf.getvalue()))
    with open(os.path.join(directory, "enums.json"), "w") as f:
        json.dump(ENUMS, f)


class CodegenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        make_spec(cls.tmp.name)
        cls.files = Emitter(Model(cls.tmp.name), "v1.99.0").render()
        cls.header = cls.files["include/kubex/k8s/v1_99/demo/v1.hpp"]
        cls.source = cls.files["src/demo_v1.cpp"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_golden(self):
        golden = os.path.join(HERE, "golden")
        for rel, text in sorted(self.files.items()):
            path = os.path.join(golden, rel)
            if os.environ.get("UPDATE_GOLDEN"):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            with open(path) as f:
                self.assertEqual(f.read(), text, f"{rel} differs from golden/ (UPDATE_GOLDEN=1 to accept)")
        produced = {os.path.relpath(os.path.join(r, n), golden) for r, _, ns in os.walk(golden) for n in ns}
        self.assertEqual(produced, set(self.files))

    def test_container_elements_come_first(self):
        # clang needs a vector's element type complete at the member's `{}`: Alpha holds a
        # vector of Beta and a map of lists of Gamma, so both come first despite the alphabet;
        # a type's own vector and a cycle through vectors are left as they are.
        def struct(name, *fields):
            s = Struct(f"d.{name}", name, "demo/v1", "")
            for fname, t in fields:
                s.fields.append(Field(fname, fname, t, False))
            return s

        def ref(name):
            return TypeRef("struct", definition=f"d.{name}")

        alpha = struct("Alpha", ("bs", TypeRef("vector", elem=ref("Beta"))),
                       ("gs", TypeRef("map", elem=TypeRef("vector", elem=ref("Gamma")))),
                       ("self", TypeRef("vector", elem=ref("Alpha"))))
        beta = struct("Beta", ("as", TypeRef("vector", elem=ref("Alpha"))))
        gamma = struct("Gamma")
        names = [s.name for s in order([alpha, beta, gamma])]
        self.assertLess(names.index("Gamma"), names.index("Alpha"))
        self.assertEqual(sorted(names), ["Alpha", "Beta", "Gamma"])
        names = [s.name for s in order([alpha, gamma])]
        self.assertEqual(names, ["Gamma", "Alpha"])

    def test_field_names(self):
        self.assertEqual(snake("podIPs"), "pod_ips")
        self.assertEqual(snake("apiVersion"), "api_version")
        self.assertEqual(snake("targetCPUUtilizationPercentage"), "target_cpu_utilization_percentage")
        self.assertEqual(snake("$ref"), "ref")
        self.assertEqual(snake("x-kubernetes-list-type"), "x_kubernetes_list_type")
        self.assertEqual(snake("namespace"), "namespace_")
        self.assertEqual(snake("template"), "template_")

    def test_types(self):
        h = self.header
        self.assertIn("::kubex::Quantity size{};", h)  # required value type: held directly
        self.assertIn("std::optional<std::int32_t> template_{};", h)
        self.assertIn("std::optional<double> ratio{};", h)
        self.assertIn("std::optional<::kubex::Bytes> data{};", h)
        self.assertIn("::kubex::RawJson any{};", h)
        self.assertIn("::kubex::Vector<::kubex::k8s::v1_99::demo::v1::WidgetSpec> children{};", h)
        self.assertIn("::kubex::Box<::kubex::k8s::v1_99::demo::v1::WidgetSpec> parent{};", h)  # recursion
        # Boxed objects come from the decode's arena, like the strings and lists (box_memory.hpp).
        self.assertIn("{ return ::kubex::box_new<WidgetSpec>(); }", self.source)
        self.assertIn("::kubex::k8s::v1_99::meta::v1::ObjectMeta metadata{};", h)  # metadata inline
        self.assertIn("::kubex::k8s::v1_99::demo::v1::WidgetSpec spec{};", h)  # required struct inline
        self.assertIn("::kubex::Box<::kubex::k8s::v1_99::demo::v1::WidgetStatus> status{};", h)
        # Go writes a zero Time as null even when required: optional here, and always written.
        self.assertIn("std::optional<::kubex::Time> built_at{};", h)
        writer = self.source[self.source.index("kubex_write(json::Writer& w, const WidgetSpec& o)"):]
        self.assertIn('  json::write_required(w, "\\"builtAt\\":", o.built_at);', writer)

    def test_gvk_defaults_and_field_order(self):
        self.assertIn('::kubex::String api_version{"demo.k8s.io/v1"};', self.header)
        self.assertIn('::kubex::String kind{"Widget"};', self.header)
        writer = self.source[self.source.index("kubex_write(json::Writer& w, const Widget& o)"):]
        order = [writer.index(f'\\"{k}\\"') for k in ("apiVersion", "kind", "metadata", "status", "spec")]
        self.assertEqual(order, sorted(order))

    def test_enums(self):
        h = self.header
        self.assertIn("struct WidgetStatusPhase : ::kubex::StringEnum<WidgetStatusPhase>", h)
        self.assertIn('static constexpr std::string_view Ready{"Ready"};', h)
        self.assertIn('static constexpr std::string_view Empty{""};', h)
        self.assertIn('static constexpr std::string_view default_{"default"};', h)
        self.assertIn('static constexpr std::string_view v9lives{"9lives"};', h)
        self.assertIn("std::optional<WidgetStatusPhase> phase{};", h)
        self.assertIn("::kubex::Vector<WidgetStatusModesItem> modes{};", h)

    def test_struct_order_allows_by_value_members(self):
        self.assertLess(self.header.index("struct WidgetSpec {"), self.header.index("struct Widget {"))

    def test_resource_traits(self):
        h = self.header
        w = h[h.index("struct resource_traits<::kubex::k8s::v1_99::demo::v1::Widget>"):]
        w = w[:w.index("\n};")]
        self.assertIn('plural{"widgets"}', w)
        self.assertIn('api_version{"demo.k8s.io/v1"}', w)
        self.assertIn("Scope::namespaced", w)
        self.assertIn("verbs{::kubex::Verb::create, ::kubex::Verb::delete_, ::kubex::Verb::delete_collection, "
                      "::kubex::Verb::get, ::kubex::Verb::list, ::kubex::Verb::patch, ::kubex::Verb::update, "
                      "::kubex::Verb::watch}", w)
        self.assertIn('Subresource{"attach", {::kubex::Verb::connect}}', w)
        self.assertIn('Subresource{"status", {::kubex::Verb::get, ::kubex::Verb::patch}}', w)
        self.assertIn("using list_type = ::kubex::k8s::v1_99::demo::v1::WidgetList;", w)
        r = h[h.index("struct resource_traits<::kubex::k8s::v1_99::demo::v1::WidgetReview>"):]
        r = r[:r.index("\n};")]
        self.assertIn("Scope::cluster", r)
        self.assertIn("verbs{::kubex::Verb::create}", r)
        self.assertIn("std::array<::kubex::Subresource, 0>", r)
        self.assertIn("using list_type = void;", r)
        self.assertNotIn("resource_traits<::kubex::k8s::v1_99::demo::v1::WidgetList>", h)
        self.assertNotIn("resource_traits<::kubex::k8s::v1_99::demo::v1::WidgetSpec>", h)
        all_ = self.files["include/kubex/k8s/v1_99/resources.hpp"]
        self.assertIn("resource_count = 2;", all_)
        self.assertIn("f.template operator()<demo::v1::Widget>();", all_)

    def test_reader_dispatch_and_unknown_fields(self):
        self.assertIn('if (k == "podIPs")', self.source)
        self.assertIn("o.unknown_fields.add(std::string(k), v.get_raw());", self.source)
        self.assertIn("if (!v.is_null()) { json::read(v, o.size); }", self.source)


class GoEnumsTest(unittest.TestCase):
    SOURCE = '''package openapi

import (
\tcorev1 "k8s.io/api/core/v1"
)

func GetOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
\treturn map[string]common.OpenAPIDefinition{
\t\tcorev1.PodStatus{}.OpenAPIModelName(): schema_k8sio_api_core_v1_PodStatus(ref),
\t\t"k8s.io/api/core/v1.Other": schema_k8sio_api_core_v1_Other(ref),
\t}
}

func schema_k8sio_api_core_v1_PodStatus(ref common.ReferenceCallback) common.OpenAPIDefinition {
\treturn common.OpenAPIDefinition{
\t\tSchema: spec.Schema{
\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\tProperties: map[string]spec.Schema{
\t\t\t\t\t"phase": {
\t\t\t\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\t\t\t\tEnum:        []interface{}{"Failed", "Pending"},
\t\t\t\t\t\t},
\t\t\t\t\t},
\t\t\t\t\t"modes": {
\t\t\t\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\t\t\t\tItems: &spec.SchemaOrArray{
\t\t\t\t\t\t\t\tSchema: &spec.Schema{
\t\t\t\t\t\t\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\t\t\t\t\t\t\tEnum:        []interface{}{"A", "B"},
\t\t\t\t\t\t\t\t\t},
\t\t\t\t\t\t\t\t},
\t\t\t\t\t\t\t},
\t\t\t\t\t\t},
\t\t\t\t\t},
\t\t\t\t},
\t\t\t},
\t\t},
\t}
}

func schema_k8sio_api_core_v1_Other(ref common.ReferenceCallback) common.OpenAPIDefinition {
\treturn common.OpenAPIDefinition{
\t\tSchema: spec.Schema{
\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\tProperties: map[string]spec.Schema{
\t\t\t\t\t"x": {
\t\t\t\t\t\tSchemaProps: spec.SchemaProps{
\t\t\t\t\t\t\tEnum:        []interface{}{"q\\"uote"},
\t\t\t\t\t\t},
\t\t\t\t\t},
\t\t\t\t},
\t\t\t},
\t\t},
\t}
}
'''

    def test_extract(self):
        self.assertEqual(goenums.extract(self.SOURCE), {
            "io.k8s.api.core.v1.PodStatus": {"phase": ["Failed", "Pending"], "modes[]": ["A", "B"]},
            "io.k8s.api.core.v1.Other": {"x": ['q"uote']},
        })

    def test_openapi_name(self):
        self.assertEqual(goenums.openapi_name("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON"),
                         "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON")


if __name__ == "__main__":
    unittest.main()
