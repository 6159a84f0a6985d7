// The lean-decode experiment's compact layout (cmake/KubexCompactModels.cmake): the same
// generated Pod models holding kubex::String, Vector and Map, their memory in a per-decode
// arena. These tests hold the layout to the shipped models' behaviour on captured server
// responses: the same documents decode to the same values in JSON and protobuf, encode to the
// same bytes, and decoded objects stay valid however they are moved, copied and freed.

#include <kubex/core/arena.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_containers.hpp>
#include <kubex/core/json_list.hpp>
#include <kubex/core/json_types.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35c/core/v1.hpp>

#include "model_fixtures.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <thread>
#include <utility>

namespace {

namespace json = kubex::json;
namespace shipped = kubex::k8s::v1_35::core::v1;
namespace compact = kubex::k8s::v1_35c::core::v1;
using kubex::testing::fixture;

template <class L>
L decode_json(const std::string& text) {
  L out;
  json::decode(text, out);
  return out;
}

TEST(compact_layout_test, json_list_decodes_and_encodes_as_the_shipped_models) {
  const std::string body = fixture("podlist-500.json");
  const auto a = decode_json<shipped::PodList>(body);
  const auto b = decode_json<compact::PodList>(body);
  ASSERT_EQ(b.items.size(), 500U);
  EXPECT_EQ(json::encode(b), json::encode(a));
  // Decoded lists keep no spare capacity; long strings live in the decode's arena.
  EXPECT_EQ(b.items.capacity(), b.items.size());
  EXPECT_TRUE(b.items[0].metadata.uid->in_arena());
  EXPECT_EQ(b.items[0].spec->containers.capacity(), b.items[0].spec->containers.size());
}

TEST(compact_layout_test, list_decoded_item_by_item_equals_the_whole_decode) {
  const std::string body = fixture("podlist-500.json");
  std::string fed = body;
  json::ListDecoder<compact::PodList> decoder(0);
  decoder.feed(fed);
  const compact::PodList items = decoder.finish(fed);
  EXPECT_EQ(items, decode_json<compact::PodList>(body));
  EXPECT_EQ(items.items.capacity(), 500U);
}

TEST(compact_layout_test, protobuf_decodes_and_writes_as_the_shipped_models) {
  const std::string pb = fixture("protobuf/pods.pb");
  shipped::PodList a;
  compact::PodList b;
  kubex::protobuf::decode_object(pb, a);
  kubex::protobuf::decode_object(pb, b);
  ASSERT_EQ(b.items.size(), 20U);
  EXPECT_EQ(json::encode(b), json::encode(a));
  EXPECT_EQ(kubex::protobuf::encode_object(b, "v1", "PodList"),
            kubex::protobuf::encode_object(a, "v1", "PodList"));
  EXPECT_EQ(b, decode_json<compact::PodList>(fixture("protobuf/pods.json")));
  EXPECT_EQ(b.items.capacity(), b.items.size());
}

// What ASan checks here: nothing a decoded object holds is freed with its list or arena.
TEST(compact_layout_test, objects_outlive_their_list_moved_copied_or_on_another_thread) {
  const std::string body = fixture("podlist-500.json");
  const std::string first = json::encode(decode_json<shipped::PodList>(body).items[0]);
  compact::Pod moved;
  compact::Pod copied;
  compact::PodSpec spec;
  {
    auto list = decode_json<compact::PodList>(body);
    moved = std::move(list.items[0]);
    copied = list.items[1];
    spec = std::move(*list.items[2].spec);
  }
  EXPECT_EQ(json::encode(moved), first);
  EXPECT_FALSE(copied.metadata.uid->in_arena());  // a copy is on the heap
  EXPECT_FALSE(spec.containers.empty());

  auto list = decode_json<compact::PodList>(body);
  std::thread other([items = std::move(list.items)]() mutable { items = {}; });
  other.join();
  EXPECT_EQ(json::encode(moved), first);
}

// A list item is decoded into an arena of its own, in JSON (item by item, the client's path)
// and in protobuf: an object kept from a list keeps only its own blocks, not the list's.
TEST(compact_layout_test, an_item_kept_from_a_list_keeps_only_its_own_blocks) {
  const std::size_t before = kubex::arena_live_blocks();
  compact::Pod from_json;
  {
    std::string body = fixture("podlist-500.json");
    json::ListDecoder<compact::PodList> decoder(0);
    decoder.feed(body);
    auto list = decoder.finish(body);
    EXPECT_GE(kubex::arena_live_blocks() - before, 500U);
    from_json = std::move(list.items[7]);
  }
  EXPECT_LE(kubex::arena_live_blocks() - before, 2U);
  compact::Pod from_protobuf;
  {
    compact::PodList list;
    kubex::protobuf::decode_object(fixture("protobuf/pods.pb"), list);
    EXPECT_GE(kubex::arena_live_blocks() - before, 20U);
    from_protobuf = std::move(list.items[3]);
  }
  EXPECT_LE(kubex::arena_live_blocks() - before, 4U);
  EXPECT_TRUE(from_json.metadata.name.has_value());
  EXPECT_TRUE(from_protobuf.metadata.name.has_value());
  from_json = {};
  from_protobuf = {};
  EXPECT_EQ(kubex::arena_live_blocks(), before);
}

TEST(compact_layout_test, edited_after_decode_like_any_object) {
  auto pod = decode_json<compact::Pod>(fixture("pod.json"));
  pod.metadata.labels["kubex.test/edited"] = "yes";
  pod.metadata.name = std::string(40, 'n');
  pod.spec->containers.push_back(pod.spec->containers.front());
  pod.spec->containers.back().name = "second";
  const auto again = decode_json<compact::Pod>(json::encode(pod));
  EXPECT_EQ(again, pod);
  EXPECT_EQ(again.metadata.labels.at("kubex.test/edited"), "yes");
  EXPECT_EQ(again.spec->containers.size(), 2U);
}

}  // namespace
