// SPDX-License-Identifier: Apache-2.0
// Two Kubernetes versions' models in one program: each version has its own namespace, types
// and codecs, so a tool can read with one and write with another. Uses v1.34 next to the
// default v1.35 on a Pod the v1.35.4 server sent.
#include <kubex/core/json.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/k8s/v1_34/core/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

namespace {

namespace v34 = kubex::k8s::v1_34::core::v1;
namespace v35 = kubex::k8s::v1_35::core::v1;
using kubex::json::decode;
using kubex::json::encode;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KUBEX_FIXTURES_DIR) + "/v1.35.4/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(versions, two_versions_side_by_side) {
  static_assert(!std::is_same_v<v34::Pod, v35::Pod>);
  static_assert(kubex::resource_traits<v34::Pod>::plural == "pods");
  static_assert(kubex::resource_traits<v35::Pod>::plural == "pods");

  const std::string json = fixture("pod.json");
  ASSERT_FALSE(json.empty());
  const auto old_pod = decode<v34::Pod>(json);
  const auto new_pod = decode<v35::Pod>(json);
  ASSERT_TRUE(old_pod.metadata.name.has_value());
  EXPECT_EQ(old_pod.metadata.name, new_pod.metadata.name);
  ASSERT_TRUE(old_pod.spec && new_pod.spec);
  EXPECT_EQ(old_pod.spec->containers.size(), new_pod.spec->containers.size());
  // What v1.34 does not know it keeps, so writing with v1.34 loses nothing v1.35 reads.
  EXPECT_EQ(decode<v35::Pod>(encode(old_pod)), new_pod);
  EXPECT_EQ(decode<v34::Pod>(encode(new_pod)), old_pod);
}

}  // namespace
