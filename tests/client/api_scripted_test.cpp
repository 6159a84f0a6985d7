// SPDX-License-Identifier: Apache-2.0
// Api<T>, Pager and WatchStream through kubex::testing::ScriptedTransport: fast unit tests of
// what the layer above the transport does with answers (decoding across reads, error mapping,
// the pager's restart after 410). The script is a test double; the same behaviour is tested
// against the real apiserver in tests/integration/api_test.cpp.

#include <kubex/client/api.hpp>
#include <kubex/client/options.hpp>
#include <kubex/client/pager.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include "api_scripted_fixture.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;
using kubex::client::Client;
using kubex::testing::ScriptedTransport;
using kubex::testing::Step;
using kubex::testing::StreamPiece;
using kubex_test::api_scripted_test;
using kubex_test::ns_pods;
using kubex_test::pod_json;

std::string pod_list(const std::vector<std::string>& names, const std::string& continue_token = "",
                     const std::string& rv = "100") {
  std::string items;
  for (const auto& name : names) {
    items += (items.empty() ? "" : ",") + pod_json(name);
  }
  std::string meta = R"({"resourceVersion":")" + rv + "\"";
  if (!continue_token.empty()) {
    meta += R"(,"continue":")" + continue_token + "\"";
  }
  return R"({"apiVersion":"v1","kind":"PodList","metadata":)" + meta + R"(},"items":[)" + items +
         "]}";
}

std::string status_json(int code, const std::string& reason, const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
}

TEST_F(api_scripted_test, get_decodes_the_model) {
  transport_->respond("GET", ns_pods + "/web-0", 200, pod_json("web-0", "42"));
  const core::Pod pod = wait(pods_.async_get("web-0", boost::asio::use_future));
  EXPECT_EQ(pod.metadata.name, "web-0");
  EXPECT_EQ(pod.metadata.resource_version, "42");
  ASSERT_EQ(pod.spec->containers.size(), 1U);
  EXPECT_EQ(pod.spec->containers[0].image, "busybox:1.36");
}

TEST_F(api_scripted_test, a_status_answer_is_an_api_error_with_the_status) {
  transport_->respond("GET", ns_pods + "/gone", 404,
                      status_json(404, "NotFound", R"(pods \"gone\" not found)"));
  try {
    (void)wait(pods_.async_get("gone", boost::asio::use_future));
    FAIL() << "a 404 decoded as a pod";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_not_found(e));
    EXPECT_EQ(e.status().reason, "NotFound");
    EXPECT_EQ(e.status().message, R"(pods "gone" not found)");
    EXPECT_NE(std::string(e.what()).find("404"), std::string::npos) << e.what();
  }
}

TEST_F(api_scripted_test, get_opt_is_empty_on_404_only) {
  transport_->respond("GET", ns_pods + "/gone", 404, status_json(404, "NotFound", "nope"));
  transport_->respond("GET", ns_pods + "/locked", 403, status_json(403, "Forbidden", "no"));
  EXPECT_FALSE(wait(pods_.async_get_opt("gone", boost::asio::use_future)));
  try {
    (void)wait(pods_.async_get_opt("locked", boost::asio::use_future));
    FAIL() << "a 403 read as absent";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_forbidden(e));
  }
}

TEST_F(api_scripted_test, a_body_that_does_not_fit_names_the_field) {
  transport_->respond("GET", ns_pods + "/bad", 200, R"({"kind":"Pod","metadata":{"name":7}})");
  try {
    (void)wait(pods_.async_get("bad", boost::asio::use_future));
    FAIL() << "a bad body decoded";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("metadata.name"), std::string::npos) << e.what();
  }
}

