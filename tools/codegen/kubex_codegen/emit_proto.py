# SPDX-License-Identifier: Apache-2.0
"""Renders the protobuf codec of one group-version: `kubex_read_proto(protobuf::Reader&, T&)` and
`kubex_write_proto(protobuf::Writer&, const T&)` for every struct with a proto message, in
src/<group>.pb.cpp (a translation unit of its own, so a program that never uses protobuf links
none of it). Fields a reader does not know are kept as their bytes in the struct's
unknown_fields, and its writer appends them again."""

from .protomap import MessageMap, ProtoField, map_struct

# Messages whose field 1 holds JSON text (RawExtension, FieldsV1, apiextensions JSON).
RAW_JSON_MESSAGES = {
    "k8s.io.apimachinery.pkg.runtime.RawExtension",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON",
}
APIEXT = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1."
# apiextensions' "either a schema or ..." messages, which JSON shows as the value itself.
SCHEMA_OR = {APIEXT + "JSONSchemaPropsOrArray": "schema_or_array",
             APIEXT + "JSONSchemaPropsOrBool": "schema_or_bool",
             APIEXT + "JSONSchemaPropsOrStringArray": "schema_or_string_array"}

# The three readers of SCHEMA_OR, emitted into apiextensions/v1's source. Each decodes the
# proto form and writes the JSON the model holds as RawJson.
SCHEMA_OR_CODECS = """namespace {

std::string schema_json(const JSONSchemaProps& props) {
  std::string out;
  json::Writer w(out);
  kubex_write(w, props);
  return out;
}

// {schema = 1, jSONSchemas = 2}: one schema, or an array of them.
void read_schema_or_array(pb::Reader& r, ::kubex::RawJson& out) {
  pb::Reader m = r.message();
  ::kubex::Box<JSONSchemaProps> schema;
  std::vector<JSONSchemaProps> schemas;
  while (m.next()) {
    if (m.field() == 1) {
      pb::read(m, schema);
    } else if (m.field() == 2) {
      pb::read(m, schemas);
    } else {
      m.skip();
    }
  }
  if (schema) {
    out.text = schema_json(*schema);
    return;
  }
  std::string text;
  json::Writer w(text);
  w.begin_array();
  for (const auto& s : schemas) {
    kubex_write(w, s);
  }
  w.end_array();
  out.text = std::move(text);
}

// {allows = 1, schema = 2}: a schema, or true or false.
void read_schema_or_bool(pb::Reader& r, ::kubex::RawJson& out) {
  pb::Reader m = r.message();
  bool allows = false;
  ::kubex::Box<JSONSchemaProps> schema;
  while (m.next()) {
    if (m.field() == 1) {
      allows = m.boolean();
    } else if (m.field() == 2) {
      pb::read(m, schema);
    } else {
      m.skip();
    }
  }
  out.text = schema ? schema_json(*schema) : std::string(allows ? "true" : "false");
}

// {schema = 1, property = 2}: a schema, or an array of property names.
void read_schema_or_string_array(pb::Reader& r, ::kubex::RawJson& out) {
  pb::Reader m = r.message();
  ::kubex::Box<JSONSchemaProps> schema;
  std::vector<std::string> property;
  while (m.next()) {
    if (m.field() == 1) {
      pb::read(m, schema);
    } else if (m.field() == 2) {
      pb::read(m, property);
    } else {
      m.skip();
    }
  }
  if (schema) {
    out.text = schema_json(*schema);
    return;
  }
  std::string text;
  json::Writer w(text);
  w.begin_array();
  for (const auto& p : property) {
    w.string(p);
  }
  w.end_array();
  out.text = std::move(text);
}

// The writers parse the JSON the model holds back into the proto form.
void write_schema_or_array(pb::Writer& w, std::uint32_t field, const ::kubex::RawJson& v) {
  if (v.empty()) {
    return;
  }
  w.message(field, [&v](pb::Writer& m) {
    if (v.text.front() == '[') {
      std::vector<JSONSchemaProps> schemas;
      json::decode(v.text, schemas);
      pb::write(m, 2, schemas);
    } else {
      JSONSchemaProps schema;
      json::decode(v.text, schema);
      pb::write(m, 1, schema);
    }
  });
}

void write_schema_or_bool(pb::Writer& w, std::uint32_t field, const ::kubex::RawJson& v) {
  if (v.empty()) {
    return;
  }
  w.message(field, [&v](pb::Writer& m) {
    if (v.text == "true" || v.text == "false") {
      m.boolean(1, v.text == "true");
      return;
    }
    JSONSchemaProps schema;
    json::decode(v.text, schema);
    m.boolean(1, true);  // a schema allows, as Go's UnmarshalJSON sets it
    pb::write(m, 2, schema);
  });
}

void write_schema_or_string_array(pb::Writer& w, std::uint32_t field, const ::kubex::RawJson& v) {
  if (v.empty()) {
    return;
  }
  w.message(field, [&v](pb::Writer& m) {
    if (v.text.front() == '[') {
      std::vector<std::string> property;
      json::decode(v.text, property);
      pb::write(m, 2, property);
    } else {
      JSONSchemaProps schema;
      json::decode(v.text, schema);
      pb::write(m, 1, schema);
    }
  });
}

}  // namespace

"""


