// SPDX-License-Identifier: Apache-2.0
// The protobuf codecs of the compact containers (protobuf_read.hpp, protobuf_write.hpp): String,
// Vector and Map read and written as generated code does, repeated fields sized exactly from the
// run of their occurrences, packed scalars, string lists, map entries, RawJson elements kept in
// place, the Box overload whose hooks put the object in the decode's Arena, and malformed input.
// Run under the asan preset too: memory used after its Arena went, or never given back, only
// shows there.

#include <kubex/core/arena.hpp>
#include <kubex/core/box.hpp>
#include <kubex/core/box_memory.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_read.hpp>
#include <kubex/core/protobuf_write.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace pb = kubex::protobuf;
using kubex::Arena;
using kubex::ArenaScope;
using kubex::Box;
using kubex::Map;
using kubex::String;
using kubex::Vector;
using pb::Reader;
using pb::Writer;
using namespace std::string_literals;

// The bytes `write(Writer&)` appends.
template <class F>
std::string encode(F&& write) {
  std::string out;
  Writer w(out);
  write(w);
  return out;
}

// A reader standing on the first field of `bytes`, which it owns.
struct OnField {
  explicit OnField(std::string bytes) : message(std::make_unique<std::string>(std::move(bytes))) {
    reader = Reader(*message);
    EXPECT_TRUE(reader.next());
  }
  std::unique_ptr<std::string> message;
  Reader reader{std::string_view()};
};

// The message of the DecodeError that `f` throws, or a failure if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const pb::DecodeError& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_protobuf);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a DecodeError: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no DecodeError";
  return {};
}

// Strings as std::string, for readable comparisons.
std::vector<std::string> strings(const Vector<String>& v) {
  std::vector<std::string> out;
  for (const String& s : v) {
    out.push_back(s.str());
  }
  return out;
}

// A string longer than String keeps inline (15 characters), made of `c`.
std::string long_string(char c, std::size_t n = 40) {
  return std::string(n, c);
}

// An embedded message type of the kind generated code has.
struct Port {
  String name;
  std::int32_t number = 0;
  friend bool operator==(const Port&, const Port&) = default;
};

void kubex_read_proto(Reader& r, Port& out) {
  while (r.next()) {
    switch (r.field()) {
      case 1:
        pb::read(r, out.name);
        break;
      case 2:
        pb::read(r, out.number);
        break;
      default:
        r.skip();
    }
  }
}

void kubex_write_proto(Writer& w, const Port& value) {
  pb::write(w, 1, value.name);
  pb::write(w, 2, value.number);
}

// A message with repeated fields, read field by field as a generated kubex_read_proto does.
struct Spec {
  Vector<String> names;          // 1
  String label;                  // 2
  Vector<Port> ports;            // 3
  Vector<std::int32_t> numbers;  // 4
  Vector<std::int64_t> sizes;    // 5
  Vector<bool> flags;            // 6
};

void read_spec(Reader& r, Spec& out) {
  while (r.next()) {
    switch (r.field()) {
      case 1:
        pb::read(r, out.names);
        break;
      case 2:
        pb::read(r, out.label);
        break;
      case 3:
        pb::read(r, out.ports);
        break;
      case 4:
        pb::read(r, out.numbers);
        break;
      case 5:
        pb::read(r, out.sizes);
        break;
      case 6:
        pb::read(r, out.flags);
        break;
      default:
        r.skip();
    }
  }
}

Spec read_spec(std::string_view bytes) {
  Reader r(bytes);
  Spec spec;
  read_spec(r, spec);
  return spec;
}

void write_port(Writer& w, std::uint32_t field, std::string_view name, std::int32_t number) {
  w.message(field, [&](Writer& m) {
    m.bytes(1, name);
    m.int64(2, number);
  });
}

// A type with out-of-line Box hooks that put its objects in tagged memory (box_memory.hpp), as
// the compact models do; the hooks count their calls.
struct Boxed {
  String name;
  std::int64_t count = 0;
  Vector<String> tags;
};

struct BoxCalls {
  int made = 0;
  int copied = 0;
  int deleted = 0;
};
BoxCalls box_calls;

Boxed* kubex_box_new(std::type_identity<Boxed>);
Boxed* kubex_box_copy(const Boxed& from);
void kubex_box_delete(Boxed* p) noexcept;
void kubex_read_proto(Reader& r, Boxed& out);

static_assert(kubex::box_detail::out_of_line<Boxed>);

struct Holder {
  Box<Boxed> boxed;  // 1
  String other;      // 2
};

void read_holder(Reader& r, Holder& out) {
  while (r.next()) {
    switch (r.field()) {
      case 1:
        pb::read(r, out.boxed);
        break;
      case 2:
        pb::read(r, out.other);
        break;
      default:
        r.skip();
    }
  }
}

Boxed* kubex_box_new(std::type_identity<Boxed>) {
  ++box_calls.made;
  return kubex::box_new<Boxed>();
}

Boxed* kubex_box_copy(const Boxed& from) {
  ++box_calls.copied;
  return kubex::box_copy(from);
}

void kubex_box_delete(Boxed* p) noexcept {
  ++box_calls.deleted;
  kubex::box_delete(p);
}

