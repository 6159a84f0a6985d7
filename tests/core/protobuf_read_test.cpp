// SPDX-License-Identifier: Apache-2.0
// Reading protobuf fields into the models' value types (kubex/core/protobuf_read.hpp): each
// apimachinery type in its proto form, proto2 presence against JSON's omitempty, packed and
// unpacked repeated scalars, map entries, and the malformed values each refused by name.

#include <kubex/core/error.hpp>
#include <kubex/core/protobuf_read.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace pb = kubex::protobuf;
using pb::Reader;
using pb::Writer;

// A reader standing on field 1 of `message`.
struct OnField {
  explicit OnField(std::string bytes) : message(std::move(bytes)), reader(message) {
    EXPECT_TRUE(reader.next());
  }
  std::string message;
  Reader reader;
};

// `value` written as field 1 by `write`.
template <class F>
OnField field(F&& write) {
  std::string out;
  Writer w(out);
  write(w);
  return OnField(std::move(out));
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const pb::DecodeError& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_protobuf);
    return e.what();
  }
  ADD_FAILURE() << "no DecodeError";
  return {};
}

TEST(protobuf_read, quantities_keep_their_string_form) {
  auto f = field([](Writer& w) { w.message(1, [](Writer& q) { q.bytes(1, "1500m"); }); });
  kubex::Quantity q;
  pb::read(f.reader, q);
  EXPECT_EQ(q.to_string(), "1500m");
  EXPECT_EQ(q.milli_value(), 1500);

  auto bad = field([](Writer& w) { w.message(1, [](Writer& q2) { q2.bytes(1, "1.5.0"); }); });
  EXPECT_EQ(error_of([&] { pb::read(bad.reader, q); }),
            "invalid protobuf: a quantity of 5 bytes that does not parse at byte 9");
}

TEST(protobuf_read, int_or_string_follows_its_type_field) {
  kubex::IntOrString v;
  auto as_int = field([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.int64(1, 0);
      m.int64(2, 8080);
      m.bytes(3, "");
    });
  });
  pb::read(as_int.reader, v);
  ASSERT_TRUE(v.is_int());
  EXPECT_EQ(v.int_value(), 8080);

  auto as_string = field([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.int64(1, 1);
      m.int64(2, 0);
      m.bytes(3, "25%");
    });
  });
  pb::read(as_string.reader, v);
  ASSERT_FALSE(v.is_int());
  EXPECT_EQ(v.string_value(), "25%");

  auto bad = field([](Writer& w) { w.message(1, [](Writer& m) { m.int64(1, 7); }); });
  EXPECT_NE(error_of([&] { pb::read(bad.reader, v); }).find("IntOrString type 7"),
            std::string::npos);
}

