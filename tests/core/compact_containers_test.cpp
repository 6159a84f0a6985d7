// SPDX-License-Identifier: Apache-2.0
// kubex's compact containers (String, Vector, Map), the Arena their decoded memory comes from,
// and their JSON codecs. Run under the asan preset too: most of what can go wrong here (memory
// read after its block went back, a block never given back) only shows there.
#include <kubex/core/arena.hpp>
#include <kubex/core/arena_stats.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kubex {
// Readable failure messages: gtest would print a String as a container of chars.
inline void PrintTo(const String& s, std::ostream* os) {
  *os << '"' << s.view() << '"';
}
}  // namespace kubex

namespace compact_json {

struct Item {
  kubex::String name;
  kubex::Vector<kubex::String> tags;
  kubex::Map<kubex::String, kubex::String> labels;
  std::int64_t count = 0;
  friend bool operator==(const Item&, const Item&) = default;
};
KUBEX_JSON_OBJECT(Item, name, tags, labels, count)

struct ItemList {
  kubex::String kind;
  kubex::Vector<Item> items;
  kubex::Map<kubex::String, kubex::Vector<std::int64_t>> ports;
  friend bool operator==(const ItemList&, const ItemList&) = default;
};
KUBEX_JSON_OBJECT(ItemList, kind, items, ports)

struct Flags {
  kubex::Vector<bool> values;
};
KUBEX_JSON_OBJECT(Flags, values)

}  // namespace compact_json

namespace {

using kubex::Arena;
using kubex::ArenaScope;
using kubex::Map;
using kubex::String;
using kubex::Vector;

// `n` characters, different for each `seed`, so that mixed-up buffers show.
std::string text(std::size_t n, std::size_t seed = 0) {
  std::string s;
  s.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(static_cast<char>('a' + (i + seed) % 26));
  }
  return s;
}

// Checks the invariants every String keeps: size, contents, NUL after the last character.
void expect_string(const String& s, std::string_view want) {
  EXPECT_EQ(s.size(), want.size());
  EXPECT_EQ(s.length(), want.size());
  EXPECT_EQ(s.empty(), want.empty());
  EXPECT_EQ(s.view(), want);
  EXPECT_EQ(s.c_str()[s.size()], '\0');
  EXPECT_EQ(s.data(), s.c_str());
  EXPECT_GE(s.capacity(), s.size());
  EXPECT_EQ(std::string(s.begin(), s.end()), want);
}

std::size_t length_of_string(const std::string& s) {
  return s.size();
}
std::size_t length_of_view(std::string_view s) {
  return s.size();
}
std::string copy_of_string(const std::string& s) {
  return s;
}
std::string copy_of_view(std::string_view s) {
  return std::string(s);
}

// ---------------------------------------------------------------------------------------------
// String

static_assert(sizeof(String) == 16);
static_assert(std::is_nothrow_move_constructible_v<String>);
static_assert(std::is_nothrow_move_assignable_v<String>);
static_assert(std::is_convertible_v<String, std::string>);
static_assert(std::is_convertible_v<String, std::string_view>);
static_assert(std::is_convertible_v<const char*, String>);
static_assert(std::is_convertible_v<std::string, String>);
static_assert(std::is_convertible_v<std::string_view, String>);

TEST(compact_string_test, IsSixteenBytes) {
  EXPECT_EQ(sizeof(String), 16U);
}

TEST(compact_string_test, DefaultIsEmpty) {
  const String s;
  expect_string(s, "");
  EXPECT_STREQ(s.c_str(), "");
  EXPECT_EQ(s.begin(), s.end());
  EXPECT_EQ(s.capacity(), 15U);
  EXPECT_FALSE(s.in_arena());
  EXPECT_EQ(s, "");
  EXPECT_EQ(s, String(""));
  EXPECT_TRUE(String("").empty());
  EXPECT_STREQ(String("").c_str(), "");
  EXPECT_TRUE(String(std::string_view()).empty());
  EXPECT_STREQ(String(std::string_view()).c_str(), "");
}

TEST(compact_string_test, NullViewIsEmpty) {
  // A default std::string_view has no data() (null): nothing is to be read from it.
  const std::string_view none;
  ASSERT_EQ(none.data(), nullptr);
  expect_string(String(none), "");
  expect_string(String(none.data(), 0), "");
  for (const std::size_t n : {3U, 30U}) {
    SCOPED_TRACE(n);
    String s(text(n));
    s.append(none);
    s += none;
    expect_string(s, text(n));
    s = none;
    expect_string(s, "");
    s.assign(none);
    s.append(none);
    expect_string(s, "");
  }
}

TEST(compact_string_test, InlineBoundary) {
  for (const std::size_t n : {0U, 1U, 14U, 15U, 16U, 100U}) {
    SCOPED_TRACE(n);
    const std::string want = text(n, n);
    const String from_view{std::string_view(want)};
    const String from_string{want};
    const String from_cstr{want.c_str()};
    const String from_ptr{want.data(), want.size()};
    for (const String* s : {&from_view, &from_string, &from_cstr, &from_ptr}) {
      expect_string(*s, want);
      EXPECT_EQ(std::strlen(s->c_str()), n);
      EXPECT_FALSE(s->in_arena());
      if (n <= 15) {
        EXPECT_EQ(s->capacity(), 15U);  // inline
      } else {
        EXPECT_GE(s->capacity(), n);
      }
    }
    // Inline characters live inside the object, long ones outside it.
    const auto* begin = reinterpret_cast<const char*>(&from_view);
    const bool inside = from_view.data() >= begin && from_view.data() < begin + sizeof(String);
    EXPECT_EQ(inside, n <= 15);
  }
}

TEST(compact_string_test, FillConstructor) {
  expect_string(String(0, 'x'), "");
  expect_string(String(3, 'x'), "xxx");
  expect_string(String(15, 'y'), std::string(15, 'y'));
  expect_string(String(40, 'z'), std::string(40, 'z'));
  EXPECT_EQ(String(3, 'x').capacity(), 15U);  // short: inline
}

TEST(compact_string_test, EmbeddedNul) {
  const std::string_view raw("a\0b", 3);
  const String s(raw);
  EXPECT_EQ(s.size(), 3U);
  EXPECT_EQ(s, raw);
  EXPECT_EQ(s, std::string(raw));
  EXPECT_NE(s, "a");  // a const char* stops at its NUL
  const String longer(std::string(20, '\0') + "tail");
  EXPECT_EQ(longer.size(), 24U);
  EXPECT_TRUE(longer.ends_with("tail"));
}

TEST(compact_string_test, CopyIsDeepAndIndependent) {
  for (const std::size_t n : {5U, 15U, 16U, 60U}) {
    SCOPED_TRACE(n);
    const std::string want = text(n);
    String original(want);
    String copy(original);
    expect_string(copy, want);
    if (n > 15) {
      EXPECT_NE(copy.data(), original.data());
    }
    copy[0] = '#';
    expect_string(original, want);
    EXPECT_EQ(copy[0], '#');

    String assigned("something else");
    assigned = original;
    expect_string(assigned, want);
    assigned[n - 1] = '!';
    expect_string(original, want);
  }
}

TEST(compact_string_test, MoveLeavesSourceEmpty) {
  for (const std::size_t n : {0U, 7U, 15U, 16U, 80U}) {
    SCOPED_TRACE(n);
    const std::string want = text(n, 3);
    String source(want);
    const char* chars = source.data();
    String moved(std::move(source));
    expect_string(moved, want);
    expect_string(source, "");  // NOLINT(bugprone-use-after-move): moved-from is specified empty
    EXPECT_STREQ(source.c_str(), "");
    if (n > 15) {
      EXPECT_EQ(moved.data(), chars);  // the characters were taken, not copied
    }

    String target(text(50, 9));  // a long string to be freed by the assignment
    target = std::move(moved);
    expect_string(target, want);
    expect_string(moved, "");  // NOLINT(bugprone-use-after-move)

    // A moved-from string is usable again.
    moved = "again";
    expect_string(moved, "again");
    source.append(text(30));
    expect_string(source, text(30));
  }
}

TEST(compact_string_test, SelfAssignment) {
  for (const std::size_t n : {4U, 15U, 30U}) {
    SCOPED_TRACE(n);
    const std::string want = text(n);
    String s(want);
    const String& same = s;
    s = same;
    expect_string(s, want);
    String& also = s;
    s = std::move(also);
    expect_string(s, want);
    s = s.view();
    expect_string(s, want);
    s.assign(s.view());
    expect_string(s, want);
  }
}

TEST(compact_string_test, AssignReusesCapacity) {
  String s(text(40));
  const char* chars = s.data();
  const std::size_t cap = s.capacity();
  EXPECT_GE(cap, 40U);

  s = text(30, 1);
  expect_string(s, text(30, 1));
  EXPECT_EQ(s.data(), chars);
  EXPECT_EQ(s.capacity(), cap);

  s = "abc";  // shorter than inline, still reuses the buffer it holds
  expect_string(s, "abc");
  EXPECT_EQ(s.data(), chars);
  EXPECT_EQ(s.capacity(), cap);

  s = std::string(text(40, 2));
  expect_string(s, text(40, 2));
  EXPECT_EQ(s.data(), chars);

  s = std::string_view(text(100, 3));  // too long: new memory
  expect_string(s, text(100, 3));
  EXPECT_GE(s.capacity(), 100U);

  String small("tiny");
  small = "fifteen chars!!";
  expect_string(small, "fifteen chars!!");
  EXPECT_EQ(small.capacity(), 15U);
  small = "";
  expect_string(small, "");
}

