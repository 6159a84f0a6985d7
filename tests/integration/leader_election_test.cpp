// SPDX-License-Identifier: Apache-2.0
// Leader election against the real apiserver, with each candidate a process of its own
// (tests/runtime/leader_election_candidate.cpp: a 3 s lease, 2 s renew deadline, 0.5 s retry
// period, release on SIGTERM) that prints a timeline stamped with the machine's steady clock.
// The test kills and stops them and checks: never two leaders (the leading intervals of all
// timelines do not overlap, and kubectl, the independent second client, reads the leader's
// identity in the Lease); after SIGKILL another takes over once the Lease has gone unrenewed
// for the lease duration, not sooner and not much later; after SIGTERM the leader releases
// the Lease and another takes over at its next try, well before the lease duration.

#include <kubex/testing/child_process.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using kubex::testing::shell_quote;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The candidates' durations, and the longest a candidate waits between tries (client-go's
// jitter: up to 2.2 retry periods).
constexpr auto lease_duration = 3000ms;
constexpr auto renew_deadline = 2000ms;
constexpr auto retry_period = 500ms;
constexpr auto longest_wait = 1100ms;

struct Event {
  Clock::time_point at;
  std::string what;  // ready, leader, started, stopped, error, done, failed
  std::string arg;
};

// One candidate process; its stdout (the timeline) goes to a file.
class Candidate {
 public:
  Candidate(std::string identity, const std::string& lease, const std::string& ns,
            const std::filesystem::path& dir)
      : identity_(std::move(identity)),
        process_({KUBEX_LEADER_ELECTION_CANDIDATE, lease, ns, identity_,
                  std::to_string(lease_duration.count()), std::to_string(renew_deadline.count()),
                  std::to_string(retry_period.count())},
                 {}, dir / (identity_ + ".log")),
        out_(process_.output_path()) {}

  [[nodiscard]] const std::string& identity() const noexcept { return identity_; }
  [[nodiscard]] bool running() const { return process_.running(); }

  // Sends `signal` and notes when: a process killed with SIGKILL led until then at most.
  Clock::time_point signal(int signal) {
    const auto now = Clock::now();
    if (signal == SIGKILL) {
      killed_at_ = now;
    }
    process_.signal(signal);
    return now;
  }
  // Waits for the process to exit; its exit status (-1 if it did not exit normally).
  std::optional<int> wait_exit(Clock::duration limit) {
    return process_.wait_exit(std::chrono::duration_cast<std::chrono::milliseconds>(limit));
  }
  [[nodiscard]] std::optional<Clock::time_point> killed_at() const { return killed_at_; }

  [[nodiscard]] std::vector<Event> timeline() const {
    std::vector<Event> out;
    std::ifstream in(out_);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      long long ns = 0;
      Event e;
      if (!(fields >> ns >> e.what)) {
        continue;  // a line still being written
      }
      std::getline(fields >> std::ws, e.arg);
      e.at = Clock::time_point(
          std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
      out.push_back(std::move(e));
    }
    return out;
  }
  // When it last started leading, if it leads now (by its timeline, and alive).
  [[nodiscard]] std::optional<Clock::time_point> leading_since() const {
    if (!running() || killed_at_) {
      return std::nullopt;
    }
    std::optional<Clock::time_point> since;
    for (const auto& e : timeline()) {
      if (e.what == "started") {
        since = e.at;
      } else if (e.what == "stopped") {
        since.reset();
      }
    }
    return since;
  }
  [[nodiscard]] std::string text() const {
    std::string out;
    for (const auto& e : timeline()) {
      out += "  " + identity_ + ": " + std::to_string(e.at.time_since_epoch().count()) + " " +
             e.what + " " + e.arg + "\n";
    }
    return out;
  }

 private:
  std::string identity_;
  mutable kubex::testing::ChildProcess process_;
  std::filesystem::path out_;
  std::optional<Clock::time_point> killed_at_;
};

class leader_election_test : public kubex::testing::TestenvTest {
 protected:
  void start(std::initializer_list<const char*> identities) {
    for (const char* identity : identities) {
      candidates_.push_back(
          std::make_unique<Candidate>(identity, "lock", own_namespace(), dir_.path()));
    }
  }

