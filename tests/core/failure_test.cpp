// SPDX-License-Identifier: Apache-2.0
// Failure: every kind of exception an operation completes with, classified without the
// caller rethrowing. The Status bodies are the ones kube-apiserver v1.35.4 sends (the same
// as in api_error_test.cpp); the live paths are in tests/integration/failure_test.cpp.
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <system_error>

namespace {

using kubex::ApiError;
using kubex::Failure;
using kubex::failure_kind;

Failure api_failure(unsigned status, const std::string& reason, const std::string& extra = "") {
  const std::string body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                           R"("message":"m","reason":")" +
                           reason + R"(")" + extra + R"(,"code":)" + std::to_string(status) + "}";
  return Failure(
      std::make_exception_ptr(ApiError::from_response("GET", "/api/v1/pods", status, body)));
}

template <class E>
Failure failure_of(E e) {
  return Failure(std::make_exception_ptr(std::move(e)));
}

TEST(failure, none) {
  const Failure none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.kind(), failure_kind::none);
  EXPECT_FALSE(none.code());
  EXPECT_TRUE(none.message().empty());
  EXPECT_EQ(none.api_error(), nullptr);
  EXPECT_FALSE(none.retryable());
  EXPECT_FALSE(none.gone());
  EXPECT_FALSE(none.canceled());
  EXPECT_EQ(Failure(std::exception_ptr{}).kind(), failure_kind::none);
  // Rethrowing nothing is a mistake of the caller's, said as such.
  try {
    none.rethrow();
    FAIL() << "rethrow of no failure returned";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
  }
}

TEST(failure, not_found_is_an_api_failure_that_is_not_retried) {
  const Failure f = api_failure(404, "NotFound");
  ASSERT_TRUE(f);
  EXPECT_EQ(f.kind(), failure_kind::api);
  EXPECT_EQ(f.http_status(), 404U);
  EXPECT_EQ(f.code(), kubex::http_status::not_found);
  ASSERT_NE(f.api_error(), nullptr);
  EXPECT_TRUE(is_not_found(*f.api_error()));
  EXPECT_EQ(f.api_error()->status().message, "m");
  EXPECT_EQ(f.message(), "GET /api/v1/pods: 404 Not Found: m (NotFound)");
  EXPECT_FALSE(f.retryable());
  EXPECT_FALSE(f.gone());
  EXPECT_THROW(f.rethrow(), ApiError);
}

TEST(failure, gone_and_expired_mean_list_again) {
  EXPECT_TRUE(api_failure(410, "Gone").gone());
  EXPECT_TRUE(api_failure(410, "Expired").gone());
  // The apiserver answers an expired continue token with reason Expired (status 410); a
  // body that only says Expired still counts.
  EXPECT_TRUE(api_failure(500, "Expired").gone());
  EXPECT_FALSE(api_failure(410, "Gone").retryable());
  EXPECT_FALSE(api_failure(409, "Conflict").gone());
}

TEST(failure, server_answers_that_may_change) {
  for (const unsigned status : {429U, 500U, 502U, 503U, 504U}) {
    EXPECT_TRUE(api_failure(status, "").retryable()) << status;
  }
  // The reason decides when the status does not (an aggregated API that answers oddly).
  EXPECT_TRUE(api_failure(400, "ServerTimeout").retryable());
  EXPECT_TRUE(api_failure(400, "TooManyRequests").retryable());
  for (const unsigned status : {400U, 401U, 403U, 404U, 405U, 409U, 415U, 422U}) {
    EXPECT_FALSE(api_failure(status, "").retryable()) << status;
  }
  const Failure throttled =
      api_failure(429, "TooManyRequests", R"(,"details":{"retryAfterSeconds":3})");
  ASSERT_TRUE(throttled.retry_after().has_value());
  EXPECT_EQ(*throttled.retry_after(), std::chrono::seconds(3));
  EXPECT_FALSE(api_failure(404, "NotFound").retry_after().has_value());
}

