// SPDX-License-Identifier: Apache-2.0
// The watcher's rule (kubex::runtime::detail::WatcherStep) on its own: no transport, no clock,
// no objects; each input is fed and the action and phase it leads to are checked. The tests
// are grouped by the watch promise (W1-W10, listed in watcher.hpp) whose transition they
// check. watcher_scripted_test.cpp checks the same rule through the whole watcher.

#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/runtime/watcher_step.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <system_error>
#include <variant>

namespace {

using kubex::ApiError;
using kubex::Error;
using kubex::Failure;
using kubex::Status;
using kubex::StatusCause;
using kubex::StatusDetails;
using kubex::WatchEventType;
using kubex::runtime::InitialState;
using kubex::runtime::WatcherConfig;
using kubex::runtime::WatcherEventType;
using kubex::runtime::detail::WatcherAction;
using kubex::runtime::detail::WatcherInput;
using kubex::runtime::detail::WatcherStep;
namespace in = kubex::runtime::detail::watcher_input;
namespace act = kubex::runtime::detail::watcher_action;
namespace st = kubex::runtime::detail::watcher_state;
using namespace std::chrono_literals;

// Delays without jitter, so that each is known: 800 ms, 1600 ms, ...
WatcherConfig plain_config() {
  WatcherConfig config;
  config.backoff.jitter = 0.0;
  config.jitter_watch_timeout = false;
  return config;
}

Status make_status(std::int32_t code, std::string reason, std::string cause_reason = {}) {
  Status status;
  status.status = "Failure";
  status.message = "m";
  status.reason = std::move(reason);
  status.code = code;
  if (!cause_reason.empty()) {
    StatusCause cause;
    cause.reason = std::move(cause_reason);
    status.details = StatusDetails{};
    status.details->causes.push_back(std::move(cause));
  }
  return status;
}

std::exception_ptr api_error(std::int32_t code, std::string reason, std::string cause_reason = {}) {
  return std::make_exception_ptr(ApiError::from_status(
      "GET /api/v1/pods", make_status(code, std::move(reason), std::move(cause_reason))));
}

std::exception_ptr gone() {
  return api_error(410, "Expired");
}
std::exception_ptr version_too_large() {
  return api_error(504, "Timeout", "ResourceVersionTooLarge");
}
std::exception_ptr transport_error(std::errc code) {
  return std::make_exception_ptr(Error(std::make_error_code(code), "transport"));
}
std::exception_ptr decode_error() {
  return std::make_exception_ptr(Error(make_error_code(kubex::errc::invalid_json), "bad line"));
}
std::exception_ptr event_too_large() {
  return std::make_exception_ptr(Error(std::make_error_code(std::errc::message_size), "big"));
}

in::Event event(WatchEventType type, std::string_view rv) {
  return in::Event{.type = type, .resource_version = rv};
}
in::Event error_event(const Status& status) {
  return in::Event{.type = WatchEventType::error, .status = &status};
}

template <class Action>
const Action& as(const WatcherAction& action) {
  EXPECT_TRUE(std::holds_alternative<Action>(action)) << "action index " << action.index();
  return std::get<Action>(action);
}

class watcher_step_test : public ::testing::Test {
 protected:
  WatcherAction feed(const WatcherInput& input) { return step.step(input, now); }

  // Proceed, expecting a wait of `delay`, then Proceed again.
  WatcherAction after_wait(std::chrono::milliseconds delay) {
    EXPECT_EQ(as<act::Wait>(feed(in::Proceed{})).delay, delay);
    return feed(in::Proceed{});
  }

  // A list of one page at `rv`, then an open watch from it.
  void list_and_watch(std::string_view rv = "10") {
    EXPECT_EQ(as<act::Emit>(feed(in::Proceed{})).type, WatcherEventType::init);
    EXPECT_TRUE(as<act::List>(feed(in::Proceed{})).params.continue_token.empty());
    EXPECT_EQ(as<act::Emit>(feed(in::ListPage{.resource_version = rv})).type,
              WatcherEventType::init_done);
    EXPECT_EQ(as<act::Watch>(feed(in::Proceed{})).params.resource_version, rv);
    open();
  }

