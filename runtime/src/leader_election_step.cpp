// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/runtime/leader_election_step.hpp>

#include <algorithm>
#include <system_error>
#include <type_traits>
#include <utility>

namespace kubex::runtime::detail {

LeaseRecord claimed_record(const LeaseRecord& old, const std::string& identity,
                           std::int64_t duration_seconds, MicroTime now) {
  LeaseRecord record = old;
  record.holder = identity;
  record.duration_seconds = duration_seconds;
  record.renew_time = now;
  if (old.holder != identity || !old.acquire_time) {
    record.acquire_time = now;
  }
  record.transitions = old.holder == identity ? old.transitions : old.transitions + 1;
  return record;
}

LeaseRecord fresh_record(const std::string& identity, std::int64_t duration_seconds,
                         MicroTime now) {
  return LeaseRecord{.holder = identity,
                     .duration_seconds = duration_seconds,
                     .acquire_time = now,
                     .renew_time = now,
                     .transitions = 0};
}

LeaseRecord released_record(const LeaseRecord& old, MicroTime now) {
  LeaseRecord record = old;
  record.holder.clear();
  record.duration_seconds = 1;
  record.acquire_time = now;
  record.renew_time = now;
  return record;
}

void validate_election(const LeaderElectionConfig& config, std::string_view namespace_name) {
  const auto fail = [](const std::string& what) {
    throw ConfigError("LeaderElector: " + what);
  };
  if (namespace_name.empty()) {
    fail("the Api must address one namespace (Api::namespaced)");
  }
  if (config.lease_name.empty()) {
    fail("lease_name must not be empty");
  }
  if (config.identity.empty()) {
    fail("identity must not be empty");
  }
  if (config.retry_period <= std::chrono::milliseconds::zero() || config.jitter < 0.0) {
    fail("retry_period must be positive and jitter not negative");
  }
  if (config.lease_duration <= config.renew_deadline) {
    fail("lease_duration must be greater than renew_deadline");
  }
  if (std::chrono::duration<double, std::milli>(config.renew_deadline).count() <=
      config.jitter * std::chrono::duration<double, std::milli>(config.retry_period).count()) {
    fail("renew_deadline must be greater than jitter * retry_period");
  }
}

namespace {

std::exception_ptr timeout(std::errc code, std::string message) {
  return std::make_exception_ptr(Error(make_error_code(code), std::move(message)));
}

}  // namespace

LeaderElectionStep::LeaderElectionStep(const LeaderElectionConfig& config, std::string what,
                                       std::uint64_t seed)
    : lease_duration_(config.lease_duration),
      renew_deadline_(config.renew_deadline),
      retry_period_(config.retry_period),
      jitter_(config.jitter),
      release_on_cancel_(config.release_on_cancel),
      identity_(config.identity),
      what_(std::move(what)),
      random_(seed) {}

ElectionDecision LeaderElectionStep::step(const ElectionInput& input, clock::time_point now) {
  ElectionDecision out;
  if (std::holds_alternative<election_input::Try>(input)) {
    attempt(out, now);
  } else if (std::holds_alternative<election_input::Canceled>(input)) {
    shut_down(out, now);
  } else if (request_ == LeaseRequest::release || request_ == LeaseRequest::release_read) {
    settle_release(out, input, now);
  } else if (std::holds_alternative<election_input::CutShort>(input)) {
    shut_down(out, now);
  } else if (std::holds_alternative<election_input::TimedOut>(input)) {
    out.notices.emplace_back(election_notice::Failed{
        timeout(std::errc::timed_out, what_ + ": no answer within renew_deadline")});
    failed(out, now);
  } else {
    answered(out, std::get<election_input::Answered>(input), now);
  }
  return out;
}

// The next try: a leader renews by writing the Lease it last wrote (one request); a candidate,
// or a leader whose last write failed, reads the Lease first.
void LeaderElectionStep::attempt(ElectionDecision& out, clock::time_point now) {
  if (const auto* leading = std::get_if<election_state::Leading>(&state_)) {
    if (now >= leading->deadline) {
      lose(out, "no renewal succeeded within renew_deadline");
    }
  }
  if (leading() && observed_ && !read_first_) {
    return send(out, LeaseRequest::write, now);
  }
  send(out, LeaseRequest::read, now);
}

// A leader's request must be answered by its renew deadline, anyone else's within the renew
// deadline from now, so that a request the network swallowed does not stall the election.
void LeaderElectionStep::send(ElectionDecision& out, LeaseRequest request, clock::time_point now) {
  request_ = request;
  sent_ = now;
  const bool releasing = request == LeaseRequest::release || request == LeaseRequest::release_read;
  const auto* leading = std::get_if<election_state::Leading>(&state_);
  const clock::time_point deadline =
      leading != nullptr && !releasing ? leading->deadline : sent_ + renew_deadline_;
  out.action = election_action::Send{.request = request, .deadline = deadline};
}

// What an answer to a read, create or write means for the election.
void LeaderElectionStep::answered(ElectionDecision& out, const election_input::Answered& answer,
                                  clock::time_point now) {
  if (answer.error) {
    // Another candidate wrote first (409 on a replace; AlreadyExists on a create): it won this
    // round. Not a failure of anything.
    if (Failure(answer.error).http_status() != 409) {
      out.notices.emplace_back(election_notice::Failed{answer.error});
    }
    return failed(out, now);
  }
  if (request_ == LeaseRequest::read) {
    if (!answer.record) {
      return send(out, LeaseRequest::create, now);
    }
    return consider(out, *answer.record, now);
  }
  won(out, answer.record.value_or(LeaseRecord{}), now);
}

// The Lease as read: take it if it is free, ours, or its record stayed unchanged for the
// lease duration on our clock.
void LeaderElectionStep::consider(ElectionDecision& out, const LeaseRecord& record,
                                  clock::time_point now) {
  observe(record, now);
  if (!record.holder.empty() && record.holder != identity_ &&
      now < observed_at_ + hold_time(record)) {
    if (leading()) {
      lose(out, "the Lease is held by " + record.holder);
    }
    announce(out);
    out.action = election_action::Wait{candidate_wait()};
    return;
  }
  send(out, LeaseRequest::write, now);
}

// A write succeeded: we hold the Lease until renew_deadline after we sent it.
void LeaderElectionStep::won(ElectionDecision& out, const LeaseRecord& record,
                             clock::time_point now) {
  observe(record, now);
  read_first_ = false;
  if (now >= sent_ + renew_deadline_) {
    // The answer took so long that the time it bought is spent.
    return failed(out, now);
  }
  const clock::time_point deadline = sent_ + renew_deadline_;
  announce(out);
  if (auto* leading = std::get_if<election_state::Leading>(&state_)) {
    leading->deadline = deadline;
  } else {
    state_ = election_state::Leading{deadline};
    out.notices.emplace_back(election_notice::StartedLeading{});
  }
  out.action = election_action::Wait{retry_period_};
}

// A try failed: read before the next write. A leader tries again within its deadline and
// stops leading at it.
void LeaderElectionStep::failed(ElectionDecision& out, clock::time_point now) {
  read_first_ = true;
  if (observed_) {
    announce(out);
  }
  if (const auto* leading = std::get_if<election_state::Leading>(&state_)) {
    if (now < leading->deadline) {
      out.action =
          election_action::Wait{std::min<clock::duration>(retry_period_, leading->deadline - now)};
      return;
    }
    lose(out, "no renewal succeeded within renew_deadline");
  }
  out.action = election_action::Wait{candidate_wait()};
}

// cancel(): stop leading, then release the Lease if asked to and it names us.
void LeaderElectionStep::shut_down(ElectionDecision& out, clock::time_point now) {
  if (leading()) {
    state_ = election_state::Candidate{};
    out.notices.emplace_back(election_notice::StoppedLeading{});
  }
  if (release_on_cancel_ && observed_ && observed_->holder == identity_) {
    state_ = election_state::Releasing{};
    return send(out, LeaseRequest::release, now);
  }
  out.action = election_action::Finish{};
}

// The release's answer. A 409 means the Lease changed since we last wrote it (a renewal whose
// answer cancel() did not wait for): read it, and release it again if it is ours.
void LeaderElectionStep::settle_release(ElectionDecision& out, const ElectionInput& input,
                                        clock::time_point now) {
  const auto* answer = std::get_if<election_input::Answered>(&input);
  if (answer == nullptr) {
    const bool canceled = std::holds_alternative<election_input::CutShort>(input);
    out.action = election_action::Finish{
        canceled
            ? timeout(std::errc::operation_canceled, what_ + ": release: cut short by cancel()")
            : timeout(std::errc::timed_out, what_ + ": release: no answer within renew_deadline")};
    return;
  }
  if (answer->error) {
    auto* releasing = std::get_if<election_state::Releasing>(&state_);
    if (request_ == LeaseRequest::release && releasing != nullptr &&
        Failure(answer->error).http_status() == 409 && ++releasing->tries < 3) {
      return send(out, LeaseRequest::release_read, now);
    }
    out.action = election_action::Finish{answer->error};
    return;
  }
  if (answer->record) {
    observe(*answer->record, now);
  }
  if (request_ == LeaseRequest::release_read && observed_ && observed_->holder == identity_) {
    return send(out, LeaseRequest::release, now);
  }
  out.action = election_action::Finish{};
}

// Stops leading, and says why.
void LeaderElectionStep::lose(ElectionDecision& out, const std::string& why) {
  state_ = election_state::Candidate{};
  read_first_ = true;
  out.notices.emplace_back(election_notice::StoppedLeading{
      timeout(std::errc::timed_out, what_ + ": stopped leading: " + why)});
}

// Notes the record read or written; the time it changed is taken from our clock.
void LeaderElectionStep::observe(const LeaseRecord& record, clock::time_point now) {
  if (!observed_ || *observed_ != record) {
    observed_at_ = now;
    observed_ = record;
  }
}

// on_new_leader, when the holder seen is another non-empty identity than the last one
// announced (after a release, the same one again).
void LeaderElectionStep::announce(ElectionDecision& out) {
  const std::string& holder = observed_->holder;
  if (holder == announced_) {
    return;
  }
  announced_ = holder;
  if (!holder.empty()) {
    out.notices.emplace_back(election_notice::NewLeader{holder});
  }
}

// How long a record must stay unchanged before its holder is presumed gone.
LeaderElectionStep::clock::duration LeaderElectionStep::hold_time(const LeaseRecord& record) const {
  return std::max<clock::duration>(lease_duration_, std::chrono::seconds(record.duration_seconds));
}

LeaderElectionStep::clock::duration LeaderElectionStep::candidate_wait() {
  std::uniform_real_distribution<double> factor(1.0, 1.0 + jitter_);
  return std::chrono::duration_cast<clock::duration>(
      std::chrono::duration<double, std::milli>(retry_period_) * factor(random_));
}

std::int32_t LeaderElectionStep::duration_seconds() const noexcept {
  const auto ms = lease_duration_.count();
  return static_cast<std::int32_t>(std::max<std::int64_t>(1, (ms + 999) / 1000));
}

}  // namespace kubex::runtime::detail