void kubex_read_proto(Reader& r, Boxed& out) {
  while (r.next()) {
    switch (r.field()) {
      case 1:
        pb::read(r, out.name);
        break;
      case 2:
        pb::read(r, out.count);
        break;
      case 3:
        pb::read(r, out.tags);
        break;
      default:
        r.skip();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// String

TEST(protobuf_containers_string, short_strings_stay_inline_and_long_ones_go_to_the_arena) {
  const std::string fifteen(15, 'a');  // the most String keeps inline
  const std::string sixteen(16, 'b');  // the least it does not
  const std::string body = encode([&](Writer& w) {
    w.bytes(1, "web");
    w.bytes(1, fifteen);
    w.bytes(1, sixteen);
    w.bytes(1, long_string('c', 1000));
    w.bytes(1, "");
  });

  // Outside a decode: nothing in an arena, whatever the length.
  {
    Reader r(body);
    std::vector<std::string> seen;
    while (r.next()) {
      String s;
      pb::read(r, s);
      EXPECT_FALSE(s.in_arena());
      seen.push_back(s.str());
    }
    EXPECT_EQ(seen,
              (std::vector<std::string>{"web", fifteen, sixteen, long_string('c', 1000), ""}));
  }

  // While an ArenaScope is active: a long string in the arena, a short one inline.
  String web;
  String inline_max;
  String just_long;
  String very_long;
  String empty = "not empty";
  {
    Arena arena;
    const ArenaScope scope(&arena);
    Reader r(body);
    ASSERT_TRUE(r.next());
    pb::read(r, web);
    ASSERT_TRUE(r.next());
    pb::read(r, inline_max);
    ASSERT_TRUE(r.next());
    pb::read(r, just_long);
    ASSERT_TRUE(r.next());
    pb::read(r, very_long);
    ASSERT_TRUE(r.next());
    pb::read(r, empty);
    EXPECT_FALSE(r.next());

    EXPECT_FALSE(web.in_arena());
    EXPECT_FALSE(inline_max.in_arena());
    EXPECT_TRUE(just_long.in_arena());
    EXPECT_TRUE(very_long.in_arena());
    EXPECT_FALSE(empty.in_arena());
    EXPECT_GE(arena.used(), 16U + 1000U);
  }
  // The Arena is gone; the strings still read (its blocks live as long as their users).
  EXPECT_EQ(web.view(), "web");
  EXPECT_EQ(web.size(), 3U);
  EXPECT_EQ(inline_max.view(), fifteen);
  EXPECT_EQ(just_long.view(), sixteen);
  EXPECT_EQ(very_long.view(), long_string('c', 1000));
  EXPECT_EQ(very_long.c_str()[1000], '\0');
  EXPECT_TRUE(empty.empty());
}

TEST(protobuf_containers_string, a_string_field_must_be_length_delimited) {
  auto f = OnField(encode([](Writer& w) { w.int64(1, 7); }));
  String s = "kept";
  EXPECT_EQ(error_of([&] { pb::read(f.reader, s); }),
            "invalid protobuf: field 1 is varint, expected length-delimited at byte 1");
  EXPECT_EQ(s.view(), "kept");
}

// ---------------------------------------------------------------------------------------------
// Repeated fields into Vector, one occurrence at a time

TEST(protobuf_containers_vector, a_run_of_strings_is_sized_exactly_when_another_field_follows) {
  const Spec spec = read_spec(encode([](Writer& w) {
    w.bytes(1, "a");
    w.bytes(1, long_string('b'));
    w.bytes(1, "c");
    w.bytes(2, "label");
  }));
  EXPECT_EQ(strings(spec.names), (std::vector<std::string>{"a", long_string('b'), "c"}));
  EXPECT_EQ(spec.names.size(), 3U);
  EXPECT_EQ(spec.names.capacity(), 3U);  // not 4, as growing from empty would give
  EXPECT_EQ(spec.label.view(), "label");
}

TEST(protobuf_containers_vector, a_run_of_strings_is_sized_exactly_when_it_is_the_last_field) {
  const Spec spec = read_spec(encode([](Writer& w) {
    w.bytes(2, "label");
    for (int i = 0; i < 5; ++i) {
      w.bytes(1, "name-" + std::to_string(i));
    }
  }));
  EXPECT_EQ(strings(spec.names),
            (std::vector<std::string>{"name-0", "name-1", "name-2", "name-3", "name-4"}));
  EXPECT_EQ(spec.names.capacity(), 5U);  // not 8
  EXPECT_EQ(spec.label.view(), "label");

  const Spec one = read_spec(encode([](Writer& w) { w.bytes(1, "only"); }));
  EXPECT_EQ(strings(one.names), (std::vector<std::string>{"only"}));
  EXPECT_EQ(one.names.capacity(), 1U);  // not 4

  const Spec empty_element = read_spec(encode([](Writer& w) {
    w.bytes(1, "");
    w.bytes(1, "");
  }));
  EXPECT_EQ(strings(empty_element.names), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(empty_element.names.capacity(), 2U);
}

TEST(protobuf_containers_vector, a_long_run_is_sized_exactly) {
  const Spec spec = read_spec(encode([](Writer& w) {
    for (int i = 0; i < 1000; ++i) {
      w.bytes(1, std::to_string(i));
    }
    w.bytes(2, "after");
  }));
  ASSERT_EQ(spec.names.size(), 1000U);
  EXPECT_EQ(spec.names.capacity(), 1000U);  // not 1024
  for (std::size_t i = 0; i < spec.names.size(); ++i) {
    EXPECT_EQ(spec.names[i].view(), std::to_string(i));
  }
  EXPECT_EQ(spec.label.view(), "after");
}

TEST(protobuf_containers_vector, a_run_of_messages_is_sized_exactly_with_its_values) {
  const std::string body = encode([](Writer& w) {
    w.bytes(2, "before");
    write_port(w, 3, "http", 80);
    write_port(w, 3, long_string('h'), 443);
    write_port(w, 3, "metrics", -1);
    w.bytes(2, "after");
  });
  const Spec spec = read_spec(body);
  ASSERT_EQ(spec.ports.size(), 3U);
  EXPECT_EQ(spec.ports.capacity(), 3U);
  EXPECT_EQ(spec.ports[0], (Port{"http", 80}));
  EXPECT_EQ(spec.ports[1], (Port{long_string('h'), 443}));
  EXPECT_EQ(spec.ports[2], (Port{"metrics", -1}));
  EXPECT_EQ(spec.label.view(), "after");  // a later occurrence of a singular field wins

  // A message whose fields are all absent is still an element.
  const Spec empties = read_spec(encode([](Writer& w) {
    w.message(3, [](Writer&) {});
    w.message(3, [](Writer&) {});
  }));
  ASSERT_EQ(empties.ports.size(), 2U);
  EXPECT_EQ(empties.ports.capacity(), 2U);
  EXPECT_EQ(empties.ports[0], Port{});
  EXPECT_EQ(empties.ports[1], Port{});
}

TEST(protobuf_containers_vector, occurrences_apart_still_read_every_element_in_order) {
  const Spec spec = read_spec(encode([](Writer& w) {
    w.bytes(1, "a");
    write_port(w, 3, "p1", 1);
    w.bytes(2, "x");
    w.bytes(1, long_string('b'));
    w.bytes(1, "c");
    write_port(w, 3, "p2", 2);
    w.bytes(1, "d");
    w.bytes(1, "e");
    w.bytes(1, "f");
    write_port(w, 3, "p3", 3);
    write_port(w, 3, "p4", 4);
  }));
  EXPECT_EQ(strings(spec.names),
            (std::vector<std::string>{"a", long_string('b'), "c", "d", "e", "f"}));
  EXPECT_GE(spec.names.capacity(), spec.names.size());
  ASSERT_EQ(spec.ports.size(), 4U);
  for (std::int32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(spec.ports[static_cast<std::size_t>(i)], (Port{"p" + std::to_string(i + 1), i + 1}));
  }
  EXPECT_GE(spec.ports.capacity(), spec.ports.size());
  EXPECT_EQ(spec.label.view(), "x");
}

TEST(protobuf_containers_vector, reading_in_an_arena_puts_elements_there_exactly_sized) {
  const std::string body = encode([](Writer& w) {
    w.bytes(1, "short");
    w.bytes(1, long_string('l'));
    write_port(w, 3, long_string('p'), 8080);
    write_port(w, 3, "q", 9090);
    w.bytes(2, long_string('x'));
  });
  Spec spec;
  {
    Arena arena;
    const ArenaScope scope(&arena);
    Reader r(body);
    read_spec(r, spec);
    EXPECT_TRUE(spec.names.in_arena());
    EXPECT_TRUE(spec.ports.in_arena());
    EXPECT_FALSE(spec.names[0].in_arena());
    EXPECT_TRUE(spec.names[1].in_arena());
    EXPECT_TRUE(spec.ports[0].name.in_arena());
    EXPECT_TRUE(spec.label.in_arena());
  }
  EXPECT_EQ(spec.names.capacity(), 2U);
  EXPECT_EQ(spec.ports.capacity(), 2U);
  EXPECT_EQ(strings(spec.names), (std::vector<std::string>{"short", long_string('l')}));
  EXPECT_EQ(spec.ports[0], (Port{long_string('p'), 8080}));
  EXPECT_EQ(spec.ports[1], (Port{"q", 9090}));
  EXPECT_EQ(spec.label.view(), long_string('x'));

  // A copy is on the heap, and outlives the original.
  const Spec copy = spec;
  spec = Spec{};
  EXPECT_FALSE(copy.names.in_arena());
  EXPECT_EQ(strings(copy.names), (std::vector<std::string>{"short", long_string('l')}));
  EXPECT_EQ(copy.ports[0].name.view(), long_string('p'));
}

// ---------------------------------------------------------------------------------------------
// detail::run_length

TEST(protobuf_containers_run_length, counts_the_consecutive_occurrences_of_the_current_field) {
  const std::string body = encode([](Writer& w) {
    w.bytes(1, "a");
    w.bytes(1, "b");
    w.int64(2, 5);
    w.bytes(1, "c");
    w.bytes(1, "d");
    w.bytes(1, "e");
  });
  Reader r(body);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 2U);
  EXPECT_EQ(r.string(), "a");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 1U);  // from "b": "b" alone
  EXPECT_EQ(r.string(), "b");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.field(), 2U);
  EXPECT_EQ(pb::detail::run_length(r), 1U);
  EXPECT_EQ(r.int64(), 5);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 3U);  // not 5: the "a" and "b" before field 2 don't count
  EXPECT_EQ(r.string(), "c");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 2U);  // from "d"
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 1U);  // the last field
  EXPECT_EQ(r.string(), "e");
  EXPECT_FALSE(r.next());
}

