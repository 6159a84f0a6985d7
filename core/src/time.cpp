// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/time.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {
namespace {

// Calendar arithmetic is done here on int64 rather than with std::chrono::year_month_day, whose
// conversions use 32-bit arithmetic and are only meaningful for years within about ±32767;
// format() has to cope with any sys_seconds value.

constexpr std::int64_t seconds_per_day = 86400;
constexpr std::int64_t days_per_400_years = 146097;
constexpr std::int64_t micros_per_second = 1'000'000;

constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

constexpr std::int64_t floor_mod(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

constexpr bool is_leap(std::int64_t year) noexcept {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

constexpr int days_in_month(std::int64_t year, int month) noexcept {
  constexpr std::array<int, 12> lengths = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return (month == 2 && is_leap(year)) ? 29 : lengths[static_cast<std::size_t>(month - 1)];
}

/// Days from 0000-01-01 to January 1 of `year`, for `year` in [0, 400]. Year 0 of the
/// proleptic Gregorian calendar is a leap year, so among years [0, year) there are ceil(year/4)
/// multiples of 4, ceil(year/100) of 100 and ceil(year/400) of 400.
constexpr std::int64_t days_before_year(std::int64_t year) noexcept {
  return 365 * year + (year + 3) / 4 - (year + 99) / 100 + (year + 399) / 400;
}

/// Days from January 1 to the first of `month` (1..12).
constexpr std::int64_t days_before_month(int month, bool leap) noexcept {
  constexpr std::array<int, 12> before = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  return before[static_cast<std::size_t>(month - 1)] + ((leap && month > 2) ? 1 : 0);
}

/// Days from 0000-01-01 to the given date. The calendar repeats every 400 years, so only the
/// year within its 400-year cycle needs counting.
constexpr std::int64_t days_from_year_zero(std::int64_t year, int month, int day) noexcept {
  const std::int64_t cycles = floor_div(year, 400);
  return cycles * days_per_400_years + days_before_year(year - cycles * 400) +
         days_before_month(month, is_leap(year)) + day - 1;
}

constexpr std::int64_t unix_epoch_days = days_from_year_zero(1970, 1, 1);
static_assert(unix_epoch_days == 719528);

struct CivilDate {
  std::int64_t year = 0;
  int month = 1;
  int day = 1;
};

constexpr CivilDate civil_from_days(std::int64_t days_since_epoch) noexcept {
  const std::int64_t days = days_since_epoch + unix_epoch_days;
  const std::int64_t cycles = floor_div(days, days_per_400_years);
  std::int64_t rest = days - cycles * days_per_400_years;  // [0, 146096]
  // 365 days per year overestimates the year by at most one (a cycle has only 97 leap days).
  std::int64_t year = rest / 365;
  while (days_before_year(year) > rest) {
    --year;
  }
  rest -= days_before_year(year);  // day of the year, [0, 365]
  year += cycles * 400;
  const bool leap = is_leap(year);
  int month = 12;
  while (days_before_month(month, leap) > rest) {
    --month;
  }
  return {year, month, static_cast<int>(rest - days_before_month(month, leap)) + 1};
}

static_assert(civil_from_days(0).year == 1970 && civil_from_days(0).day == 1);
static_assert(civil_from_days(-1).year == 1969 && civil_from_days(-1).month == 12);

// parse() accepts exactly the instants Go's JSON encoder can write back.
constexpr std::int64_t min_seconds =
    (days_from_year_zero(0, 1, 1) - unix_epoch_days) * seconds_per_day;
constexpr std::int64_t max_seconds =
    (days_from_year_zero(9999, 12, 31) - unix_epoch_days) * seconds_per_day + seconds_per_day - 1;

struct Instant {
  std::int64_t seconds = 0;  // since the Unix epoch, UTC
  std::int64_t micros = 0;   // [0, 999999], truncated
};

/// The value of `count` decimal digits at `pos`, or -1 if any of them is not a digit.
constexpr int read_number(std::string_view text, std::size_t pos, std::size_t count) noexcept {
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') {
      return -1;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<Instant> parse_rfc3339(std::string_view text) noexcept {
  // "YYYY-MM-DDTHH:MM:SS" is fixed-width; at least a 'Z' must follow.
  constexpr std::size_t fixed = 19;
  if (text.size() <= fixed || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  const int year = read_number(text, 0, 4);
  const int month = read_number(text, 5, 2);
  const int day = read_number(text, 8, 2);
  const int hour = read_number(text, 11, 2);
  const int minute = read_number(text, 14, 2);
  const int second = read_number(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) ||
      hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return std::nullopt;
  }

  Instant instant;
  std::size_t pos = fixed;
  if (text[pos] == '.') {
    const std::size_t begin = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (pos - begin < 6) {
        instant.micros = instant.micros * 10 + (text[pos] - '0');
      }
      ++pos;
    }
    if (pos == begin) {
      return std::nullopt;
    }
    for (std::size_t digits = pos - begin; digits < 6; ++digits) {
      instant.micros *= 10;
    }
  }

  std::int64_t offset = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-') &&
             text.size() - pos >= 6 && text[pos + 3] == ':') {
    const int offset_hours = read_number(text, pos + 1, 2);
    const int offset_minutes = read_number(text, pos + 4, 2);
    if (offset_hours < 0 || offset_hours > 23 || offset_minutes < 0 || offset_minutes > 59) {
      return std::nullopt;
    }
    offset = (offset_hours * 3600 + offset_minutes * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) {
    return std::nullopt;
  }

  // Local time minus the offset is UTC.
  instant.seconds = (days_from_year_zero(year, month, day) - unix_epoch_days) * seconds_per_day +
                    hour * 3600 + minute * 60 + second - offset;
  if (instant.seconds < min_seconds || instant.seconds > max_seconds) {
    return std::nullopt;
  }
  return instant;
}

void append_padded(std::string& out, std::int64_t value, int width) {
  std::array<char, 24> buffer{};
  std::size_t begin = buffer.size();
  do {
    buffer[--begin] = static_cast<char>('0' + static_cast<int>(value % 10));
    value /= 10;
    --width;
  } while (value != 0 || width > 0);
  out.append(buffer.data() + begin, buffer.size() - begin);
}

/// Writes `YYYY-MM-DDTHH:MM:SS`, without fraction or zone.
void append_date_time(std::string& out, std::int64_t seconds) {
  const std::int64_t second_of_day = floor_mod(seconds, seconds_per_day);
  // floor_div rather than (seconds - second_of_day) / 86400, which overflows near INT64_MIN.
  const CivilDate date = civil_from_days(floor_div(seconds, seconds_per_day));
  if (date.year < 0) {
    out.push_back('-');
  }
  append_padded(out, date.year < 0 ? -date.year : date.year, 4);
  out.push_back('-');
  append_padded(out, date.month, 2);
  out.push_back('-');
  append_padded(out, date.day, 2);
  out.push_back('T');
  append_padded(out, second_of_day / 3600, 2);
  out.push_back(':');
  append_padded(out, second_of_day / 60 % 60, 2);
  out.push_back(':');
  append_padded(out, second_of_day % 60, 2);
}

}  // namespace

std::optional<Time> Time::parse(std::string_view text) noexcept {
  const auto instant = parse_rfc3339(text);
  if (!instant) {
    return std::nullopt;
  }
  return Time(time_point_type(std::chrono::seconds(instant->seconds)));
}

Time Time::now() noexcept {
  return Time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

std::string Time::format() const {
  std::string out;
  out.reserve(20);
  append_date_time(out, time_point_.time_since_epoch().count());
  out.push_back('Z');
  return out;
}

std::optional<MicroTime> MicroTime::parse(std::string_view text) noexcept {
  const auto instant = parse_rfc3339(text);
  if (!instant) {
    return std::nullopt;
  }
  // Cannot overflow: the seconds are limited to years 0..9999.
  return MicroTime(time_point_type(
      std::chrono::microseconds(instant->seconds * micros_per_second + instant->micros)));
}

MicroTime MicroTime::now() noexcept {
  return MicroTime(std::chrono::floor<std::chrono::microseconds>(std::chrono::system_clock::now()));
}

std::string MicroTime::format() const {
  const std::int64_t ticks = time_point_.time_since_epoch().count();
  std::string out;
  out.reserve(27);
  append_date_time(out, floor_div(ticks, micros_per_second));
  out.push_back('.');
  append_padded(out, floor_mod(ticks, micros_per_second), 6);
  out.push_back('Z');
  return out;
}

}  // namespace kubex