  void open() {
    as<act::Proceed>(feed(in::WatchOpened{}));
    as<act::Read>(feed(in::Proceed{}));
  }

  WatcherStep::clock::time_point now = WatcherStep::clock::time_point{} + 1h;
  WatcherStep step{plain_config(), "pods in default", 7};
};

// W1: after any fault the whole state comes again, from init to init_done, from a fresh list.

TEST_F(watcher_step_test, w1_lists_page_by_page_then_watches_from_the_lists_version) {
  EXPECT_EQ(as<act::Emit>(feed(in::Proceed{})).type, WatcherEventType::init);
  const auto first = as<act::List>(feed(in::Proceed{})).params;
  EXPECT_EQ(first.limit, 500);
  EXPECT_TRUE(first.continue_token.empty());
  as<act::Proceed>(feed(in::ListPage{.continue_token = "c1", .resource_version = "5"}));
  EXPECT_EQ(as<act::List>(feed(in::Proceed{})).params.continue_token, "c1");
  EXPECT_EQ(as<act::Emit>(feed(in::ListPage{.resource_version = "10"})).type,
            WatcherEventType::init_done);
  EXPECT_EQ(step.version(), "10");
  const auto watch = as<act::Watch>(feed(in::Proceed{})).params;
  EXPECT_EQ(watch.resource_version, "10");
  EXPECT_TRUE(watch.allow_bookmarks);
  EXPECT_FALSE(watch.send_initial_events);
  EXPECT_EQ(step.stats().list_requests, 2U);
  EXPECT_EQ(step.stats().watch_requests, 1U);
}

TEST_F(watcher_step_test, w1_a_list_that_fails_midway_starts_over_with_a_fresh_init) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  feed(in::ListPage{.continue_token = "c1"});
  feed(in::Proceed{});
  const auto error = transport_error(std::errc::connection_reset);
  EXPECT_EQ(as<act::Fail>(feed(in::ListFailed{error})).error, error);
  EXPECT_TRUE(std::holds_alternative<st::Start>(step.state()));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  EXPECT_TRUE(as<act::List>(feed(in::Proceed{})).params.continue_token.empty());
  EXPECT_EQ(step.stats().errors, 1U);
}

TEST_F(watcher_step_test, w1_a_list_without_a_version_to_watch_from_fails_and_starts_over) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  const auto fail = as<act::Fail>(feed(in::ListPage{}));
  EXPECT_EQ(Failure(fail.error).code(), std::errc::protocol_error);
  EXPECT_TRUE(std::holds_alternative<st::Start>(step.state()));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
}

// W2: a watch the server ends cleanly resumes from the last version at once, without a list.

TEST_F(watcher_step_test, w2_a_clean_end_resumes_from_the_last_version_at_once) {
  list_and_watch();
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::added, "11"))).type, WatcherEventType::apply);
  now += 5min;
  as<act::Proceed>(feed(in::WatchEnded{}));
  EXPECT_TRUE(std::holds_alternative<st::Watch>(step.state()));
  EXPECT_EQ(as<act::Watch>(feed(in::Proceed{})).params.resource_version, "11");
  EXPECT_EQ(step.stats().list_requests, 1U);
  EXPECT_EQ(step.stats().relists, 0U);
}

// W3: 410 (answer or ERROR event, Expired or Gone) relists, never watches that version again.

TEST_F(watcher_step_test, w3_a_410_event_after_delivered_events_relists_at_once) {
  list_and_watch();
  feed(event(WatchEventType::modified, "11"));
  const Status expired = make_status(410, "Expired");
  as<act::Proceed>(feed(error_event(expired)));
  EXPECT_TRUE(std::holds_alternative<st::Start>(step.state()));
  EXPECT_EQ(as<act::Emit>(feed(in::Proceed{})).type, WatcherEventType::init);  // no wait
  as<act::List>(feed(in::Proceed{}));
  EXPECT_EQ(step.stats().relists, 1U);
  EXPECT_EQ(step.stats().errors, 0U);
}

