// SPDX-License-Identifier: Apache-2.0
// Integration tests against a real kube-apiserver started by tools/testenv: what the cluster
// looks like through kubex, cross-checked against kubectl. Transport behaviour is in
// https_test.cpp; see kubex/testing/testenv_fixture.hpp for the testenv's contexts.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/path.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace {

using kubex::client::BlockingClient;
using kubex::client::HttpResponse;

constexpr std::string_view expected_git_version = "v1.35.4";

// Parses `response.body` as JSON; simdjson needs padding after the text.
simdjson::ondemand::document parse(simdjson::ondemand::parser& parser,
                                   simdjson::padded_string& storage, const HttpResponse& response) {
  storage = simdjson::padded_string(response.body);
  return parser.iterate(storage);
}

std::set<std::string> item_names(const HttpResponse& response) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string storage;
  auto doc = parse(parser, storage, response);
  std::set<std::string> names;
  for (auto item : doc["items"].get_array()) {
    names.emplace(std::string_view(item["metadata"]["name"].get_string()));
  }
  return names;
}

std::set<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::set<std::string> result;
  for (std::string word; in >> word;) {
    result.insert(word);
  }
  return result;
}

class testenv_test : public kubex::testing::TestenvTest {};

TEST_F(testenv_test, version_with_admin_token) {
  const auto cfg = config();
  ASSERT_EQ(cfg.context_name, "admin");
  ASSERT_FALSE(cfg.token.empty());
  BlockingClient connection(cfg);
  const auto response = connection.get("/version");
  ASSERT_EQ(response.status, 200U) << response.body;
  EXPECT_EQ(response.content_type.rfind("application/json", 0), 0U) << response.content_type;

  simdjson::ondemand::parser parser;
  simdjson::padded_string storage;
  auto doc = parse(parser, storage, response);
  EXPECT_EQ(std::string_view(doc["gitVersion"].get_string()), expected_git_version);
}

TEST_F(testenv_test, namespace_list_matches_kubectl) {
  const std::string& own = own_namespace();
  BlockingClient connection(config("admin"));
  const auto path = kubex::resource_path({.version = "v1", .resource = "namespaces"});
  // Namespaces of other tests may come and go meanwhile (deletion finishes in the background);
  // compare only when kubectl saw the same list before and after kubex's request.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const auto kubectl_list = "get namespaces -o jsonpath='{.items[*].metadata.name}'";
    const auto before = words(testenv().kubectl(kubectl_list));
    const auto response = connection.get(path);
    ASSERT_EQ(response.status, 200U) << response.body;
    const auto after = words(testenv().kubectl(kubectl_list));
    if (before != after) {
      continue;
    }
    const auto names = item_names(response);
    EXPECT_EQ(names, before);
    EXPECT_TRUE(names.contains(own));
    EXPECT_TRUE(names.contains("default"));
    EXPECT_TRUE(names.contains("kube-system"));
    return;
  }
  FAIL() << "the namespace list kept changing during 10 attempts";
}

TEST_F(testenv_test, unprivileged_user_is_forbidden_to_list_namespaces) {
  BlockingClient connection(config("user"));
  const auto response = connection.get("/api/v1/namespaces");
  ASSERT_EQ(response.status, 403U) << response.body;

  simdjson::ondemand::parser parser;
  simdjson::padded_string storage;
  auto doc = parse(parser, storage, response);
  EXPECT_EQ(std::string_view(doc["kind"].get_string()), "Status");
  EXPECT_EQ(std::string_view(doc["reason"].get_string()), "Forbidden");
}

TEST_F(testenv_test, unprivileged_user_lists_pods_in_its_namespace) {
  const auto cfg = config("user");
  ASSERT_EQ(cfg.namespace_name, "kubex-user");
  BlockingClient connection(cfg);
  const auto response = connection.get(kubex::resource_path(
      {.version = "v1", .resource = "pods", .namespace_name = cfg.namespace_name}));
  ASSERT_EQ(response.status, 200U) << response.body;
  EXPECT_EQ(
      item_names(response),
      words(testenv().kubectl("get pods -n kubex-user -o jsonpath='{.items[*].metadata.name}'")));
}

}  // namespace
