// The HTTPS transport: HTTP/1.1 (Boost.Beast) or HTTP/2 (libnghttp2) over OpenSSL, written as
// Asio coroutines that run on one strand per transport, so the pool, the rate limiter and the
// credentials need no locks.

#include <kubex/client/client.hpp>
#include <kubex/client/exec_credential.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/proxy.hpp>
#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/time.hpp>

#include "detail/gzip.hpp"
#include "detail/h2.hpp"
#include "detail/headers.hpp"
#include "detail/io.hpp"
#include "detail/oidc.hpp"
#include "detail/pem.hpp"
#include "detail/pool.hpp"
#include "detail/rate_limiter.hpp"
#include "detail/response_stream.hpp"
#include "detail/retry.hpp"
#include "detail/text.hpp"
#include "detail/tls.hpp"
#include "detail/tunnel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#ifndef KUBEX_VERSION
#error "KUBEX_VERSION must be defined by the build"
#endif

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
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost_error = boost::system::error_code;
using Clock = std::chrono::steady_clock;
using detail::awaitable;
using detail::BaseExecutor;
using detail::Connection;
using detail::H2Session;
using detail::H2Stream;
using detail::Resolver;
using detail::Strand;
using detail::TcpSocket;
using detail::Timer;
using detail::use_tuple;
using detail::Watchdog;

using Parser = detail::ResponseParser;

// Response headers from the apiserver are small, but Warning headers can add up.
constexpr std::uint32_t max_header_size = 64U * 1024U;
// An error body of a stream (a Status) is read whole; it is never large.
constexpr std::size_t max_stream_error_body = std::size_t{1} << 20U;
// Recycled response bodies kept for reuse, and the largest kept: two cover a client reading
// one large list at a time with room for a concurrent one, and the cap keeps one huge
// response from pinning its memory for the client's life.
constexpr std::size_t max_spare_bodies = 2;
constexpr std::size_t max_spare_body = std::size_t{16} << 20U;
// HTTP/2 receive window per stream, as Go's transport has it: whole responses are credited at
// once, and a stream's reader may leave this much unread before the server waits for it.
constexpr std::uint32_t h2_stream_window = std::uint32_t{4} << 20U;
// Times a request the server refused unprocessed (HTTP/2 REFUSED_STREAM, GOAWAY) is re-sent.
constexpr int max_refusals = 3;

std::string default_user_agent() {
  return "kubex-cpp/" KUBEX_VERSION " (" KUBEX_OS "/" KUBEX_ARCH ")";
}