TEST(compact_string_test, AssignFromViewIntoItself) {
  String inline_string("abcdefgh");
  inline_string = inline_string.view().substr(2);
  expect_string(inline_string, "cdefgh");
  inline_string = inline_string.view().substr(0, 3);
  expect_string(inline_string, "cde");

  const std::string long_text = text(40);
  String long_string(long_text);
  long_string = long_string.view().substr(2);
  expect_string(long_string, std::string_view(long_text).substr(2));
  long_string = long_string.view().substr(5, 20);
  expect_string(long_string, std::string_view(long_text).substr(7, 20));
  long_string.assign(long_string.view().substr(1, 4));
  expect_string(long_string, std::string_view(long_text).substr(8, 4));

  // From a view into another string that the assignment itself replaces is not possible, but a
  // view into a string that is then destroyed must have been copied.
  String target;
  {
    const String source(text(64, 5));
    target = source.view();
  }
  expect_string(target, text(64, 5));
}

TEST(compact_string_test, Append) {
  String s("hello");
  s.append(", ");
  s += "world";
  expect_string(s, "hello, world");
  EXPECT_EQ(s.capacity(), 15U);
  s += std::string("!!!");  // 15: still inline
  expect_string(s, "hello, world!!!");
  EXPECT_EQ(s.capacity(), 15U);
  s += '?';  // 16: long
  expect_string(s, "hello, world!!!?");
  s += String(" and more");
  expect_string(s, "hello, world!!!? and more");
  s += std::string_view(text(100));
  expect_string(s, "hello, world!!!? and more" + text(100));

  String grown;
  std::string want;
  for (std::size_t i = 0; i < 200; ++i) {
    const std::string piece = text(i % 7, i);
    grown.append(piece);
    want += piece;
    ASSERT_EQ(grown.view(), want);
    ASSERT_EQ(grown.c_str()[grown.size()], '\0');
  }
}

TEST(compact_string_test, AppendViewOfItself) {
  String inline_string("abcdefghij");  // 10 + 10: grows out of the inline buffer
  inline_string.append(inline_string.view());
  expect_string(inline_string, "abcdefghijabcdefghij");

  String small("abc");  // 3 + 3: stays inline
  small.append(small.view());
  expect_string(small, "abcabc");
  small += small;
  expect_string(small, "abcabcabcabc");

  const std::string long_text = text(40);
  String no_room(long_text);  // needs new memory
  no_room.append(no_room.view());
  expect_string(no_room, long_text + long_text);

  String room(long_text);
  room.reserve(200);  // fits: appended in place
  const char* chars = room.data();
  room.append(room.view().substr(10, 5));
  expect_string(room, long_text + long_text.substr(10, 5));
  room += room;
  const std::string doubled = long_text + long_text.substr(10, 5);
  expect_string(room, doubled + doubled);
  EXPECT_EQ(room.data(), chars);
}

TEST(compact_string_test, Resize) {
  String s("abc");
  s.resize(6, 'z');
  expect_string(s, "abczzz");
  EXPECT_EQ(s.capacity(), 15U);  // still inline
  s.resize(2);
  expect_string(s, "ab");
  s.resize(20, 'q');
  expect_string(s, "ab" + std::string(18, 'q'));
  s.resize(5);
  expect_string(s, "abqqq");
  s.resize(7);  // the default fills with NUL characters
  EXPECT_EQ(s.size(), 7U);
  EXPECT_EQ(s.view(), std::string_view("abqqq\0\0", 7));
  s.resize(0);
  expect_string(s, "");

  // Growing within the capacity it has keeps the memory.
  String big(text(64));
  const char* chars = big.data();
  big.resize(10);
  big.resize(50, '-');
  expect_string(big, text(10) + std::string(40, '-'));
  EXPECT_EQ(big.data(), chars);

  String empty;
  empty.resize(15, 'e');
  expect_string(empty, std::string(15, 'e'));
  EXPECT_EQ(empty.capacity(), 15U);
}

TEST(compact_string_test, ReserveClearSwap) {
  String s("short");
  s.reserve(10);  // fits inline already
  EXPECT_EQ(s.capacity(), 15U);
  s.reserve(100);
  EXPECT_GE(s.capacity(), 100U);
  expect_string(s, "short");
  const char* chars = s.data();
  s.append(text(90));
  EXPECT_EQ(s.data(), chars);
  s.clear();
  expect_string(s, "");
  EXPECT_GE(s.capacity(), 100U);

  String a("inline");
  String b(text(33));
  a.swap(b);
  expect_string(a, text(33));
  expect_string(b, "inline");
}

TEST(compact_string_test, PushBack) {
  String s;
  std::string want;
  for (std::size_t i = 0; i < 100; ++i) {
    const char c = static_cast<char>('A' + i % 26);
    s.push_back(c);
    want.push_back(c);
    ASSERT_EQ(s.view(), want);
    ASSERT_EQ(s.size(), i + 1);
    ASSERT_EQ(s.c_str()[s.size()], '\0');
    ASSERT_EQ(s.back(), c);
    ASSERT_EQ(s.front(), 'A');
  }
}

TEST(compact_string_test, ElementAccessAndIteration) {
  String s(text(30));
  s[0] = 'Z';
  *(s.begin() + 1) = 'Y';
  EXPECT_TRUE(s.starts_with("ZY"));
  std::string seen;
  for (const char c : s) {
    seen.push_back(c);
  }
  EXPECT_EQ(seen, s.view());
  const String& cs = s;
  EXPECT_EQ(cs[2], 'c');
  EXPECT_EQ(cs.front(), 'Z');
  EXPECT_EQ(cs.back(), text(30).back());
}

TEST(compact_string_test, Equality) {
  for (const std::size_t n : {3U, 40U}) {
    SCOPED_TRACE(n);
    const std::string same = text(n);
    const std::string other = text(n, 1);
    const String s(same);

    EXPECT_TRUE(s == String(same));
    EXPECT_TRUE(s == std::string_view(same));
    EXPECT_TRUE(s == same.c_str());
    EXPECT_TRUE(s == same);
    EXPECT_TRUE(String(same) == s);
    EXPECT_TRUE(std::string_view(same) == s);
    EXPECT_TRUE(same.c_str() == s);
    EXPECT_TRUE(same == s);

    EXPECT_FALSE(s == String(other));
    EXPECT_FALSE(s == std::string_view(other));
    EXPECT_FALSE(s == other.c_str());
    EXPECT_FALSE(s == other);
    EXPECT_FALSE(std::string_view(other) == s);
    EXPECT_FALSE(other.c_str() == s);
    EXPECT_FALSE(other == s);

    EXPECT_TRUE(s != String(other));
    EXPECT_TRUE(s != std::string_view(other));
    EXPECT_TRUE(s != other.c_str());
    EXPECT_TRUE(s != other);
    EXPECT_TRUE(String(other) != s);
    EXPECT_TRUE(std::string_view(other) != s);
    EXPECT_TRUE(other.c_str() != s);
    EXPECT_TRUE(other != s);

    // A prefix is not equal.
    EXPECT_FALSE(s == same.substr(0, n - 1));
    EXPECT_FALSE(same.substr(0, n - 1).c_str() == s);
  }
  EXPECT_TRUE("x" == String("x"));
  EXPECT_TRUE(std::string("x") == String("x"));
  EXPECT_TRUE(String("x") == "x");
}

TEST(compact_string_test, Ordering) {
  const String b("b");
  EXPECT_TRUE(String("a") < b);
  EXPECT_TRUE(b > String("a"));
  EXPECT_TRUE(b <= String("b"));
  EXPECT_TRUE(b >= String("b"));
  EXPECT_TRUE(b < "c");
  EXPECT_TRUE("a" < b);
  EXPECT_TRUE(b > std::string_view("a"));
  EXPECT_TRUE(std::string_view("c") > b);
  EXPECT_TRUE(b < std::string("ba"));
  EXPECT_TRUE(std::string("ab") < b);
  EXPECT_FALSE(b < "b");
  EXPECT_FALSE("b" < b);
  EXPECT_EQ(b <=> String("c"), std::strong_ordering::less);
  EXPECT_EQ(b <=> "a", std::strong_ordering::greater);
  EXPECT_EQ(b <=> std::string("b"), std::strong_ordering::equal);
  EXPECT_EQ(b <=> std::string_view("bb"), std::strong_ordering::less);
  EXPECT_EQ("c" <=> b, std::strong_ordering::greater);
  EXPECT_LT(b.compare("c"), 0);
  EXPECT_EQ(b.compare("b"), 0);
  EXPECT_GT(b.compare("a"), 0);

  // Sorting agrees with std::string, inline and long mixed.
  std::vector<std::string> words;
  for (std::size_t i = 0; i < 50; ++i) {
    words.push_back(text(i % 3 == 0 ? 20 + i : i % 15, i * 7));
  }
  std::vector<String> strings(words.begin(), words.end());
  std::sort(words.begin(), words.end());
  std::sort(strings.begin(), strings.end());
  ASSERT_EQ(strings.size(), words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    EXPECT_EQ(strings[i], words[i]);
  }
  const std::set<String> set(strings.begin(), strings.end());
  EXPECT_EQ(set.size(), std::set<std::string>(words.begin(), words.end()).size());
}

TEST(compact_string_test, Concatenation) {
  const String s("ab");
  static_assert(std::is_same_v<decltype(s + s), std::string>);
  static_assert(std::is_same_v<decltype(s + "x"), std::string>);
  static_assert(std::is_same_v<decltype("x" + s), std::string>);
  static_assert(std::is_same_v<decltype(s + std::string_view("x")), std::string>);
  static_assert(std::is_same_v<decltype(std::string_view("x") + s), std::string>);
  static_assert(std::is_same_v<decltype(s + std::string("x")), std::string>);
  static_assert(std::is_same_v<decltype(std::string("x") + s), std::string>);
  static_assert(std::is_same_v<decltype(s + 'x'), std::string>);
  EXPECT_EQ(s + s, "abab");
  EXPECT_EQ(s + String("cd"), "abcd");
  EXPECT_EQ(s + "cd", "abcd");
  EXPECT_EQ("cd" + s, "cdab");
  EXPECT_EQ(s + std::string_view("cd"), "abcd");
  EXPECT_EQ(std::string_view("cd") + s, "cdab");
  EXPECT_EQ(s + std::string("cd"), "abcd");
  EXPECT_EQ(std::string("cd") + s, "cdab");
  EXPECT_EQ(s + 'c', "abc");
  const String longer(text(30));
  EXPECT_EQ(longer + s, text(30) + "ab");
  EXPECT_EQ("/" + longer + "/", "/" + text(30) + "/");
}