TEST_F(watcher_step_test, w3_a_410_event_with_nothing_delivered_since_the_list_relists_later) {
  list_and_watch();
  as<act::Proceed>(feed(error_event(make_status(0, "Gone"))));  // the reason alone says it
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
}

TEST_F(watcher_step_test, w3_a_410_answer_to_the_watch_request_relists_not_rewatches) {
  list_and_watch();
  now += 5min;
  feed(in::WatchEnded{});
  as<act::Watch>(feed(in::Proceed{}));
  as<act::Proceed>(feed(in::WatchRefused{gone()}));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
  EXPECT_EQ(step.stats().relists, 1U);
}

TEST_F(watcher_step_test, w3_a_server_that_answers_every_watch_with_410_waits_longer_each_time) {
  list_and_watch();
  auto delay = 800ms;
  for (int i = 0; i < 3; ++i) {
    as<act::Proceed>(feed(error_event(make_status(410, ""))));
    EXPECT_EQ(as<act::Emit>(after_wait(delay)).type, WatcherEventType::init) << i;
    now += 1s;
    delay *= 2;
    as<act::List>(feed(in::Proceed{}));
    feed(in::ListPage{.resource_version = "10"});
    as<act::Watch>(feed(in::Proceed{}));
    open();
  }
}

TEST_F(watcher_step_test, w3_a_list_that_fails_with_410_starts_over_silently_after_a_delay) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  feed(in::ListPage{.continue_token = "c1"});
  feed(in::Proceed{});
  as<act::Proceed>(feed(in::ListFailed{gone()}));  // an expired continue token
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  EXPECT_EQ(step.stats().relists, 1U);
  EXPECT_EQ(step.stats().errors, 0U);
}

