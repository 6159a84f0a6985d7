// SPDX-License-Identifier: Apache-2.0
// The watcher through kubex::testing::ScriptedTransport: what it does with each answer a
// server can give (pages, clean ends, 410 as a status or as an ERROR event, refusals, streams
// that close at once or send what does not decode), with every request it makes checked. The
// script is a test double, used here for faults the real apiserver cannot show on cue; the
// same watcher runs against the real control plane in tests/integration/watcher_test.cpp.

#include <kubex/client/api.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/request.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/reflector.hpp>
#include <kubex/runtime/watcher.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include "pod_script.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using kubex::Failure;
using kubex::client::Api;
using kubex::client::Client;
using kubex::runtime::Watcher;
using kubex::runtime::WatcherConfig;
using kubex::runtime::WatcherEventType;
using kubex::testing::ScriptedTransport;
using kubex::testing::Step;
using kubex::testing::StreamPiece;
using namespace std::chrono_literals;
using namespace kubex::test_pods;

std::string status_json(int code, const std::string& reason) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m",)"
         R"("reason":")" +
         reason + R"(","code":)" + std::to_string(code) + "}";
}

std::string bookmark(const std::string& rv) {
  return event("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                               rv + R"("}})");
}

// What one async_next gave.
struct Next {
  std::exception_ptr error;
  kubex::runtime::WatcherEvent<core::Pod> event;
  [[nodiscard]] std::string text() const {
    if (error) {
      return "error";
    }
    switch (event.type) {
      case WatcherEventType::init:
        return "init";
      case WatcherEventType::init_apply:
        return "init_apply " + event.object.metadata.name.value_or("?");
      case WatcherEventType::init_done:
        return "init_done";
      case WatcherEventType::apply:
        return "apply " + event.object.metadata.name.value_or("?");
      case WatcherEventType::deleted:
        return "deleted " + event.object.metadata.name.value_or("?");
    }
    return "?";
  }
};

class watcher_scripted_test : public ::testing::Test {
 protected:
  watcher_scripted_test()
      : transport_(std::make_shared<ScriptedTransport>(ioc_.get_executor())), client_(transport_) {}

  void TearDown() override { EXPECT_EQ(transport_->verify(), ""); }

  // A config whose requests the script can name: fixed watch timeout, short backoff.
  static WatcherConfig config() {
    WatcherConfig c;
    c.page_size = 2;
    c.jitter_watch_timeout = false;
    c.backoff = {.initial = 40ms, .max = 1s, .factor = 2.0, .jitter = 0.0};
    return c;
  }

  Watcher<core::Pod> watcher(WatcherConfig c = config()) {
    return Watcher<core::Pod>(Api<core::Pod>::namespaced(client_, "ns"), std::move(c));
  }

  // Runs the loop until `ready()`, as a caller waiting for a result does.
  void run_until(const std::function<bool()>& ready) {
    while (!ready()) {
      if (ioc_.run_one() == 0) {
        ioc_.restart();  // it ran out of work earlier and stopped
      }
    }
  }

  Next next(Watcher<core::Pod>& w) {
    std::optional<Next> out;
    w.async_next([&out](std::exception_ptr error, kubex::runtime::WatcherEvent<core::Pod> e) {
      out = Next{std::move(error), std::move(e)};
    });
    run_until([&] { return out.has_value(); });
    return std::move(*out);
  }

  std::vector<std::string> take(Watcher<core::Pod>& w, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(next(w).text());
    }
    return out;
  }

  // Cancels `w` while an async_next waits, and checks that it ends as canceled.
  void cancel_pending(Watcher<core::Pod>& w) {
    std::optional<std::exception_ptr> out;
    w.async_next([&out](std::exception_ptr error, auto) { out = std::move(error); });
    ioc_.restart();
    ioc_.poll();
    w.cancel();
    run_until([&] { return out.has_value(); });
    EXPECT_TRUE(Failure(*out).canceled());
  }

  boost::asio::io_context ioc_;
  std::shared_ptr<ScriptedTransport> transport_;
  Client client_;
};

TEST_F(watcher_scripted_test, lists_in_pages_then_delivers_changes_and_swallows_bookmarks) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "100", "t1"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t1", 200, pod_list({"c"}, "100"));
  transport_->expect(
      watch_step("100",
                 {event("ADDED", pod_json("d", "101")), bookmark("105"),
                  event("MODIFIED", pod_json("a", "106")), event("DELETED", pod_json("b", "107"))},
                 true));
  auto w = watcher();
  EXPECT_EQ(take(w, 8),
            (std::vector<std::string>{"init", "init_apply a", "init_apply b", "init_apply c",
                                      "init_done", "apply d", "apply a", "deleted b"}));
  EXPECT_EQ(w.resource_version(), "107");
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 2U);
  EXPECT_EQ(w.stats().watch_requests, 1U);
  EXPECT_EQ(w.stats().errors, 0U);
}