TEST(compact_string_test, ConvertsToStdStrings) {
  const String s(text(25));
  EXPECT_EQ(length_of_string(s), 25U);
  EXPECT_EQ(length_of_view(s), 25U);
  EXPECT_EQ(copy_of_string(s), text(25));
  EXPECT_EQ(copy_of_view(s), text(25));
  const std::string str = s;
  const std::string_view view = s;
  EXPECT_EQ(str, text(25));
  EXPECT_EQ(view, text(25));
  EXPECT_EQ(view.data(), s.data());  // a view, not a copy
  EXPECT_EQ(s.str(), text(25));
  const String empty;
  EXPECT_EQ(copy_of_string(empty), "");
  EXPECT_EQ(length_of_view(empty), 0U);
}

TEST(compact_string_test, HashMatchesStringView) {
  for (const std::size_t n : {0U, 5U, 15U, 16U, 70U}) {
    const std::string want = text(n);
    EXPECT_EQ(std::hash<String>{}(String(want)), std::hash<std::string_view>{}(want));
    EXPECT_EQ(std::hash<String>{}(String(want)), std::hash<std::string>{}(want));
  }
  std::unordered_set<String> set;
  set.insert("one");
  set.insert(String(text(40)));
  set.insert("one");
  EXPECT_EQ(set.size(), 2U);
  EXPECT_EQ(set.count(String(text(40))), 1U);
  EXPECT_EQ(set.count(String("two")), 0U);
}

TEST(compact_string_test, Streams) {
  std::ostringstream os;
  os << String("abc") << '|' << String(text(30)) << '|' << String() << '|'
     << String(std::string_view("x\0y", 3));
  EXPECT_EQ(os.str(), "abc|" + text(30) + "||" + std::string("x\0y", 3));
}

TEST(compact_string_test, Searching) {
  const String s("kube-apiserver.kube-system.svc");
  EXPECT_EQ(s.find("kube"), 0U);
  EXPECT_EQ(s.find("kube", 1), 15U);
  EXPECT_EQ(s.find('.'), 14U);
  EXPECT_EQ(s.find("nope"), String::npos);
  EXPECT_EQ(s.rfind("kube"), 15U);
  EXPECT_EQ(s.rfind('.'), 26U);
  EXPECT_TRUE(s.starts_with("kube-api"));
  EXPECT_FALSE(s.starts_with("api"));
  EXPECT_TRUE(s.ends_with(".svc"));
  EXPECT_FALSE(s.ends_with(".cluster"));
  EXPECT_TRUE(s.contains("system"));
  EXPECT_FALSE(s.contains("System"));
  EXPECT_EQ(s.substr(5, 9), "apiserver");
  EXPECT_EQ(s.substr(27), "svc");
  EXPECT_EQ(s.substr(), s.view());
  EXPECT_THROW((void)s.substr(100), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------
// Arena

TEST(arena_test, CurrentArenaFollowsScopes) {
  EXPECT_EQ(kubex::current_arena(), nullptr);
  Arena outer;
  Arena inner;
  {
    const ArenaScope a(&outer);
    EXPECT_EQ(kubex::current_arena(), &outer);
    {
      const ArenaScope b(&inner);
      EXPECT_EQ(kubex::current_arena(), &inner);
      {
        const ArenaScope heap(nullptr);
        EXPECT_EQ(kubex::current_arena(), nullptr);
      }
      EXPECT_EQ(kubex::current_arena(), &inner);
    }
    EXPECT_EQ(kubex::current_arena(), &outer);
    // Another thread has no current arena.
    Arena* seen = &inner;
    std::thread([&seen] { seen = kubex::current_arena(); }).join();
    EXPECT_EQ(seen, nullptr);
  }
  EXPECT_EQ(kubex::current_arena(), nullptr);
}

TEST(arena_test, AllocateAlignsAndCounts) {
  auto arena = std::make_unique<Arena>(128);
  EXPECT_EQ(arena->used(), 0U);
  EXPECT_EQ(arena->blocks(), 0U);
  std::vector<std::pair<void*, std::size_t>> given;
  std::size_t used = 0;
  for (const std::size_t n : {1U, 7U, 8U, 9U, 100U, 3U, 64U, 500U, 16U}) {
    void* p = arena->allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 8, 0U);
    std::memset(p, static_cast<int>(n), n);
    EXPECT_GE(arena->used(), used + n);
    used = arena->used();
    given.emplace_back(p, n);
  }
  EXPECT_GE(arena->blocks(), 2U);  // 128 bytes could not hold it all
  // No two allocations overlap.
  for (const auto& [p, n] : given) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(bytes[i], static_cast<unsigned char>(n));
    }
  }
  // Half given back while the arena lives, half after it is gone.
  for (std::size_t i = 0; i < given.size(); i += 2) {
    kubex::arena_release(given[i].first);
  }
  arena.reset();
  for (std::size_t i = 1; i < given.size(); i += 2) {
    std::memset(given[i].first, 0, given[i].second);  // still writable
    kubex::arena_release(given[i].first);
  }
}

TEST(arena_test, AllocationLargerThanABlock) {
  Arena arena(64);
  void* p = arena.allocate(100000);
  std::memset(p, 1, 100000);
  EXPECT_EQ(arena.blocks(), 1U);
  EXPECT_GE(arena.used(), 100000U);
  void* q = arena.allocate(8);
  std::memset(q, 2, 8);
  EXPECT_EQ(static_cast<const unsigned char*>(p)[99999], 1);
  kubex::arena_release(p);
  kubex::arena_release(q);
}

TEST(arena_test, UnusedArenaAndReleasedDuringUse) {
  { const Arena unused; }
  {
    Arena arena;
    const ArenaScope scope(&arena);
    for (std::size_t i = 0; i < 100; ++i) {
      const String s(text(50, i));  // given back at once, while the block is open
      ASSERT_TRUE(s.in_arena());
      ASSERT_EQ(s, text(50, i));
    }
    EXPECT_GE(arena.blocks(), 1U);
  }
}

TEST(arena_test, ContainersInScopeUseTheArena) {
  Arena arena;
  std::optional<String> long_string;
  std::optional<String> short_string;
  std::optional<String> filled;
  std::optional<Vector<int>> numbers;
  std::optional<Vector<int>> empty_numbers;
  std::optional<Vector<String>> strings;
  {
    const ArenaScope scope(&arena);
    long_string.emplace(text(40));
    const std::size_t used = arena.used();
    short_string.emplace("short");
    filled.emplace(5, 'x');
    empty_numbers.emplace();
    EXPECT_EQ(arena.used(), used);  // nothing inline takes arena memory
    numbers.emplace(Vector<int>{1, 2, 3});
    strings.emplace();
    strings->push_back(text(20));
    strings->push_back("s");
    EXPECT_GT(arena.used(), used);
  }
  EXPECT_TRUE(long_string->in_arena());
  EXPECT_FALSE(short_string->in_arena());
  EXPECT_FALSE(filled->in_arena());
  EXPECT_EQ(filled->capacity(), 15U);
  EXPECT_TRUE(numbers->in_arena());
  EXPECT_FALSE(empty_numbers->in_arena());
  EXPECT_TRUE(strings->in_arena());
  EXPECT_TRUE((*strings)[0].in_arena());
  EXPECT_FALSE((*strings)[1].in_arena());

  // Outside the scope, the heap.
  const String heap(text(40));
  Vector<int> heap_numbers{1, 2, 3};
  EXPECT_FALSE(heap.in_arena());
  EXPECT_FALSE(heap_numbers.in_arena());
}

TEST(arena_test, ContainersOutliveTheArena) {
  auto arena = std::make_unique<Arena>();
  std::optional<String> s;
  std::optional<Vector<String>> strings;
  std::optional<Vector<Vector<int>>> nested;
  std::optional<Map<String, String>> map;
  {
    const ArenaScope scope(arena.get());
    s.emplace(text(100));
    strings.emplace();
    for (std::size_t i = 0; i < 20; ++i) {
      strings->emplace_back(text(20 + i, i));
    }
    nested.emplace();
    for (int i = 0; i < 10; ++i) {
      nested->emplace_back().push_back(i);
    }
    map.emplace();
    for (std::size_t i = 0; i < 20; ++i) {
      (*map)[text(16 + i, i)] = text(30, i);
    }
  }
  arena.reset();  // first the arena

  EXPECT_TRUE(s->in_arena());
  expect_string(*s, text(100));
  ASSERT_EQ(strings->size(), 20U);
  for (std::size_t i = 0; i < 20; ++i) {
    expect_string((*strings)[i], text(20 + i, i));
  }
  ASSERT_EQ(nested->size(), 10U);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ((*nested)[i], (std::vector<int>{static_cast<int>(i)}));
  }
  EXPECT_EQ(map->size(), 20U);
  EXPECT_EQ(map->at(text(20, 4)), text(30, 4));

  // Then the containers, in an order unrelated to how they were made; changing them first
  // (growing moves out of the arena's memory, which must be given back).
  strings->push_back(text(50));
  (*map)[text(60)] = "new";
  nested.reset();
  s.reset();
  map.reset();
  strings.reset();
}

