// SPDX-License-Identifier: Apache-2.0
// Typed partial server-side apply against the real apiserver: a Deployment and a custom
// resource applied with only the field a manager means to own (their required fields left
// unset are not sent), the status applied the same way, and the fields one manager owns
// extracted, changed and applied again. kubectl, the independent client, reads the results.

#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/managed_fields.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/testing/crontab.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

namespace apps = kubex::k8s::v1_35::apps::v1;
namespace crd = kubex_test::crd::v1;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;

class partial_apply_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    ns_ = own_namespace();
    client_.emplace(config());
  }
  std::string kubectl(const std::string& args) {
    return testenv().kubectl("-n " + ns_ + " " + args);
  }
  // The fieldsV1 of `manager`'s entry in `resource`'s managedFields, as kubectl shows it.
  std::string owned_by(const std::string& resource, const std::string& manager) {
    return kubectl("get " + resource + R"( -o jsonpath='{.metadata.managedFields[?(@.manager==")" +
                   manager + R"(")].fieldsV1}')");
  }

  std::string ns_;
  std::optional<BlockingClient> client_;
};

TEST_F(partial_apply_test, a_deployment_applied_with_only_its_replicas_claims_only_them) {
  kubectl("create deployment web --image=nginx:1.27 --replicas=1");
  auto deployments = BlockingApi<apps::Deployment>::namespaced(*client_, ns_);
  apps::Deployment scale;
  scale.metadata.name = "web";
  scale.spec.emplace().replicas = 5;  // selector and template, required, left unset
  const apps::Deployment applied = deployments.apply(scale, "scaler", true);
  EXPECT_EQ(applied.spec->replicas, 5);
  EXPECT_EQ(kubectl("get deployment web -o jsonpath='{.spec.replicas}'"), "5");
  EXPECT_EQ(kubectl("get deployment web -o jsonpath='{.spec.template.spec.containers[0].image}'"),
            "nginx:1.27");
  EXPECT_EQ(owned_by("deployment web", "scaler"), R"({"f:spec":{"f:replicas":{}}})");

  // Extract what "scaler" owns, change it, apply it again: nothing else is taken.
  apps::Deployment mine = kubex::extract_applied(deployments.get("web"), "scaler");
  std::string sent;
  kubex::json::encode(mine, sent, kubex::json::Writer::Mode::partial);
  EXPECT_EQ(sent, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web",)"
                  R"("namespace":")" +
                      ns_ + R"("},"spec":{"replicas":5}})");
  mine.spec->replicas = 2;
  (void)deployments.apply(mine, "scaler", false);  // no conflict: it owns replicas already
  EXPECT_EQ(kubectl("get deployment web -o jsonpath='{.spec.replicas}'"), "2");
  EXPECT_EQ(owned_by("deployment web", "scaler"), R"({"f:spec":{"f:replicas":{}}})");
}

TEST_F(partial_apply_test, a_custom_resource_and_its_status_are_applied_partially) {
  testenv().kubectl("apply -f " + kubex::testing::shell_quote(KUBEX_CRD_MANIFEST));
  testenv().kubectl(
      "wait --for=condition=Established --timeout=60s crd/crontabs.stable.example.com");
  kubectl(
      "apply -f - <<'EOF'\n"
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},)"
      R"("spec":{"cronSpec":"0 3 * * *","image":"busybox:1.36","replicas":2}})"
      "\nEOF");
  auto crontabs = BlockingApi<crd::CronTab>::namespaced(*client_, ns_);
  crd::CronTab scale;
  scale.metadata.name = "nightly";
  scale.spec.emplace().replicas = 4;  // cronSpec and image, required, left unset
  (void)crontabs.apply(scale, "scaler", true);
  EXPECT_EQ(
      kubectl("get crontab nightly -o jsonpath='{.spec.cronSpec}/{.spec.image}/{.spec.replicas}'"),
      "0 3 * * */busybox:1.36/4");
  EXPECT_EQ(owned_by("crontab nightly", "scaler"), R"({"f:spec":{"f:replicas":{}}})");

  crd::CronTab status;
  status.metadata.name = "nightly";
  status.status.emplace().replicas = 7;
  (void)crontabs.apply_status(status, "scaler", true);
  EXPECT_EQ(kubectl("get crontab nightly -o jsonpath='{.status.replicas}'"), "7");
  const crd::CronTab mine = kubex::extract_applied(crontabs.get("nightly"), "scaler", "status");
  ASSERT_TRUE(mine.status);
  EXPECT_EQ(mine.status->replicas, 7);
  EXPECT_FALSE(mine.spec);  // the spec fields it owns were applied to the object, not status
}

}  // namespace