def _is_string_list(messages: dict, typ: str) -> bool:
    """metav1.Verbs, ExtraValue, AttestationValue: {repeated string items = 1}."""
    return [f[:4] for f in messages.get(typ, [])] == [["items", 1, "repeated", "string"]]


def _read(p: ProtoField, reader: str, target: str, messages: dict, where: str) -> str:
    """The statement that reads proto field p into the model member `target`."""
    t = p.field.type
    if t.kind == "raw":
        if p.type in RAW_JSON_MESSAGES:
            return f"pb::read({reader}, {target});"
        if p.type in SCHEMA_OR:
            return f"read_{SCHEMA_OR[p.type]}({reader}, {target});"
        if messages.get(p.type) == []:
            return f"pb::read_empty_object({reader}, {target});"
        raise SystemExit(f"{where}: no protobuf reading for a free-form field of message {p.type}")
    if t.kind == "vector":
        if p.label == "optional" and _is_string_list(messages, p.type):
            return f"pb::read_string_list({reader}, {target});"
        if p.label != "repeated":
            raise SystemExit(f"{where}: a list in JSON, {p.label} {p.type} in proto")
        if t.elem.kind == "raw" and p.type not in RAW_JSON_MESSAGES:
            raise SystemExit(f"{where}: no protobuf reading for a list of {p.type}")
        return f"pb::read({reader}, {target});"
    if t.kind == "map":
        if p.label != "map":
            raise SystemExit(f"{where}: a map in JSON, {p.label} {p.type} in proto")
        value = p.type.split(",", 1)[1]
        if t.elem.kind == "vector" and _is_string_list(messages, value):
            return (f"pb::read_map_entry({reader}, {target}, "
                    "[](pb::Reader& e, ::kubex::Vector<::kubex::String>& v) { pb::read_string_list(e, v); });")
        if t.elem.kind == "raw":
            if value in SCHEMA_OR:
                return (f"pb::read_map_entry({reader}, {target}, "
                        f"[](pb::Reader& e, ::kubex::RawJson& v) {{ read_{SCHEMA_OR[value]}(e, v); }});")
            if value not in RAW_JSON_MESSAGES:
                raise SystemExit(f"{where}: no protobuf reading for a map of {value}")
        return f"pb::read({reader}, {target});"
    if p.label != "optional":
        raise SystemExit(f"{where}: a single value in JSON, {p.label} {p.type} in proto")
    if p.go == "o" and t.kind in ("scalar", "enum") and not p.field.required:
        # Protobuf writes the Go value even when zero; JSON leaves it out, so zero is absent.
        return f"pb::read_omit_zero({reader}, {target});"
    return f"pb::read({reader}, {target});"


def _write(p: ProtoField, writer: str, source: str, messages: dict) -> str:
    """The statement that writes the model member `source` as proto field p (_read has checked
    the mapping already)."""
    t = p.field.type
    n = p.number
    if t.kind == "raw":
        if p.type in RAW_JSON_MESSAGES:
            return f"pb::write({writer}, {n}, {source});"
        if p.type in SCHEMA_OR:
            return f"write_{SCHEMA_OR[p.type]}({writer}, {n}, {source});"
        return f"pb::write_empty_object({writer}, {n}, {source});"
    if t.kind == "vector" and p.label == "optional" and _is_string_list(messages, p.type):
        return f"pb::write_string_list({writer}, {n}, {source});"
    if t.kind == "map":
        value = p.type.split(",", 1)[1]
        if t.elem.kind == "vector" and _is_string_list(messages, value):
            return (f"pb::write_map({writer}, {n}, {source}, [](pb::Writer& e, std::uint32_t k, "
                    "const ::kubex::Vector<::kubex::String>& v) { pb::write_string_list(e, k, v); });")
        if t.elem.kind == "raw" and value in SCHEMA_OR:
            return (f"pb::write_map({writer}, {n}, {source}, [](pb::Writer& e, std::uint32_t k, "
                    f"const ::kubex::RawJson& v) {{ write_{SCHEMA_OR[value]}(e, k, v); }});")
    return f"pb::write({writer}, {n}, {source});"


