// SPDX-License-Identifier: Apache-2.0
// The transport's retry decisions (client/src/detail/retry.hpp), without any I/O.

#include "detail/retry.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/system/error_code.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <system_error>

namespace {

using kubex::client::RetryPolicy;
using kubex::client::detail::Backoff;
using kubex::client::detail::is_transient_transport_error;
using kubex::client::detail::parse_retry_after;
using kubex::client::detail::response_retry_delay;
using std::chrono::milliseconds;

std::error_code from_asio(boost::system::error_code code) {
  return std::error_code(code);
}

TEST(Backoff, DoublesUpToTheCapWithJitterInTheUpperHalf) {
  Backoff backoff(milliseconds(200), milliseconds(5000), 42);
  const long long bounds[] = {200, 400, 800, 1600, 3200, 5000, 5000, 5000};
  for (int retry = 0; retry < 8; ++retry) {
    std::set<long long> seen;
    for (int i = 0; i < 200; ++i) {
      const auto d = backoff.delay(retry).count();
      ASSERT_GE(d, bounds[retry] / 2) << "retry " << retry;
      ASSERT_LE(d, bounds[retry]) << "retry " << retry;
      seen.insert(d);
    }
    EXPECT_GT(seen.size(), 20U) << "retry " << retry << ": no jitter";
  }
  EXPECT_LE(backoff.delay(1000).count(), 5000);  // no overflow far past the cap
}

TEST(Backoff, TheSameSeedGivesTheSameWaits) {
  Backoff a(milliseconds(100), milliseconds(1000), 7);
  Backoff b(milliseconds(100), milliseconds(1000), 7);
  for (int retry = 0; retry < 10; ++retry) {
    EXPECT_EQ(a.delay(retry), b.delay(retry));
  }
}

TEST(RetryAfter, DelaySecondsOnly) {
  EXPECT_EQ(parse_retry_after("3"), milliseconds(3000));
  EXPECT_EQ(parse_retry_after(" 0 "), milliseconds(0));
  EXPECT_EQ(parse_retry_after("999999999"), milliseconds(86400 * 1000));  // a day at most
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
  EXPECT_EQ(parse_retry_after("-1"), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.5"), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
}

TEST(ResponseRetry, OnlyWhatTheServerDidNotActOn) {
  const RetryPolicy policy;
  Backoff backoff(policy.initial_backoff, policy.max_backoff, 1);
  EXPECT_TRUE(response_retry_delay(policy, backoff, 429, "", 0));
  EXPECT_TRUE(response_retry_delay(policy, backoff, 503, "1", 0));
  EXPECT_TRUE(response_retry_delay(policy, backoff, 504, "1", 0));
  EXPECT_FALSE(response_retry_delay(policy, backoff, 503, "", 0));  // an answer, not a wait
  for (const unsigned status : {200U, 201U, 400U, 401U, 404U, 409U, 410U, 500U, 502U}) {
    EXPECT_FALSE(response_retry_delay(policy, backoff, status, "1", 0)) << status;
  }
}

TEST(ResponseRetry, WaitsAtLeastWhatTheServerAskedWithinTheCap) {
  RetryPolicy policy;
  policy.max_retry_after = milliseconds(10000);
  Backoff backoff(policy.initial_backoff, policy.max_backoff, 1);
  EXPECT_EQ(response_retry_delay(policy, backoff, 429, "7", 0), milliseconds(7000));
  EXPECT_EQ(response_retry_delay(policy, backoff, 429, "3600", 0), milliseconds(10000));
  const auto own = response_retry_delay(policy, backoff, 429, "", 0);
  ASSERT_TRUE(own);
  EXPECT_LE(*own, policy.initial_backoff);
}

TEST(ResponseRetry, StopsAfterMaxRetries) {
  RetryPolicy policy;
  policy.max_retries = 2;
  Backoff backoff(policy.initial_backoff, policy.max_backoff, 1);
  EXPECT_TRUE(response_retry_delay(policy, backoff, 429, "", 1));
  EXPECT_FALSE(response_retry_delay(policy, backoff, 429, "", 2));
  policy.max_retries = 0;
  EXPECT_FALSE(response_retry_delay(policy, backoff, 429, "", 0));
}

TEST(TransportRetry, ConnectionsRefusedResetOrCutShortAreTransient) {
  namespace error = boost::asio::error;
  for (const auto code :
       {from_asio(error::connection_refused), from_asio(error::connection_reset),
        from_asio(error::connection_aborted), from_asio(error::broken_pipe), from_asio(error::eof),
        from_asio(boost::asio::ssl::error::stream_truncated)}) {
    EXPECT_TRUE(is_transient_transport_error(code)) << code.message();
  }
}

TEST(TransportRetry, TimeoutsCancellationAndTrustAreNot) {
  namespace error = boost::asio::error;
  for (const auto code :
       {from_asio(error::timed_out), from_asio(error::operation_aborted),
        from_asio(error::host_not_found), std::make_error_code(std::errc::timed_out),
        std::make_error_code(std::errc::operation_canceled),
        std::make_error_code(std::errc::message_size), std::error_code()}) {
    EXPECT_FALSE(is_transient_transport_error(code)) << code.message();
  }
}

}  // namespace
