// SPDX-License-Identifier: Apache-2.0
// The leader election's rule (kubex::runtime::detail::LeaderElectionStep) on its own: no
// transport, no clock, no Lease type; each input is fed at a chosen time and the notices and
// the action it leads to are checked. leader_election_scripted_test.cpp checks the same rule
// through the whole elector, and tests/integration/leader_election_test.cpp against a server.

#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/time.hpp>
#include <kubex/runtime/leader_election_step.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <string>
#include <system_error>
#include <variant>

namespace {

using kubex::ApiError;
using kubex::ConfigError;
using kubex::Failure;
using kubex::MicroTime;
using kubex::Status;
using kubex::runtime::LeaderElectionConfig;
using kubex::runtime::detail::ElectionDecision;
using kubex::runtime::detail::ElectionInput;
using kubex::runtime::detail::LeaderElectionStep;
using kubex::runtime::detail::LeaseRecord;
using kubex::runtime::detail::LeaseRequest;
namespace in = kubex::runtime::detail::election_input;
namespace act = kubex::runtime::detail::election_action;
namespace notice = kubex::runtime::detail::election_notice;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// client-go's durations, without jitter, so that each wait is known.
LeaderElectionConfig config(bool release_on_cancel = false) {
  LeaderElectionConfig c;
  c.lease_name = "lock";
  c.identity = "me";
  c.jitter = 0.0;
  c.release_on_cancel = release_on_cancel;
  return c;
}

LeaseRecord held_by(std::string holder, std::int64_t transitions = 0,
                    std::string renew = "2000-01-01T00:00:00.000000Z") {
  LeaseRecord record;
  record.holder = std::move(holder);
  record.duration_seconds = 15;
  record.renew_time = MicroTime::parse(renew);
  record.acquire_time = record.renew_time;
  record.transitions = transitions;
  return record;
}

std::exception_ptr api_error(std::int32_t code, std::string reason) {
  Status status;
  status.status = "Failure";
  status.message = "m";
  status.reason = std::move(reason);
  status.code = code;
  return std::make_exception_ptr(ApiError::from_status("PUT leases/lock", std::move(status)));
}

in::Answered answer(LeaseRecord record) {
  in::Answered a;
  a.record = std::move(record);
  return a;
}
in::Answered failure(std::exception_ptr error) {
  in::Answered a;
  a.error = std::move(error);
  return a;
}

template <class Action>
const Action& as(const ElectionDecision& decision) {
  EXPECT_TRUE(std::holds_alternative<Action>(decision.action))
      << "action index " << decision.action.index();
  return std::get<Action>(decision.action);
}

template <class Notice>
bool heard(const ElectionDecision& decision, std::size_t at) {
  return at < decision.notices.size() && std::holds_alternative<Notice>(decision.notices[at]);
}

class leader_election_step_test : public ::testing::Test {
 protected:
  ElectionDecision feed(const ElectionInput& input) { return step.step(input, now); }

  // Reads a free Lease and takes it; leads from `now` on.
  void lead() {
    EXPECT_EQ(as<act::Send>(feed(in::Try{})).request, LeaseRequest::read);
    EXPECT_EQ(as<act::Send>(feed(answer(held_by("")))).request, LeaseRequest::write);
    const auto won = feed(answer(held_by("me", 1)));
    EXPECT_EQ(as<act::Wait>(won).delay, 2s);
    ASSERT_TRUE(step.leading());
  }

