// SPDX-License-Identifier: Apache-2.0
// Where a decoded model's memory lives: kubex::String, Vector and Map take theirs from an arena
// per decoded object (core/arena.hpp), a list's items each from their own. These tests check,
// on captured server responses, that decoding keeps no spare capacity, and that decoded objects
// stay valid however they are moved, copied, edited and freed (ASan runs them too).

#include <kubex/core/arena.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_list.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include "model_fixtures.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <thread>
#include <utility>

namespace {

namespace json = kubex::json;
namespace core = kubex::k8s::v1_35::core::v1;
using kubex::testing::fixture;

template <class L>
L decode_json(const std::string& text) {
  L out;
  json::decode(text, out);
  return out;
}

// Item `index` of podlist-500.json decoded item by item (the client's path) and moved out of
// its list; `list_blocks` gets the arena blocks the process held while the list lived.
core::Pod item_of_podlist(std::size_t index, std::size_t* list_blocks = nullptr) {
  std::string body = fixture("podlist-500.json");
  json::ListDecoder<core::PodList> decoder(0);
  decoder.feed(body);
  auto list = decoder.finish(body);
  if (list_blocks != nullptr) {
    *list_blocks = kubex::arena_live_blocks();
  }
  return std::move(list.items.at(index));
}

TEST(decoded_memory_test, json_lists_keep_no_spare_capacity_and_strings_live_in_the_arena) {
  const auto list = decode_json<core::PodList>(fixture("podlist-500.json"));
  ASSERT_EQ(list.items.size(), 500U);
  EXPECT_EQ(list.items.capacity(), list.items.size());
  EXPECT_TRUE(list.items[0].metadata.uid->in_arena());
  EXPECT_EQ(list.items[0].spec->containers.capacity(), list.items[0].spec->containers.size());
}

// Raw JSON (managedFields' fieldsV1) and enumeration values longer than a String holds inline
// ("PreemptLowerPriority") are in the object's arena like its strings, from JSON and protobuf:
// each was a heap allocation of its own per pod.
TEST(decoded_memory_test, raw_values_and_long_enumerations_live_in_the_arena) {
  const auto check = [](const core::Pod& pod) {
    ASSERT_FALSE(pod.metadata.managed_fields.empty());
    const kubex::RawJson& fields = pod.metadata.managed_fields[0].fields_v1;
    EXPECT_GT(fields.text.size(), 15U);
    EXPECT_TRUE(fields.text.in_arena());
    ASSERT_TRUE(pod.spec->preemption_policy.has_value());
    EXPECT_EQ(*pod.spec->preemption_policy, core::PodSpecPreemptionPolicy::PreemptLowerPriority);
    EXPECT_TRUE(pod.spec->preemption_policy->value().in_arena());
  };
  check(decode_json<core::PodList>(fixture("podlist-500.json")).items.at(0));
  core::PodList list;
  kubex::protobuf::decode_object(fixture("protobuf/pods.pb"), list);
  check(list.items.at(0));
}

TEST(decoded_memory_test, list_decoded_item_by_item_equals_the_whole_decode) {
  const std::string body = fixture("podlist-500.json");
  std::string fed = body;
  json::ListDecoder<core::PodList> decoder(0);
  decoder.feed(fed);
  const core::PodList items = decoder.finish(fed);
  EXPECT_EQ(items, decode_json<core::PodList>(body));
  EXPECT_EQ(items.items.capacity(), 500U);
}

TEST(decoded_memory_test, protobuf_lists_keep_no_spare_capacity) {
  core::PodList list;
  kubex::protobuf::decode_object(fixture("protobuf/pods.pb"), list);
  ASSERT_EQ(list.items.size(), 20U);
  EXPECT_EQ(list, decode_json<core::PodList>(fixture("protobuf/pods.json")));
  EXPECT_EQ(list.items.capacity(), list.items.size());
  EXPECT_EQ(list.items[0].spec->containers.capacity(), list.items[0].spec->containers.size());
}

// What ASan checks here: nothing a decoded object holds is freed with its list or arena.
TEST(decoded_memory_test, objects_outlive_their_list_moved_copied_or_on_another_thread) {
  const std::string body = fixture("podlist-500.json");
  const std::string first = json::encode(decode_json<core::PodList>(body).items[0]);
  core::Pod moved;
  core::Pod copied;
  core::PodSpec spec;
  {
    auto list = decode_json<core::PodList>(body);
    moved = std::move(list.items[0]);
    copied = list.items[1];
    spec = std::move(*list.items[2].spec);
  }
  EXPECT_EQ(json::encode(moved), first);
  EXPECT_FALSE(copied.metadata.uid->in_arena());  // a copy is on the heap
  EXPECT_FALSE(spec.containers.empty());

  auto list = decode_json<core::PodList>(body);
  std::thread other([items = std::move(list.items)]() mutable { items = {}; });
  other.join();
  EXPECT_EQ(json::encode(moved), first);
}

// A list item is decoded into an arena of its own, in JSON (item by item, the client's path)
// and in protobuf: an object kept from a list keeps only its own blocks, not the list's.
TEST(decoded_memory_test, an_item_kept_from_a_list_keeps_only_its_own_blocks) {
  const std::size_t before = kubex::arena_live_blocks();
  std::size_t with_list = 0;
  core::Pod from_json = item_of_podlist(7, &with_list);
  EXPECT_GE(with_list - before, 500U);
  EXPECT_LE(kubex::arena_live_blocks() - before, 2U);
  core::Pod from_protobuf;
  {
    core::PodList list;
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

// What runtime::drop_managed_fields does: the object cut down moves to an arena of its own
// (kubex::compact), all of its memory, and the decode's block goes back. Without compact, the
// managed fields' bytes would stay in the block the rest of the pod still uses.
TEST(decoded_memory_test, a_compacted_object_moves_to_one_new_block_and_frees_the_old) {
  const std::size_t before = kubex::arena_live_blocks();
  core::Pod pod = item_of_podlist(3);
  ASSERT_GE(kubex::arena_live_blocks() - before, 1U);  // the item's own
  ASSERT_FALSE(pod.metadata.managed_fields.empty());
  core::Pod expected = pod;
  expected.metadata.managed_fields = {};

  pod.metadata.managed_fields = {};
  kubex::compact(pod, std::size_t{64} << 10);  // one block surely holds it
  EXPECT_EQ(pod, expected);
  // Its copies went to the new arena: strings, lists, and what Boxes hold.
  EXPECT_TRUE(pod.metadata.uid->in_arena());
  EXPECT_TRUE(pod.spec->containers.in_arena());
  EXPECT_TRUE(pod.spec->containers[0].termination_message_path->in_arena());
  // The decode's blocks went back: only the new one is left.
  EXPECT_EQ(kubex::arena_live_blocks() - before, 1U);
  pod = core::Pod{};
  EXPECT_EQ(kubex::arena_live_blocks(), before);
}

TEST(decoded_memory_test, edited_after_decode_like_any_object) {
  auto pod = decode_json<core::Pod>(fixture("pod.json"));
  pod.metadata.labels["kubex.test/edited"] = "yes";
  pod.metadata.name = std::string(40, 'n');
  pod.spec->containers.push_back(pod.spec->containers.front());
  pod.spec->containers.back().name = "second";
  const auto again = decode_json<core::Pod>(json::encode(pod));
  EXPECT_EQ(again, pod);
  EXPECT_EQ(again.metadata.labels.at("kubex.test/edited"), "yes");
  EXPECT_EQ(again.spec->containers.size(), 2U);
}

// Every way of filling a Box goes through the model's own hooks, so a boxed object made while
// an arena is open is one its hooks can free (a plain new would be freed as tagged memory).
TEST(decoded_memory_test, boxes_filled_inside_a_decode_are_freed_by_their_hooks) {
  const std::size_t before = kubex::arena_live_blocks();
  {
    kubex::Arena arena(1024);
    const kubex::ArenaScope scope(&arena);
    core::PodSpec spec;
    spec.node_name = std::string(32, 'n');
    kubex::Box<core::PodSpec> from_value(spec);
    kubex::Box<core::PodSpec> emplaced;
    emplaced.emplace(spec);
    kubex::Box<core::PodSpec> assigned;
    assigned = spec;
    EXPECT_EQ(*from_value, spec);
    EXPECT_EQ(*emplaced, spec);
    EXPECT_EQ(*assigned, spec);
  }
  EXPECT_EQ(kubex::arena_live_blocks(), before);
}

}  // namespace
