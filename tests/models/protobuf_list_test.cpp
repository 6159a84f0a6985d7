// SPDX-License-Identifier: Apache-2.0
// Decoding protobuf lists while they arrive (protobuf::ListDecoder), on the pods testenv's
// apiserver sent: whatever the pieces the body comes in, the list is decode_object's, the bytes
// of decoded items leave the body, the list's own fields and unknown fields are kept, and
// malformed bodies and bodies of another kind fail naming why.

#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_list.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include "model_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace {

namespace pb = kubex::protobuf;
namespace core = kubex::k8s::v1_35::core::v1;
namespace meta = kubex::k8s::v1_35::meta::v1;
using kubex::testing::fixture;

// The 500 pods of podlist-500.json as the apiserver would send them in protobuf (1.3 MB).
const std::string& large_body() {
  static const std::string body = [] {
    const auto list = kubex::json::decode<core::PodList>(fixture("podlist-500.json"));
    return pb::encode_object(list, "v1", "PodList");
  }();
  return body;
}

// Feeds `body` in pieces of `piece` bytes, as a client reads it; `largest` gets the most the
// receive buffer held.
template <class L>
L fed(std::string_view body, std::size_t piece, std::size_t* largest = nullptr,
      std::size_t split_after = 0) {
  pb::ListDecoder<L> decoder(split_after);
  std::string buffer;
  std::size_t most = 0;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    buffer.append(body.substr(at, piece));
    most = std::max(most, buffer.size());
    decoder.feed(buffer);
  }
  if (largest != nullptr) {
    *largest = most;
  }
  return decoder.finish(buffer);
}

template <class L>
L whole(std::string_view body) {
  L out;
  pb::decode_object(body, out);
  return out;
}

TEST(protobuf_list_test, a_list_fed_in_any_pieces_decodes_as_the_whole_body) {
  const std::string small = fixture("protobuf/pods.pb");
  const auto expected_small = whole<core::PodList>(small);
  ASSERT_EQ(expected_small.items.size(), 20U);
  for (const std::size_t piece : {1U, 3U, 64U, 1000U, 4096U}) {
    EXPECT_EQ(fed<core::PodList>(small, piece), expected_small) << piece;
  }
  const auto expected_large = whole<core::PodList>(large_body());
  ASSERT_EQ(expected_large.items.size(), 500U);
  for (const std::size_t piece : {std::size_t{1000}, std::size_t{16} << 10U, large_body().size()}) {
    EXPECT_EQ(fed<core::PodList>(large_body(), piece), expected_large) << piece;
  }
  // Below the threshold nothing is split: finish() decodes the body whole.
  EXPECT_EQ(fed<core::PodList>(small, 1000, nullptr, small.size() + 1), expected_small);
}

TEST(protobuf_list_test, the_bytes_of_decoded_items_leave_the_body) {
  std::size_t largest = 0;
  const auto list = fed<core::PodList>(large_body(), std::size_t{16} << 10U, &largest);
  EXPECT_EQ(list.items.size(), 500U);
  // The buffer holds at most the 64 KiB before a drop, a read, and an item in progress.
  EXPECT_LT(largest, std::size_t{100} << 10U);
  EXPECT_GT(large_body().size(), std::size_t{1} << 20U);
}

TEST(protobuf_list_test, metadata_only_lists_decode_as_the_whole_body) {
  const auto json = kubex::json::decode<meta::PartialObjectMetadataList>(
      fixture("partialobjectmetadatalist-100.json"));
  const std::string body = pb::encode_object(json, "meta.k8s.io/v1", "PartialObjectMetadataList");
  const auto expected = whole<meta::PartialObjectMetadataList>(body);
  ASSERT_EQ(expected.items.size(), 100U);
  EXPECT_EQ(fed<meta::PartialObjectMetadataList>(body, 777), expected);
}

