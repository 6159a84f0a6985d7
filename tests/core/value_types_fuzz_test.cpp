// SPDX-License-Identifier: Apache-2.0
// Robustness tests: a few hundred thousand pseudo-random inputs per parser, from a fixed seed
// so that any failure reproduces. Inputs are built from the characters and pieces each grammar
// cares about, so that a good share of them is valid and the rest fails in many different
// places. Every parse must terminate without crashing (the asan preset checks memory errors
// and undefined behaviour), and whatever parses must survive a round trip.

#include <kubex/core/base64.hpp>
#include <kubex/core/bytes.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/int_or_string.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/core/time.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace {

using kubex::Quantity;

constexpr int iterations = 300'000;

/// SplitMix64: tiny, fast, and the same sequence on every platform (unlike the distributions
/// of <random>, whose output is implementation-defined).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }

  /// Uniform enough in [0, n) for test input generation.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

  bool chance(std::size_t percent) { return below(100) < percent; }

  char pick(std::string_view chars) { return chars[below(chars.size())]; }

  template <std::size_t N>
  std::string_view pick(const std::array<std::string_view, N>& options) {
    return options[below(N)];
  }

 private:
  std::uint64_t state_;
};

std::string digits(Random& r, std::size_t max_length) {
  std::string out;
  const std::size_t length = r.below(max_length + 1);
  for (std::size_t i = 0; i < length; ++i) {
    out.push_back(static_cast<char>('0' + r.below(10)));
  }
  return out;
}

/// Replaces, inserts or deletes a few characters.
void mutate(Random& r, std::string& text, std::string_view alphabet) {
  const std::size_t edits = r.below(3) + 1;
  for (std::size_t i = 0; i < edits; ++i) {
    const std::size_t pos = text.empty() ? 0 : r.below(text.size());
    switch (r.below(3)) {
      case 0:
        if (!text.empty()) {
          text[pos] = r.pick(alphabet);
        }
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), r.pick(alphabet));
        break;
      default:
        if (!text.empty()) {
          text.erase(pos, 1);
        }
        break;
    }
  }
}

std::string random_quantity_text(Random& r) {
  static constexpr std::array<std::string_view, 30> suffixes = {
      "",   "",   "",   "n", "u", "m",  "k",  "M", "G", "T",   "P",  "E",  "Ki",  "Mi",  "Gi",
      "Ti", "Pi", "Ei", "e", "E", "e-", "e+", "i", "K", "KiB", "mm", "e3", "E-3", "e99", "e-99"};
  std::string text;
  if (r.chance(30)) {
    text.push_back(r.pick("+-"));
  }
  text += digits(r, r.chance(10) ? 45 : 8);
  if (r.chance(40)) {
    text.push_back('.');
    text += digits(r, r.chance(10) ? 30 : 6);
  }
  text += r.pick(suffixes);
  if (r.chance(15)) {
    text += digits(r, 12);  // more exponent digits, or garbage after a suffix
  }
  if (r.chance(20)) {
    mutate(r, text, "0123456789.+-eEinumkKMGTP ");
  }
  return text;
}

TEST(value_types_fuzz_test, quantity) {
  Random r(0x5EED0001);
  std::optional<Quantity> previous;
  int parsed = 0;
  for (int i = 0; i < iterations; ++i) {
    const std::string text = random_quantity_text(r);
    const auto q = Quantity::parse(text);
    if (!q) {
      continue;
    }
    ++parsed;
    ASSERT_EQ(q->to_string(), text);

    // parse(canonical(x)) == x, and canonical() is a fixed point.
    const std::string canonical = q->canonical();
    const auto again = Quantity::parse(canonical);
    ASSERT_TRUE(again.has_value()) << text << " -> " << canonical;
    ASSERT_TRUE(*again == *q) << text << " -> " << canonical;
    ASSERT_EQ(again->canonical(), canonical) << text;

    // value() and milli_value() are ceilings (checked where they do not saturate).
    const std::int64_t value = q->value();
    if (value > INT64_MIN && value < INT64_MAX) {
      ASSERT_TRUE(Quantity::from_int64(value) >= *q) << text;
      ASSERT_TRUE(Quantity::from_int64(value - 1) < *q) << text;
    }
    const std::int64_t milli = q->milli_value();
    if (milli > INT64_MIN && milli < INT64_MAX) {
      ASSERT_TRUE(Quantity::from_milli(milli) >= *q) << text;
      ASSERT_TRUE(Quantity::from_milli(milli - 1) < *q) << text;
    }

    if (previous) {
      // Rounding to double is monotonic, so distinct doubles must agree with the exact order.
      const double a = previous->as_double();
      const double b = q->as_double();
      if (a < b) {
        ASSERT_TRUE(*previous < *q) << previous->to_string() << " vs " << text;
      } else if (a > b) {
        ASSERT_TRUE(*previous > *q) << previous->to_string() << " vs " << text;
      }
      ASSERT_EQ(*previous == *q, (*previous <=> *q) == 0);
      // Addition is exact: (a + b) - b == a whenever it is representable.
      try {
        const Quantity sum = *previous + *q;
        ASSERT_TRUE(sum - *q == *previous) << previous->to_string() << " + " << text;
        ASSERT_TRUE(Quantity::parse(sum.canonical()) == sum) << sum.canonical();
      } catch (const kubex::Error& e) {
        ASSERT_EQ(e.code(), kubex::errc::invalid_quantity);
      }
    }
    previous = q;
  }
  // The generator must exercise the success path too.
  EXPECT_GT(parsed, iterations / 5);
}