// A misrouted answer (a proxy, a wrong path) is refused with both kinds named, as client-go and
// kube-rs refuse it: a Deployment is not a Pod, and a single object is not an empty list.
TEST_F(api_scripted_test, a_body_of_another_kind_is_refused) {
  transport_->respond(
      "GET", ns_pods + "/web-0", 200,
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-0"}})");
  transport_->respond("GET", ns_pods, 200, pod_json("web-0"));
  transport_->respond("GET", ns_pods + "/web-1", 200,
                      R"({"apiVersion":"v2","kind":"Pod","metadata":{"name":"web-1"}})");
  const auto refused = [&](auto future) -> std::string {
    try {
      (void)wait(std::move(future));
    } catch (const kubex::json::DecodeError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refused(pods_.async_get("web-0", boost::asio::use_future)),
            "the response is a Deployment (apps/v1), not a Pod (v1)");
  EXPECT_EQ(refused(pods_.async_list(boost::asio::use_future)),
            "the response is a Pod (v1), not a PodList (v1)");
  EXPECT_EQ(refused(pods_.async_get("web-1", boost::asio::use_future)),
            "the response is a Pod (v2), not a Pod (v1)");
}

TEST_F(api_scripted_test, a_list_item_of_another_kind_is_refused_by_index) {
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) {
    names.push_back("pod-" + std::to_string(i));
  }
  std::string body = pod_list(names);
  const auto at = body.find(R"("kind":"Pod","metadata":{"name":"pod-150")");
  ASSERT_NE(at, std::string::npos);
  body.replace(at, 12, R"("kind":"Secret")");
  Step step;
  step.target = ns_pods;
  step.response.body = body;
  step.piece_size = 4096;  // decoded item by item while it arrives
  transport_->expect(step);
  try {
    (void)wait(pods_.async_list(boost::asio::use_future));
    FAIL() << "a Secret decoded as a pod";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "items[150]: the response is a Secret (v1), not a Pod (v1)");
  }
}

TEST_F(api_scripted_test, a_transport_failure_keeps_its_code) {
  Step step;
  step.target = ns_pods + "/web-0";
  step.fault = std::make_error_code(std::errc::connection_refused);
  transport_->expect(step);
  try {
    (void)wait(pods_.async_get("web-0", boost::asio::use_future));
    FAIL() << "no error";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::connection_refused);
  }
}

TEST_F(api_scripted_test, a_list_read_in_small_pieces_decodes_every_item) {
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) {
    names.push_back("pod-" + std::to_string(i));  // well above the decoder's 16 KiB threshold
  }
  Step step;
  step.target = ns_pods;
  step.response.body = pod_list(names);
  step.piece_size = 7;
  transport_->expect(step);
  const auto list = wait(pods_.async_list(boost::asio::use_future));
  ASSERT_EQ(list.items.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(list.items[i].metadata.name, names[i]);
  }
  EXPECT_EQ(list.metadata.resource_version, "100");
}

TEST_F(api_scripted_test, the_pager_starts_over_when_its_continue_token_expires) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "t1"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t1", 410,
                      status_json(410, "Expired", "The provided continue parameter is too old"));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "t2"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t2", 200, pod_list({"c"}));
  kubex::client::Pager<core::Pod> pager(pods_, {.limit = 2});
  std::vector<std::string> seen;
  while (auto page = wait(pager.async_next(boost::asio::use_future))) {
    for (const auto& pod : page->items) {
      seen.push_back(*pod.metadata.name);
    }
  }
  EXPECT_EQ(pager.restarts(), 1U);
  // The restart delivers the first page again: a caller that keeps pages must start over too.
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "a", "b", "c"}));
}

TEST_F(api_scripted_test, watch_events_split_across_reads_decode_and_end_cleanly) {
  const std::string added = R"({"type":"ADDED","object":)" + pod_json("a", "5") + "}\n";
  const std::string gone = R"({"type":"ERROR","object":)" +
                           status_json(410, "Expired", "too old resource version: 5 (9)") + "}\n";
  Step step;
  step.target = ns_pods + "?watch=true&resourceVersion=4";
  const std::string both = added + gone;
  for (std::size_t at = 0; at < both.size(); at += 13) {  // pieces cut through lines and keys
    step.stream.push_back(StreamPiece{.bytes = both.substr(at, 13)});
  }
  transport_->expect(step);
  const kubex::WatchParams from{.resource_version = "4"};
  auto watch = wait(pods_.async_watch(from, boost::asio::use_future));
  auto first = wait(watch.async_next(boost::asio::use_future));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->type, kubex::WatchEventType::added);
  EXPECT_EQ(first->object.metadata.name, "a");
  auto second = wait(watch.async_next(boost::asio::use_future));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->type, kubex::WatchEventType::error);
  EXPECT_EQ(second->status.code, 410);
  EXPECT_EQ(second->status.reason, "Expired");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));  // the server ended it
}

