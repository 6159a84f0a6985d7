// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/quantity.hpp>

#include <array>
#include <charconv>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace kubex {
namespace {

// 128-bit integers are a GCC/Clang extension; __extension__ keeps -Wpedantic quiet about them.
// They stay in this file: the header stores the magnitude as two 64-bit halves.
__extension__ using u128 = unsigned __int128;

constexpr int max_digits = 38;
constexpr std::int32_t nano_scale = -9;
// The largest scale a Quantity may have. Go's scales are int32 (and it parses exponents as
// int64, then silently truncates them to int32), so larger values mean nothing to Kubernetes;
// bounding the normalized scale, rather than the exponent as written, guarantees that
// canonical() always parses back.
constexpr std::int64_t max_scale = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t max_exponent = 1'000'000'000'000'000'000;

constexpr std::array<u128, max_digits + 1> make_powers_of_ten() {
  std::array<u128, max_digits + 1> powers{};
  u128 power = 1;
  for (auto& p : powers) {
    p = power;
    power *= 10;
  }
  return powers;
}

constexpr auto powers_of_ten = make_powers_of_ten();  // powers_of_ten[i] == 10^i
constexpr u128 magnitude_limit = powers_of_ten[max_digits];
constexpr u128 u128_max = ~u128{0};

/// A decimal value: (negative ? -1 : 1) × magnitude × 10^scale.
struct Decimal {
  bool negative = false;
  u128 magnitude = 0;
  std::int64_t scale = 0;
};

int digit_count(u128 v) noexcept {
  int count = 1;
  while (count <= max_digits && v >= powers_of_ten[static_cast<std::size_t>(count)]) {
    ++count;
  }
  return count;
}

std::string to_decimal_string(u128 v) {
  std::array<char, 40> buffer{};
  std::size_t begin = buffer.size();
  do {
    buffer[--begin] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return {buffer.data() + begin, buffer.size() - begin};
}

/// Moves trailing zeros of the magnitude into the scale and makes zero +0 × 10^0, which gives
/// every value exactly one representation.
Decimal normalize(Decimal d) noexcept {
  if (d.magnitude == 0) {
    return {};
  }
  while (d.magnitude % 10 == 0) {
    d.magnitude /= 10;
    ++d.scale;
  }
  return d;
}

std::strong_ordering compare_magnitudes(const Decimal& a, const Decimal& b) noexcept {
  // Normalized operands: compare orders of magnitude first, so that scales far apart never
  // need a multiplication that could overflow.
  const std::int64_t a_order = digit_count(a.magnitude) + a.scale;
  const std::int64_t b_order = digit_count(b.magnitude) + b.scale;
  if (a_order != b_order) {
    return a_order <=> b_order;
  }
  // Same order: the scales differ by less than 38, so aligning them stays below 10^38.
  if (a.scale > b.scale) {
    return a.magnitude * powers_of_ten[static_cast<std::size_t>(a.scale - b.scale)] <=> b.magnitude;
  }
  return a.magnitude <=> b.magnitude * powers_of_ten[static_cast<std::size_t>(b.scale - a.scale)];
}

int sign_of(const Decimal& d) noexcept {
  if (d.magnitude == 0) {
    return 0;
  }
  return d.negative ? -1 : 1;
}

std::strong_ordering compare(const Decimal& a, const Decimal& b) noexcept {
  const int a_sign = sign_of(a);
  const int b_sign = sign_of(b);
  if (a_sign != b_sign || a_sign == 0) {
    return a_sign <=> b_sign;
  }
  const auto order = compare_magnitudes(a, b);
  return a_sign > 0 ? order : 0 <=> order;
}

/// Multiplies by 10^shift; false if the result does not fit 128 bits.
bool shift_left(u128& magnitude, std::int64_t shift) noexcept {
  if (magnitude == 0 || shift == 0) {
    return true;
  }
  if (shift > max_digits) {
    return false;
  }
  const u128 factor = powers_of_ten[static_cast<std::size_t>(shift)];
  if (magnitude > u128_max / factor) {
    return false;
  }
  magnitude *= factor;
  return true;
}

/// The exact sum of two normalized values, or std::nullopt if it is not representable: more
/// than 38 digits, or (by carrying, as in 5e2147483647 + 5e2147483647) a scale above max_scale.
std::optional<Decimal> add(const Decimal& a, const Decimal& b) noexcept {
  if (a.magnitude == 0) {
    return b;
  }
  if (b.magnitude == 0) {
    return a;
  }
  const std::int64_t scale = a.scale < b.scale ? a.scale : b.scale;
  u128 x = a.magnitude;
  u128 y = b.magnitude;
  // An operand that does not fit 128 bits once aligned is at least 2^128 > 3 × 10^38 while the
  // other is below 10^38 (its last digit is non-zero at this scale), so even the difference
  // needs 39 digits: not representable.
  if (!shift_left(x, a.scale - scale) || !shift_left(y, b.scale - scale)) {
    return std::nullopt;
  }
  Decimal sum;
  sum.scale = scale;
  if (a.negative == b.negative) {
    if (x > u128_max - y) {
      return std::nullopt;
    }
    sum.negative = a.negative;
    sum.magnitude = x + y;
  } else if (x >= y) {
    sum.negative = a.negative;
    sum.magnitude = x - y;
  } else {
    sum.negative = b.negative;
    sum.magnitude = y - x;
  }
  sum = normalize(sum);
  if (sum.magnitude >= magnitude_limit || sum.scale > max_scale) {
    return std::nullopt;
  }
  return sum;
}

/// ceil(value / 10^target), saturated to int64.
std::int64_t scaled(const Decimal& d, std::int64_t target) noexcept {
  constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
  constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
  constexpr u128 positive_limit = static_cast<u128>(int64_max);
  constexpr u128 negative_limit = positive_limit + 1;  // |int64 min|
  if (d.magnitude == 0) {
    return 0;
  }
  u128 magnitude = d.magnitude;
  const std::int64_t shift = d.scale - target;
  if (shift >= 0) {
    if (!shift_left(magnitude, shift)) {
      return d.negative ? int64_min : int64_max;
    }
  } else {
    // Dividing: the quotient truncates toward zero, which is already the ceiling for negative
    // values; positive values with a remainder go up by one.
    const std::int64_t places = -shift;
    bool remainder = false;
    if (places > max_digits) {
      remainder = true;
      magnitude = 0;
    } else {
      const u128 divisor = powers_of_ten[static_cast<std::size_t>(places)];
      remainder = magnitude % divisor != 0;
      magnitude /= divisor;
    }
    if (remainder && !d.negative) {
      ++magnitude;
    }
  }
  if (d.negative) {
    if (magnitude >= negative_limit) {
      return int64_min;
    }
    return -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > positive_limit) {
    return int64_max;
  }
  return static_cast<std::int64_t>(magnitude);
}

enum class ParseError {
  none,
  empty,
  no_digits,
  bad_suffix,
  exponent_range,
  too_many_digits,
};

struct ParseResult {
  ParseError error = ParseError::none;
  Decimal value;
  QuantityFormat format = QuantityFormat::decimal_si;
};

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

struct Suffix {
  QuantityFormat format = QuantityFormat::decimal_si;
  std::int64_t exponent = 0;  // power of 10, or of 2 for binary_si
};

/// Interprets what follows the number. Exponent digits are limited to 10^18 in magnitude so that
/// the scale arithmetic cannot overflow; parse_quantity() then checks the resulting scale.
std::optional<Suffix> interpret_suffix(std::string_view suffix, ParseError& error) noexcept {
  using enum QuantityFormat;
  error = ParseError::bad_suffix;
  if (suffix.empty()) {
    return Suffix{decimal_si, 0};
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        return Suffix{decimal_si, -9};
      case 'u':
        return Suffix{decimal_si, -6};
      case 'm':
        return Suffix{decimal_si, -3};
      case 'k':
        return Suffix{decimal_si, 3};
      case 'M':
        return Suffix{decimal_si, 6};
      case 'G':
        return Suffix{decimal_si, 9};
      case 'T':
        return Suffix{decimal_si, 12};
      case 'P':
        return Suffix{decimal_si, 15};
      case 'E':
        return Suffix{decimal_si, 18};
      default:
        return std::nullopt;
    }
  }
  if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view prefixes = "KMGTPE";
    const auto index = prefixes.find(suffix[0]);
    if (index != std::string_view::npos) {
      return Suffix{binary_si, static_cast<std::int64_t>(10 * (index + 1))};
    }
    return std::nullopt;
  }
  if (suffix[0] != 'e' && suffix[0] != 'E') {
    return std::nullopt;
  }
  std::size_t pos = 1;
  const bool negative = suffix[pos] == '-';
  if (suffix[pos] == '-' || suffix[pos] == '+') {
    ++pos;
  }
  if (pos == suffix.size()) {
    return std::nullopt;
  }
  std::int64_t exponent = 0;
  for (; pos < suffix.size(); ++pos) {
    if (!is_digit(suffix[pos])) {
      return std::nullopt;
    }
    const int digit = suffix[pos] - '0';
    if (exponent > (max_exponent - digit) / 10) {
      error = ParseError::exponent_range;
      return std::nullopt;
    }
    exponent = exponent * 10 + digit;
  }
  return Suffix{decimal_exponent, negative ? -exponent : exponent};
}

