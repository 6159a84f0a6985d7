// SPDX-License-Identifier: Apache-2.0
#pragma once

// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package
// runs it: of the candidates that share a Lease, one at a time holds it and leads; the others
// read it every retry period and take over when its holder stops renewing it or releases it.
// Writes replace the Lease with the resourceVersion last read, so of two candidates that try
// at once, one gets 409 Conflict and stays a candidate.
//
// Why it is safe with clocks that disagree: a candidate never compares the Lease's timestamps
// (the holder's wall clock) with its own. It notes, on its own steady clock, when it last saw
// the Lease's record change, and takes a held Lease only once the record has stayed the same
// for the lease duration. A leader counts from when it sent its last successful write and
// stops leading renew_deadline after that if no renewal has succeeded since, which is before
// any other candidate may take over (a lease duration after it saw that write, at the
// earliest). This holds as long as the candidates' clocks run at about the same rate.
//
// Generic over the Lease type, as Api<T> is: it needs metadata.name / namespace_ /
// resource_version and spec (a Box or std::optional) with holder_identity,
// lease_duration_seconds, acquire_time and renew_time (MicroTime), lease_transitions. The rule
// itself is detail::LeaderElectionStep (leader_election_step.hpp): no I/O, no template,
// compiled once; LeaderElector sends, waits and runs the callbacks it asks for.

#include <kubex/client/api.hpp>
#include <kubex/client/completion_token.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/time.hpp>
#include <kubex/runtime/leader_election_step.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kubex::runtime {

namespace detail {

// The record of a typed Lease, for the step.
template <class Lease>
LeaseRecord lease_record(const Lease& lease) {
  LeaseRecord record;
  if (lease.spec) {
    const auto& spec = *lease.spec;
    record.holder = spec.holder_identity.value_or("");
    record.duration_seconds = spec.lease_duration_seconds.value_or(0);
    record.acquire_time = spec.acquire_time;
    record.renew_time = spec.renew_time;
    record.transitions = spec.lease_transitions.value_or(0);
  }
  return record;
}

// The spec to write into, created if absent (kubex::Box or std::optional).
template <class Lease>
auto& lease_spec(Lease& lease) {
  if constexpr (requires { lease.spec.ensure(); }) {
    return lease.spec.ensure();
  } else {
    if (!lease.spec) {
      lease.spec.emplace();
    }
    return *lease.spec;
  }
}

// Writes `record` into `lease`'s spec; leaseTransitions only `with_transitions` (a release
// leaves the count as it is).
template <class Lease>
void write_record(Lease& lease, const LeaseRecord& record, bool with_transitions) {
  auto& spec = lease_spec(lease);
  spec.holder_identity = record.holder;
  spec.lease_duration_seconds = static_cast<std::int32_t>(record.duration_seconds);
  spec.acquire_time = record.acquire_time;
  spec.renew_time = record.renew_time;
  if (with_transitions) {
    spec.lease_transitions = static_cast<std::int32_t>(record.transitions);
  }
}

}  // namespace detail

/// One candidate for the leadership a Lease stands for. async_run campaigns, leads while it
/// holds the Lease and campaigns again after losing it, until cancel(). Callbacks run on the
/// executor of async_run's handler (the client's by default), one at a time; renewals wait for
/// them, so they must not block. Keep the elector alive while async_run is pending.
/// What to do next is decided by detail::LeaderElectionStep (leader_election_step.hpp), with
/// no I/O; the elector sends, waits and runs the callbacks it asks for.
template <resource Lease>
class LeaderElector {
 public:
  /// Completion signature of async_run: null once cancelled (and the Lease released, with
  /// release_on_cancel); the release's failure if it could not be written, in which case the
  /// Lease stays held until it expires.
  using Signature = void(std::exception_ptr);
  /// The clock of every duration.
  using clock = std::chrono::steady_clock;

  /// A candidate for Lease `config.lease_name` in `api`'s namespace. Nothing is sent before
  /// async_run.
  /// @throws kubex::ConfigError for an Api without a namespace, an empty lease name or
  ///         identity, or durations that cannot work together (as client-go refuses them).
  LeaderElector(client::Api<Lease> api, LeaderElectionConfig config)
      : api_(std::move(api)),
        config_(std::move(config)),
        step_((detail::validate_election(config_, api_.namespace_name()), config_),
              "leader election on Lease " + api_.namespace_name() + "/" + config_.lease_name),
        timer_(api_.client().get_executor()) {}
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;
  /// async_run must not be pending.
  ~LeaderElector() {
    const std::lock_guard<std::mutex> lock(mutex_);
    timer_.cancel();
  }

