// SPDX-License-Identifier: Apache-2.0
// Test helpers of the model tests: the objects testenv's kube-apiserver v1.35.4 sent
// (tests/fixtures/v1.35.4), and a semantic comparison of JSON documents.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kubex::testing {

/// The captured object `name` (e.g. "pod.json"), as the server sent it.
inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KUBEX_FIXTURES_DIR) + "/v1.35.4/" + name, std::ios::binary);
  if (!in) {
    throw std::runtime_error("missing fixture " + name);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Compares JSON values semantically. The encoder may leave out a null, an empty list or an
/// empty object the server sent (Go decodes each of them like an absent field), and may add
/// apiVersion/kind to list items (kubex always sends them); anything else must match exactly.
inline void expect_same(simdjson::dom::element a, simdjson::dom::element b,
                        const std::string& path) {
  using simdjson::dom::element_type;
  ASSERT_EQ(a.type(), b.type()) << path;
  switch (a.type()) {
    case element_type::OBJECT: {
      auto ao = a.get_object().value();
      auto bo = b.get_object().value();
      for (auto [k, v] : ao) {
        auto other = bo.at_key(k);
        if (other.error()) {
          const bool empty = v.is_null() || (v.is_array() && v.get_array().size() == 0) ||
                             (v.is_object() && v.get_object().size() == 0);
          EXPECT_TRUE(empty) << path << "." << k << " lost";
          continue;
        }
        expect_same(v, other.value(), path + "." + std::string(k));
      }
      for (auto [k, v] : bo) {
        if (ao.at_key(k).error()) {
          EXPECT_TRUE(k == "apiVersion" || k == "kind") << path << "." << k << " added";
        }
      }
      break;
    }
    case element_type::ARRAY: {
      auto aa = a.get_array().value();
      auto ba = b.get_array().value();
      ASSERT_EQ(aa.size(), ba.size()) << path;
      for (std::size_t i = 0; i < aa.size(); ++i) {
        expect_same(aa.at(i).value(), ba.at(i).value(), path + "[" + std::to_string(i) + "]");
      }
      break;
    }
    case element_type::STRING:
      EXPECT_EQ(a.get_string().value(), b.get_string().value()) << path;
      break;
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      EXPECT_EQ(a.get_double().value(), b.get_double().value()) << path;
      break;
    case element_type::BOOL:
      EXPECT_EQ(a.get_bool().value(), b.get_bool().value()) << path;
      break;
    case element_type::NULL_VALUE:
      break;
  }
}

}  // namespace kubex::testing