TEST(arena_test, CopyInScopeIsOnTheHeap) {
  Arena arena;
  const ArenaScope scope(&arena);
  const String original(text(40));
  const Vector<String> list{String(text(30)), String(text(31))};
  ASSERT_TRUE(original.in_arena());
  ASSERT_TRUE(list.in_arena());

  const String copy(original);  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_FALSE(copy.in_arena());
  expect_string(copy, text(40));

  const Vector<String> list_copy(list);  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_FALSE(list_copy.in_arena());
  for (const String& e : list_copy) {
    EXPECT_FALSE(e.in_arena());
  }
  EXPECT_EQ(list_copy, list);

  Vector<String> assigned;
  assigned = list;
  EXPECT_FALSE(assigned.in_arena());
  EXPECT_EQ(assigned, list);
}

TEST(arena_test, MovedOutStringSurvivesArenaAndOriginal) {
  String kept;
  Vector<String> kept_list;
  {
    Arena arena;
    const ArenaScope scope(&arena);
    String original(text(70));
    Vector<String> list;
    list.push_back(text(45));
    kept = std::move(original);
    kept_list = std::move(list);
    EXPECT_TRUE(original.empty());  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(list.empty());      // NOLINT(bugprone-use-after-move)
  }                                 // the scope, the original, the arena
  EXPECT_TRUE(kept.in_arena());
  expect_string(kept, text(70));
  ASSERT_EQ(kept_list.size(), 1U);
  expect_string(kept_list[0], text(45));
  kept = "replaced by something long enough to need memory";  // reuses the arena's memory
  expect_string(kept, "replaced by something long enough to need memory");
}

TEST(arena_test, ManyAllocationsBeyondTheFirstBlock) {
  std::vector<String> strings;
  strings.reserve(1000);
  {
    Arena arena(64);
    const ArenaScope scope(&arena);
    std::size_t used = arena.used();
    for (std::size_t i = 0; i < 1000; ++i) {
      strings.emplace_back(text(20 + i % 50, i));
      ASSERT_TRUE(strings.back().in_arena());
      ASSERT_GT(arena.used(), used);
      used = arena.used();
    }
    EXPECT_GT(arena.blocks(), 1U);
    EXPECT_GE(arena.used(), 1000U * 20U);
  }
  for (std::size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(strings[i], text(20 + i % 50, i)) << i;
  }
  // Some given back now, the rest with the vector.
  strings.erase(strings.begin() + 100, strings.begin() + 900);
  EXPECT_EQ(strings[100], text(20 + 900 % 50, 900));
}

// arena_stats() counts, per closed block, what it handed out: each allocation with the word
// before it that names its block, rounded to 8.
TEST(arena_test, StatsCountWhatClosedBlocksHandedOut) {
  const kubex::ArenaStats before = kubex::arena_stats();
  {
    Arena arena(1000);
    void* p = arena.allocate(10);   // 8 + 16
    void* q = arena.allocate(100);  // 8 + 104
    kubex::arena_release(p);
    const kubex::ArenaStats open = kubex::arena_stats();
    EXPECT_EQ(open.blocks, before.blocks);  // counted when the block closes
    kubex::arena_release(q);
  }
  const kubex::ArenaStats after = kubex::arena_stats();
  EXPECT_EQ(after.blocks - before.blocks, 1U);
  EXPECT_EQ(after.allocations - before.allocations, 2U);
  EXPECT_EQ(after.used_bytes - before.used_bytes, 24U + 112U);
  EXPECT_GE(after.block_bytes - before.block_bytes, 1000U);  // the size asked for, and more
}

// A freed block stays with the thread for its next decodes (arena.cpp: a list freed at once
// would otherwise go back to the kernel and fault in again), unless AddressSanitizer is on.
TEST(arena_test, FreedBlocksAreReusedByTheThread) {
  if (!kubex::arena_caches_blocks()) {
    GTEST_SKIP() << "the block cache is off under AddressSanitizer";
  }
  const auto block_of = [](void* p) {
    return *(static_cast<void**>(p) - 1);
  };
  void* first = nullptr;
  {
    Arena arena(3000);
    void* p = arena.allocate(100);
    first = block_of(p);
    kubex::arena_release(p);
  }
  {
    Arena arena(3000);  // the same size class
    void* p = arena.allocate(100);
    EXPECT_EQ(block_of(p), first);
    kubex::arena_release(p);
  }
  {
    Arena arena(2200);  // smaller: a cached block up to 1 KiB larger serves, all of it usable
    void* p = arena.allocate(100);
    void* q = arena.allocate(2800);
    EXPECT_EQ(block_of(p), first);
    EXPECT_EQ(block_of(q), first);
    EXPECT_EQ(arena.blocks(), 1U);
    std::memset(q, 1, 2800);
    kubex::arena_release(p);
    kubex::arena_release(q);
  }
  {
    Arena arena(60000);  // another size: a block of its own
    void* p = arena.allocate(100);
    EXPECT_NE(block_of(p), first);
    kubex::arena_release(p);
  }
}

TEST(arena_test, DestroyedOnAnotherThread) {
  auto strings = std::make_unique<std::vector<String>>();
  auto list = std::make_unique<Vector<String>>();
  {
    Arena arena(256);
    const ArenaScope scope(&arena);
    for (std::size_t i = 0; i < 300; ++i) {
      strings->emplace_back(text(40, i));
      list->push_back(text(33, i));
    }
  }
  std::thread worker([s = std::move(strings), l = std::move(list)]() mutable {
    for (std::size_t i = 0; i < 300; ++i) {
      EXPECT_EQ((*s)[i], text(40, i));
      EXPECT_EQ((*l)[i], text(33, i));
    }
    s.reset();
    l.reset();
  });
  worker.join();
}

TEST(arena_test, ReleasedOnAnotherThreadWhileTheArenaAllocates) {
  std::vector<String> second;
  Arena arena(256);
  std::vector<String> first;
  {
    const ArenaScope scope(&arena);
    for (std::size_t i = 0; i < 2000; ++i) {
      first.emplace_back(text(24, i));
    }
  }
  std::thread worker([v = std::move(first)]() mutable {
    for (std::size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(v[i], text(24, i));
      v[i] = String();  // releases the arena memory, one by one
    }
  });
  {
    const ArenaScope scope(&arena);
    for (std::size_t i = 0; i < 2000; ++i) {
      second.emplace_back(text(24, i + 1));
    }
  }
  worker.join();
  for (std::size_t i = 0; i < second.size(); ++i) {
    ASSERT_EQ(second[i], text(24, i + 1));
  }
}

// ---------------------------------------------------------------------------------------------
// Vector

// Counts the objects alive, to catch elements destroyed twice or never.
struct Tracked {
  static inline int live = 0;
  int value = 0;
  Tracked() noexcept { ++live; }
  Tracked(int v) noexcept : value(v) { ++live; }  // NOLINT(google-explicit-constructor)
  Tracked(const Tracked& o) noexcept : value(o.value) { ++live; }
  Tracked(Tracked&& o) noexcept : value(o.value) {
    o.value = -1;
    ++live;
  }
  Tracked& operator=(const Tracked& o) noexcept = default;
  Tracked& operator=(Tracked&& o) noexcept {
    value = o.value;
    o.value = -1;
    return *this;
  }
  ~Tracked() { --live; }
  friend bool operator==(const Tracked& a, const Tracked& b) noexcept { return a.value == b.value; }
};

struct alignas(32) Wide {
  double d[4] = {};
};

static_assert(sizeof(Vector<int>) == 16);
static_assert(sizeof(Vector<String>) == 16);
static_assert(sizeof(Map<String, String>) == 16);
static_assert(std::is_nothrow_move_constructible_v<Vector<String>>);
static_assert(std::is_same_v<decltype(std::declval<Vector<bool>&>()[0]), bool&>);

TEST(compact_vector_test, IsSixteenBytes) {
  EXPECT_EQ(sizeof(Vector<int>), 16U);
  EXPECT_EQ(sizeof(Vector<String>), 16U);
  EXPECT_EQ(sizeof(Vector<Wide>), 16U);
}

TEST(compact_vector_test, DefaultAndInitializerList) {
  const Vector<int> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_EQ(empty.capacity(), 0U);
  EXPECT_EQ(empty.begin(), empty.end());
  EXPECT_FALSE(empty.in_arena());

  const Vector<int> v{3, 1, 2};
  EXPECT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v[2], 2);
  EXPECT_EQ(v.front(), 3);
  EXPECT_EQ(v.back(), 2);
  EXPECT_EQ(v, (std::vector<int>{3, 1, 2}));
  EXPECT_EQ(std::vector<int>(v.rbegin(), v.rend()), (std::vector<int>{2, 1, 3}));

  Vector<int> assigned{9};
  assigned = {4, 5};
  EXPECT_EQ(assigned, (std::vector<int>{4, 5}));

  EXPECT_EQ(Vector<int>(3), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(Vector<int>(2, 7), (std::vector<int>{7, 7}));
  const std::vector<String> source{"a", String(text(30))};
  const Vector<String> from_std(source);
  EXPECT_EQ(from_std, source);
  const std::list<int> list{1, 2, 3};
  EXPECT_EQ(Vector<int>(list.begin(), list.end()), (std::vector<int>{1, 2, 3}));
  std::istringstream in("4 5 6");
  const Vector<int> from_input{std::istream_iterator<int>(in), std::istream_iterator<int>()};
  EXPECT_EQ(from_input, (std::vector<int>{4, 5, 6}));
}

