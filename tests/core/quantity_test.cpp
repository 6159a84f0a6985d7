// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/arena.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/quantity.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kubex {

// Lets GoogleTest print quantities in failure messages.
void PrintTo(const Quantity& q, std::ostream* os) {
  *os << q.canonical() << " (text \"" << q.original() << "\")";
}

}  // namespace kubex

namespace {

using kubex::Quantity;
using kubex::QuantityFormat;

Quantity q(std::string_view text) {
  return Quantity::must_parse(text);
}

struct CanonicalCase {
  std::string_view text;
  std::string_view canonical;
  QuantityFormat format;
};

constexpr auto si = QuantityFormat::decimal_si;
constexpr auto bin = QuantityFormat::binary_si;
constexpr auto exp = QuantityFormat::decimal_exponent;

// Expected values follow k8s.io/apimachinery resource.Quantity (ParseQuantity followed by
// String() on a value without cached text), including the rows of Go's own quantity tests
// that I remember; exceptions are marked.
constexpr CanonicalCase canonical_cases[] = {
    // Zero keeps the format of its suffix but is always written "0".
    {"0", "0", si},
    {"-0", "0", si},
    {"+0", "0", si},
    {"000", "0", si},
    {"0.000", "0", si},
    {"0Ki", "0", bin},
    {"0e5", "0", exp},
    {"0m", "0", si},
    // Plain and signed integers.
    {"1", "1", si},
    {"-1", "-1", si},
    {"+1", "1", si},
    {"001", "1", si},
    {"1024", "1024", si},
    {"1000", "1k", si},
    {"12345678901234567", "12345678901234567", si},
    {"9223372036854775807", "9223372036854775807", si},
    {"123456789012345678901234567890", "123456789012345678901234567890", si},
    {"12345678901234567890123456789012345678", "12345678901234567890123456789012345678", si},
    {"1234567890123456789012345678901234567800", "1234567890123456789012345678901234567800", si},
    // Fractions pick the SI suffix that makes the mantissa an integer.
    {"1.5", "1500m", si},
    {"-1.5", "-1500m", si},
    {"0.5", "500m", si},
    {".5", "500m", si},
    {"1.", "1", si},
    {"1.000", "1", si},
    {"1.08", "1080m", si},
    {"0.1", "100m", si},
    {"0.001", "1m", si},
    {".001", "1m", si},
    {"0.123456789", "123456789n", si},
    // SI suffixes.
    {"100m", "100m", si},
    {"1000m", "1", si},
    {"1500m", "1500m", si},
    {"1u", "1u", si},
    {"1000n", "1u", si},
    {"1500n", "1500n", si},
    {"1n", "1n", si},
    {"1k", "1k", si},
    {"1.5k", "1500", si},
    {"1000k", "1M", si},
    {"1M", "1M", si},
    {"100M", "100M", si},
    {"1234567M", "1234567M", si},
    {"1G", "1G", si},
    {"1.G", "1G", si},
    {"1T", "1T", si},
    {"1P", "1P", si},
    {"1E", "1E", si},
    {"12E", "12E", si},
    // Go cannot spell exponents above E correctly; kubex switches to e-notation.
    {"1000E", "1e21", si},
    // Rounding away from zero to 1n.
    {"3.001n", "4n", si},
    {"0.0000000001", "1n", si},
    {"-0.0000000001", "-1n", si},
    {"0.0000000005", "1n", si},
    {"0.00000012345", "124n", si},
    {"0.00000012354", "124n", si},
    {"0.1234567891", "123456790n", si},
    {"0.9999999999", "1", si},
    {"1.23456789012345678901234567890123456789", "1234567891n", si},
    // Binary suffixes: kept while the value is an integer of at least 1024, else decimal.
    {"1Ki", "1Ki", bin},
    {"-1Ki", "-1Ki", bin},
    {"+1Ki", "1Ki", bin},
    {"1024Ki", "1Mi", bin},
    {"1025Ki", "1025Ki", bin},
    {"100Mi", "100Mi", bin},
    {"1.5Gi", "1536Mi", bin},
    {"1.5Mi", "1536Ki", bin},
    {"1.5Ki", "1536", bin},
    {"0.5Ki", "512", bin},
    {"0.5Mi", "512Ki", bin},
    {"0.05Gi", "53687091200m", bin},
    {"0.025Ti", "27487790694400m", bin},
    {"100.035Ki", "102435840m", bin},
    {"1Ei", "1Ei", bin},
    {"1024Ei", "9223372036854775807", bin},  // capped at 2^63-1
    {"8Ei", "9223372036854775807", bin},
    {"9Ei", "9223372036854775807", bin},
    {"-9Ei", "-9223372036854775807", bin},
    {"9223372036854775807Ki", "9223372036854775807", bin},
    // A binary value below 1 becomes decimal (Go: "rounds up, changes format").
    {"0.000000000001Ki", "2n", si},  // 1024 × 10^-12, rounded up
    {"0.5e0", "500e-3", exp},
    // e-notation keeps e-notation, with exponents lowered to multiples of 3.
    {"1e3", "1e3", exp},
    {"1E3", "1e3", exp},
    {"1e+3", "1e3", exp},
    {"1e03", "1e3", exp},
    {"-1e3", "-1e3", exp},
    {"1E-3", "1e-3", exp},
    {"1e-9", "1e-9", exp},
    {"1.1E-9", "2e-9", exp},
    {"1e-10", "1e-9", exp},
    {"0.5e-9", "1e-9", exp},
    {"1e0", "1", exp},
    {"1e-0", "1", exp},
    {"1e1", "10", exp},
    {"1e2", "100", exp},
    {"12e2", "1200", exp},
    {"1.5e3", "1500", exp},
    {"50e-1", "5", exp},
    {"80e-3", "80e-3", exp},
    {"300e6", "300e6", exp},
    {"1e1000", "10e999", exp},
    {"1e-1000", "1e-9", exp},
    {"1e2147483647", "10e2147483646", exp},
    {"1e-2147483648", "1e-9", exp},
    {"1e-2147483649", "1e-9", exp},
    {"1e-999999999999999999", "1e-9", exp},
    {"1e-1000000000000000000", "1e-9", exp},
    {"0.1e2147483648", "10e2147483646", exp},
    {"100e2147483645", "10e2147483646", exp},
    {"1.5e2147483646", "1500e2147483643", exp},
    {"1.5e2147483648", "150e2147483646", exp},
    {"1e0000000000000000000000003", "1e3", exp},
};

TEST(quantity_test, parses_and_canonicalizes) {
  for (const auto& c : canonical_cases) {
    SCOPED_TRACE(c.text);
    const auto parsed = Quantity::parse(c.text);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->canonical(), c.canonical);
    EXPECT_EQ(parsed->format(), c.format);
    EXPECT_EQ(parsed->original(), c.text);
    EXPECT_EQ(parsed->to_string(), c.text);
    // The canonical text denotes the same value and is its own canonical form.
    const auto reparsed = Quantity::parse(c.canonical);
    ASSERT_TRUE(reparsed.has_value());
    EXPECT_EQ(*reparsed, *parsed);
    EXPECT_EQ(reparsed->canonical(), c.canonical);
  }
}

