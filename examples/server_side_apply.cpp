// SPDX-License-Identifier: Apache-2.0
// Example: server-side apply. Two field managers apply the same ConfigMap key: the second
// gets a 409 Conflict naming the owner, then takes the field over with force.
//
//   kubex-server-side-apply [NAMESPACE]

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <exception>

namespace core = kubex::k8s::v1_35::core::v1;

int main(int argc, char** argv) {
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto cms = argc > 1 ? kubex::client::BlockingApi<core::ConfigMap>::namespaced(client, argv[1])
                        : kubex::client::BlockingApi<core::ConfigMap>::default_namespaced(client);

    core::ConfigMap desired;  // only the fields this manager cares about
    desired.metadata.name = "kubex-ssa-example";
    desired.data = {{"mode", "blue"}};
    cms.apply(desired, "deployer");
    std::printf("deployer applied mode=blue\n");

    desired.data = {{"mode", "green"}};
    try {
      cms.apply(desired, "hotfix");
    } catch (const kubex::ApiError& e) {
      if (!kubex::is_conflict(e)) {
        throw;
      }
      std::printf("hotfix conflicts: %s\n", e.status().message.c_str());
    }
    const auto forced = cms.apply(desired, "hotfix", /*force=*/true);
    std::printf("hotfix forced mode=%s\n", forced.data.at("mode").c_str());
    cms.delete_("kubex-ssa-example");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-server-side-apply: %s\n", e.what());
    return 1;
  }
  return 0;
}
