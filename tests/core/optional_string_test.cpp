// SPDX-License-Identifier: Apache-2.0
// std::optional<kubex::String>, specialized to 16 bytes (string.hpp): the behaviour of
// std::optional, an absent string told apart from every present one (empty, inline at full
// length, long, in an arena), and the JSON codec of optional model members on top of it.

#include <kubex/core/arena.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/string.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using kubex::String;
using OptString = std::optional<String>;

const std::string long_text(40, 'x');

TEST(optional_string, takes_no_more_room_than_a_string) {
  static_assert(sizeof(OptString) == sizeof(String));
  EXPECT_EQ(sizeof(OptString), 16U);
}

TEST(optional_string, absent_is_apart_from_every_present_value) {
  OptString none;
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(none);
  EXPECT_EQ(none, std::nullopt);
  for (const std::string& text :
       {std::string(), std::string(15, 'a'), std::string(16, 'b'), long_text}) {
    OptString some = text;
    ASSERT_TRUE(some.has_value()) << text.size();
    EXPECT_EQ(*some, text);
    EXPECT_EQ(some->size(), text.size());
    EXPECT_NE(some, none);
  }
}

TEST(optional_string, copies_moves_and_assignments_keep_std_semantics) {
  OptString a = long_text;
  OptString b = a;  // a copy
  EXPECT_EQ(b, a);
  OptString c = std::move(a);  // a moved-from optional holds a (moved-from, empty) value
  EXPECT_TRUE(a.has_value());
  EXPECT_EQ(*a, "");
  EXPECT_EQ(c, long_text);

  OptString none;
  OptString d = std::move(none);  // a moved-from empty optional stays empty
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(d.has_value());

  d = c;
  EXPECT_EQ(d, long_text);
  d = std::nullopt;
  EXPECT_FALSE(d.has_value());
  d = "short";
  EXPECT_EQ(d, "short");
  d = std::string("from std::string");
  EXPECT_EQ(d, "from std::string");
  d = OptString();
  EXPECT_FALSE(d.has_value());
  d = std::move(c);
  EXPECT_EQ(d, long_text);
  EXPECT_EQ(c, "");

  d.emplace(3, 'z');
  EXPECT_EQ(d, "zzz");
  d.emplace();
  EXPECT_EQ(d, "");
  d.reset();
  EXPECT_FALSE(d.has_value());
  d.reset();  // twice is fine
  EXPECT_FALSE(d.has_value());

  OptString e = "e";
  OptString f;
  e.swap(f);
  EXPECT_FALSE(e.has_value());
  EXPECT_EQ(f, "e");
  std::swap(e, f);
  EXPECT_EQ(e, "e");
}

TEST(optional_string, converts_to_and_from_optional_std_string) {
  const std::optional<std::string> std_some = long_text;
  const std::optional<std::string> std_none;
  OptString a = std_some;
  OptString b = std_none;
  EXPECT_EQ(a, long_text);
  EXPECT_FALSE(b.has_value());
  std::optional<std::string> back = a;
  EXPECT_EQ(back, long_text);
  b = std_some;
  EXPECT_EQ(b, long_text);
  b = std::optional<std::string>();
  EXPECT_FALSE(b.has_value());
}

TEST(optional_string, accessors_compare_and_hash_as_std_optional) {
  const OptString none;
  EXPECT_THROW((void)none.value(), std::bad_optional_access);
  EXPECT_EQ(none.value_or("fallback"), "fallback");
  const OptString some = "a";
  EXPECT_EQ(some.value(), "a");
  EXPECT_EQ(some.value_or("fallback"), "a");
  EXPECT_EQ(OptString("moved").value(), "moved");

  EXPECT_LT(none, some);
  EXPECT_LT(some, OptString("b"));
  EXPECT_EQ(some, std::string("a"));
  EXPECT_NE(some, "b");

  std::unordered_set<OptString> set{none, some, OptString("a"), OptString(long_text)};
  EXPECT_EQ(set.size(), 3U);
  EXPECT_EQ(std::hash<OptString>{}(some), std::hash<std::optional<std::string>>{}("a"));
}

TEST(optional_string, arena_strings_stay_valid_when_moved_out_and_freed_when_reset) {
  const std::size_t blocks_before = kubex::arena_live_blocks();
  OptString kept;
  {
    kubex::Arena arena(4096);
    const kubex::ArenaScope scope(&arena);
    OptString in_arena = long_text;
    ASSERT_TRUE(in_arena->in_arena());
    kept = std::move(in_arena);
  }
  EXPECT_EQ(kept, long_text);
  EXPECT_TRUE(kept->in_arena());
  kept.reset();  // gives the block back: ASan would report a leak or a double free here
  EXPECT_EQ(kubex::arena_live_blocks(), blocks_before);
}

TEST(optional_string, json_null_and_missing_read_as_absent) {
  const auto list =
      kubex::json::decode<std::vector<OptString>>(R"(["", null, "short", ")" + long_text + "\"]");
  ASSERT_EQ(list.size(), 4U);
  EXPECT_EQ(list[0], "");
  EXPECT_FALSE(list[1].has_value());
  EXPECT_EQ(list[2], "short");
  EXPECT_EQ(list[3], long_text);
  EXPECT_EQ(kubex::json::encode(list), R"(["",null,"short",")" + long_text + "\"]");
}

}  // namespace
