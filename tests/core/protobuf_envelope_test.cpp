// SPDX-License-Identifier: Apache-2.0
// The Kubernetes protobuf envelope and watch framing on hand-made bytes. What the real
// apiserver sends is checked in tests/integration/protobuf_test.cpp.

#include <kubex/core/error.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace pb = kubex::protobuf;
using namespace std::string_literals;

std::string frame_of(std::string_view event) {
  const auto n = static_cast<std::uint32_t>(event.size());
  std::string out;
  for (const unsigned shift : {24U, 16U, 8U, 0U}) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(n >> shift)));
  }
  out.append(event);
  return out;
}

std::string watch_event(std::string_view type, std::string_view object) {
  std::string out;
  pb::Writer w(out);
  w.bytes(1, type);
  w.message(2, [&](pb::Writer& raw_extension) { raw_extension.bytes(1, object); });
  return out;
}

TEST(protobuf_envelope, sealed_bodies_open_to_what_was_sealed) {
  const std::string body = pb::seal_envelope("apps/v1", "Deployment", "\x0a\x02\x0a\x00"s);
  // Go's layout: magic, typeMeta {apiVersion, kind}, raw, then empty encoding and type.
  EXPECT_EQ(body, "k8s\0"s +
                      "\x0a\x15\x0a\x07"
                      "apps/v1\x12\x0a"
                      "Deployment" +
                      "\x12\x04\x0a\x02\x0a\x00"s + "\x1a\x00\x22\x00"s);
  const pb::Envelope e = pb::open_envelope(body);
  EXPECT_EQ(e.api_version, "apps/v1");
  EXPECT_EQ(e.kind, "Deployment");
  EXPECT_EQ(e.raw, "\x0a\x02\x0a\x00"s);
  EXPECT_EQ(e.content_encoding, "");
  EXPECT_EQ(e.content_type, "");
}

TEST(protobuf_envelope, fields_it_does_not_define_are_skipped) {
  std::string body(pb::magic);
  pb::Writer w(body);
  w.uint64(9, 1);
  w.message(1, [](pb::Writer& t) {
    t.bytes(3, "future");
    t.bytes(2, "Pod");
  });
  w.bytes(2, "raw");
  const pb::Envelope e = pb::open_envelope(body);
  EXPECT_EQ(e.kind, "Pod");
  EXPECT_EQ(e.api_version, "");
  EXPECT_EQ(e.raw, "raw");
}

TEST(protobuf_envelope, bodies_that_are_not_envelopes_are_refused) {
  EXPECT_THROW((void)pb::open_envelope(R"({"kind":"Pod"})"), pb::DecodeError);
  EXPECT_THROW((void)pb::open_envelope("k8s"), pb::DecodeError);
  try {
    (void)pb::open_envelope("k8s\0\x12\x09short"s);
    FAIL() << "no error";
  } catch (const pb::DecodeError& e) {
    EXPECT_STREQ(e.what(), "invalid protobuf: field 2 claims 9 bytes, but 5 are left at byte 5");
  }
  // typeMeta as a number instead of a message.
  EXPECT_THROW((void)pb::open_envelope("k8s\0\x08\x01"s), pb::DecodeError);
}

TEST(protobuf_envelope, watch_events_carry_their_type_and_object) {
  const std::string object = pb::seal_envelope("v1", "Pod", "x");
  const std::string frame = watch_event("ADDED", object);
  const pb::WatchEventFrame e = pb::read_watch_event(frame);
  EXPECT_EQ(e.type, "ADDED");
  EXPECT_EQ(e.object, object);
  EXPECT_THROW((void)pb::read_watch_event(watch_event("ADDED", "").substr(0, 7)), pb::DecodeError);
  std::string no_object;
  pb::Writer(no_object).bytes(1, "DELETED");
  try {
    (void)pb::read_watch_event(no_object);
    FAIL() << "no error";
  } catch (const pb::DecodeError& err) {
    EXPECT_STREQ(err.what(), "invalid protobuf: watch event without its object");
  }
}

TEST(protobuf_envelope, frames_come_whole_whatever_the_pieces) {
  const std::vector<std::string> events = {watch_event("ADDED", std::string(300, 'a')),
                                           watch_event("BOOKMARK", ""), std::string(),
                                           watch_event("DELETED", "z")};
  std::string stream;
  for (const auto& e : events) {
    stream += frame_of(e);
  }
  for (const std::size_t piece : {1UL, 3UL, 5UL, 64UL, stream.size()}) {
    pb::FrameSplitter splitter(1024);
    std::vector<std::string> got;
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      splitter.append(std::string_view(stream).substr(at, piece));
      while (const auto frame = splitter.next()) {
        got.emplace_back(*frame);
      }
    }
    EXPECT_EQ(got, events) << "pieces of " << piece;
    EXPECT_EQ(splitter.pending(), 0U);
  }
  pb::FrameSplitter cut(1024);
  cut.append(std::string_view(stream).substr(0, 10));
  EXPECT_FALSE(cut.next());
  EXPECT_EQ(cut.pending(), 10U) << "a stream that ends here is truncated";
}

TEST(protobuf_envelope, a_long_watch_keeps_its_buffer_near_the_bytes_it_holds) {
  // Frames consumed are dropped once they outweigh what is pending, so a watch that runs for
  // days never holds more than twice a frame and a read.
  const std::string frame = frame_of(watch_event("MODIFIED", std::string(200, 'm')));
  const std::string stream = frame + frame + frame;
  pb::FrameSplitter splitter(0);
  std::size_t frames = 0;
  for (int round = 0; round < 1000; ++round) {
    for (std::size_t at = 0; at < stream.size(); at += 7) {
      std::string& buffer = splitter.buffer();
      EXPECT_LE(buffer.size(), 2 * splitter.pending() + 1) << "round " << round;
      buffer.append(std::string_view(stream).substr(at, 7));
      while (splitter.next()) {
        ++frames;
      }
    }
  }
  EXPECT_EQ(frames, 3000U);
  EXPECT_EQ(splitter.pending(), 0U);
  EXPECT_LE(splitter.buffer().capacity(), 4 * frame.size());
}

TEST(protobuf_envelope, a_frame_over_the_limit_is_refused_before_it_arrives) {
  pb::FrameSplitter splitter(100);
  splitter.append(frame_of(std::string(100, 'a')).substr(0, 4));
  EXPECT_FALSE(splitter.next());  // 100 bytes: allowed, waiting for them
  pb::FrameSplitter small(99);
  small.append("\x00\x00\x00\x64"s);
  try {
    (void)small.next();
    FAIL() << "no error";
  } catch (const kubex::Error& e) {
    // Too large, not malformed (kubex::errc::invalid_protobuf): its own code.
    EXPECT_EQ(e.code(), std::errc::message_size);
    EXPECT_STREQ(e.what(), "watch frame of 100 bytes exceeds the limit of 99 bytes");
  }
  pb::FrameSplitter huge(1U << 20U);
  huge.append("\xff\xff\xff\xff"s);
  EXPECT_THROW((void)huge.next(), kubex::Error);
}

}  // namespace