// A list message with its metadata after some items, a field this version does not know
// between them, and an envelope field the apiserver does not send: all kept as the whole
// decode keeps them.
TEST(protobuf_list_test, the_lists_own_fields_around_its_items_are_kept) {
  const auto pods = whole<core::PodList>(fixture("protobuf/pods.pb"));
  std::string raw;
  pb::Writer list(raw);
  list.message(2, [&](pb::Writer& w) { kubex_write_proto(w, pods.items[0]); });
  list.uint64(99, 7);  // unknown to the model: kept as its bytes
  list.message(1, [](pb::Writer& m) { m.bytes(2, "4242"); });  // ListMeta.resourceVersion
  list.message(2, [&](pb::Writer& w) { kubex_write_proto(w, pods.items[1]); });
  std::string body(pb::magic);
  pb::Writer envelope(body);
  envelope.message(1, [](pb::Writer& t) {
    t.bytes(1, "v1");
    t.bytes(2, "PodList");
  });
  envelope.uint64(9, 1);  // not an envelope field: skipped
  envelope.bytes(2, raw);
  envelope.bytes(3, {});
  envelope.bytes(4, {});

  const auto expected = whole<core::PodList>(body);
  ASSERT_EQ(expected.items.size(), 2U);
  ASSERT_EQ(expected.metadata.resource_version, "4242");
  for (const std::size_t piece : {1U, 5U, 100U}) {
    const auto got = fed<core::PodList>(body, piece);
    EXPECT_EQ(got, expected) << piece;
    EXPECT_EQ(got.metadata.resource_version, "4242");
    EXPECT_EQ(got.items[1].metadata.name, pods.items[1].metadata.name);
  }
  // Written back, the unknown field is there as the whole decode keeps it.
  std::string from_pieces;
  std::string from_whole;
  pb::Writer(from_pieces).message(2, [&](pb::Writer& w) {
    kubex_write_proto(w, fed<core::PodList>(body, 3));
  });
  pb::Writer(from_whole).message(2, [&](pb::Writer& w) { kubex_write_proto(w, expected); });
  EXPECT_EQ(from_pieces, from_whole);
  EXPECT_NE(from_whole.find("\x98\x06\x07"), std::string::npos);  // field 99, varint 7
}

TEST(protobuf_list_test, a_body_of_another_kind_is_refused_naming_both_kinds) {
  const auto pod = kubex::json::decode<core::Pod>(fixture("pod.json"));
  std::string body = pb::encode_object(pod, "v1", "Pod");
  body.append(std::size_t{20} << 10U, '\0');  // past the threshold; never read as items
  try {
    (void)fed<core::PodList>(body, 4096, nullptr,
                             pb::ListDecoder<core::PodList>::default_split_after);
    FAIL() << "a Pod decoded as a PodList";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("a Pod (v1), not a PodList (v1)"), std::string::npos)
        << e.what();
  }
}

TEST(protobuf_list_test, malformed_bodies_fail_naming_the_byte) {
  const std::string& body = large_body();
  // Cut anywhere: in the envelope, in an item, between items, in the tail.
  for (const std::size_t cut :
       {std::size_t{2}, std::size_t{9}, std::size_t{5000}, body.size() / 2, body.size() - 3}) {
    EXPECT_THROW((void)fed<core::PodList>(body.substr(0, cut), 4096), pb::DecodeError) << cut;
    EXPECT_THROW((void)whole<core::PodList>(body.substr(0, cut)), pb::DecodeError) << cut;
  }
  try {
    (void)fed<core::PodList>(body.substr(0, 3) + "x" + body.substr(4), 4096);
    FAIL() << "a body without the magic decoded";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("magic"), std::string::npos) << e.what();
  }
  const auto pods = whole<core::PodList>(fixture("protobuf/pods.pb"));
  const auto add_item = [&pods](std::string& raw) {
    pb::Writer(raw).message(2, [&pods](pb::Writer& w) { kubex_write_proto(w, pods.items[0]); });
  };
  // A group (wire type 3) between the items, which the whole decode refuses too.
  std::string grouped;
  add_item(grouped);
  grouped += "\x1B";
  add_item(grouped);
  const std::string with_group = pb::seal_envelope("v1", "PodList", grouped);
  try {
    (void)fed<core::PodList>(with_group, 10);
    FAIL() << "a group decoded";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("wire type 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)whole<core::PodList>(with_group), pb::DecodeError);
  // A length that runs past the list message.
  std::string raw;
  add_item(raw);
  raw += "\x12\x7F";  // an item claiming 127 bytes, with 2 left
  raw += "ab";
  const std::string overlong = pb::seal_envelope("v1", "PodList", raw);
  try {
    (void)fed<core::PodList>(overlong, 10);
    FAIL() << "an item longer than its list decoded";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("claims 127 bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)whole<core::PodList>(overlong), pb::DecodeError);
}

// decode_object keeps the last of two list messages; the items fed were the first's.
TEST(protobuf_list_test, an_envelope_with_two_list_messages_is_refused) {
  const std::string small = fixture("protobuf/pods.pb");
  const auto envelope = pb::open_envelope(small);
  std::string body = small;
  pb::Writer(body).bytes(2, envelope.raw);
  try {
    (void)fed<core::PodList>(body, 512);
    FAIL() << "two list messages decoded";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("second list message"), std::string::npos) << e.what();
  }
}

TEST(protobuf_list_test, a_restart_forgets_what_was_fed) {
  const std::string small = fixture("protobuf/pods.pb");
  pb::ListDecoder<core::PodList> decoder(0);
  std::string first = small.substr(0, small.size() / 2);
  decoder.feed(first);
  decoder.restart();
  std::string again = small;
  decoder.feed(again);
  EXPECT_EQ(decoder.finish(again), whole<core::PodList>(small));
}

}  // namespace
