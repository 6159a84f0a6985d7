// SPDX-License-Identifier: Apache-2.0
// The protobuf wire format: values written and read back, the encodings the protobuf
// specification gives as examples, and every way a body can be malformed, each refused with
// an error that names the byte.

#include <kubex/core/error.hpp>
#include <kubex/core/protobuf.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace {

using kubex::protobuf::Reader;
using kubex::protobuf::WireType;
using kubex::protobuf::Writer;
using namespace std::string_literals;

// The message `what` of the DecodeError that `f` throws, or a failure if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const kubex::protobuf::DecodeError& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_protobuf);
    return e.what();
  }
  ADD_FAILURE() << "no DecodeError";
  return {};
}

TEST(protobuf, the_specifications_examples) {
  // From the encoding guide: field 1 = 150 is 08 96 01; field 2 = "testing" is 12 07 ...
  std::string out;
  Writer w(out);
  w.uint64(1, 150);
  w.bytes(2, "testing");
  EXPECT_EQ(out, "\x08\x96\x01\x12\x07testing"s);
  // sint64 -2 zigzags to 3; int64 -2 takes ten bytes.
  out.clear();
  w.sint64(1, -2);
  EXPECT_EQ(out, "\x08\x03"s);
  out.clear();
  w.int64(1, -2);
  EXPECT_EQ(out, "\x08\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01"s);
}

TEST(protobuf, every_value_type_round_trips) {
  std::string out;
  Writer w(out);
  w.uint64(1, std::numeric_limits<std::uint64_t>::max());
  w.int64(2, std::numeric_limits<std::int64_t>::min());
  w.int64(3, -1);  // an int32 -1, as Go writes it
  w.boolean(4, true);
  w.sint64(5, std::numeric_limits<std::int64_t>::min());
  w.fixed64(6, 0x0102030405060708U);
  w.fixed32(7, 0xA1B2C3D4U);
  w.float64(8, -0.5);
  w.bytes(9, "\0\xff"s);
  w.bytes(kubex::protobuf::max_field_number, "last");
  w.uint64(10, 0);

  Reader r(out);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.field(), 1U);
  EXPECT_EQ(r.wire_type(), WireType::varint);
  EXPECT_EQ(r.uint64(), std::numeric_limits<std::uint64_t>::max());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.int64(), std::numeric_limits<std::int64_t>::min());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.int32(), -1);
  ASSERT_TRUE(r.next());
  EXPECT_TRUE(r.boolean());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.sint64(), std::numeric_limits<std::int64_t>::min());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.wire_type(), WireType::fixed64);
  EXPECT_EQ(r.fixed64(), 0x0102030405060708U);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.fixed32(), 0xA1B2C3D4U);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.float64(), -0.5);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.bytes(), "\0\xff"s);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.field(), kubex::protobuf::max_field_number);
  EXPECT_EQ(r.string(), "last");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.uint64(), 0U);
  EXPECT_FALSE(r.next());
  EXPECT_TRUE(r.done());
}

TEST(protobuf, embedded_messages_of_any_size_get_their_length_in_front) {
  for (const std::size_t size : {0UL, 1UL, 127UL, 128UL, 16383UL, 16384UL, 300000UL}) {
    std::string out;
    Writer w(out);
    w.message(3, [&](Writer& inner) {
      if (size > 0) {
        // A field whose total encoding is exactly `size` bytes is not needed: any content
        // of that length will do, written as raw bytes.
        inner.raw(std::string(size, 'x'));
      }
    });
    w.uint64(4, 7);
    Reader r(out);
    ASSERT_TRUE(r.next());
    EXPECT_EQ(r.field(), 3U);
    EXPECT_EQ(r.bytes(), std::string(size, 'x')) << size;
    ASSERT_TRUE(r.next());
    EXPECT_EQ(r.uint64(), 7U) << size;
  }
}

TEST(protobuf, nested_messages_read_with_offsets_into_the_whole_body) {
  std::string out = "pad";
  Writer w(out);
  w.message(1, [](Writer& a) {
    a.bytes(1, "name");
    a.message(2, [](Writer& b) { b.bytes(1, "deep"); });
  });
  Reader top(std::string_view(out).substr(3), 3);
  ASSERT_TRUE(top.next());
  Reader a = top.message();
  ASSERT_TRUE(a.next());
  EXPECT_EQ(a.string(), "name");
  ASSERT_TRUE(a.next());
  Reader b = a.message();
  ASSERT_TRUE(b.next());
  EXPECT_EQ(b.offset(), out.find("deep") - 1);  // after the key, before the length
  EXPECT_EQ(b.string(), "deep");
  EXPECT_FALSE(b.next());
  EXPECT_FALSE(a.next());
  EXPECT_FALSE(top.next());
}