TEST_F(watcher_step_test, w3_a_version_too_large_lists_again_after_a_delay_without_an_error) {
  list_and_watch();
  // As an ERROR event (the watch cache), as the answer to the watch, as that of the list.
  const Status too_large = make_status(504, "Timeout", "ResourceVersionTooLarge");
  as<act::Proceed>(feed(error_event(too_large)));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
  feed(in::ListPage{.resource_version = "10"});
  as<act::Watch>(feed(in::Proceed{}));
  as<act::Proceed>(feed(in::WatchRefused{version_too_large()}));
  EXPECT_EQ(as<act::Emit>(after_wait(1600ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
  as<act::Proceed>(feed(in::ListFailed{version_too_large()}));
  EXPECT_EQ(as<act::Emit>(after_wait(3200ms)).type, WatcherEventType::init);
  EXPECT_EQ(step.stats().too_large_versions, 3U);
  EXPECT_EQ(step.stats().errors, 0U);
  EXPECT_EQ(step.stats().relists, 0U);
}

// W4: a refused watch (connection refused, 429, ...) is resumed from the same version after a
// growing delay, without a list.

TEST_F(watcher_step_test, w4_a_refused_watch_resumes_from_the_same_version_after_a_delay) {
  list_and_watch();
  feed(event(WatchEventType::added, "11"));
  now += 5min;
  feed(in::WatchEnded{});
  auto delay = 800ms;
  for (const auto& error : {transport_error(std::errc::connection_refused),
                            api_error(429, "TooManyRequests"), api_error(500, "InternalError")}) {
    as<act::Watch>(feed(in::Proceed{}));
    EXPECT_EQ(as<act::Fail>(feed(in::WatchRefused{error})).error, error);
    EXPECT_TRUE(std::holds_alternative<st::Watch>(step.state()));
    EXPECT_EQ(as<act::Wait>(feed(in::Proceed{})).delay, delay);
    delay *= 2;
    now += 1s;
  }
  EXPECT_EQ(as<act::Watch>(feed(in::Proceed{})).params.resource_version, "11");
  EXPECT_EQ(step.stats().list_requests, 1U);
  EXPECT_EQ(step.stats().errors, 3U);
}

TEST_F(watcher_step_test, w4_the_delay_starts_over_after_a_healthy_stretch) {
  list_and_watch();
  as<act::Fail>(feed(in::WatchFailed{transport_error(std::errc::connection_reset)}));
  EXPECT_EQ(as<act::Watch>(after_wait(800ms)).params.resource_version, "10");
  open();
  now += 1s;
  as<act::Fail>(feed(in::WatchFailed{transport_error(std::errc::connection_reset)}));
  EXPECT_EQ(as<act::Wait>(feed(in::Proceed{})).delay, 1600ms);
  as<act::Watch>(feed(in::Proceed{}));
  open();
  now += 3min;  // past reset_after (2 min)
  as<act::Fail>(feed(in::WatchFailed{transport_error(std::errc::connection_reset)}));
  EXPECT_EQ(as<act::Wait>(feed(in::Proceed{})).delay, 800ms);
}

TEST_F(watcher_step_test, w4_an_error_event_other_than_410_is_reported_and_the_watch_resumed) {
  list_and_watch();
  feed(event(WatchEventType::added, "11"));
  const Status internal = make_status(500, "InternalError");
  const auto fail = as<act::Fail>(feed(error_event(internal)));
  const Failure failure(fail.error);
  ASSERT_NE(failure.api_error(), nullptr);
  EXPECT_EQ(failure.http_status(), 500U);
  EXPECT_NE(failure.message().find("watch of pods in default"), std::string::npos);
  EXPECT_EQ(as<act::Watch>(after_wait(800ms)).params.resource_version, "11");
  EXPECT_EQ(step.stats().list_requests, 1U);
}

// W5: a watch silent past its idle timeout is reported (timed_out) and resumed.

TEST_F(watcher_step_test, w5_a_stalled_watch_is_reported_and_resumed_from_the_last_version) {
  list_and_watch();
  feed(event(WatchEventType::added, "11"));
  const auto stall = transport_error(std::errc::timed_out);
  EXPECT_EQ(as<act::Fail>(feed(in::WatchFailed{stall})).error, stall);
  EXPECT_EQ(step.stats().stalls, 1U);
  EXPECT_EQ(as<act::Watch>(after_wait(800ms)).params.resource_version, "11");
  EXPECT_EQ(step.stats().list_requests, 1U);
}

TEST_F(watcher_step_test, w5_the_idle_timeout_follows_the_watch_timeout_unless_configured) {
  list_and_watch();
  // timeoutSeconds 300 (no jitter here), plus the 30 s margin; the watch asks for the same.
  EXPECT_EQ(step.idle_timeout(), 330s);

  WatcherConfig jittered;
  jittered.idle_timeout = 2s;
  WatcherStep other(jittered, "pods", 1);
  as<act::Emit>(other.step(in::Proceed{}, now));
  as<act::List>(other.step(in::Proceed{}, now));
  as<act::Emit>(other.step(in::ListPage{.resource_version = "1"}, now));
  const auto params = as<act::Watch>(other.step(in::Proceed{}, now)).params;
  ASSERT_TRUE(params.timeout_seconds.has_value());
  EXPECT_GE(*params.timeout_seconds, 300);  // jittered in [300, 600)
  EXPECT_LT(*params.timeout_seconds, 600);
  EXPECT_EQ(params.idle_timeout, 2s);
  EXPECT_EQ(other.idle_timeout(), 2s);
}

// W6: the version moves with delivered events, bookmarks and a list's end only.

TEST_F(watcher_step_test, w6_events_move_the_version_bookmarks_too_but_are_not_delivered) {
  list_and_watch();
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::added, "11"))).type, WatcherEventType::apply);
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::modified, "12"))).type,
            WatcherEventType::apply);
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::deleted, "13"))).type,
            WatcherEventType::deleted);
  EXPECT_EQ(step.version(), "13");
  as<act::Synced>(feed(event(WatchEventType::bookmark, "20")));
  EXPECT_EQ(step.version(), "20");
  as<act::Proceed>(feed(event(WatchEventType::bookmark, "")));  // nothing to move to
  EXPECT_EQ(step.version(), "20");
  as<act::Read>(feed(in::Proceed{}));
}

TEST_F(watcher_step_test, w6_an_event_without_a_version_is_a_failure_and_a_relist) {
  list_and_watch();
  const auto fail = as<act::Fail>(feed(event(WatchEventType::added, "")));
  EXPECT_EQ(Failure(fail.error).code(), std::errc::protocol_error);
  EXPECT_EQ(step.version(), "10");
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
}

