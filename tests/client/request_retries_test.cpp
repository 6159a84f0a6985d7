// SPDX-License-Identifier: Apache-2.0
// RequestRetries (client/src/detail/retry.hpp) alone: every decision the transport asks it for,
// and each of its limits, with the time passed in.

#include "detail/retry.hpp"

#include <boost/asio/error.hpp>
#include <boost/system/error_code.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <system_error>

namespace {

using kubex::client::RetryPolicy;
using kubex::client::detail::AttemptFailure;
using kubex::client::detail::Backoff;
using kubex::client::detail::RequestRetries;
using kubex::client::detail::RetryDecision;
using Action = RetryDecision::Action;
using namespace std::chrono_literals;

const auto t0 = RequestRetries::Clock::time_point{} + 1h;

std::error_code reset() {
  return std::error_code(boost::system::error_code(boost::asio::error::connection_reset));
}

std::error_code timed_out() {
  return std::error_code(boost::system::error_code(boost::asio::error::timed_out));
}

// A policy with small limits, and a backoff of 100 ms doubling to 1 s.
struct RequestRetriesTest : ::testing::Test {
  RetryPolicy policy = [] {
    RetryPolicy p;
    p.max_retries = 2;
    p.max_transport_retries = 3;
    p.max_retry_after = 5s;
    return p;
  }();
  Backoff backoff{100ms, 1s, 1};