  /// Campaigns and leads until cancel(); see Signature. Failures go to on_error and are
  /// retried; they never end it.
  /// Cancellation: cancel() stops it from any thread; a cancellation slot bound to the token is
  /// not a supported way to stop it.
  template <class CompletionToken = client::DefaultCompletionToken>
  auto async_run(CompletionToken&& token = {}) {
    return boost::asio::async_compose<CompletionToken, Signature>(RunOp{this}, token,
                                                                  api_.client().get_executor());
  }

  /// Ends async_run, from any thread: a leader stops leading (and releases the Lease with
  /// release_on_cancel) at once, without waiting for a request in flight. Final.
  void cancel() {
    const std::lock_guard<std::mutex> lock(mutex_);
    canceled_ = true;
    timer_.cancel();
  }

  /// True while this candidate leads (between on_started_leading and on_stopped_leading).
  [[nodiscard]] bool is_leader() const noexcept { return is_leader_; }
  /// The holder of the Lease as last read or written; empty if none or not read yet.
  [[nodiscard]] std::string leader() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return leader_;
  }
  /// The configuration.
  [[nodiscard]] const LeaderElectionConfig& config() const noexcept { return config_; }

 private:
  using Request = detail::LeaseRequest;

  // How a request ended: answered (with the Lease read or written, or a failure), or not
  // answered in time, or cut short by cancel().
  struct Outcome {
    enum class Kind : std::uint8_t { answered, timed_out, canceled };
    Kind kind = Kind::answered;
    std::exception_ptr error{};
    std::optional<Lease> lease{};

    static Outcome ended(Kind kind) {
      Outcome outcome;
      outcome.kind = kind;
      return outcome;
    }
  };

  // The operation parked while a request is in flight: whichever comes first, the answer or
  // the deadline timer (cancel() fires it early), takes it and resumes it; the other finds
  // nothing. Shared by both handlers, so neither needs the elector to still exist.
  template <class Op>
  struct Race {
    explicit Race(Op o) : op(std::move(o)) {}
    std::mutex mutex;
    std::optional<Op> op;
    std::optional<Op> take() {
      const std::lock_guard<std::mutex> lock(mutex);
      return std::exchange(op, std::nullopt);
    }
  };

  struct RunOp {
    LeaderElector* e;
    bool started = false;

    // The first step goes through the client's executor, so that nothing (not even a
    // cancelled run's completion) happens inside async_run.
    template <class Self>
    void operator()(Self& self) {
      if (!started) {
        started = true;
        boost::asio::post(e->api_.client().get_executor(), std::move(self));
        return;
      }
      e->attempt(self);
    }
    // The wait between tries has passed, or cancel() cut it short.
    template <class Self>
    void operator()(Self& self, boost::system::error_code /*ec*/) {
      e->attempt(self);
    }
    // A request ended.
    template <class Self>
    void operator()(Self& self, Outcome outcome) {
      e->settle(self, std::move(outcome));
    }
  };

  template <class Self>
  void attempt(Self& self) {
    if (canceled_) {
      return perform(self, step_.step(detail::election_input::Canceled{}, clock::now()));
    }
    perform(self, step_.step(detail::election_input::Try{}, clock::now()));
  }

  // A request's end, fed to the step; the Lease it brought is the next write's base.
  template <class Self>
  void settle(Self& self, Outcome outcome) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      timer_.cancel();  // the race's deadline, if the answer came first
    }
    detail::ElectionInput input = detail::election_input::CutShort{};
    if (outcome.kind == Outcome::Kind::timed_out) {
      input = detail::election_input::TimedOut{};
    } else if (outcome.kind == Outcome::Kind::answered) {
      detail::election_input::Answered answer{.error = std::move(outcome.error)};
      if (!answer.error && outcome.lease) {
        lease_ = std::move(outcome.lease);
        answer.record = detail::lease_record(*lease_);
      }
      input = std::move(answer);
    }
    perform(self, step_.step(input, clock::now()));
  }

  // Tells the callbacks what the step says, then does what it asks.
  template <class Self>
  void perform(Self& self, detail::ElectionDecision decision) {
    namespace notice = detail::election_notice;
    namespace act = detail::election_action;
    if (const auto& seen = step_.observed(); seen && seen->holder != leader_) {
      const std::lock_guard<std::mutex> lock(mutex_);
      leader_ = seen->holder;
    }
    for (auto& n : decision.notices) {
      if (std::holds_alternative<notice::StartedLeading>(n)) {
        is_leader_ = true;
        if (config_.on_started_leading) {
          config_.on_started_leading();
        }
      } else if (auto* stopped = std::get_if<notice::StoppedLeading>(&n)) {
        is_leader_ = false;
        if (stopped->why) {
          report(std::move(stopped->why));
        }
        if (config_.on_stopped_leading) {
          config_.on_stopped_leading();
        }
      } else if (const auto* heard = std::get_if<notice::NewLeader>(&n)) {
        if (config_.on_new_leader) {
          config_.on_new_leader(heard->holder);
        }
      } else {
        report(std::move(std::get<notice::Failed>(n).error));
      }
    }
    if (const auto* request = std::get_if<act::Send>(&decision.action)) {
      return send(self, request->request, request->deadline);
    }
    if (const auto* wait = std::get_if<act::Wait>(&decision.action)) {
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!canceled_) {
          timer_.expires_after(wait->delay);
          timer_.async_wait(std::move(self));
          return;
        }
      }
      return perform(self, step_.step(detail::election_input::Canceled{}, clock::now()));
    }
    finish(self, std::move(std::get<act::Finish>(decision.action).error));
  }

  // Sends `request`, racing its answer against `deadline`. The release is not cut short by
  // cancel(): it is what cancel() asked for.
  template <class Self>
  void send(Self& self, Request request, clock::time_point deadline) {
    const bool releasing = request == Request::release || request == Request::release_read;
    const auto executor = api_.client().get_executor();
    const auto race = std::make_shared<Race<std::decay_t<Self>>>(std::move(self));
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (canceled_ && !releasing) {
        boost::asio::post(executor, boost::asio::append(std::move(*race->take()),
                                                        Outcome::ended(Outcome::Kind::canceled)));
        return;
      }
      timer_.expires_at(deadline);
      timer_.async_wait([race, executor](boost::system::error_code ec) {
        if (auto op = race->take()) {
          boost::asio::post(
              executor,
              boost::asio::append(std::move(*op), Outcome::ended(ec ? Outcome::Kind::canceled
                                                                    : Outcome::Kind::timed_out)));
        }
      });
    }
    auto answer = [race, executor](std::exception_ptr error, auto result) {
      auto op = race->take();
      if (!op) {
        return;  // too late: the deadline or cancel() came first
      }
      Outcome outcome{Outcome::Kind::answered, std::move(error), std::nullopt};
      if (!outcome.error) {
        outcome.lease = std::optional<Lease>(std::move(result));
      }
      boost::asio::post(executor, boost::asio::append(std::move(*op), std::move(outcome)));
    };
    const MicroTime now = MicroTime::now();
    switch (request) {
      case Request::read:
      case Request::release_read:
        api_.async_get_opt(config_.lease_name, std::move(answer));
        break;
      case Request::create: {
        Lease lease{};
        lease.metadata.name = config_.lease_name;
        lease.metadata.namespace_ = api_.namespace_name();
        detail::write_record(
            lease, detail::fresh_record(config_.identity, step_.duration_seconds(), now), true);
        api_.async_create(lease, std::move(answer));
        break;
      }
      case Request::write: {
        Lease lease = *lease_;
        detail::write_record(lease,
                             detail::claimed_record(detail::lease_record(*lease_), config_.identity,
                                                    step_.duration_seconds(), now),
                             true);
        api_.async_replace(lease, std::move(answer));
        break;
      }
      case Request::release: {
        Lease lease = *lease_;
        detail::write_record(lease, detail::released_record(detail::lease_record(*lease_), now),
                             false);
        api_.async_replace(lease, std::move(answer));
        break;
      }
    }
  }

  template <class Self>
  void finish(Self& self, std::exception_ptr error) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      timer_.cancel();
    }
    self.complete(std::move(error));
  }

  void report(std::exception_ptr error) const {
    if (config_.on_error) {
      config_.on_error(std::move(error));
    }
  }

  client::Api<Lease> api_;
  LeaderElectionConfig config_;
  detail::LeaderElectionStep step_;  // what to do next; touched only by the operation
  mutable std::mutex mutex_;         // canceled_, timer_ against cancel(); leader_ against leader()
  boost::asio::steady_timer timer_;  // the wait between tries, or a request's deadline
  std::atomic<bool> canceled_{false};
  std::atomic<bool> is_leader_{false};
  std::string leader_;
  std::optional<Lease> lease_;  // as last read or written: its resourceVersion is the next
                                // write's precondition
};

}  // namespace kubex::runtime