TEST_F(api_scripted_test, a_watch_has_a_finite_idle_timeout_by_default_and_zero_means_none) {
  // What a watch asks the transport for (HttpRequest::idle_timeout, used when
  // ClientOptions::stream_idle_timeout is unset, as it is by default): its timeoutSeconds plus
  // 30 s; without them 3630 s; an explicit WatchParams::idle_timeout, zero being none. The
  // transport's side is tested against a black-holed connection in integration/api_test.cpp.
  EXPECT_FALSE(kubex::client::ClientOptions{}.stream_idle_timeout);
  const std::vector<std::pair<kubex::WatchParams, std::chrono::milliseconds>> cases{
      {{}, std::chrono::seconds(3630)},
      {{.timeout_seconds = 5}, std::chrono::seconds(35)},
      {{.idle_timeout = std::chrono::milliseconds(250)}, std::chrono::milliseconds(250)},
      {{.idle_timeout = std::chrono::milliseconds(0)}, std::chrono::milliseconds(0)},
  };
  for (const auto& [params, expected] : cases) {
    Step step;
    step.target =
        ns_pods + "?watch=true" +
        (params.timeout_seconds ? "&timeoutSeconds=" + std::to_string(*params.timeout_seconds)
                                : std::string());
    transport_->expect(step);
    auto watch = wait(pods_.async_watch(params, boost::asio::use_future));
    EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
    EXPECT_EQ(transport_->requests().back().idle_timeout, expected);
  }
}

TEST_F(api_scripted_test, watch_next_takes_a_callback_passed_as_a_temporary) {
  Step step;
  step.target = ns_pods + "?watch=true";
  step.stream = {StreamPiece{.bytes = R"({"type":"ADDED","object":)" + pod_json("a") + "}\n"}};
  transport_->expect(step);
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  std::optional<std::string> name;
  watch.async_next([&name](std::exception_ptr error, auto event) {
    EXPECT_FALSE(error);
    name = event ? event->object.metadata.name.value_or("") : "(end)";
  });
  while (!name) {
    if (ioc_.run_one() == 0) {
      ioc_.restart();
    }
  }
  EXPECT_EQ(*name, "a");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
}

TEST_F(api_scripted_test, a_buffered_watch_event_is_not_delivered_inside_async_next) {
  Step step;
  step.target = ns_pods + "?watch=true";
  // Two events in one read: the second is buffered when the second async_next starts.
  step.stream = {StreamPiece{.bytes = R"({"type":"ADDED","object":)" + pod_json("a") + "}\n" +
                                      R"({"type":"ADDED","object":)" + pod_json("b") + "}\n"}};
  transport_->expect(step);
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  EXPECT_TRUE(wait(watch.async_next(boost::asio::use_future)));
  std::optional<std::string> name;
  watch.async_next([&name](std::exception_ptr, auto event) {
    name = event ? event->object.metadata.name.value_or("") : "(end)";
  });
  EXPECT_FALSE(name);  // ready, but the handler runs from the executor, never in the call
  while (!name) {
    if (ioc_.run_one() == 0) {
      ioc_.restart();
    }
  }
  EXPECT_EQ(*name, "b");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
}

TEST_F(api_scripted_test, a_watch_stream_cut_by_the_network_is_an_error_not_an_end) {
  Step step;
  step.target = ns_pods + "?watch=true";
  step.stream = {StreamPiece{.bytes = R"({"type":"ADDED","object":)" + pod_json("a") + "}\n"},
                 StreamPiece{.error = std::make_error_code(std::errc::connection_reset)}};
  transport_->expect(step);
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  EXPECT_TRUE(wait(watch.async_next(boost::asio::use_future)));
  try {
    (void)wait(watch.async_next(boost::asio::use_future));
    FAIL() << "a reset stream ended cleanly";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::connection_reset);
  }
}