TEST(compact_vector_test, PushBackAndEmplaceBack) {
  Vector<int> v;
  std::vector<int> want;
  for (int i = 0; i < 1000; ++i) {
    if (i % 2 == 0) {
      v.push_back(i);
    } else {
      EXPECT_EQ(v.emplace_back(i), i);
    }
    want.push_back(i);
    ASSERT_GE(v.capacity(), v.size());
  }
  EXPECT_EQ(v, want);

  Vector<String> strings;
  String moved(text(40));
  strings.push_back(moved);
  strings.push_back(std::move(moved));
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  strings.emplace_back(5, 'x');
  strings.emplace_back("literal");
  EXPECT_EQ(strings, (std::vector<String>{text(40), text(40), "xxxxx", "literal"}));
}

TEST(compact_vector_test, PushBackOfOwnElementAtCapacity) {
  Vector<String> strings;
  strings.push_back(text(40));
  while (strings.size() < strings.capacity()) {
    strings.push_back(text(41, strings.size()));
  }
  ASSERT_EQ(strings.size(), strings.capacity());
  strings.push_back(strings[0]);  // the reference is into the storage that grows
  EXPECT_EQ(strings.back(), text(40));
  while (strings.size() < strings.capacity()) {
    strings.push_back(text(41, strings.size()));
  }
  strings.emplace_back(strings.back());
  EXPECT_EQ(strings[strings.size() - 1], strings[strings.size() - 2]);
  while (strings.size() < strings.capacity()) {
    strings.push_back(text(41, strings.size()));
  }
  const std::size_t last = strings.size() - 1;
  strings.insert(strings.begin(), strings[last]);
  EXPECT_EQ(strings.front(), strings.back());

  Vector<int> numbers{1, 2, 3, 4};
  ASSERT_EQ(numbers.size(), numbers.capacity());
  numbers.push_back(numbers[2]);
  EXPECT_EQ(numbers, (std::vector<int>{1, 2, 3, 4, 3}));

  Vector<Vector<int>> nested{{1, 2}, {3}};
  ASSERT_EQ(nested.size(), nested.capacity());
  nested.push_back(nested[0]);
  EXPECT_EQ(nested[2], (std::vector<int>{1, 2}));
}

TEST(compact_vector_test, PopBack) {
  Vector<String> v{"a", String(text(30)), "c"};
  v.pop_back();
  EXPECT_EQ(v, (std::vector<String>{"a", text(30)}));
  v.pop_back();
  v.pop_back();
  EXPECT_TRUE(v.empty());
  v.push_back("again");
  EXPECT_EQ(v.size(), 1U);
}

TEST(compact_vector_test, Insert) {
  Vector<String> v{"b", "d"};
  auto it = v.insert(v.begin(), "a");
  EXPECT_EQ(it, v.begin());
  EXPECT_EQ(*it, "a");
  it = v.insert(v.begin() + 2, String(text(20)));
  EXPECT_EQ(it - v.begin(), 2);
  EXPECT_EQ(*it, text(20));
  it = v.insert(v.end(), "e");
  EXPECT_EQ(it, v.end() - 1);
  const String c("c");
  v.insert(v.begin() + 2, c);
  EXPECT_EQ(v, (std::vector<String>{"a", "b", "c", text(20), "d", "e"}));

  Vector<int> empty;
  empty.insert(empty.end(), 1);
  EXPECT_EQ(empty, (std::vector<int>{1}));
}

TEST(compact_vector_test, RangeInsert) {
  Vector<int> v{1, 5};
  const std::vector<int> middle{2, 3, 4};
  auto it = v.insert(v.begin() + 1, middle.begin(), middle.end());
  EXPECT_EQ(it - v.begin(), 1);
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3, 4, 5}));
  const std::list<int> front{-1, 0};
  it = v.insert(v.begin(), front.begin(), front.end());
  EXPECT_EQ(it, v.begin());
  std::istringstream in("6 7");
  v.insert(v.end(), std::istream_iterator<int>(in), std::istream_iterator<int>());
  EXPECT_EQ(v, (std::vector<int>{-1, 0, 1, 2, 3, 4, 5, 6, 7}));
  it = v.insert(v.begin() + 3, middle.end(), middle.end());  // nothing
  EXPECT_EQ(it - v.begin(), 3);
  EXPECT_EQ(v.size(), 9U);
}

TEST(compact_vector_test, Erase) {
  Vector<String> v{"a", "b", String(text(30)), "d", "e"};
  auto it = v.erase(v.begin() + 1);
  EXPECT_EQ(*it, text(30));
  EXPECT_EQ(v, (std::vector<String>{"a", text(30), "d", "e"}));
  it = v.erase(v.begin() + 1, v.begin() + 3);
  EXPECT_EQ(*it, "e");
  EXPECT_EQ(v, (std::vector<String>{"a", "e"}));
  it = v.erase(v.begin() + 1, v.begin() + 1);  // an empty range
  EXPECT_EQ(it - v.begin(), 1);
  EXPECT_EQ(v.size(), 2U);
  it = v.erase(v.end() - 1);
  EXPECT_EQ(it, v.end());
  it = v.erase(v.begin(), v.end());
  EXPECT_EQ(it, v.end());
  EXPECT_TRUE(v.empty());

  // erase, remove idiom.
  Vector<int> numbers{1, 2, 3, 4, 5, 6};
  numbers.erase(std::remove_if(numbers.begin(), numbers.end(), [](int x) { return x % 2 == 0; }),
                numbers.end());
  EXPECT_EQ(numbers, (std::vector<int>{1, 3, 5}));
}

TEST(compact_vector_test, Resize) {
  Vector<int> v{1, 2};
  v.resize(5, 7);
  EXPECT_EQ(v, (std::vector<int>{1, 2, 7, 7, 7}));
  v.resize(2);
  EXPECT_EQ(v, (std::vector<int>{1, 2}));
  v.resize(4);
  EXPECT_EQ(v, (std::vector<int>{1, 2, 0, 0}));
  v.resize(0);
  EXPECT_TRUE(v.empty());

  Vector<String> strings;
  strings.resize(3, String(text(20)));
  EXPECT_EQ(strings, (std::vector<String>{text(20), text(20), text(20)}));
  strings.resize(1);
  strings.resize(2);
  EXPECT_EQ(strings, (std::vector<String>{text(20), ""}));
}

TEST(compact_vector_test, ReserveAndCapacity) {
  Vector<int> v;
  v.reserve(50);
  EXPECT_GE(v.capacity(), 50U);
  EXPECT_TRUE(v.empty());
  const int* storage = v.data();
  for (int i = 0; i < 50; ++i) {
    v.push_back(i);
  }
  EXPECT_EQ(v.data(), storage);  // no growth within the reserve
  v.reserve(10);                 // never shrinks
  EXPECT_GE(v.capacity(), 50U);
  v.push_back(50);
  EXPECT_GT(v.capacity(), 50U);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_GT(v.capacity(), 50U);
  v.push_back(1);
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 1U);
  EXPECT_EQ(v, (std::vector<int>{1}));
}

TEST(compact_vector_test, AtChecksTheIndex) {
  Vector<int> v{1, 2, 3};
  EXPECT_EQ(v.at(2), 3);
  v.at(1) = 20;
  EXPECT_EQ(v[1], 20);
  EXPECT_THROW((void)v.at(3), std::out_of_range);
  const Vector<int>& cv = v;
  EXPECT_EQ(cv.at(0), 1);
  EXPECT_THROW((void)cv.at(100), std::out_of_range);
  EXPECT_THROW((void)Vector<int>().at(0), std::out_of_range);
}