/// Multiplies a decimal digit string by `factor` in place.
void multiply_digits(std::string& digits, std::uint32_t factor) {
  std::uint64_t carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const std::uint64_t product = static_cast<std::uint64_t>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + static_cast<int>(product % 10));
    carry = product / 10;
  }
  std::string prefix;
  while (carry != 0) {
    prefix.insert(prefix.begin(), static_cast<char>('0' + static_cast<int>(carry % 10)));
    carry /= 10;
  }
  digits.insert(0, prefix);
}

/// Adds one to a decimal digit string in place.
void increment_digits(std::string& digits) {
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (*it != '9') {
      ++*it;
      return;
    }
    *it = '0';
  }
  digits.insert(digits.begin(), '1');
}

ParseResult parse_quantity(std::string_view text) {
  ParseResult result;
  if (text.empty()) {
    result.error = ParseError::empty;
    return result;
  }

  std::size_t pos = 0;
  const bool negative = text[0] == '-';
  if (text[0] == '-' || text[0] == '+') {
    ++pos;
  }
  const std::size_t integer_begin = pos;
  while (pos < text.size() && is_digit(text[pos])) {
    ++pos;
  }
  const std::string_view integer_part = text.substr(integer_begin, pos - integer_begin);
  std::string_view fraction_part;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t fraction_begin = ++pos;
    while (pos < text.size() && is_digit(text[pos])) {
      ++pos;
    }
    fraction_part = text.substr(fraction_begin, pos - fraction_begin);
  }
  // Go's hand-written scanner reads "", ".", "+" or "Ki" as zero; that is an accident of its
  // implementation rather than a documented form, so kubex requires at least one digit.
  if (integer_part.empty() && fraction_part.empty()) {
    result.error = ParseError::no_digits;
    return result;
  }

  const auto suffix = interpret_suffix(text.substr(pos), result.error);
  if (!suffix) {
    return result;
  }
  result.format = suffix->format;

  // Exact arithmetic on the digit string first: binary suffixes multiply by up to 2^60 and the
  // input may carry any number of digits below 1n that only matter for rounding.
  // Not reserved ahead: the digits of common quantities ("100m", "128Mi" as 134217728) fit the
  // string's inline buffer, so that decoding one allocates nothing.
  std::string digits;
  digits.append(integer_part).append(fraction_part);
  std::int64_t scale = -static_cast<std::int64_t>(fraction_part.size());
  if (suffix->format == QuantityFormat::binary_si) {
    for (std::int64_t bits = suffix->exponent; bits > 0; bits -= 10) {
      multiply_digits(digits, 1024);
    }
  } else {
    scale += suffix->exponent;
  }

  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    result.error = ParseError::none;
    return result;  // zero, in the format of the suffix (Go keeps "0Ki" binary too)
  }
  digits.erase(0, first);

  // Round away from zero to 1n: Go's reasoning is that asking for a tiny non-zero amount of a
  // resource should yield some of it, not none.
  if (scale < nano_scale) {
    const auto drop = static_cast<std::uint64_t>(nano_scale - scale);
    if (drop >= digits.size()) {
      digits = "1";
    } else {
      const auto keep = static_cast<std::size_t>(digits.size() - drop);
      const bool inexact = digits.find_first_not_of('0', keep) != std::string::npos;
      digits.resize(keep);
      if (inexact) {
        increment_digits(digits);
      }
    }
    scale = nano_scale;
  }

  const auto last = digits.find_last_not_of('0');
  scale += static_cast<std::int64_t>(digits.size() - last - 1);
  digits.resize(last + 1);
  // The order of magnitude: the value lies in [10^(order-1), 10^order).
  const std::int64_t order = static_cast<std::int64_t>(digits.size()) + scale;

  if (suffix->format == QuantityFormat::binary_si) {
    // Go caps binary values at 2^63-1 (in magnitude) ...
    constexpr std::string_view cap = "9223372036854775807";
    bool above_cap = order > 19;
    if (order == 19) {
      std::string integer_digits = digits.substr(0, 19);
      integer_digits.append(static_cast<std::size_t>(19 - integer_digits.size()), '0');
      above_cap = integer_digits > cap || (integer_digits == cap && digits.size() > 19);
    }
    if (above_cap) {
      digits = cap;
      scale = 0;
    }
    // ... and does not pretend that a value below 1 is a multiple of 1024.
    if (order <= 0) {
      result.format = QuantityFormat::decimal_si;
    }
  }

  if (digits.size() > max_digits) {
    result.error = ParseError::too_many_digits;
    return result;
  }
  if (scale > max_scale) {
    result.error = ParseError::exponent_range;
    return result;
  }
  u128 magnitude = 0;
  for (const char c : digits) {
    magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
  }
  result.error = ParseError::none;
  result.value = Decimal{negative, magnitude, scale};
  return result;
}

