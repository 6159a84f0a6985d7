// SPDX-License-Identifier: Apache-2.0
#pragma once

// The leader election's rule without its I/O: (state, what a request brought, now) -> (what
// to tell the callbacks, what to do next). LeaderElector (leader_election.hpp) is its shell:
// it sends the request the step asks for with the deadline it names, waits, and feeds back
// the Lease's record (LeaseRecord), never the typed Lease, so the step is no template and is
// compiled once, in runtime/src/leader_election_step.cpp.

#include <kubex/core/export.hpp>
#include <kubex/core/time.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kubex::runtime {

/// How a candidate campaigns and leads. The durations are client-go's defaults; every
/// candidate of one Lease should use the same.
struct LeaderElectionConfig {
  /// Name of the Lease, in the namespace of the Api. Created if absent.
  std::string lease_name{};
  /// This candidate's holderIdentity; unique among the candidates (a pod name, a host name
  /// plus a random suffix). A Lease held by this identity is taken at once, as our own.
  std::string identity{};
  /// How long a Lease whose record stays unchanged still belongs to its holder, counted on the
  /// observer's steady clock. Written as leaseDurationSeconds, rounded up to whole seconds; a
  /// candidate waits the longer of this and the leaseDurationSeconds it read.
  std::chrono::milliseconds lease_duration{15000};
  /// How long a leader goes on without a successful renewal (counted from when it sent the
  /// last one that succeeded) before it stops leading. Shorter than lease_duration, so that it
  /// stops before anyone else may take over.
  std::chrono::milliseconds renew_deadline{10000};
  /// The wait between a leader's renewals, and the shortest wait between a candidate's tries.
  std::chrono::milliseconds retry_period{2000};
  /// A candidate waits retry_period times a random factor in [1, 1 + jitter) between tries
  /// (client-go's JitterFactor), so that candidates started together do not ask in step.
  double jitter = 1.2;
  /// On cancel(), a holder writes the Lease with no holder and leaseDurationSeconds 1, so that
  /// another candidate takes over at its next try instead of after the lease duration.
  /// Off by default, as in client-go: set it only if the work done while leading has stopped
  /// by the time on_stopped_leading returns (it runs before the release is written).
  bool release_on_cancel = false;
  /// Runs when this candidate becomes the leader.
  std::function<void()> on_started_leading{};
  /// Runs when it stops leading: renewal failed for renew_deadline, another holder was seen,
  /// or cancel(). Work that needs the leadership must stop here.
  std::function<void()> on_stopped_leading{};
  /// Runs when the holder seen changes to another non-empty identity (this one included).
  std::function<void(const std::string& identity)> on_new_leader{};
  /// Hears each failure (the elector goes on after it); 409 Conflict on a write is not one,
  /// but the election working.
  std::function<void(std::exception_ptr)> on_error{};
};

