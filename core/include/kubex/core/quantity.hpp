// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>
#include <kubex/core/string.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {

/// How a Quantity prefers to be written, as in Go's resource.Format. Parsing records the style
/// of the text; canonical() writes the value back in that style.
enum class QuantityFormat : std::uint8_t {
  /// Powers of ten with SI suffixes: n, u, m, (none), k, M, G, T, P, E. "1500m", "2G".
  decimal_si,
  /// Powers of 1024 with IEC suffixes: Ki, Mi, Gi, Ti, Pi, Ei. "512Mi".
  binary_si,
  /// Powers of ten in e-notation: "1e3", "5e-3".
  decimal_exponent,
};

/// A Kubernetes resource quantity (k8s.io/apimachinery resource.Quantity): CPU "250m", memory
/// "1.5Gi", storage "10G", "1e3"...
///
/// The value is held exactly as a decimal: a mantissa of at most 38 significant digits times a
/// power of ten. Like Go, parsing rounds values away from zero to a multiple of 1n (10^-9), and
/// caps binary-suffixed values at 2^63-1. Go stores larger mantissas in a big integer; kubex
/// rejects text with more than 38 significant digits left after that rounding (nothing
/// Kubernetes produces comes close) and reports an error if arithmetic would need more.
///
/// A parsed Quantity remembers its text, so to_string() reproduces the input byte for byte
/// until the value is changed; canonical() gives Go's canonical spelling. Comparison is by
/// value across formats: "1000m" == "1" and "1Ki" == "1024".
class KUBEX_API Quantity {
 public:
  /// Zero, in decimal_si format, with no original text.
  Quantity() noexcept = default;

  /// Parses `text` with Go's ParseQuantity grammar: an optional sign, digits with an optional
  /// fraction ("1.5", ".5" and "1." are all accepted, as in Go), then an optional suffix (an SI
  /// or IEC suffix, or an exponent `e`/`E` followed by an optionally signed integer). No
  /// whitespace is allowed anywhere. Returns std::nullopt for anything else, including text
  /// without a single digit (".", "+", "Ki"), values of 10^2147483648 or more (Go's scales are
  /// 32-bit), and values that need more than 38 significant digits.
  [[nodiscard]] static std::optional<Quantity> parse(std::string_view text);

  /// Like parse(), for values the program knows to be valid.
  /// @throws kubex::Error with errc::invalid_quantity; the message quotes the text and says
  ///         what is wrong with it.
  [[nodiscard]] static Quantity must_parse(std::string_view text);

  /// The integer `value` in `format` (Go's NewQuantity).
  [[nodiscard]] static Quantity from_int64(
      std::int64_t value, QuantityFormat format = QuantityFormat::decimal_si) noexcept;

  /// `milli_value` thousandths, e.g. from_milli(1500) is 1.5 (Go's NewMilliQuantity).
  [[nodiscard]] static Quantity from_milli(
      std::int64_t milli_value, QuantityFormat format = QuantityFormat::decimal_si) noexcept;

  /// The format recorded by parsing or construction. A binary_si value strictly between -1 and
  /// 1 is recorded as decimal_si (as Go does), since 1024ths would not be exact.
  [[nodiscard]] QuantityFormat format() const noexcept { return format_; }

  /// The text this Quantity was parsed from, or empty if it was constructed or changed since.
  [[nodiscard]] std::string_view original() const noexcept { return original_.view(); }

  /// original() if there is one, otherwise canonical(): what a JSON encoder should write.
  [[nodiscard]] std::string to_string() const;

  /// Go's canonical spelling (Quantity.String() of a value without cached text):
  /// - zero is "0";
  /// - decimal_si uses the mantissa without trailing zeros and the suffix for the largest
  ///   exponent that is a multiple of 3 and not above the value's own exponent: "1500m",
  ///   "1k", "100m", "1024", "12E"; exponents above E's 18 are written in e-notation ("1e21"),
  ///   because Go has no correct spelling for them;
  /// - decimal_exponent does the same with "e<exponent>" instead of a suffix: "1e3", "1e-3",
  ///   "1500";
  /// - binary_si is written with the largest IEC suffix (up to Ei) that divides the value when
  ///   the value is an integer of magnitude at least 1024 ("1536Mi", "1Ki", "1025"); otherwise
  ///   it falls back to decimal_si ("512", "1536", "500m"). kubex also falls back above 2^63-1
  ///   (reachable only by arithmetic), where binary text would be capped when read back.
  ///
  /// parse(canonical()) always gives back an equal value.
  [[nodiscard]] std::string canonical() const;