std::string describe(ParseError error) {
  switch (error) {
    case ParseError::none:
      break;
    case ParseError::empty:
      return "empty text";
    case ParseError::no_digits:
      return "expected a number such as 100m, 1.5Gi or 1e3";
    case ParseError::bad_suffix:
      return "unknown suffix; expected n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an "
             "exponent such as e3";
    case ParseError::exponent_range:
      return "exponent out of range";
    case ParseError::too_many_digits:
      return "more than 38 significant digits";
  }
  return "invalid";
}

/// Writes magnitude × 10^exponent as digits followed by a suffix for a multiple-of-3 exponent.
std::string write_decimal(const Decimal& d, QuantityFormat format) {
  // Lower the exponent to a multiple of 3 (towards negative infinity), appending zeros to the
  // mantissa instead, so that "1.5k" becomes 1500 and "0.1" becomes 100m.
  std::int64_t exponent = d.scale;
  const std::int64_t excess = ((exponent % 3) + 3) % 3;
  std::string out = d.negative ? "-" : "";
  out += to_decimal_string(d.magnitude);
  out.append(static_cast<std::size_t>(excess), '0');
  exponent -= excess;

  if (format == QuantityFormat::decimal_exponent) {
    if (exponent != 0) {
      out.push_back('e');
      out += std::to_string(exponent);
    }
    return out;
  }

  // Go has no spelling for a decimal_si exponent above 18 (as far as I remember, its suffix
  // lookup fails and the exponent is silently dropped, so 1000E would print as "1"). kubex
  // switches to e-notation there: "1e21" reads back as the same value, and unlike padding
  // "1000E" with zeros it stays short for any exponent.
  if (exponent > 18) {
    out.push_back('e');
    out += std::to_string(exponent);
    return out;
  }
  // Normalized values have a scale of at least -9, so the exponent is in [-9, 18].
  constexpr std::array<std::string_view, 10> suffixes = {"n", "u", "m", "",  "k",
                                                         "M", "G", "T", "P", "E"};
  out += suffixes[static_cast<std::size_t>((exponent + 9) / 3)];
  return out;
}

