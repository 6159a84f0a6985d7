// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using kubex::escape_path_segment;
using kubex::is_valid_path_segment;
using kubex::resource_path;

TEST(path_test, escape_keeps_unreserved_characters) {
  EXPECT_EQ(escape_path_segment("kube-system"), "kube-system");
  EXPECT_EQ(escape_path_segment("a.b_c~d"), "a.b_c~d");
  EXPECT_EQ(escape_path_segment("system:node:worker-1"), "system:node:worker-1");
  EXPECT_EQ(escape_path_segment("user@example.com"), "user@example.com");
}

TEST(path_test, escape_encodes_everything_else) {
  EXPECT_EQ(escape_path_segment("a b"), "a%20b");
  EXPECT_EQ(escape_path_segment("a/b"), "a%2Fb");
  EXPECT_EQ(escape_path_segment("a?b#c"), "a%3Fb%23c");
  EXPECT_EQ(escape_path_segment("100%"), "100%25");
  EXPECT_EQ(escape_path_segment("a+b=c&d"), "a%2Bb%3Dc%26d");
  EXPECT_EQ(escape_path_segment("\xC3\xA9"), "%C3%A9");  // UTF-8 e-acute
  EXPECT_EQ(escape_path_segment(std::string("a\0b", 3)), "a%00b");
  EXPECT_EQ(escape_path_segment(""), "");
}

TEST(path_test, valid_segments_follow_client_go) {
  EXPECT_TRUE(is_valid_path_segment("default"));
  EXPECT_TRUE(is_valid_path_segment("..."));
  EXPECT_TRUE(is_valid_path_segment("a.b"));
  EXPECT_FALSE(is_valid_path_segment(""));
  EXPECT_FALSE(is_valid_path_segment("."));
  EXPECT_FALSE(is_valid_path_segment(".."));
  EXPECT_FALSE(is_valid_path_segment("a/b"));
  EXPECT_FALSE(is_valid_path_segment("a%2Fb"));
}

TEST(path_test, core_group_paths) {
  EXPECT_EQ(resource_path({.version = "v1", .resource = "namespaces"}), "/api/v1/namespaces");
  EXPECT_EQ(resource_path({.version = "v1", .resource = "pods", .namespace_name = "default"}),
            "/api/v1/namespaces/default/pods");
  EXPECT_EQ(resource_path({.version = "v1",
                           .resource = "pods",
                           .namespace_name = "default",
                           .name = "web-0",
                           .subresource = "log"}),
            "/api/v1/namespaces/default/pods/web-0/log");
  EXPECT_EQ(resource_path({.version = "v1", .resource = "namespaces", .name = "kube-system"}),
            "/api/v1/namespaces/kube-system");
}

TEST(path_test, named_group_paths) {
  EXPECT_EQ(resource_path({.group = "apps",
                           .version = "v1",
                           .resource = "deployments",
                           .namespace_name = "web",
                           .name = "front",
                           .subresource = "scale"}),
            "/apis/apps/v1/namespaces/web/deployments/front/scale");
  EXPECT_EQ(resource_path({.group = "rbac.authorization.k8s.io",
                           .version = "v1",
                           .resource = "clusterroles",
                           .name = "system:controller:job-controller"}),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job-controller");
}

TEST(path_test, names_are_escaped) {
  EXPECT_EQ(resource_path(
                {.version = "v1", .resource = "configmaps", .namespace_name = "n", .name = "a b?"}),
            "/api/v1/namespaces/n/configmaps/a%20b%3F");
}

// Returns the message of the kubex::Error thrown by resource_path, or "" if none was thrown.
std::string path_error(const kubex::ResourcePathParts& parts) {
  try {
    (void)resource_path(parts);
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_path);
    return e.what();
  }
  return {};
}

TEST(path_test, rejects_unusable_segments) {
  EXPECT_EQ(path_error({.version = "v1", .resource = "pods", .namespace_name = "a/b"}),
            "resource path: namespace \"a/b\" must not contain '/'");
  EXPECT_EQ(path_error({.version = "v1", .resource = "pods", .name = ".."}),
            "resource path: name \"..\" must not be \".\" or \"..\"");
  EXPECT_EQ(path_error({.version = "v1", .resource = "pods", .name = "50%"}),
            "resource path: name \"50%\" must not contain '%'");
  EXPECT_EQ(path_error({.version = "v1", .resource = ""}), "resource path: resource is required");
  EXPECT_EQ(path_error({.resource = "pods"}), "resource path: version is required");
  EXPECT_EQ(path_error({.version = "v1", .resource = "pods", .subresource = "log"}),
            "resource path: name (needed by a subresource) is required");
}

}  // namespace
