// SPDX-License-Identifier: Apache-2.0
#include "detail/h2.hpp"

#include <kubex/client/http.hpp>
#include <kubex/core/error.hpp>

#include "detail/text.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/field.hpp>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <system_error>

namespace kubex::client::detail {
namespace {

namespace http = boost::beast::http;

// Connection-level receive window: large enough that the per-stream windows, not the
// connection's, pace every stream.
constexpr std::int32_t connection_window = std::int32_t{1} << 30U;
// Largest DATA frame the server may send: the 16 KiB default splits a large list into hundreds
// of frames, each a separate write on the server's side.
constexpr std::uint32_t max_frame_size = std::uint32_t{1} << 20U;
// Outgoing bytes gathered before one TLS write.
constexpr std::size_t write_batch = std::size_t{64} * 1024;

// Fields that describe an HTTP/1.1 connection and must not appear in HTTP/2 (RFC 9113 §8.2.2).
bool is_connection_specific(http::field name) {
  return name == http::field::host || name == http::field::connection ||
         name == http::field::keep_alive || name == http::field::proxy_connection ||
         name == http::field::transfer_encoding || name == http::field::upgrade ||
         name == http::field::te;
}

nghttp2_nv make_nv(std::string_view name, std::string_view value) {
  // nghttp2 copies names and values during submission; it does not write through these.
  return nghttp2_nv{const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(name.data())),
                    const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(value.data())),
                    name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
}

std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

H2Stream* stream_of(nghttp2_session* session, std::int32_t id) {
  return static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, id));
}

}  // namespace

// --- H2Stream ------------------------------------------------------------------------------

void H2Stream::expire() noexcept {
  timed_out = true;
  if (session_ != nullptr) {
    session_->cancel(*this);
  }
  notify();
}

awaitable<void> H2Stream::wait() {
  waiting_ = true;
  wake_.expires_at(Clock::time_point::max());
  (void)co_await wake_.async_wait(use_tuple);  // ends when notify() cancels it
  waiting_ = false;
}

void H2Stream::notify() noexcept {
  if (waiting_) {
    try {
      wake_.cancel();
    } catch (...) {  // not seen in practice; the reader would wait for the next event
    }
  }
}

// --- callbacks -----------------------------------------------------------------------------