/// value × 10^scale, normalized. The scales used (0 and -3) need no rounding.
Decimal from_int64_scaled(std::int64_t value, std::int64_t scale) noexcept {
  Decimal d;
  d.negative = value < 0;
  // Negate in unsigned arithmetic so that the int64 minimum does not overflow.
  const auto bits = static_cast<std::uint64_t>(value);
  d.magnitude = d.negative ? std::uint64_t{0} - bits : bits;
  d.scale = scale;
  return normalize(d);
}

/// Joins the header's two 64-bit halves; this lives here because it needs the 128-bit type.
Decimal unpack(std::uint64_t high, std::uint64_t low, std::int64_t scale, bool negative) noexcept {
  return {negative, (static_cast<u128>(high) << 64U) | low, scale};
}

}  // namespace

Quantity::Quantity(bool negative, std::uint64_t magnitude_high, std::uint64_t magnitude_low,
                   std::int64_t scale, QuantityFormat format) noexcept
    : magnitude_high_(magnitude_high),
      magnitude_low_(magnitude_low),
      scale_(static_cast<std::int32_t>(scale)),  // at most max_scale, by parse() and add()
      negative_(negative),
      format_(format) {}

std::optional<Quantity> Quantity::parse(std::string_view text) {
  const ParseResult parsed = parse_quantity(text);
  if (parsed.error != ParseError::none) {
    return std::nullopt;
  }
  const Decimal& d = parsed.value;
  Quantity q(d.magnitude != 0 && d.negative, static_cast<std::uint64_t>(d.magnitude >> 64U),
             static_cast<std::uint64_t>(d.magnitude), d.scale, parsed.format);
  q.original_ = text;
  return q;
}

