// SPDX-License-Identifier: Apache-2.0
// The HTTPS transport: HTTP/1.1 (Boost.Beast) or HTTP/2 (libnghttp2) over OpenSSL, written as
// Asio coroutines that run on one strand per transport, so the pool, the rate limiter and the
// credentials need no locks.

#include <kubex/client/client.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/proxy.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/version.hpp>

#include "detail/call.hpp"
#include "detail/credentials.hpp"
#include "detail/dialer.hpp"
#include "detail/exchange.hpp"
#include "detail/h2.hpp"
#include "detail/headers.hpp"
#include "detail/io.hpp"
#include "detail/pool.hpp"
#include "detail/rate_limiter.hpp"
#include "detail/response_stream.hpp"
#include "detail/retry.hpp"
#include "detail/spare_bodies.hpp"
#include "detail/text.hpp"
#include "detail/tls.hpp"
#include "detail/websocket.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

// The platform in the default User-Agent, as client-go writes GOOS/GOARCH.
#if defined(__linux__)
#define KUBEX_OS "linux"
#elif defined(__APPLE__)
#define KUBEX_OS "darwin"
#elif defined(_WIN32)
#define KUBEX_OS "windows"
#else
#define KUBEX_OS "unknown"
#endif
#if defined(__x86_64__) || defined(_M_X64)
#define KUBEX_ARCH "amd64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define KUBEX_ARCH "arm64"
#else
#define KUBEX_ARCH "unknown"
#endif

