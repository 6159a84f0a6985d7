// SPDX-License-Identifier: Apache-2.0
// Field sets applied to objects: what client-go's Extract<Kind> returns for a field manager,
// from the fieldsV1 the apiserver records (the sets here are copied from a v1.35 apiserver's
// answers to server-side applies of a Deployment).

#include <kubex/core/error.hpp>
#include <kubex/core/managed_fields.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

const std::string deployment = R"({
  "apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"ns","labels":{"app":"web","team":"a"},
    "managedFields":[
      {"manager":"kubectl","operation":"Update","fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}},
      {"manager":"scaler","operation":"Apply","subresource":"status","fieldsV1":{"f:status":{}}},
      {"manager":"scaler","operation":"Apply","fieldsV1":{"f:spec":{"f:replicas":{}}}}
    ]},
  "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
      {"name":"web","image":"nginx:1","ports":[{"containerPort":80,"protocol":"TCP"}]},
      {"name":"sidecar","image":"envoy:1"}]}}},
  "status":{"replicas":3}
})";

TEST(managed_fields, extracts_a_field_a_map_key_and_a_list_item_by_its_keys) {
  const std::string set = R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:template":{"f:spec":{"f:containers":{
      "k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}})";
  EXPECT_EQ(kubex::extract_fields(deployment, set),
            R"({"metadata":{"labels":{"app":"web"}},)"
            R"("spec":{"template":{"spec":{"containers":[{"image":"nginx:1","name":"web"}]}}}})");
}

TEST(managed_fields, a_leaf_takes_the_whole_value_and_set_values_and_indexes_select_items) {
  const std::string object = R"({"spec":{"finalizers":["a","b","c"],"args":["x","y"],)"
                             R"("selector":{"matchLabels":{"k":"v"}}}})";
  const std::string set = R"({"f:spec":{"f:finalizers":{"v:\"c\"":{},"v:\"a\"":{}},)"
                          R"("f:args":{"i:1":{}},"f:selector":{}}})";
  EXPECT_EQ(
      kubex::extract_fields(object, set),
      R"({"spec":{"finalizers":["a","c"],"args":["y"],"selector":{"matchLabels":{"k":"v"}}}})");
}

TEST(managed_fields, a_field_owned_but_since_removed_is_left_out) {
  EXPECT_EQ(kubex::extract_fields(R"({"spec":{"a":1}})", R"({"f:spec":{"f:a":{},"f:b":{}}})"),
            R"({"spec":{"a":1}})");
}

TEST(managed_fields, finds_the_apply_entry_of_a_manager_for_the_object_or_a_subresource) {
  EXPECT_EQ(kubex::applied_fields(deployment, "scaler"), R"({"f:spec":{"f:replicas":{}}})");
  EXPECT_EQ(kubex::applied_fields(deployment, "scaler", "status"), R"({"f:status":{}})");
  EXPECT_EQ(kubex::applied_fields(deployment, "kubectl"), "");  // an Update, not an Apply
  EXPECT_EQ(kubex::applied_fields(deployment, "nobody"), "");
  EXPECT_EQ(kubex::applied_fields(R"({"metadata":{}})", "scaler"), "");
}

TEST(managed_fields, bad_input_is_a_decode_error_that_says_which_text) {
  try {
    (void)kubex::extract_fields("{", "{}");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("the object is not valid JSON"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)kubex::extract_fields("{}", "[]"), kubex::json::DecodeError);
  EXPECT_THROW((void)kubex::extract_fields(R"({"a":[{"x":1}]})", R"({"f:a":{"k:{bad":{}}})"),
               kubex::json::DecodeError);
  EXPECT_THROW((void)kubex::applied_fields("nope", "m"), kubex::json::DecodeError);
}

}  // namespace