constexpr std::string_view invalid_quantities[] = {
    "",
    ".",
    "+",
    "-",
    "+.",
    "-.",
    "Ki",
    "m",
    "e3",
    "1KiB",
    "1 Ki",
    " 1",
    "1 ",
    "1\n",
    "--1",
    "+-1",
    "-+1",
    "1e",
    "1E+",
    "1e-",
    "1ee3",
    "1e3.5",
    "1e3Ki",
    "1Ki1",
    "1.1.M",
    "1+1.0M",
    "1.5.5",
    "0.1mi",
    "0.1am",
    "aoeu",
    "1i",
    ".5i",
    "1ki",
    "1K",
    "1KI",
    "1k3",
    "1mm",
    "1Kii",
    "1x",
    "-3.01e-",
    "0x10",
    "1,5",
    "1_000",
    "1e2147483648",
    "1e99999999999999999999",
    "1e-9999999999999999999",
    "1e-1000000000000000001",
    "1e1000000000000000000",
    "1e9223372036854775807",
    "1e-9223372036854775808",
    "1e18446744073709551616",
    "10e2147483647",
    "1e2147483647k",
    "123456789012345678901234567890123456789",  // 39 significant digits
    std::string_view("1\0", 2),
};

TEST(quantity_test, rejects_invalid_text) {
  for (const auto text : invalid_quantities) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(Quantity::parse(text).has_value());
    EXPECT_THROW((void)Quantity::must_parse(text), kubex::Error);
  }
}