namespace detail {

/// What the election reads of a Lease: the fields client-go calls its LeaderElectionRecord.
struct LeaseRecord {
  /// spec.holderIdentity; empty: none.
  std::string holder{};
  /// spec.leaseDurationSeconds.
  std::int64_t duration_seconds = 0;
  /// spec.acquireTime.
  std::optional<MicroTime> acquire_time{};
  /// spec.renewTime.
  std::optional<MicroTime> renew_time{};
  /// spec.leaseTransitions.
  std::int64_t transitions = 0;
  /// Field by field.
  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

/// `old` with `identity` as its holder for `duration_seconds`, renewed at `now`. Taking it
/// from another holder (or from none) starts a new term: acquireTime now, one more transition.
[[nodiscard]] KUBEX_API LeaseRecord claimed_record(const LeaseRecord& old,
                                                   const std::string& identity,
                                                   std::int64_t duration_seconds, MicroTime now);
/// The record of a Lease created by `identity` at `now`.
[[nodiscard]] KUBEX_API LeaseRecord fresh_record(const std::string& identity,
                                                 std::int64_t duration_seconds, MicroTime now);
/// `old` given up as client-go does: no holder, one second, the same count of transitions.
[[nodiscard]] KUBEX_API LeaseRecord released_record(const LeaseRecord& old, MicroTime now);

/// Checks what LeaderElector's constructor checks: a namespace, a lease name, an identity,
/// and durations that can work together (as client-go refuses them).
/// @throws kubex::ConfigError naming what is wrong.
KUBEX_API void validate_election(const LeaderElectionConfig& config,
                                 std::string_view namespace_name);

/// A request the elector sends.
enum class LeaseRequest : std::uint8_t {
  read,          ///< GET the Lease (absent: none).
  create,        ///< Create it, held by us (fresh_record).
  write,         ///< Replace the Lease last read or written, claimed by us (claimed_record).
  release_read,  ///< GET it again while releasing.
  release,       ///< Replace it released (released_record).
};

/// What the shell tells the step.
namespace election_input {
/// Time for the next try: the first one, or after a Wait.
struct Try {};
/// cancel() was called (seen before a try or a wait).
struct Canceled {};
/// The request was answered: `error`, or the Lease's record (none: a read found no Lease).
struct Answered {
  std::exception_ptr error{};
  std::optional<LeaseRecord> record{};
};
/// The request had no answer by its deadline.
struct TimedOut {};
/// cancel() cut the request short.
struct CutShort {};
}  // namespace election_input

/// An input of the step.
using ElectionInput =
    std::variant<election_input::Try, election_input::Canceled, election_input::Answered,
                 election_input::TimedOut, election_input::CutShort>;

/// What the callbacks hear, in order, before the action.
namespace election_notice {
/// This candidate leads: on_started_leading.
struct StartedLeading {};
/// It stopped leading: `why` to on_error (none on cancel()), then on_stopped_leading.
struct StoppedLeading {
  std::exception_ptr why{};
};
/// The holder seen changed to `holder`: on_new_leader.
struct NewLeader {
  std::string holder{};
};
/// A failure, to on_error.
struct Failed {
  std::exception_ptr error{};
};
}  // namespace election_notice

/// A notice for the callbacks.
using ElectionNotice =
    std::variant<election_notice::StartedLeading, election_notice::StoppedLeading,
                 election_notice::NewLeader, election_notice::Failed>;

/// What the step asks the shell to do.
namespace election_action {
/// Send `request`; if no answer came by `deadline`, feed TimedOut.
struct Send {
  LeaseRequest request = LeaseRequest::read;
  std::chrono::steady_clock::time_point deadline{};
};
/// Wait `delay`, then feed Try (or Canceled).
struct Wait {
  std::chrono::steady_clock::duration delay{};
};
/// End async_run with `error` (null: cancelled, and released if asked).
struct Finish {
  std::exception_ptr error{};
};
}  // namespace election_action

/// What the step asks for.
using ElectionAction =
    std::variant<election_action::Send, election_action::Wait, election_action::Finish>;

/// The step's answer: what to tell the callbacks, then what to do.
struct ElectionDecision {
  /// In order, before the action.
  std::vector<ElectionNotice> notices{};
  /// Next.
  ElectionAction action{};
};

/// The election's phases.
namespace election_state {
/// Not leading: reads the Lease every retry period (jittered) and takes it when it may.
struct Candidate {};
/// Leading until `deadline` unless a renewal succeeds first.
struct Leading {
  std::chrono::steady_clock::time_point deadline{};
};
/// cancel(): releasing the Lease; `tries` releases that met 409.
struct Releasing {
  int tries = 0;
};
}  // namespace election_state

/// An elector's phase.
using ElectionState =
    std::variant<election_state::Candidate, election_state::Leading, election_state::Releasing>;

/// The election's rule: the phase, the record last seen and when it changed on our clock, and
/// the request in flight, moved by one input at a time. Time is passed in. Not thread-safe.
/// The durations of `config` must be valid (LeaderElector checks them).
class KUBEX_API LeaderElectionStep {
 public:
  /// The clock of every duration.
  using clock = std::chrono::steady_clock;

  /// A step for `config`; `what` names the Lease in errors. `seed`: the jitter's.
  LeaderElectionStep(const LeaderElectionConfig& config, std::string what,
                     std::uint64_t seed = std::random_device{}());

  /// Takes `input` at `now`.
  [[nodiscard]] ElectionDecision step(const ElectionInput& input, clock::time_point now);

  /// The phase.
  [[nodiscard]] const ElectionState& state() const noexcept { return state_; }
  /// True while leading.
  [[nodiscard]] bool leading() const noexcept {
    return std::holds_alternative<election_state::Leading>(state_);
  }
  /// The record of the Lease last read or written; none before.
  [[nodiscard]] const std::optional<LeaseRecord>& observed() const noexcept { return observed_; }
  /// The request in flight (or last sent).
  [[nodiscard]] LeaseRequest request() const noexcept { return request_; }
  /// leaseDurationSeconds to write: lease_duration rounded up to whole seconds, at least 1.
  [[nodiscard]] std::int32_t duration_seconds() const noexcept;

 private:
  void attempt(ElectionDecision& out, clock::time_point now);
  void send(ElectionDecision& out, LeaseRequest request, clock::time_point now);
  void answered(ElectionDecision& out, const election_input::Answered& answer,
                clock::time_point now);
  void consider(ElectionDecision& out, const LeaseRecord& record, clock::time_point now);
  void won(ElectionDecision& out, const LeaseRecord& record, clock::time_point now);
  void failed(ElectionDecision& out, clock::time_point now);
  void shut_down(ElectionDecision& out, clock::time_point now);
  void settle_release(ElectionDecision& out, const ElectionInput& input, clock::time_point now);
  void lose(ElectionDecision& out, const std::string& why);
  void observe(const LeaseRecord& record, clock::time_point now);
  void announce(ElectionDecision& out);
  [[nodiscard]] clock::duration hold_time(const LeaseRecord& record) const;
  [[nodiscard]] clock::duration candidate_wait();

  std::chrono::milliseconds lease_duration_;
  std::chrono::milliseconds renew_deadline_;
  std::chrono::milliseconds retry_period_;
  double jitter_;
  bool release_on_cancel_;
  std::string identity_;
  std::string what_;
  std::mt19937_64 random_;
  ElectionState state_{};
  LeaseRequest request_ = LeaseRequest::read;
  clock::time_point sent_{};  // when the request in flight was sent
  bool read_first_ = true;    // the next try reads the Lease before writing it
  std::optional<LeaseRecord> observed_;
  clock::time_point observed_at_{};  // when observed_ last changed, on our clock
  std::string announced_;            // the holder on_new_leader last heard of
};

}  // namespace detail
}  // namespace kubex::runtime
