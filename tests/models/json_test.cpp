// SPDX-License-Identifier: Apache-2.0
// The core JSON codec on hand-written types: scalars, containers, optional/Box, raw values,
// unknown fields, enums, error paths and malformed input.
#include <kubex/core/json.hpp>
#include <kubex/core/json_types.hpp>
#include <kubex/core/string_enum.hpp>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace demo {

struct Color : kubex::StringEnum<Color> {
  using StringEnum::StringEnum;
  static constexpr std::string_view Red{"Red"};
  static constexpr std::string_view known_values[] = {"Red", "Green"};
};

struct Inner {
  std::int32_t port{};
  std::optional<std::string> name{};
  kubex::UnknownFields unknown_fields{};
  friend bool operator==(const Inner&, const Inner&) = default;
};

struct Outer {
  std::string kind{"Outer"};
  std::int64_t big{};
  std::optional<double> ratio{};
  std::optional<bool> flag{};
  std::vector<Inner> items{};
  std::map<std::string, std::string> labels{};
  kubex::Box<Inner> child{};
  kubex::RawJson raw{};
  std::optional<Color> color{};
  kubex::UnknownFields unknown_fields{};
  friend bool operator==(const Outer&, const Outer&) = default;
};

// Hand-written equivalents of what tools/codegen emits for every model.
void kubex_read(kubex::json::Reader& r, Inner& o) {
  o = Inner{};
  r.for_each_field([&o](std::string_view k, kubex::json::Reader& v) {
    if (k == "port") {
      if (!v.is_null())
        kubex::json::read(v, o.port);
      return;
    }
    if (k == "name")
      return kubex::json::read(v, o.name);
    o.unknown_fields.add(std::string(k), v.get_raw());
  });
}
void kubex_write(kubex::json::Writer& w, const Inner& o) {
  w.begin_object();
  w.key_literal("\"port\":");
  kubex::json::write(w, o.port);
  if (!kubex::json::is_absent(o.name)) {
    w.key_literal("\"name\":");
    kubex::json::write(w, o.name);
  }
  kubex::json::write_unknown(w, o.unknown_fields);
  w.end_object();
}
void kubex_read(kubex::json::Reader& r, Outer& o) {
  o = Outer{};
  r.for_each_field([&o](std::string_view k, kubex::json::Reader& v) {
    using kubex::json::read;
    if (k == "kind")
      return read(v, o.kind);
    if (k == "big")
      return read(v, o.big);
    if (k == "ratio")
      return read(v, o.ratio);
    if (k == "flag")
      return read(v, o.flag);
    if (k == "items")
      return read(v, o.items);
    if (k == "labels")
      return read(v, o.labels);
    if (k == "child")
      return read(v, o.child);
    if (k == "raw")
      return read(v, o.raw);
    if (k == "color")
      return read(v, o.color);
    o.unknown_fields.add(std::string(k), v.get_raw());
  });
}
void kubex_write(kubex::json::Writer& w, const Outer& o) {
  using kubex::json::is_absent;
  using kubex::json::write;
  w.begin_object();
  w.key_literal("\"kind\":");
  write(w, o.kind);
  w.key_literal("\"big\":");
  write(w, o.big);
  if (!is_absent(o.ratio)) {
    w.key_literal("\"ratio\":");
    write(w, o.ratio);
  }
  if (!is_absent(o.flag)) {
    w.key_literal("\"flag\":");
    write(w, o.flag);
  }
  if (!is_absent(o.items)) {
    w.key_literal("\"items\":");
    write(w, o.items);
  }
  if (!is_absent(o.labels)) {
    w.key_literal("\"labels\":");
    write(w, o.labels);
  }
  if (!is_absent(o.child)) {
    w.key_literal("\"child\":");
    write(w, o.child);
  }
  if (!is_absent(o.raw)) {
    w.key_literal("\"raw\":");
    write(w, o.raw);
  }
  if (!is_absent(o.color)) {
    w.key_literal("\"color\":");
    write(w, o.color);
  }
  kubex::json::write_unknown(w, o.unknown_fields);
  w.end_object();
}

}  // namespace demo