TEST(protobuf, unread_fields_are_skipped_and_can_be_kept_verbatim) {
  std::string out;
  Writer w(out);
  w.uint64(1, 300);
  w.fixed64(2, 1);
  w.bytes(3, "abc");
  w.fixed32(4, 2);
  w.bytes(5, "end");
  Reader r(out);
  std::string kept;
  Writer copy(kept);
  while (r.next()) {
    if (r.field() == 5) {
      EXPECT_EQ(r.string(), "end");
    } else {
      r.skip();
      copy.raw(r.field_bytes());
    }
  }
  EXPECT_EQ(kept, out.substr(0, out.size() - 5));
  // next() alone skips what was not read.
  Reader s(out);
  int fields = 0;
  while (s.next()) {
    ++fields;
  }
  EXPECT_EQ(fields, 5);
}

TEST(protobuf, malformed_bodies_name_what_and_where) {
  const auto first = [](std::string body, auto read) {
    return error_of([&] {
      Reader r(body, 10);
      while (r.next()) {
        read(r);
      }
    });
  };
  const auto skip = [](Reader& r) {
    r.skip();
  };
  EXPECT_EQ(first("\x08"s, skip), "invalid protobuf: truncated varint at byte 11");
  EXPECT_EQ(first("\x08\x80\x80"s, skip), "invalid protobuf: truncated varint at byte 13");
  EXPECT_EQ(first("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"s, skip),
            "invalid protobuf: varint overflows 64 bits at byte 20");
  EXPECT_EQ(first("\x80"s, skip), "invalid protobuf: truncated field key at byte 11");
  EXPECT_EQ(first("\x00"s, skip), "invalid protobuf: field number 0 out of range at byte 10");
  EXPECT_EQ(first("\x0b"s, skip),
            "invalid protobuf: field 1 has wire type 3 (a group, which Kubernetes does not use) "
            "at byte 10");
  EXPECT_EQ(first("\x0f"s, skip), "invalid protobuf: field 1 has wire type 7 at byte 10");
  EXPECT_EQ(first("\x12\x05"
                  "abc"s,
                  skip),
            "invalid protobuf: field 2 claims 5 bytes, but 3 are left at byte 11");
  EXPECT_EQ(first("\x12\xff\xff\xff\xff\x0f"s, skip),
            "invalid protobuf: field 2 claims 4294967295 bytes, but 0 are left at byte 11");
  EXPECT_EQ(first("\x09\x01\x02"s, skip),
            "invalid protobuf: truncated fixed64 of field 1 at byte 11");
  EXPECT_EQ(first("\x0d\x01"s, skip), "invalid protobuf: truncated fixed32 of field 1 at byte 11");
  // A value read as the wrong type.
  EXPECT_EQ(first("\x08\x01"s, [](Reader& r) { (void)r.string(); }),
            "invalid protobuf: field 1 is varint, expected length-delimited at byte 11");
  EXPECT_EQ(first("\x12\x00"s, [](Reader& r) { (void)r.uint64(); }),
            "invalid protobuf: field 2 is length-delimited, expected varint at byte 11");
  // A value read twice.
  EXPECT_EQ(first("\x08\x01"s,
                  [](Reader& r) {
                    (void)r.uint64();
                    (void)r.uint64();
                  }),
            "invalid protobuf: no field to read at byte 12");
}

TEST(protobuf, nesting_is_bounded) {
  // 200 levels of field 1 holding the next level: refused at the 101st.
  std::string body;
  for (int i = 0; i < 200; ++i) {
    std::string outer;
    Writer(outer).bytes(1, body);
    body = std::move(outer);
  }
  const std::string what = error_of([&] {
    const auto descend = [](auto& self, Reader r) -> void {
      while (r.next()) {
        self(self, r.message());
      }
    };
    descend(descend, Reader(body));
  });
  EXPECT_NE(what.find("messages nested deeper than 100"), std::string::npos) << what;
}

TEST(protobuf, field_numbers_out_of_range_are_not_written) {
  std::string out;
  Writer w(out);
  EXPECT_THROW(w.uint64(0, 1), kubex::Error);
  EXPECT_THROW(w.bytes(kubex::protobuf::max_field_number + 1, "x"), kubex::Error);
  EXPECT_TRUE(out.empty());
}

}  // namespace
