// SPDX-License-Identifier: Apache-2.0
// The leader elector through kubex::testing::ScriptedTransport: what a candidate does with each
// answer (a free Lease, none, one held by another that stops changing, 409 Conflict, failed and
// unanswered renewals, the release), with every request and every written field checked. The
// script stands in for the server because these faults cannot be produced on cue against a
// real apiserver: a renewal that never gets its answer, a write that loses the race to another
// candidate at exactly this step, a holder whose record stops changing at a given moment. The
// same elector runs as separate processes against the real control plane in
// tests/integration/leader_election_test.cpp.
//
// Durations are short (a 200 ms lease) and jitter is off, so each case takes well under a
// second; the scripts' request counts hold as long as no step is late by more than ~50 ms.

#include <kubex/client/api.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/time.hpp>
#include <kubex/k8s/v1_35/coordination/v1.hpp>
#include <kubex/runtime/leader_election.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace coordination = kubex::k8s::v1_35::coordination::v1;
using kubex::Failure;
using kubex::client::Api;
using kubex::client::Client;
using kubex::runtime::LeaderElectionConfig;
using kubex::runtime::LeaderElector;
using kubex::testing::ScriptedTransport;
using kubex::testing::Step;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The script records a request a little after the elector took its own time for it, so a lower
// bound measured from the script's times may come out short by that hand-over; CI once saw
// 149.87 ms for a 150 ms deadline.
constexpr auto handover = 5ms;

const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";
const std::string lock = leases + "/lock";

// A Lease as the server sends it. Timestamps are from 2000: a candidate that compared them
// with its own clock would think every holder long gone.
std::string lease_json(const std::string& rv, const std::optional<std::string>& holder,
                       int transitions, const std::string& renew = "2000-01-01T00:00:00.000000Z",
                       std::optional<int> duration = std::nullopt) {
  std::string spec = R"("leaseTransitions":)" + std::to_string(transitions) +
                     R"(,"acquireTime":"2000-01-01T00:00:00.000000Z","renewTime":")" + renew + "\"";
  if (holder) {
    spec += R"(,"holderIdentity":")" + *holder + "\"";
  }
  if (duration) {
    spec += R"(,"leaseDurationSeconds":)" + std::to_string(*duration);
  }
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lock",)"
         R"("namespace":"ns","resourceVersion":")" +
         rv + R"("},"spec":{)" + spec + "}}";
}

std::string status_json(int code, const std::string& reason) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m",)"
         R"("reason":")" +
         reason + R"(","code":)" + std::to_string(code) + "}";
}

// What a write sent, decoded.
coordination::Lease written(const kubex::client::HttpRequest& request) {
  return kubex::json::decode<coordination::Lease>(request.body);
}

std::string holder_of(const coordination::Lease& lease) {
  return lease.spec ? lease.spec->holder_identity.value_or("<none>") : "<no spec>";
}

class leader_election_scripted_test : public ::testing::Test {
 protected:
  leader_election_scripted_test()
      : transport_(std::make_shared<ScriptedTransport>(ioc_.get_executor())), client_(transport_) {}

  void TearDown() override { EXPECT_EQ(transport_->verify(), ""); }

  // 200 ms lease, 150 ms renew deadline, `retry` between tries, no jitter; the callbacks
  // write the timeline.
  LeaderElectionConfig config(std::chrono::milliseconds retry = 50ms) {
    LeaderElectionConfig c;
    c.lease_name = "lock";
    c.identity = "me";
    c.lease_duration = 200ms;
    c.renew_deadline = 150ms;
    c.retry_period = retry;
    c.jitter = 0.0;
    c.on_started_leading = [this] {
      note("started");
    };
    c.on_stopped_leading = [this] {
      note("stopped");
    };
    c.on_new_leader = [this](const std::string& id) {
      note("leader " + id);
    };
    c.on_error = [this](std::exception_ptr e) {
      errors_.push_back(Failure(e).message());
    };
    return c;
  }

  void note(const std::string& what) { timeline_.emplace_back(what, Clock::now()); }

