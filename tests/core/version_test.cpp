// SPDX-License-Identifier: Apache-2.0
#include <kubex/version.hpp>

#include <gtest/gtest.h>

#include <string>

#ifndef KUBEX_TEST_PROJECT_VERSION
#error "KUBEX_TEST_PROJECT_VERSION must be set to CMake's PROJECT_VERSION"
#endif

// The header is generated from project(VERSION); the test gets that version straight from CMake.
TEST(Version, HeaderMatchesTheProjectVersion) {
  EXPECT_STREQ(KUBEX_VERSION_STRING, KUBEX_TEST_PROJECT_VERSION);
  EXPECT_EQ(std::to_string(KUBEX_VERSION_MAJOR) + "." + std::to_string(KUBEX_VERSION_MINOR) + "." +
                std::to_string(KUBEX_VERSION_PATCH),
            KUBEX_VERSION_STRING);
  EXPECT_EQ(KUBEX_VERSION,
            KUBEX_VERSION_MAJOR * 10000 + KUBEX_VERSION_MINOR * 100 + KUBEX_VERSION_PATCH);
}

TEST(Version, LibraryReportsItsVersion) {
  EXPECT_EQ(kubex::version(), KUBEX_VERSION_STRING);
}

// Usable in the preprocessor, as users gate code on a release.
#if KUBEX_VERSION < 100
#error "KUBEX_VERSION is below 0.1.0"
#endif