TEST(quantity_test, must_parse_names_the_text_and_the_problem) {
  try {
    (void)Quantity::must_parse("1KiB");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_quantity);
    EXPECT_EQ(e.code().message(), "invalid quantity");
    EXPECT_NE(std::string(e.what()).find("\"1KiB\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("suffix"), std::string::npos) << e.what();
  }
  try {
    (void)Quantity::must_parse("1e9999999999");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("exponent out of range"), std::string::npos) << e.what();
  }
  try {
    (void)Quantity::must_parse(std::string(100, '7') + "x");
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    // Long text is cut short in the message.
    EXPECT_NE(std::string(e.what()).find("...\""), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 200U) << e.what();
  }
  EXPECT_EQ(Quantity::must_parse("250m").canonical(), "250m");
}

TEST(quantity_test, keeps_the_original_text_until_changed) {
  auto value = q("1000m");
  EXPECT_EQ(value.original(), "1000m");
  EXPECT_EQ(value.to_string(), "1000m");
  EXPECT_EQ(value.canonical(), "1");
  value += q("0");
  EXPECT_EQ(value.original(), "");
  EXPECT_EQ(value.to_string(), "1");

  const Quantity constructed = Quantity::from_int64(5);
  EXPECT_EQ(constructed.original(), "");
  EXPECT_EQ(constructed.to_string(), "5");

  const Quantity zero;
  EXPECT_TRUE(zero.is_zero());
  EXPECT_EQ(zero.to_string(), "0");
  EXPECT_EQ(zero.format(), QuantityFormat::decimal_si);
}

TEST(quantity_test, compares_by_value_across_formats) {
  EXPECT_EQ(q("1000m"), q("1"));
  EXPECT_EQ(q("1Ki"), q("1024"));
  EXPECT_EQ(q("1e3"), q("1k"));
  EXPECT_EQ(q("1.5Gi"), q("1536Mi"));
  EXPECT_EQ(q("0.5Ki"), q("512"));
  EXPECT_EQ(q("-0"), q("0"));
  EXPECT_EQ(q("0Ki"), q("0e7"));
  EXPECT_EQ(q("1e-1000"), q("1n"));
  EXPECT_EQ(q("1e-9"), q("0.000000001"));
  EXPECT_EQ(q("1e18"), q("1E"));
  EXPECT_EQ(q("1000E"), q("1e21"));
  EXPECT_NE(q("1Mi"), q("1M"));
  EXPECT_GT(q("1Mi"), q("1M"));
  EXPECT_LT(q("1n"), q("1u"));
  EXPECT_LT(q("-1"), q("0"));
  EXPECT_LT(q("-2"), q("-1"));
  EXPECT_LT(q("-1Ki"), q("-1k"));
  EXPECT_LT(q("999m"), q("1"));
  EXPECT_LT(q("1"), q("1001m"));
  EXPECT_GT(q("1e1000"), q("9Ei"));
  EXPECT_LT(q("-1e1000"), q("-9Ei"));
  EXPECT_LT(q("1e999"), q("1e1000"));
  EXPECT_GT(q("-1e999"), q("-1e1000"));
  EXPECT_LT(q("12345678901234567890123456789012345678"),
            q("12345678901234567890123456789012345679"));
  EXPECT_LT(q("1234567890123456789012345678901234567n"),
            q("1234567890123456789012345678901234568n"));
  EXPECT_EQ(q("1") <=> q("1000m"), std::weak_ordering::equivalent);

  std::vector<Quantity> values = {q("1Gi"),  q("-1"), q("1G"),  q("0"),    q("1n"),
                                  q("1e-3"), q("2k"), q("1Ki"), q("-1.5"), q("1e30")};
  std::sort(values.begin(), values.end());
  std::vector<std::string> sorted;
  for (const auto& v : values) {
    sorted.push_back(v.to_string());
  }
  EXPECT_EQ(sorted, (std::vector<std::string>{"-1.5", "-1", "0", "1n", "1e-3", "1Ki", "2k", "1G",
                                              "1Gi", "1e30"}));
}