  [[nodiscard]] std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (const auto& [what, when] : timeline_) {
      out.push_back(what);
    }
    return out;
  }
  [[nodiscard]] Clock::time_point when(const std::string& what) const {
    for (const auto& [w, t] : timeline_) {
      if (w == what) {
        return t;
      }
    }
    ADD_FAILURE() << "no " << what << " in the timeline";
    return {};
  }

  // A step that records when its request came and checks its body.
  Step step(const std::string& method, const std::string& target, unsigned status, std::string body,
            std::function<void(const coordination::Lease&)> check = {}) {
    Step s;
    s.method = method;
    s.target = target;
    s.response.status = status;
    s.response.body = std::move(body);
    const std::size_t index = sent_.size();
    sent_.emplace_back();
    s.check = [this, index, check = std::move(check)](const kubex::client::HttpRequest& r) {
      sent_[index] = Clock::now();
      if (check) {
        check(written(r));
      }
      return true;
    };
    return s;
  }
  // A request that gets no answer while the test runs.
  Step unanswered(const std::string& method, const std::string& target) {
    Step s = step(method, target, 200, "{}");
    s.delay = 1h;
    return s;
  }

  // Runs the loop until `ready()`; fails after five seconds.
  void run_until(const std::function<bool()>& ready) {
    const auto limit = Clock::now() + 5s;
    while (!ready()) {
      if (Clock::now() > limit) {
        FAIL() << "timed out; timeline so far: " << ::testing::PrintToString(events());
      }
      if (ioc_.run_one_for(100ms) == 0) {
        ioc_.restart();
      }
    }
  }

  std::unique_ptr<LeaderElector<coordination::Lease>> elector(LeaderElectionConfig c) {
    return std::make_unique<LeaderElector<coordination::Lease>>(
        Api<coordination::Lease>::namespaced(client_, "ns"), std::move(c));
  }
  void start(LeaderElector<coordination::Lease>& e) {
    e.async_run([this](std::exception_ptr error) { done_ = std::move(error); });
  }
  // Cancels and waits for async_run; what it completed with.
  std::exception_ptr stop(LeaderElector<coordination::Lease>& e) {
    e.cancel();
    run_until([this] { return done_.has_value(); });
    return done_.value_or(nullptr);
  }
  bool played_all() const { return transport_->remaining() == 0; }

  boost::asio::io_context ioc_;
  std::shared_ptr<ScriptedTransport> transport_;
  Client client_;
  std::vector<std::pair<std::string, Clock::time_point>> timeline_;
  std::vector<std::string> errors_;
  std::vector<Clock::time_point> sent_;  // when each step's request came
  std::optional<std::exception_ptr> done_;
};

TEST_F(leader_election_scripted_test, acquires_a_free_lease_and_renews_it_with_one_write) {
  transport_->expect(step("GET", lock, 200, lease_json("5", std::nullopt, 2)));
  transport_->expect(step("PUT", lock, 200, lease_json("6", "me", 3), [](const auto& l) {
    EXPECT_EQ(l.metadata.resource_version, "5");  // the precondition: the version read
    EXPECT_EQ(holder_of(l), "me");
    EXPECT_EQ(l.spec->lease_transitions, 3);       // a new holder: one more transition
    EXPECT_EQ(l.spec->lease_duration_seconds, 1);  // 200 ms, in whole seconds
    ASSERT_TRUE(l.spec->acquire_time && l.spec->renew_time);
    EXPECT_GT(*l.spec->acquire_time, *kubex::MicroTime::parse("2001-01-01T00:00:00Z"));
  }));
  // The renewal writes what it last wrote, without reading first.
  transport_->expect(step("PUT", lock, 200, lease_json("7", "me", 3), [](const auto& l) {
    EXPECT_EQ(l.metadata.resource_version, "6");
    EXPECT_EQ(holder_of(l), "me");
    EXPECT_EQ(l.spec->lease_transitions, 3);  // the same term
    EXPECT_EQ(l.spec->acquire_time, kubex::MicroTime::parse("2000-01-01T00:00:00Z"));
  }));
  transport_->expect(unanswered("PUT", lock));
  auto e = elector(config());
  EXPECT_FALSE(e->is_leader());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_TRUE(e->is_leader());
  EXPECT_EQ(e->leader(), "me");
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(events(), (std::vector<std::string>{"leader me", "started", "stopped"}));
  EXPECT_GE(sent_[2] - sent_[1], 50ms - handover);  // renewed after the retry period
  EXPECT_TRUE(errors_.empty()) << ::testing::PrintToString(errors_);
}

