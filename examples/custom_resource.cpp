// SPDX-License-Identifier: Apache-2.0
// Example: a custom resource without code generation. A plain struct, KUBEX_JSON_OBJECT for
// its fields and KUBEX_CUSTOM_RESOURCE for where the server serves it are all Api<T> needs.
// Needs the CronTab CRD of tests/crd/crontab.yaml (`kubectl apply -f tests/crd/crontab.yaml`).
//
//   kubex-custom-resource [NAMESPACE]

#include <kubex/client/blocking_api.hpp>
#include <kubex/core/custom_resource.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace shop {

struct CronTabSpec {
  std::string cronSpec;
  std::string image;
  std::optional<std::int32_t> replicas;
};
KUBEX_JSON_OBJECT(CronTabSpec, cronSpec, image, replicas)

struct CronTab {
  std::string apiVersion{"stable.example.com/v1"};
  std::string kind{"CronTab"};
  kubex::k8s::v1_35::meta::v1::ObjectMeta metadata;
  std::optional<CronTabSpec> spec;
  kubex::UnknownFields unknown_fields;  // keeps fields this struct does not declare (status)
};
KUBEX_JSON_OBJECT(CronTab, apiVersion, kind, metadata, spec)

}  // namespace shop

KUBEX_CUSTOM_RESOURCE(shop::CronTab, "stable.example.com", "v1", "CronTab", "crontabs", namespaced,
                      status, scale);

int main(int argc, char** argv) {
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto crontabs = argc > 1
                        ? kubex::client::BlockingApi<shop::CronTab>::namespaced(client, argv[1])
                        : kubex::client::BlockingApi<shop::CronTab>::default_namespaced(client);
    shop::CronTab ct;
    ct.metadata.name = "kubex-nightly";
    ct.spec = shop::CronTabSpec{"0 3 * * *", "backup:1", 1};
    const auto created = crontabs.create(ct);
    std::printf("created %s at resourceVersion %s\n", created.metadata.name->c_str(),
                created.metadata.resource_version->c_str());
    const auto patched =
        crontabs.patch("kubex-nightly", kubex::Patch::merge(R"({"spec":{"replicas":null}})"));
    std::printf("replicas after merge patch with null: %s\n",
                patched.spec->replicas ? "set" : "unset");
    // Server-side apply, taking the fields over from the creator (force); apiVersion and kind
    // are filled in when left empty.
    shop::CronTab desired;
    desired.apiVersion.clear();
    desired.metadata.name = "kubex-nightly";
    desired.spec = shop::CronTabSpec{"30 4 * * *", "backup:2", 3};
    const auto applied = crontabs.apply(desired, "kubex-example", /*force=*/true);
    std::printf("applied: %s replicas=%d\n", applied.spec->cronSpec.c_str(),
                applied.spec->replicas.value_or(-1));
    for (const auto& item : crontabs.list().items) {
      std::printf("crontab %s: %s\n", item.metadata.name->c_str(), item.spec->cronSpec.c_str());
    }
    crontabs.delete_("kubex-nightly");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-custom-resource: %s\n", e.what());
    return 1;
  }
  return 0;
}
