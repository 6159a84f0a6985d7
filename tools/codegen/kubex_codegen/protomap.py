# SPDX-License-Identifier: Apache-2.0
"""Maps the model's structs (from OpenAPI) onto the proto messages of the same version.

Most fields have the same name in both. The exceptions, found on every version 1.32-1.37:
- a proto field named after the Go field (`Webhooks`, `Name`), or without JSON's `$` or `x-`
  punctuation (`ref` for `$ref`, `xKubernetesPreserveUnknownFields`): names are compared
  ignoring case and anything but letters and digits;
- fields JSON shows inline but proto nests in the message of a Go embedded struct, up to two
  levels deep (admissionregistration's NamedRuleWithOperations -> RuleWithOperations -> Rule).
"""

import lzma
import json
import os
import re
from dataclasses import dataclass, field as dc_field
from typing import Optional

from .protoschema import proto_package
from .schema import Model, Struct


def load_messages(spec_dir: str) -> dict:
    """{message: [[name, number, label, type], ...]} from the version's proto.json.xz."""
    path = os.path.join(spec_dir, "proto.json.xz")
    with open(path, "rb") as f:
        text = lzma.decompress(f.read()).decode("utf-8")
    out = {}
    for line in text.splitlines():
        out.update(json.loads(line))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


@dataclass
class ProtoField:
    """One proto field of a struct's message: either a model field read directly (field is
    set), or an embedded Go struct's message whose own fields fill the struct (embedded)."""
    number: int
    label: str
    type: str
    go: str = "?"  # how JSON treats the Go field's zero value (see protoschema.extract_go_fields)
    field: Optional[object] = None
    embedded: list = dc_field(default_factory=list)


@dataclass
class MessageMap:
    message: str
    fields: list  # ProtoField, by number


def map_struct(s: Struct, messages: dict) -> Optional[MessageMap]:
    """The proto layout of struct s, or None when its definition has no proto message
    (version.Info). Raises when a model field has no proto field: a codec would lose it."""
    name = proto_package(s.definition)
    if name not in messages:
        return None
    wanted = {_norm(f.json_name): f for f in s.fields}
    mapped = _map_message(name, messages, wanted, depth=0)
    # A kind's apiVersion and kind are in the envelope, not in its message; references to
    # other objects (ownerReferences, managedFields) have them as fields of their own.
    missing = sorted(f.json_name for f in wanted.values() if f.json_name not in ("apiVersion", "kind"))
    if missing:
        raise SystemExit(f"{s.definition}: no proto field for {', '.join(missing)} in {name}")
    return MessageMap(name, mapped)


def _map_message(name: str, messages: dict, wanted: dict, depth: int) -> list:
    out = []
    embedded = []
    for fname, number, label, typ, go in messages[name]:
        f = wanted.pop(_norm(fname), None)
        if f is not None:
            out.append(ProtoField(number, label, typ, go, field=f))
        elif label == "optional" and typ in messages and depth < 3:
            embedded.append((number, label, typ))
    # Embedded structs after direct fields, so that a field of the outer struct is never taken
    # for a same-named field of an embedded one.
    for number, label, typ in embedded:
        inner = _map_message(typ, messages, wanted, depth + 1)
        if inner:
            out.append(ProtoField(number, label, typ, embedded=inner))
    return sorted(out, key=lambda p: p.number)


def map_model(model: Model, messages: dict) -> dict:
    """definition -> MessageMap for every struct with a proto message."""
    out = {}
    for definition, s in model.structs.items():
        m = map_struct(s, messages)
        if m is not None:
            out[definition] = m
    return out