  // The candidates that lead now, by their timelines.
  std::vector<Candidate*> leaders() const {
    std::vector<Candidate*> out;
    for (const auto& c : candidates_) {
      if (c->leading_since()) {
        out.push_back(c.get());
      }
    }
    return out;
  }
  // Waits up to `limit` for exactly one leader other than `not_this`; null if none came.
  Candidate* wait_for_leader(Clock::duration limit, const Candidate* not_this = nullptr) {
    const auto until = Clock::now() + limit;
    while (Clock::now() < until) {
      const auto now = leaders();
      if (now.size() == 1 && now.front() != not_this) {
        return now.front();
      }
      std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "no new leader within "
                  << std::chrono::duration_cast<std::chrono::milliseconds>(limit).count()
                  << " ms:\n"
                  << timelines();
    return nullptr;
  }

  std::string lease_field(const std::string& jsonpath) const {
    return testenv().kubectl("get lease lock -n " + shell_quote(ns()) + " -o " +
                             shell_quote("jsonpath={" + jsonpath + "}"));
  }
  std::string holder() const { return lease_field(".spec.holderIdentity"); }

  // For `period`, kubectl keeps reading `leader` as the holder and no other candidate leads.
  void expect_stable(const Candidate& leader, Clock::duration period) {
    const auto until = Clock::now() + period;
    while (Clock::now() < until) {
      EXPECT_EQ(holder(), leader.identity());
      const auto now = leaders();
      EXPECT_EQ(now.size(), 1U) << timelines();
      std::this_thread::sleep_for(200ms);
    }
  }

  // Kills `leader` with SIGKILL and checks when the next one takes over: not before the Lease
  // went unrenewed for the lease duration (its last renewal was at most a retry period before
  // the kill), and within the lease duration after the last renewal another candidate saw,
  // plus its waits between tries.
  Candidate* kill_and_fail_over(Candidate& leader) {
    const auto killed = leader.signal(SIGKILL);
    EXPECT_TRUE(leader.wait_exit(5s).has_value());
    Candidate* next = wait_for_leader(lease_duration + 2 * longest_wait + 3s, &leader);
    if (next == nullptr) {
      return nullptr;
    }
    const auto took = *next->leading_since() - killed;
    EXPECT_GE(took, lease_duration - retry_period - 500ms) << "took over too soon\n" << timelines();
    EXPECT_LE(took, lease_duration + 2 * longest_wait + 500ms) << timelines();
    std::printf("failover after SIGKILL: %lld ms\n",
                static_cast<long long>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
    EXPECT_EQ(holder(), next->identity());
    return next;
  }

  // Stops `leader` with SIGTERM: it stops leading, releases the Lease and exits 0; if others
  // remain, one takes over at its next try, well before the lease duration.
  Candidate* terminate_and_hand_over(Candidate& leader) {
    const auto stopped = leader.signal(SIGTERM);
    EXPECT_EQ(leader.wait_exit(5s), 0) << timelines();
    const auto events = leader.timeline();
    EXPECT_TRUE(!events.empty() && events.back().what == "done") << timelines();
    const bool others = std::any_of(candidates_.begin(), candidates_.end(),
                                    [](const auto& c) { return c->running(); });
    if (!others) {
      EXPECT_EQ(holder(), "");
      return nullptr;
    }
    Candidate* next = wait_for_leader(lease_duration, &leader);
    if (next == nullptr) {
      return nullptr;
    }
    const auto took = *next->leading_since() - stopped;
    EXPECT_LT(took, longest_wait + 700ms) << "the release was not taken at once\n" << timelines();
    std::printf("handover after SIGTERM: %lld ms\n",
                static_cast<long long>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
    EXPECT_EQ(holder(), next->identity());
    return next;
  }

  // Never two leaders: the leading intervals of every timeline, a SIGKILLed one ending at its
  // kill, do not overlap; none started twice without stopping between.
  void expect_one_leader_at_a_time() const {
    std::vector<std::pair<Clock::time_point, Clock::time_point>> intervals;
    for (const auto& c : candidates_) {
      std::optional<Clock::time_point> since;
      for (const auto& e : c->timeline()) {
        if (e.what == "started") {
          EXPECT_FALSE(since) << c->identity() << " started twice";
          since = e.at;
        } else if (e.what == "stopped" && since) {
          intervals.emplace_back(*since, e.at);
          since.reset();
        }
      }
      if (since) {
        intervals.emplace_back(*since, c->killed_at().value_or(Clock::time_point::max()));
      }
    }
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i) {
      EXPECT_GE(intervals[i].first, intervals[i - 1].second) << "two leaders at once\n"
                                                             << timelines();
    }
  }

  std::string timelines() const {
    std::string out;
    for (const auto& c : candidates_) {
      out += c->text();
    }
    return out;
  }
  const std::string& ns() const { return ns_; }

  void SetUp() override {
    TestenvTest::SetUp();
    if (!HasFatalFailure()) {
      ns_ = own_namespace();
    }
  }

  kubex::testing::TempDir dir_;
  std::string ns_;
  std::vector<std::unique_ptr<Candidate>> candidates_;
};

TEST_F(leader_election_test, two_candidates_one_leader_and_failover_after_sigkill) {
  start({"a", "b"});
  Candidate* first = wait_for_leader(10s);
  ASSERT_NE(first, nullptr);
  expect_stable(*first, 1500ms);
  EXPECT_EQ(lease_field(".spec.leaseTransitions"), "0");  // created by the first
  EXPECT_EQ(lease_field(".spec.leaseDurationSeconds"), "3");
  Candidate* second = kill_and_fail_over(*first);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(lease_field(".spec.leaseTransitions"), "1");
  expect_stable(*second, 600ms);
  EXPECT_EQ(terminate_and_hand_over(*second), nullptr);
  expect_one_leader_at_a_time();
  // The second heard of the first leader, then of itself.
  std::vector<std::string> heard;
  for (const auto& e : second->timeline()) {
    if (e.what == "leader" || e.what == "started") {
      heard.push_back(e.what + " " + e.arg);
    }
  }
  EXPECT_EQ(heard, (std::vector<std::string>{"leader " + first->identity(),
                                             "leader " + second->identity(), "started "}));
}

TEST_F(leader_election_test,
       three_candidates_hand_over_on_sigterm_at_once_and_fail_over_on_sigkill) {
  start({"a", "b", "c"});
  Candidate* first = wait_for_leader(10s);
  ASSERT_NE(first, nullptr);
  expect_stable(*first, 1000ms);
  Candidate* second = terminate_and_hand_over(*first);
  ASSERT_NE(second, nullptr);
  // A release keeps the count of transitions; the taking over adds one.
  EXPECT_EQ(lease_field(".spec.leaseTransitions"), "1");
  expect_stable(*second, 600ms);
  Candidate* third = kill_and_fail_over(*second);
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(lease_field(".spec.leaseTransitions"), "2");
  EXPECT_EQ(terminate_and_hand_over(*third), nullptr);
  expect_one_leader_at_a_time();
}

}  // namespace