TEST_F(watcher_scripted_test, a_burst_of_events_in_one_read_is_delivered_event_by_event) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  // One read brings four lines: each after the first is already buffered when asked for.
  transport_->expect(
      watch_step("10",
                 {event("ADDED", pod_json("a", "11")) + bookmark("12") +
                  event("MODIFIED", pod_json("b", "13")) + event("DELETED", pod_json("a", "14"))},
                 true));
  auto w = watcher();
  EXPECT_EQ(take(w, 5),
            (std::vector<std::string>{"init", "init_done", "apply a", "apply b", "deleted a"}));
  EXPECT_EQ(w.resource_version(), "14");
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_buffered_event_completes_a_future_on_the_loop_that_waits_for_it) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step(
      "10", {event("ADDED", pod_json("a", "11")) + event("ADDED", pod_json("b", "12"))}, true));
  auto w = watcher();
  // As BlockingClient waits: run this loop until the future is ready. Other work keeps the
  // loop from running dry (a real client has connections and timers), so a completion handed
  // to another thread (a future's own executor) would leave run_one_for waiting its full time.
  const auto busy = boost::asio::make_work_guard(ioc_);
  const auto wait = [this](auto future) {
    const auto start = std::chrono::steady_clock::now();
    while (future.wait_for(0s) != std::future_status::ready) {
      if (ioc_.run_one_for(2s) == 0) {
        ioc_.restart();  // out of work, or the two seconds passed
      }
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    return future.get();
  };
  for (const char* expected : {"init", "init_done", "apply a", "apply b"}) {
    const auto event = wait(w.async_next(boost::asio::use_future));
    EXPECT_EQ((Next{nullptr, event}.text()), expected);
  }
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_bookmark_moves_the_version_the_next_watch_starts_from) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step("10", {bookmark("15")}, false));  // then the server ends it
  transport_->expect(watch_step("15", {event("ADDED", pod_json("a", "16"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "apply a"}));
  cancel_pending(w);
}

TEST_F(watcher_scripted_test,
       a_watch_the_server_ends_resumes_from_the_last_version_without_a_relist) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step("10", {event("ADDED", pod_json("a", "11"))}, false));
  transport_->expect(watch_step("11", {event("ADDED", pod_json("b", "12"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 4), (std::vector<std::string>{"init", "init_done", "apply a", "apply b"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 1U);
  EXPECT_EQ(w.stats().watch_requests, 2U);
}

TEST_F(watcher_scripted_test,
       a_zero_watch_timeout_sends_no_timeout_seconds_and_each_resumed_watch_neither) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  // The server's --min-request-timeout ends each watch; neither request names a timeout.
  Step first = watch_step("10", {event("ADDED", pod_json("a", "11"))}, false);
  first.target = ns_pods + "?watch=true&resourceVersion=10&allowWatchBookmarks=true";
  Step second = watch_step("11", {event("ADDED", pod_json("b", "12"))}, true);
  second.target = ns_pods + "?watch=true&resourceVersion=11&allowWatchBookmarks=true";
  transport_->expect(first);
  transport_->expect(second);
  WatcherConfig c = config();
  c.watch_timeout = 0s;
  c.jitter_watch_timeout = true;  // nothing to jitter: still none
  auto w = watcher(c);
  EXPECT_EQ(take(w, 4), (std::vector<std::string>{"init", "init_done", "apply a", "apply b"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 1U);
  EXPECT_EQ(w.stats().watch_requests, 2U);
  EXPECT_EQ(w.stats().errors, 0U);
}

TEST_F(watcher_scripted_test, a_410_error_event_relists_without_reporting_an_error) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "10"));
  transport_->expect(watch_step("10", {event("ERROR", status_json(410, "Expired"))}, false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "20"));
  transport_->expect(watch_step("20", {}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 7), (std::vector<std::string>{"init", "init_apply a", "init_done", "init",
                                                  "init_apply a", "init_apply b", "init_done"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().relists, 1U);
  EXPECT_EQ(w.stats().errors, 0U);
}

TEST_F(watcher_scripted_test, a_410_answer_to_the_watch_request_relists) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  Step gone;
  gone.target = watch_target("10");
  gone.response.status = 410;
  gone.response.body = status_json(410, "Gone");
  transport_->expect(gone);
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "30"));
  transport_->expect(watch_step("30", {}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 5),
            (std::vector<std::string>{"init", "init_done", "init", "init_apply a", "init_done"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().relists, 1U);
}

TEST_F(watcher_scripted_test,
       a_refused_watch_is_reported_then_retried_from_the_same_version_after_a_delay) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  Step refused;
  refused.target = watch_target("10");
  refused.fault = std::make_error_code(std::errc::connection_refused);
  transport_->expect(refused);
  Step throttled;
  throttled.target = watch_target("10");
  throttled.response.status = 429;
  throttled.response.body = status_json(429, "TooManyRequests");
  transport_->expect(throttled);
  transport_->expect(watch_step("10", {event("ADDED", pod_json("a", "11"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const auto start = std::chrono::steady_clock::now();
  const Next first = next(w);
  ASSERT_TRUE(first.error);
  EXPECT_EQ(Failure(first.error).kind(), kubex::failure_kind::transport);
  const Next second = next(w);
  ASSERT_TRUE(second.error);
  ASSERT_NE(Failure(second.error).api_error(), nullptr);
  EXPECT_EQ(Failure(second.error).api_error()->http_status(), 429U);
  EXPECT_EQ(next(w).text(), "apply a");
  // Backoff without jitter: 40 ms after the refusal, 80 ms after the 429.
  EXPECT_GE(std::chrono::steady_clock::now() - start, 120ms);
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 1U);  // no relist
  EXPECT_EQ(w.stats().errors, 2U);
}

TEST_F(watcher_scripted_test,
       a_watch_that_closes_at_once_is_retried_with_growing_delays_not_in_a_loop) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step("10", {}, false));
  transport_->expect(watch_step("10", {}, false));
  transport_->expect(watch_step("10", {event("ADDED", pod_json("a", "11"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(next(w).text(), "apply a");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 120ms);  // 40 ms, then 80 ms
  EXPECT_EQ(w.stats().short_watches, 2U);
  EXPECT_EQ(w.stats().errors, 0U);
  cancel_pending(w);
}

TEST_F(watcher_scripted_test,
       an_event_that_does_not_decode_is_reported_and_the_watch_resumes_before_it) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step(
      "10",
      {event("ADDED", pod_json("a", "11")), "{\"type\":\"ADDED\",\"object\":{\"metadata\":7}}\n"},
      true));
  transport_->expect(watch_step("11", {event("ADDED", pod_json("b", "12"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "apply a"}));
  const Next bad = next(w);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(Failure(bad.error).kind(), kubex::failure_kind::decode);
  EXPECT_FALSE(Failure(bad.error).too_large());
  EXPECT_EQ(next(w).text(), "apply b");
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 1U);  // resumed, not listed: unlike an event too large
  EXPECT_EQ(w.stats().decode_errors, 1U);
  EXPECT_EQ(w.stats().oversized_events, 0U);
}

TEST_F(watcher_scripted_test, an_error_event_other_than_410_is_an_api_error_and_the_watch_resumes) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step("10", {event("ERROR", status_json(500, "InternalError"))}, false));
  transport_->expect(watch_step("10", {event("ADDED", pod_json("a", "11"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const Next failed = next(w);
  ASSERT_TRUE(failed.error);
  const Failure f(failed.error);
  ASSERT_NE(f.api_error(), nullptr);
  EXPECT_EQ(f.api_error()->http_status(), 500U);
  EXPECT_EQ(f.api_error()->reason(), "InternalError");
  EXPECT_EQ(next(w).text(), "apply a");
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_list_that_fails_midway_starts_over_with_a_new_init) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "10", "t1"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t1", 503,
                      status_json(503, "ServiceUnavailable"));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "12"));
  transport_->expect(watch_step("12", {}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_apply a", "init_apply b"}));
  EXPECT_EQ(next(w).text(), "error");
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_apply a", "init_done"}));
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_watch_silent_past_the_idle_timeout_is_reported_and_resumed) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(
      watch_step("10", {event("ADDED", pod_json("a", "11"))}, true));  // then silence
  transport_->expect(watch_step("11", {event("ADDED", pod_json("b", "12"))}, true));
  WatcherConfig c = config();
  c.idle_timeout = 150ms;
  auto w = watcher(c);
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "apply a"}));
  const auto start = std::chrono::steady_clock::now();
  const Next silent = next(w);
  ASSERT_TRUE(silent.error);
  EXPECT_EQ(Failure(silent.error).code(), std::errc::timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);  // counted from the last event
  EXPECT_EQ(next(w).text(), "apply b");
  EXPECT_EQ(w.stats().stalls, 1U);
  EXPECT_EQ(w.stats().list_requests, 1U);
  cancel_pending(w);
}

TEST_F(watcher_scripted_test,
       an_event_over_the_size_limit_is_reported_as_too_large_and_the_state_listed_again) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  std::string huge =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","resourceVersion":"12",)"
      R"("annotations":{"x":")" +
      std::string(4096, 'x') + R"("}}})";
  Step oversized = watch_step("10", {event("ADDED", pod_json("a", "11"))}, true);
  const std::string line = event("ADDED", huge);
  for (std::size_t at = 0; at < line.size(); at += 512) {  // arriving read by read
    oversized.stream.push_back(StreamPiece{.bytes = line.substr(at, 512)});
  }
  transport_->expect(oversized);
  // Resumed from 11, the same event would come again, and again: the watcher lists instead
  // (the big object is one item of a list body, under ClientOptions::max_body_size).
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "big"}, "12"));
  transport_->expect(watch_step("12", {event("ADDED", pod_json("b", "13"))}, true));
  WatcherConfig c = config();
  c.max_event_size = 2048;
  auto w = watcher(c);
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "apply a"}));
  const auto start = std::chrono::steady_clock::now();
  const Next big = next(w);
  ASSERT_TRUE(big.error);
  const Failure f(big.error);
  EXPECT_EQ(f.kind(), kubex::failure_kind::too_large) << f.message();  // not a decode failure
  EXPECT_TRUE(f.too_large());
  EXPECT_EQ(take(w, 5), (std::vector<std::string>{"init", "init_apply a", "init_apply big",
                                                  "init_done", "apply b"}));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 40ms);  // the backoff delay
  cancel_pending(w);
  EXPECT_EQ(w.stats().oversized_events, 1U);
  EXPECT_EQ(w.stats().decode_errors, 0U);
  EXPECT_EQ(w.stats().errors, 1U);
  EXPECT_EQ(w.stats().list_requests, 2U);
}