TEST_F(watcher_step_test, w6_initial_events_leave_the_version_until_their_end_bookmark) {
  WatcherConfig config = plain_config();
  config.initial_state = InitialState::watch_list;
  step = WatcherStep(config, "pods", 7);
  feed(in::Proceed{});
  as<act::Watch>(feed(in::Proceed{}));
  open();
  feed(event(WatchEventType::added, "30"));
  feed(event(WatchEventType::added, "20"));  // not in version order
  EXPECT_EQ(step.version(), "");
  feed(in::Event{
      .type = WatchEventType::bookmark, .resource_version = "25", .initial_events_end = true});
  EXPECT_EQ(step.version(), "25");
}

// W7: a watch's initial events (InitialState::watch_list).

class watcher_step_watch_list_test : public watcher_step_test {
 protected:
  void SetUp() override {
    WatcherConfig config = plain_config();
    config.initial_state = InitialState::watch_list;
    step = WatcherStep(config, "pods", 7);
  }
};

TEST_F(watcher_step_watch_list_test, w7_the_state_ends_only_at_the_initial_events_end_bookmark) {
  EXPECT_EQ(as<act::Emit>(feed(in::Proceed{})).type, WatcherEventType::init);
  const auto params = as<act::Watch>(feed(in::Proceed{})).params;
  EXPECT_TRUE(params.send_initial_events);
  EXPECT_TRUE(params.resource_version.empty());
  EXPECT_EQ(params.resource_version_match, kubex::ResourceVersionMatch::not_older_than);
  EXPECT_TRUE(params.allow_bookmarks);
  open();
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::added, "3"))).type,
            WatcherEventType::init_apply);
  as<act::Proceed>(feed(event(WatchEventType::bookmark, "4")));  // not the end
  EXPECT_EQ(as<act::Emit>(feed(in::Event{.type = WatchEventType::bookmark,
                                         .resource_version = "5",
                                         .initial_events_end = true}))
                .type,
            WatcherEventType::init_done);
  EXPECT_EQ(as<act::Emit>(feed(event(WatchEventType::added, "6"))).type, WatcherEventType::apply);
  EXPECT_EQ(step.stats().list_requests, 0U);
  EXPECT_EQ(step.stats().watch_requests, 1U);
}

TEST_F(watcher_step_watch_list_test, w7_a_change_before_the_end_bookmark_starts_over) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  open();
  feed(event(WatchEventType::added, "3"));
  const auto fail = as<act::Fail>(feed(event(WatchEventType::modified, "4")));
  EXPECT_EQ(Failure(fail.error).code(), std::errc::protocol_error);
  EXPECT_TRUE(std::holds_alternative<st::Start>(step.state()));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  EXPECT_TRUE(as<act::Watch>(feed(in::Proceed{})).params.send_initial_events);
}

TEST_F(watcher_step_watch_list_test, w7_a_break_before_the_end_bookmark_starts_over_clean) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  open();
  feed(event(WatchEventType::added, "3"));
  now += 5s;
  as<act::Proceed>(feed(in::WatchEnded{}));
  EXPECT_EQ(as<act::Emit>(feed(in::Proceed{})).type, WatcherEventType::init);  // a fresh buffer
  feed(in::Proceed{});
  open();
  as<act::Fail>(feed(in::WatchFailed{transport_error(std::errc::connection_reset)}));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
}

TEST_F(watcher_step_watch_list_test, w7_a_server_that_refuses_it_is_listed_from_then_on) {
  for (const std::int32_t code : {400, 405, 422}) {
    WatcherConfig config = plain_config();
    config.initial_state = InitialState::watch_list;
    WatcherStep refused(config, "pods", 7);
    as<act::Emit>(refused.step(in::Proceed{}, now));
    as<act::Watch>(refused.step(in::Proceed{}, now));
    as<act::Proceed>(refused.step(in::WatchRefused{api_error(code, "BadRequest")}, now));
    EXPECT_TRUE(as<act::List>(refused.step(in::Proceed{}, now)).params.continue_token.empty());
    EXPECT_EQ(refused.stats().watch_list_refusals, 1U) << code;
    EXPECT_EQ(refused.stats().errors, 0U) << code;
    as<act::Emit>(refused.step(in::ListPage{.resource_version = "10"}, now));
    EXPECT_FALSE(as<act::Watch>(refused.step(in::Proceed{}, now)).params.send_initial_events);
  }
}