TEST_F(leader_election_scripted_test, creates_the_lease_when_there_is_none) {
  transport_->expect(step("GET", lock, 404, status_json(404, "NotFound")));
  transport_->expect(step("POST", leases, 201, lease_json("1", "me", 0), [](const auto& l) {
    EXPECT_EQ(l.metadata.name, "lock");
    EXPECT_EQ(holder_of(l), "me");
    EXPECT_EQ(l.spec->lease_transitions, 0);
    EXPECT_EQ(l.spec->lease_duration_seconds, 1);
    EXPECT_TRUE(l.spec->acquire_time && l.spec->renew_time);
  }));
  transport_->expect(unanswered("PUT", lock));
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_TRUE(e->is_leader());
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(), (std::vector<std::string>{"leader me", "started", "stopped"}));
}

TEST_F(leader_election_scripted_test, another_candidate_creating_it_first_wins) {
  transport_->expect(step("GET", lock, 404, status_json(404, "NotFound")));
  transport_->expect(step("POST", leases, 409, status_json(409, "AlreadyExists")));
  transport_->expect(step("GET", lock, 200, lease_json("1", "other", 0)));
  transport_->expect(unanswered("GET", lock));
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(e->leader(), "other");
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(), (std::vector<std::string>{"leader other"}));
  EXPECT_TRUE(errors_.empty()) << ::testing::PrintToString(errors_);
}

// The holder's timestamps are from 2000 and never compared: what counts is that the record
// stayed the same for the lease duration as this candidate saw it. Polls every 100 ms: a
// change seen at the second poll starts the wait again, so the third poll (200 ms after the
// first) still finds it held and the write follows the fourth, 200 ms after the change. (No
// leaseDurationSeconds in the record, so the candidate's own 200 ms decide; with one, the longer of
// the two would.)
TEST_F(
    leader_election_scripted_test,
    takes_a_lease_held_by_another_only_after_its_record_stayed_unchanged_for_the_lease_duration) {
  transport_->expect(step("GET", lock, 200, lease_json("7", "other", 4)));
  const std::string renewed = "2000-01-01T00:00:01.000000Z";
  transport_->expect(step("GET", lock, 200, lease_json("8", "other", 4, renewed)));
  transport_->expect(step("GET", lock, 200, lease_json("8", "other", 4, renewed)));
  transport_->expect(step("GET", lock, 200, lease_json("8", "other", 4, renewed)));
  transport_->expect(step("PUT", lock, 200, lease_json("9", "me", 5), [](const auto& l) {
    EXPECT_EQ(l.metadata.resource_version, "8");
    EXPECT_EQ(holder_of(l), "me");
    EXPECT_EQ(l.spec->lease_transitions, 5);
    ASSERT_TRUE(l.spec->acquire_time);
    EXPECT_GT(*l.spec->acquire_time, *kubex::MicroTime::parse("2001-01-01T00:00:00Z"));
  }));
  transport_->expect(unanswered("PUT", lock));
  auto e = elector(config(100ms));
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_GE(sent_[4] - sent_[1], 200ms - handover);  // the takeover, after the last change seen
  EXPECT_TRUE(e->is_leader());
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(),
            (std::vector<std::string>{"leader other", "leader me", "started", "stopped"}));
}