TEST(quantity_test, adds_and_subtracts_exactly) {
  EXPECT_EQ((q("1") + q("500m")).canonical(), "1500m");
  EXPECT_EQ((q("1Gi") + q("512Mi")).canonical(), "1536Mi");
  EXPECT_EQ((q("1Gi") + q("512Mi")).format(), QuantityFormat::binary_si);
  EXPECT_EQ((q("1Ki") - q("1Ki")).canonical(), "0");
  EXPECT_EQ((q("100m") - q("1")).canonical(), "-900m");
  EXPECT_EQ((q("1e3") + q("1")).canonical(), "1001");
  EXPECT_EQ((q("1e3") + q("1")).format(), QuantityFormat::decimal_exponent);
  EXPECT_EQ((q("1Ki") + q("0.5")).canonical(), "1024500m");
  EXPECT_EQ((q("1") + q("1Ki")).canonical(), "1025");
  EXPECT_EQ((q("1") + q("1Ki")).format(), QuantityFormat::decimal_si);
  EXPECT_EQ((q("1n") + q("1E")).canonical(), "1000000000000000000000000001n");
  EXPECT_EQ((q("-1") + q("1")).canonical(), "0");
  EXPECT_EQ((q("-1") - q("1")).canonical(), "-2");
  EXPECT_EQ((q("-1.5") + q("-1.5")).canonical(), "-3");
  EXPECT_EQ((q("8Ei") + q("8Ei")).canonical(), "18446744073709551614");  // capped operands
  // Binary sums above 2^63-1 are written in decimal, because binary text would be capped.
  EXPECT_EQ((q("4Ei") + q("4Ei")).canonical(), "9223372036854775808");
  EXPECT_EQ((q("4Ei") + q("4Ei")).format(), QuantityFormat::binary_si);
  EXPECT_EQ((q("4Ei") + q("4Ei") - q("1")).canonical(), "9223372036854775807");
  EXPECT_EQ((q("4Ei") + q("2Ei")).canonical(), "6Ei");
  EXPECT_EQ((-(q("4Ei") + q("4Ei"))).canonical(), "-9223372036854775808");

  // A zero left operand takes the right operand's format, as Go's Add does.
  EXPECT_EQ((q("0") + q("1Ki")).canonical(), "1Ki");
  EXPECT_EQ((Quantity() + q("1e3")).canonical(), "1e3");
  EXPECT_EQ((Quantity() - q("2Ki")).canonical(), "-2Ki");

  // Operands whose scales are far apart still add when the result fits 38 digits.
  const auto big = q("1e38");
  const auto almost = q("99999999999999999999999999999999999999");
  EXPECT_EQ((big - almost).canonical(), "1");
  EXPECT_EQ((almost - big).canonical(), "-1");
  EXPECT_EQ((q("1e100") - q("1e100")).canonical(), "0");
  EXPECT_EQ((q("1e100") + q("1e100")).canonical(), "20e99");

  auto total = q("100m");
  total += q("200m");
  total -= q("50m");
  EXPECT_EQ(total.canonical(), "250m");
  EXPECT_EQ(total.original(), "");
}