namespace {

using kubex::json::decode;
using kubex::json::DecodeError;
using kubex::json::encode;

std::string error_of(std::string_view json) {
  try {
    (void)decode<demo::Outer>(json);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(json, round_trips_every_kind_of_field) {
  const std::string in =
      R"({"kind":"Outer","big":9007199254740993,"ratio":0.25,"flag":false,)"
      R"("items":[{"port":80,"name":"http"},{"port":443}],"labels":{"a":"1","b\"q":"2"},)"
      R"("child":{"port":1,"extra":[1,{"x":null}]},"raw":{"any":["thing",2]},"color":"Red"})";
  const auto o = decode<demo::Outer>(in);
  EXPECT_EQ(o.big, 9007199254740993);  // beyond double precision: read as an integer
  ASSERT_EQ(o.items.size(), 2u);
  EXPECT_EQ(o.items[0].name, "http");
  EXPECT_FALSE(o.items[1].name.has_value());
  EXPECT_EQ(o.labels.at("b\"q"), "2");
  ASSERT_TRUE(o.child);
  EXPECT_EQ(o.child->unknown_fields.fields().at(0).second.text, R"([1,{"x":null}])");
  EXPECT_EQ(o.raw.text, R"({"any":["thing",2]})");
  ASSERT_TRUE(o.color);
  EXPECT_EQ(*o.color, demo::Color::Red);
  EXPECT_TRUE(o.color->is_known());
  EXPECT_EQ(encode(o), in);
  EXPECT_EQ(decode<demo::Outer>(encode(o)), o);
}

TEST(json, unknown_fields_and_enum_values_survive) {
  const std::string in =
      R"({"kind":"Outer","big":1,"color":"Purple","future":{"a":[1,2]},"n":null})";
  const auto o = decode<demo::Outer>(in);
  EXPECT_FALSE(o.color->is_known());
  EXPECT_EQ(o.color->value(), "Purple");
  ASSERT_EQ(o.unknown_fields.fields().size(), 2u);
  EXPECT_EQ(encode(o), in);
}

TEST(json, absent_and_null_optionals_are_omitted) {
  const auto o = decode<demo::Outer>(R"({"ratio":null,"child":null,"items":null})");
  EXPECT_FALSE(o.ratio);
  EXPECT_FALSE(o.child);
  EXPECT_TRUE(o.items.empty());
  EXPECT_EQ(encode(o), R"({"kind":"Outer","big":0})");
}

TEST(json, strings_are_escaped) {
  demo::Outer o;
  o.kind = "q\"b\\n\n\t\x01\x1f end\xc3\xa9";
  o.kind.push_back('\0');
  const auto out = encode(o);
  EXPECT_EQ(out, "{\"kind\":\"q\\\"b\\\\n\\n\\t\\u0001\\u001f end\xc3\xa9\\u0000\",\"big\":0}");
  EXPECT_EQ(decode<demo::Outer>(out).kind, o.kind);
}

TEST(json, errors_name_the_path) {
  EXPECT_EQ(error_of(R"({"items":[{"port":1},{"port":"x"}]})"),
            "items[1].port: expected an integer, got a string");
  EXPECT_EQ(error_of(R"({"items":[{"port":3000000000}]})"),
            "items[0].port: expected a 32-bit integer, got 3000000000");
  EXPECT_EQ(error_of(R"({"labels":{"a b":7}})"),
            R"(labels["a b"]: expected a string, got a number)");
  EXPECT_EQ(error_of(R"({"child":[]})"), "child: expected an object, got an array");
  EXPECT_EQ(error_of(R"({"big":1.5})"), "big: expected an integer, got a number");
  EXPECT_EQ(error_of(R"([1])"), "expected an object, got an array");
}

// The literal's bytes, NULs included (a const char* would end at the first one).
template <std::size_t N>
constexpr std::string_view bytes(const char (&literal)[N]) {
  return {literal, N - 1};
}
static_assert(bytes("\0").size() == 1 && bytes("a\0b").size() == 3);

TEST(json, malformed_input_is_an_error_not_a_crash) {
  for (std::string_view bad :
       {std::string_view(""), bytes("{"), bytes(R"({"kind":)"), bytes(R"({"kind":"x)"),
        bytes(R"({"items":[{"port":1},)"), bytes("nul"), bytes("{\"kind\":\"\xff\xfe\"}"),
        bytes("{\"a\" 1}"), bytes("\0"), bytes("{\"kind\":\"a\0b\"}"),
        bytes("{\"kind\":\"a\"}\0")}) {
    EXPECT_THROW((void)decode<demo::Outer>(bad), DecodeError) << bad;
  }
  std::string deep(5000, '[');
  deep = R"({"raw":)" + deep;
  EXPECT_THROW((void)decode<demo::Outer>(deep), DecodeError);
}

TEST(json, huge_strings_and_documents) {
  const std::string big(8 << 20, 'x');
  const auto o = decode<demo::Outer>(R"({"kind":")" + big + R"("})");
  EXPECT_EQ(o.kind.size(), big.size());
}

TEST(json, non_finite_numbers_are_refused) {
  demo::Outer o;
  o.ratio = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)encode(o), kubex::Error);
}

// std::vector<bool> is a bit set without bool& elements; resource.k8s.io models use it.
TEST(json, lists_of_bools) {
  const auto v = kubex::json::decode<std::vector<bool>>("[true,false,true]");
  EXPECT_EQ(v, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(encode(v), "[true,false,true]");
  try {
    (void)kubex::json::decode<std::vector<bool>>("[true,1]");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(e.path(), "[1]");
  }
}

TEST(json, padded_input_is_read_in_place) {
  std::string in = R"({"kind":"Padded"})";
  in.reserve(in.size() + 64);
  demo::Outer o;
  kubex::json::decode_padded(in, o);
  EXPECT_EQ(o.kind, "Padded");
}

}  // namespace
