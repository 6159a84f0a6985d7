// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/int_or_string.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace {

using kubex::IntOrString;

TEST(int_or_string_test, holds_an_int_or_a_string) {
  const IntOrString port = 8080;
  EXPECT_TRUE(port.is_int());
  EXPECT_EQ(port.int_value(), 8080);
  EXPECT_EQ(port.to_string(), "8080");
  EXPECT_THROW((void)port.string_value(), std::bad_variant_access);

  const IntOrString name = "http";
  EXPECT_FALSE(name.is_int());
  EXPECT_EQ(name.string_value(), "http");
  EXPECT_EQ(name.to_string(), "http");
  EXPECT_THROW((void)name.int_value(), std::bad_variant_access);

  EXPECT_EQ(IntOrString(std::string("25%")).string_value(), "25%");
  EXPECT_EQ(IntOrString(std::string_view("25%")).string_value(), "25%");
  EXPECT_EQ(IntOrString(-7).int_value(), -7);
  EXPECT_EQ(IntOrString(INT32_MIN).to_string(), "-2147483648");

  const IntOrString zero;
  EXPECT_TRUE(zero.is_int());
  EXPECT_EQ(zero.int_value(), 0);
}

TEST(int_or_string_test, compares_kind_and_value) {
  EXPECT_EQ(IntOrString(5), IntOrString(5));
  EXPECT_EQ(IntOrString("5"), IntOrString(std::string("5")));
  EXPECT_NE(IntOrString(5), IntOrString("5"));
  EXPECT_NE(IntOrString(5), IntOrString(6));
  EXPECT_NE(IntOrString("a"), IntOrString("b"));
  EXPECT_EQ(IntOrString(), IntOrString(0));
}

struct ScaleCase {
  IntOrString value;
  int total;
  std::optional<int> up;
  std::optional<int> down;
};

TEST(int_or_string_test, scales_percentages_like_kubernetes) {
  const ScaleCase cases[] = {
      // Integers are absolute: returned as they are, whatever the total.
      {5, 10, 5, 5},
      {0, 10, 0, 0},
      {-3, 10, -3, -3},
      {100, 0, 100, 100},
      // Percentages of the total, rounded up or down.
      {"25%", 10, 3, 2},
      {"50%", 10, 5, 5},
      {"0%", 10, 0, 0},
      {"100%", 7, 7, 7},
      {"33%", 3, 1, 0},
      {"1%", 1, 1, 0},
      {"99%", 1, 1, 0},
      {"200%", 3, 6, 6},
      {"25%", 0, 0, 0},
      {"10%", 15, 2, 1},
      // Signs, as Go's strconv.Atoi reads them; negative results round towards +/- infinity
      // like math.Ceil and math.Floor.
      {"-10%", 15, -1, -2},
      {"+5%", 100, 5, 5},
      {"-0%", 100, 0, 0},
      {"25%", -10, -2, -3},
      {"007%", 100, 7, 7},
      // Large values are exact; results beyond int are errors.
      {"1000000000%", 100, 1000000000, 1000000000},
      {"10000000000%", 100, std::nullopt, std::nullopt},
      {"9223372036854775807%", 0, 0, 0},
      {"9223372036854775807%", 1, std::nullopt, std::nullopt},
      {"-9223372036854775808%", 0, 0, 0},
      {"1%", INT_MAX, 21474837, 21474836},
      {"100%", INT_MIN, INT_MIN, INT_MIN},
      // Malformed percentages.
      {"25", 10, std::nullopt, std::nullopt},
      {"%", 10, std::nullopt, std::nullopt},
      {"", 10, std::nullopt, std::nullopt},
      {"2.5%", 10, std::nullopt, std::nullopt},
      {" 5%", 10, std::nullopt, std::nullopt},
      {"5 %", 10, std::nullopt, std::nullopt},
      {"5% ", 10, std::nullopt, std::nullopt},
      {"5%%", 10, std::nullopt, std::nullopt},
      {"%5", 10, std::nullopt, std::nullopt},
      {"0x5%", 10, std::nullopt, std::nullopt},
      {"--5%", 10, std::nullopt, std::nullopt},
      {"+-5%", 10, std::nullopt, std::nullopt},
      {"+%", 10, std::nullopt, std::nullopt},
      {"-%", 10, std::nullopt, std::nullopt},
      {"1_0%", 10, std::nullopt, std::nullopt},
      {"five%", 10, std::nullopt, std::nullopt},
      {"9223372036854775808%", 0, std::nullopt, std::nullopt},
      {"-9223372036854775809%", 0, std::nullopt, std::nullopt},
      {"99999999999999999999999%", 0, std::nullopt, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value.to_string() + " of " + std::to_string(c.total));
    EXPECT_EQ(c.value.scaled_value(c.total, true), c.up);
    EXPECT_EQ(c.value.scaled_value(c.total, false), c.down);
  }
}

}  // namespace

namespace {

TEST(int_or_string_layout, holds_a_kubex_string_in_24_bytes) {
  EXPECT_EQ(sizeof(kubex::IntOrString), 24U);
  const kubex::IntOrString long_name = std::string(40, 'p');
  EXPECT_EQ(long_name.string_value().size(), 40U);
  EXPECT_EQ(long_name.to_string(), std::string(40, 'p'));
}

}  // namespace
