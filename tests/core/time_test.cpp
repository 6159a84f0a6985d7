// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/time.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace kubex {

// Lets GoogleTest print timestamps in failure messages.
void PrintTo(const Time& t, std::ostream* os) {
  *os << t.format();
}

void PrintTo(const MicroTime& t, std::ostream* os) {
  *os << t.format();
}

}  // namespace kubex

namespace {

using kubex::MicroTime;
using kubex::Time;
using std::chrono::days;
using std::chrono::microseconds;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;

struct ValidCase {
  std::string_view text;
  std::string_view time;        // Time::format() of the parsed value
  std::string_view micro_time;  // MicroTime::format() of the parsed value
};

constexpr ValidCase valid_cases[] = {
    {"2006-01-02T15:04:05Z", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000000Z"},
    {"1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000Z"},
    // Offsets are converted to UTC, across day, month and year boundaries.
    {"2006-01-02T15:04:05+07:00", "2006-01-02T08:04:05Z", "2006-01-02T08:04:05.000000Z"},
    {"2006-01-02T15:04:05-07:00", "2006-01-02T22:04:05Z", "2006-01-02T22:04:05.000000Z"},
    {"2006-01-02T15:04:05+05:30", "2006-01-02T09:34:05Z", "2006-01-02T09:34:05.000000Z"},
    {"2006-01-02T00:30:00+01:00", "2006-01-01T23:30:00Z", "2006-01-01T23:30:00.000000Z"},
    {"2006-12-31T23:30:00-01:00", "2007-01-01T00:30:00Z", "2007-01-01T00:30:00.000000Z"},
    {"2024-03-01T00:00:00+00:01", "2024-02-29T23:59:00Z", "2024-02-29T23:59:00.000000Z"},
    {"2023-03-01T00:00:00+00:01", "2023-02-28T23:59:00Z", "2023-02-28T23:59:00.000000Z"},
    {"2006-01-02T15:04:05+00:00", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000000Z"},
    {"2006-01-02T15:04:05-00:00", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000000Z"},
    {"2006-01-02T15:04:05+23:59", "2006-01-01T15:05:05Z", "2006-01-01T15:05:05.000000Z"},
    {"2006-01-02T15:04:05-23:59", "2006-01-03T15:03:05Z", "2006-01-03T15:03:05.000000Z"},
    // Leap days.
    {"2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000000Z"},
    {"2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000000Z"},
    {"1600-02-29T00:00:00Z", "1600-02-29T00:00:00Z", "1600-02-29T00:00:00.000000Z"},
    {"0000-02-29T00:00:00Z", "0000-02-29T00:00:00Z", "0000-02-29T00:00:00.000000Z"},
    // Fractions of any length: Time drops them, MicroTime keeps six digits (truncated).
    {"2006-01-02T15:04:05.5Z", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.500000Z"},
    {"2006-01-02T15:04:05.000001Z", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000001Z"},
    {"2006-01-02T15:04:05.0000009Z", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000000Z"},
    {"2006-01-02T15:04:05.999999999Z", "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.999999Z"},
    {"2006-01-02T15:04:05.123456789012345678901234567890Z", "2006-01-02T15:04:05Z",
     "2006-01-02T15:04:05.123456Z"},
    {"2006-01-02T15:04:05.1234567+01:00", "2006-01-02T14:04:05Z", "2006-01-02T14:04:05.123456Z"},
    {"1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.500000Z"},
    // The range Go's encoder accepts, [0000, 9999].
    {"0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000000Z"},
    {"9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59.999999Z"},
    {"0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"},
    {"0000-01-01T01:00:00+01:00", "0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000000Z"},
};

TEST(time_test, parses_valid_timestamps) {
  for (const auto& c : valid_cases) {
    SCOPED_TRACE(c.text);
    const auto time = Time::parse(c.text);
    ASSERT_TRUE(time.has_value());
    EXPECT_EQ(time->format(), c.time);
    const auto micro = MicroTime::parse(c.text);
    ASSERT_TRUE(micro.has_value());
    EXPECT_EQ(micro->format(), c.micro_time);
    // Both agree on the second.
    EXPECT_EQ(std::chrono::floor<seconds>(micro->time_point()), time->time_point());
    // format() is parseable and denotes the same instant.
    EXPECT_EQ(Time::parse(time->format()), time);
    EXPECT_EQ(MicroTime::parse(micro->format()), micro);
  }
}

constexpr std::string_view invalid_timestamps[] = {
    "",
    "Z",
    "2006-01-02",
    "2006-01-02T15:04:05",
    "2006-01-02T15:04Z",
    "2006-01-02 15:04:05Z",
    "2006-01-02t15:04:05Z",
    "2006-01-02T15:04:05z",
    "2006-01-02T15:04:05UTC",
    "2006-01-02T15:04:05 Z",
    "2006-01-02T15:04:05Z ",
    " 2006-01-02T15:04:05Z",
    "2006-01-02T15:04:05ZZ",
    // Dates and times that do not exist.
    "2006-13-01T00:00:00Z",
    "2006-00-01T00:00:00Z",
    "2006-01-00T00:00:00Z",
    "2006-01-32T00:00:00Z",
    "2006-02-30T00:00:00Z",
    "2006-04-31T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2006-01-02T24:00:00Z",
    "2006-01-02T23:60:00Z",
    "2006-01-02T23:59:60Z",  // leap seconds are rejected, as by Go
    "2016-12-31T23:59:60Z",
    // Field widths and separators.
    "206-01-02T15:04:05Z",
    "20060-01-02T15:04:05Z",
    "+2006-01-02T15:04:05Z",
    "-2006-01-02T15:04:05Z",
    "2006-1-02T15:04:05Z",
    "2006-01-2T15:04:05Z",
    "2006-01-02T15:04:5Z",
    "2006/01/02T15:04:05Z",
    "2006-01-02T15-04-05Z",
    "2006-01-02T15:04:05.Z",
    "2006-01-02T15:04:05,5Z",
    "2006-01-02T15:04:05.5",
    "2006-01-02T15:04:05.5.5Z",
    "2006-01-02T1a:04:05Z",
    "2006-01-02T-1:04:05Z",
    // Offsets.
    "2006-01-02T15:04:05+0700",
    "2006-01-02T15:04:05+07",
    "2006-01-02T15:04:05+7:00",
    "2006-01-02T15:04:05+07:0",
    "2006-01-02T15:04:05+24:00",
    "2006-01-02T15:04:05+07:60",
    "2006-01-02T15:04:05+07:00:00",
    "2006-01-02T15:04:05+07:00Z",
    "2006-01-02T15:04:05Z+07:00",
    "2006-01-02T15:04:05 +07:00",
    // Outside years 0000..9999 once converted to UTC.
    "0000-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59-00:01",
    std::string_view("2006-01-02T15:04:05Z\0", 21),
};

TEST(time_test, rejects_invalid_timestamps) {
  for (const auto text : invalid_timestamps) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(Time::parse(text).has_value());
    EXPECT_FALSE(MicroTime::parse(text).has_value());
  }
}

TEST(time_test, parses_to_the_right_instant) {
  EXPECT_EQ(Time::parse("1970-01-01T00:00:00Z")->time_point().time_since_epoch(), seconds(0));
  EXPECT_EQ(Time::parse("2006-01-02T15:04:05Z")->time_point().time_since_epoch(),
            seconds(1136214245));
  EXPECT_EQ(Time::parse("1969-12-31T23:59:59Z")->time_point().time_since_epoch(), seconds(-1));
  EXPECT_EQ(MicroTime::parse("1969-12-31T23:59:59.999999Z")->time_point().time_since_epoch(),
            microseconds(-1));
  EXPECT_EQ(MicroTime::parse("2006-01-02T15:04:05.123456Z")->time_point().time_since_epoch(),
            microseconds(1136214245123456));
  EXPECT_EQ(Time::parse("0000-01-01T00:00:00Z")->time_point().time_since_epoch(),
            seconds(-62167219200));
  EXPECT_EQ(Time::parse("9999-12-31T23:59:59Z")->time_point().time_since_epoch(),
            seconds(253402300799));
}

TEST(time_test, compares_chronologically) {
  EXPECT_EQ(Time::parse("2006-01-02T15:04:05+07:00"), Time::parse("2006-01-02T08:04:05Z"));
  EXPECT_LT(*Time::parse("2006-01-02T15:04:05Z"), *Time::parse("2006-01-02T15:04:06Z"));
  EXPECT_LT(*Time::parse("2006-01-02T15:04:05+01:00"), *Time::parse("2006-01-02T15:04:05Z"));
  EXPECT_EQ(Time::parse("2006-01-02T15:04:05.9Z"), Time::parse("2006-01-02T15:04:05Z"));
  EXPECT_LT(*MicroTime::parse("2006-01-02T15:04:05Z"),
            *MicroTime::parse("2006-01-02T15:04:05.000001Z"));
  EXPECT_EQ(MicroTime::parse("2006-01-02T15:04:05.0000001Z"),
            MicroTime::parse("2006-01-02T15:04:05Z"));
  EXPECT_GT(*MicroTime::parse("1970-01-01T00:00:00Z"), *MicroTime::parse("1969-12-31T23:59:59Z"));
}

TEST(time_test, defaults_to_the_epoch) {
  EXPECT_EQ(Time().format(), "1970-01-01T00:00:00Z");
  EXPECT_EQ(MicroTime().format(), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(Time(), Time(sys_seconds(seconds(0))));
}

TEST(time_test, formats_instants_outside_the_parseable_range) {
  // Like Go's Format: a sign for negative years, more digits after 9999.
  EXPECT_EQ(Time(sys_seconds(seconds(-62167219201))).format(), "-0001-12-31T23:59:59Z");
  EXPECT_EQ(Time(sys_seconds(seconds(253402300800))).format(), "10000-01-01T00:00:00Z");
  EXPECT_FALSE(Time::parse(Time(sys_seconds(seconds(-62167219201))).format()).has_value());
  // The extremes of the representation must not overflow.
  EXPECT_FALSE(Time(sys_seconds::max()).format().empty());
  EXPECT_FALSE(Time(sys_seconds::min()).format().empty());
  EXPECT_FALSE(MicroTime(MicroTime::time_point_type::max()).format().empty());
  EXPECT_FALSE(MicroTime(MicroTime::time_point_type::min()).format().empty());
  EXPECT_EQ(MicroTime(MicroTime::time_point_type(microseconds(-1))).format(),
            "1969-12-31T23:59:59.999999Z");
}

// Parses and formats noon-ish on `day`, checking both against the standard library's calendar.
void expect_day_matches_std_chrono(sys_days day) {
  const std::chrono::year_month_day ymd{day};
  const auto y = static_cast<int>(ymd.year());
  const auto m = static_cast<unsigned>(ymd.month());
  const auto d = static_cast<unsigned>(ymd.day());
  char text[] = "YYYY-MM-DDT12:34:56Z";
  text[0] = static_cast<char>('0' + y / 1000);
  text[1] = static_cast<char>('0' + y / 100 % 10);
  text[2] = static_cast<char>('0' + y / 10 % 10);
  text[3] = static_cast<char>('0' + y % 10);
  text[5] = static_cast<char>('0' + m / 10);
  text[6] = static_cast<char>('0' + m % 10);
  text[8] = static_cast<char>('0' + d / 10);
  text[9] = static_cast<char>('0' + d % 10);
  const sys_seconds expected =
      day + std::chrono::hours(12) + std::chrono::minutes(34) + seconds(56);
  const auto parsed = Time::parse(text);
  ASSERT_TRUE(parsed.has_value()) << text;
  ASSERT_EQ(parsed->time_point(), expected) << text;
  ASSERT_EQ(parsed->format(), text);
}

TEST(time_test, calendar_agrees_with_std_chrono) {
  using std::chrono::year;
  // Every day of the years around the 4-, 100- and 400-year rules and the epoch...
  for (const int first_year : {0, 96, 396, 1596, 1896, 1966, 1996, 2096, 2396, 9995}) {
    const sys_days end = year{first_year + 5} / 1 / 1;
    for (sys_days day = year{first_year} / 1 / 1; day < end; day += days(1)) {
      ASSERT_NO_FATAL_FAILURE(expect_day_matches_std_chrono(day));
    }
  }
  // ... and every 29th day from 0000-01-01 to 9999-12-31 (29 days walk through all days of the
  // month and all months).
  const sys_days last = year{9999} / 12 / 31;
  for (sys_days day = year{0} / 1 / 1; day <= last; day += days(29)) {
    ASSERT_NO_FATAL_FAILURE(expect_day_matches_std_chrono(day));
  }
  ASSERT_NO_FATAL_FAILURE(expect_day_matches_std_chrono(last));
}

TEST(time_test, now_is_current) {
  const auto before = std::chrono::floor<seconds>(std::chrono::system_clock::now());
  const Time now = Time::now();
  const MicroTime micro_now = MicroTime::now();
  const auto after = std::chrono::system_clock::now();
  EXPECT_LE(before, now.time_point());
  EXPECT_LE(now.time_point(), after);
  EXPECT_LE(now.time_point(), micro_now.time_point());
  EXPECT_LE(micro_now.time_point(), after);
  EXPECT_EQ(Time::parse(now.format()), now);
  EXPECT_EQ(MicroTime::parse(micro_now.format()), micro_now);
}

}  // namespace