TEST(compact_vector_test, Comparison) {
  const Vector<int> a{1, 2, 3};
  EXPECT_TRUE(a == (Vector<int>{1, 2, 3}));
  EXPECT_FALSE(a == (Vector<int>{1, 2}));
  EXPECT_FALSE(a == (Vector<int>{1, 2, 4}));
  EXPECT_TRUE(a != (Vector<int>{1, 2, 4}));
  EXPECT_TRUE(a == (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE((std::vector<int>{1, 2, 3}) == a);
  EXPECT_FALSE(a == (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(a != (std::vector<int>{3, 2, 1}));
  EXPECT_TRUE(Vector<int>() == std::vector<int>());
  EXPECT_TRUE(a < (Vector<int>{1, 3}));
  EXPECT_TRUE((Vector<int>{1, 2}) < a);
  EXPECT_EQ(a <=> a, std::strong_ordering::equal);
  EXPECT_TRUE((Vector<String>{"a", "b"}) < (Vector<String>{"a", "c"}));
}

TEST(compact_vector_test, CopyIsDeepAndIndependent) {
  Vector<String> original{String(text(30)), "short"};
  Vector<String> copy(original);
  EXPECT_EQ(copy, original);
  EXPECT_NE(copy.data(), original.data());
  EXPECT_NE(copy[0].data(), original[0].data());
  copy[0] = "changed";
  copy.push_back("added");
  EXPECT_EQ(original, (std::vector<String>{text(30), "short"}));

  Vector<String> assigned{"x"};
  assigned = original;
  EXPECT_EQ(assigned, original);
  assigned[1] += "!";
  EXPECT_EQ(original[1], "short");

  const Vector<String>& same = original;
  original = same;
  EXPECT_EQ(original, (std::vector<String>{text(30), "short"}));
}

TEST(compact_vector_test, MoveLeavesSourceEmpty) {
  Vector<String> source{String(text(30)), "b"};
  const String* storage = source.data();
  Vector<String> moved(std::move(source));
  EXPECT_EQ(moved.data(), storage);
  EXPECT_EQ(moved, (std::vector<String>{text(30), "b"}));
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(source.capacity(), 0U);
  EXPECT_EQ(source.begin(), source.end());

  Vector<String> target{"old", String(text(40))};
  target = std::move(moved);
  EXPECT_EQ(target, (std::vector<String>{text(30), "b"}));
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  Vector<String>& alias = target;
  target = std::move(alias);
  EXPECT_EQ(target.size(), 2U);

  source.push_back("reused");  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(source, (std::vector<String>{"reused"}));

  Vector<String> a{"a"};
  Vector<String> b{"b", "c"};
  a.swap(b);
  EXPECT_EQ(a, (std::vector<String>{"b", "c"}));
  EXPECT_EQ(b, (std::vector<String>{"a"}));
}

TEST(compact_vector_test, NestedVectors) {
  Vector<Vector<int>> v{{1, 2}, {}, {3}};
  EXPECT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0], (std::vector<int>{1, 2}));
  EXPECT_TRUE(v[1].empty());
  for (int i = 0; i < 100; ++i) {
    v[1].push_back(i);
    v.emplace_back(static_cast<std::size_t>(i % 5), i);
  }
  EXPECT_EQ(v[1].size(), 100U);
  EXPECT_EQ(v[3 + 4].size(), 4U);
  Vector<Vector<int>> copy = v;
  EXPECT_EQ(copy, v);
  copy[0][0] = 100;
  EXPECT_EQ(v[0][0], 1);
  v.erase(v.begin(), v.begin() + 2);
  EXPECT_EQ(v[0], (std::vector<int>{3}));

  Vector<Vector<String>> strings;
  strings.emplace_back().push_back(text(30));
  strings.insert(strings.begin(), Vector<String>{"first"});
  EXPECT_EQ(strings[0][0], "first");
  EXPECT_EQ(strings[1][0], text(30));
}

TEST(compact_vector_test, BoolElementsAreReferences) {
  Vector<bool> v(3, false);
  bool& first = v[0];
  first = true;
  EXPECT_TRUE(v[0]);
  v.at(2) = true;
  EXPECT_EQ(v, (std::vector<bool>{true, false, true}));
  for (bool& b : v) {
    b = !b;
  }
  EXPECT_EQ(v, (std::vector<bool>{false, true, false}));
  bool* data = v.data();
  EXPECT_TRUE(data[1]);
  v.push_back(true);
  EXPECT_TRUE(v.back());
}

TEST(compact_vector_test, ElementsConstructedAndDestroyedOnce) {
  Tracked::live = 0;
  {
    Vector<Tracked> v;
    for (int i = 0; i < 50; ++i) {
      v.emplace_back(i);
    }
    EXPECT_EQ(Tracked::live, 50);
    v.insert(v.begin() + 3, Tracked(-5));
    v.erase(v.begin() + 10, v.begin() + 20);
    v.erase(v.begin());
    v.pop_back();
    v.resize(60, Tracked(7));
    v.resize(30);
    EXPECT_EQ(Tracked::live, 30);
    const Vector<Tracked> copy = v;
    EXPECT_EQ(Tracked::live, 60);
    v.shrink_to_fit();
    v.reserve(200);
    EXPECT_EQ(Tracked::live, 60);
    Vector<Tracked> moved = std::move(v);
    EXPECT_EQ(Tracked::live, 60);
    moved = copy;
    EXPECT_EQ(Tracked::live, 60);
    std::vector<Tracked> source(10);
    moved.assign_moved(source);
    EXPECT_EQ(Tracked::live, 30 + 10 + 10);  // the moved-from stay in `source`
    moved.clear();
    EXPECT_EQ(Tracked::live, 40);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST(compact_vector_test, AssignMoved) {
  std::vector<String> source;
  for (std::size_t i = 0; i < 9; ++i) {
    source.emplace_back(text(20 + i, i));
  }
  source.reserve(64);
  Vector<String> v{"will", "be", "replaced"};
  v.assign_moved(source);
  EXPECT_EQ(v.size(), 9U);
  EXPECT_EQ(v.capacity(), 9U);  // exactly their count
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(v[i], text(20 + i, i));
    EXPECT_TRUE(source[i].empty());  // moved, not copied
  }
  EXPECT_FALSE(v.in_arena());

  std::vector<String> none;
  v.assign_moved(none);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 0U);

  Arena arena;
  {
    const ArenaScope scope(&arena);
    std::vector<String> decoded{String(text(30)), "b"};
    v.assign_moved(decoded);
  }
  EXPECT_TRUE(v.in_arena());
  EXPECT_EQ(v.capacity(), 2U);
  EXPECT_EQ(v, (std::vector<String>{text(30), "b"}));
}

TEST(compact_vector_test, OverAlignedElementsStayOnTheHeap) {
  Arena arena;
  const ArenaScope scope(&arena);
  Vector<Wide> v;
  for (int i = 0; i < 10; ++i) {
    v.emplace_back().d[0] = i;
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 32, 0U);
  }
  EXPECT_FALSE(v.in_arena());
  EXPECT_EQ(v[9].d[0], 9.0);
  Vector<double> doubles{1.5, 2.5};
  EXPECT_TRUE(doubles.in_arena());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(doubles.data()) % alignof(double), 0U);
}

// ---------------------------------------------------------------------------------------------
// Map

using StringMap = Map<String, String>;

std::vector<std::string> keys_of(const StringMap& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) {
    keys.emplace_back(k);
  }
  return keys;
}

TEST(compact_map_test, SubscriptInsertsDefault) {
  Map<String, int> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m["a"], 0);
  EXPECT_EQ(m.size(), 1U);
  m["a"] = 5;
  m[std::string("b")] = 6;
  m[std::string_view("c")] += 7;
  m[String(text(20))] = 8;
  EXPECT_EQ(m["a"], 5);
  EXPECT_EQ(m.size(), 4U);
  EXPECT_EQ(m.at("b"), 6);
  EXPECT_EQ(m.at("c"), 7);
  EXPECT_EQ(m.at(text(20)), 8);

  StringMap labels;
  EXPECT_EQ(labels["missing"], "");
  EXPECT_EQ(labels.size(), 1U);
}

TEST(compact_map_test, IteratesInKeyOrder) {
  StringMap m;
  for (const char* key : {"delta", "alpha", "echo", "charlie", "bravo"}) {
    m[key] = String(key) + "-value";
  }
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"alpha", "bravo", "charlie", "delta", "echo"}));
  EXPECT_EQ(m.begin()->second, "alpha-value");

  std::vector<std::string> keys;
  for (std::size_t i = 0; i < 200; ++i) {
    keys.push_back(text(1 + (i * 37) % 40, i * 11));
  }
  std::mt19937 random(42);
  std::shuffle(keys.begin(), keys.end(), random);
  StringMap big;
  std::map<std::string, std::string> model;
  for (const auto& k : keys) {
    big[k] = k;
    model[k] = k;
  }
  std::vector<std::string> model_keys;
  for (const auto& [k, v] : model) {
    model_keys.push_back(k);
  }
  EXPECT_EQ(keys_of(big), model_keys);
}

TEST(compact_map_test, Lookup) {
  const StringMap m{{"app", "web"}, {"tier", String(text(30))}};
  EXPECT_TRUE(m.contains("app"));
  EXPECT_TRUE(m.contains(std::string_view("tier")));
  EXPECT_TRUE(m.contains(std::string("app")));
  EXPECT_TRUE(m.contains(String("tier")));
  EXPECT_FALSE(m.contains("ap"));
  EXPECT_FALSE(m.contains("apps"));
  EXPECT_FALSE(m.contains(""));
  EXPECT_EQ(m.count("app"), 1U);
  EXPECT_EQ(m.count(std::string("zzz")), 0U);

  auto it = m.find(std::string_view("tier"));
  ASSERT_NE(it, m.end());
  EXPECT_EQ(it->first, "tier");
  EXPECT_EQ(it->second, text(30));
  EXPECT_EQ(m.find("nope"), m.end());
  EXPECT_EQ(m.find(std::string("a")), m.end());
  EXPECT_EQ(m.find("zzzz"), m.end());  // after the last key

  EXPECT_EQ(m.at("app"), "web");
  EXPECT_EQ(m.at(std::string("app")), "web");
  EXPECT_EQ(m.at(std::string_view("app")), "web");
  EXPECT_THROW((void)m.at("missing"), std::out_of_range);
  EXPECT_THROW((void)m.at(std::string("missing")), std::out_of_range);

  StringMap mutable_map = m;
  mutable_map.at("app") = "api";
  mutable_map.find("tier")->second = "backend";
  EXPECT_EQ(mutable_map.at("app"), "api");
  EXPECT_EQ(mutable_map.at("tier"), "backend");
  EXPECT_THROW((void)mutable_map.at("missing"), std::out_of_range);
  EXPECT_EQ(m.at("app"), "web");  // the copy is independent
}

TEST(compact_map_test, InsertKeepsExisting) {
  StringMap m;
  auto [it, inserted] = m.insert({"a", "1"});
  EXPECT_TRUE(inserted);
  EXPECT_EQ(it->first, "a");
  EXPECT_EQ(it->second, "1");
  auto [again, inserted_again] = m.insert({"a", "2"});
  EXPECT_FALSE(inserted_again);
  EXPECT_EQ(again->second, "1");
  EXPECT_EQ(m.at("a"), "1");
  const StringMap::value_type entry{"b", "3"};
  EXPECT_TRUE(m.insert(entry).second);

  auto [t, t_inserted] = m.try_emplace("a", "9");
  EXPECT_FALSE(t_inserted);
  EXPECT_EQ(t->second, "1");
  auto [e, e_inserted] = m.emplace(String("c"), String(text(25)));
  EXPECT_TRUE(e_inserted);
  EXPECT_EQ(e->second, text(25));
  EXPECT_FALSE(m.emplace("c", "other").second);
  EXPECT_EQ(m.at("c"), text(25));
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "b", "c"}));

  // In an initializer list, the first of a repeated key stays (as std::map).
  const StringMap listed{{"k", "first"}, {"k", "second"}};
  EXPECT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed.at("k"), "first");
}