TEST(protobuf_containers_run_length, does_not_consume_the_callers_reader) {
  const std::string body = encode([](Writer& w) {
    w.int64(4, 1);
    w.bytes(3, "x");
    w.bytes(3, "y");
    w.bytes(3, "z");
    w.int64(4, 2);
  });
  Reader r(body);
  ASSERT_TRUE(r.next());
  r.skip();  // field 4
  ASSERT_TRUE(r.next());
  ASSERT_EQ(r.field(), 3U);
  const std::size_t at = r.offset();
  const std::string_view data = r.data();
  EXPECT_EQ(pb::detail::run_length(r), 3U);
  EXPECT_EQ(pb::detail::run_length(r), 3U);  // again: nothing moved
  EXPECT_EQ(r.offset(), at);
  EXPECT_EQ(r.data(), data);
  EXPECT_EQ(r.field(), 3U);
  EXPECT_EQ(r.wire_type(), pb::WireType::bytes);
  EXPECT_FALSE(r.done());
  // The value is still there to read, and the fields after it follow.
  EXPECT_EQ(r.string(), "x");
  EXPECT_EQ(r.field_bytes(), "\x1a\x01x"s);
  std::vector<std::string> rest;
  while (r.next()) {
    if (r.field() == 3) {
      rest.emplace_back(r.string());
    } else {
      rest.push_back(std::to_string(r.int64()));
    }
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"y", "z", "2"}));
}