struct H2Session::Callbacks {
  static int on_header(nghttp2_session* session, const nghttp2_frame* frame,
                       const std::uint8_t* name, std::size_t namelen, const std::uint8_t* value,
                       std::size_t valuelen, std::uint8_t /*flags*/, void* /*user_data*/) {
    if (frame->hd.type != NGHTTP2_HEADERS) {
      return 0;
    }
    H2Stream* s = stream_of(session, frame->hd.stream_id);
    if (s == nullptr || s->head_done) {
      return 0;  // trailers carry nothing the client uses
    }
    const auto n = view(name, namelen);
    const auto v = view(value, valuelen);
    if (n == ":status") {
      unsigned status = 0;
      for (const char c : v) {
        status = status * 10 + static_cast<unsigned>(c - '0');  // nghttp2 checked: 3 digits
      }
      s->status = status;
    } else if (n == "content-type") {
      s->content_type.assign(v);
    } else if (n == "content-encoding") {
      s->content_encoding.assign(v);
    } else if (n == "retry-after") {
      s->retry_after.assign(v);
    } else if (n == "warning") {
      parse_warning_header(v, s->warnings);
    }
    return 0;
  }

  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    auto* self = static_cast<H2Session*>(user_data);
    if (frame->hd.type == NGHTTP2_GOAWAY) {
      self->goaway_ = true;  // streams above its last id are closed as refused by nghttp2
      return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) {
      return 0;
    }
    H2Stream* s = stream_of(session, frame->hd.stream_id);
    if (s == nullptr) {
      return 0;
    }
    s->received = true;
    if (frame->hd.type == NGHTTP2_HEADERS && !s->head_done) {
      if (s->status / 100 == 1) {
        s->status = 0;  // an interim answer; the final head follows
        return 0;
      }
      s->head_done = true;
      s->observed = s->observer && s->observer->start(s->body, s->status, s->content_encoding);
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
      s->ended = true;
    }
    s->notify();
    return 0;
  }

  static int on_data_chunk(nghttp2_session* session, std::uint8_t /*flags*/, std::int32_t id,
                           const std::uint8_t* data, std::size_t len, void* user_data) {
    nghttp2_session_consume_connection(session, len);
    H2Stream* s = stream_of(session, id);
    if (s == nullptr) {
      return 0;
    }
    s->received = true;
    s->body_bytes += len;
    if (s->body_bytes > s->max_body) {
      s->too_large = true;
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
      s->notify();
      return 0;
    }
    s->body.append(reinterpret_cast<const char*>(data), len);
    if (!s->streaming) {
      nghttp2_session_consume_stream(session, id, len);
    }
    // The reader sees the body once per read from the connection, not once per chunk: a
    // TLS record often holds the end of one DATA frame and the start of the next.
    if (s->observed && !s->grown_) {
      s->grown_ = true;
      static_cast<H2Session*>(user_data)->grown_.push_back(s->shared_from_this());
    }
    s->notify();
    return 0;
  }

  static int on_stream_close(nghttp2_session* session, std::int32_t id, std::uint32_t error_code,
                             void* user_data) {
    H2Stream* s = stream_of(session, id);
    if (s == nullptr) {
      return 0;
    }
    if (!s->ended) {
      s->reset_code = error_code;
      s->refused = s->refused || error_code == NGHTTP2_REFUSED_STREAM;
    }
    static_cast<H2Session*>(user_data)->forget(*s);
    return 0;
  }

  static int on_frame_not_send(nghttp2_session* session, const nghttp2_frame* frame,
                               int /*lib_error_code*/, void* /*user_data*/) {
    if (frame->hd.type == NGHTTP2_HEADERS) {
      if (H2Stream* s = stream_of(session, frame->hd.stream_id)) {
        s->refused = true;  // never left the client
      }
    }
    return 0;
  }

  static ssize_t read_body(nghttp2_session* /*session*/, std::int32_t /*id*/, std::uint8_t* buf,
                           std::size_t length, std::uint32_t* data_flags,
                           nghttp2_data_source* source, void* /*user_data*/) {
    auto* s = static_cast<H2Stream*>(source->ptr);
    const std::size_t n = std::min(length, s->request_body.size() - s->request_sent);
    std::memcpy(buf, s->request_body.data() + s->request_sent, n);
    s->request_sent += n;
    if (s->request_sent == s->request_body.size()) {
      *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    return static_cast<ssize_t>(n);
  }
};

// --- H2Session -----------------------------------------------------------------------------

H2Session::H2Session(std::unique_ptr<Connection> connection, Limits limits,
                     std::shared_ptr<Watchdog> watchdog)
    : connection_(std::move(connection)), limits_(limits), watchdog_(std::move(watchdog)) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_option* option = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) {
    throw std::bad_alloc();
  }
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Callbacks::on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Callbacks::on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Callbacks::on_data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Callbacks::on_stream_close);
  nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks,
                                                           &Callbacks::on_frame_not_send);
  int rv = nghttp2_option_new(&option);
  if (rv == 0) {
    // Credit goes back as the application takes data, so a slow stream reader holds back only
    // its own stream.
    nghttp2_option_set_no_auto_window_update(option, 1);
    rv = nghttp2_session_client_new2(&session_, callbacks, this, option);
    nghttp2_option_del(option);
  }
  nghttp2_session_callbacks_del(callbacks);
  if (rv != 0) {
    throw std::bad_alloc();
  }
}

H2Session::~H2Session() {
  if (watchdog_) {
    watchdog_->unwatch(*this);
  }
  for (auto& [id, stream] : streams_) {
    stream->session_ = nullptr;
  }
  nghttp2_session_del(session_);
}

// Any frame from the server proves the connection alive: the check starts over. Called on the
// strand while streams are open; with none the session stops reading and is not watched.
void H2Session::watch_health() {
  pinging_ = false;
  if (limits_.read_idle.count() > 0 && !failed_) {
    watchdog_->watch(*this, Clock::now() + limits_.read_idle);
  }
}