TEST(compact_map_test, InsertOrAssignOverwrites) {
  StringMap m{{"a", "1"}};
  auto [it, inserted] = m.insert_or_assign("a", "2");
  EXPECT_FALSE(inserted);
  EXPECT_EQ(it->second, "2");
  EXPECT_EQ(m.at("a"), "2");
  auto [b, b_inserted] = m.insert_or_assign(std::string("b"), String(text(40)));
  EXPECT_TRUE(b_inserted);
  EXPECT_EQ(b->first, "b");
  EXPECT_EQ(m.at("b"), text(40));
  EXPECT_EQ(m.size(), 2U);
}

TEST(compact_map_test, Erase) {
  StringMap m{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}};
  EXPECT_EQ(m.erase("b"), 1U);
  EXPECT_EQ(m.erase("b"), 0U);
  EXPECT_EQ(m.erase(std::string("zz")), 0U);
  EXPECT_EQ(m.erase(std::string_view("d")), 1U);
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "c"}));
  auto next = m.erase(m.find("a"));
  ASSERT_NE(next, m.end());
  EXPECT_EQ(next->first, "c");
  next = m.erase(m.begin());
  EXPECT_EQ(next, m.end());
  EXPECT_TRUE(m.empty());
  m["again"] = "x";
  EXPECT_EQ(m.size(), 1U);
  m.clear();
  EXPECT_TRUE(m.empty());
}

TEST(compact_map_test, FromStdMapAndEquality) {
  const std::map<std::string, std::string> source{
      {"zone", "eu"}, {"app", "web"}, {"long-key-for-the-heap", text(50)}};
  const StringMap m(source);
  EXPECT_EQ(m.size(), 3U);
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"app", "long-key-for-the-heap", "zone"}));
  EXPECT_EQ(m.at("long-key-for-the-heap"), text(50));
  const StringMap converted = source;  // implicit
  EXPECT_TRUE(converted == m);

  StringMap other_order;
  other_order["zone"] = "eu";
  other_order["long-key-for-the-heap"] = text(50);
  other_order["app"] = "web";
  EXPECT_TRUE(other_order == m);
  other_order["app"] = "api";
  EXPECT_FALSE(other_order == m);
  EXPECT_TRUE(other_order != m);
  other_order["app"] = "web";
  other_order["extra"] = "";
  EXPECT_FALSE(other_order == m);
  EXPECT_TRUE(StringMap() == StringMap());
  EXPECT_FALSE(StringMap() == m);
}

TEST(compact_map_test, AssignMovedSortsAndKeepsTheLastValue) {
  std::vector<std::pair<String, String>> entries{
      {"b", "1"}, {"a", "x"}, {"b", "2"}, {"c", String(text(30))}, {"a", "y"}, {"b", "3"}};
  StringMap m{{"old", "gone"}};
  m.assign_moved(entries);
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(m.at("a"), "y");
  EXPECT_EQ(m.at("b"), "3");
  EXPECT_EQ(m.at("c"), text(30));
  EXPECT_FALSE(m.contains("old"));

  // Already sorted, with a repeat.
  std::vector<std::pair<String, String>> sorted{{"a", "1"}, {"a", "2"}, {"b", "3"}, {"b", "4"}};
  m.assign_moved(sorted);
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.at("a"), "2");
  EXPECT_EQ(m.at("b"), "4");

  // One key only.
  std::vector<std::pair<String, String>> same{{"k", "1"}, {"k", "2"}, {"k", "3"}};
  m.assign_moved(same);
  EXPECT_EQ(m.size(), 1U);
  EXPECT_EQ(m.at("k"), "3");

  std::vector<std::pair<String, String>> none;
  m.assign_moved(none);
  EXPECT_TRUE(m.empty());

  // Many keys, many repeats, against std::map's "last one wins".
  std::mt19937 random(7);
  std::vector<std::pair<String, String>> many;
  std::map<std::string, std::string> model;
  for (std::size_t i = 0; i < 500; ++i) {
    const std::string key = text(1 + random() % 20, random() % 5);
    const std::string value = text(random() % 30, i);
    many.emplace_back(key, value);
    model[key] = value;
  }
  m.assign_moved(many);
  EXPECT_TRUE(m == StringMap(model));
  EXPECT_EQ(m.size(), model.size());
}

TEST(compact_map_test, AgainstStdMap) {
  std::mt19937 random(1234);
  StringMap m;
  std::map<std::string, std::string> model;
  for (int step = 0; step < 3000; ++step) {
    const std::string key = text(random() % 3 == 0 ? 20 : 3, random() % 40);
    const std::string value = text(random() % 25, static_cast<std::size_t>(step));
    switch (random() % 5) {
      case 0:
        m[key] = value;
        model[key] = value;
        break;
      case 1:
        EXPECT_EQ(m.insert({key, value}).second, model.insert({key, value}).second);
        break;
      case 2:
        m.insert_or_assign(key, value);
        model.insert_or_assign(key, value);
        break;
      case 3:
        ASSERT_EQ(m.erase(key), model.erase(key));
        break;
      default:
        ASSERT_EQ(m.contains(key), model.contains(key));
        if (model.contains(key)) {
          ASSERT_EQ(m.at(key), model.at(key));
        }
    }
    ASSERT_EQ(m.size(), model.size());
  }
  auto it = model.begin();
  for (const auto& [k, v] : m) {
    ASSERT_EQ(k, it->first);
    ASSERT_EQ(v, it->second);
    ++it;
  }
}

TEST(compact_map_test, ValuesOfContainerTypes) {
  Map<String, Vector<String>> m;
  m["b"].push_back(text(30));
  m["a"].push_back("x");
  m["b"].push_back("y");
  m["c"];
  EXPECT_EQ(m.at("b"), (std::vector<String>{text(30), "y"}));
  EXPECT_EQ(m.begin()->first, "a");
  Map<String, Vector<String>> copy = m;
  copy["a"].push_back("z");
  EXPECT_EQ(m.at("a").size(), 1U);
  EXPECT_TRUE(m.at("c").empty());

  Map<int, String> by_number;
  by_number[3] = "three";
  by_number[1] = "one";
  by_number[2] = String(text(20));
  EXPECT_EQ(by_number.begin()->second, "one");
  EXPECT_EQ(by_number.at(2), text(20));
  EXPECT_EQ(by_number.erase(2), 1U);
  EXPECT_EQ(by_number.size(), 2U);
}

// ---------------------------------------------------------------------------------------------
// JSON

using compact_json::Flags;
using compact_json::Item;
using compact_json::ItemList;
namespace json = kubex::json;

constexpr std::string_view kSorted =
    R"({"kind":"ItemList with a name too long to be inline","items":[)"
    R"({"name":"first-item-with-a-long-name","tags":["a","bb","a-much-longer-tag-value"],)"
    R"("labels":{"app":"web","tier":"frontend-tier-long-value"},"count":3},)"
    R"({"name":"x","tags":["only"],"labels":{"k":"v"},"count":-1}],)"
    R"("ports":{"http":[80,8080],"https":[443]}})";

TEST(compact_json_test, DecodesValues) {
  ItemList list;
  json::decode(kSorted, list);
  EXPECT_EQ(list.kind, "ItemList with a name too long to be inline");
  ASSERT_EQ(list.items.size(), 2U);
  const Item& first = list.items[0];
  EXPECT_EQ(first.name, "first-item-with-a-long-name");
  EXPECT_EQ(first.tags, (std::vector<String>{"a", "bb", "a-much-longer-tag-value"}));
  EXPECT_EQ(first.labels.size(), 2U);
  EXPECT_EQ(first.labels.at("app"), "web");
  EXPECT_EQ(first.labels.at("tier"), "frontend-tier-long-value");
  EXPECT_EQ(first.count, 3);
  EXPECT_EQ(list.items[1].name, "x");
  EXPECT_EQ(list.items[1].count, -1);
  EXPECT_EQ(list.ports.at("http"), (std::vector<std::int64_t>{80, 8080}));
  EXPECT_EQ(list.ports.at("https"), (std::vector<std::int64_t>{443}));
  EXPECT_EQ(list.items[0].name.c_str()[list.items[0].name.size()], '\0');
}

TEST(compact_json_test, DecodedMemoryIsInTheArena) {
  const ItemList list = json::decode<ItemList>(kSorted);
  EXPECT_TRUE(list.kind.in_arena());
  EXPECT_TRUE(list.items.in_arena());
  EXPECT_TRUE(list.items[0].name.in_arena());
  EXPECT_FALSE(list.items[1].name.in_arena());  // "x": inline
  EXPECT_TRUE(list.items[0].tags.in_arena());
  EXPECT_FALSE(list.items[0].tags[0].in_arena());
  EXPECT_TRUE(list.items[0].tags[2].in_arena());
  EXPECT_TRUE(list.items[0].labels.at("tier").in_arena());
  EXPECT_FALSE(list.items[0].labels.at("app").in_arena());
  EXPECT_TRUE(list.ports.at("http").in_arena());

  // A copy of a decoded object is on the heap.
  const ItemList copy = list;
  EXPECT_EQ(copy, list);
  EXPECT_FALSE(copy.kind.in_arena());
  EXPECT_FALSE(copy.items.in_arena());
  EXPECT_FALSE(copy.items[0].tags[2].in_arena());
}

