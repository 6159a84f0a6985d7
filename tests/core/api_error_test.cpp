// SPDX-License-Identifier: Apache-2.0
// ApiError from response bodies: the Status the apiserver sends (these bodies are what
// kube-apiserver v1.35.4 answers, see tests/integration/https_test.cpp for the live check),
// bodies that are not a Status, and the predicates.
#include <kubex/core/api_error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <system_error>

namespace {

using kubex::ApiError;

TEST(api_error, status_of_a_not_found) {
  const auto e = ApiError::from_response(
      "GET", "/api/v1/namespaces/default/pods/x", 404,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"pods \"x\" not found","reason":"NotFound",)"
      R"("details":{"name":"x","kind":"pods"},"code":404})");
  EXPECT_STREQ(e.what(),
               R"(GET /api/v1/namespaces/default/pods/x: 404 Not Found: pods "x" not found )"
               R"((NotFound))");
  EXPECT_EQ(e.http_status(), 404U);
  EXPECT_EQ(e.code(), kubex::http_status::not_found);
  EXPECT_EQ(e.code().category().name(), std::string("kubex.http"));
  EXPECT_EQ(e.code().message(), "Not Found");
  EXPECT_EQ(e.reason(), "NotFound");
  EXPECT_EQ(e.status().status, "Failure");
  EXPECT_EQ(e.status().code, 404);
  ASSERT_TRUE(e.status().details.has_value());
  EXPECT_EQ(e.status().details->name, "x");
  EXPECT_EQ(e.status().details->kind, "pods");
  EXPECT_TRUE(is_not_found(e));
  EXPECT_FALSE(is_conflict(e));
  EXPECT_FALSE(is_gone(e));
  EXPECT_FALSE(e.retry_after().has_value());
  // An ApiError is a kubex::Error and a std::exception.
  const kubex::Error& base = e;
  EXPECT_EQ(base.code().value(), 404);
}

TEST(api_error, causes_and_retry_after) {
  const auto e = ApiError::from_response(
      "POST", "/api/v1/namespaces/default/configmaps", 422,
      R"({"kind":"Status","status":"Failure","message":"ConfigMap \"-\" is invalid",)"
      R"("reason":"Invalid","details":{"name":"-","kind":"ConfigMap","causes":[)"
      R"({"reason":"FieldValueInvalid","message":"Invalid value","field":"metadata.name"}],)"
      R"("retryAfterSeconds":3,"futureDetail":1},"code":422,"futureTop":{}})");
  EXPECT_TRUE(is_invalid(e));
  ASSERT_TRUE(e.status().details.has_value());
  ASSERT_EQ(e.status().details->causes.size(), 1U);
  EXPECT_EQ(e.status().details->causes[0].field, "metadata.name");
  EXPECT_EQ(e.status().details->causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(e.retry_after(), std::chrono::seconds(3));
}

TEST(api_error, already_exists_is_not_a_conflict) {
  const auto exists = ApiError::from_response(
      "POST", "/api/v1/namespaces", 409,
      R"({"kind":"Status","status":"Failure","reason":"AlreadyExists","code":409})");
  EXPECT_TRUE(is_already_exists(exists));
  EXPECT_FALSE(is_conflict(exists));
  const auto stale = ApiError::from_response(
      "PUT", "/api/v1/namespaces/default/configmaps/c", 409,
      R"({"kind":"Status","status":"Failure","reason":"Conflict","code":409})");
  EXPECT_TRUE(is_conflict(stale));
  EXPECT_FALSE(is_already_exists(stale));
}

TEST(api_error, expired_and_gone) {
  EXPECT_TRUE(is_gone(ApiError::from_response(
      "GET", "/api/v1/pods?continue=x", 410,
      R"({"kind":"Status","status":"Failure","reason":"Expired","code":410})")));
  EXPECT_TRUE(is_gone(ApiError::from_response("GET", "/api/v1/pods", 410, "")));
}