TEST(protobuf_containers_run_length, counts_every_wire_type_and_stops_at_the_end_of_its_message) {
  const std::string mixed = encode([](Writer& w) {
    w.int64(1, 1);
    w.fixed32(1, 2);
    w.fixed64(1, 3);
    w.bytes(1, "four");
    w.int64(1, -5);
    w.int64(7, 0);
  });
  Reader r(mixed);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(pb::detail::run_length(r), 5U);
  EXPECT_EQ(r.uint64(), 1U);

  // In an embedded message the run ends with the message, though the field after it in the
  // outer message has the same number.
  const std::string outer = encode([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.bytes(2, "a");
      m.bytes(2, "b");
    });
    w.bytes(2, "c");
    w.bytes(2, "d");
  });
  Reader o(outer);
  ASSERT_TRUE(o.next());
  Reader m = o.message();
  ASSERT_TRUE(m.next());
  EXPECT_EQ(pb::detail::run_length(m), 2U);
  ASSERT_TRUE(o.next());
  EXPECT_EQ(pb::detail::run_length(o), 2U);
}

// ---------------------------------------------------------------------------------------------
// Packed and unpacked repeated scalars

std::string packed_varints(std::initializer_list<std::uint64_t> values) {
  std::string out;
  for (std::uint64_t v : values) {
    pb::append_varint(out, v);
  }
  return out;
}

