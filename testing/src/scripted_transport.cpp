// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <deque>
#include <mutex>
#include <utility>

namespace kubex::testing {

namespace asio = boost::asio;

struct ScriptedTransport::State {
  asio::any_io_executor executor;
  client::ClientConfig config;
  mutable std::mutex mutex;
  std::deque<Step> script;
  std::vector<client::HttpRequest> requests;
  std::vector<std::string> problems;
  std::size_t played = 0;
};

namespace {

std::string describe(const client::HttpRequest& request) {
  return request.method + " " + request.target;
}

// Takes the step `request` plays, or records why none does. Under no lock.
std::optional<Step> take_step(ScriptedTransport::State& state, const client::HttpRequest& request,
                              std::string& problem) {
  const std::lock_guard lock(state.mutex);
  client::HttpRequest recorded = request;
  recorded.on_body = nullptr;
  state.requests.push_back(std::move(recorded));
  if (state.script.empty()) {
    problem = "ScriptedTransport: unexpected request " + describe(request) +
              " after the end of the script";
  } else {
    const Step& next = state.script.front();
    if (next.method != request.method || next.target != request.target) {
      problem = "ScriptedTransport: request " + describe(request) + ", but step " +
                std::to_string(state.played + 1) + " expects " + next.method + " " + next.target;
    } else if (next.check && !next.check(request)) {
      problem = "ScriptedTransport: request " + describe(request) + " fails the check of step " +
                std::to_string(state.played + 1);
    }
  }
  if (!problem.empty()) {
    state.problems.push_back(problem);
    return std::nullopt;
  }
  Step step = std::move(state.script.front());
  state.script.pop_front();
  ++state.played;
  return step;
}

[[noreturn]] void fail(const client::HttpRequest& request, std::error_code code,
                       const std::string& what) {
  throw Error(code, describe(request) + ": " + what);
}

using Timer = asio::steady_timer;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// The body of a scripted stream, piece by piece, each read a coroutine on the transport's
// executor. cancel() may come from any thread: it is carried to the executor.
class ScriptedStream final : public client::ResponseStream::Impl {
 public:
  using ReadHandler = asio::any_completion_handler<void(std::exception_ptr, std::size_t)>;

  ScriptedStream(const asio::any_io_executor& executor, client::HttpRequest request, Step step)
      : state_(std::make_shared<Shared>(executor, std::move(request), std::move(step))) {}

  void async_read_some(std::string& out, ReadHandler handler) override {
    asio::co_spawn(state_->executor, read(state_, &out), std::move(handler));
  }

  void cancel() noexcept override {
    state_->cancelled = true;
    asio::post(state_->executor, [state = state_] { state->timer.cancel(); });
  }

 private:
  struct Shared {
    Shared(const asio::any_io_executor& ex, client::HttpRequest r, Step step)
        : executor(ex),
          request(std::move(r)),
          pieces(std::move(step.stream)),
          hold_open(step.hold_open),
          timer(ex) {}
    asio::any_io_executor executor;
    client::HttpRequest request;
    std::vector<StreamPiece> pieces;
    bool hold_open;
    Timer timer;
    std::size_t next = 0;
    std::atomic<bool> cancelled{false};
  };

  static asio::awaitable<std::size_t> read(std::shared_ptr<Shared> s, std::string* out) {
    const auto cancelled = [&s] {
      fail(s->request, std::make_error_code(std::errc::operation_canceled),
           "read response: cancelled");
    };
    if (s->cancelled) {
      cancelled();
    }
    if (s->next == s->pieces.size()) {
      if (!s->hold_open) {
        co_return 0;  // the body's clean end
      }
      s->timer.expires_at(Timer::time_point::max());
      co_await s->timer.async_wait(use_tuple);  // until cancel()
      cancelled();
    }
    const StreamPiece& piece = s->pieces[s->next++];
    s->timer.expires_after(piece.delay);
    co_await s->timer.async_wait(use_tuple);
    if (s->cancelled) {
      cancelled();  // `out` may be gone
    }
    if (piece.error) {
      fail(s->request, *piece.error, "read response: " + piece.error->message());
    }
    out->append(piece.bytes);
    co_return piece.bytes.size();
  }