TEST(api_error, body_that_is_not_a_status) {
  // A proxy or load balancer in front of the apiserver answers in its own words.
  const auto html = ApiError::from_response("GET", "/api/v1/pods", 503,
                                            "<html>\r\n<b>down \"now\"</b>\x01</html>");
  EXPECT_STREQ(
      html.what(),
      R"(GET /api/v1/pods: 503 Service Unavailable: "<html>\x0D\x0A<b>down \"now\"</b>\x01</html>")");
  EXPECT_TRUE(is_service_unavailable(html));
  EXPECT_EQ(html.reason(), "ServiceUnavailable");  // made up from the status, as client-go does
  EXPECT_EQ(html.status().code, 503);

  // JSON that is not a Status, and broken JSON, are quoted too.
  const auto pod = ApiError::from_response("GET", "/x", 500, R"({"kind":"Pod"})");
  EXPECT_STREQ(pod.what(), R"(GET /x: 500 Internal Server Error: "{\"kind\":\"Pod\"}")");
  EXPECT_TRUE(is_internal_error(pod));
  const auto broken = ApiError::from_response("GET", "/x", 500, R"({"kind":"Status",)");
  EXPECT_STREQ(broken.what(), R"(GET /x: 500 Internal Server Error: "{\"kind\":\"Status\",")");

  // Long bodies are cut, never inside a UTF-8 character.
  std::string long_body(199, 'a');
  long_body += "\xC3\xA9tail";
  const auto cut = ApiError::from_response("GET", "/x", 502, long_body);
  EXPECT_EQ(std::string(cut.what()),
            "GET /x: 502 Bad Gateway: \"" + std::string(199, 'a') + "\"...");

  // No body: the message is still not empty, and an unusual status keeps its number.
  const auto empty = ApiError::from_response("DELETE", "/x", 418, "");
  EXPECT_STREQ(empty.what(), "DELETE /x: 418");
  EXPECT_EQ(empty.code().message(), "HTTP status 418");
  EXPECT_EQ(empty.reason(), "");
}

TEST(api_error, predicates_by_status_alone) {
  struct Case {
    unsigned status;
    bool (*predicate)(const ApiError&) noexcept;
  };
  const Case cases[] = {
      {400, kubex::is_bad_request},
      {401, kubex::is_unauthorized},
      {403, kubex::is_forbidden},
      {404, kubex::is_not_found},
      {405, kubex::is_method_not_allowed},
      {409, kubex::is_conflict},
      {410, kubex::is_gone},
      {422, kubex::is_invalid},
      {429, kubex::is_too_many_requests},
      {500, kubex::is_internal_error},
      {503, kubex::is_service_unavailable},
      {504, kubex::is_timeout},
  };
  for (const auto& c : cases) {
    for (const auto& other : cases) {
      const auto e = ApiError::from_response("GET", "/x", other.status, "");
      EXPECT_EQ(c.predicate(e), c.status == other.status)
          << "predicate for " << c.status << " on " << other.status;
    }
  }
}

TEST(api_error, a_too_large_resource_version_in_each_form_the_apiserver_has_used) {
  const auto status = [](const std::string& message, const std::string& causes) {
    return R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")" + message +
           R"(","reason":"Timeout","details":{"causes":[)" + causes +
           R"(],"retryAfterSeconds":1},"code":504})";
  };
  const auto too_large = [](const std::string& body) {
    return kubex::is_resource_version_too_large(ApiError::from_response("GET", "/x", 504, body));
  };
  // Since 1.18.6: the cause type.
  EXPECT_TRUE(too_large(status("Timeout: Too large resource version: 9, current: 8",
                               R"({"reason":"ResourceVersionTooLarge"})")));
  // 1.17.0 to 1.18.5: a cause message; before 1.17: the message.
  EXPECT_TRUE(too_large(status("Timeout: x", R"({"message":"Too large resource version"})")));
  EXPECT_TRUE(too_large(status("Timeout: Too large resource version: 9, current: 8", "")));
  // Any other timeout, or the text on another status, is not.
  EXPECT_FALSE(too_large(status("Timeout: request did not complete within 60s", "")));
  EXPECT_FALSE(too_large(""));
  EXPECT_FALSE(kubex::is_resource_version_too_large(ApiError::from_response(
      "GET", "/x", 500,
      R"({"kind":"Status","status":"Failure","message":"Too large resource version",)"
      R"("reason":"InternalError","code":500})")));
}

TEST(api_error, error_code_enum) {
  const std::error_code ec = kubex::http_status::too_many_requests;
  EXPECT_EQ(ec.value(), 429);
  EXPECT_EQ(&ec.category(), &kubex::http_category());
  EXPECT_EQ(ec.message(), "Too Many Requests");
  EXPECT_NE(ec, std::error_code(429, std::generic_category()));
}

}  // namespace