Quantity Quantity::must_parse(std::string_view text) {
  const ParseResult parsed = parse_quantity(text);
  if (parsed.error == ParseError::none) {
    return *parse(text);
  }
  // Quote at most a screenful of the text; the point is to identify it, not to echo megabytes.
  constexpr std::size_t max_quoted = 64;
  std::string quoted(text.substr(0, max_quoted));
  if (text.size() > max_quoted) {
    quoted += "...";
  }
  throw Error(errc::invalid_quantity,
              "invalid quantity \"" + quoted + "\": " + describe(parsed.error));
}

Quantity Quantity::from_int64(std::int64_t value, QuantityFormat format) noexcept {
  const Decimal d = from_int64_scaled(value, 0);
  return {d.negative, static_cast<std::uint64_t>(d.magnitude >> 64U),
          static_cast<std::uint64_t>(d.magnitude), d.scale, format};
}

Quantity Quantity::from_milli(std::int64_t milli_value, QuantityFormat format) noexcept {
  const Decimal d = from_int64_scaled(milli_value, -3);
  // As in parsing, a binary value strictly between -1 and 1 is recorded as decimal.
  if (format == QuantityFormat::binary_si && d.magnitude != 0 &&
      digit_count(d.magnitude) + d.scale <= 0) {
    format = QuantityFormat::decimal_si;
  }
  return {d.negative, static_cast<std::uint64_t>(d.magnitude >> 64U),
          static_cast<std::uint64_t>(d.magnitude), d.scale, format};
}

std::string Quantity::to_string() const {
  return original_.empty() ? canonical() : original_.str();
}

std::string Quantity::canonical() const {
  const Decimal d = unpack(magnitude_high_, magnitude_low_, scale_, negative_);
  if (d.magnitude == 0) {
    return "0";
  }
  if (format_ != QuantityFormat::binary_si) {
    return write_decimal(d, format_);
  }

  // Binary suffixes only for integers of magnitude >= 1024 (smaller ones would all be written
  // without a suffix anyway, and fractions are not exact in 1024ths). A normalized value is an
  // integer exactly when its scale is not negative.
  //
  // Also not above 2^63-1, where Go (which does use a suffix there) stops round-tripping:
  // parsing caps binary-suffixed text at 2^63-1, so "8Ei" would read back smaller than a sum
  // such as 4Ei + 4Ei. Decimal text has no cap.
  constexpr u128 binary_cap = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  u128 integer = d.magnitude;
  if (d.scale < 0 || !shift_left(integer, d.scale) || integer > binary_cap || integer < 1024) {
    return write_decimal(d, QuantityFormat::decimal_si);
  }
  constexpr std::array<std::string_view, 7> suffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::size_t power = 0;
  while (power + 1 < suffixes.size() && integer % 1024 == 0) {
    integer /= 1024;
    ++power;
  }
  std::string out = d.negative ? "-" : "";
  out += to_decimal_string(integer);
  out += suffixes[power];
  return out;
}

