// SPDX-License-Identifier: Apache-2.0
// meta/v1 Status in protobuf, as the apiserver sends it to a client that asked for protobuf:
// read directly, and through ApiError::from_response, which must give the same error as the
// JSON Status does.

#include <kubex/core/api_error.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_status.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

namespace pb = kubex::protobuf;

// A NotFound Status for pods "web", as the apiserver encodes it.
std::string not_found_body() {
  std::string raw;
  pb::Writer w(raw);
  w.message(1, [](pb::Writer&) {});  // metadata
  w.bytes(2, "Failure");
  w.bytes(3, "pods \"web\" not found");
  w.bytes(4, "NotFound");
  w.message(5, [](pb::Writer& d) {
    d.bytes(1, "web");
    d.bytes(3, "pods");
    d.message(4, [](pb::Writer& c) {
      c.bytes(1, "FieldValueRequired");
      c.bytes(2, "Required value");
      c.bytes(3, "spec.containers");
    });
    d.int64(5, 3);
  });
  w.int64(6, 404);
  return pb::seal_envelope("v1", "Status", raw);
}

TEST(protobuf_status, reads_every_field) {
  const std::string body = not_found_body();
  const auto status = pb::status_of_body(body);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->status, "Failure");
  EXPECT_EQ(status->message, "pods \"web\" not found");
  EXPECT_EQ(status->reason, "NotFound");
  EXPECT_EQ(status->code, 404);
  ASSERT_TRUE(status->details.has_value());
  EXPECT_EQ(status->details->name, "web");
  EXPECT_EQ(status->details->kind, "pods");
  ASSERT_EQ(status->details->causes.size(), 1U);
  EXPECT_EQ(status->details->causes[0].field, "spec.containers");
  EXPECT_EQ(status->details->retry_after_seconds, 3);
}

TEST(protobuf_status, api_errors_from_a_protobuf_status_read_as_from_json) {
  const auto from_proto =
      kubex::ApiError::from_response("GET", "/api/v1/namespaces/a/pods/web", 404, not_found_body());
  EXPECT_TRUE(kubex::is_not_found(from_proto));
  EXPECT_EQ(std::string(from_proto.what()),
            "GET /api/v1/namespaces/a/pods/web: 404 Not Found: pods \"web\" not found (NotFound)");
  EXPECT_EQ(from_proto.status().details->name, "web");
}

TEST(protobuf_status, other_bodies_are_no_status) {
  EXPECT_FALSE(pb::status_of_body("{\"kind\":\"Status\"}").has_value());
  EXPECT_FALSE(pb::status_of_body(pb::seal_envelope("v1", "Pod", "")).has_value());
  std::string truncated = not_found_body();
  truncated.resize(truncated.size() - 3);
  EXPECT_FALSE(pb::status_of_body(truncated).has_value());
}

}  // namespace