TEST(failure, transport_failures_are_retried_except_a_bad_certificate) {
  for (const auto e : {std::errc::connection_reset, std::errc::connection_refused,
                       std::errc::timed_out, std::errc::broken_pipe}) {
    const Failure f = failure_of(kubex::Error(std::make_error_code(e), "GET /api: read"));
    EXPECT_EQ(f.kind(), failure_kind::transport) << f.message();
    EXPECT_TRUE(f.retryable()) << f.message();
    EXPECT_EQ(f.http_status(), 0U);
    EXPECT_EQ(f.api_error(), nullptr);
  }
  // An errno from the socket layer, as Asio reports it.
  EXPECT_EQ(
      failure_of(kubex::Error(std::error_code(ECONNRESET, std::system_category()), "x")).kind(),
      failure_kind::transport);
  const Failure tls = failure_of(kubex::Error(kubex::errc::tls_verification_failed, "handshake"));
  EXPECT_EQ(tls.kind(), failure_kind::transport);
  EXPECT_FALSE(tls.retryable());
  // A std::system_error from a caller's own code is classified by its code too.
  EXPECT_EQ(
      failure_of(std::system_error(std::make_error_code(std::errc::connection_refused))).kind(),
      failure_kind::transport);
}

TEST(failure, cancellation_stops) {
  const Failure generic =
      failure_of(kubex::Error(std::make_error_code(std::errc::operation_canceled), "GET: x"));
  EXPECT_EQ(generic.kind(), failure_kind::canceled);
  EXPECT_TRUE(generic.canceled());
  EXPECT_FALSE(generic.retryable());
  const Failure system =
      failure_of(kubex::Error(std::error_code(ECANCELED, std::system_category()), "x"));
  EXPECT_TRUE(system.canceled());
}

TEST(failure, kubex_codes) {
  EXPECT_EQ(failure_of(kubex::ConfigError("kubeconfig /p: users[a].token: empty")).kind(),
            failure_kind::config);
  EXPECT_EQ(failure_of(kubex::json::DecodeError("expected an integer")).kind(),
            failure_kind::decode);
  EXPECT_EQ(failure_of(kubex::Error(kubex::errc::invalid_protobuf, "bad")).kind(),
            failure_kind::decode);
  // An item over its size limit is not a malformed one: its own kind and predicate.
  const auto big = failure_of(kubex::Error(std::make_error_code(std::errc::message_size), "big"));
  EXPECT_EQ(big.kind(), failure_kind::too_large);
  EXPECT_TRUE(big.too_large());
  EXPECT_FALSE(big.retryable());
  EXPECT_FALSE(failure_of(kubex::Error(kubex::errc::invalid_json, "bad")).too_large());
  for (const auto e : {kubex::errc::invalid_path, kubex::errc::invalid_url,
                       kubex::errc::invalid_quantity, kubex::errc::invalid_argument}) {
    const Failure f = failure_of(kubex::Error(e, "bad"));
    EXPECT_EQ(f.kind(), failure_kind::invalid_argument) << f.message();
    EXPECT_FALSE(f.retryable());
    EXPECT_EQ(f.code(), e);
  }
}

TEST(failure, other_exceptions) {
  const Failure runtime = failure_of(std::runtime_error("reconciler bug"));
  EXPECT_EQ(runtime.kind(), failure_kind::other);
  EXPECT_EQ(runtime.message(), "reconciler bug");
  EXPECT_FALSE(runtime.code());
  EXPECT_FALSE(runtime.retryable());
  const Failure odd = failure_of(42);
  EXPECT_EQ(odd.kind(), failure_kind::other);
  EXPECT_EQ(odd.message(), "unknown exception");
  EXPECT_THROW(odd.rethrow(), int);
}

TEST(failure, copies_share_the_server_answer) {
  Failure copy;
  {
    const Failure original = api_failure(409, "AlreadyExists");
    copy = original;
  }
  ASSERT_NE(copy.api_error(), nullptr);
  EXPECT_TRUE(is_already_exists(*copy.api_error()));
  EXPECT_EQ(copy.http_status(), 409U);
}

TEST(failure, kind_names) {
  EXPECT_EQ(kubex::to_string(failure_kind::none), "none");
  EXPECT_EQ(kubex::to_string(failure_kind::canceled), "canceled");
  EXPECT_EQ(kubex::to_string(failure_kind::transport), "transport");
  EXPECT_EQ(kubex::to_string(failure_kind::api), "api");
  EXPECT_EQ(kubex::to_string(failure_kind::decode), "decode");
  EXPECT_EQ(kubex::to_string(failure_kind::too_large), "too_large");
  EXPECT_EQ(kubex::to_string(failure_kind::config), "config");
  EXPECT_EQ(kubex::to_string(failure_kind::invalid_argument), "invalid_argument");
  EXPECT_EQ(kubex::to_string(failure_kind::other), "other");
}

}  // namespace
