// SPDX-License-Identifier: Apache-2.0
#pragma once

// The transport's I/O building blocks, shared by its HTTP/1.1 connections and HTTP/2 sessions:
// the concrete strand executor every I/O object and coroutine runs on, the TLS connection,
// the watchdog that enforces deadlines with one timer, and the waiter a coroutine parks in.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/ip/basic_resolver.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace kubex::client::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using boost_error = boost::system::error_code;
using Clock = std::chrono::steady_clock;

// The executor the transport was given, with its answer to `execution::blocking` kept. A
// strand asks its executor that on every execute (to know whether the function may run at
// once), and any_io_executor answers it through a heap-allocated result: four allocations per
// pod of a large list. Requiring or preferring anything but a blocking property leaves the
// answer as it was.
class BaseExecutor {
 public:
  // A template, so that copying a BaseExecutor does not ask whether it converts to
  // any_io_executor, whose constructor asks whether BaseExecutor is an executor: a cycle.
  template <class E>
    requires std::is_same_v<std::remove_cvref_t<E>, asio::any_io_executor>
  explicit BaseExecutor(E&& executor)
      : executor_(std::forward<E>(executor)),
        blocking_(asio::query(executor_, asio::execution::blocking)) {}
  BaseExecutor(asio::any_io_executor executor, asio::execution::blocking_t answer) noexcept
      : executor_(std::move(executor)), blocking_(answer) {}

  template <class F>
  void execute(F&& f) const {
    executor_.execute(std::forward<F>(f));
  }
  [[nodiscard]] asio::execution::blocking_t query(asio::execution::blocking_t) const noexcept {
    return blocking_;
  }
  template <class P>
    requires asio::can_query<const asio::any_io_executor&, P>::value decltype(auto)
  query(const P& p) const {
    return asio::query(executor_, p);
  }
  template <class P>
    requires asio::can_require<const asio::any_io_executor&, P>::value
  BaseExecutor require(const P& p) const {
    // A required blocking property is what the result has.
    if constexpr (std::is_same_v<P, Blocking::never_t> || std::is_same_v<P, Blocking::always_t> ||
                  std::is_same_v<P, Blocking::possibly_t>) {
      return BaseExecutor(asio::require(executor_, p), Blocking(p));
    } else {
      return BaseExecutor(asio::require(executor_, p), blocking_);
    }
  }
  template <class P>
    requires asio::can_prefer<const asio::any_io_executor&, P>::value
  BaseExecutor prefer(const P& p) const {
    if constexpr (std::is_same_v<P, Blocking::never_t>) {
      // Maybe not granted; answering `never` only keeps a strand from running inline.
      return BaseExecutor(asio::prefer(executor_, p), Blocking::never);
    } else if constexpr (std::is_same_v<P, Blocking::always_t> ||
                         std::is_same_v<P, Blocking::possibly_t>) {
      return BaseExecutor(asio::prefer(executor_, p));  // asks what was granted
    } else {
      return BaseExecutor(asio::prefer(executor_, p), blocking_);
    }
  }
  friend bool operator==(const BaseExecutor& a, const BaseExecutor& b) noexcept {
    return a.executor_ == b.executor_;
  }
  friend bool operator!=(const BaseExecutor& a, const BaseExecutor& b) noexcept {
    return a.executor_ != b.executor_;
  }

 private:
  using Blocking = asio::execution::blocking_t;

  asio::any_io_executor executor_;
  asio::execution::blocking_t blocking_;
};

// The transport's strand as the executor of every I/O object and coroutine, by its concrete
// type: behind an any_io_executor, each asynchronous step would type-erase the strand again
// to track work on a heap-allocated copy (thousands of allocations for one large list). It
// offers only the standard executor interface: strand<any_io_executor> also declares the
// older one, which Beast would pick and any_io_executor cannot serve.
class Strand {
 public:
  using Inner = asio::strand<BaseExecutor>;
  explicit Strand(Inner inner) noexcept : inner_(std::move(inner)) {}