// The Status kube-apiserver answers for a resourceVersion newer than it has (its watch cache
// lags the apiserver a list came from): 504 Timeout with the cause ResourceVersionTooLarge
// (storage.NewTooLargeResourceVersionError). `causes` and `message` vary for the older forms.
std::string too_large_json(const std::string& message, const std::string& causes) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
         "\"" +
         message + R"(","reason":"Timeout","details":{"causes":[)" + causes +
         R"(],"retryAfterSeconds":1},"code":504})";
}

// Scripted: a lagging apiserver behind a load balancer is not something testenv (one
// apiserver) can show.
TEST_F(watcher_scripted_test,
       a_too_large_resource_version_in_any_form_relists_after_the_backoff_without_an_error) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  // The answer to the watch request: the cause ResourceVersionTooLarge.
  Step answer;
  answer.target = watch_target("10");
  answer.response.status = 504;
  answer.response.body = too_large_json(
      "Timeout: Too large resource version: 10, current: 9",
      R"({"reason":"ResourceVersionTooLarge","message":"Too large resource version"})");
  transport_->expect(answer);
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "20"));
  // An ERROR event, as the watch cache sends it, in the form of servers before 1.17: only the
  // message says it.
  transport_->expect(watch_step(
      "20",
      {event("ERROR", too_large_json("Timeout: Too large resource version: 20, current: 19", ""))},
      false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "30"));
  // 1.17.0 to 1.18.5: a cause with the text and no type.
  transport_->expect(
      watch_step("30",
                 {event("ERROR", too_large_json("Timeout: the request did not complete",
                                                R"({"message":"Too large resource version"})"))},
                 false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "40"));
  transport_->expect(watch_step("40", {event("ADDED", pod_json("b", "41"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(take(w, 10), (std::vector<std::string>{"init", "init_apply a", "init_done", "init",
                                                   "init_apply a", "init_done", "init",
                                                   "init_apply a", "init_done", "apply b"}));
  // Each relist waited its delay, without jitter 40, 80 and 160 ms: the server is behind, and
  // asking again at once would not help it.
  EXPECT_GE(std::chrono::steady_clock::now() - start, 280ms);
  cancel_pending(w);
  EXPECT_EQ(w.stats().too_large_versions, 3U);
  EXPECT_EQ(w.stats().list_requests, 4U);
  EXPECT_EQ(w.stats().relists, 0U);  // those count 410s
  EXPECT_EQ(w.stats().errors, 0U);
}

TEST_F(watcher_scripted_test, a_timeout_that_is_not_about_the_version_resumes_without_a_relist) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step(
      "10", {event("ERROR", too_large_json("Timeout: the request did not complete", ""))}, false));
  transport_->expect(watch_step("10", {event("ADDED", pod_json("a", "11"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "error"}));
  EXPECT_EQ(next(w).text(), "apply a");
  cancel_pending(w);
  EXPECT_EQ(w.stats().too_large_versions, 0U);
  EXPECT_EQ(w.stats().list_requests, 1U);
}

// Scripted: a server that expires every version at once cannot be made from testenv.
TEST_F(watcher_scripted_test, a_server_that_answers_every_watch_with_410_is_relisted_with_delays) {
  // Each 410 follows a list with no watch event in between: a loop, unless each relist waits.
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  Step gone;
  gone.target = watch_target("10");
  gone.response.status = 410;
  gone.response.body = status_json(410, "Gone");
  transport_->expect(gone);
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "20"));
  transport_->expect(watch_step("20", {event("ERROR", status_json(410, "Expired"))}, false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "30"));
  gone.target = watch_target("30");
  transport_->expect(gone);
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "40"));
  transport_->expect(watch_step("40", {event("ADDED", pod_json("a", "41"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(take(w, 7), (std::vector<std::string>{"init", "init_done", "init", "init_done", "init",
                                                  "init_done", "apply a"}));
  // Eight requests, not a hot loop: the three relists waited 40, 80 and 160 ms (no jitter).
  EXPECT_GE(std::chrono::steady_clock::now() - start, 280ms);
  cancel_pending(w);
  EXPECT_EQ(w.stats().relists, 3U);
  EXPECT_EQ(w.stats().errors, 0U);
  EXPECT_EQ(transport_->requests().size(), 8U);
}

TEST_F(watcher_scripted_test, a_410_after_a_watch_that_delivered_events_relists_at_once) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step(
      "10", {event("ADDED", pod_json("a", "11")), event("ERROR", status_json(410, "Expired"))},
      false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "20"));
  transport_->expect(watch_step("20", {}, true));
  WatcherConfig c = config();
  c.backoff.initial = 1h;  // a delay would outlast the test
  c.backoff.max = 2h;
  auto w = watcher(c);
  EXPECT_EQ(take(w, 6), (std::vector<std::string>{"init", "init_done", "apply a", "init",
                                                  "init_apply a", "init_done"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().relists, 1U);
}

TEST_F(watcher_scripted_test, the_watch_asks_the_client_for_the_idle_timeout_the_watcher_keeps) {
  // The client's idle timeout of the stream (HttpRequest::idle_timeout, used when the
  // ClientOptions set none) is the watcher's: unset, timeoutSeconds plus 30 s; zero, none.
  for (const auto& [configured, expected] :
       std::vector<std::pair<std::optional<std::chrono::milliseconds>, std::chrono::milliseconds>>{
           {std::nullopt, 330s}, {150ms, 150ms}, {0ms, 0ms}}) {
    transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
    transport_->expect(watch_step("10", {}, true));
    WatcherConfig c = config();
    c.idle_timeout = configured;
    auto w = watcher(c);
    EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
    cancel_pending(w);
    const auto requests = transport_->requests();
    EXPECT_EQ(requests.back().idle_timeout, expected);
  }
  EXPECT_EQ(kubex::watch_idle_timeout(std::nullopt), 3630s);  // finite without timeoutSeconds
}

// The request of a watch with initial events (InitialState::watch_list).
const std::string watch_list_target =
    ns_pods +
    "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
    "allowWatchBookmarks=true&timeoutSeconds=300";

std::string end_bookmark(const std::string& rv) {
  return event("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                               rv + R"(","annotations":{"k8s.io/initial-events-end":"true"}}})");
}

WatcherConfig watch_list_config() {
  WatcherConfig c;
  c.initial_state = kubex::runtime::InitialState::watch_list;
  c.page_size = 2;
  c.jitter_watch_timeout = false;
  c.backoff = {.initial = 40ms, .max = 1s, .factor = 2.0, .jitter = 0.0};
  return c;
}

TEST_F(watcher_scripted_test, watch_list_streams_the_state_up_to_the_end_bookmark_then_changes) {
  Step step;
  step.target = watch_list_target;
  // Initial events come in any resourceVersion order; only the end bookmark sets the version.
  for (std::string line :
       {event("ADDED", pod_json("a", "7")), event("ADDED", pod_json("b", "3")), bookmark("8"),
        end_bookmark("10"), event("MODIFIED", pod_json("a", "11"))}) {
    step.stream.push_back(StreamPiece{.bytes = line});
  }
  step.hold_open = true;
  transport_->expect(step);
  auto w = watcher(watch_list_config());
  EXPECT_EQ(take(w, 4),
            (std::vector<std::string>{"init", "init_apply a", "init_apply b", "init_done"}));
  EXPECT_EQ(w.resource_version(), "10");
  EXPECT_EQ(next(w).text(), "apply a");
  EXPECT_EQ(w.resource_version(), "11");
  cancel_pending(w);
  EXPECT_EQ(w.stats().list_requests, 0U);
  EXPECT_EQ(w.stats().watch_requests, 1U);
}

TEST_F(watcher_scripted_test,
       watch_list_broken_before_its_end_bookmark_starts_over_with_a_new_init) {
  Step broken;
  broken.target = watch_list_target;
  broken.stream = {StreamPiece{.bytes = event("ADDED", pod_json("a", "7"))},
                   StreamPiece{.error = std::make_error_code(std::errc::connection_reset)}};
  transport_->expect(broken);
  Step whole;
  whole.target = watch_list_target;
  whole.stream = {StreamPiece{.bytes = event("ADDED", pod_json("a", "7")) +
                                       event("ADDED", pod_json("b", "8")) + end_bookmark("9")}};
  whole.hold_open = true;
  transport_->expect(whole);
  auto w = watcher(watch_list_config());
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_apply a", "error"}));
  EXPECT_EQ(take(w, 4),
            (std::vector<std::string>{"init", "init_apply a", "init_apply b", "init_done"}));
  EXPECT_EQ(w.resource_version(), "9");
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_server_that_refuses_watch_list_is_listed_instead_from_then_on) {
  Step refused;
  refused.target = watch_list_target;
  refused.response.status = 422;
  refused.response.body = status_json(422, "Invalid");
  transport_->expect(refused);
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "10"));
  transport_->expect(watch_step("10", {event("ERROR", status_json(410, "Expired"))}, false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "20"));  // not again
  transport_->expect(watch_step("20", {}, true));
  auto w = watcher(watch_list_config());
  EXPECT_EQ(take(w, 6), (std::vector<std::string>{"init", "init_apply a", "init_done", "init",
                                                  "init_apply a", "init_done"}));
  cancel_pending(w);
  EXPECT_EQ(w.stats().watch_list_refusals, 1U);
  EXPECT_EQ(w.stats().errors, 0U);
}

TEST_F(watcher_scripted_test, selectors_reach_both_the_list_and_the_watch_across_all_namespaces) {
  const std::string pods = "/api/v1/pods";
  const std::string query = "labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1";
  transport_->respond("GET", pods + "?" + query + "&limit=2", 200, pod_list({"a"}, "10"));
  Step watch;
  watch.target = pods + "?watch=true&" + query +
                 "&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=300";
  watch.hold_open = true;
  transport_->expect(watch);
  WatcherConfig c = config();
  c.label_selector = "app=web";
  c.field_selector = "spec.nodeName=n1";
  Watcher<core::Pod> w(Api<core::Pod>::all(client_), c);
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_apply a", "init_done"}));
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, an_unknown_event_type_or_a_cut_last_line_is_reported_and_resumed) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  transport_->expect(watch_step("10", {event("SURPRISE", pod_json("a", "11"))}, true));
  // A stream that ends in the middle of a line: what arrived does not decode.
  transport_->expect(watch_step("10", {event("ADDED", pod_json("b", "12")).substr(0, 30)}, false));
  transport_->expect(watch_step("10", {event("ADDED", pod_json("c", "13"))}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_done"}));
  const Next unknown = next(w);
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(Failure(unknown.error).kind(), kubex::failure_kind::decode);
  const Next cut = next(w);
  ASSERT_TRUE(cut.error);
  EXPECT_EQ(Failure(cut.error).kind(), kubex::failure_kind::decode);
  EXPECT_EQ(next(w).text(), "apply c");  // neither skipped a version: b was never applied
  EXPECT_EQ(w.stats().errors, 2U);
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, cancel_ends_a_wait_in_the_backoff_delay_at_once) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({}, "10"));
  Step refused;
  refused.target = watch_target("10");
  refused.fault = std::make_error_code(std::errc::connection_refused);
  transport_->expect(refused);
  WatcherConfig c = config();
  c.backoff.initial = 1h;  // the delay would outlast the test
  c.backoff.max = 2h;
  auto w = watcher(c);
  EXPECT_EQ(take(w, 3), (std::vector<std::string>{"init", "init_done", "error"}));
  const auto start = std::chrono::steady_clock::now();
  cancel_pending(w);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_TRUE(Failure(next(w).error).canceled());  // and stays cancelled
}

TEST_F(watcher_scripted_test, the_callback_is_never_run_inside_async_next) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "10"));
  transport_->expect(watch_step("10", {}, true));
  auto w = watcher();
  EXPECT_EQ(take(w, 2), (std::vector<std::string>{"init", "init_apply a"}));
  bool ran = false;
  w.async_next([&ran](std::exception_ptr, auto) { ran = true; });
  EXPECT_FALSE(ran);  // init_done is ready, but is delivered through the executor
  ioc_.restart();
  ioc_.poll();
  EXPECT_TRUE(ran);
  cancel_pending(w);
}

