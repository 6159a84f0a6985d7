// SPDX-License-Identifier: Apache-2.0
// Custom resources against the real apiserver: the CRDs of tests/crd/crontab.yaml are installed
// with kubectl, objects are created and changed with kubectl (the independent client) and read
// through kubex with the models generated from the same manifest. Checks that the generated
// traits name the URLs the server serves, that decoding loses nothing the server stores (across
// both served versions), and that the server accepts what kubex encodes.
#include <kubex/client/blocking.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/merge_patch.hpp>
#include <kubex/core/path.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/testing/crontab.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace {

namespace v1 = kubex_test::crd::v1;
namespace v1beta1 = kubex_test::crd::v1beta1;
namespace v1alpha1 = kubex_test::crd::v1alpha1;
using kubex::resource_traits;
using kubex::json::create_merge_patch;
using kubex::json::decode;
using kubex::json::encode;
using kubex::testing::shell_quote;

// The URL of one object (or, with an empty name, of the collection), built from the traits
// alone, as Api<T> will.
template <class T>
std::string object_path(const std::string& ns, const std::string& name,
                        std::string_view subresource = {}) {
  using R = resource_traits<T>;
  return kubex::resource_path({.group = R::group,
                               .version = R::version,
                               .resource = R::plural,
                               .namespace_name = R::scope == kubex::Scope::namespaced ? ns : "",
                               .name = name,
                               .subresource = subresource});
}

class crd_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    testenv().kubectl("apply -f " + shell_quote(KUBEX_CRD_MANIFEST));
    testenv().kubectl(
        "wait --for=condition=Established --timeout=60s "
        "crd/crontabs.stable.example.com crd/clusterwidgets.infra.example.com");
  }

  std::string get(const std::string& path) {
    kubex::client::BlockingClient connection(config());
    auto response = connection.get(path);
    EXPECT_EQ(response.status, 200U) << path << ": " << response.body;
    return response.body;
  }

  // kubectl with `body` on stdin.
  std::string kubectl_stdin(const std::string& arguments, const std::string& body) {
    return testenv().kubectl(arguments + " <<'KUBEX_EOF'\n" + body + "\nKUBEX_EOF");
  }
};

const char* const crontab_yaml = R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
  labels: {team: a}
  annotations: {note: "quotes \" and unicode \u00e9"}
spec:
  cronSpec: "0 3 * * *"
  image: busybox:1.36
  replicas: 2
  concurrencyPolicy: Forbid
  maxSurge: 25%
  suspendUntil: "2026-12-01T00:00:00Z"
  ratio: 0.25
  paused: false
  env: {A: "1", B: "two"}
  ports:
    - {name: http, port: 8080, protocol: TCP}
    - {name: dns, port: 53, protocol: UDP}
  template:
    labels: {x: "z"}
    tolerations: [{key: k, operator: Exists}]
  config: {free: [form, 1, {"n": 0}], nested: {deep: true}}
  tags: [a, b]
)";

TEST_F(crd_test, typed_read_of_a_kubectl_created_object_is_lossless) {
  const std::string ns = own_namespace();
  kubectl_stdin("apply -n " + ns + " -f -", crontab_yaml);
  const std::string json = get(object_path<v1::CronTab>(ns, "nightly"));

  const auto c = decode<v1::CronTab>(json);
  EXPECT_EQ(c.api_version, "stable.example.com/v1");
  EXPECT_EQ(c.metadata.name, "nightly");
  EXPECT_EQ(c.metadata.namespace_, ns);
  EXPECT_FALSE(c.metadata.managed_fields.empty());
  ASSERT_TRUE(c.spec);
  EXPECT_EQ(c.spec->replicas, 2);
  EXPECT_EQ(c.spec->concurrency_policy, v1::CronTabSpecConcurrencyPolicy::Forbid);
  ASSERT_TRUE(c.spec->max_surge);
  EXPECT_EQ(c.spec->max_surge->string_value(), "25%");
  EXPECT_EQ(c.spec->ports.at(1).port, 53);
  EXPECT_EQ(c.spec->template_->tolerations.at(0).operator_, "Exists");
  EXPECT_EQ(c.spec->config.text, R"({"free":["form",1,{"n":0}],"nested":{"deep":true}})");
  // The schema covers everything the server stores: nothing lands in unknown_fields.
  EXPECT_TRUE(c.unknown_fields.empty());
  EXPECT_TRUE(c.spec->unknown_fields.empty());

  // decode -> encode is the server's object, up to key order ("{}" = no difference).
  EXPECT_EQ(create_merge_patch(json, encode(c)), "{}");
  EXPECT_EQ(decode<v1::CronTab>(encode(c)), c);
}