def _write_fields(fields: list, writer: str, indent: str, messages: dict, depth: int) -> list:
    lines = []
    for p in fields:
        if p.field is not None:
            lines.append(f"{indent}{_write(p, writer, 'o.' + p.field.cpp_name, messages)}\n")
            continue
        # A Go embedded struct: its message holds fields of this struct. Go writes it always.
        inner = f"m{depth}"
        lines.append(f"{indent}{writer}.message({p.number}, [&o](pb::Writer& {inner}) {{\n")
        lines.extend(_write_fields(p.embedded, inner, indent + "  ", messages, depth + 1))
        lines.append(f"{indent}}});\n")
    return lines


def _switch(fields: list, reader: str, indent: str, messages: dict, where: str, depth: int) -> list:
    """The reader's switch over one message's fields. At the top level (depth 1) a field it does
    not know is kept in unknown_fields; in an embedded Go struct's message it is skipped, since
    written back at the top level it would land in the wrong message."""
    lines = [f"{indent}switch ({reader}.field()) {{\n"]
    for p in fields:
        lines.append(f"{indent}  case {p.number}:")
        if p.field is not None:
            lines.append(f" {{\n{indent}    {_read(p, reader, 'o.' + p.field.cpp_name, messages, where)}\n"
                         f"{indent}    break;\n{indent}  }}\n")
            continue
        # A Go embedded struct: its message's fields belong to this struct.
        inner = f"m{depth}"
        lines.append(f" {{\n{indent}    pb::Reader {inner} = {reader}.message();\n"
                     f"{indent}    while ({inner}.next()) {{\n")
        lines.extend(_switch(p.embedded, inner, indent + "      ", messages, where, depth + 1))
        lines.append(f"{indent}    }}\n{indent}    break;\n{indent}  }}\n")
    keep = f"\n{indent}    o.unknown_fields.add_protobuf({reader}.field_bytes());" if depth == 1 else ""
    lines.append(f"{indent}  default:\n{indent}    {reader}.skip();{keep}\n{indent}    break;\n{indent}}}\n")
    return lines


def declarations(structs, messages: dict) -> str:
    """The header's declarations of the group's protobuf readers and writers."""
    lines = ["// Protobuf readers and writers (kubex/core/protobuf_read.hpp, protobuf_write.hpp), in\n"
             "// this group's .pb.cpp.\n"]
    for s in sorted(structs, key=lambda s: s.name):
        if map_struct(s, messages) is not None:
            lines.append(f"KUBEX_API void kubex_read_proto(::kubex::protobuf::Reader& r, {s.name}& o);\n")
            lines.append(f"KUBEX_API void kubex_write_proto(::kubex::protobuf::Writer& w, const {s.name}& o);\n")
    return "".join(lines)


def source(banner: str, header: str, ns: str, structs, messages: dict) -> str:
    names = {s.name for s in structs}
    schema_or = "JSONSchemaProps" in names and ns.endswith("apiextensions::v1")
    lines = [banner, f"#include <{header}>\n\n"]
    if schema_or:
        lines.append("#include <kubex/core/json.hpp>\n#include <kubex/core/json_types.hpp>\n")
    lines += ["#include <kubex/core/protobuf_read.hpp>\n"
              "#include <kubex/core/protobuf_write.hpp>\n\n",
              f"namespace {ns} {{\n\n"]
    if schema_or:
        lines.append("namespace json = ::kubex::json;\n")
    lines.append("namespace pb = ::kubex::protobuf;\n\n")
    if schema_or:
        lines.append(SCHEMA_OR_CODECS)
    for s in sorted(structs, key=lambda s: s.name):
        m: MessageMap = map_struct(s, messages)
        if m is None:
            continue
        lines.append(f"// {m.message}\n")
        lines.append(f"void kubex_read_proto(pb::Reader& r, {s.name}& o) {{\n  o = {s.name}{{}};\n")
        lines.append("  while (r.next()) {\n")
        lines.extend(_switch(m.fields, "r", "    ", messages, s.definition, 1))
        lines.append("  }\n}\n\n")
        lines.append(f"void kubex_write_proto(pb::Writer& w, const {s.name}& o) {{\n")
        lines.extend(_write_fields(m.fields, "w", "  ", messages, 1))
        lines.append(f'  pb::write_unknown(w, o.unknown_fields, "{s.name}");\n}}\n\n')
    lines.append(f"}}  // namespace {ns}\n")
    return "".join(lines)