TEST_F(watcher_scripted_test, a_reflector_keeps_its_store_current_through_errors_until_cancelled) {
  const std::string managed =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns",)"
      R"("resourceVersion":"1","managedFields":[{"manager":"kubectl","operation":"Apply"}]}})";
  transport_->respond("GET", ns_pods + "?limit=2", 200,
                      R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"10"},)"
                      R"("items":[)" +
                          managed + "," + pod_json("b", "2") + "]}");
  transport_->expect(
      watch_step("10",
                 {event("MODIFIED", pod_json("a", "11")), event("DELETED", pod_json("b", "12")),
                  event("ERROR", status_json(500, "InternalError"))},
                 false));
  transport_->expect(watch_step("12", {event("ADDED", pod_json("c", "13"))}, true));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  std::size_t transformed = 0;
  rc.transform = [&transformed](core::Pod& pod) {
    pod.metadata.managed_fields.clear();
    ++transformed;
  };
  std::vector<std::string> errors;
  rc.on_error = [&errors](std::exception_ptr e) {
    errors.push_back(Failure(e).api_error() ? Failure(e).api_error()->reason() : "?");
  };
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  const auto& store = reflector.store();
  // Runs until the last change is in: c, after the error.
  while (store.get("ns/c") == nullptr) {
    ASSERT_GT(ioc_.run_one(), 0U) << "the reflector stopped";
  }
  EXPECT_TRUE(store.ready());
  EXPECT_EQ(store.size(), 2U);
  ASSERT_NE(store.get("ns/a"), nullptr);
  EXPECT_EQ(store.get("ns/a")->metadata.resource_version, "11");
  EXPECT_EQ(store.get("ns/b"), nullptr);
  EXPECT_EQ(errors, (std::vector<std::string>{"InternalError"}));
  EXPECT_EQ(transformed, 5U);  // a and b listed, a modified, b deleted, c added
  EXPECT_FALSE(done);
  reflector.cancel();
  run_until([&] { return done.has_value(); });
  EXPECT_EQ(*done, nullptr);  // cancelled: a clean end
}

