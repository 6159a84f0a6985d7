// SPDX-License-Identifier: Apache-2.0
#pragma once

// The typed streams of a response body that goes on: WatchStream (the events of a watch) and
// LogStream (the lines of a followed log), both an ItemStream that cuts and decodes the body's
// items as they arrive.

#include <kubex/client/client.hpp>
#include <kubex/client/inline_guard.hpp>
#include <kubex/client/stream_items.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/compose.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace kubex::client {

namespace detail {

/// The items of a streamed body as they arrive, cut and decoded by `Items` (LineItems,
/// WatchItems). Shared by WatchStream and LogStream.
template <class Items>
class ItemStream {
 public:
  /// What async_next hands out.
  using Result = typename Items::result_type;
  /// Completion signature of async_next: an item, or std::nullopt once the body has ended.
  using Signature = void(std::exception_ptr, std::optional<Result>);

  /// Wraps an open stream whose status is 2xx. With `post_buffered`, an item already buffered
  /// when async_next starts is handed over through `executor` (the client's), never inside
  /// async_next; without, it completes there at once, which costs a post less per item.
  ItemStream(ResponseStream stream, boost::asio::any_io_executor executor, bool post_buffered)
      : stream_(std::move(stream)), executor_(std::move(executor)), post_buffered_(post_buffered) {
    if constexpr (requires(Items & i) { i.configure(stream_.head()); }) {
      items_.configure(stream_.head());
    }
  }

  /// Reads the next item. Fails with what decoding it throws (the stream stays usable) or with the
  /// transport's error (std::errc::operation_canceled after cancel()). Cancellation: terminal,
  /// through the token's slot, fails a pending read with std::errc::operation_canceled.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_next(CompletionToken&& token = {}) {
    // The token as an lvalue: async_compose takes `CompletionToken&`, so forwarding a
    // callback passed as a temporary would not compile.
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token);
  }

  /// Ends the stream from any thread; a pending read fails with operation_canceled.
  void cancel() noexcept { stream_.cancel(); }
  /// Items longer than `bytes` fail async_next with a kubex::Error of std::errc::message_size
  /// (Failure::too_large()), and so does every later read: the stream must be dropped. 0: no
  /// limit.
  void set_max_item_size(std::size_t bytes) noexcept { items_.limit(bytes); }

  /// The response head (status, warnings).
  [[nodiscard]] const HttpResponse& head() const noexcept { return stream_.head(); }

 private:
  struct NextOp {
    ItemStream* self_;
    // An item already buffered before any read is posted, so that the handler never runs
    // inside async_next (several events often arrive in one read, and a caller's handler may
    // hold a lock around async_next).
    InlineGuard inline_guard{};
    // A read completed: 0 bytes is the clean end of the body.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, std::size_t read) {
      inline_guard.waited();
      if (error) {
        self.complete(std::move(error), std::nullopt);
        return;
      }
      if (read == 0) {
        self_->items_.end();
      }
      (*this)(self);
    }
    // Delivers the next complete line, or the rest once the body has ended, or reads more.
    template <class Self>
    void operator()(Self& self) {
      ItemStream& s = *self_;
      if (s.ready_ || s.failed_) {  // taken before a post
        auto error = std::exchange(s.failed_, nullptr);
        auto ready = std::exchange(s.ready_, std::nullopt);
        self.complete(std::move(error), std::move(ready));
        return;
      }
      std::optional<Result> item;
      try {
        if (s.items_.take(item)) {
          if (s.post_buffered_ && inline_guard.inline_now()) {
            s.ready_ = std::move(item);
            inline_guard.post(self, s.executor_);
            return;
          }
          self.complete(nullptr, std::move(item));
          return;
        }
      } catch (...) {
        if (s.post_buffered_ && inline_guard.inline_now()) {
          s.failed_ = std::current_exception();
          inline_guard.post(self, s.executor_);
          return;
        }
        self.complete(std::current_exception(), std::nullopt);
        return;
      }
      s.stream_.async_read_some(s.items_.buffer(), std::move(self));
    }
  };

  ResponseStream stream_;
  boost::asio::any_io_executor executor_;
  bool post_buffered_;
  Items items_;
  std::optional<Result> ready_;  // an item taken, on its way through a post
  std::exception_ptr failed_;    // a parse failure, on its way through a post
};

}  // namespace detail

/// A typed watch: the events of a `watch=true` response, decoded one at a time as they arrive
/// (JSON lines, or protobuf frames with Encoding::protobuf). async_next completes with an event, or
/// std::nullopt when the server ended the watch cleanly (timeoutSeconds elapsed, or it closed the
/// stream; start again from the last resourceVersion seen). An ERROR event is an event, not a
/// failure: see WatchEvent::status. A malformed event fails with a DecodeError and the stream stays
/// usable; an event over default_max_watch_event_size (16 MiB) fails with std::errc::message_size
/// (Failure::too_large()), and ends the stream. Keep the stream alive while an async_next is
/// pending.
template <class Object>
class WatchStream : public detail::ItemStream<detail::WatchItems<Object>> {
 public:
  /// Wraps an open watch whose status is 2xx (see ItemStream for `executor`).
  WatchStream(ResponseStream stream, boost::asio::any_io_executor executor)
      : detail::ItemStream<detail::WatchItems<Object>>(std::move(stream), std::move(executor),
                                                       true) {
    this->set_max_item_size(default_max_watch_event_size);
  }
};

/// The lines of a followed container log (`follow=true`), as they are written: async_next
/// completes with a line without its "\n" (or "\r\n"; a last line without a newline is
/// delivered too), or std::nullopt when the log has ended (the container stopped, or
/// limitBytes was reached).
class LogStream : public detail::ItemStream<detail::LineItems<std::string, detail::ParseLogLine>> {
 public:
  /// Wraps an open log follow whose status is 2xx. A line already buffered completes inside
  /// async_next: a post per line would cost more than the line (stream_logs_n_lines, ab.py).
  LogStream(ResponseStream stream, boost::asio::any_io_executor executor)
      : detail::ItemStream<detail::LineItems<std::string, detail::ParseLogLine>>(
            std::move(stream), std::move(executor), false) {}
};

}  // namespace kubex::client