TEST(protobuf_containers_scalars, packed_int32_int64_and_bool) {
  constexpr auto i32_min = std::numeric_limits<std::int32_t>::min();
  constexpr auto i32_max = std::numeric_limits<std::int32_t>::max();
  constexpr auto i64_min = std::numeric_limits<std::int64_t>::min();
  constexpr auto i64_max = std::numeric_limits<std::int64_t>::max();
  const std::string body = encode([&](Writer& w) {
    // int32 is sign-extended to ten bytes, as Go writes it.
    w.bytes(4, packed_varints({0, 1, 300, static_cast<std::uint64_t>(std::int64_t{-1}),
                               static_cast<std::uint64_t>(std::int64_t{i32_min}),
                               static_cast<std::uint64_t>(i32_max)}));
    w.bytes(
        5, packed_varints({static_cast<std::uint64_t>(i64_min), static_cast<std::uint64_t>(i64_max),
                           static_cast<std::uint64_t>(std::int64_t{-2}), std::uint64_t{1} << 40U}));
    w.bytes(6, packed_varints({1, 0, 2, 0}));  // any value but 0 is true
  });
  const Spec spec = read_spec(body);
  EXPECT_EQ(spec.numbers, (std::vector<std::int32_t>{0, 1, 300, -1, i32_min, i32_max}));
  EXPECT_EQ(spec.sizes, (std::vector<std::int64_t>{i64_min, i64_max, -2, std::int64_t{1} << 40}));
  EXPECT_EQ(spec.flags, (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(spec.numbers.capacity(), 6U);
  EXPECT_EQ(spec.sizes.capacity(), 4U);
  EXPECT_EQ(spec.flags.capacity(), 4U);
}

TEST(protobuf_containers_scalars, packed_runs_append_and_an_empty_one_adds_nothing) {
  const Spec spec = read_spec(encode([](Writer& w) {
    w.bytes(4, packed_varints({1, 2}));
    w.bytes(4, "");
    w.bytes(2, "between");
    w.bytes(4, packed_varints({3}));
    w.int64(4, 4);  // an unpacked occurrence after packed ones
  }));
  EXPECT_EQ(spec.numbers, (std::vector<std::int32_t>{1, 2, 3, 4}));

  const Spec empty = read_spec(encode([](Writer& w) { w.bytes(5, ""); }));
  EXPECT_TRUE(empty.sizes.empty());
}

TEST(protobuf_containers_scalars, unpacked_int32_int64_and_bool) {
  const std::string body = encode([](Writer& w) {
    w.int64(4, 7);
    w.int64(4, -7);
    w.int64(4, std::numeric_limits<std::int32_t>::min());
    w.bytes(2, "x");
    w.int64(5, std::numeric_limits<std::int64_t>::min());
    w.int64(5, 42);
    w.boolean(6, true);
    w.boolean(6, false);
    w.uint64(6, 5);
  });
  const Spec spec = read_spec(body);
  EXPECT_EQ(spec.numbers,
            (std::vector<std::int32_t>{7, -7, std::numeric_limits<std::int32_t>::min()}));
  EXPECT_EQ(spec.sizes, (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 42}));
  EXPECT_EQ(spec.flags, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(spec.numbers.capacity(), 3U);
  EXPECT_EQ(spec.sizes.capacity(), 2U);
  EXPECT_EQ(spec.flags.capacity(), 3U);

  // Read as the std::vector codec reads them: the same values.
  std::vector<std::int32_t> numbers;
  std::vector<std::int64_t> sizes;
  std::vector<bool> flags;
  Reader r(body);
  while (r.next()) {
    switch (r.field()) {
      case 4:
        pb::read(r, numbers);
        break;
      case 5:
        pb::read(r, sizes);
        break;
      case 6:
        pb::read(r, flags);
        break;
      default:
        r.skip();
    }
  }
  EXPECT_EQ(spec.numbers, numbers);
  EXPECT_EQ(spec.sizes, sizes);
  EXPECT_EQ(spec.flags, flags);
}

TEST(protobuf_containers_scalars, scalars_round_trip_unpacked) {
  const Vector<std::int32_t> numbers{1, -1, 0, std::numeric_limits<std::int32_t>::max()};
  const Vector<std::int64_t> sizes{std::numeric_limits<std::int64_t>::min(), 3};
  const Vector<bool> flags{true, false, false};
  const std::string body = encode([&](Writer& w) {
    pb::write(w, 4, numbers);
    pb::write(w, 5, sizes);
    pb::write(w, 6, flags);
  });
  // Unpacked, byte for byte as the std::vector codec writes them.
  EXPECT_EQ(
      body, encode([](Writer& w) {
        pb::write(w, 4,
                  std::vector<std::int32_t>{1, -1, 0, std::numeric_limits<std::int32_t>::max()});
        pb::write(w, 5, std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 3});
        pb::write(w, 6, std::vector<bool>{true, false, false});
      }));
  const Spec spec = read_spec(body);
  EXPECT_EQ(spec.numbers, numbers);
  EXPECT_EQ(spec.sizes, sizes);
  EXPECT_EQ(spec.flags, flags);
}

// ---------------------------------------------------------------------------------------------
// String lists (metav1.Verbs, ExtraValue)

TEST(protobuf_containers_string_list, reads_field_1_of_the_wrapper_and_skips_the_rest) {
  auto f = OnField(encode([](Writer& w) {
    w.message(7, [](Writer& m) {
      m.bytes(1, "get");
      m.bytes(1, long_string('v'));
      m.bytes(1, "watch");
    });
  }));
  Vector<String> verbs;
  pb::read_string_list(f.reader, verbs);
  EXPECT_EQ(strings(verbs), (std::vector<std::string>{"get", long_string('v'), "watch"}));
  EXPECT_EQ(verbs.capacity(), 3U);

  auto mixed = OnField(encode([](Writer& w) {
    w.message(7, [](Writer& m) {
      m.int64(2, 9);
      m.bytes(1, "a");
      m.bytes(3, "ignored");
      m.bytes(1, "b");
      m.bytes(1, "c");
    });
  }));
  Vector<String> list;
  pb::read_string_list(mixed.reader, list);
  EXPECT_EQ(strings(list), (std::vector<std::string>{"a", "b", "c"}));

  auto empty = OnField(encode([](Writer& w) { w.message(7, [](Writer&) {}); }));
  Vector<String> none;
  pb::read_string_list(empty.reader, none);
  EXPECT_TRUE(none.empty());
}

TEST(protobuf_containers_string_list, round_trips_as_the_std_vector_codec_writes_it) {
  const Vector<String> verbs{"get", "", long_string('w'), "list"};
  const std::string body = encode([&](Writer& w) { pb::write_string_list(w, 3, verbs); });
  EXPECT_EQ(
      body, encode([](Writer& w) {
        pb::write_string_list(w, 3, std::vector<std::string>{"get", "", long_string('w'), "list"});
      }));

  Vector<String> back;
  {
    Arena arena;
    const ArenaScope scope(&arena);
    OnField f(body);
    EXPECT_EQ(f.reader.field(), 3U);
    pb::read_string_list(f.reader, back);
    EXPECT_TRUE(back.in_arena());
    EXPECT_TRUE(back[2].in_arena());
  }
  EXPECT_EQ(back, verbs);
  EXPECT_EQ(back.capacity(), 4U);

  // An empty list is an empty message, and reads back empty.
  const std::string empty =
      encode([](Writer& w) { pb::write_string_list(w, 3, Vector<String>{}); });
  EXPECT_EQ(empty, "\x1a\x00"s);
  OnField f(empty);
  Vector<String> none;
  pb::read_string_list(f.reader, none);
  EXPECT_TRUE(none.empty());
}

// ---------------------------------------------------------------------------------------------
// Maps

template <class V>
Map<String, V> read_map(std::string_view bytes) {
  Map<String, V> out;
  Reader r(bytes);
  while (r.next()) {
    if (r.field() == 1) {
      pb::read(r, out);
    } else {
      r.skip();
    }
  }
  return out;
}

template <class V>
std::vector<std::pair<std::string, V>> entries(const Map<String, V>& map) {
  std::vector<std::pair<std::string, V>> out;
  for (const auto& [key, value] : map) {
    out.emplace_back(key.str(), value);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> entries(const Map<String, String>& map) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : map) {
    out.emplace_back(key.str(), value.str());
  }
  return out;
}

TEST(protobuf_containers_map, string_entries_sorted_and_a_repeated_key_keeps_the_later_value) {
  using Entries = std::vector<std::pair<std::string, std::string>>;
  const std::string body = encode([](Writer& w) {
    for (const auto& entry : Entries{{"zone", "b"},
                                     {"app", "web"},
                                     {long_string('k'), long_string('v')},
                                     {"zone", "c"},
                                     {"tier", ""}}) {
      w.message(1, [&entry](Writer& e) {
        e.bytes(1, entry.first);
        e.bytes(2, entry.second);
      });
    }
    w.bytes(2, "not an entry");
  });
  const auto map = read_map<String>(body);
  EXPECT_EQ(
      entries(map),
      (Entries{{"app", "web"}, {long_string('k'), long_string('v')}, {"tier", ""}, {"zone", "c"}}));
  EXPECT_EQ(map.at("zone").view(), "c");

  // An entry may leave out its key or value (Go leaves out neither, but both are optional), put
  // its value first, or carry a field it doesn't know.
  const auto odd = read_map<String>(encode([](Writer& w) {
    w.message(1, [](Writer& e) { e.bytes(1, "no-value"); });
    w.message(1, [](Writer& e) { e.bytes(2, "no-key"); });
    w.message(1, [](Writer& e) {
      e.bytes(2, "value-first");
      e.int64(3, 1);
      e.bytes(1, "key-after");
    });
  }));
  EXPECT_EQ(entries(odd),
            (Entries{{"", "no-key"}, {"key-after", "value-first"}, {"no-value", ""}}));
}

TEST(protobuf_containers_map, int32_values) {
  using Entries = std::vector<std::pair<std::string, std::int32_t>>;
  const auto map = read_map<std::int32_t>(encode([](Writer& w) {
    for (const auto& entry : Entries{{"memory", 3}, {"cpu", -2}, {"memory", 5}, {"pods", 0}}) {
      w.message(1, [&entry](Writer& e) {
        e.bytes(1, entry.first);
        e.int64(2, entry.second);
      });
    }
    w.message(1, [](Writer& e) { e.bytes(1, "absent"); });
  }));
  EXPECT_EQ(entries(map), (Entries{{"absent", 0}, {"cpu", -2}, {"memory", 5}, {"pods", 0}}));
}

TEST(protobuf_containers_map, written_in_key_order_and_read_back_equal) {
  Map<String, String> labels;
  labels["zone"] = "eu-west";
  labels["app"] = "web";
  labels[long_string('k')] = long_string('v');
  labels["empty"] = "";
  const std::string body = encode([&](Writer& w) { pb::write(w, 1, labels); });

  // Byte for byte as the std::map codec writes the same map.
  std::map<std::string, std::string> std_labels;
  for (const auto& [k, v] : labels) {
    std_labels[k.str()] = v.str();
  }
  EXPECT_EQ(body, encode([&](Writer& w) { pb::write(w, 1, std_labels); }));

  // One entry message per element, in key order, key then value.
  std::vector<std::string> keys;
  Reader r(body);
  while (r.next()) {
    ASSERT_EQ(r.field(), 1U);
    Reader e = r.message();
    ASSERT_TRUE(e.next());
    ASSERT_EQ(e.field(), 1U);
    keys.emplace_back(e.string());
    ASSERT_TRUE(e.next());
    ASSERT_EQ(e.field(), 2U);
    EXPECT_EQ(e.string(), labels.at(keys.back()).view());
    EXPECT_FALSE(e.next());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"app", "empty", long_string('k'), "zone"}));

  Map<String, String> back;
  {
    Arena arena;
    const ArenaScope scope(&arena);
    back = read_map<String>(body);
  }
  EXPECT_TRUE(back == labels);
  EXPECT_EQ(back.at(long_string('k')).view(), long_string('v'));

  Map<String, std::int32_t> counts;
  counts["b"] = -1;
  counts["a"] = 1;
  counts["c"] = 0;
  const std::string count_body = encode([&](Writer& w) { pb::write(w, 1, counts); });
  EXPECT_EQ(count_body, encode([](Writer& w) {
              pb::write(w, 1, std::map<std::string, std::int32_t>{{"a", 1}, {"b", -1}, {"c", 0}});
            }));
  EXPECT_TRUE(read_map<std::int32_t>(count_body) == counts);

  // An empty map writes nothing.
  EXPECT_EQ(encode([](Writer& w) { pb::write(w, 1, Map<String, String>{}); }), "");
}