TEST(quantity_test, arithmetic_that_needs_more_digits_throws) {
  try {
    (void)(q("1e100") + q("1"));
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_quantity);
    EXPECT_EQ(std::string(e.what()),
              "quantity arithmetic overflow: 1e100 + 1 cannot be represented exactly");
  }
  try {
    (void)(q("-1e100") - q("1n"));
    FAIL() << "no exception";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "quantity arithmetic overflow: -1e100 - 1n cannot be represented exactly");
  }
  // Carrying past the largest scale.
  EXPECT_THROW((void)(q("5e2147483647") + q("5e2147483647")), kubex::Error);
  EXPECT_EQ((q("4e2147483647") + q("5e2147483647")).canonical(), "90e2147483646");
  EXPECT_THROW((void)(q("99999999999999999999999999999999999999") + q("2")), kubex::Error);
  EXPECT_THROW((void)(q("-99999999999999999999999999999999999999") - q("2")), kubex::Error);
  EXPECT_THROW((void)(q("99999999999999999999999999999999999999") + q("1n")), kubex::Error);
  // 10^38 itself is fine: one significant digit.
  EXPECT_EQ((q("99999999999999999999999999999999999999") + q("1")).canonical(), "100e36");
  EXPECT_THROW((void)(q("1e2147483647") - q("1n")), kubex::Error);
  // A failed operation leaves the operand untouched.
  auto value = q("1e100");
  EXPECT_THROW(value += q("1"), kubex::Error);
  EXPECT_EQ(value.to_string(), "1e100");
}

TEST(quantity_test, negates) {
  EXPECT_EQ((-q("1Ki")).canonical(), "-1Ki");
  EXPECT_EQ((-q("1Ki")).format(), QuantityFormat::binary_si);
  EXPECT_EQ((-q("-1")).canonical(), "1");
  EXPECT_EQ((-q("0")).canonical(), "0");
  EXPECT_EQ(-q("0"), q("0"));
  EXPECT_EQ((-q("5")).original(), "");
  EXPECT_EQ(q("-1").sign(), -1);
  EXPECT_EQ(q("0").sign(), 0);
  EXPECT_EQ(q("1n").sign(), 1);
}

TEST(quantity_test, value_and_milli_value_round_up) {
  struct Case {
    std::string_view text;
    std::int64_t value;
    std::int64_t milli;
  };
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  constexpr Case cases[] = {
      {"0", 0, 0},
      {"1", 1, 1000},
      {"100m", 1, 100},
      {"1.5", 2, 1500},
      {"1u", 1, 1},
      {"1n", 1, 1},
      {"1001m", 2, 1001},
      {"1Ki", 1024, 1024000},
      {"1.5Gi", 1610612736, 1610612736000},
      {"1e3", 1000, 1000000},
      {"1e-3", 1, 1},
      // Go documents ScaledValue as ceil(q / 10^scale); for negative values that is towards
      // zero. (Go's int64 fast path may disagree; see the report.)
      {"-1.5", -1, -1500},
      {"-1u", 0, 0},
      {"-100m", 0, -100},
      {"-1", -1, -1000},
      // Saturation instead of overflow.
      {"9223372036854775807", max, max},
      {"9223372036854775808", max, max},
      {"9223372036854775.807", 9223372036854776, max},
      {"9223372036854775.807m", 9223372036855, 9223372036854776},
      {"-9223372036854775808", min, min},
      {"-9223372036854775809", min, min},
      {"9Ei", max, max},
      {"1e100", max, max},
      {"-1e100", min, min},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto value = q(c.text);
    EXPECT_EQ(value.value(), c.value);
    EXPECT_EQ(value.milli_value(), c.milli);
    EXPECT_EQ(value.scaled_value(0), c.value);
    EXPECT_EQ(value.scaled_value(-3), c.milli);
  }
  EXPECT_EQ(q("1").scaled_value(-9), 1000000000);
  EXPECT_EQ(q("1500").scaled_value(3), 2);
  EXPECT_EQ(q("1G").scaled_value(9), 1);
  EXPECT_EQ(q("1G").scaled_value(6), 1000);
  EXPECT_EQ(q("1n").scaled_value(100), 1);
  EXPECT_EQ(q("-1n").scaled_value(100), 0);
  EXPECT_EQ(q("1e100").scaled_value(100), 1);
  EXPECT_EQ(q("1e100").scaled_value(98), 100);
}