TEST_F(watcher_step_watch_list_test, w7_after_a_refusal_each_relist_is_a_list) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  feed(in::WatchRefused{api_error(400, "BadRequest")});
  as<act::List>(feed(in::Proceed{}));
  feed(in::ListPage{.resource_version = "10"});
  feed(in::Proceed{});
  open();
  feed(error_event(make_status(410, "")));
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
}

TEST_F(watcher_step_watch_list_test, w7_another_failure_of_the_request_is_reported_then_retried) {
  feed(in::Proceed{});
  feed(in::Proceed{});
  const auto error = api_error(503, "ServiceUnavailable");
  EXPECT_EQ(as<act::Fail>(feed(in::WatchRefused{error})).error, error);
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  EXPECT_TRUE(as<act::Watch>(feed(in::Proceed{})).params.send_initial_events);
}

// W8: an event that does not decode is reported and the watch resumed before it.

TEST_F(watcher_step_test, w8_a_decode_failure_resumes_from_the_last_version_delivered) {
  list_and_watch();
  feed(event(WatchEventType::added, "11"));
  const auto error = decode_error();
  EXPECT_EQ(as<act::Fail>(feed(in::WatchFailed{error})).error, error);
  EXPECT_EQ(step.stats().decode_errors, 1U);
  EXPECT_EQ(step.version(), "11");
  EXPECT_EQ(as<act::Watch>(after_wait(800ms)).params.resource_version, "11");
  EXPECT_EQ(step.stats().list_requests, 1U);
}

// W9: an event over max_event_size is reported, then a relist.

TEST_F(watcher_step_test, w9_an_event_too_large_is_reported_then_the_state_listed_again) {
  EXPECT_EQ(step.config().max_event_size, std::size_t{16} << 20U);
  list_and_watch();
  const auto error = event_too_large();
  EXPECT_EQ(as<act::Fail>(feed(in::WatchFailed{error})).error, error);
  EXPECT_EQ(step.stats().oversized_events, 1U);
  EXPECT_EQ(as<act::Emit>(after_wait(800ms)).type, WatcherEventType::init);
  as<act::List>(feed(in::Proceed{}));
}

// W10: a watch the server ends at once, without an event, waits a delay before the next.

TEST_F(watcher_step_test, w10_a_very_short_watch_without_events_waits_before_the_next) {
  list_and_watch();
  now += 100ms;
  as<act::Proceed>(feed(in::WatchEnded{}));
  EXPECT_EQ(step.stats().short_watches, 1U);
  EXPECT_EQ(as<act::Watch>(after_wait(800ms)).params.resource_version, "10");
  open();
  now += 100ms;
  feed(in::WatchEnded{});
  EXPECT_EQ(as<act::Watch>(after_wait(1600ms)).params.resource_version, "10");
  EXPECT_EQ(step.stats().errors, 0U);
}

TEST_F(watcher_step_test, w10_a_short_watch_with_an_event_or_a_long_one_resumes_at_once) {
  list_and_watch();
  feed(event(WatchEventType::bookmark, "11"));
  now += 100ms;
  feed(in::WatchEnded{});
  as<act::Watch>(feed(in::Proceed{}));
  open();
  now += 2s;  // past very_short_watch, without an event
  feed(in::WatchEnded{});
  as<act::Watch>(feed(in::Proceed{}));
  EXPECT_EQ(step.stats().short_watches, 0U);
}

TEST_F(watcher_step_test, an_input_in_the_wrong_phase_is_a_logic_error) {
  EXPECT_THROW((void)feed(in::WatchOpened{}), std::logic_error);
  EXPECT_THROW((void)feed(event(WatchEventType::added, "1")), std::logic_error);
  EXPECT_THROW((void)feed(in::ListPage{.resource_version = "1"}), std::logic_error);
}

}  // namespace