TEST_F(watcher_scripted_test, the_transform_runs_before_the_object_is_stored) {
  const std::string managed =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns",)"
      R"("resourceVersion":"1","managedFields":[{"manager":"kubectl","operation":"Apply"}]}})";
  transport_->respond("GET", ns_pods + "?limit=2", 200,
                      R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"10"},)"
                      R"("items":[)" +
                          managed + "]}");
  transport_->expect(watch_step("10", {}, true));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  rc.transform = kubex::runtime::drop_managed_fields<core::Pod>;
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  while (!reflector.store().ready()) {
    ASSERT_GT(ioc_.run_one(), 0U);
  }
  // Freed, not only emptied: the point is the memory.
  EXPECT_EQ(reflector.store().get("ns/a")->metadata.managed_fields.capacity(), 0U);
  reflector.cancel();
  run_until([&] { return done.has_value(); });
}

// Runs `ioc` until a handler has set `got`.
std::string run_until_set(boost::asio::io_context& ioc, const std::optional<std::string>& got) {
  while (!got) {
    if (ioc.run_one() == 0) {
      ioc.restart();
    }
  }
  return *got;
}

// Takes `n` events from a subscription, as "type name" strings ("error" for a failure).
template <class Sub>
std::vector<std::string> drain(boost::asio::io_context& ioc, Sub& sub, std::size_t n,
                               std::vector<std::shared_ptr<const core::Pod>>* objects = nullptr) {
  std::vector<std::string> out;
  while (out.size() < n) {
    std::optional<std::string> got;
    sub.async_next([&](std::exception_ptr e, kubex::runtime::StoreEvent<core::Pod> event) {
      if (e) {
        got = Failure(e).canceled() ? "canceled" : "error";
        return;
      }
      if (objects != nullptr && event.object) {
        objects->push_back(event.object);
      }
      static const char* names[] = {"init", "init_apply", "init_done", "apply", "deleted"};
      got = std::string(names[static_cast<int>(event.type)]) +
            (event.object ? " " + event.object->metadata.name.value_or("") : "");
    });
    out.push_back(run_until_set(ioc, got));
  }
  return out;
}