TEST_F(crd_test, other_served_version_keeps_fields_its_schema_lacks) {
  const std::string ns = own_namespace();
  kubectl_stdin("apply -n " + ns + " -f -", crontab_yaml);
  // v1beta1 declares only cronSpec and image (and keeps unknown spec fields); the rest of the
  // stored object must survive a read-modify-write through the v1beta1 model.
  const std::string json = get(object_path<v1beta1::CronTab>(ns, "nightly"));
  auto c = decode<v1beta1::CronTab>(json);
  EXPECT_EQ(c.api_version, "stable.example.com/v1beta1");
  ASSERT_TRUE(c.spec);
  EXPECT_EQ(c.spec->cron_spec, "0 3 * * *");
  EXPECT_FALSE(c.spec->unknown_fields.empty());
  EXPECT_EQ(create_merge_patch(json, encode(c)), "{}");

  c.spec->image = "busybox:1.37";
  kubectl_stdin("replace -f -", encode(c));
  const auto after = decode<v1::CronTab>(get(object_path<v1::CronTab>(ns, "nightly")));
  ASSERT_TRUE(after.spec);
  EXPECT_EQ(after.spec->image, "busybox:1.37");
  EXPECT_EQ(after.spec->replicas, 2);
  EXPECT_EQ(after.spec->ports.size(), 2U);
  EXPECT_EQ(after.spec->config.text, R"({"free":["form",1,{"n":0}],"nested":{"deep":true}})");
}

TEST_F(crd_test, server_accepts_objects_kubex_encodes) {
  const std::string ns = own_namespace();
  v1::CronTab c;
  c.metadata.name = "built";
  c.metadata.namespace_ = ns;
  auto& spec = c.spec.ensure();
  spec.cron_spec = "*/5 * * * *";
  spec.image = "busybox";
  spec.replicas = 0;  // zero must be sent, not dropped
  spec.concurrency_policy = v1::CronTabSpecConcurrencyPolicy::Allow;
  spec.max_surge = kubex::IntOrString(3);
  spec.ports.push_back({.name = "http", .port = 80});
  spec.config.text = R"({"k":"v"})";
  // Strict field validation: the server rejects the object if kubex sent a field the schema
  // does not have.
  kubectl_stdin("create --validate=strict -f -", encode(c));

  const auto back = decode<v1::CronTab>(get(object_path<v1::CronTab>(ns, "built")));
  ASSERT_TRUE(back.spec);
  EXPECT_EQ(back.spec->replicas, 0);
  EXPECT_EQ(back.spec->max_surge, kubex::IntOrString(3));
  EXPECT_EQ(back.spec->ports, spec.ports);
  EXPECT_EQ(back.spec->config.text, R"({"k":"v"})");
  EXPECT_FALSE(back.metadata.uid.value_or("").empty());

  // The status subresource from the CRD: patched with kubectl, read through the model.
  testenv().kubectl("patch crontab built -n " + ns + " --subresource=status --type=merge -p " +
                    shell_quote(R"({"status":{"replicas":1,"selector":"app=built","conditions":)"
                                R"([{"type":"Ready","status":"True",)"
                                R"("lastTransitionTime":"2026-11-30T08:00:00Z"}]}})"));
  const auto with_status = decode<v1::CronTab>(get(object_path<v1::CronTab>(ns, "built")));
  ASSERT_TRUE(with_status.status);
  EXPECT_EQ(with_status.status->replicas, 1);
  EXPECT_EQ(with_status.status->conditions.at(0).status,
            v1::CronTabStatusConditionsItemStatus::True);
  // And the scale subresource reads spec.replicas through the path the CRD maps.
  const std::string scale = get(object_path<v1::CronTab>(ns, "built", "scale"));
  EXPECT_NE(scale.find(R"("kind":"Scale")"), std::string::npos) << scale;
}

TEST_F(crd_test, cluster_scoped_list) {
  const std::string name = kubex::testing::unique_namespace_name("widget");
  v1alpha1::ClusterWidget w;
  w.metadata.name = name;
  w.spec.ensure().size = 7;
  w.spec->owner = "kubex";
  kubectl_stdin("create --validate=strict -f -", encode(w));

  const auto list = decode<resource_traits<v1alpha1::ClusterWidget>::list_type>(
      get(object_path<v1alpha1::ClusterWidget>("", "")));
  EXPECT_EQ(list.kind, "ClusterWidgetList");
  EXPECT_FALSE(list.metadata.resource_version.value_or("").empty());
  bool found = false;
  for (const auto& item : list.items) {
    if (item.metadata.name == name) {
      found = true;
      ASSERT_TRUE(item.spec);
      EXPECT_EQ(item.spec->size, 7);
      EXPECT_EQ(item.spec->owner, "kubex");
    }
  }
  EXPECT_TRUE(found);
  testenv().kubectl("delete clusterwidget " + name + " --wait=false");
}

}  // namespace
