// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/percent.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(percent, EncodesAllButUnreservedWithUpperCaseHex) {
  EXPECT_EQ(kubex::percent_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(kubex::percent_encode("a b/c?d=e&f+g%h"), "a%20b%2Fc%3Fd%3De%26f%2Bg%25h");
  EXPECT_EQ(kubex::percent_encode(std::string("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(kubex::percent_encode("\xc3\xa9"), "%C3%A9");
}

TEST(percent, KeepsWhatTheCallerKeeps) {
  std::string out = "x=";
  kubex::append_percent_encoded(out, "a:b@c/d", [](char c) { return c != '/'; });
  EXPECT_EQ(out, "x=a:b@c%2Fd");
}

TEST(percent, DecodesEitherCaseAndRefusesBrokenEscapes) {
  EXPECT_EQ(kubex::percent_decode("a%20b%2fc%2F"), "a b/c/");
  EXPECT_EQ(kubex::percent_decode("%00"), std::string("\0", 1));
  EXPECT_EQ(kubex::percent_decode(""), "");
  for (const char* bad : {"%", "%2", "a%2", "%zz", "%2g", "%-1", "%+1"}) {
    EXPECT_EQ(kubex::percent_decode(bad), std::nullopt) << bad;
  }
}

TEST(percent, DecodeUndoesEncode) {
  std::string all;
  for (int c = 0; c < 256; ++c) {
    all.push_back(static_cast<char>(c));
  }
  EXPECT_EQ(kubex::percent_decode(kubex::percent_encode(all)), all);
}

}  // namespace