namespace kubex::client {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using detail::Attempt;
using detail::awaitable;
using detail::BaseExecutor;
using detail::Call;
using detail::Connection;
using detail::H2Session;
using detail::H2Stream;
using detail::Strand;
using detail::StreamLease;
using detail::Timer;
using detail::use_tuple;
using detail::Waiter;
using detail::Watchdog;

using Parser = detail::ResponseParser;

// Recycled response bodies kept for reuse, and the largest kept: two cover a client reading
// one large list at a time with room for a concurrent one, and the cap keeps one huge
// response from pinning its memory for the client's life.
constexpr std::size_t max_spare_bodies = 2;
constexpr std::size_t max_spare_body = std::size_t{16} << 20U;
// HTTP/2 receive window per stream, as Go's transport has it: whole responses are credited at
// once, and a stream's reader may leave this much unread before the server waits for it.
constexpr std::uint32_t h2_stream_window = std::uint32_t{4} << 20U;

std::string default_user_agent() {
  return "kubex-cpp/" KUBEX_VERSION_STRING " (" KUBEX_OS "/" KUBEX_ARCH ")";
}

// The options with their defaults filled in, checked.
ClientOptions complete(ClientOptions options) {
  if (options.user_agent.empty()) {
    options.user_agent = default_user_agent();
  }
  for (const auto& [name, value] : options.default_headers) {
    if (!detail::is_valid_header(name, value)) {
      throw ConfigError("ClientOptions::default_headers: header \"" + name +
                        "\" has an invalid name or control characters in its value");
    }
  }
  return options;
}

// kubex sends credentials over TLS only.
const ClientConfig& checked(const ClientConfig& config) {
  if (config.server.scheme != "https") {
    throw ConfigError(config.source + ": clusters[" + config.cluster_name +
                      "].server: kubex sends credentials over https:// only");
  }
  return config;
}

// The transport composes the pieces in detail/: the dialer makes connections, the pool holds
// their slots, the credentials authorize each attempt, the exchange runs it over HTTP/1.1 or
// HTTP/2, and the retry policy decides what is tried again. What is left here is the order of
// those steps (perform) and where a call goes (route).
class HttpsTransport final : public Transport,
                             public detail::StreamHost,
                             public std::enable_shared_from_this<HttpsTransport> {
 public:
  HttpsTransport(asio::any_io_executor executor, ClientConfig config, ClientOptions options)
      : executor_(std::move(executor)),
        strand_(Strand::Inner(BaseExecutor(executor_))),
        watchdog_(std::make_shared<Watchdog>(strand_)),
        server_(checked(config).server),
        options_(complete(std::move(options))),
        authority_(server_.authority()),
        origin_("https://" + authority_),
        location_(origin_ + server_.base_path),
        disable_compression_(config.disable_compression),
        impersonation_(detail::impersonation_headers(config.impersonate)),
        tls_(detail::make_tls_context(config, options_.tls_session_resumption,
                                      config.client_certificate_pem, config.client_key_pem,
                                      config.source + ": users[" + config.user_name + "]")),
        dialer_(strand_, watchdog_, config, options_, select_proxy(config, options_)),
        credentials_(strand_, config, options_.token_file_refresh, options_.timeout,
                     [this, config](const std::string& certificate, const std::string& key) {
                       // A new TLS context: connections of the old one are not reused.
                       tls_ = detail::make_tls_context(
                           config, options_.tls_session_resumption, certificate, key,
                           "exec plugin \"" + config.exec->command + "\"");
                       ++generation_;
                     }) {
    if (options_.qps > 0.0) {
      rate_limit_.emplace(options_.qps, options_.burst, Clock::now());
    }
  }

  HttpsTransport(const HttpsTransport&) = delete;
  HttpsTransport& operator=(const HttpsTransport&) = delete;

  // Idle HTTP/2 sessions are parked without pending reads, but their sockets stay open until
  // closed; that happens on the strand, as any thread may drop the last reference.
  ~HttpsTransport() override {
    if (sessions_.empty()) {
      return;
    }
    try {
      asio::post(strand_, [sessions = std::move(sessions_)] {
        for (const auto& session : sessions) {
          session->close();
        }
      });
    } catch (...) {  // posting allocates; the sessions then close as they are destroyed
    }
  }

  [[nodiscard]] asio::any_io_executor get_executor() const override { return executor_; }

  void async_send(HttpRequest request,
                  asio::any_completion_handler<RequestSignature> handler) override {
    asio::co_spawn(strand_, send(shared_from_this(), std::move(request)), std::move(handler));
  }

  void async_open(HttpRequest request,
                  asio::any_completion_handler<StreamSignature> handler) override {
    asio::co_spawn(strand_, open(shared_from_this(), std::move(request)), std::move(handler));
  }

  void async_upgrade(HttpRequest request, WebSocketOptions options,
                     asio::any_completion_handler<WebSocketSignature> handler) override {
    asio::co_spawn(strand_, upgrade(shared_from_this(), std::move(request), std::move(options)),
                   std::move(handler));
  }

  [[nodiscard]] TransportStats stats() const override {
    TransportStats s;
    s.connections_opened = dialer_.opened();
    s.tls_sessions_resumed = dialer_.resumed();
    s.connections_reused = reused_.load();
    s.connections_open = pool_.open();
    s.retries = retries_.load();
    s.exec_plugin_runs = credentials_.exec_runs();
    s.oidc_refreshes = credentials_.oidc_refreshes();
    s.http2_streams = h2_streams_.load();
    s.protobuf_responses = protobuf_responses_.load();
    s.protobuf_requests = protobuf_requests_.load();
    return s;
  }

  [[nodiscard]] Encoding encoding() const override { return options_.encoding; }

  void close_idle() override {
    asio::post(strand_, [self = shared_from_this()] {
      self->pool_.close_idle();
      std::erase_if(self->sessions_, [&](const std::shared_ptr<H2Session>& session) {
        if (session->active() != 0) {
          return false;
        }
        session->close();
        self->pool_.forget();
        return true;
      });
    });
  }

  [[nodiscard]] ClientConfig config() const override { return credentials_.config(); }

  void recycle(std::string&& body) noexcept override { spare_bodies_.give(std::move(body)); }

  // detail::StreamHost: what the exchanges and open streams use.
  void finish_stream(std::unique_ptr<Connection> connection, bool reusable) override {
    release(std::move(connection), reusable);
  }
  [[nodiscard]] const Strand& strand() const noexcept override { return strand_; }
  [[nodiscard]] Watchdog& watchdog() const noexcept override { return *watchdog_; }
  [[nodiscard]] const ClientOptions& options() const noexcept override { return options_; }

 private:
  using Pool = detail::SlotPool<Connection, Waiter>;

  // A transport talks to one apiserver, so both connection limits bound the same set.
  static Pool::Limits pool_limits(const ClientOptions& options) {
    return {std::min(options.max_connections, options.max_connections_per_host),
            options.keep_alive_timeout, options.keep_alive};
  }

  // --- rate limit ----------------------------------------------------------------------------

  // Waits for a token of the bucket unless that would pass the call's deadline.
  awaitable<void> take_rate_token(const Call& call) {
    if (!rate_limit_) {
      co_return;
    }
    const auto now = Clock::now();
    const auto wait = rate_limit_->take(now);
    if (wait == Clock::duration::zero()) {
      co_return;
    }
    if (!call.streaming && now + wait > call.deadline) {
      rate_limit_->give_back();
      detail::fail(call, "client rate limit", std::make_error_code(std::errc::timed_out),
                   "the next slot is after the deadline of " + detail::ms_text(options_.timeout));
    }
    Timer timer(strand_);
    timer.expires_after(wait);
    const auto [ec] = co_await timer.async_wait(use_tuple);
    if (ec) {
      detail::fail(call, "client rate limit", ec);
    }
  }

  // --- pool ----------------------------------------------------------------------------------

  void release(std::unique_ptr<Connection> connection, bool reusable) {
    pool_.release(std::move(connection), reusable, Clock::now(), generation_);
  }

  awaitable<std::unique_ptr<Connection>> connect(const Call& call) {
    return dialer_.connect(call, tls_, generation_, wants_http2(call));
  }

  // A pooled connection, or a new one when the pool has room; otherwise waits for one.
  awaitable<std::unique_ptr<Connection>> checkout(const Call& call) {
    for (;;) {
      if (auto connection = pool_.take_idle(Clock::now(), generation_)) {
        co_return connection;
      }
      if (pool_.reserve()) {
        try {
          co_return co_await connect(call);
        } catch (...) {
          pool_.forget();
          throw;
        }
      }
      co_await wait_for_connection(call);
    }
  }

  // Waits until a connection is released or forgotten (or, with HTTP/2, a session is made).
  awaitable<void> wait_for_connection(const Call& call) {
    auto waiter = std::make_shared<Waiter>(strand_);
    if (call.streaming) {
      waiter->timer.expires_at(Clock::time_point::max());
    } else {
      waiter->timer.expires_at(call.deadline);
    }
    pool_.wait(waiter);
    const auto [ec] = co_await waiter->timer.async_wait(use_tuple);
    if (!waiter->woken) {
      pool_.stop_waiting(waiter);
      if (!ec) {
        detail::fail_timeout(
            call,
            "waiting for a free connection (pool limit " + std::to_string(pool_.limit()) + ")",
            options_.timeout);
      }
      detail::fail(call, "waiting for a free connection", ec);
    }
  }

  // --- requests ------------------------------------------------------------------------------

  Call prepare(const HttpRequest& request, bool streaming) const {
    Call call;
    call.origin = origin_;
    call.streaming = streaming;
    if (request.on_body) {
      call.observer =
          std::make_shared<detail::ObservedBody>(request.on_body, options_.max_body_size);
    }
    const auto verb = http::string_to_verb(request.method);
    if (verb != http::verb::get && verb != http::verb::head && verb != http::verb::post &&
        verb != http::verb::put && verb != http::verb::patch && verb != http::verb::delete_) {
      throw Error(errc::invalid_path, "unsupported HTTP method \"" + request.method +
                                          "\" (use GET, HEAD, POST, PUT, PATCH or DELETE)");
    }
    if (!detail::is_valid_target(request.target)) {
      throw Error(errc::invalid_path, request.method + " " + location_ +
                                          ": request target must be an absolute path without "
                                          "spaces or control characters");
    }
    auto& message = call.message;
    message.method(verb);
    message.target(server_.base_path + request.target);
    message.version(11);
    message.set(http::field::host, authority_);
    message.set(http::field::user_agent, options_.user_agent);
    message.set(http::field::accept, request.accept);
    if (!streaming && options_.compression && !disable_compression_) {
      message.set(http::field::accept_encoding, "gzip");
    }
    if (!options_.keep_alive) {
      message.keep_alive(false);
    }
    for (const auto& [name, value] : impersonation_) {
      message.insert(name, value);
    }
    for (const auto& [name, value] : options_.default_headers) {
      message.insert(name, value);
    }
    for (const auto& [name, value] : request.headers) {
      if (!detail::is_valid_header(name, value)) {
        throw Error(errc::invalid_path, detail::describe(call) + ": header \"" + name +
                                            "\" has an invalid name or control characters");
      }
      message.set(name, value);
    }
    if (!request.body.empty() || verb == http::verb::post || verb == http::verb::put ||
        verb == http::verb::patch) {
      message.set(http::field::content_type, request.content_type);
      message.body() = request.body;
      message.prepare_payload();
    }
    // A request the server may have received is sent twice only if it is a read: a write
    // (even an idempotent PUT or DELETE) the server acted on would then answer differently.
    call.read = verb == http::verb::get || verb == http::verb::head;
    call.deadline = Clock::now() + options_.timeout;
    return call;
  }

  void report_warnings(const HttpResponse& response) const {
    for (const auto& warning : response.warnings) {
      if (options_.on_warning) {
        options_.on_warning(warning);
      } else if (options_.log_api_warnings) {
        std::clog << "kubex: warning: " << warning << '\n';
      }
    }
  }

  // --- retries -------------------------------------------------------------------------------

  // Carries out a retry the request's RequestRetries decided: counts it, and waits its delay.
  awaitable<void> retry(const Call& call, const detail::RetryDecision& next) {
    ++retries_;
    if (next.action != detail::RetryDecision::Action::retry_after) {
      co_return;
    }
    Timer timer(strand_);
    timer.expires_after(next.delay);
    if (const auto [ec] = co_await timer.async_wait(use_tuple); ec) {
      detail::fail(call, "waiting to retry", ec);
    }
  }

  // --- routing -------------------------------------------------------------------------------

  // Holds a checked-out connection; one still held when the scope ends (an exception: a
  // corrupt body, a throwing warning hook) is closed and its pool slot freed.
  struct Lease {
    Lease(HttpsTransport& t, std::unique_ptr<Connection> c)
        : transport(t), connection(std::move(c)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (connection) {
        transport.release(std::move(connection), false);
      }
    }
    HttpsTransport& transport;
    std::unique_ptr<Connection> connection;
  };

  struct Outcome {
    HttpResponse response;
    std::unique_ptr<Connection> connection;  // an HTTP/1.1 stream's, with its head read
    std::unique_ptr<Parser> parser;
    StreamLease h2;  // an HTTP/2 stream's, with its head read
  };

  // Where a request goes: an HTTP/2 session, or an HTTP/1.1 connection of its own.
  struct Route {
    std::shared_ptr<H2Session> session;
    std::unique_ptr<Connection> connection;
  };

  // Drops sessions that cannot take streams any more, and idle ones too old or made with
  // older TLS settings.
  void sweep_sessions() {
    const auto now = Clock::now();
    std::erase_if(sessions_, [&](const std::shared_ptr<H2Session>& session) {
      const bool stale =
          session->active() == 0 && (now - session->idle_since >= options_.keep_alive_timeout ||
                                     session->connection().generation != generation_);
      if (session->alive() && !stale) {
        return false;
      }
      if (stale) {
        session->close();
      }
      pool_.forget();
      return true;
    });
  }

  // Makes an HTTP/2 session of a connection whose handshake selected h2; it keeps the
  // connection's pool slot.
  std::shared_ptr<H2Session> adopt(std::unique_ptr<Connection> connection) {
    auto session = std::make_shared<H2Session>(
        std::move(connection),
        H2Session::Limits{h2_stream_window, options_.http2_read_idle_timeout,
                          options_.http2_ping_timeout},
        watchdog_);
    session->idle_since = Clock::now();
    try {
      session->start();
    } catch (...) {
      session->close();
      pool_.forget();
      throw;
    }
    sessions_.push_back(session);
    return session;
  }

  // The alive session with the fewest streams (with room below the server's limit if
  // `with_room`), or none.
  std::shared_ptr<H2Session> least_busy_session(bool with_room) const {
    std::shared_ptr<H2Session> best;
    for (const auto& session : sessions_) {
      if ((with_room ? session->has_room() : session->alive()) &&
          (!best || session->active() < best->active())) {
        best = session;
      }
    }
    return best;
  }

  // Whether `call` goes to an HTTP/2 session when the server speaks HTTP/2.
  bool wants_http2(const Call& call) const noexcept {
    return options_.http2 || (options_.http2_for_streams && call.streaming);
  }

  awaitable<Route> route(const Call& call) {
    // No co_await inside the braces of a Route: GCC 12 miscompiles that in a coroutine.
    Route route;
    if (!wants_http2(call) || h2_unsupported_) {
      if (!pool_.has_idle() && pool_.full() && !sessions_.empty()) {
        // At the pool limit with the streams' HTTP/2 connections holding slots
        // (http2_for_streams): a request shares one that has room rather than wait.
        sweep_sessions();
        if (auto best = least_busy_session(true)) {
          route.session = std::move(best);
          co_return route;
        }
      }
      route.connection = co_await checkout(call);
      if (route.connection->http2) {
        h2_unsupported_ = false;  // the server (behind a balancer?) speaks HTTP/2 again
        route.session = adopt(std::move(route.connection));
      }
      co_return route;
    }
    for (;;) {
      sweep_sessions();
      if (auto best = least_busy_session(true)) {
        route.session = std::move(best);
        co_return route;
      }
      if (!h2_connecting_ && pool_.reserve()) {
        h2_connecting_ = true;
        std::unique_ptr<Connection> connection;
        try {
          connection = co_await connect(call);
        } catch (...) {
          h2_connecting_ = false;
          pool_.forget();
          pool_.wake_all();
          throw;
        }
        h2_connecting_ = false;
        pool_.wake_all();
        if (!connection->http2) {
          h2_unsupported_ = true;  // the server chose HTTP/1.1; so it will for the next ones
          route.connection = std::move(connection);
        } else {
          route.session = adopt(std::move(connection));
        }
        co_return route;
      }
      // At the connection limit with HTTP/1.1 connections idle (http2_for_streams): the
      // oldest gives its slot up for the stream's HTTP/2 connection.
      if (!h2_connecting_ && pool_.evict_oldest_idle()) {
        continue;
      }
      // At the connection limit every session is full: the least busy queues the stream
      // (libnghttp2 sends it when a slot frees).
      if (!h2_connecting_) {
        if (auto best = least_busy_session(false)) {
          route.session = std::move(best);
          co_return route;
        }
      }
      co_await wait_for_connection(call);
    }
  }

  // An attempt that failed before the caller saw its response, and what reports it if it is
  // not retried.
  struct Failed {
    detail::AttemptFailure what;
    detail::boost_error ec{};          // over HTTP/1.1: the exchange's error
    std::shared_ptr<H2Stream> stream;  // over HTTP/2: the failed stream
  };

  // Throws the error of an attempt that is not retried.
  [[noreturn]] void give_up(const Call& call, const Failed& failed) const {
    if (failed.stream) {
      detail::fail_h2(call, *failed.stream, options_);
    }
    if (failed.what.timed_out) {
      detail::fail_timeout(call, "request", options_.timeout);
    }
    detail::fail(call, failed.what.received ? "read response" : "send request", failed.ec);
  }

  // Sends `call` as a stream of `session`, and reads into `outcome` its head and, unless it
  // stays open as a stream, its body.
  awaitable<std::optional<Failed>> attempt_h2(Call& call, std::shared_ptr<H2Session>& session,
                                              Outcome& outcome, bool streaming) {
    const bool reused = session->requests > 0;
    if (reused) {
      ++reused_;
    }
    ++h2_streams_;
    outcome.h2.session = std::move(session);
    // Built before the co_await: GCC 12 destroys some temporaries of a co_await expression
    // twice.
    std::string body = streaming ? std::string() : spare_bodies_.take();
    co_await detail::exchange_h2(outcome.h2, call, authority_, body, *this);
    const auto held = outcome.h2.stream;  // outlives the lease's reset below
    auto& stream = *held;
    if (stream.failed()) {  // too_large included: the stream was reset
      outcome.h2.reset();
      co_return Failed{{.code = std::error_code(stream.connection_error),
                        .refused = stream.refused,
                        .reused = reused,
                        .received = stream.received,
                        .timed_out = stream.timed_out,
                        .protocol_error = !stream.connection_problem.empty()},
                       {},
                       held};
    }
    detail::read_head(stream, outcome.response);
    if (stream.ended) {
      detail::take_body(call, stream.body, outcome.response, options_.max_body_size, spare_bodies_);
    }
    if (!streaming || stream.ended) {
      outcome.h2.reset();
    }
    co_return std::nullopt;
  }

  // Sends `call` on `lease`'s HTTP/1.1 connection, and reads into `outcome` its head and,
  // unless it stays open as a stream (its parser then goes into `outcome`), its body.
  awaitable<std::optional<Failed>> attempt_http1(Call& call, Lease& lease, Outcome& outcome,
                                                 bool streaming) {
    auto& connection = lease.connection;
    const bool reused = connection->requests > 0;
    if (reused) {
      ++reused_;
    }
    auto parser = std::make_unique<Parser>();
    if (!streaming) {
      parser->get().body() = spare_bodies_.take();
    }
    const Attempt attempt = co_await detail::exchange_http1(*connection, call, *parser, *this);
    if (attempt.ec) {
      release(std::move(connection), false);
      if (attempt.undecodable) {
        detail::fail(call, "decode response", std::make_error_code(std::errc::bad_message),
                     call.observer->problem());
      }
      co_return Failed{{.code = std::error_code(attempt.ec),
                        .reused = reused,
                        .received = attempt.received,
                        .timed_out = attempt.timed_out},
                       attempt.ec,
                       {}};
    }
    detail::read_head(*parser, outcome.response);
    if (parser->is_done()) {
      detail::take_body(call, parser->get().body(), outcome.response, options_.max_body_size,
                        spare_bodies_);
    }
    if (!streaming || parser->is_done()) {
      release(std::move(connection), parser->get().keep_alive());
    } else {
      outcome.parser = std::move(parser);
    }
    co_return std::nullopt;
  }

  // Sends `request` until it is answered, or fails: the rate limit, the credentials, a route,
  // an attempt, and what the request's RequestRetries says follows it.
  awaitable<Outcome> perform(const HttpRequest& request, bool streaming) {
    Call call = prepare(request, streaming);
    detail::RequestRetries retries(options_.retry, backoff_, call.read, call.streaming,
                                   call.deadline);
    for (;;) {
      co_await take_rate_token(call);
      co_await credentials_.refresh(call, false);
      credentials_.authorize(call);
      const std::uint64_t sent_with = credentials_.generation();

      // A connection that could not be made (refused, reset in the handshake) may be tried
      // again; the wait cannot be in the handler (no co_await there).
      Route route;
      detail::RetryDecision next;
      try {
        route = co_await this->route(call);
      } catch (const Error& e) {
        next = retries.after_failure({.code = e.code()}, Clock::now());
        if (!next.retry()) {
          throw;
        }
      }
      if (next.retry()) {
        co_await retry(call, next);
        continue;
      }
      Outcome outcome;
      Lease lease{*this, std::move(route.connection)};
      std::optional<Failed> failed;
      if (route.session) {
        failed = co_await attempt_h2(call, route.session, outcome, streaming);
      } else {
        failed = co_await attempt_http1(call, lease, outcome, streaming);
      }
      if (failed) {
        next = retries.after_failure(failed->what, Clock::now());
        if (!next.retry()) {
          give_up(call, *failed);
        }
        co_await retry(call, next);
        continue;
      }
      // An open stream that is not handed over (a retry, an exception) is closed.
      const auto drop_stream = [&] {
        outcome.h2.reset();
        release(std::move(lease.connection), false);
      };
      // A rotated token file or a re-run plugin may hold a new credential: the server refused
      // the request before acting on it, so sending it once more is safe.
      if (outcome.response.status == 401 && retries.may_renew_credentials()) {
        // Another request may have brought a new credential meanwhile; then none is forced.
        bool renewed = sent_with != credentials_.generation();
        if (!renewed) {
          renewed = co_await credentials_.refresh(call, true);
        }
        if (renewed) {
          retries.renewed_credentials();
          drop_stream();
          continue;
        }
      }
      next = retries.after_response(outcome.response.status, outcome.response.retry_after,
                                    Clock::now());
      if (next.retry()) {
        drop_stream();
        co_await retry(call, next);
        continue;
      }
      report_warnings(outcome.response);
      outcome.connection = std::move(lease.connection);
      co_return outcome;
    }
  }

  static awaitable<HttpResponse> send(std::shared_ptr<HttpsTransport> self, HttpRequest request) {
    if (!request.body.empty() && protobuf::is_media_type(request.content_type)) {
      ++self->protobuf_requests_;
    }
    auto outcome = co_await self->perform(request, false);
    self->count_encoding(outcome.response);
    co_return std::move(outcome.response);
  }

  static awaitable<ResponseStream> open(std::shared_ptr<HttpsTransport> self, HttpRequest request);

  void count_encoding(const HttpResponse& response) {
    if (protobuf::is_media_type(response.content_type)) {
      ++protobuf_responses_;
    }
  }

  // A WebSocket on a connection of its own: upgraded connections never return to the pool,
  // and hold no slot of it (a long exec session must not starve requests). A 401 is tried
  // once more with a renewed credential, as for requests.
  static awaitable<WebSocket> upgrade(std::shared_ptr<HttpsTransport> self, HttpRequest request,
                                      WebSocketOptions options) {
    if (request.method != "GET") {
      throw Error(errc::invalid_argument,
                  request.method + " " + self->location_ + ": a WebSocket upgrade is a GET");
    }
    Call call = self->prepare(request, true);
    bool refreshed_after_401 = false;
    for (;;) {
      co_await self->take_rate_token(call);
      co_await self->credentials_.refresh(call, false);
      self->credentials_.authorize(call);
      const std::uint64_t sent_with = self->credentials_.generation();
      auto connection = co_await self->dialer_.connect(call, self->tls_, self->generation_, false);
      auto upgraded = co_await detail::upgrade_websocket(std::move(connection), call, options,
                                                         self->options_.timeout);
      if (upgraded.socket) {
        co_return WebSocket(std::move(upgraded.socket));
      }
      if (upgraded.refusal.status == 401 && !refreshed_after_401) {
        bool renewed = sent_with != self->credentials_.generation();
        if (!renewed) {
          renewed = co_await self->credentials_.refresh(call, true);
        }
        if (renewed) {
          refreshed_after_401 = true;
          continue;
        }
      }
      const std::string_view target = request.target;
      throw ApiError::from_response("GET", target.substr(0, target.find('?')),
                                    upgraded.refusal.status, upgraded.refusal.body);
    }
  }

  asio::any_io_executor executor_;
  Strand strand_;
  std::shared_ptr<Watchdog> watchdog_;  // before the connections, which unwatch as they close
  ServerUrl server_;
  ClientOptions options_;
  std::string authority_;             // host:port
  std::string origin_;                // https://host:port
  std::string location_;              // origin_ and base path
  bool disable_compression_ = false;  // the kubeconfig's disable-compression
  std::vector<std::pair<std::string, std::string>> impersonation_;  // Impersonate-* headers
  std::shared_ptr<ssl::context> tls_;
  std::uint64_t generation_ = 0;  // of tls_; older connections are not reused
  detail::Dialer dialer_;
  detail::Credentials credentials_;  // after tls_, which its certificate hook replaces
  detail::SpareBodies spare_bodies_{max_spare_bodies, max_spare_body};

  Pool pool_{pool_limits(options_)};                  // HTTP/1.1 connections and sessions
  std::vector<std::shared_ptr<H2Session>> sessions_;  // each holds a slot of pool_
  bool h2_connecting_ = false;   // a connection that may become a session is being made
  bool h2_unsupported_ = false;  // the server chose HTTP/1.1

  std::optional<detail::TokenBucket> rate_limit_;  // none: ClientOptions::qps is zero
  detail::Backoff backoff_{options_.retry.initial_backoff, options_.retry.max_backoff,
                           std::random_device{}()};

  std::atomic<std::size_t> reused_{0};
  std::atomic<std::size_t> retries_{0};
  std::atomic<std::size_t> h2_streams_{0};
  std::atomic<std::size_t> protobuf_responses_{0};
  std::atomic<std::size_t> protobuf_requests_{0};
};

awaitable<ResponseStream> HttpsTransport::open(std::shared_ptr<HttpsTransport> self,
                                               HttpRequest request) {
  auto outcome = co_await self->perform(request, true);
  self->count_encoding(outcome.response);
  std::string location = self->location_ + request.target;
  // The client's idle timeout, else the stream's own (a watch's), else none.
  const auto idle_timeout = self->options_.stream_idle_timeout.value_or(
      request.idle_timeout.value_or(std::chrono::milliseconds::zero()));
  if (outcome.h2.stream) {
    co_return ResponseStream(
        detail::make_h2_stream(self, std::move(outcome.h2.session), std::move(outcome.h2.stream),
                               std::move(location), idle_timeout),
        std::move(outcome.response));
  }
  // Without a connection (an error status, or an empty body) the stream is at its end.
  co_return ResponseStream(
      detail::make_http1_stream(self, std::move(outcome.connection), std::move(outcome.parser),
                                std::move(location), idle_timeout),
      std::move(outcome.response));
}

}  // namespace

std::shared_ptr<Transport> make_transport(asio::any_io_executor executor, ClientConfig config,
                                          ClientOptions options) {
  return std::make_shared<HttpsTransport>(std::move(executor), std::move(config),
                                          std::move(options));
}

std::shared_ptr<Transport> make_http1_transport(asio::any_io_executor executor, ClientConfig config,
                                                ClientOptions options) {
  options.http2 = false;
  options.http2_for_streams = false;
  return make_transport(std::move(executor), std::move(config), std::move(options));
}

std::shared_ptr<Transport> make_http2_transport(asio::any_io_executor executor, ClientConfig config,
                                                ClientOptions options) {
  options.http2 = true;
  return make_transport(std::move(executor), std::move(config), std::move(options));
}

}  // namespace kubex::client