TEST(quantity_test, converts_to_double) {
  EXPECT_EQ(q("0").as_double(), 0.0);
  EXPECT_EQ(q("1.5").as_double(), 1.5);
  EXPECT_EQ(q("100m").as_double(), 0.1);
  EXPECT_EQ(q("1Ki").as_double(), 1024.0);
  EXPECT_EQ(q("-1e-9").as_double(), -1e-9);
  EXPECT_EQ(q("1e308").as_double(), 1e308);
  EXPECT_EQ(q("12345678901234567890123456789012345678").as_double(),
            1.2345678901234567890123456789012345678e37);
  EXPECT_EQ(q("1e400").as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(q("-1e400").as_double(), -std::numeric_limits<double>::infinity());
}

TEST(quantity_test, constructs_from_integers) {
  using F = QuantityFormat;
  EXPECT_EQ(Quantity::from_int64(0).canonical(), "0");
  EXPECT_EQ(Quantity::from_int64(1000).canonical(), "1k");
  EXPECT_EQ(Quantity::from_int64(1024, F::binary_si).canonical(), "1Ki");
  EXPECT_EQ(Quantity::from_int64(5, F::binary_si).canonical(), "5");
  EXPECT_EQ(Quantity::from_int64(5, F::binary_si).format(), F::binary_si);
  EXPECT_EQ(Quantity::from_int64(3000, F::decimal_exponent).canonical(), "3e3");
  EXPECT_EQ(Quantity::from_int64(std::numeric_limits<std::int64_t>::min()).canonical(),
            "-9223372036854775808");
  EXPECT_EQ(Quantity::from_int64(std::numeric_limits<std::int64_t>::max()).value(),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Quantity::from_milli(1500).canonical(), "1500m");
  EXPECT_EQ(Quantity::from_milli(1).canonical(), "1m");
  EXPECT_EQ(Quantity::from_milli(1000).canonical(), "1");
  EXPECT_EQ(Quantity::from_milli(-250).canonical(), "-250m");
  EXPECT_EQ(Quantity::from_milli(500, F::binary_si).format(), F::decimal_si);  // below 1
  EXPECT_EQ(Quantity::from_milli(1536000, F::binary_si).canonical(), "1536");
  EXPECT_EQ(Quantity::from_milli(1500), q("1.5"));
  EXPECT_EQ(Quantity::from_int64(1024, F::binary_si), q("1Ki"));
}

}  // namespace

namespace {

// Models hold many quantities (resources, capacity, overhead): the layout stays compact, its
// original text a kubex::String, which a decode puts in its arena and which outlives it.
TEST(quantity_layout, takes_40_bytes_and_keeps_long_text_made_in_an_arena) {
  EXPECT_EQ(sizeof(kubex::Quantity), 40U);
  std::optional<kubex::Quantity> q;
  {
    kubex::Arena arena(4096);
    const kubex::ArenaScope scope(&arena);
    q = kubex::Quantity::parse("1234567.891011121314Mi");
  }
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->original(), "1234567.891011121314Mi");
  EXPECT_EQ(q->to_string(), "1234567.891011121314Mi");
}

}  // namespace