  /// The value rounded up (towards +infinity) to an integer (Go's Value()), e.g. 1 for "100m"
  /// and -1 for "-1.5". Saturates at the int64 limits instead of overflowing.
  [[nodiscard]] std::int64_t value() const noexcept;

  /// The value in thousandths rounded up (towards +infinity; Go's MilliValue()), e.g. 1 for
  /// "1u". Saturates at the int64 limits instead of overflowing.
  [[nodiscard]] std::int64_t milli_value() const noexcept;

  /// The value in units of 10^`scale`, rounded up: ceil(value / 10^scale) (Go's ScaledValue),
  /// so scaled_value(-3) == milli_value(). Saturates at the int64 limits.
  [[nodiscard]] std::int64_t scaled_value(std::int32_t scale) const noexcept;

  /// The nearest double (Go's AsApproximateFloat64); ±infinity beyond the double range.
  [[nodiscard]] double as_double() const noexcept;

  /// True if the value is zero.
  [[nodiscard]] bool is_zero() const noexcept {
    return magnitude_high_ == 0 && magnitude_low_ == 0;
  }

  /// -1, 0 or 1 as the value is negative, zero or positive.
  [[nodiscard]] int sign() const noexcept;

  /// Adds `other` exactly. Keeps this format, unless this value is zero, in which case it takes
  /// `other`'s (as Go's Add does). Clears original().
  /// @throws kubex::Error with errc::invalid_quantity if the exact sum cannot be represented:
  ///         more than 38 significant digits (e.g. "1e100" + "1"), or 10^2147483648 or more.
  Quantity& operator+=(const Quantity& other);

  /// Subtracts `other` exactly; formats as for operator+=.
  /// @throws kubex::Error with errc::invalid_quantity if the exact result cannot be
  ///         represented, as for operator+=.
  Quantity& operator-=(const Quantity& other);

  /// The sum, in `a`'s format (or `b`'s if `a` is zero), with no original text.
  /// @throws kubex::Error as operator+=.
  [[nodiscard]] friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }

  /// The difference, in `a`'s format (or `b`'s if `a` is zero), with no original text.
  /// @throws kubex::Error as operator-=.
  [[nodiscard]] friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }

  /// The negated value in the same format, with no original text.
  [[nodiscard]] Quantity operator-() const;

  /// Equality of values, ignoring format and original text: "1000m" == "1".
  friend KUBEX_API bool operator==(const Quantity& a, const Quantity& b) noexcept;

  /// Orders by value. Weak, because equal values may still be spelled differently.
  friend KUBEX_API std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept;

 private:
  Quantity(bool negative, std::uint64_t magnitude_high, std::uint64_t magnitude_low,
           std::int64_t scale, QuantityFormat format) noexcept;

  // operator+= (subtract false) and operator-= (subtract true).
  Quantity& accumulate(const Quantity& other, bool subtract);

  // The value is (negative_ ? -1 : 1) × magnitude × 10^scale_, with the 128-bit magnitude split
  // so that this header needs no compiler extension. Normalized: the magnitude has no trailing
  // decimal zeros and is below 10^38, scale_ >= -9, and zero is stored as +0 × 10^0; so equal
  // values have equal representations. The scale is also at most 2^31-1 (see parse()), so it
  // fits 32 bits; arithmetic on scales widens it to 64 so that it never overflows. 40 bytes,
  // the original text in a decode's arena like the model's strings.
  std::uint64_t magnitude_high_ = 0;
  std::uint64_t magnitude_low_ = 0;
  String original_;
  std::int32_t scale_ = 0;
  bool negative_ = false;
  QuantityFormat format_ = QuantityFormat::decimal_si;
};

}  // namespace kubex
