# SPDX-License-Identifier: Apache-2.0
"""Reads the committed specs into a normalised type model the emitters render."""

import io
import json
import lzma
import os
import re
import tarfile
from dataclasses import dataclass, field
from typing import Optional

# The models' string: 16 bytes with 15 characters inline, its decoded memory in the decode's
# arena (core/string.hpp). Lists and maps are kubex::Vector and kubex::Map (emit.py).
STRING = "::kubex::String"

# Definitions with a hand-written C++ counterpart in kubex::core.
VALUE_TYPES = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "::kubex::Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "::kubex::IntOrString",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "::kubex::Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "::kubex::MicroTime",
}
RAW = "::kubex::RawJson"

CPP_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern false
float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or
or_eq private protected public register reinterpret_cast requires return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename
union unsigned using virtual void volatile wchar_t while xor xor_eq linux unix errno assert NULL
EOF TRUE FALSE DELETE IN OUT major minor""".split())


@dataclass
class TypeRef:
    """A C++ type of a field: kind is scalar|struct|enum|value|raw|vector|map."""
    kind: str
    cpp: str = ""
    elem: Optional["TypeRef"] = None
    definition: str = ""  # for struct: the definition name


@dataclass
class Field:
    json_name: str
    cpp_name: str
    type: TypeRef
    required: bool
    description: str = ""


@dataclass
class Enum:
    name: str
    values: list
    description: str


@dataclass
class Struct:
    definition: str
    name: str
    group: str  # namespace path relative to the version, e.g. "core/v1"
    description: str
    fields: list = field(default_factory=list)
    enums: list = field(default_factory=list)
    gvks: list = field(default_factory=list)


def load_schemas(spec_dir: str) -> dict:
    """All component schemas of the version's v3 documents, with the enum overlay applied."""
    with open(os.path.join(spec_dir, "openapi.tar.xz"), "rb") as f:
        data = lzma.decompress(f.read())
    schemas = {}
    paths = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if not member.name.startswith("v3/"):
                continue
            doc = json.load(tar.extractfile(member))
            for name, schema in doc.get("components", {}).get("schemas", {}).items():
                # Shared meta types (DeleteOptions, WatchEvent...) list only the GVKs of the
                # document's own group in some releases: merge those, require the rest equal.
                gvk_key = "x-kubernetes-group-version-kind"
                if name in schemas:
                    old = schemas[name]
                    if {k: v for k, v in old.items() if k != gvk_key} != {k: v for k, v in schema.items() if k != gvk_key}:
                        raise SystemExit(f"{member.name}: definition {name} differs between documents")
                    merged = old.get(gvk_key, []) + [g for g in schema.get(gvk_key, []) if g not in old.get(gvk_key, [])]
                    if merged:
                        old[gvk_key] = merged
                    continue
                schemas[name] = schema
            paths.update(doc.get("paths", {}))
    add_metadata_only_types(schemas)
    with open(os.path.join(spec_dir, "enums.json"), encoding="utf-8") as f:
        enums = json.load(f)
    for definition, props in enums.items():
        schema = schemas.get(definition)
        if schema is None:
            continue
        for key, values in props.items():
            name, suffix = (key[:-2], key[-2:]) if key[-2:] in ("[]", "{}") else (key, "")
            prop = schema.get("properties", {}).get(name)
            if prop is None:
                raise SystemExit(f"enums.json: {definition}.{name} has no such property")
            target = prop.get("items") if suffix == "[]" else prop.get("additionalProperties") if suffix == "{}" else prop
            target["enum"] = values
    return {"schemas": schemas, "paths": paths}


META_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1."


def add_metadata_only_types(schemas: dict) -> None:
    """Adds PartialObjectMetadata and PartialObjectMetadataList, which every apiserver serves
    (for `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`) but
    the OpenAPI documents do not define. Their fields are those of the Go types in
    k8s.io/apimachinery/pkg/apis/meta/v1."""
    if META_V1 + "ObjectMeta" not in schemas or META_V1 + "ListMeta" not in schemas:
        return

    def gvk(kind):
        return [{"group": "meta.k8s.io", "version": "v1", "kind": kind}]

    type_meta = {
        "apiVersion": {"type": "string", "description": "APIVersion is meta.k8s.io/v1."},
        "kind": {"type": "string", "description": "Kind names the representation."},
    }
    schemas.setdefault(META_V1 + "PartialObjectMetadata", {
        "type": "object",
        "description": "PartialObjectMetadata is any object with only its metadata: what "
                       "metadata-only gets, lists and watches return.",
        "properties": {**type_meta, "metadata": {"$ref": f"#/components/schemas/{META_V1}ObjectMeta",
                                                 "description": "Standard object metadata."}},
        "x-kubernetes-group-version-kind": gvk("PartialObjectMetadata"),
    })
    schemas.setdefault(META_V1 + "PartialObjectMetadataList", {
        "type": "object",
        "required": ["items"],
        "description": "PartialObjectMetadataList is a list of objects with only their metadata.",
        "properties": {
            **type_meta,
            "metadata": {"$ref": f"#/components/schemas/{META_V1}ListMeta", "description": "Standard list metadata."},
            "items": {"type": "array", "description": "items holds the objects' metadata.",
                      "items": {"$ref": f"#/components/schemas/{META_V1}PartialObjectMetadata"}},
        },
        "x-kubernetes-group-version-kind": gvk("PartialObjectMetadataList"),
    })