TEST_F(api_scripted_test, bad_arguments_reach_the_handler_never_the_caller) {
  // Neither call throws; each handler runs later, from the io_context, with the error.
  std::vector<std::string> errors;
  const auto note = [&](std::exception_ptr error, const auto& /*result*/) {
    const kubex::Failure failure(error);
    EXPECT_EQ(failure.kind(), kubex::failure_kind::invalid_argument) << failure.message();
    EXPECT_FALSE(failure.retryable());
    errors.push_back(failure.message());
  };
  const auto everywhere = Api<core::Pod>::all(client_);
  EXPECT_NO_THROW(everywhere.async_get("web-0", note));
  EXPECT_NO_THROW(everywhere.async_log_stream("web-0", {}, note));
  core::Pod nameless;
  EXPECT_NO_THROW(pods_.async_replace(nameless, {}, note));
  EXPECT_NO_THROW(pods_.async_replace_status(nameless, {}, note));
  EXPECT_TRUE(errors.empty()) << "a handler ran inside its initiating function";
  ioc_.run();
  ASSERT_EQ(errors.size(), 4U);
  EXPECT_NE(errors[0].find("Api<Pod>::all addresses every namespace"), std::string::npos)
      << errors[0];
  EXPECT_NE(errors[2].find("metadata.name is required"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("metadata.name is required"), std::string::npos) << errors[3];
  EXPECT_TRUE(transport_->requests().empty());
}

TEST_F(api_scripted_test, an_empty_response_stream_reports_instead_of_crashing) {
  kubex::client::ResponseStream empty;
  std::string out;
  auto read = empty.async_read_some(out, boost::asio::bind_executor(ioc_, boost::asio::use_future));
  try {
    (void)wait(std::move(read));
    FAIL() << "an empty stream read something";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("the stream is empty"), std::string::npos) << e.what();
  }
}

TEST_F(api_scripted_test, failures_from_the_api_classify_without_a_catch) {
  transport_->respond("GET", ns_pods + "/web-0", 404,
                      status_json(404, "NotFound", R"(pods \"web-0\" not found)"));
  Step reset;
  reset.target = ns_pods + "/web-1";
  reset.fault = std::make_error_code(std::errc::connection_reset);
  transport_->expect(reset);
  const kubex::Failure not_found(
      error_of([&](auto handler) { pods_.async_get("web-0", handler); }));
  EXPECT_EQ(not_found.kind(), kubex::failure_kind::api);
  EXPECT_EQ(not_found.http_status(), 404U);
  ASSERT_NE(not_found.api_error(), nullptr);
  EXPECT_TRUE(kubex::is_not_found(*not_found.api_error()));
  EXPECT_FALSE(not_found.retryable());
  const kubex::Failure transport(
      error_of([&](auto handler) { pods_.async_get("web-1", handler); }));
  EXPECT_EQ(transport.kind(), kubex::failure_kind::transport);
  EXPECT_EQ(transport.code(), std::errc::connection_reset);
  EXPECT_TRUE(transport.retryable());
}

TEST_F(api_scripted_test, an_unexpected_request_fails_and_is_reported) {
  transport_->respond("GET", ns_pods + "/expected", 200, pod_json("expected"));
  try {
    (void)wait(pods_.async_get("other", boost::asio::use_future));
    FAIL() << "an unscripted request got an answer";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GET " + ns_pods + "/other, but step 1 expects GET " +
                                         ns_pods + "/expected"),
              std::string::npos)
        << e.what();
  }
  const auto report = transport_->verify();
  EXPECT_NE(report.find("GET " + ns_pods + "/other, but step 1"), std::string::npos) << report;
  EXPECT_NE(report.find("1 step(s) never played, the first GET " + ns_pods + "/expected"),
            std::string::npos)
      << report;
  check_script_ = false;  // the report above is this test's subject
}

}  // namespace
