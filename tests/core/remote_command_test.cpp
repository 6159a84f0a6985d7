// SPDX-License-Identifier: Apache-2.0
// The channel protocol of exec and attach: message framing and the exit code the error
// channel's Status carries, including the Statuses a broken server might send.

#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/remote_command.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

namespace rc = kubex::remote_command;

TEST(remote_command_test, frames) {
  EXPECT_EQ(rc::frame(rc::Channel::stdin_stream, "ab"), std::string("\0ab", 3));
  EXPECT_EQ(rc::close_frame(rc::Channel::stdin_stream), std::string("\xff\0", 2));
  EXPECT_EQ(rc::resize_frame(100, 40), std::string("\x04{\"Width\":100,\"Height\":40}"));
}

TEST(remote_command_test, exit_codes) {
  EXPECT_EQ(rc::exit_code("exec", R"({"metadata":{},"status":"Success"})"), 0);
  EXPECT_EQ(rc::exit_code("exec", R"({"metadata":{},"status":"Failure","message":"command )"
                                  R"(terminated with non-zero exit code: 137","reason":)"
                                  R"("NonZeroExitCode","details":{"causes":[{"reason":)"
                                  R"("ExitCode","message":"137"}]}})"),
            137);
}

TEST(remote_command_test, a_failure_is_an_api_error_naming_the_request) {
  try {
    (void)rc::exit_code("GET /api/v1/namespaces/d/pods/p/exec",
                        R"({"status":"Failure","message":"error executing command in container: )"
                        R"(exec: \"nope\": executable file not found in $PATH","reason":)"
                        R"("InternalError","code":500})");
    FAIL() << "expected an ApiError";
  } catch (const kubex::ApiError& e) {
    EXPECT_EQ(e.http_status(), 500U);
    EXPECT_EQ(e.reason(), "InternalError");
    EXPECT_EQ(std::string(e.what()),
              "GET /api/v1/namespaces/d/pods/p/exec: 500 Internal Server Error: error executing "
              "command in container: exec: \"nope\": executable file not found in $PATH "
              "(InternalError)");
  }
}

TEST(remote_command_test, malformed_statuses_are_invalid_json) {
  for (const char* bad : {"", "not json", R"({"status":)", R"({"status":"Maybe"})",
                          R"({"status":"Failure","reason":"NonZeroExitCode"})",
                          R"({"status":"Failure","reason":"NonZeroExitCode","details":)"
                          R"({"causes":[{"reason":"ExitCode","message":"x1"}]}})",
                          R"({"status":"Failure","reason":"NonZeroExitCode","details":)"
                          R"({"causes":[{"reason":"ExitCode","message":"0"}]}})"}) {
    try {
      (void)rc::exit_code("exec", bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const kubex::ApiError& e) {
      ADD_FAILURE() << "an ApiError for " << bad << ": " << e.what();
    } catch (const kubex::Error& e) {
      EXPECT_EQ(e.code(), kubex::errc::invalid_json) << bad;
    }
  }
}

}  // namespace
