# SPDX-License-Identifier: Apache-2.0
"""Reads the messages of Kubernetes' generated.proto files: the field numbers, labels and types
that the protobuf codecs are generated from.

The files are proto2, written by go-to-protobuf: top-level messages only, one field per line
(`optional|repeated <type> <name> = <number>;` or `map<K, V> <name> = <number>;`), comments
with `//`. extract() refuses anything else, so a new construct fails the refresh loudly
instead of producing wrong codecs.
"""

import re

_PACKAGE = re.compile(r"^package\s+([\w.]+)\s*;", re.M)
_MESSAGE = re.compile(r"^message\s+(\w+)\s*\{(.*?)^\}", re.M | re.S)
_FIELD = re.compile(r"^(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;$")
_MAP = re.compile(r"^map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;$")
_SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
            "fixed32", "fixed64", "sfixed32", "sfixed64", "double", "float"}


def _strip_comments(text: str) -> str:
    return "\n".join(line.split("//", 1)[0].rstrip() for line in text.splitlines())


def extract(text: str, path: str = "<proto>") -> dict:
    """{"<package>.<Message>": [[name, number, label, type], ...]} of one generated.proto.
    label is optional|repeated|map; type is a scalar name or a message's full name (for a map,
    "<key type>,<value type>")."""
    text = _strip_comments(text)
    package = _PACKAGE.search(text)
    if not package:
        raise SystemExit(f"{path}: no package")
    pkg = package.group(1)
    out = {}
    for message in _MESSAGE.finditer(text):
        name, body = message.group(1), message.group(2)
        fields = []
        for raw in body.splitlines():
            line = raw.strip()
            if not line:
                continue
            m = _FIELD.match(line)
            if m:
                label, typ, fname, num = m.groups()
                fields.append([fname, int(num), label, _qualify(typ, pkg)])
                continue
            m = _MAP.match(line)
            if m:
                key, value, fname, num = m.groups()
                fields.append([fname, int(num), "map", f"{_qualify(key, pkg)},{_qualify(value, pkg)}"])
                continue
            raise SystemExit(f"{path}: message {name}: unexpected line {line!r}")
        if len({f[1] for f in fields}) != len(fields):
            raise SystemExit(f"{path}: message {name}: a field number is used twice")
        out[f"{pkg}.{name}"] = fields
    if not out and "message" in text:
        raise SystemExit(f"{path}: messages that could not be read")
    return out


def _qualify(typ: str, pkg: str) -> str:
    if typ in _SCALARS:
        return typ
    if "." in typ:
        return typ.lstrip(".")
    return f"{pkg}.{typ}"


def proto_package(definition: str) -> str:
    """The proto message name of an OpenAPI definition: io.k8s.api.core.v1.Pod ->
    k8s.io.api.core.v1.Pod; proto packages spell module names with underscores
    (k8s.io.apiextensions_apiserver..., k8s.io.kube_aggregator...)."""
    name = "k8s.io." + definition[len("io.k8s."):] if definition.startswith("io.k8s.") else definition
    return name.replace("-", "_")


_GO_STRUCT = re.compile(r"^type\s+(\w+)\s+struct\s*\{[ \t]*\n(.*?)^\}", re.M | re.S)
_GO_FIELD = re.compile(r"^\s*(?:\w+\s+)?(\S+)\s+`([^`]*)`\s*$")
_TAG = re.compile(r'(\w+):"([^"]*)"')


def extract_go_fields(text: str) -> dict:
    """{"<GoStruct>": {proto number: flag}} of one Go file, from the struct tags of fields with a
    protobuf tag. The flag says how JSON treats the field's zero value, which protobuf writes
    for every field that is not a pointer: "p" a pointer (present means set, even zero), "o" a
    value JSON leaves out when zero (omitempty, omitzero), "" a value JSON always writes."""
    out = {}
    for struct in _GO_STRUCT.finditer(text):
        fields = {}
        for line in struct.group(2).splitlines():
            line = line.split("//", 1)[0] if "`" not in line else line
            m = _GO_FIELD.match(line)
            if not m:
                continue
            go_type, tags = m.group(1), dict(_TAG.findall(m.group(2)))
            proto = tags.get("protobuf", "").split(",")
            if len(proto) < 2 or not proto[1].isdigit():
                continue  # no protobuf tag, or one that only names a cast type
            number = int(proto[1])
            json_opts = tags.get("json", "").split(",")[1:]
            if go_type.startswith("*"):
                flag = "p"
            elif "omitempty" in json_opts or "omitzero" in json_opts:
                flag = "o"
            else:
                flag = ""
            fields[number] = flag
        if fields:
            out[struct.group(1)] = fields
    return out