// ---------------------------------------------------------------------------------------------
// Writing repeated fields

TEST(protobuf_containers_write, strings_one_field_per_element_then_read_back) {
  const Vector<String> names{"a", "", long_string('n'), "d"};
  const std::string body = encode([&](Writer& w) {
    pb::write(w, 1, names);
    pb::write(w, 2, String("label"));
  });
  EXPECT_EQ(body, encode([](Writer& w) {
              pb::write(w, 1, std::vector<std::string>{"a", "", long_string('n'), "d"});
              pb::write(w, 2, std::string("label"));
            }));
  const Spec spec = read_spec(body);
  EXPECT_EQ(spec.names, names);
  EXPECT_EQ(spec.names.capacity(), 4U);
  EXPECT_EQ(spec.label.view(), "label");

  EXPECT_EQ(encode([](Writer& w) { pb::write(w, 1, Vector<String>{}); }), "");
}

TEST(protobuf_containers_write, messages_then_read_back) {
  const Vector<Port> ports{{"http", 80}, {long_string('p'), -1}, {}};
  const std::string body = encode([&](Writer& w) { pb::write(w, 3, ports); });
  const Spec spec = read_spec(body);
  EXPECT_EQ(spec.ports, ports);
  EXPECT_EQ(spec.ports.capacity(), 3U);
}