TEST(protobuf_read, times_and_the_empty_message_go_writes_for_a_zero_time) {
  const auto t = field([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.int64(1, 1'700'000'000);
      m.int64(2, 123'456'789);
    });
  });
  OnField f1 = t;
  OnField f2 = t;
  OnField f3 = t;
  kubex::Time time;
  pb::read(f1.reader, time);
  EXPECT_EQ(time.format(), "2023-11-14T22:13:20Z");  // seconds only, as JSON has them
  kubex::MicroTime micro;
  pb::read(f2.reader, micro);
  EXPECT_EQ(micro.format(), "2023-11-14T22:13:20.123456Z");
  std::optional<kubex::Time> optional_time;
  pb::read(f3.reader, optional_time);
  EXPECT_TRUE(optional_time.has_value());

  // metav1.Time marshals a zero time as an empty message: JSON's null, so absent.
  auto zero = field([](Writer& w) { w.message(1, [](Writer&) {}); });
  pb::read(zero.reader, optional_time);
  EXPECT_FALSE(optional_time.has_value());

  auto bad = field([](Writer& w) { w.message(1, [](Writer& m) { m.int64(2, 1'000'000'000); }); });
  EXPECT_NE(error_of([&] { pb::read(bad.reader, time); }).find("nanos 1000000000 out of range"),
            std::string::npos);
}

TEST(protobuf_read, zero_values_of_omitempty_fields_read_as_absent_and_pointers_as_present) {
  std::optional<std::int32_t> value;
  auto zero = field([](Writer& w) { w.int64(1, 0); });
  pb::read_omit_zero(zero.reader, value);
  EXPECT_FALSE(value.has_value());
  auto seven = field([](Writer& w) { w.int64(1, 7); });
  pb::read_omit_zero(seven.reader, value);
  EXPECT_EQ(value, 7);

  // A Go pointer (replicas: 0) is present when on the wire, zero or not.
  std::optional<std::int32_t> replicas;
  auto zero_again = field([](Writer& w) { w.int64(1, 0); });
  pb::read(zero_again.reader, replicas);
  EXPECT_EQ(replicas, 0);

  std::optional<std::string> name;
  auto empty = field([](Writer& w) { w.bytes(1, ""); });
  pb::read_omit_zero(empty.reader, name);
  EXPECT_FALSE(name.has_value());
}

TEST(protobuf_read, repeated_scalars_packed_or_not_and_negative_int32) {
  std::string out;
  Writer w(out);
  w.int64(1, -5);  // int32 -5: ten bytes, sign-extended
  std::string packed;
  pb::append_varint(packed, 3);
  pb::append_varint(packed, static_cast<std::uint64_t>(std::int64_t{-1}));
  pb::append_varint(packed, 300);
  w.bytes(1, packed);
  Reader r(out);
  std::vector<std::int32_t> values;
  while (r.next()) {
    pb::read(r, values);
  }
  EXPECT_EQ(values, (std::vector<std::int32_t>{-5, 3, -1, 300}));

  std::string flags_bytes;
  Writer f(flags_bytes);
  f.boolean(1, true);
  f.bytes(1, std::string("\x00\x01", 2));
  Reader rf(flags_bytes);
  std::vector<bool> flags;
  while (rf.next()) {
    pb::read(rf, flags);
  }
  EXPECT_EQ(flags, (std::vector<bool>{true, false, true}));

  // A varint that runs past the packed run is refused, not read from the next field.
  std::string broken;
  Writer b(broken);
  b.bytes(1, std::string("\x80", 1));
  b.int64(2, 1);
  Reader rb(broken);
  ASSERT_TRUE(rb.next());
  EXPECT_NE(error_of([&] { pb::read(rb, values); }).find("truncated packed varint"),
            std::string::npos);
}

TEST(protobuf_read, map_entries_and_string_lists) {
  std::string out;
  Writer w(out);
  for (const auto& [k, v] : {std::pair{"b", "2"}, std::pair{"a", "1"}, std::pair{"b", "3"}}) {
    w.message(1, [&](Writer& e) {
      e.bytes(1, k);
      e.bytes(2, v);
    });
  }
  Reader r(out);
  std::map<std::string, std::string> map;
  while (r.next()) {
    pb::read(r, map);
  }
  EXPECT_EQ(map, (std::map<std::string, std::string>{{"a", "1"}, {"b", "3"}}));

  auto verbs = field([](Writer& w2) {
    w2.message(1, [](Writer& m) {
      m.bytes(1, "get");
      m.bytes(1, "list");
    });
  });
  std::vector<std::string> list;
  pb::read_string_list(verbs.reader, list);
  EXPECT_EQ(list, (std::vector<std::string>{"get", "list"}));
}

TEST(protobuf_read, raw_json_must_be_json_and_marker_messages_must_be_empty) {
  kubex::RawJson raw;
  auto json =
      field([](Writer& w) { w.message(1, [](Writer& m) { m.bytes(1, " {\"a\":[1]}\n"); }); });
  pb::read(json.reader, raw);
  EXPECT_EQ(raw.text, "{\"a\":[1]}");

  // An object embedded as protobuf (the k8s magic) is not JSON: refused, not passed on.
  auto embedded = field([](Writer& w) {
    w.message(1, [](Writer& m) { m.bytes(1, std::string("k8s\0\x0a\x00", 6)); });
  });
  EXPECT_NE(error_of([&] { pb::read(embedded.reader, raw); }).find("that is not JSON"),
            std::string::npos);

  auto marker = field([](Writer& w) { w.message(1, [](Writer&) {}); });
  pb::read_empty_object(marker.reader, raw);
  EXPECT_EQ(raw.text, "{}");
  auto not_empty = field([](Writer& w) { w.message(1, [](Writer& m) { m.int64(4, 1); }); });
  EXPECT_NE(error_of([&] {
              pb::read_empty_object(not_empty.reader, raw);
            }).find("field 4 in a message that has none"),
            std::string::npos);
}

}  // namespace