void H2Session::expire() noexcept {
  if (failed_ || streams_.empty()) {
    return;
  }
  if (!pinging_) {
    pinging_ = true;
    if (nghttp2_submit_ping(session_, NGHTTP2_FLAG_NONE, nullptr) == 0) {
      try {
        flush();
        watchdog_->watch(*this, Clock::now() + limits_.ping_timeout);
        return;
      } catch (...) {  // without memory for the PING, give the connection up below
      }
    }
  }
  // The peer, or the path to it, is gone: the streams fail now rather than wait for TCP.
  std::string problem;
  try {
    problem = "the HTTP/2 connection answered no PING for " +
              std::to_string(limits_.ping_timeout.count()) + " ms after " +
              std::to_string(limits_.read_idle.count()) + " ms of silence";
  } catch (...) {  // without memory the streams fail as timed out, unexplained
  }
  connection_->timed_out = true;  // so the streams see a timeout
  fail(beast::error::timeout, problem);
}

void H2Session::fail_stream(H2Stream& stream, const boost_error& ec, const std::string& problem) {
  stream.connection_error = ec;
  try {
    stream.connection_problem = problem;
  } catch (...) {  // the error code still says what happened
  }
  stream.closed = true;
  stream.session_ = nullptr;
  stream.notify();
}

void H2Session::start() {
  const std::array<nghttp2_settings_entry, 3> settings{{
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits_.stream_window},
      {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, max_frame_size},
  }};
  int rv = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  if (rv == 0) {
    rv = nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, connection_window);
  }
  if (rv != 0) {
    throw Error(std::make_error_code(std::errc::protocol_error),
                std::string("HTTP/2 settings: ") + nghttp2_strerror(rv));
  }
  flush();
}

bool H2Session::has_room() const noexcept {
  return alive() && streams_.size() < nghttp2_session_get_remote_settings(
                                          session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
}

void H2Session::submit(const http::request<http::string_body>& message, std::string_view authority,
                       const std::shared_ptr<H2Stream>& stream) {
  // HTTP/2 field names are lower case; they are copied first, so that `nv` can point into a
  // vector that no longer moves.
  std::vector<std::string> names;
  for (const auto& field : message) {
    if (!is_connection_specific(field.name())) {
      const auto name = field.name_string();
      names.push_back(ascii_lower(std::string_view(name.data(), name.size())));
    }
  }
  std::vector<nghttp2_nv> nv;
  nv.reserve(names.size() + 4);
  const auto method = message.method_string();
  nv.push_back(make_nv(":method", std::string_view(method.data(), method.size())));
  nv.push_back(make_nv(":scheme", "https"));
  nv.push_back(make_nv(":authority", authority));
  const auto target = message.target();
  nv.push_back(make_nv(":path", std::string_view(target.data(), target.size())));
  std::size_t next = 0;
  for (const auto& field : message) {
    if (!is_connection_specific(field.name())) {
      const auto value = field.value();
      nv.push_back(make_nv(names[next++], std::string_view(value.data(), value.size())));
    }
  }
  stream->request_body = message.body();
  stream->request_sent = 0;
  const bool with_body = !message.body().empty() || message.method() == http::verb::post ||
                         message.method() == http::verb::put ||
                         message.method() == http::verb::patch;
  nghttp2_data_provider provider{};
  provider.source.ptr = stream.get();
  provider.read_callback = &Callbacks::read_body;
  const std::int32_t id = nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(),
                                                 with_body ? &provider : nullptr, stream.get());
  if (id < 0) {
    throw Error(std::make_error_code(std::errc::protocol_error),
                std::string("HTTP/2 request: ") + nghttp2_strerror(id));
  }
  stream->session_ = this;
  stream->id_ = id;
  streams_.emplace(id, stream);
  ++requests;
  ensure_reading();
  flush();
}

void H2Session::consume(H2Stream& stream, std::size_t n) {
  if (stream.session_ == this && !failed_ && n > 0) {
    nghttp2_session_consume_stream(session_, stream.id_, n);
    flush();
  }
}

