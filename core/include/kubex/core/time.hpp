// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <chrono>
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {

/// A timestamp with one-second resolution, as metav1.Time (creationTimestamp,
/// lastTransitionTime...). On the wire it is RFC 3339 in UTC: `2006-01-02T15:04:05Z`.
///
/// parse() accepts what the apiserver accepts (Go's time.Parse with time.RFC3339):
/// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any number of digits (dropped: Time
/// truncates to the second, the way Go's encoder does), then `Z` or a `+hh:mm` / `-hh:mm`
/// offset (converted to UTC). Rejected, as in Go: dates that do not exist (Feb 30, month 13),
/// hour 24, second 60 (leap seconds), lower-case `t`/`z`, a space instead of `T`, missing
/// offset, offsets of 24 hours or more. Also rejected, unlike Go: instants outside
/// 0000-01-01T00:00:00Z..9999-12-31T23:59:59Z after conversion to UTC, because Go's JSON
/// encoder refuses to write them, so they could not round-trip. The empty string is not a
/// timestamp; a JSON `null` is for the decoder to map to an absent value.
///
/// The default value is the Unix epoch, 1970-01-01T00:00:00Z.
class KUBEX_API Time {
 public:
  /// Second ticks since the Unix epoch, in UTC.
  using time_point_type = std::chrono::sys_seconds;

  /// The Unix epoch.
  constexpr Time() noexcept = default;

  /// The given instant.
  constexpr explicit Time(time_point_type time_point) noexcept : time_point_(time_point) {}

  /// Parses an RFC 3339 timestamp as described for the class; std::nullopt if invalid.
  [[nodiscard]] static std::optional<Time> parse(std::string_view text) noexcept;

  /// The current time, truncated to the second.
  [[nodiscard]] static Time now() noexcept;

  /// `YYYY-MM-DDTHH:MM:SSZ` in UTC. Years outside 0..9999 (which parse() never produces) are
  /// written with a '-' sign or more digits, as Go's Format does; such text does not parse.
  [[nodiscard]] std::string format() const;

  /// The instant.
  [[nodiscard]] constexpr time_point_type time_point() const noexcept { return time_point_; }

  /// Chronological comparison.
  friend constexpr auto operator<=>(const Time&, const Time&) noexcept = default;

 private:
  time_point_type time_point_{};
};

/// A timestamp with one-microsecond resolution, as metav1.MicroTime (Event.eventTime,
/// Lease.spec.renewTime). On the wire it is `2006-01-02T15:04:05.000000Z`, always with six
/// fractional digits (Go's RFC3339Micro).
///
/// parse() accepts the same text as Time::parse, keeping the first six fractional digits and
/// truncating the rest; the same dates and offsets are rejected.
///
/// The default value is the Unix epoch.
class KUBEX_API MicroTime {
 public:
  /// Microsecond ticks since the Unix epoch, in UTC.
  using time_point_type = std::chrono::sys_time<std::chrono::microseconds>;

  /// The Unix epoch.
  constexpr MicroTime() noexcept = default;

  /// The given instant.
  constexpr explicit MicroTime(time_point_type time_point) noexcept : time_point_(time_point) {}

  /// Parses an RFC 3339 timestamp as described for the class; std::nullopt if invalid.
  [[nodiscard]] static std::optional<MicroTime> parse(std::string_view text) noexcept;

  /// The current time, truncated to the microsecond.
  [[nodiscard]] static MicroTime now() noexcept;

  /// `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC, always six fractional digits.
  [[nodiscard]] std::string format() const;

  /// The instant.
  [[nodiscard]] constexpr time_point_type time_point() const noexcept { return time_point_; }

  /// Chronological comparison.
  friend constexpr auto operator<=>(const MicroTime&, const MicroTime&) noexcept = default;

 private:
  time_point_type time_point_{};
};

}  // namespace kubex
