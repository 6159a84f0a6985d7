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
// lease_duration_seconds, acquire_time and renew_time (MicroTime), lease_transitions.

#include <kubex/client/api.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/time.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

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

// What the election reads of a Lease: the fields client-go calls its LeaderElectionRecord.
struct LeaseRecord {
  std::string holder{};
  std::int64_t duration_seconds = 0;
  std::optional<MicroTime> acquire_time{};
  std::optional<MicroTime> renew_time{};
  std::int64_t transitions = 0;
  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

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

}  // namespace detail

/// One candidate for the leadership a Lease stands for. async_run campaigns, leads while it
/// holds the Lease and campaigns again after losing it, until cancel(). Callbacks run on the
/// executor of async_run's handler (the client's by default), one at a time; renewals wait for
/// them, so they must not block. Keep the elector alive while async_run is pending.
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
      : api_(std::move(api)), config_(std::move(config)), timer_(api_.client().get_executor()) {
    validate();
  }
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;
  /// async_run must not be pending.
  ~LeaderElector() {
    const std::lock_guard<std::mutex> lock(mutex_);
    timer_.cancel();
  }

  /// Campaigns and leads until cancel(); see Signature. Failures go to on_error and are
  /// retried; they never end it.
  template <class CompletionToken>
  auto async_run(CompletionToken&& token) {
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
  // The request in flight.
  enum class Request : std::uint8_t { read, create, write, release_read, release };

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
      if (e->canceled_) {
        return e->shut_down(self);
      }
      e->attempt(self);
    }
    // A request ended.
    template <class Self>
    void operator()(Self& self, Outcome outcome) {
      e->settle(self, std::move(outcome));
    }
  };

  void validate() const {
    const auto fail = [](const std::string& what) {
      throw ConfigError("LeaderElector: " + what);
    };
    if (api_.namespace_name().empty()) {
      fail("the Api must address one namespace (Api::namespaced)");
    }
    if (config_.lease_name.empty()) {
      fail("lease_name must not be empty");
    }
    if (config_.identity.empty()) {
      fail("identity must not be empty");
    }
    if (config_.retry_period <= std::chrono::milliseconds::zero() || config_.jitter < 0.0) {
      fail("retry_period must be positive and jitter not negative");
    }
    if (config_.lease_duration <= config_.renew_deadline) {
      fail("lease_duration must be greater than renew_deadline");
    }
    if (std::chrono::duration<double, std::milli>(config_.renew_deadline).count() <=
        config_.jitter * std::chrono::duration<double, std::milli>(config_.retry_period).count()) {
      fail("renew_deadline must be greater than jitter * retry_period");
    }
  }

  // The next try: a leader renews by writing the Lease it last wrote (one request); a
  // candidate, or a leader whose last write failed, reads the Lease first.
  template <class Self>
  void attempt(Self& self) {
    if (canceled_) {
      return shut_down(self);
    }
    if (leading_ && clock::now() >= deadline_) {
      lose("no renewal succeeded within renew_deadline");
    }
    if (leading_ && lease_ && !read_first_) {
      return send(self, Request::write, claim(*lease_));
    }
    send(self, Request::read);
  }

  // Sends `request` with its deadline: a leader's is its renew deadline, anyone else's the
  // renew deadline from now, so that a request the network swallowed does not stall the
  // election. The release is not cut short by cancel(): it is what cancel() asked for.
  template <class Self>
  void send(Self& self, Request request, Lease body = Lease{}) {
    request_ = request;
    sent_ = clock::now();
    const bool releasing = request == Request::release || request == Request::release_read;
    const clock::time_point deadline =
        leading_ && !releasing ? deadline_ : sent_ + config_.renew_deadline;
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
    switch (request) {
      case Request::read:
      case Request::release_read:
        api_.async_get_opt(config_.lease_name, std::move(answer));
        break;
      case Request::create:
        api_.async_create(body, std::move(answer));
        break;
      case Request::write:
      case Request::release:
        api_.async_replace(body, std::move(answer));
        break;
    }
  }

  // What a request's end means for the election.
  template <class Self>
  void settle(Self& self, Outcome outcome) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      timer_.cancel();  // the race's deadline, if the answer came first
    }
    if (request_ == Request::release || request_ == Request::release_read) {
      return settle_release(self, std::move(outcome));
    }
    if (outcome.kind == Outcome::Kind::canceled) {
      return shut_down(self);
    }
    if (outcome.kind == Outcome::Kind::timed_out) {
      report(std::make_exception_ptr(Error(make_error_code(std::errc::timed_out),
                                           describe() + ": no answer within renew_deadline")));
      return failed(self);
    }
    if (outcome.error) {
      const Failure failure(outcome.error);
      // Another candidate wrote first (409 on a replace; AlreadyExists on a create): it won
      // this round. Not a failure of anything.
      if (failure.http_status() != 409) {
        report(outcome.error);
      }
      return failed(self);
    }
    if (request_ == Request::read) {
      if (!outcome.lease) {
        return send(self, Request::create, fresh_lease());
      }
      return consider(self, std::move(*outcome.lease));
    }
    won(self, std::move(*outcome.lease));
  }

  // The Lease as read: take it if it is free, ours, or its record stayed unchanged for the
  // lease duration on our clock.
  template <class Self>
  void consider(Self& self, Lease lease) {
    observe(lease);
    const detail::LeaseRecord record = *observed_;
    lease_ = std::move(lease);
    if (!record.holder.empty() && record.holder != config_.identity &&
        clock::now() < observed_at_ + hold_time(record)) {
      if (leading_) {
        lose("the Lease is held by " + record.holder);
      }
      announce();
      return wait(self, candidate_wait());
    }
    send(self, Request::write, claim(*lease_));
  }

  // A write succeeded: we hold the Lease until renew_deadline after we sent it.
  template <class Self>
  void won(Self& self, Lease lease) {
    observe(lease);
    lease_ = std::move(lease);
    read_first_ = false;
    if (clock::now() >= sent_ + config_.renew_deadline) {
      // The answer took so long that the time it bought is spent.
      return failed(self);
    }
    deadline_ = sent_ + config_.renew_deadline;
    announce();
    if (!leading_) {
      leading_ = true;
      is_leader_ = true;
      if (config_.on_started_leading) {
        config_.on_started_leading();
      }
    }
    wait(self, config_.retry_period);
  }

  // A try failed: read before the next write. A leader tries again within its deadline and
  // stops leading at it.
  template <class Self>
  void failed(Self& self) {
    read_first_ = true;
    if (observed_) {
      announce();
    }
    if (leading_) {
      const auto now = clock::now();
      if (now < deadline_) {
        return wait(self, std::min<clock::duration>(config_.retry_period, deadline_ - now));
      }
      lose("no renewal succeeded within renew_deadline");
    }
    wait(self, candidate_wait());
  }

  template <class Self>
  void wait(Self& self, clock::duration delay) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!canceled_) {
        timer_.expires_after(delay);
        timer_.async_wait(std::move(self));
        return;
      }
    }
    shut_down(self);
  }

  // cancel(): stop leading, then release the Lease if asked to and it names us.
  template <class Self>
  void shut_down(Self& self) {
    if (leading_) {
      leading_ = false;
      is_leader_ = false;
      if (config_.on_stopped_leading) {
        config_.on_stopped_leading();
      }
    }
    if (config_.release_on_cancel && lease_ &&
        detail::lease_record(*lease_).holder == config_.identity) {
      release_tries_ = 0;
      return send(self, Request::release, released(*lease_));
    }
    finish(self, nullptr);
  }

  // The release's answer. A 409 means the Lease changed since we last wrote it (a renewal
  // whose answer cancel() did not wait for): read it, and release it again if it is ours.
  template <class Self>
  void settle_release(Self& self, Outcome outcome) {
    if (outcome.kind != Outcome::Kind::answered) {
      const bool canceled = outcome.kind == Outcome::Kind::canceled;
      return finish(
          self,
          std::make_exception_ptr(Error(
              make_error_code(canceled ? std::errc::operation_canceled : std::errc::timed_out),
              describe() + (canceled ? ": release: cut short by cancel()"
                                     : ": release: no answer within "
                                       "renew_deadline"))));
    }
    if (outcome.error) {
      if (request_ == Request::release && Failure(outcome.error).http_status() == 409 &&
          ++release_tries_ < 3) {
        return send(self, Request::release_read);
      }
      return finish(self, std::move(outcome.error));
    }
    if (outcome.lease) {
      observe(*outcome.lease);
      lease_ = std::move(outcome.lease);
    }
    if (request_ == Request::release_read && lease_ &&
        detail::lease_record(*lease_).holder == config_.identity) {
      return send(self, Request::release, released(*lease_));
    }
    finish(self, nullptr);
  }

  template <class Self>
  void finish(Self& self, std::exception_ptr error) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      timer_.cancel();
    }
    self.complete(std::move(error));
  }

  // Stops leading, and says why to on_error.
  void lose(const std::string& why) {
    leading_ = false;
    is_leader_ = false;
    read_first_ = true;
    report(std::make_exception_ptr(
        Error(make_error_code(std::errc::timed_out), describe() + ": stopped leading: " + why)));
    if (config_.on_stopped_leading) {
      config_.on_stopped_leading();
    }
  }

  // Notes the record read or written; the time it changed is taken from our clock.
  void observe(const Lease& lease) {
    detail::LeaseRecord record = detail::lease_record(lease);
    if (!observed_ || *observed_ != record) {
      observed_at_ = clock::now();
      const std::lock_guard<std::mutex> lock(mutex_);
      leader_ = record.holder;
      observed_ = std::move(record);
    }
  }

  // on_new_leader, when the holder seen is another non-empty identity than the last one
  // announced (after a release, the same one again).
  void announce() {
    const std::string& holder = observed_->holder;
    if (holder == announced_) {
      return;
    }
    announced_ = holder;
    if (!holder.empty() && config_.on_new_leader) {
      config_.on_new_leader(holder);
    }
  }

  void report(std::exception_ptr error) const {
    if (config_.on_error) {
      config_.on_error(std::move(error));
    }
  }

  // How long a record must stay unchanged before its holder is presumed gone.
  [[nodiscard]] clock::duration hold_time(const detail::LeaseRecord& record) const {
    return std::max<clock::duration>(config_.lease_duration,
                                     std::chrono::seconds(record.duration_seconds));
  }

  [[nodiscard]] clock::duration candidate_wait() {
    std::uniform_real_distribution<double> factor(1.0, 1.0 + config_.jitter);
    return std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double, std::milli>(config_.retry_period) * factor(random_));
  }

  [[nodiscard]] std::int32_t duration_seconds() const {
    const auto ms = config_.lease_duration.count();
    return static_cast<std::int32_t>(std::max<std::int64_t>(1, (ms + 999) / 1000));
  }

  // `base` with us as its holder, renewed now. Taking it from another holder (or from none)
  // starts a new term: acquireTime now, one more transition.
  [[nodiscard]] Lease claim(const Lease& base) const {
    const detail::LeaseRecord old = detail::lease_record(base);
    Lease lease = base;
    auto& spec = detail::lease_spec(lease);
    const MicroTime now = MicroTime::now();
    spec.holder_identity = config_.identity;
    spec.lease_duration_seconds = duration_seconds();
    spec.renew_time = now;
    if (old.holder != config_.identity || !old.acquire_time) {
      spec.acquire_time = now;
    }
    const std::int64_t transitions =
        old.holder == config_.identity ? old.transitions : old.transitions + 1;
    spec.lease_transitions = static_cast<std::int32_t>(transitions);
    return lease;
  }

  // The Lease to create when there is none: ours, from now.
  [[nodiscard]] Lease fresh_lease() const {
    Lease lease{};
    lease.metadata.name = config_.lease_name;
    lease.metadata.namespace_ = api_.namespace_name();
    auto& spec = detail::lease_spec(lease);
    const MicroTime now = MicroTime::now();
    spec.holder_identity = config_.identity;
    spec.lease_duration_seconds = duration_seconds();
    spec.acquire_time = now;
    spec.renew_time = now;
    spec.lease_transitions = 0;
    return lease;
  }

  // `base` given up as client-go does: no holder, a one-second duration, the same count of
  // transitions.
  [[nodiscard]] static Lease released(const Lease& base) {
    Lease lease = base;
    auto& spec = detail::lease_spec(lease);
    const MicroTime now = MicroTime::now();
    spec.holder_identity = std::string();
    spec.lease_duration_seconds = 1;
    spec.acquire_time = now;
    spec.renew_time = now;
    return lease;
  }

  [[nodiscard]] std::string describe() const {
    return "leader election on Lease " + api_.namespace_name() + "/" + config_.lease_name;
  }

  client::Api<Lease> api_;
  LeaderElectionConfig config_;
  mutable std::mutex mutex_;         // canceled_, timer_ against cancel(); leader_ against leader()
  boost::asio::steady_timer timer_;  // the wait between tries, or a request's deadline
  std::atomic<bool> canceled_{false};
  std::atomic<bool> is_leader_{false};
  std::string leader_;
  // Touched only by the operation, one step at a time.
  std::mt19937_64 random_{std::random_device{}()};
  Request request_ = Request::read;
  clock::time_point sent_{};  // when the request in flight was sent
  bool leading_ = false;
  clock::time_point deadline_{};  // a leader stops leading if no renewal succeeds by then
  bool read_first_ = true;        // the next try reads the Lease before writing it
  std::optional<Lease> lease_;    // as last read or written: its resourceVersion is the next
                                  // write's precondition
  std::optional<detail::LeaseRecord> observed_;
  clock::time_point observed_at_{};  // when observed_ last changed, on our clock
  std::string announced_;            // the holder on_new_leader last heard of
  int release_tries_ = 0;
};

}  // namespace kubex::runtime