  RequestRetries read(bool streaming = false) {
    return {policy, backoff, true, streaming, t0 + 30s};
  }
  RequestRetries write() { return {policy, backoff, false, false, t0 + 30s}; }
};

TEST_F(RequestRetriesTest, ARefusedRequestIsSentAgainAtOnceThreeTimesWhateverItsVerb) {
  auto retries = write();
  const AttemptFailure refused{.refused = true};
  for (int i = 0; i < RequestRetries::max_refusals; ++i) {
    const auto next = retries.after_failure(refused, t0);
    EXPECT_EQ(next.action, Action::retry_now) << i;
    EXPECT_TRUE(next.retry());
  }
  EXPECT_EQ(retries.after_failure(refused, t0).action, Action::give_up);
}

TEST_F(RequestRetriesTest, ARefusalAfterTheDeadlinePassedIsNotRetried) {
  auto retries = write();
  EXPECT_FALSE(retries.after_failure({.refused = true, .timed_out = true}, t0).retry());
}

TEST_F(RequestRetriesTest, AStalePooledConnectionGivesAReadOneMoreTryAtOnce) {
  auto retries = read();
  // A pooled connection failing with a code no transport retry takes (timed out): only the
  // stale-connection rule can retry it, once.
  const AttemptFailure stale{.code = timed_out(), .reused = true};
  EXPECT_EQ(retries.after_failure(stale, t0).action, Action::retry_now);
  EXPECT_EQ(retries.after_failure(stale, t0).action, Action::give_up);
}

TEST_F(RequestRetriesTest, AStaleConnectionIsNotRetriedForAWriteOrOnceTheAnswerBegan) {
  auto w = write();
  EXPECT_FALSE(w.after_failure({.code = reset(), .reused = true}, t0).retry());
  auto r = read();
  EXPECT_FALSE(
      r.after_failure({.code = timed_out(), .reused = true, .received = true}, t0).retry());
  EXPECT_FALSE(
      r.after_failure({.code = timed_out(), .reused = true, .timed_out = true}, t0).retry());
  EXPECT_FALSE(
      r.after_failure({.reused = true}, t0).retry());  // a stream reset, no connection error
}

TEST_F(RequestRetriesTest, ATransientTransportFailureOfAReadWaitsTheBackoffUpToTheLimit) {
  auto retries = read();
  const long long bounds[] = {100, 200, 400};
  for (int i = 0; i < policy.max_transport_retries; ++i) {
    const auto next = retries.after_failure({.code = reset()}, t0);
    ASSERT_EQ(next.action, Action::retry_after) << i;
    EXPECT_GE(next.delay.count(), bounds[i] / 2) << i;
    EXPECT_LE(next.delay.count(), bounds[i]) << i;
  }
  EXPECT_EQ(retries.after_failure({.code = reset()}, t0).action, Action::give_up);
}

TEST_F(RequestRetriesTest, TransportFailuresThatAreNotRetried) {
  auto w = write();
  EXPECT_FALSE(w.after_failure({.code = reset()}, t0).retry());  // a write may have been done
  auto r = read();
  EXPECT_FALSE(r.after_failure({.code = timed_out()}, t0).retry());  // not transient
  EXPECT_FALSE(r.after_failure({.code = reset(), .timed_out = true}, t0).retry());
  EXPECT_FALSE(r.after_failure({.code = reset(), .protocol_error = true}, t0).retry());
  EXPECT_FALSE(r.after_failure({}, t0).retry());
  // A whole response is delivered only complete, so a read cut short may start over...
  EXPECT_EQ(r.after_failure({.code = reset(), .received = true}, t0).action, Action::retry_after);
  // ...but a stream whose head reached the caller may not.
  auto s = read(true);
  EXPECT_FALSE(s.after_failure({.code = reset(), .received = true}, t0).retry());
  EXPECT_EQ(s.after_failure({.code = reset()}, t0).action, Action::retry_after);
}

TEST_F(RequestRetriesTest, NoWaitPastTheDeadlineExceptForAStream) {
  auto retries = read();
  EXPECT_FALSE(retries.after_failure({.code = reset()}, t0 + 30s).retry());
  EXPECT_FALSE(retries.after_response(429, "2", t0 + 29s).retry());
  EXPECT_EQ(retries.after_response(429, "2", t0 + 28s).action, Action::retry_after);
  auto stream = read(true);
  EXPECT_EQ(stream.after_failure({.code = reset()}, t0 + 1h).action, Action::retry_after);
  EXPECT_EQ(stream.after_response(429, "2", t0 + 1h).action, Action::retry_after);
}

TEST_F(RequestRetriesTest, ABusyServersAnswerIsRetriedAfterItsRetryAfterUpToMaxRetries) {
  auto retries = write();  // the server did not act on it: any verb
  auto next = retries.after_response(429, "3", t0);
  EXPECT_EQ(next.action, Action::retry_after);
  EXPECT_EQ(next.delay, 3s);
  next = retries.after_response(503, "60", t0);  // capped at max_retry_after
  EXPECT_EQ(next.action, Action::retry_after);
  EXPECT_EQ(next.delay, 5s);
  EXPECT_FALSE(retries.after_response(429, "1", t0).retry());  // max_retries reached
}

TEST_F(RequestRetriesTest, OtherAnswersAreTheCallers) {
  auto retries = read();
  for (const unsigned status : {200U, 201U, 401U, 404U, 409U, 500U, 502U}) {
    EXPECT_EQ(retries.after_response(status, "1", t0).action, Action::give_up) << status;
  }
  EXPECT_FALSE(retries.after_response(503, "", t0).retry());  // without Retry-After
}

TEST_F(RequestRetriesTest, EachKindOfRetryHasItsOwnCount) {
  auto retries = read();
  EXPECT_TRUE(retries.after_response(429, "", t0).retry());
  EXPECT_TRUE(retries.after_response(429, "", t0).retry());
  EXPECT_FALSE(retries.after_response(429, "", t0).retry());
  // Response retries used up; transport retries and refusals are still there.
  EXPECT_TRUE(retries.after_failure({.code = reset()}, t0).retry());
  EXPECT_TRUE(retries.after_failure({.refused = true}, t0).retry());
}

TEST_F(RequestRetriesTest, CredentialsAreRenewedAfterA401Once) {
  auto retries = write();
  EXPECT_TRUE(retries.may_renew_credentials());
  retries.renewed_credentials();
  EXPECT_FALSE(retries.may_renew_credentials());
}

}  // namespace