TEST(compact_json_test, DecodedListsHaveExactSize) {
  const ItemList list = json::decode<ItemList>(kSorted);
  EXPECT_EQ(list.items.capacity(), list.items.size());
  EXPECT_EQ(list.items[0].tags.capacity(), 3U);
  EXPECT_EQ(list.items[1].tags.capacity(), 1U);
  EXPECT_EQ(list.ports.at("http").capacity(), 2U);

  std::string many = "[";
  for (std::size_t i = 0; i < 5000; ++i) {
    many += (i == 0 ? "\"" : ",\"") + text(i % 40, i) + "\"";
  }
  many += "]";
  Vector<String> big;
  json::decode(many, big);
  ASSERT_EQ(big.size(), 5000U);
  EXPECT_EQ(big.capacity(), 5000U);
  EXPECT_TRUE(big.in_arena());
  for (std::size_t i = 0; i < 5000; ++i) {
    ASSERT_EQ(big[i], text(i % 40, i));
  }
  // Again, the scratch now holding capacity from the first.
  Vector<String> small;
  json::decode(R"(["p","q","r"])", small);
  EXPECT_EQ(small, (std::vector<String>{"p", "q", "r"}));
  EXPECT_EQ(small.capacity(), 3U);
}

TEST(compact_json_test, MapsAreSortedAndKeepTheLastValue) {
  Map<String, String> m;
  json::decode(R"({"b":"2","a":"1"})", m);
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.at("a"), "1");
  EXPECT_EQ(m.at("b"), "2");

  json::decode(R"({"a":"1","a":"2"})", m);
  EXPECT_EQ(m.size(), 1U);
  EXPECT_EQ(m.at("a"), "2");

  Item item;
  json::decode(R"({"labels":{"z":"1","m":"2","z":"3","a":"4","m":"5"}})", item);
  EXPECT_EQ(keys_of(item.labels), (std::vector<std::string>{"a", "m", "z"}));
  EXPECT_EQ(item.labels.at("z"), "3");
  EXPECT_EQ(item.labels.at("m"), "5");
  EXPECT_EQ(json::encode(item.labels), R"({"a":"4","m":"5","z":"3"})");
}

TEST(compact_json_test, NullReadsAsEmpty) {
  Item item;
  item.name = "before";
  item.tags.push_back("before");
  item.labels["before"] = "x";
  json::decode(R"({"name":null,"tags":null,"labels":null,"count":null})", item);
  EXPECT_TRUE(item.name.empty());
  EXPECT_TRUE(item.tags.empty());
  EXPECT_TRUE(item.labels.empty());
  EXPECT_EQ(item.count, 0);

  Vector<Vector<String>> lists;
  json::decode(R"([["a"],null,[]])", lists);
  ASSERT_EQ(lists.size(), 3U);
  EXPECT_EQ(lists[0], (std::vector<String>{"a"}));
  EXPECT_TRUE(lists[1].empty());
  EXPECT_TRUE(lists[2].empty());

  Map<String, Vector<String>> by_key;
  json::decode(R"({"a":null,"b":["x"]})", by_key);
  EXPECT_TRUE(by_key.at("a").empty());
  EXPECT_EQ(by_key.at("b"), (std::vector<String>{"x"}));

  Map<String, Map<String, String>> nested;
  json::decode(R"({"a":null})", nested);
  EXPECT_TRUE(nested.at("a").empty());
}

TEST(compact_json_test, EncodeOfDecodeGivesTheSameText) {
  const ItemList list = json::decode<ItemList>(kSorted);
  EXPECT_EQ(json::encode(list), kSorted);

  const std::string_view escaped =
      R"({"name":"a \"quoted\" name\nover two lines","tags":["t\\"],"labels":{"k\"ey":"v"},)"
      R"("count":1})";
  Item item;
  json::decode(escaped, item);
  EXPECT_EQ(item.name, "a \"quoted\" name\nover two lines");
  EXPECT_EQ(item.tags, (std::vector<String>{"t\\"}));
  EXPECT_EQ(item.labels.at("k\"ey"), "v");
  EXPECT_EQ(json::encode(item), escaped);

  Vector<String> strings;
  json::decode(R"(["",  "short", "a string that is long"] )", strings);
  EXPECT_EQ(json::encode(strings), R"(["","short","a string that is long"])");
}

TEST(compact_json_test, EmptyContainersAreLeftOutOfObjects) {
  // As json_object.hpp documents for every container: empty lists and maps are omitted.
  Item item;
  item.name = "x";
  EXPECT_EQ(json::encode(item), R"({"name":"x","count":0})");
  const Item decoded = json::decode<Item>(R"({"name":"x","tags":[],"labels":{},"count":0})");
  EXPECT_EQ(json::encode(decoded), R"({"name":"x","count":0})");
}

TEST(compact_json_test, BoolLists) {
  Flags flags;
  json::decode(R"({"values":[true,false,true]})", flags);
  EXPECT_EQ(flags.values, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(json::encode(flags), R"({"values":[true,false,true]})");
}

TEST(compact_json_test, DecodedValueOutlivesLaterDecodes) {
  ItemList first;
  json::decode(kSorted, first);
  ItemList second;
  json::decode(R"({"kind":"another kind, also long enough","items":[{"name":"second-long-name"}]})",
               second);
  for (int i = 0; i < 20; ++i) {
    ItemList scratch;
    json::decode(kSorted, scratch);
  }
  // Decoding into an object replaces its contents and gives its old memory back.
  json::decode(R"({"kind":"replaced kind which is long"})", second);
  EXPECT_EQ(second.kind, "replaced kind which is long");
  EXPECT_TRUE(second.items.empty());

  EXPECT_EQ(json::encode(first), kSorted);
  EXPECT_EQ(first.items[0].labels.at("tier"), "frontend-tier-long-value");

  // A value moved out of a decoded object that is then destroyed.
  String name;
  Vector<String> tags;
  {
    ItemList doomed = json::decode<ItemList>(kSorted);
    name = std::move(doomed.items[0].name);
    tags = std::move(doomed.items[0].tags);
  }
  EXPECT_EQ(name, "first-item-with-a-long-name");
  EXPECT_TRUE(name.in_arena());
  EXPECT_EQ(tags, (std::vector<String>{"a", "bb", "a-much-longer-tag-value"}));
}

TEST(compact_json_test, DecodedOnOneThreadDestroyedOnAnother) {
  auto list = std::make_unique<ItemList>(json::decode<ItemList>(kSorted));
  std::thread([l = std::move(list)]() mutable {
    EXPECT_EQ(json::encode(*l), kSorted);
    l.reset();
  }).join();
}

TEST(compact_json_test, InvalidDocumentsThrow) {
  const std::string long_name = text(40);
  Item item;
  try {
    json::decode(R"({"name":")" + long_name + R"(","tags":["a long tag in the arena",5]})", item);
    ADD_FAILURE() << "no DecodeError";
  } catch (const json::DecodeError& e) {
    EXPECT_EQ(e.path(), "tags[1]");
  }
  // Whatever was decoded before the error is still valid memory.
  EXPECT_TRUE(item.name.empty() || item.name == long_name);

  ItemList list;
  EXPECT_THROW(json::decode(R"({"kind":")" + long_name + R"(","items":[{"name":")" + long_name +
                                R"(","labels":{"a":"a long label value here","b":{}}}]})",
                            list),
               json::DecodeError);
  try {
    json::decode(R"({"items":[{"labels":{"a":"a long label value here","b":7}}]})", list);
    ADD_FAILURE() << "no DecodeError";
  } catch (const json::DecodeError& e) {
    EXPECT_EQ(e.path(), "items[0].labels.b");
  }
  EXPECT_THROW(json::decode(R"({"kind":")" + long_name + R"(","items":[{"name":"x")", list),
               json::DecodeError);  // cut short
  EXPECT_THROW(json::decode(R"({"kind":")" + long_name + R"(",})", list), json::DecodeError);
  Vector<String> strings;
  EXPECT_THROW(json::decode(R"([")" + long_name + R"(",null])", strings), json::DecodeError);
  Map<String, String> m;
  EXPECT_THROW(json::decode(R"(["not","an","object"])", m), json::DecodeError);

  // The thread decodes as before.
  json::decode(kSorted, list);
  EXPECT_EQ(json::encode(list), kSorted);
}

}  // namespace

namespace {

// Copies go to the heap, whatever the original's memory, unless an ArenaCopyScope names an
// arena for them (kubex::compact); decoding scopes (ArenaScope) do not apply to copies.
TEST(arena_copy_scope_test, CopiesGoToTheNamedArenaOnlyInsideTheScope) {
  const std::string long_text(40, 'c');
  const kubex::String original(long_text);
  const kubex::Vector<kubex::String> list{original, kubex::String("short")};
  ASSERT_FALSE(original.in_arena());
  {
    kubex::Arena decoding(4096);
    const kubex::ArenaScope scope(&decoding);
    const kubex::String copy(original);  // a copy made while decoding: still the heap
    EXPECT_FALSE(copy.in_arena());
  }
  kubex::Arena arena(4096);
  {
    const kubex::ArenaCopyScope scope(&arena);
    const kubex::String copy(original);
    const kubex::Vector<kubex::String> list_copy(list);
    EXPECT_TRUE(copy.in_arena());
    EXPECT_TRUE(list_copy.in_arena());
    EXPECT_TRUE(list_copy[0].in_arena());
    EXPECT_EQ(list_copy, list);
  }
  const kubex::String after(original);
  EXPECT_FALSE(after.in_arena());
}

TEST(arena_copy_scope_test, CompactKeepsTheValueAndMovesItToAnArena) {
  kubex::Vector<kubex::String> list{kubex::String(std::string(30, 'a')),
                                    kubex::String(std::string(50, 'b'))};
  const kubex::Vector<kubex::String> expected = list;
  const std::size_t before = kubex::arena_live_blocks();
  kubex::compact(list);
  EXPECT_EQ(list, expected);
  EXPECT_TRUE(list.in_arena());
  EXPECT_TRUE(list[1].in_arena());
  EXPECT_EQ(kubex::arena_live_blocks() - before, 1U);
  list = {};
  EXPECT_EQ(kubex::arena_live_blocks(), before);
}

}  // namespace