def group_of(definition: str) -> Optional[str]:
    """io.k8s.api.apps.v1.Deployment -> "apps/v1"; meta -> "meta/v1"; None for others."""
    parts = definition.split(".")
    if parts[:3] == ["io", "k8s", "api"] and len(parts) == 6:
        return f"{parts[3]}/{parts[4]}"
    if "apis" in parts:
        i = parts.index("apis")
        if len(parts) == i + 4:
            return f"{parts[i + 1]}/{parts[i + 2]}"
    if definition == "io.k8s.apimachinery.pkg.version.Info":
        return "version"
    return None


def snake(name: str) -> str:
    s = name.lstrip("$").replace("-", "_").replace(".", "_")
    s = re.sub(r"([A-Z]{2,})s(?=[A-Z_]|$)", r"\1S", s)  # plural acronyms: podIPs -> pod_ips
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = s.lower()
    if s in CPP_KEYWORDS or not s:
        s += "_"
    return s


def pascal(name: str) -> str:
    s = re.sub(r"[^0-9A-Za-z]+", " ", name.lstrip("$")).split()
    return "".join(w[:1].upper() + w[1:] for w in s)


def is_raw(schema: dict) -> bool:
    return "properties" not in schema and schema.get("type") in (None, "object") and "additionalProperties" not in schema \
        and "oneOf" not in schema and "format" not in schema


def ref_of(prop: dict) -> Optional[str]:
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[1]
    if "allOf" in prop and len(prop["allOf"]) == 1 and "$ref" in prop["allOf"][0]:
        return prop["allOf"][0]["$ref"].rsplit("/", 1)[1]
    return None


class Model:
    """Every struct of one Kubernetes version, grouped by API group-version."""

    def __init__(self, spec_dir: str):
        loaded = load_schemas(spec_dir)
        self.schemas = loaded["schemas"]
        self.paths = loaded["paths"]
        self.structs = {}
        for definition in sorted(self.schemas):
            schema = self.schemas[definition]
            group = group_of(definition)
            if definition in VALUE_TYPES or group is None or is_raw(schema):
                continue
            self.structs[definition] = Struct(
                definition=definition, name=definition.rsplit(".", 1)[1], group=group,
                description=schema.get("description", ""),
                gvks=schema.get("x-kubernetes-group-version-kind", []))
        for s in self.structs.values():
            self._fields(s)

    def type_of_definition(self, definition: str) -> TypeRef:
        if definition in VALUE_TYPES:
            return TypeRef("value", VALUE_TYPES[definition])
        if definition in self.structs:
            s = self.structs[definition]
            return TypeRef("struct", f"::kubex::k8s::{{ns}}::{s.group.replace('/', '::')}::{s.name}",
                           definition=definition)
        schema = self.schemas.get(definition)
        if schema is None:
            raise SystemExit(f"reference to unknown definition {definition}")
        return TypeRef("raw", RAW)

    def _type(self, owner: Struct, prop_name: str, prop: dict) -> TypeRef:
        ref = ref_of(prop)
        if ref:
            return self.type_of_definition(ref)
        t = prop.get("type")
        fmt = prop.get("format", "")
        if "enum" in prop and t == "string":
            enum_name = owner.name + pascal(prop_name)
            if not any(e.name == enum_name for e in owner.enums):
                owner.enums.append(Enum(enum_name, list(prop["enum"]), prop.get("description", "")))
            return TypeRef("enum", enum_name)
        if t == "string":
            if fmt == "byte":
                return TypeRef("value", "::kubex::Bytes")
            if fmt == "date-time":
                return TypeRef("value", "::kubex::Time")
            if fmt != "int-or-string":
                return TypeRef("scalar", STRING)
        if fmt == "int-or-string":
            return TypeRef("value", "::kubex::IntOrString")
        if t == "integer":
            return TypeRef("scalar", "std::int32_t" if fmt == "int32" else "std::int64_t")
        if t == "number":
            return TypeRef("scalar", "double")
        if t == "boolean":
            return TypeRef("scalar", "bool")
        if t == "array":
            return TypeRef("vector", elem=self._type(owner, prop_name + "Item", prop["items"]))
        if t == "object" and isinstance(prop.get("additionalProperties"), dict):
            return TypeRef("map", elem=self._type(owner, prop_name + "Value", prop["additionalProperties"]))
        return TypeRef("raw", RAW)

    def _fields(self, s: Struct) -> None:
        schema = self.schemas[s.definition]
        required = set(schema.get("required", []))
        used = {"unknown_fields"}
        # apiVersion, kind and metadata first, as Go writes them; the rest in spec order.
        props = schema.get("properties", {})
        first = [k for k in ("apiVersion", "kind", "metadata") if k in props]
        for json_name in first + [k for k in props if k not in first]:
            prop = props[json_name]
            cpp = snake(json_name)
            while cpp in used:
                cpp += "_"
            used.add(cpp)
            s.fields.append(Field(json_name, cpp, self._type(s, json_name, prop), json_name in required,
                                  prop.get("description", "")))

    def groups(self) -> dict:
        out = {}
        for s in self.structs.values():
            out.setdefault(s.group, []).append(s)
        return out