TEST(protobuf_containers_write, a_null_raw_json_element_keeps_its_place) {
  const Vector<kubex::RawJson> values{kubex::RawJson{"{\"a\":1}"}, kubex::RawJson{},
                                      kubex::RawJson{"[1,2]"}};
  const std::string body = encode([&](Writer& w) { pb::write(w, 1, values); });
  // As the std::vector codec writes it: three messages, the null one empty.
  EXPECT_EQ(body, encode([](Writer& w) {
              pb::write(w, 1,
                        std::vector<kubex::RawJson>{kubex::RawJson{"{\"a\":1}"}, kubex::RawJson{},
                                                    kubex::RawJson{"[1,2]"}});
            }));
  std::vector<std::string> messages;
  Reader r(body);
  while (r.next()) {
    ASSERT_EQ(r.field(), 1U);
    messages.emplace_back(r.bytes());
  }
  EXPECT_EQ(messages, (std::vector<std::string>{"\x0a\x07{\"a\":1}"s, ""s, "\x0a\x05[1,2]"s}));
  // A single null RawJson field is left out entirely; an element is not.
  EXPECT_EQ(encode([](Writer& w) { pb::write(w, 1, kubex::RawJson{}); }), "");
  EXPECT_EQ(encode([](Writer& w) { pb::write(w, 1, Vector<kubex::RawJson>{kubex::RawJson{}}); }),
            "\x0a\x00"s);

  Vector<kubex::RawJson> back;
  Reader rb(body);
  while (rb.next()) {
    pb::read(rb, back);
  }
  ASSERT_EQ(back.size(), 3U);
  EXPECT_EQ(back.capacity(), 3U);
  EXPECT_EQ(back[0].text, "{\"a\":1}");
  EXPECT_TRUE(back[1].empty());
  EXPECT_EQ(back[2].text, "[1,2]");
  EXPECT_EQ(back, values);
}

// ---------------------------------------------------------------------------------------------
// Box

TEST(protobuf_containers_box, a_boxed_message_is_made_by_its_hooks_in_the_arena) {
  box_calls = {};
  const std::string body = encode([](Writer& w) {
    w.message(1, [](Writer& m) { m.int64(2, 7); });
    w.bytes(2, "x");
  });
  {
    Holder holder;
    {
      Arena arena;
      const ArenaScope scope(&arena);
      Reader r(body);
      read_holder(r, holder);
      // Made by kubex_box_new, not by `new`: protobuf_read.hpp's overload would have made
      // it with `new T` and kubex_box_delete would then free memory box_new never tagged.
      EXPECT_EQ(box_calls.made, 1);
      // Only the Boxed itself (its string is inline) can have taken arena memory.
      EXPECT_GE(arena.used(), sizeof(Boxed));
      ASSERT_TRUE(holder.boxed.has_value());
      EXPECT_EQ(holder.boxed->count, 7);
    }
    // The Arena is gone; the box it holds memory for still reads, and its block goes with it.
    EXPECT_EQ(holder.boxed->count, 7);
    EXPECT_EQ(holder.other.view(), "x");
    EXPECT_EQ(box_calls.deleted, 0);
  }
  EXPECT_EQ(box_calls.made, 1);
  EXPECT_EQ(box_calls.copied, 0);
  EXPECT_EQ(box_calls.deleted, 1);
}

TEST(protobuf_containers_box, a_boxed_message_with_arena_members_survives_its_arena) {
  box_calls = {};
  const std::string body = encode([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.bytes(1, long_string('n'));
      m.int64(2, -3);
      m.bytes(3, "t1");
      m.bytes(3, long_string('t'));
    });
    // A second occurrence merges into the same object, as protobuf merges messages.
    w.message(1, [](Writer& m) {
      m.int64(2, 4);
      m.bytes(3, "t3");
    });
  });
  Box<Boxed> copy;
  {
    Holder holder;
    {
      Arena arena;
      const ArenaScope scope(&arena);
      Reader r(body);
      read_holder(r, holder);
      EXPECT_EQ(box_calls.made, 1);
      EXPECT_TRUE(holder.boxed->name.in_arena());
      EXPECT_TRUE(holder.boxed->tags.in_arena());
    }
    ASSERT_TRUE(holder.boxed);
    EXPECT_EQ(holder.boxed->name.view(), long_string('n'));
    EXPECT_EQ(holder.boxed->count, 4);
    EXPECT_EQ(strings(holder.boxed->tags),
              (std::vector<std::string>{"t1", long_string('t'), "t3"}));

    copy = holder.boxed;  // on the heap, by kubex_box_copy
    EXPECT_EQ(box_calls.copied, 1);
    EXPECT_FALSE(copy->name.in_arena());
    holder.boxed.reset();
    EXPECT_EQ(box_calls.deleted, 1);
  }
  EXPECT_EQ(copy->name.view(), long_string('n'));
  EXPECT_EQ(strings(copy->tags), (std::vector<std::string>{"t1", long_string('t'), "t3"}));
  copy.reset();
  EXPECT_EQ(box_calls.deleted, 2);

  // Outside a decode the hooks put it on the heap; it reads the same.
  box_calls = {};
  {
    Holder holder;
    Reader r(body);
    read_holder(r, holder);
    EXPECT_EQ(box_calls.made, 1);
    EXPECT_FALSE(holder.boxed->name.in_arena());
    EXPECT_EQ(holder.boxed->count, 4);
  }
  EXPECT_EQ(box_calls.deleted, 1);
}