TEST_F(leader_election_scripted_test, takes_a_lease_it_already_holds_at_once_in_the_same_term) {
  transport_->expect(step("GET", lock, 200, lease_json("3", "me", 2)));
  transport_->expect(step("PUT", lock, 200, lease_json("4", "me", 2), [](const auto& l) {
    EXPECT_EQ(l.spec->lease_transitions, 2);
    EXPECT_EQ(l.spec->acquire_time, kubex::MicroTime::parse("2000-01-01T00:00:00Z"));
  }));
  transport_->expect(unanswered("PUT", lock));
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_TRUE(e->is_leader());
  EXPECT_EQ(stop(*e), nullptr);
}

TEST_F(leader_election_scripted_test, a_conflict_on_the_write_means_another_candidate_won) {
  transport_->expect(step("GET", lock, 200, lease_json("1", "", 0)));
  transport_->expect(step("PUT", lock, 409, status_json(409, "Conflict")));
  transport_->expect(step("GET", lock, 200, lease_json("2", "other", 1)));
  transport_->expect(unanswered("GET", lock));
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(e->leader(), "other");
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(), (std::vector<std::string>{"leader other"}));
  EXPECT_TRUE(errors_.empty()) << ::testing::PrintToString(errors_);
}

TEST_F(leader_election_scripted_test, a_leader_that_finds_another_holder_stops_at_once) {
  transport_->expect(step("GET", lock, 200, lease_json("1", std::nullopt, 0)));
  transport_->expect(step("PUT", lock, 200, lease_json("2", "me", 1)));
  transport_->expect(step("PUT", lock, 409, status_json(409, "Conflict")));
  transport_->expect(step("GET", lock, 200, lease_json("3", "other", 2)));
  transport_->expect(unanswered("GET", lock));
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(events(),
            (std::vector<std::string>{"leader me", "started", "stopped", "leader other"}));
  EXPECT_LT(when("stopped") - sent_[1], 150ms) << "before the renew deadline";
  EXPECT_EQ(stop(*e), nullptr);
}

// A renewal the network swallows: the leader stops at its renew deadline (150 ms after it sent
// its last successful write), without waiting for the answer, before anyone may take over (the
// lease lasts 200 ms from when others saw that write).
TEST_F(leader_election_scripted_test, a_renewal_without_an_answer_stops_leading_at_the_deadline) {
  transport_->expect(step("GET", lock, 200, lease_json("1", std::nullopt, 0)));
  transport_->expect(step("PUT", lock, 200, lease_json("2", "me", 1)));
  transport_->expect(unanswered("PUT", lock));
  transport_->expect(unanswered("GET", lock));  // a candidate again
  auto e = elector(config());
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(events(), (std::vector<std::string>{"leader me", "started", "stopped"}));
  const auto held = when("stopped") - sent_[1];
  EXPECT_GE(held, 150ms - handover);
  EXPECT_LT(held, 200ms) << "still leading when another candidate may take over";
  EXPECT_EQ(stop(*e), nullptr);
  ASSERT_EQ(errors_.size(), 2U);
  EXPECT_NE(errors_[1].find("stopped leading"), std::string::npos) << errors_[1];
}

// Renewals that fail (a 500, then a retry that fails too) until the deadline: the leader retries
// within it, then stops; the failures reach on_error.
TEST_F(leader_election_scripted_test, renewal_failures_past_the_renew_deadline_stop_leading) {
  transport_->expect(step("GET", lock, 200, lease_json("1", std::nullopt, 0)));
  transport_->expect(step("PUT", lock, 200, lease_json("2", "me", 1)));
  transport_->expect(step("PUT", lock, 500, status_json(500, "InternalError")));  // at ~100 ms
  // The retry (at ~150 ms, the deadline) finds it past: stops leading, then reads as a
  // candidate.
  transport_->expect(unanswered("GET", lock));
  auto e = elector(config(100ms));
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_FALSE(e->is_leader());
  EXPECT_EQ(events(), (std::vector<std::string>{"leader me", "started", "stopped"}));
  EXPECT_GE(when("stopped") - sent_[1], 150ms - handover);
  EXPECT_EQ(stop(*e), nullptr);
  ASSERT_EQ(errors_.size(), 2U);
  EXPECT_NE(errors_[0].find("500"), std::string::npos) << errors_[0];
  EXPECT_NE(errors_[1].find("stopped leading"), std::string::npos) << errors_[1];
}

