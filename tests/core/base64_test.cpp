// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/base64.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

using kubex::base64_decode;

TEST(base64_test, decodes_rfc4648_vectors) {
  EXPECT_EQ(base64_decode(""), "");
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8="), "fo");
  EXPECT_EQ(base64_decode("Zm9v"), "foo");
  EXPECT_EQ(base64_decode("Zm9vYg=="), "foob");
  EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(base64_decode("Zm9vYmFy"), "foobar");
}

TEST(base64_test, decodes_binary) {
  EXPECT_EQ(base64_decode("AP8+/w=="), std::string("\x00\xff\x3e\xff", 4));
}

TEST(base64_test, ignores_whitespace_and_missing_padding) {
  EXPECT_EQ(base64_decode("Zm9v\nYmFy\r\n"), "foobar");
  EXPECT_EQ(base64_decode(" Zm9v YmE = "), "fooba");
  EXPECT_EQ(base64_decode("Zm9vYg"), "foob");
}

TEST(base64_test, rejects_malformed_input) {
  EXPECT_EQ(base64_decode("Zm9v!"), std::nullopt);
  EXPECT_EQ(base64_decode("Zm9-"), std::nullopt);  // URL alphabet is not standard base64
  EXPECT_EQ(base64_decode("Z"), std::nullopt);
  EXPECT_EQ(base64_decode("Zm9vY"), std::nullopt);
  EXPECT_EQ(base64_decode("Zg=a"), std::nullopt);
  EXPECT_EQ(base64_decode("Zg==="), std::nullopt);
  EXPECT_EQ(base64_decode("Zm8=="), std::nullopt);
  EXPECT_EQ(base64_decode("Zm9v="), std::nullopt);
  EXPECT_EQ(base64_decode("="), std::nullopt);
}

}  // namespace