TEST_F(watcher_scripted_test, subscribers_share_one_watch_and_the_stored_objects) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "10"));
  transport_->expect(watch_step(
      "10", {event("MODIFIED", pod_json("a", "11")), event("DELETED", pod_json("a", "12"))}, true));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  auto first = reflector.subscribe();
  auto second = reflector.subscribe();
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  const std::vector<std::string> expected{"init", "init_apply a", "init_done", "apply a",
                                          "deleted a"};
  std::vector<std::shared_ptr<const core::Pod>> seen_first;
  std::vector<std::shared_ptr<const core::Pod>> seen_second;
  EXPECT_EQ(drain(ioc_, first, 5, &seen_first), expected);
  EXPECT_EQ(drain(ioc_, second, 5, &seen_second), expected);
  ASSERT_EQ(seen_first.size(), 3U);
  EXPECT_EQ(seen_first, seen_second);  // the same objects, not copies
  EXPECT_EQ(seen_first[1]->metadata.resource_version, "11");
  EXPECT_EQ(reflector.store().size(), 0U);
  reflector.cancel();
  EXPECT_EQ(drain(ioc_, first, 1), (std::vector<std::string>{"canceled"}));
  run_until([&] { return done.has_value(); });
  EXPECT_EQ(drain(ioc_, second, 1), (std::vector<std::string>{"canceled"}));
}