std::int64_t Quantity::value() const noexcept {
  return scaled_value(0);
}

std::int64_t Quantity::milli_value() const noexcept {
  return scaled_value(-3);
}

std::int64_t Quantity::scaled_value(std::int32_t scale) const noexcept {
  return scaled(unpack(magnitude_high_, magnitude_low_, scale_, negative_), scale);
}

double Quantity::as_double() const noexcept {
  const Decimal d = unpack(magnitude_high_, magnitude_low_, scale_, negative_);
  if (d.magnitude == 0) {
    return 0.0;
  }
  // from_chars rounds correctly and ignores the locale, unlike strtod.
  std::array<char, 64> buffer{};
  char* end = buffer.data();
  if (d.negative) {
    *end++ = '-';
  }
  const std::string mantissa = to_decimal_string(d.magnitude);
  for (const char c : mantissa) {
    *end++ = c;
  }
  *end++ = 'e';
  end = std::to_chars(end, buffer.data() + buffer.size(), d.scale).ptr;
  double result = 0.0;
  const auto [ptr, ec] = std::from_chars(buffer.data(), end, result);
  if (ec == std::errc::result_out_of_range) {
    // Scales are at least -9, so only overflow is possible.
    constexpr double infinity = std::numeric_limits<double>::infinity();
    return d.negative ? -infinity : infinity;
  }
  return result;
}

int Quantity::sign() const noexcept {
  if (is_zero()) {
    return 0;
  }
  return negative_ ? -1 : 1;
}

Quantity& Quantity::operator+=(const Quantity& other) {
  return accumulate(other, false);
}

Quantity& Quantity::operator-=(const Quantity& other) {
  return accumulate(other, true);
}

Quantity& Quantity::accumulate(const Quantity& other, bool subtract) {
  const Decimal a = unpack(magnitude_high_, magnitude_low_, scale_, negative_);
  Decimal b = unpack(other.magnitude_high_, other.magnitude_low_, other.scale_, other.negative_);
  if (subtract && b.magnitude != 0) {
    b.negative = !b.negative;
  }
  const auto result = add(a, b);
  if (!result) {
    throw Error(errc::invalid_quantity, "quantity arithmetic overflow: " + to_string() +
                                            (subtract ? " - " : " + ") + other.to_string() +
                                            " cannot be represented exactly");
  }
  if (is_zero()) {
    format_ = other.format_;
  }
  negative_ = result->negative;
  magnitude_high_ = static_cast<std::uint64_t>(result->magnitude >> 64U);
  magnitude_low_ = static_cast<std::uint64_t>(result->magnitude);
  scale_ = static_cast<std::int32_t>(result->scale);
  original_.clear();
  return *this;
}

Quantity Quantity::operator-() const {
  Quantity negated(!negative_ && !is_zero(), magnitude_high_, magnitude_low_, scale_, format_);
  return negated;
}

bool operator==(const Quantity& a, const Quantity& b) noexcept {
  // Normalized representations are unique, so equal values have equal fields.
  return a.negative_ == b.negative_ && a.magnitude_high_ == b.magnitude_high_ &&
         a.magnitude_low_ == b.magnitude_low_ && a.scale_ == b.scale_;
}

std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept {
  return compare(unpack(a.magnitude_high_, a.magnitude_low_, a.scale_, a.negative_),
                 unpack(b.magnitude_high_, b.magnitude_low_, b.scale_, b.negative_));
}

}  // namespace kubex
