// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <system_error>

namespace {

TEST(error_test, codes_belong_to_the_kubex_category) {
  const std::error_code code = kubex::errc::tls_verification_failed;
  EXPECT_STREQ(code.category().name(), "kubex");
  EXPECT_EQ(code.message(), "TLS certificate verification failed");
  EXPECT_EQ(code, kubex::errc::tls_verification_failed);
  EXPECT_NE(code, kubex::errc::invalid_config);
  EXPECT_EQ(kubex::make_error_code(kubex::errc::invalid_path).message(), "invalid request path");
}

TEST(error_test, config_error_keeps_the_message_verbatim) {
  const kubex::ConfigError error("kubeconfig /p: users[a].token: missing");
  EXPECT_STREQ(error.what(), "kubeconfig /p: users[a].token: missing");
  EXPECT_EQ(error.code(), kubex::errc::invalid_config);

  // Callers can catch every kubex failure through one base class.
  try {
    throw kubex::ConfigError("x");
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_config);
  }
}

}  // namespace