@dataclass
class Resource:
    """A kind served as a REST resource, read from the spec's paths."""
    definition: str
    group: str  # API group ("" for core)
    version: str
    kind: str
    plural: str
    namespaced: bool = False
    verbs: set = field(default_factory=set)
    subresources: dict = field(default_factory=dict)  # name -> set of verbs


# /api/v1[/namespaces/{namespace}]/<plural>[/{name}][/<sub>][/{path}]
_PATH = re.compile(r"^/(?:api/(?P<cv>v1)|apis/(?P<g>[^/]+)/(?P<v>[^/]+))(?P<ns>/namespaces/\{namespace\})?"
                   r"/(?P<plural>[^/{]+)(?P<name>/\{name\})?(?:/(?P<sub>[^/{]+))?(?:/\{path\})?$")
_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
# (has {name}, HTTP method, x-kubernetes-action) -> verb of the resource itself.
_RESOURCE_VERBS = {(False, "get", "list"): "list", (False, "post", "post"): "create",
                   (False, "delete", "deletecollection"): "delete_collection",
                   (True, "get", "get"): "get", (True, "put", "put"): "update",
                   (True, "patch", "patch"): "patch", (True, "delete", "delete"): "delete_"}
_SUBRESOURCE_VERBS = {"get": "get", "put": "update", "patch": "patch", "post": "create", "delete": "delete_"}


def resources(model: "Model") -> dict:
    """definition -> Resource for every kind the spec's paths serve."""
    by_gvk = {}
    for s in model.structs.values():
        for gvk in s.gvks:
            by_gvk.setdefault((gvk["group"], gvk["version"], gvk["kind"]), []).append(s)
    out = {}
    subs = []
    for path in sorted(model.paths):
        m = _PATH.match(path)
        if not m or m.group("plural") == "watch":
            continue
        group = m.group("g") or ""
        version = m.group("cv") or m.group("v")
        item = model.paths[path]
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or "x-kubernetes-action" not in op:
                continue
            action = op["x-kubernetes-action"]
            if m.group("sub"):
                subs.append((group, version, m.group("plural"), m.group("sub"), method, action))
                continue
            gvk = op.get("x-kubernetes-group-version-kind")
            if not gvk:
                continue
            candidates = [s for s in by_gvk.get((gvk["group"], gvk["version"], gvk["kind"]), [])
                          if len(s.gvks) == 1]
            if len(candidates) != 1:
                raise SystemExit(f"{path}: {method} serves {gvk}, which is not exactly one model")
            s = candidates[0]
            r = out.get(s.definition)
            if r is None:
                r = out[s.definition] = Resource(s.definition, gvk["group"], gvk["version"], gvk["kind"],
                                                 m.group("plural"))
            elif r.plural != m.group("plural"):
                raise SystemExit(f"{path}: {gvk['kind']} is served as both {r.plural} and {m.group('plural')}")
            if m.group("ns"):
                r.namespaced = True
            verb = _RESOURCE_VERBS.get((bool(m.group("name")), method, action))
            if verb:
                r.verbs.add(verb)
            if verb == "list" and any(p.get("name") == "watch" for p in op.get("parameters", [])):
                r.verbs.add("watch")
    by_plural = {(r.group, r.version, r.plural): r for r in out.values()}
    for group, version, plural, sub, method, action in subs:
        r = by_plural.get((group, version, plural))
        if r is None:
            raise SystemExit(f"subresource {plural}/{sub} of {group}/{version} has no resource")
        verb = "connect" if action == "connect" else _SUBRESOURCE_VERBS[method]
        r.subresources.setdefault(sub, set()).add(verb)
    return out