TEST(value_types_fuzz_test, time) {
  Random r(0x5EED0002);
  // Seconds from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
  constexpr std::int64_t first = -62167219200;
  constexpr std::int64_t last = 253402300799;
  int parsed = 0;
  for (int i = 0; i < iterations; ++i) {
    // A valid timestamp of a random instant, then maybe an offset, a fraction and mutations.
    const auto ticks =
        static_cast<std::int64_t>(r.below(static_cast<std::size_t>(last - first + 1) * 1'000'000));
    const kubex::MicroTime instant(
        kubex::MicroTime::time_point_type(std::chrono::microseconds(first * 1'000'000 + ticks)));
    std::string text = instant.format();
    ASSERT_TRUE(kubex::MicroTime::parse(text) == instant) << text;
    if (r.chance(30)) {
      text.erase(19, 7);  // drop the fraction
    } else if (r.chance(30)) {
      text.insert(26, digits(r, 5));  // longer fraction
    }
    if (r.chance(30)) {
      text.pop_back();
      text += r.pick("+-");
      text += digits(r, 2) + ":" + digits(r, 2);
    }
    if (r.chance(50)) {
      mutate(r, text, "0123456789-:T.Z+ tz");
    }

    const auto time = kubex::Time::parse(text);
    const auto micro = kubex::MicroTime::parse(text);
    ASSERT_EQ(time.has_value(), micro.has_value()) << text;
    if (!time) {
      continue;
    }
    ++parsed;
    ASSERT_TRUE(std::chrono::floor<std::chrono::seconds>(micro->time_point()) == time->time_point())
        << text;
    ASSERT_TRUE(kubex::Time::parse(time->format()) == time) << text;
    ASSERT_TRUE(kubex::MicroTime::parse(micro->format()) == micro) << text;
    if (text.size() == 20 && text.back() == 'Z') {
      ASSERT_EQ(time->format(), text);  // already canonical
    }
  }
  EXPECT_GT(parsed, iterations / 5);
}

TEST(value_types_fuzz_test, int_or_string) {
  Random r(0x5EED0003);
  int parsed = 0;
  for (int i = 0; i < iterations; ++i) {
    std::string text;
    if (r.chance(40)) {
      text.push_back(r.pick("+- "));
    }
    text += digits(r, r.chance(10) ? 25 : 4);
    if (r.chance(90)) {
      text.push_back('%');
    }
    if (r.chance(15)) {
      mutate(r, text, "0123456789%+-. x");
    }
    const int total = static_cast<int>(r.below(2001)) - 1000;
    const kubex::IntOrString value(text);
    const auto up = value.scaled_value(total, true);
    const auto down = value.scaled_value(total, false);
    ASSERT_EQ(up.has_value(), down.has_value()) << text;
    if (!up) {
      continue;
    }
    ++parsed;
    ASSERT_GE(*up, *down) << text;
    ASSERT_LE(*up - *down, 1) << text;
    // Go computes with float64; for moderate products that is exact, so both must agree.
    const double percent = std::stod(text.substr(0, text.size() - 1));
    if (std::abs(percent * total) < 1e12) {
      ASSERT_EQ(*up, static_cast<int>(std::ceil(percent * total / 100))) << text;
      ASSERT_EQ(*down, static_cast<int>(std::floor(percent * total / 100))) << text;
    }
  }
  EXPECT_GT(parsed, iterations / 5);
}

TEST(value_types_fuzz_test, bytes) {
  Random r(0x5EED0004);
  constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int parsed = 0;
  for (int i = 0; i < iterations; ++i) {
    // Random binary data survives an encode/decode round trip.
    std::string data;
    const std::size_t length = r.below(40);
    for (std::size_t j = 0; j < length; ++j) {
      data.push_back(static_cast<char>(r.below(256)));
    }
    const kubex::Bytes bytes(data);
    const std::string encoded = bytes.to_base64();
    ASSERT_EQ(kubex::Bytes::from_base64(encoded), bytes);

    // Mutated encodings either fail or decode to something that re-encodes consistently.
    std::string text = encoded;
    if (r.chance(70)) {
      mutate(r, text, alphabet);
    }
    if (r.chance(30)) {
      mutate(r, text, "=\r\n \t-_!");
    }
    const auto decoded = kubex::Bytes::from_base64(text);
    if (!decoded) {
      continue;
    }
    ++parsed;
    ASSERT_EQ(kubex::Bytes::from_base64(decoded->to_base64()), decoded) << text;
    // Whatever the strict decoder accepts, the lenient one accepts with the same result.
    ASSERT_EQ(kubex::base64_decode(text), decoded->str()) << text;
    // Without line breaks the valid text is as long as the canonical encoding.
    std::string compact;
    for (const char c : text) {
      if (c != '\r' && c != '\n') {
        compact.push_back(c);
      }
    }
    ASSERT_EQ(compact.size(), decoded->to_base64().size()) << text;
  }
  EXPECT_GT(parsed, iterations / 5);
}

}  // namespace