bool is_ip_address(const std::string& host) {
  boost_error ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string ms_text(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

// A request being performed.
struct Call {
  http::request<http::string_body> message;
  std::string_view origin;  // https://host:port, for messages
  bool read = false;        // GET or HEAD: may be sent again after a transport failure
  bool streaming = false;
  Clock::time_point deadline{};
  std::function<void(std::string&, bool)> on_body;  // HttpRequest::on_body
};

// The outcome of one attempt on one connection.
struct Attempt {
  boost_error ec{};
  bool received = false;  // any response byte arrived
  bool timed_out = false;
};

class HttpsTransport final : public Transport,
                             public detail::StreamHost,
                             public std::enable_shared_from_this<HttpsTransport> {
 public:
  HttpsTransport(asio::any_io_executor executor, ClientConfig config, ClientOptions options)
      : executor_(std::move(executor)),
        strand_(Strand::Inner(BaseExecutor(executor_))),
        watchdog_(std::make_shared<Watchdog>(strand_)),
        config_(std::move(config)),
        options_(std::move(options)) {
    if (options_.user_agent.empty()) {
      options_.user_agent = default_user_agent();
    }
    if (config_.server.scheme != "https") {
      throw ConfigError(config_.source + ": clusters[" + config_.cluster_name +
                        "].server: kubex sends credentials over https:// only");
    }
    for (const auto& [name, value] : options_.default_headers) {
      if (!detail::is_valid_header(name, value)) {
        throw ConfigError("ClientOptions::default_headers: header \"" + name +
                          "\" has an invalid name or control characters in its value");
      }
    }
    verify_name_ = config_.tls_server_name.empty() ? config_.server.host : config_.tls_server_name;
    verify_name_is_ip_ = is_ip_address(verify_name_);
    origin_ = "https://" + config_.server.authority();
    location_ = origin_ + config_.server.base_path;
    // As in client-go, credentials written in the kubeconfig win over a plugin.
    uses_exec_ =
        config_.exec.has_value() && config_.token.empty() && config_.client_certificate_pem.empty();
    tls_ = detail::make_tls_context(config_, options_.tls_session_resumption,
                                    config_.client_certificate_pem, config_.client_key_pem,
                                    config_.source + ": users[" + config_.user_name + "]");
    proxy_ = select_proxy(config_, options_);
    if (config_.oidc) {
      config_.token = config_.oidc->id_token;
      oidc_expiry_ = detail::jwt_expiry(config_.oidc->id_token);
    }
    // The loader has just read the token file: the first refresh is due one period later.
    if (!config_.token_file.empty()) {
      token_read_at_ = Clock::now();
    }
    if (options_.qps > 0.0) {
      rate_limit_.emplace(options_.qps, options_.burst, Clock::now());
    }
    spare_bodies_.reserve(max_spare_bodies);
    fetch_link_->transport = this;
  }

  HttpsTransport(const HttpsTransport&) = delete;
  HttpsTransport& operator=(const HttpsTransport&) = delete;

  // Idle HTTP/2 sessions are parked without pending reads, but their sockets stay open until
  // closed; that happens on the strand, as any thread may drop the last reference.
  ~HttpsTransport() override {
    {
      const std::lock_guard lock(fetch_link_->mutex);  // waits for a fetch thread posting
      fetch_link_->transport = nullptr;
    }
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

  [[nodiscard]] TransportStats stats() const override {
    TransportStats s;
    s.connections_opened = opened_.load();
    s.tls_sessions_resumed = resumed_.load();
    s.connections_reused = reused_.load();
    s.connections_open = pool_.open();
    s.retries = retries_.load();
    s.exec_plugin_runs = exec_runs_.load();
    s.oidc_refreshes = oidc_refreshes_.load();
    s.http2_streams = h2_streams_.load();
    return s;
  }

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

  [[nodiscard]] ClientConfig config() const override {
    const std::lock_guard lock(config_mutex_);
    return config_;
  }

  // detail::StreamHost: what the open streams use.
  void finish_stream(std::unique_ptr<Connection> connection, bool reusable) override {
    release(std::move(connection), reusable);
  }
  [[nodiscard]] const Strand& strand() const noexcept override { return strand_; }
  [[nodiscard]] Watchdog& watchdog() const noexcept override { return *watchdog_; }
  [[nodiscard]] const ClientOptions& options() const noexcept override { return options_; }

 private:
  // --- errors --------------------------------------------------------------------------------

  [[noreturn]] static void fail(const Call& call, std::string_view step, std::error_code code,
                                const std::string& detail) {
    throw Error(code, describe(call) + ": " + std::string(step) + ": " + detail);
  }

  // "GET https://host:port/base/target", derived from the request itself.
  static std::string describe(const Call& call) {
    std::string text(call.message.method_string());
    text.append(" ").append(call.origin).append(call.message.target());
    return text;
  }

  // A failed I/O step; `limit` is the deadline that step had, named when it timed out.
  [[noreturn]] static void fail(const Call& call, std::string_view step, const boost_error& ec,
                                std::chrono::milliseconds limit = {}) {
    if (ec == beast::error::timeout) {
      if (limit.count() > 0) {
        fail_timeout(call, step, limit);
      }
      fail(call, step, std::make_error_code(std::errc::timed_out), "timed out");
    }
    if (ec == asio::error::operation_aborted) {
      fail(call, step, std::make_error_code(std::errc::operation_canceled), "cancelled");
    }
    fail(call, step, std::error_code(ec), ec.message());
  }

  [[noreturn]] static void fail_timeout(const Call& call, std::string_view step,
                                        std::chrono::milliseconds limit) {
    fail(call, step, std::make_error_code(std::errc::timed_out),
         "timed out after " + ms_text(limit));
  }

  // --- credentials ---------------------------------------------------------------------------

  // A request waiting for something the strand will hand it (a pooled connection, a fetched
  // credential): woken by cancelling its timer, or timed out by it.
  struct Waiter {
    explicit Waiter(const Strand& strand) : timer(strand) {}
    void wake() {
      woken = true;
      timer.cancel();
    }
    Timer timer;
    bool woken = false;
  };
  using Pool = detail::SlotPool<Connection, Waiter>;

  // A transport talks to one apiserver, so both connection limits bound the same set.
  static Pool::Limits pool_limits(const ClientOptions& options) {
    return {std::min(options.max_connections, options.max_connections_per_host),
            options.keep_alive_timeout, options.keep_alive};
  }

  // Re-reads the token file (user `tokenFile`, or a service account token) when it is older
  // than options.token_file_refresh, or always if `force`. Returns true if the token changed.
  // A file that cannot be read keeps the current token: rotation replaces files atomically, so
  // a failed read is transient, and the server will say 401 if the old token is really dead.
  bool refresh_token(bool force) {
    if (config_.token_file.empty()) {
      return false;
    }
    const auto now = Clock::now();
    if (!force && token_read_at_ && now - *token_read_at_ < options_.token_file_refresh) {
      return false;
    }
    token_read_at_ = now;
    std::ifstream in(config_.token_file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      return false;
    }
    const auto token = detail::trim_space(text);
    if (token.empty() || detail::has_control_characters(token) || token == config_.token) {
      return false;  // a broken file would break the header; keep the token we have
    }
    const std::lock_guard lock(config_mutex_);
    config_.token.assign(token);
    return true;
  }

  // Whether the exec plugin must run: no credential yet, it has expired, or `force` (a 401).
  [[nodiscard]] bool exec_due(bool force) const {
    return uses_exec_ &&
           (force || !exec_credential_ ||
            (exec_credential_->expiration && Time::now() >= *exec_credential_->expiration));
  }

  // Takes the plugin's answer. Returns true if the credential changed. A new client
  // certificate makes a new TLS context; pooled connections of the old one are not reused.
  bool apply_exec(ExecCredential fresh) {
    ++exec_runs_;
    const bool changed = !exec_credential_ || fresh.token != exec_credential_->token ||
                         fresh.client_certificate_pem != exec_credential_->client_certificate_pem;
    if (!fresh.client_certificate_pem.empty() &&
        (!exec_credential_ ||
         fresh.client_certificate_pem != exec_credential_->client_certificate_pem)) {
      tls_ = detail::make_tls_context(config_, options_.tls_session_resumption,
                                      fresh.client_certificate_pem, fresh.client_key_pem,
                                      "exec plugin \"" + config_.exec->command + "\"");
      ++generation_;
    }
    {
      const std::lock_guard lock(config_mutex_);
      config_.token = fresh.token;
    }
    exec_credential_ = std::move(fresh);
    return changed;
  }

  // Whether the OIDC id-token must be bought anew: it is missing, within 10 s of its `exp`, or
  // `force` (a 401). A token that is not a JWT is used as it is: the server decides.
  // @throws Error when it is due and there is no refresh-token to buy it with.
  [[nodiscard]] bool oidc_due(bool force) const {
    if (!config_.oidc) {
      return false;
    }
    const auto& oidc = *config_.oidc;
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (!force && !oidc.id_token.empty() && (!oidc_expiry_ || now + 10.0 < *oidc_expiry_)) {
      return false;
    }
    if (oidc.refresh_token.empty()) {
      if (force) {
        return false;  // nothing to try; the 401 stands
      }
      throw Error(std::make_error_code(std::errc::permission_denied),
                  config_.source + ": users[" + config_.user_name + "]: the oidc id-token is " +
                      (oidc.id_token.empty() ? "missing" : "expired") +
                      " and there is no refresh-token");
    }
    return true;
  }

  // Takes the issuer's answer. Returns true (the token changed).
  bool apply_oidc(detail::OidcTokens tokens) {
    ++oidc_refreshes_;
    auto& oidc = *config_.oidc;
    const std::lock_guard lock(config_mutex_);
    oidc.id_token = std::move(tokens.id_token);
    if (!tokens.refresh_token.empty()) {
      oidc.refresh_token = std::move(tokens.refresh_token);
    }
    oidc_expiry_ = detail::jwt_expiry(oidc.id_token);
    config_.token = oidc.id_token;
    return true;
  }

  // A credential being fetched off the strand (an exec plugin run, an OIDC refresh), and the
  // requests waiting for it: one fetch serves them all.
  struct Fetch {
    std::vector<std::shared_ptr<Waiter>> waiters;
    bool changed = false;
    std::exception_ptr error;
  };

  // Brings the credentials up to date before `call` is sent (or, with `force`, after a 401):
  // the token file is re-read when due, here; the exec plugin and the OIDC issuer, which may
  // take seconds, are asked on a worker thread while this strand goes on serving other
  // requests and open streams. Concurrent callers share one fetch; a failed fetch fails each
  // of them with its error. Returns true if the credential changed.
  awaitable<bool> refresh_credentials(const Call& call, bool force) {
    bool changed = refresh_token(force);
    if (changed) {
      ++credential_generation_;
    }
    if (exec_due(force) || oidc_due(force)) {
      if (!fetch_) {
        start_fetch();
      }
      const auto fetch = fetch_;
      auto waiter = std::make_shared<Waiter>(strand_);
      waiter->timer.expires_at(call.streaming ? Clock::time_point::max() : call.deadline);
      fetch->waiters.push_back(waiter);
      const auto [ec] = co_await waiter->timer.async_wait(use_tuple);
      if (!waiter->woken) {
        std::erase(fetch->waiters, waiter);
        if (!ec) {
          fail_timeout(call, "waiting for credentials", options_.timeout);
        }
        fail(call, "waiting for credentials", ec);
      }
      if (fetch->error) {
        std::rethrow_exception(fetch->error);
      }
      changed = changed || fetch->changed;
    }
    co_return changed;
  }

  // Runs the exec plugin or the OIDC refresh on a thread of its own and hands the answer to
  // the strand. The thread holds no executor, timer or strong reference to the transport: it
  // may outlive both the transport and the io_context (a plugin that is slow to answer when
  // the client goes away). It posts the answer through fetch_link_ under its mutex, which the
  // transport's destructor takes to cut the link, so the strand is alive while it posts.
  // Meanwhile the waiting requests' timers keep the io_context running.
  void start_fetch() {
    fetch_ = std::make_shared<Fetch>();
    const std::uint64_t id = ++fetches_started_;
    const bool exec = uses_exec_;
    std::thread([link = fetch_link_, weak = weak_from_this(), id, exec, config = config_,
                 timeout = options_.timeout] {
      std::optional<ExecCredential> credential;
      std::optional<detail::OidcTokens> tokens;
      std::exception_ptr error;
      try {
        if (exec) {
          credential = run_exec_plugin(config);
        } else {
          tokens = detail::refresh_oidc_tokens(*config.oidc, timeout);
        }
      } catch (...) {
        error = std::current_exception();
      }
      try {
        const std::lock_guard lock(link->mutex);
        if (link->transport != nullptr) {
          asio::post(link->transport->strand_, [weak, id, credential = std::move(credential),
                                                tokens = std::move(tokens), error]() mutable {
            const auto self = weak.lock();
            if (self && self->fetch_ && self->fetches_started_ == id) {
              self->finish_fetch(*self->fetch_, std::move(credential), std::move(tokens), error);
            }
          });
        }
      } catch (...) {  // posting allocates; without memory the waiters time out
      }
    }).detach();
  }

  void finish_fetch(Fetch& fetch, std::optional<ExecCredential> credential,
                    std::optional<detail::OidcTokens> tokens, std::exception_ptr error) {
    if (!error) {
      try {
        fetch.changed =
            credential ? apply_exec(std::move(*credential)) : apply_oidc(std::move(*tokens));
      } catch (...) {
        error = std::current_exception();  // an unusable client certificate, say
      }
    }
    if (fetch.changed) {
      ++credential_generation_;
    }
    fetch.error = error;
    fetch_.reset();
    for (const auto& waiter : fetch.waiters) {
      waiter->wake();
    }
    fetch.waiters.clear();
  }

  void set_authorization(http::request<http::string_body>& message) const {
    if (!config_.token.empty()) {
      message.set(http::field::authorization, "Bearer " + config_.token);
    } else if (!config_.username.empty() || !config_.password.empty()) {
      message.set(http::field::authorization,
                  "Basic " + base64_encode(config_.username + ":" + config_.password));
    } else {
      message.erase(http::field::authorization);
    }
  }

  // --- rate limit ----------------------------------------------------------------------------

  // A token bucket: `burst` tokens, refilled at `qps` per second. Waits for a token unless
  // that would pass the call's deadline.
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
      fail(call, "client rate limit", std::make_error_code(std::errc::timed_out),
           "the next slot is after the deadline of " + ms_text(options_.timeout));
    }
    Timer timer(strand_);
    timer.expires_after(wait);
    const auto [ec] = co_await timer.async_wait(use_tuple);
    if (ec) {
      fail(call, "client rate limit", ec);
    }
  }

  // --- pool ----------------------------------------------------------------------------------

  void release(std::unique_ptr<Connection> connection, bool reusable) {
    pool_.release(std::move(connection), reusable, Clock::now(), generation_);
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
        fail_timeout(
            call,
            "waiting for a free connection (pool limit " + std::to_string(pool_.limit()) + ")",
            options_.timeout);
      }
      fail(call, "waiting for a free connection", ec);
    }
  }

  awaitable<std::unique_ptr<Connection>> connect(const Call& call) {
    auto connection = std::make_unique<Connection>(strand_, tls_, generation_);
    auto& socket = connection->tcp();
    // Each phase has its own limit, within the request's deadline; messages name the one hit.
    const auto phase_deadline = [&](std::chrono::milliseconds limit) {
      const auto own = Clock::now() + limit;
      return call.streaming || own <= call.deadline ? std::pair{own, limit}
                                                    : std::pair{call.deadline, options_.timeout};
    };
    const auto [connect_deadline, connect_limit] = phase_deadline(options_.connect_timeout);
    // With a proxy, TCP goes to the proxy, which opens the tunnel to the apiserver.
    const std::string& peer_host = proxy_ ? proxy_->host : config_.server.host;
    const std::uint16_t peer_port = proxy_ ? proxy_->port : config_.server.port;
    const std::string peer_step = proxy_ ? "connect to proxy " + proxy_->source : "connect";
    tcp::resolver::results_type endpoints;
    boost_error address_ec;
    const auto address = asio::ip::make_address(peer_host, address_ec);
    if (!address_ec) {
      endpoints = tcp::resolver::results_type::create(tcp::endpoint(address, peer_port), peer_host,
                                                      std::to_string(peer_port));
    } else {
      Resolver resolver(strand_);
      Timer guard(strand_);
      guard.expires_at(connect_deadline);
      guard.async_wait([&resolver](const boost_error& ec) {
        if (!ec) {
          resolver.cancel();
        }
      });
      auto [ec, results] =
          co_await resolver.async_resolve(peer_host, std::to_string(peer_port), use_tuple);
      guard.cancel();
      if (ec == asio::error::operation_aborted) {
        fail_timeout(call, "resolve " + peer_host, connect_limit);
      }
      if (ec) {
        fail(call, "resolve " + peer_host, ec);
      }
      endpoints = std::move(results);
    }

    watchdog_->watch(*connection, connect_deadline);
    if (const auto [ec, endpoint] = co_await asio::async_connect(socket, endpoints, use_tuple);
        ec || connection->timed_out) {
      fail(call, peer_step, connection->outcome(ec), connect_limit);
    }
    if (proxy_) {
      if (const auto failed = co_await detail::open_tunnel(*connection, *proxy_, config_.server,
                                                           options_.user_agent)) {
        if (failed->io_error) {
          fail(call, failed->step, connection->outcome(failed->io_error), connect_limit);
        }
        fail(call, failed->step, failed->code, failed->detail);
      }
    }
    boost_error ignored;
    socket.set_option(asio::socket_base::keep_alive(true), ignored);
#if defined(TCP_KEEPIDLE) && defined(TCP_KEEPINTVL)
    // The kernel's default waits two hours before its first probe: a watch on a dead peer
    // would hang that long. Go's dialer probes after 30 s, every 30 s; so does kubex.
    socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPIDLE>(30), ignored);
    socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPINTVL>(30),
                      ignored);