  Clock::time_point now = Clock::time_point{} + 1h;
  LeaderElectionStep step{config(), "leader election on Lease ns/lock", 3};
};

TEST_F(leader_election_step_test, acquires_a_free_lease_then_renews_with_one_write_each_period) {
  const auto read = as<act::Send>(feed(in::Try{}));
  EXPECT_EQ(read.request, LeaseRequest::read);
  EXPECT_EQ(read.deadline, now + 10s);  // a candidate's request: renew_deadline from now
  EXPECT_EQ(as<act::Send>(feed(answer(held_by("")))).request, LeaseRequest::write);
  now += 100ms;
  const auto won = feed(answer(held_by("me", 1)));
  ASSERT_EQ(won.notices.size(), 2U);
  ASSERT_TRUE(heard<notice::NewLeader>(won, 0));
  EXPECT_EQ(std::get<notice::NewLeader>(won.notices[0]).holder, "me");
  EXPECT_TRUE(heard<notice::StartedLeading>(won, 1));
  EXPECT_EQ(as<act::Wait>(won).delay, 2s);
  EXPECT_TRUE(step.leading());

  // A renewal: the Lease last written, no read; its deadline is the leader's.
  now += 2s;
  const auto renew = as<act::Send>(feed(in::Try{}));
  EXPECT_EQ(renew.request, LeaseRequest::write);
  EXPECT_EQ(renew.deadline, now - 2s - 100ms + 10s);  // renew_deadline after the first write
  const auto renewed = feed(answer(held_by("me", 1, "2000-01-01T00:00:02.000000Z")));
  EXPECT_TRUE(renewed.notices.empty());  // the same leader, already announced
  EXPECT_EQ(as<act::Wait>(renewed).delay, 2s);
}

TEST_F(leader_election_step_test, creates_the_lease_when_there_is_none) {
  feed(in::Try{});
  EXPECT_EQ(as<act::Send>(feed(in::Answered{})).request, LeaseRequest::create);
  const auto won = feed(answer(held_by("me")));
  EXPECT_TRUE(heard<notice::StartedLeading>(won, 1));
}

TEST_F(leader_election_step_test,
       a_held_lease_is_taken_once_its_record_stayed_the_same_long_enough) {
  feed(in::Try{});
  const auto held = feed(answer(held_by("other", 4)));
  ASSERT_EQ(held.notices.size(), 1U);
  EXPECT_EQ(std::get<notice::NewLeader>(held.notices[0]).holder, "other");
  EXPECT_EQ(as<act::Wait>(held).delay, 2s);
  // The holder's timestamps are from 2000: only our clock counts.
  now += 14s;
  feed(in::Try{});
  const auto still = feed(answer(held_by("other", 4)));
  EXPECT_TRUE(still.notices.empty());
  as<act::Wait>(still);
  now += 1s;  // the lease duration since the record was first seen unchanged
  feed(in::Try{});
  EXPECT_EQ(as<act::Send>(feed(answer(held_by("other", 4)))).request, LeaseRequest::write);
}

TEST_F(leader_election_step_test, a_record_that_changes_starts_the_count_again) {
  feed(in::Try{});
  feed(answer(held_by("other")));
  now += 10s;
  feed(in::Try{});
  as<act::Wait>(feed(answer(held_by("other", 0, "2000-01-01T00:00:10.000000Z"))));  // renewed
  now += 10s;
  feed(in::Try{});
  as<act::Wait>(feed(answer(held_by("other", 0, "2000-01-01T00:00:10.000000Z"))));
  now += 5s;
  feed(in::Try{});
  as<act::Send>(feed(answer(held_by("other", 0, "2000-01-01T00:00:10.000000Z"))));
}

TEST_F(leader_election_step_test, a_longer_lease_duration_read_is_waited_for) {
  LeaseRecord record = held_by("other");
  record.duration_seconds = 30;
  feed(in::Try{});
  feed(answer(record));
  now += 20s;
  feed(in::Try{});
  as<act::Wait>(feed(answer(record)));
  now += 10s;
  feed(in::Try{});
  as<act::Send>(feed(answer(record)));
}

TEST_F(leader_election_step_test, a_lease_held_by_this_identity_is_taken_at_once) {
  feed(in::Try{});
  EXPECT_EQ(as<act::Send>(feed(answer(held_by("me", 2)))).request, LeaseRequest::write);
}

TEST_F(leader_election_step_test, a_conflict_is_no_failure_and_the_next_try_reads_first) {
  feed(in::Try{});
  feed(answer(held_by("")));
  const auto lost = feed(failure(api_error(409, "Conflict")));
  EXPECT_TRUE(lost.notices.empty());
  EXPECT_EQ(as<act::Wait>(lost).delay, 2s);
  EXPECT_EQ(as<act::Send>(feed(in::Try{})).request, LeaseRequest::read);
  EXPECT_FALSE(step.leading());
}

TEST_F(leader_election_step_test, another_failure_is_heard_and_retried_after_the_retry_period) {
  feed(in::Try{});
  const auto failed = feed(failure(api_error(500, "InternalError")));
  ASSERT_EQ(failed.notices.size(), 1U);
  EXPECT_EQ(Failure(std::get<notice::Failed>(failed.notices[0]).error).http_status(), 500U);
  EXPECT_EQ(as<act::Wait>(failed).delay, 2s);
}

TEST_F(leader_election_step_test, an_unanswered_request_is_a_timeout) {
  feed(in::Try{});
  const auto failed = feed(in::TimedOut{});
  ASSERT_EQ(failed.notices.size(), 1U);
  const Failure timeout(std::get<notice::Failed>(failed.notices[0]).error);
  EXPECT_EQ(timeout.code(), std::errc::timed_out);
  EXPECT_NE(timeout.message().find("no answer within renew_deadline"), std::string::npos);
  as<act::Wait>(failed);
}

TEST_F(leader_election_step_test, a_leader_that_finds_another_holder_stops_at_once) {
  lead();
  now += 2s;
  feed(in::Try{});
  feed(failure(api_error(409, "Conflict")));  // someone else wrote it
  now += 2s;
  EXPECT_EQ(as<act::Send>(feed(in::Try{})).request, LeaseRequest::read);
  const auto seen = feed(answer(held_by("other", 2)));
  ASSERT_EQ(seen.notices.size(), 2U);
  ASSERT_TRUE(heard<notice::StoppedLeading>(seen, 0));
  EXPECT_NE(Failure(std::get<notice::StoppedLeading>(seen.notices[0]).why)
                .message()
                .find("held by other"),
            std::string::npos);
  EXPECT_EQ(std::get<notice::NewLeader>(seen.notices[1]).holder, "other");
  EXPECT_FALSE(step.leading());
  as<act::Wait>(seen);
}

TEST_F(leader_election_step_test, failed_renewals_are_retried_within_the_deadline_then_it_stops) {
  lead();  // deadline: now + 10 s
  const auto start = now;
  now = start + 8500ms;
  feed(in::Try{});
  const auto retry = feed(failure(api_error(503, "ServiceUnavailable")));
  EXPECT_TRUE(heard<notice::Failed>(retry, 0));
  EXPECT_EQ(as<act::Wait>(retry).delay, 1500ms);  // not past the deadline
  EXPECT_TRUE(step.leading());
  now = start + 10s;
  const auto stopped = feed(in::Try{});
  ASSERT_TRUE(heard<notice::StoppedLeading>(stopped, 0));
  EXPECT_EQ(Failure(std::get<notice::StoppedLeading>(stopped.notices[0]).why).code(),
            std::errc::timed_out);
  EXPECT_EQ(as<act::Send>(stopped).request, LeaseRequest::read);  // a candidate again
  EXPECT_FALSE(step.leading());
}

TEST_F(leader_election_step_test, an_answer_later_than_the_deadline_buys_nothing) {
  feed(in::Try{});
  feed(answer(held_by("")));
  now += 10s;
  const auto late = feed(answer(held_by("me", 1)));
  EXPECT_FALSE(step.leading());
  EXPECT_FALSE(heard<notice::StartedLeading>(late, 0));
  as<act::Wait>(late);
  EXPECT_EQ(as<act::Send>(feed(in::Try{})).request, LeaseRequest::read);
}

TEST_F(leader_election_step_test, cancel_stops_leading_and_releases_nothing_by_default) {
  lead();
  const auto canceled = feed(in::Canceled{});
  ASSERT_EQ(canceled.notices.size(), 1U);
  EXPECT_FALSE(std::get<notice::StoppedLeading>(canceled.notices[0]).why);
  EXPECT_FALSE(as<act::Finish>(canceled).error);
}

TEST_F(leader_election_step_test, a_candidate_cancelled_hears_nothing_and_releases_nothing) {
  step = LeaderElectionStep(config(true), "lock", 3);
  feed(in::Try{});
  feed(answer(held_by("other")));
  const auto canceled = feed(in::Canceled{});
  EXPECT_TRUE(canceled.notices.empty());
  EXPECT_FALSE(as<act::Finish>(canceled).error);
}

TEST_F(leader_election_step_test, release_on_cancel_stops_leading_then_frees_the_lease) {
  step = LeaderElectionStep(config(true), "lock", 3);
  lead();
  now += 1s;
  const auto canceled = feed(in::Canceled{});
  EXPECT_TRUE(heard<notice::StoppedLeading>(canceled, 0));
  const auto release = as<act::Send>(canceled);
  EXPECT_EQ(release.request, LeaseRequest::release);
  EXPECT_EQ(release.deadline, now + 10s);
  EXPECT_FALSE(as<act::Finish>(feed(answer(held_by("")))).error);
}

TEST_F(leader_election_step_test, a_release_that_conflicts_reads_the_lease_and_tries_again) {
  step = LeaderElectionStep(config(true), "lock", 3);
  lead();
  feed(in::Canceled{});
  EXPECT_EQ(as<act::Send>(feed(failure(api_error(409, "Conflict")))).request,
            LeaseRequest::release_read);
  EXPECT_EQ(as<act::Send>(feed(answer(held_by("me", 1, "2000-01-01T00:00:05.000000Z")))).request,
            LeaseRequest::release);
  EXPECT_EQ(as<act::Send>(feed(failure(api_error(409, "Conflict")))).request,
            LeaseRequest::release_read);
  feed(answer(held_by("me", 1, "2000-01-01T00:00:07.000000Z")));
  const auto gave_up = feed(failure(api_error(409, "Conflict")));  // the third
  EXPECT_EQ(Failure(as<act::Finish>(gave_up).error).http_status(), 409U);
}

TEST_F(leader_election_step_test, a_release_read_that_finds_another_holder_leaves_it) {
  step = LeaderElectionStep(config(true), "lock", 3);
  lead();
  feed(in::Canceled{});
  feed(failure(api_error(409, "Conflict")));
  EXPECT_FALSE(as<act::Finish>(feed(answer(held_by("other", 2)))).error);
}

TEST_F(leader_election_step_test, a_release_without_an_answer_ends_with_why) {
  for (const bool cut_short : {true, false}) {
    step = LeaderElectionStep(config(true), "lock", 3);
    lead();
    feed(in::Canceled{});
    const auto end = cut_short ? feed(in::CutShort{}) : feed(in::TimedOut{});
    EXPECT_EQ(Failure(as<act::Finish>(end).error).code(),
              cut_short ? std::errc::operation_canceled : std::errc::timed_out);
  }
}

TEST(leader_election_records_test, a_claim_from_another_starts_a_term_a_renewal_does_not) {
  const MicroTime now = *MicroTime::parse("2026-01-01T00:00:00.000000Z");
  const LeaseRecord other = held_by("other", 4);
  const LeaseRecord taken = kubex::runtime::detail::claimed_record(other, "me", 15, now);
  EXPECT_EQ(taken.holder, "me");
  EXPECT_EQ(taken.transitions, 5);
  EXPECT_EQ(taken.acquire_time, now);
  EXPECT_EQ(taken.renew_time, now);
  EXPECT_EQ(taken.duration_seconds, 15);
  const MicroTime later = *MicroTime::parse("2026-01-01T00:00:02.000000Z");
  const LeaseRecord renewed = kubex::runtime::detail::claimed_record(taken, "me", 15, later);
  EXPECT_EQ(renewed.transitions, 5);
  EXPECT_EQ(renewed.acquire_time, now);
  EXPECT_EQ(renewed.renew_time, later);

  const LeaseRecord fresh = kubex::runtime::detail::fresh_record("me", 15, now);
  EXPECT_EQ(fresh.transitions, 0);
  EXPECT_EQ(fresh.acquire_time, now);
  const LeaseRecord released = kubex::runtime::detail::released_record(renewed, later);
  EXPECT_TRUE(released.holder.empty());
  EXPECT_EQ(released.duration_seconds, 1);
  EXPECT_EQ(released.transitions, 5);
}

TEST(leader_election_records_test, durations_round_up_to_whole_seconds) {
  LeaderElectionConfig c = config();
  c.lease_duration = 1500ms;
  c.renew_deadline = 1000ms;
  c.retry_period = 200ms;
  EXPECT_EQ(LeaderElectionStep(c, "lock", 1).duration_seconds(), 2);
  c.lease_duration = 200ms;
  c.renew_deadline = 150ms;
  c.retry_period = 50ms;
  EXPECT_EQ(LeaderElectionStep(c, "lock", 1).duration_seconds(), 1);
}

TEST(leader_election_records_test, durations_that_cannot_work_together_are_refused) {
  using kubex::runtime::detail::validate_election;
  EXPECT_NO_THROW(validate_election(config(), "ns"));
  EXPECT_THROW(validate_election(config(), ""), ConfigError);
  LeaderElectionConfig c = config();
  c.renew_deadline = c.lease_duration;
  EXPECT_THROW(validate_election(c, "ns"), ConfigError);
  c = config();
  c.jitter = 1.2;
  c.renew_deadline = 2400ms;  // not more than jitter * retry_period
  EXPECT_THROW(validate_election(c, "ns"), ConfigError);
}

}  // namespace
