// SPDX-License-Identifier: Apache-2.0
// The request-head checks and Impersonate-* headers (client/src/detail/headers.hpp).

#include "detail/headers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using namespace kubex::client::detail;

TEST(headers, TargetsThatCannotBreakTheRequestLine) {
  EXPECT_TRUE(is_valid_target("/api/v1/pods?labelSelector=a%3Db"));
  EXPECT_TRUE(is_valid_target("/"));
  for (const char* bad : {"", "api/v1", "/a b", "/a\r\nX-Injected: 1", "/a\x7f", "/\t"}) {
    EXPECT_FALSE(is_valid_target(bad)) << bad;
  }
}

TEST(headers, NamesAndValuesThatCannotInjectHeaders) {
  EXPECT_TRUE(is_valid_header("X-Trace", "a b\tc"));
  EXPECT_FALSE(is_valid_header("", "v"));
  EXPECT_FALSE(is_valid_header("X Trace", "v"));
  EXPECT_FALSE(is_valid_header("X:Trace", "v"));
  EXPECT_FALSE(is_valid_header("X-Trace", "v\r\nX-Injected: 1"));
  EXPECT_FALSE(is_valid_header("X-Trace", "v\x7f"));
}

TEST(headers, ExtraKeysArePercentEncodedAsClientGoDoes) {
  EXPECT_EQ(extra_header_name("scopes"), "Impersonate-Extra-scopes");
  EXPECT_EQ(extra_header_name("example.com/scope"), "Impersonate-Extra-example.com%2Fscope");
  EXPECT_EQ(extra_header_name("a%b c"), "Impersonate-Extra-a%25b%20c");
  EXPECT_EQ(extra_header_name("\xc3\xa9"), "Impersonate-Extra-%C3%A9");
}

TEST(headers, ImpersonationHeadersOnlyWithAUser) {
  kubex::client::Impersonation as;
  as.groups = {"g"};
  EXPECT_TRUE(impersonation_headers(as).empty());
  as.user = "jane";
  as.uid = "1234";
  as.groups = {"developers", "system:authenticated"};
  as.extra = {{"scopes", {"view", "edit"}}};
  const std::vector<std::pair<std::string, std::string>> want = {
      {"Impersonate-User", "jane"},         {"Impersonate-Uid", "1234"},
      {"Impersonate-Group", "developers"},  {"Impersonate-Group", "system:authenticated"},
      {"Impersonate-Extra-scopes", "view"}, {"Impersonate-Extra-scopes", "edit"},
  };
  EXPECT_EQ(impersonation_headers(as), want);
}

}  // namespace