TEST_F(watcher_scripted_test, a_subscriber_that_falls_behind_is_cut_off_not_waited_for) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "10", "t"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t", 200, pod_list({"c"}, "10"));
  transport_->expect(watch_step("10", {}, true));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  auto slow = reflector.subscribe(3);
  auto roomy = reflector.subscribe(100);
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  while (!reflector.store().ready()) {
    ASSERT_GT(ioc_.run_one(), 0U);
  }
  // Six events (init, three objects, init_done) into room for three: cut off, with an error
  // that says so, while the other subscriber and the store are whole.
  EXPECT_EQ(drain(ioc_, slow, 1), (std::vector<std::string>{"error"}));
  EXPECT_EQ(drain(ioc_, roomy, 5), (std::vector<std::string>{"init", "init_apply a", "init_apply b",
                                                             "init_apply c", "init_done"}));
  EXPECT_EQ(reflector.store().size(), 3U);
  reflector.cancel();
  run_until([&] { return done.has_value(); });
}

}  // namespace

// What a Changes stream gave: "added a@1", "modified a@11 (was 1)", "deleted b@13", "error".
template <class C>
std::vector<std::string> take_changes(boost::asio::io_context& ioc, C& changes, std::size_t n) {
  std::vector<std::string> out;
  while (out.size() < n) {
    std::optional<std::string> got;
    changes.async_next([&](std::exception_ptr e, kubex::runtime::Change<core::Pod> change) {
      if (e) {
        got = Failure(e).canceled() ? "canceled" : "error";
        return;
      }
      static const char* names[] = {"added", "modified", "deleted"};
      const auto& meta = change.object->metadata;
      got = std::string(names[static_cast<int>(change.type)]) + " " + meta.name.value_or("") + "@" +
            meta.resource_version.value_or("");
      if (change.old) {
        got = *got + " (was " + change.old->metadata.resource_version.value_or("") + ")";
      }
    });
    out.push_back(run_until_set(ioc, got));
  }
  return out;
}