  template <class F>
  void execute(F&& f) const {
    inner_.execute(std::forward<F>(f));
  }
  template <class P>
    requires asio::can_query<const Inner&, P>::value decltype(auto)
  query(const P& p) const noexcept {
    return asio::query(inner_, p);
  }
  template <class P>
    requires asio::can_require<const Inner&, P>::value
  Strand require(const P& p) const {
    return Strand(asio::require(inner_, p));
  }
  template <class P>
    requires asio::can_prefer<const Inner&, P>::value
  Strand prefer(const P& p) const {
    return Strand(asio::prefer(inner_, p));
  }
  friend bool operator==(const Strand& a, const Strand& b) noexcept { return a.inner_ == b.inner_; }
  friend bool operator!=(const Strand& a, const Strand& b) noexcept { return a.inner_ != b.inner_; }

 private:
  Inner inner_;
};
template <class T>
using awaitable = asio::awaitable<T, Strand>;
using TcpSocket = asio::basic_stream_socket<tcp, Strand>;
// Beast's ssl_stream rather than Asio's: it gathers a message's buffers into one TLS record.
using TlsStream = beast::ssl_stream<TcpSocket>;
using Timer = asio::basic_waitable_timer<Clock, asio::wait_traits<Clock>, Strand>;
using Resolver = asio::ip::basic_resolver<tcp, Strand>;

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable_t<Strand>{});

// A coroutine waiting for something the strand will hand it (a pooled connection, a fetched
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

class Watchdog;

// Something with a deadline the watchdog enforces: a connection (closed when late) or an
// HTTP/2 stream (reset when late, its connection carrying on).
class Watched {
 public:
  Watched() = default;
  Watched(const Watched&) = delete;
  Watched& operator=(const Watched&) = delete;

  // Called on the strand once the deadline has passed; the watchdog has let go of it.
  virtual void expire() noexcept = 0;

 protected:
  virtual ~Watched();

 private:
  friend class Watchdog;
  Watchdog* watched_by_ = nullptr;  // while a deadline is set
  Clock::time_point deadline_ = Clock::time_point::max();
};

// The deadlines of a transport's connections and streams (connect, TLS handshake, request, a
// stream's idle limit), watched by one timer. Beast's timed stream re-arms a timer around every
// read and write: a timerfd_settime system call and a cancelled wait to dispatch, several times
// per request. Here a deadline is a store; the timer wakes when the earliest one may have
// passed, expires what is late and sleeps until the next. With nothing watched it is
// cancelled, so that an idle transport does not keep its io_context running. Used on the
// transport's strand only.
class Watchdog : public std::enable_shared_from_this<Watchdog> {
 public:
  explicit Watchdog(const Strand& strand) : timer_(strand) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Expires `item` at `deadline` unless unwatched (or watched again) before.
  void watch(Watched& item, Clock::time_point deadline);
  void unwatch(Watched& item) noexcept;

 private:
  void arm(Clock::time_point when);
  void on_alarm();

  Timer timer_;
  std::vector<Watched*> watched_;
  Clock::time_point alarm_ = Clock::time_point::max();  // of the pending wait; max: none
};

// One TLS connection and its receive buffer. Late, it is closed: its pending operations fail
// and `timed_out` says why.
struct Connection final : Watched {
  Connection(const Strand& strand, std::shared_ptr<ssl::context> context, std::uint64_t gen)
      : tls(std::move(context)), stream(strand, *tls), generation(gen) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() = default;

  [[nodiscard]] TcpSocket& tcp() { return beast::get_lowest_layer(stream); }

  // Closes the socket without TLS close_notify: waiting for the peer's reply could block, and
  // the apiserver does not need it to release the connection.
  void close() noexcept {
    boost_error ignored;
    tcp().close(ignored);
  }

  void expire() noexcept override {
    timed_out = true;
    close();
  }

  // The error an operation on this connection ended with, as the caller should see it: the
  // watchdog closed the socket under it because a deadline passed.
  [[nodiscard]] boost_error outcome(const boost_error& ec) const {
    return timed_out ? boost_error(beast::error::timeout) : ec;
  }

  std::shared_ptr<ssl::context> tls;  // the stream refers to it
  TlsStream stream;
  beast::flat_buffer buffer;
  Clock::time_point idle_since{};
  std::size_t requests = 0;
  std::uint64_t generation = 0;  // of the TLS settings it was made with
  bool timed_out = false;        // the watchdog closed it (for good)
  bool http2 = false;            // the handshake selected "h2"
};

}  // namespace kubex::client::detail
