# SPDX-License-Identifier: Apache-2.0
"""Enum values of Kubernetes API fields, read from zz_generated.openapi.go.

The OpenAPI documents committed in k8s.io/kubernetes (api/openapi-spec/v3) are generated
without enums, while a running apiserver serves them (feature OpenAPIEnums). The enums come
from the same generated Go file the apiserver serves, so reading them from there gives the
server's values for every release without running one. A test checks the result against a
live 1.35 apiserver.
"""

import re

_IMPORT = re.compile(r'^\s*(\w+)\s+"([^"]+)"\s*$')
_MAP_QUOTED = re.compile(r'^\s*"([^"]+)":\s+(schema_\w+)\(ref\),\s*$')
_MAP_MODEL = re.compile(r'^\s*(\w+)\.(\w+)\{\}\.OpenAPIModelName\(\):\s+(schema_\w+)\(ref\),\s*$')
_FUNC = re.compile(r'^func (schema_\w+)\(ref common\.ReferenceCallback\) common\.OpenAPIDefinition \{$')
_PROP = re.compile(r'^(\t+)"([^"]+)": \{$')
_ENUM = re.compile(r'^\t+Enum:\s+\[\]interface\{\}\{(.*)\},$')
_NESTED = re.compile(r'^\t+(Items|AdditionalProperties):')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def openapi_name(go_name: str) -> str:
    """k8s.io/api/core/v1.Pod -> io.k8s.api.core.v1.Pod (the OpenAPI definition name)."""
    path, _, typ = go_name.rpartition(".")
    host, _, rest = path.partition("/")
    reversed_host = ".".join(reversed(host.split(".")))
    return ".".join([reversed_host] + rest.split("/") + [typ])


def extract(go_source: str) -> dict:
    """Returns {definition: {property: [values]}}; item enums of arrays use "property[]"."""
    imports = {}
    func_to_def = {}
    in_imports = False
    lines = go_source.splitlines()
    for line in lines:
        if line.startswith("import ("):
            in_imports = True
            continue
        if in_imports:
            if line.startswith(")"):
                in_imports = False
                continue
            m = _IMPORT.match(line)
            if m:
                imports[m.group(1)] = m.group(2)
            continue
        m = _MAP_QUOTED.match(line)
        if m:
            func_to_def[m.group(2)] = openapi_name(m.group(1))
            continue
        m = _MAP_MODEL.match(line)
        if m and m.group(1) in imports:
            func_to_def[m.group(3)] = openapi_name(imports[m.group(1)] + "." + m.group(2))

    enums = {}
    current = None  # definition name of the function being read
    prop_stack = []  # (indent, name) of open property keys
    nested_at = {}  # property indent -> "[]" when an Items block was entered below it
    for line in lines:
        m = _FUNC.match(line)
        if m:
            current = func_to_def.get(m.group(1))
            prop_stack, nested_at = [], {}
            continue
        if current is None:
            continue
        m = _PROP.match(line)
        if m:
            indent = len(m.group(1))
            while prop_stack and prop_stack[-1][0] >= indent:
                nested_at.pop(prop_stack.pop()[0], None)
            prop_stack.append((indent, m.group(2)))
            continue
        m = _NESTED.match(line)
        if m and prop_stack:
            nested_at[prop_stack[-1][0]] = "[]" if m.group(1) == "Items" else "{}"
            continue
        m = _ENUM.match(line)
        if m and prop_stack:
            indent, name = prop_stack[-1]
            values = [bytes(s, "utf-8").decode("unicode_escape") for s in _STRING.findall(m.group(1))]
            enums.setdefault(current, {})[name + nested_at.get(indent, "")] = values
    return enums