std::string pod_list_versions(const std::vector<std::pair<std::string, std::string>>& pods,
                              const std::string& rv) {
  std::string items;
  for (const auto& [name, version] : pods) {
    items += (items.empty() ? "" : ",") + pod_json(name, version);
  }
  return R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":")" + rv +
         R"("},"items":[)" + items + "]}";
}

// Scripted: which objects changed while the watcher was relisting is a race against the real
// server; here the relist's answer is fixed, so every case of the diff is checked.
TEST_F(watcher_scripted_test, the_change_stream_turns_a_relist_into_the_changes_it_implies) {
  transport_->respond("GET", ns_pods + "?limit=2", 200,
                      pod_list_versions({{"a", "1"}, {"b", "1"}}, "10"));
  transport_->expect(watch_step(
      "10",
      {event("MODIFIED", pod_json("a", "11")), event("ADDED", pod_json("c", "12")),
       event("MODIFIED", pod_json("b", "1")),  // nothing new: no change
       event("DELETED", pod_json("b", "13")), event("ERROR", status_json(410, "Expired"))},
      false));
  // The relist: a is gone, c changed, d is new, e was added and is still there.
  transport_->respond("GET", ns_pods + "?limit=2", 200,
                      pod_list_versions({{"c", "14"}, {"d", "15"}}, "20"));
  transport_->expect(watch_step("20", {event("ADDED", pod_json("e", "21"))}, true));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  auto changes = reflector.changes();
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  auto listed = take_changes(ioc_, changes, 2);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, (std::vector<std::string>{"added a@1", "added b@1"}));
  EXPECT_EQ(take_changes(ioc_, changes, 3),
            (std::vector<std::string>{"modified a@11 (was 1)", "added c@12", "deleted b@13"}));
  auto relisted = take_changes(ioc_, changes, 3);
  std::sort(relisted.begin(), relisted.end());
  EXPECT_EQ(relisted,
            (std::vector<std::string>{"added d@15", "deleted a@11", "modified c@14 (was 12)"}));
  EXPECT_EQ(take_changes(ioc_, changes, 1), (std::vector<std::string>{"added e@21"}));
  reflector.cancel();
  EXPECT_EQ(take_changes(ioc_, changes, 1), (std::vector<std::string>{"canceled"}));
  run_until([&] { return done.has_value(); });
}

TEST_F(watcher_scripted_test, a_change_stream_opened_on_a_synced_reflector_starts_with_the_store) {
  transport_->respond("GET", ns_pods + "?limit=2", 200,
                      pod_list_versions({{"a", "1"}, {"b", "2"}}, "10"));
  Step watch = watch_step("10", {}, true);
  transport_->expect(std::move(watch));
  kubex::runtime::ReflectorConfig<core::Pod> rc;
  rc.watcher = config();
  kubex::runtime::Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  while (!reflector.store().ready()) {
    ASSERT_GT(ioc_.run_one(), 0U);
  }
  auto changes = reflector.changes();
  auto first = take_changes(ioc_, changes, 2);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"added a@1", "added b@2"}));
  reflector.cancel();
  EXPECT_EQ(take_changes(ioc_, changes, 1), (std::vector<std::string>{"canceled"}));
  run_until([&] { return done.has_value(); });
}