  std::shared_ptr<Shared> state_;
};

// Waits `delay` on `executor`, if any.
asio::awaitable<void> pause(std::chrono::milliseconds delay) {
  if (delay.count() > 0) {
    Timer timer(co_await asio::this_coro::executor, delay);
    co_await timer.async_wait(use_tuple);
  }
}

// The step `request` plays, after its delay; a mismatch or the step's fault is thrown.
asio::awaitable<Step> play(ScriptedTransport::State& state, const client::HttpRequest& request) {
  std::string problem;
  auto step = take_step(state, request, problem);
  if (!step) {
    throw Error(std::make_error_code(std::errc::protocol_error), problem);
  }
  co_await pause(step->delay);
  if (step->fault) {
    fail(request, *step->fault, "send request: " + step->fault->message());
  }
  co_return std::move(*step);
}

asio::awaitable<client::HttpResponse> send(std::shared_ptr<ScriptedTransport::State> state,
                                           client::HttpRequest request) {
  Step step = co_await play(*state, request);
  client::HttpResponse response = std::move(step.response);
  if (request.on_body) {
    // As the real transport: the head first, then the body as it arrives, shown to the reader
    // for a 2xx answer without content encoding; the reader may consume from the front.
    std::string body;
    request.on_body(body, true);
    const bool shown = response.status / 100 == 2 && response.content_encoding.empty();
    const std::string whole = std::move(response.body);
    const std::size_t piece = step.piece_size == 0 ? whole.size() : step.piece_size;
    for (std::size_t at = 0; at < whole.size(); at += piece) {
      body.append(whole, at, piece);
      if (shown) {
        request.on_body(body, false);
      }
    }
    response.body = std::move(body);
  }
  co_return response;
}

asio::awaitable<client::ResponseStream> open(std::shared_ptr<ScriptedTransport::State> state,
                                             client::HttpRequest request) {
  Step step = co_await play(*state, request);
  client::HttpResponse head = std::move(step.response);
  if (head.status / 100 != 2) {
    // As the real transport: an error's whole (small) body is in the head, and no stream.
    step.stream.clear();
    step.hold_open = false;
  } else {
    head.body.clear();
  }
  auto impl = std::make_unique<ScriptedStream>(state->executor, request, std::move(step));
  co_return client::ResponseStream(std::move(impl), std::move(head));
}

}  // namespace

ScriptedTransport::ScriptedTransport(asio::any_io_executor executor, client::ClientConfig config)
    : state_(std::make_shared<State>()) {
  state_->executor = std::move(executor);
  state_->config = std::move(config);
}

ScriptedTransport& ScriptedTransport::expect(Step step) {
  const std::lock_guard lock(state_->mutex);
  state_->script.push_back(std::move(step));
  return *this;
}

ScriptedTransport& ScriptedTransport::respond(std::string method, std::string target,
                                              unsigned status, std::string body) {
  Step step;
  step.method = std::move(method);
  step.target = std::move(target);
  step.response.status = status;
  step.response.body = std::move(body);
  return expect(std::move(step));
}

std::vector<client::HttpRequest> ScriptedTransport::requests() const {
  const std::lock_guard lock(state_->mutex);
  return state_->requests;
}

std::size_t ScriptedTransport::remaining() const {
  const std::lock_guard lock(state_->mutex);
  return state_->script.size();
}

std::string ScriptedTransport::verify() const {
  const std::lock_guard lock(state_->mutex);
  std::string out;
  for (const auto& problem : state_->problems) {
    out += problem + "\n";
  }
  if (!state_->script.empty()) {
    const Step& next = state_->script.front();
    out += "ScriptedTransport: " + std::to_string(state_->script.size()) +
           " step(s) never played, the first " + next.method + " " + next.target + "\n";
  }
  return out;
}

asio::any_io_executor ScriptedTransport::get_executor() const {
  return state_->executor;
}

void ScriptedTransport::async_send(client::HttpRequest request,
                                   asio::any_completion_handler<client::RequestSignature> handler) {
  asio::co_spawn(state_->executor, send(state_, std::move(request)), std::move(handler));
}

void ScriptedTransport::async_open(client::HttpRequest request,
                                   asio::any_completion_handler<client::StreamSignature> handler) {
  asio::co_spawn(state_->executor, open(state_, std::move(request)), std::move(handler));
}

client::TransportStats ScriptedTransport::stats() const {
  return {};
}

client::ClientConfig ScriptedTransport::config() const {
  const std::lock_guard lock(state_->mutex);
  return state_->config;
}

}  // namespace kubex::testing