// ---------------------------------------------------------------------------------------------
// Malformed input

TEST(protobuf_containers_malformed, a_truncated_length_throws_decode_error) {
  // Field 1 claims 50 bytes; 3 follow.
  const std::string truncated =
      "\x0a\x32"
      "abc"s;
  {
    OnField f(truncated);
    String s = "kept";
    EXPECT_THROW(pb::read(f.reader, s), pb::DecodeError);
    EXPECT_EQ(s.view(), "kept");
  }
  {
    OnField f(truncated);
    Vector<String> v;
    EXPECT_EQ(error_of([&] { pb::read(f.reader, v); }),
              "invalid protobuf: field 1 claims 50 bytes, but 3 are left at byte 1");
    EXPECT_TRUE(v.empty());
  }
  {
    // DecodeError is a kubex::Error.
    OnField f(truncated);
    String s;
    EXPECT_THROW(pb::read(f.reader, s), kubex::Error);
  }
  {
    // A truncated element later in the run: run_length, looking ahead, finds it first.
    const std::string body = encode([](Writer& w) { w.bytes(1, long_string('a')); }) + truncated;
    OnField f(body);
    Vector<String> v;
    EXPECT_THROW(pb::read(f.reader, v), pb::DecodeError);
    EXPECT_TRUE(v.empty());
  }
  {
    // A packed run whose length runs past the end.
    OnField f("\x22\x05\x01\x02"s);
    Vector<std::int32_t> v{9};
    EXPECT_THROW(pb::read(f.reader, v), pb::DecodeError);
    EXPECT_EQ(v, (std::vector<std::int32_t>{9}));
  }
  {
    // A string list whose wrapper is whole but whose element is not.
    OnField f(encode([](Writer& w) {
      w.message(1, [](Writer& m) {
        m.bytes(1, long_string('s'));
        m.raw(
            "\x0a\x32"
            "ab");
      });
    }));
    Vector<String> v;
    EXPECT_THROW(pb::read_string_list(f.reader, v), pb::DecodeError);
  }
}

TEST(protobuf_containers_malformed, nothing_leaks_when_a_decode_in_an_arena_fails) {
  box_calls = {};
  // Elements already read, a map entry's key, a boxed object: all given back (asan checks).
  const std::string spec_body = encode([](Writer& w) {
                                  w.bytes(1, long_string('a'));
                                  write_port(w, 3, long_string('p'), 1);
                                  w.bytes(2, long_string('l'));
                                }) +
                                "\x0a\x32" + long_string('b', 10);
  const std::string map_body = encode([](Writer& w) {
    w.message(1, [](Writer& e) {
      e.bytes(1, long_string('k'));
      e.bytes(2, long_string('v'));
    });
    w.message(1, [](Writer& e) {
      e.bytes(1, long_string('K'));
      e.raw(
          "\x12\x32"
          "v");
    });
  });
  const std::string box_body = encode([](Writer& w) {
    w.message(1, [](Writer& m) {
      m.bytes(1, long_string('n'));
      m.bytes(3, long_string('t'));
      m.raw(
          "\x1a\x7f"
          "t");
    });
  });
  {
    Spec spec;
    Map<String, String> map;
    Holder holder;
    {
      Arena arena;
      const ArenaScope scope(&arena);
      Reader rs(spec_body);
      EXPECT_THROW(read_spec(rs, spec), pb::DecodeError);
      EXPECT_THROW(read_map<String>(map_body), pb::DecodeError);
      Reader rm(map_body);
      while (true) {
        try {
          if (!rm.next()) {
            break;
          }
          pb::read(rm, map);
        } catch (const pb::DecodeError&) {
          break;
        }
      }
      Reader rb(box_body);
      EXPECT_THROW(read_holder(rb, holder), pb::DecodeError);
    }
    // What was read before the error is intact after the Arena went.
    ASSERT_FALSE(spec.names.empty());
    EXPECT_EQ(spec.names[0].view(), long_string('a'));
    ASSERT_EQ(spec.ports.size(), 1U);
    EXPECT_EQ(spec.ports[0], (Port{long_string('p'), 1}));
    EXPECT_EQ(spec.label.view(), long_string('l'));
    EXPECT_EQ(
        entries(map),
        (std::vector<std::pair<std::string, std::string>>{{long_string('k'), long_string('v')}}));
    ASSERT_TRUE(holder.boxed);
    EXPECT_EQ(holder.boxed->name.view(), long_string('n'));
    EXPECT_EQ(box_calls.made, 1);
  }
  EXPECT_EQ(box_calls.deleted, 1);
}

}  // namespace
