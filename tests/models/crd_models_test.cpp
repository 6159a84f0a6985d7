// SPDX-License-Identifier: Apache-2.0
// Models generated at build time from tests/crd/crontab.yaml (kubex_crd_models): typed access,
// lossless round-trips, enum and int-or-string fields, and the resource traits taken from the
// CRD (group, versions, plural, scope, subresources). The same types are used against the real
// apiserver in tests/integration/crd_test.cpp.
#include <kubex/core/json.hpp>
#include <kubex/testing/crontab.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

namespace v1 = kubex_test::crd::v1;
namespace v1beta1 = kubex_test::crd::v1beta1;
namespace v1alpha1 = kubex_test::crd::v1alpha1;
using kubex::resource_traits;
using kubex::json::decode;
using kubex::json::encode;

static_assert(kubex::namespace_scoped<v1::CronTab>);
static_assert(kubex::namespace_scoped<v1beta1::CronTab>);
static_assert(kubex::cluster_scoped<v1alpha1::ClusterWidget>);
static_assert(resource_traits<v1::CronTab>::api_version == "stable.example.com/v1");
static_assert(resource_traits<v1beta1::CronTab>::api_version == "stable.example.com/v1beta1");
static_assert(resource_traits<v1::CronTab>::plural == "crontabs");
static_assert(kubex::has_subresource<v1::CronTab>("status"));
static_assert(kubex::has_subresource<v1::CronTab>("scale"));
// Subresources are per version: v1beta1 enables none.
static_assert(!kubex::has_subresource<v1beta1::CronTab>("status"));
static_assert(!kubex::has_subresource<v1alpha1::ClusterWidget>("status"));
// Required fields are held by value, optional ones are optional.
static_assert(std::is_same_v<decltype(v1::CronTabSpec::image), std::string>);
static_assert(std::is_same_v<decltype(v1::CronTabSpec::replicas), std::optional<std::int32_t>>);
static_assert(
    std::is_same_v<decltype(v1::CronTabSpec::max_surge), std::optional<kubex::IntOrString>>);
static_assert(std::is_same_v<decltype(v1::CronTabSpec::config), kubex::RawJson>);

const std::string crontab_json =
    R"({"apiVersion":"stable.example.com/v1","kind":"CronTab",)"
    R"("metadata":{"labels":{"team":"a"},"name":"nightly","namespace":"jobs"},)"
    R"("spec":{"cronSpec":"0 3 * * *","image":"busybox:1.36","replicas":2,)"
    R"("concurrencyPolicy":"Forbid","maxSurge":"25%","suspendUntil":"2026-12-01T00:00:00Z",)"
    R"("ratio":0.5,"paused":false,"env":{"A":"1"},)"
    R"("ports":[{"name":"http","port":8080,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"SCTP"}],)"
    R"("template":{"labels":{"x":"y"},"tolerations":[{"key":"k","operator":"Exists"}]},)"
    R"("config":{"free":["form",1,{"n":null}]},"tags":["a","b"],"future":{"x":1}},)"
    R"("status":{"replicas":2,"selector":"app=nightly","conditions":[{"type":"Ready",)"
    R"("status":"True","lastTransitionTime":"2026-11-30T08:00:00Z"}]}})";

TEST(CrdModels, DecodesEveryFieldType) {
  const auto c = decode<v1::CronTab>(crontab_json);
  EXPECT_EQ(c.metadata.name, "nightly");
  ASSERT_TRUE(c.spec);
  const auto& s = *c.spec;
  EXPECT_EQ(s.cron_spec, "0 3 * * *");
  EXPECT_EQ(s.replicas, 2);
  ASSERT_TRUE(s.concurrency_policy);
  EXPECT_EQ(*s.concurrency_policy, v1::CronTabSpecConcurrencyPolicy::Forbid);
  ASSERT_TRUE(s.max_surge);
  EXPECT_FALSE(s.max_surge->is_int());
  EXPECT_EQ(s.max_surge->string_value(), "25%");
  EXPECT_EQ(s.suspend_until->format(), "2026-12-01T00:00:00Z");
  ASSERT_EQ(s.ports.size(), 2U);
  EXPECT_EQ(s.ports[0].port, 8080);
  // Values the schema's enum does not list are kept, not rejected.
  ASSERT_TRUE(s.ports[1].protocol);
  EXPECT_FALSE(s.ports[1].protocol->is_known());
  EXPECT_EQ(s.ports[1].protocol->value(), "SCTP");
  ASSERT_TRUE(s.template_);
  EXPECT_EQ(s.template_->tolerations.at(0).operator_, "Exists");
  EXPECT_EQ(s.config.text, R"({"free":["form",1,{"n":null}]})");
  ASSERT_EQ(s.unknown_fields.fields().size(), 1U);
  EXPECT_EQ(s.unknown_fields.fields()[0].first, "future");
  ASSERT_TRUE(c.status);
  EXPECT_EQ(c.status->conditions.at(0).status, v1::CronTabStatusConditionsItemStatus::True);
}

TEST(CrdModels, RoundTripIsLossless) {
  const auto c = decode<v1::CronTab>(crontab_json);
  // Same fields in the schema's order; unknown ones last in their object.
  EXPECT_EQ(encode(c), crontab_json);
  EXPECT_EQ(decode<v1::CronTab>(encode(c)), c);
}

TEST(CrdModels, NewObjectsCarryApiVersionAndKind) {
  v1alpha1::ClusterWidget w;
  w.metadata.name = "w";
  w.spec.ensure().size = 3;
  EXPECT_EQ(encode(w), R"({"apiVersion":"infra.example.com/v1alpha1","kind":"ClusterWidget",)"
                       R"("metadata":{"name":"w"},"spec":{"size":3}})");
}

TEST(CrdModels, BadInputNamesThePath) {
  try {
    (void)decode<v1::CronTab>(R"({"spec":{"ports":[{"name":"a","port":"eighty"}]}})");
    FAIL() << "no error";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(e.path(), "spec.ports[0].port");
  }
}

}  // namespace
