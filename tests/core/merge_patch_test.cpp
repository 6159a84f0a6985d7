// SPDX-License-Identifier: Apache-2.0
// JSON merge patches: applying follows RFC 7396 (its Appendix A cases), and a created patch,
// applied to the original, always yields the modified document.
#include <kubex/core/json.hpp>
#include <kubex/core/merge_patch.hpp>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace {

using kubex::json::apply_merge_patch;
using kubex::json::create_merge_patch;

struct Case {
  std::string target;
  std::string patch;
  std::string result;
};

TEST(MergePatch, AppliesTheRfcExamples) {
  const std::vector<Case> cases = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(apply_merge_patch(c.target, c.patch), c.result) << c.target << " + " << c.patch;
  }
}

TEST(MergePatch, CreatesMinimalPatches) {
  EXPECT_EQ(create_merge_patch(R"({"a":1,"b":{"c":2,"d":3}})", R"({"b":{"d":3,"c":2},"a":1.0})"),
            "{}");
  EXPECT_EQ(create_merge_patch(R"({"a":1,"b":{"c":2,"d":3}})", R"({"a":1,"b":{"c":5}})"),
            R"({"b":{"c":5,"d":null}})");
  // Arrays are replaced whole.
  EXPECT_EQ(create_merge_patch(R"({"l":[1,2,3]})", R"({"l":[1,2]})"), R"({"l":[1,2]})");
  // A value turning into an object, and back.
  EXPECT_EQ(create_merge_patch(R"({"x":"s"})", R"({"x":{"y":1}})"), R"({"x":{"y":1}})");
  EXPECT_EQ(create_merge_patch(R"({"x":{"y":1}})", R"({"x":"s"})"), R"({"x":"s"})");
  // Keys needing escapes survive.
  EXPECT_EQ(create_merge_patch(R"({"a\"b":1})", R"({"a\"b":2,"c\\d":null})"),
            R"({"a\"b":2,"c\\d":null})");
  // Non-objects: the patch is the new document.
  EXPECT_EQ(create_merge_patch("[1]", R"({"a":1})"), R"({"a":1})");
}

TEST(MergePatch, CreatedPatchTurnsOriginalIntoModified) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"replicas":3,"paused":false}})",
       R"({"metadata":{"labels":{"b":"3","c":"4"}},"spec":{"paused":true}})"},
      {R"({"a":{"b":{"c":{"d":1}}},"e":[1,{"f":2}]})", R"({"a":{"b":{"c":{}}},"e":[{"f":2}]})"},
      {R"({"x":1})", R"({})"},
      {R"({})", R"({"x":{"y":{"z":[true,false,null]}}})"},
  };
  for (const auto& [original, modified] : pairs) {
    const std::string patch = create_merge_patch(original, modified);
    EXPECT_EQ(apply_merge_patch(original, patch), modified) << original << " -> " << patch;
  }
}

TEST(MergePatch, InvalidJsonIsNamed) {
  try {
    (void)create_merge_patch(R"({"a":1})", R"({"a":)");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("the modified document is not valid JSON"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)apply_merge_patch("{", "{}"), kubex::json::DecodeError);
}

}  // namespace