#endif
    socket.set_option(tcp::no_delay(true), ignored);

    SSL* ssl = connection->stream.native_handle();
    // Asio turns on SSL_MODE_RELEASE_BUFFERS, which frees the 16 KiB record buffer whenever
    // it runs empty: a 2 MB list then costs hundreds of malloc/free pairs of fresh pages.
    // A connection is reused for many responses, so it keeps its buffers.
    SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
    // SNI carries host names only (RFC 6066); verification still checks the IP SAN.
    // SSL_set_tlsext_host_name is a macro with a C-style cast; this is its expansion.
    if (!verify_name_is_ip_ &&
        SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char*>(verify_name_.c_str())) != 1) {
      ERR_clear_error();
      fail(call, "TLS setup", make_error_code(errc::invalid_config),
           "cannot use \"" + verify_name_ + "\" as TLS server name");
    }
    if (!config_.insecure_skip_tls_verify) {
      SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      const int set = verify_name_is_ip_
                          ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), verify_name_.c_str())
                          : SSL_set1_host(ssl, verify_name_.c_str());
      if (set != 1) {
        ERR_clear_error();
        fail(call, "TLS setup", make_error_code(errc::invalid_config),
             "cannot verify against \"" + verify_name_ + "\"");
      }
    }

    // ALPN per connection: with http2_for_streams, requests' connections offer no h2.
    const bool offer_h2 = wants_http2(call);
    if (offer_h2) {
      // Preference order; a server without HTTP/2 picks http/1.1 or ignores the extension.
      static constexpr unsigned char protocols[] = "\x02h2\x08http/1.1";
      if (SSL_set_alpn_protos(ssl, protocols, sizeof(protocols) - 1) != 0) {
        ERR_clear_error();
        fail(call, "TLS setup", make_error_code(errc::invalid_config),
             "cannot offer HTTP/2 (ALPN)");
      }
    }
    detail::offer_cached_session(ssl);
    const auto [handshake_deadline, handshake_limit] =
        phase_deadline(options_.tls_handshake_timeout);
    watchdog_->watch(*connection, handshake_deadline);
    if (const auto [ec] =
            co_await connection->stream.async_handshake(ssl::stream_base::client, use_tuple);
        ec || connection->timed_out) {
      const long verify_result = SSL_get_verify_result(ssl);
      ERR_clear_error();
      if (connection->timed_out) {
        fail_timeout(call, "TLS handshake", handshake_limit);
      }
      if (!config_.insecure_skip_tls_verify && verify_result != X509_V_OK) {
        fail(call, "TLS handshake", make_error_code(errc::tls_verification_failed),
             "server certificate not trusted for \"" + verify_name_ +
                 "\": " + X509_verify_cert_error_string(verify_result));
      }
      fail(call, "TLS handshake", ec);
    }
    watchdog_->unwatch(*connection);
    if (offer_h2) {
      const unsigned char* protocol = nullptr;
      unsigned int length = 0;
      SSL_get0_alpn_selected(ssl, &protocol, &length);
      connection->http2 =
          length == 2 && protocol != nullptr && protocol[0] == 'h' && protocol[1] == '2';
    }
    if (!connection->http2) {
      connection->buffer.reserve(options_.read_buffer_size);
    }
    ++opened_;
    if (SSL_session_reused(ssl) == 1) {
      ++resumed_;
    }
    co_return connection;
  }

  // --- requests ------------------------------------------------------------------------------

  Call prepare(const HttpRequest& request, bool streaming) const {
    Call call;
    call.origin = origin_;
    call.streaming = streaming;
    call.on_body = request.on_body;
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
    message.target(config_.server.base_path + request.target);
    message.version(11);
    message.set(http::field::host, config_.server.authority());
    message.set(http::field::user_agent, options_.user_agent);
    message.set(http::field::accept, request.accept);
    if (!streaming && options_.compression && !config_.disable_compression) {
      message.set(http::field::accept_encoding, "gzip");
    }
    if (!options_.keep_alive) {
      message.keep_alive(false);
    }
    for (auto& [name, value] : detail::impersonation_headers(config_.impersonate)) {
      message.insert(name, value);
    }
    for (const auto& [name, value] : options_.default_headers) {
      message.insert(name, value);
    }
    for (const auto& [name, value] : request.headers) {
      if (!detail::is_valid_header(name, value)) {
        throw Error(errc::invalid_path, describe(call) + ": header \"" + name +
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

  // Writes the request and reads the head (streaming) or the whole response.
  awaitable<Attempt> exchange(Connection& connection, Call& call, Parser& parser) {
    // A stream's head must still come in time; only its body may take forever.
    watchdog_->watch(connection, call.streaming ? Clock::now() + options_.timeout : call.deadline);
    Attempt attempt = co_await exchange_watched(connection, call, parser);
    watchdog_->unwatch(connection);
    // A whole response that beat the watchdog by a hair still counts (release will not pool
    // the closed connection); a stream's head does not, its socket is gone.
    if (connection.timed_out && (attempt.ec || call.streaming)) {
      attempt.ec = beast::error::timeout;
      attempt.timed_out = true;
    }
    co_return attempt;
  }

  awaitable<Attempt> exchange_watched(Connection& connection, Call& call, Parser& parser) {
    Attempt attempt;
    ++connection.requests;
    if (auto [ec, n] = co_await http::async_write(connection.stream, call.message, use_tuple); ec) {
      attempt.ec = ec;
      co_return attempt;
    }
    parser.header_limit(max_header_size);
    if (call.streaming) {
      parser.body_limit(boost::none);  // a watch may run for days
      auto [ec, n] =
          co_await http::async_read_header(connection.stream, connection.buffer, parser, use_tuple);
      attempt.received = parser.got_some();
      attempt.ec = ec;
      if (ec || parser.get().result_int() / 100 == 2) {
        co_return attempt;
      }
      // An error answer to a stream request is a small Status; read it whole.
      parser.body_limit(max_stream_error_body);
    } else {
      parser.body_limit(options_.max_body_size);
      if (call.on_body) {
        co_return co_await exchange_observed(connection, call, parser);
      }
    }
    auto [ec, n] =
        co_await http::async_read(connection.stream, connection.buffer, parser, use_tuple);
    attempt.received = parser.got_some();
    attempt.ec = ec;
    co_return attempt;
  }

  // Reads a whole response piece by piece, showing the body to call.on_body as it grows.
  awaitable<Attempt> exchange_observed(Connection& connection, Call& call, Parser& parser) {
    Attempt attempt;
    boost_error ec;
    std::size_t n = 0;
    std::tie(ec, n) =
        co_await http::async_read_header(connection.stream, connection.buffer, parser, use_tuple);
    auto& body = parser.get().body();
    if (!ec) {
      call.on_body(body, true);
    }
    const auto& head = parser.get();
    const auto encoding = head[http::field::content_encoding];
    const bool observed =
        head.result_int() / 100 == 2 && (encoding.empty() || encoding == "identity");
    while (!ec && !parser.is_done()) {
      std::tie(ec, n) =
          co_await http::async_read_some(connection.stream, connection.buffer, parser, use_tuple);
      if (!ec && observed) {
        call.on_body(body, false);
      }
    }
    attempt.received = parser.got_some();
    attempt.ec = ec;
    co_return attempt;
  }

  void fill_response(const Call& call, Parser& parser, HttpResponse& response) {
    auto& message = parser.get();
    response.status = message.result_int();
    response.content_type = std::string(message[http::field::content_type]);
    response.content_encoding = std::string(message[http::field::content_encoding]);
    response.retry_after = std::string(message[http::field::retry_after]);
    response.warnings.clear();
    for (const auto& field : message) {
      if (field.name() == http::field::warning) {
        parse_warning_header(field.value(), response.warnings);
      }
    }
    if (!parser.is_done()) {
      return;  // a stream's head; the body follows
    }
    if (response.content_encoding == "gzip") {
      std::string problem;
      auto inflated = detail::gunzip(message.body(), options_.max_body_size, problem);
      if (!inflated) {
        fail(call, "decode response", std::make_error_code(std::errc::bad_message), problem);
      }
      response.body = std::move(*inflated);
      recycle(std::move(message.body()));
    } else {
      response.body = std::move(message.body());
    }
  }

  void recycle(std::string&& body) noexcept override {
    std::string taken(std::move(body));
    if (taken.capacity() > max_spare_body) {
      return;
    }
    taken.clear();
    const std::lock_guard lock(spare_mutex_);
    if (spare_bodies_.size() < max_spare_bodies) {
      spare_bodies_.push_back(std::move(taken));  // capacity reserved: does not throw
      return;
    }
    // Keep the largest buffers: a small one would only grow again on the next large list.
    auto smallest = std::min_element(
        spare_bodies_.begin(), spare_bodies_.end(),
        [](const std::string& a, const std::string& b) { return a.capacity() < b.capacity(); });
    if (smallest->capacity() < taken.capacity()) {
      smallest->swap(taken);
    }
  }

  // An empty string, with the capacity of a recycled body when there is one.
  std::string take_spare_body() {
    const std::lock_guard lock(spare_mutex_);
    if (spare_bodies_.empty()) {
      return {};
    }
    std::string body = std::move(spare_bodies_.back());
    spare_bodies_.pop_back();
    return body;
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

  // How long to wait before retrying `response`, or nullopt if it is not to be retried.
  std::optional<Clock::duration> retry_delay(const Call& call, const HttpResponse& response,
                                             int retries) {
    const auto delay = detail::response_retry_delay(options_.retry, backoff_, response.status,
                                                    response.retry_after, retries);
    if (!delay || !time_left(call, *delay)) {
      return std::nullopt;  // the caller gets the server's answer while there is time to act
    }
    return *delay;
  }

  // Whether a read that failed with `code` before any response byte is tried again (after a
  // backoff) rather than failed: the connection was refused, reset or closed early.
  std::optional<Clock::duration> transport_retry_delay(const Call& call,
                                                       const std::error_code& code, int retries) {
    if (!call.read || retries >= options_.retry.max_transport_retries ||
        !detail::is_transient_transport_error(code)) {
      return std::nullopt;
    }
    const auto delay = backoff_.delay(retries);
    if (!time_left(call, delay)) {
      return std::nullopt;
    }
    return delay;
  }

  // Waits `delay` before the next attempt of `call`, counting it.
  awaitable<void> wait_to_retry(const Call& call, Clock::duration delay, int& retries) {
    ++retries;
    ++retries_;
    Timer timer(strand_);
    timer.expires_after(delay);
    if (const auto [ec] = co_await timer.async_wait(use_tuple); ec) {
      fail(call, "waiting to retry", ec);
    }
  }

  // Streams have no total deadline; a request must have time left after `delay`.
  static bool time_left(const Call& call, Clock::duration delay) {
    return call.streaming || Clock::now() + delay <= call.deadline;
  }

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

  // Holds an HTTP/2 stream; one still open when the scope ends is reset.
  struct StreamLease {
    StreamLease() = default;
    StreamLease(const StreamLease&) = delete;
    StreamLease& operator=(const StreamLease&) = delete;
    StreamLease(StreamLease&&) noexcept = default;
    StreamLease& operator=(StreamLease&&) noexcept = default;
    ~StreamLease() { reset(); }
    void reset() noexcept {
      if (session && stream) {
        session->cancel(*stream);
      }
      session.reset();
      stream.reset();
    }
    std::shared_ptr<H2Session> session;
    std::shared_ptr<H2Stream> stream;
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

  // Sends the request as a stream of `lease.session` and waits for its head (streaming) or its
  // end. The stream goes into `lease` first, so whatever ends the exchange early (an error, a
  // cancellation, the coroutine's destruction) resets it as the lease goes.
  awaitable<void> exchange_h2(StreamLease& lease, Call& call) {
    lease.stream = std::make_shared<H2Stream>(strand_);
    auto& stream = *lease.stream;
    stream.streaming = call.streaming;
    stream.max_body =
        call.streaming ? std::numeric_limits<std::size_t>::max() : options_.max_body_size;
    stream.on_body = call.streaming ? nullptr : call.on_body;
    if (!call.streaming) {
      stream.body = take_spare_body();
    }
    lease.session->submit(call.message, config_.server.authority(), lease.stream);
    // A stream's head must still come in time; only its body may take forever.
    watchdog_->watch(stream, call.streaming ? Clock::now() + options_.timeout : call.deadline);
    const auto settled = [&] {
      if (stream.closed || stream.ended) {
        return true;
      }
      // An error answer to a stream request is a small Status; it is read whole.
      return call.streaming && stream.head_done && stream.status / 100 == 2;
    };
    const auto cancellation = co_await asio::this_coro::cancellation_state;
    while (!settled()) {
      co_await stream.wait();
      if (cancellation.cancelled() != asio::cancellation_type::none) {
        fail(call, stream.received ? "read response" : "send request",
             asio::error::operation_aborted);
      }
    }
    watchdog_->unwatch(stream);
  }

  [[noreturn]] void fail_h2(const Call& call, const H2Stream& stream) const {
    if (!stream.connection_problem.empty()) {
      fail(call, "read response", std::make_error_code(std::errc::timed_out),
           stream.connection_problem);
    }
    if (stream.timed_out) {
      fail_timeout(call, "request", options_.timeout);
    }
    if (stream.too_large) {
      fail(call, "read response", std::make_error_code(std::errc::message_size),
           "the response body exceeds max_body_size (" + std::to_string(options_.max_body_size) +
               " bytes)");
    }
    if (stream.connection_error) {
      fail(call, stream.received ? "read response" : "send request", stream.connection_error);
    }
    fail(call, stream.received ? "read response" : "send request",
         std::make_error_code(std::errc::connection_reset),
         std::string("the server reset the HTTP/2 stream (") +
             nghttp2_http2_strerror(stream.reset_code) + ")");
  }

  void fill_response_h2(const Call& call, H2Stream& stream, HttpResponse& response) {
    // The stream is done with its head: only its body is read from here on.
    response.status = stream.status;
    response.content_type = std::move(stream.content_type);
    response.content_encoding = std::move(stream.content_encoding);
    response.retry_after = std::move(stream.retry_after);
    response.warnings = std::move(stream.warnings);
    if (!stream.ended) {
      return;  // a stream's head; the body follows
    }
    if (response.content_encoding == "gzip") {
      std::string problem;
      auto inflated = detail::gunzip(stream.body, options_.max_body_size, problem);
      if (!inflated) {
        fail(call, "decode response", std::make_error_code(std::errc::bad_message), problem);
      }
      response.body = std::move(*inflated);
      recycle(std::move(stream.body));
    } else {
      response.body = std::move(stream.body);
    }
  }

  awaitable<Outcome> perform(const HttpRequest& request, bool streaming) {
    Call call = prepare(request, streaming);
    bool refreshed_after_401 = false;
    bool retried_stale = false;
    int refusals = 0;
    int retries = 0;
    int transport_retries = 0;
    for (;;) {
      co_await take_rate_token(call);
      co_await refresh_credentials(call, false);
      set_authorization(call.message);
      const std::uint64_t sent_with = credential_generation_;

      // A connection that could not be made (refused, reset in the handshake) for a read is
      // tried again after a backoff; the wait cannot be in the handler (no co_await there).
      Route route;
      std::optional<Clock::duration> connect_wait;
      try {
        route = co_await this->route(call);
      } catch (const Error& e) {
        connect_wait = transport_retry_delay(call, e.code(), transport_retries);
        if (!connect_wait) {
          throw;
        }
      }
      if (connect_wait) {
        co_await wait_to_retry(call, *connect_wait, transport_retries);
        continue;
      }
      Outcome outcome;
      bool stream_open = false;
      Lease lease{*this, std::move(route.connection)};
      if (route.session) {
        const bool reused = route.session->requests > 0;
        if (reused) {
          ++reused_;
        }
        ++h2_streams_;
        outcome.h2.session = std::move(route.session);
        co_await exchange_h2(outcome.h2, call);
        const auto held = outcome.h2.stream;  // outlives the lease's reset below
        auto& stream = *held;
        if (stream.failed()) {  // too_large included: the stream was reset
          outcome.h2.reset();
          // REFUSED_STREAM and streams above a GOAWAY's last id were never processed.
          if (stream.refused && !stream.timed_out && refusals < max_refusals) {
            ++refusals;
            ++retries_;
            continue;
          }
          if (reused && stream.connection_error && !stream.received && !stream.timed_out &&
              call.read && !retried_stale) {
            retried_stale = true;
            ++retries_;
            continue;
          }
          // The connection failed before the caller saw any of the answer (not a health-check
          // timeout): a whole response is delivered only complete, a stream once its head is in.
          if (stream.connection_error && (!stream.received || !call.streaming) &&
              !stream.timed_out && stream.connection_problem.empty()) {
            if (const auto wait = transport_retry_delay(
                    call, std::error_code(stream.connection_error), transport_retries)) {
              co_await wait_to_retry(call, *wait, transport_retries);
              continue;
            }
          }
          fail_h2(call, stream);
        }
        fill_response_h2(call, stream, outcome.response);
        stream_open = streaming && !stream.ended;
        if (!stream_open) {
          outcome.h2.reset();
        }
      } else {
        auto& connection = lease.connection;
        const bool reused = connection->requests > 0;
        if (reused) {
          ++reused_;
        }
        auto parser = std::make_unique<Parser>();
        if (!streaming) {
          parser->get().body() = take_spare_body();
        }
        const Attempt attempt = co_await exchange(*connection, call, *parser);
        if (attempt.ec) {
          release(std::move(connection), false);
          // An idle keep-alive connection may have been closed by the server just before we
          // used it; that shows up as a failure before any response byte and deserves one
          // more try.
          if (reused && !attempt.received && !attempt.timed_out && call.read && !retried_stale) {
            retried_stale = true;
            ++retries_;
            continue;
          }
          if (attempt.timed_out) {
            fail_timeout(call, "request", options_.timeout);
          }
          // As over HTTP/2: nothing of the answer has reached the caller yet.
          if (!attempt.received || !call.streaming) {
            if (const auto wait =
                    transport_retry_delay(call, std::error_code(attempt.ec), transport_retries)) {
              co_await wait_to_retry(call, *wait, transport_retries);
              continue;
            }
          }
          fail(call, attempt.received ? "read response" : "send request", attempt.ec);
        }
        fill_response(call, *parser, outcome.response);
        stream_open = streaming && !parser->is_done();
        if (!stream_open) {
          release(std::move(connection), parser->get().keep_alive());
        } else {
          outcome.parser = std::move(parser);
        }
      }
      // An open stream that is not handed over (a retry, an exception) is closed.
      const auto drop_stream = [&] {
        outcome.h2.reset();
        release(std::move(lease.connection), false);
      };
      // A rotated token file or a re-run plugin may hold a new credential: the server refused
      // the request before acting on it, so sending it once more is safe.
      if (outcome.response.status == 401 && !refreshed_after_401) {
        // Another request may have brought a new credential meanwhile; then none is forced.
        bool renewed = sent_with != credential_generation_;
        if (!renewed) {
          renewed = co_await refresh_credentials(call, true);
        }
        if (renewed) {
          refreshed_after_401 = true;
          drop_stream();
          continue;
        }
      }
      if (const auto delay = retry_delay(call, outcome.response, retries)) {
        drop_stream();
        co_await wait_to_retry(call, *delay, retries);
        continue;
      }
      report_warnings(outcome.response);
      outcome.connection = std::move(lease.connection);
      co_return outcome;
    }
  }

  static awaitable<HttpResponse> send(std::shared_ptr<HttpsTransport> self, HttpRequest request) {
    auto outcome = co_await self->perform(request, false);
    co_return std::move(outcome.response);
  }

  static awaitable<ResponseStream> open(std::shared_ptr<HttpsTransport> self, HttpRequest request);

  asio::any_io_executor executor_;
  Strand strand_;
  std::shared_ptr<Watchdog> watchdog_;  // before the connections, which unwatch as they close
  // Bodies given back by their readers (recycle), for the next responses to be read into.
  std::mutex spare_mutex_;
  std::vector<std::string> spare_bodies_;
  mutable std::mutex config_mutex_;  // config_.token changes on the strand; config() may copy
  ClientConfig config_;
  ClientOptions options_;
  std::string verify_name_;
  bool verify_name_is_ip_ = false;
  std::string origin_;    // https://host:port
  std::string location_;  // origin_ and base path

  std::optional<ProxyConfig> proxy_;  // none: connect directly
  std::shared_ptr<ssl::context> tls_;
  std::uint64_t generation_ = 0;  // of tls_; older connections are not reused

  std::optional<Clock::time_point> token_read_at_;  // last read of config_.token_file
  bool uses_exec_ = false;                          // the exec plugin supplies credentials
  std::optional<ExecCredential> exec_credential_;   // its last answer
  std::optional<double> oidc_expiry_;               // `exp` of the OIDC id-token
  std::shared_ptr<Fetch> fetch_;                    // the credential being fetched, if any
  std::uint64_t fetches_started_ = 0;               // the id of fetch_
  // How a fetch's worker thread reaches this transport; cut by the destructor.
  struct FetchLink {
    std::mutex mutex;
    HttpsTransport* transport = nullptr;
  };
  std::shared_ptr<FetchLink> fetch_link_ = std::make_shared<FetchLink>();
  std::uint64_t credential_generation_ = 0;  // bumped by each change of credential

  Pool pool_{pool_limits(options_)};                  // HTTP/1.1 connections and sessions
  std::vector<std::shared_ptr<H2Session>> sessions_;  // each holds a slot of pool_
  bool h2_connecting_ = false;   // a connection that may become a session is being made
  bool h2_unsupported_ = false;  // the server chose HTTP/1.1

  std::optional<detail::TokenBucket> rate_limit_;  // none: ClientOptions::qps is zero
  detail::Backoff backoff_{options_.retry.initial_backoff, options_.retry.max_backoff,
                           std::random_device{}()};

  std::atomic<std::size_t> opened_{0};
  std::atomic<std::size_t> resumed_{0};
  std::atomic<std::size_t> reused_{0};
  std::atomic<std::size_t> retries_{0};
  std::atomic<std::size_t> exec_runs_{0};
  std::atomic<std::size_t> oidc_refreshes_{0};
  std::atomic<std::size_t> h2_streams_{0};
};

awaitable<ResponseStream> HttpsTransport::open(std::shared_ptr<HttpsTransport> self,
                                               HttpRequest request) {
  auto outcome = co_await self->perform(request, true);
  std::string location = self->location_ + request.target;
  if (outcome.h2.stream) {
    co_return ResponseStream(
        detail::make_h2_stream(self, std::move(outcome.h2.session), std::move(outcome.h2.stream),
                               std::move(location)),
        std::move(outcome.response));
  }
  // Without a connection (an error status, or an empty body) the stream is at its end.
  co_return ResponseStream(
      detail::make_http1_stream(self, std::move(outcome.connection), std::move(outcome.parser),
                                std::move(location)),
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