void H2Session::cancel(H2Stream& stream) {
  if (stream.session_ != this || failed_) {
    return;
  }
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id_, NGHTTP2_CANCEL);
  flush();
}

void H2Session::close() {
  if (!failed_) {
    fail(asio::error::operation_aborted);
  }
}

void H2Session::forget(H2Stream& stream) {
  stream.closed = true;
  stream.session_ = nullptr;
  stream.notify();
  const auto it = streams_.find(stream.id_);
  if (it != streams_.end()) {
    // The map may hold the last reference: keep the stream alive past the erase.
    const auto keep = std::move(it->second);
    streams_.erase(it);
  }
  if (streams_.empty()) {
    idle_since = Clock::now();
  }
}

void H2Session::fail(const boost_error& ec, const std::string& problem) {
  failed_ = true;
  watchdog_->unwatch(*this);
  connection_->close();
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, stream] : streams) {
    fail_stream(*stream, connection_->outcome(ec), problem);
  }
}

// The reader and the writer are plain completion handlers, not coroutines: a request would
// otherwise pay for two coroutine frames (about a tenth of a small GET's instructions).

void H2Session::flush() {
  if (writing_ || failed_ || nghttp2_session_want_write(session_) == 0) {
    return;
  }
  writing_ = true;
  write_next();
}

void H2Session::write_next() {
  out_.clear();
  while (out_.size() < write_batch) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      writing_ = false;
      fail(make_error_code(boost::system::errc::protocol_error));
      return;
    }
    if (n == 0) {
      break;
    }
    out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  if (out_.empty() || failed_) {
    writing_ = false;
    park_if_idle();
    return;
  }
  asio::async_write(connection_->stream, asio::buffer(out_),
                    [self = shared_from_this()](const boost_error& ec, std::size_t /*n*/) {
                      if (ec) {
                        self->writing_ = false;
                        if (!self->failed_) {
                          self->fail(ec);
                        }
                        return;
                      }
                      self->write_next();
                    });
}

void H2Session::ensure_reading() {
  if (reading_ || failed_) {
    return;
  }
  reading_ = true;
  watch_health();
  read_next();
}

void H2Session::read_next() {
  if (failed_ || streams_.empty()) {
    reading_ = false;  // parked, or done
    parking_ = false;
    watchdog_->unwatch(*this);
    return;
  }
  connection_->stream.async_read_some(
      asio::buffer(in_),
      [self = shared_from_this()](const boost_error& ec, std::size_t n) { self->on_read(ec, n); });
}

void H2Session::on_read(const boost_error& ec, std::size_t n) {
  const bool parked = std::exchange(parking_, false);
  if (failed_) {
    reading_ = false;
    return;
  }
  if (ec == asio::error::operation_aborted && parked && !connection_->timed_out) {
    read_next();  // cancelled for idleness; a stream may have come since
    return;
  }
  if (ec) {
    reading_ = false;
    fail(ec);
    return;
  }
  watch_health();
  const ssize_t rv = nghttp2_session_mem_recv(session_, in_.data(), n);
  for (const auto& stream : grown_) {
    stream->grown_ = false;
    if (!stream->undecodable && !stream->observer->grow(stream->body)) {
      stream->undecodable = true;
      cancel(*stream);
    }
  }
  grown_.clear();
  if (rv < 0) {
    reading_ = false;
    fail(make_error_code(boost::system::errc::protocol_error));
    return;
  }
  flush();
  if (goaway_ && streams_.empty()) {
    reading_ = false;
    fail(asio::error::eof);  // the server is done with this connection
    return;
  }
  read_next();
}

// With no stream left the pending read is cancelled, so that the connection does not keep the
// io_context busy while idle; the next stream reads on (and handles any GOAWAY that came).
void H2Session::park_if_idle() {
  if (reading_ && !parking_ && streams_.empty() && !writing_ && !failed_) {
    parking_ = true;
    boost_error ignored;
    connection_->tcp().cancel(ignored);
  }
}

}  // namespace kubex::client::detail