TEST_F(leader_election_scripted_test, release_on_cancel_stops_leading_then_frees_the_lease) {
  transport_->expect(step("GET", lock, 200, lease_json("1", std::nullopt, 4)));
  transport_->expect(step("PUT", lock, 200, lease_json("2", "me", 5)));
  transport_->expect(step("PUT", lock, 200, lease_json("3", "", 5), [this](const auto& l) {
    EXPECT_EQ(events().back(), "stopped") << "released before the work stopped";
    EXPECT_EQ(l.metadata.resource_version, "2");
    EXPECT_EQ(holder_of(l), "");
    EXPECT_EQ(l.spec->lease_duration_seconds, 1);
    EXPECT_EQ(l.spec->lease_transitions, 5);
  }));
  auto c = config();
  c.release_on_cancel = true;
  auto e = elector(std::move(c));
  start(*e);
  run_until([&e] { return e->is_leader(); });
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(), (std::vector<std::string>{"leader me", "started", "stopped"}));
  EXPECT_EQ(e->leader(), "");
}

// The release meets a Lease renewed by a write whose answer cancel() did not wait for: it
// reads the Lease and, still ours, releases that version.
TEST_F(leader_election_scripted_test, a_release_that_conflicts_reads_the_lease_and_tries_again) {
  transport_->expect(step("GET", lock, 200, lease_json("1", std::nullopt, 0)));
  transport_->expect(step("PUT", lock, 200, lease_json("2", "me", 1)));
  transport_->expect(unanswered("PUT", lock));
  transport_->expect(step("PUT", lock, 409, status_json(409, "Conflict")));
  transport_->expect(step("GET", lock, 200, lease_json("3", "me", 1)));
  transport_->expect(step("PUT", lock, 200, lease_json("4", "", 1), [](const auto& l) {
    EXPECT_EQ(l.metadata.resource_version, "3");
    EXPECT_EQ(holder_of(l), "");
  }));
  auto c = config();
  c.release_on_cancel = true;
  auto e = elector(std::move(c));
  start(*e);
  run_until([this] { return transport_->remaining() == 3; });  // the renewal is in flight
  EXPECT_EQ(stop(*e), nullptr);
}

TEST_F(leader_election_scripted_test, a_candidate_cancelled_releases_nothing) {
  transport_->expect(step("GET", lock, 200, lease_json("1", "other", 0)));
  auto c = config();
  c.release_on_cancel = true;
  auto e = elector(std::move(c));
  start(*e);
  run_until([this] { return played_all(); });
  EXPECT_EQ(stop(*e), nullptr);
  EXPECT_EQ(events(), (std::vector<std::string>{"leader other"}));
}

TEST_F(leader_election_scripted_test, refuses_durations_that_cannot_work_together) {
  const auto make = [this](auto change) {
    auto c = config();
    change(c);
    return [this, c] {
      elector(c);
    };
  };
  EXPECT_THROW(make([](auto& c) { c.renew_deadline = c.lease_duration; })(), kubex::ConfigError);
  EXPECT_THROW(make([](auto& c) { c.retry_period = 0ms; })(), kubex::ConfigError);
  EXPECT_THROW(make([](auto& c) {
                 c.jitter = 1.2;
                 c.retry_period = 130ms;  // 156 ms with jitter: past the renew deadline
               })(),
               kubex::ConfigError);
  EXPECT_THROW(make([](auto& c) { c.identity.clear(); })(), kubex::ConfigError);
  EXPECT_THROW(make([](auto& c) { c.lease_name.clear(); })(), kubex::ConfigError);
  EXPECT_THROW(
      (LeaderElector<coordination::Lease>(Api<coordination::Lease>::all(client_), config())),
      kubex::ConfigError);
  EXPECT_NO_THROW(make([](auto&) {})());
}

}  // namespace
