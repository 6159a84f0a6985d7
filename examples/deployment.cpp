// SPDX-License-Identifier: Apache-2.0
// Example: create a Deployment, scale it with a merge patch, change its image with a strategic
// merge patch, and delete it, with the blocking API.
//
//   kubex-deployment [NAMESPACE]

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <exception>
#include <variant>

namespace apps = kubex::k8s::v1_35::apps::v1;
namespace core = kubex::k8s::v1_35::core::v1;

int main(int argc, char** argv) {
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto deployments =
        argc > 1 ? kubex::client::BlockingApi<apps::Deployment>::namespaced(client, argv[1])
                 : kubex::client::BlockingApi<apps::Deployment>::default_namespaced(client);

    apps::Deployment d;
    d.metadata.name = "kubex-example";
    auto& spec = d.spec.ensure();
    spec.replicas = 1;
    spec.selector.match_labels = {{"app", "kubex-example"}};
    spec.template_.metadata.labels = {{"app", "kubex-example"}};
    core::Container c;
    c.name = "web";
    c.image = "registry.k8s.io/pause:3.10";
    spec.template_.spec.ensure().containers = {c};

    const auto created = deployments.create(d);
    std::printf("created %s (uid %s)\n", created.metadata.name->c_str(),
                created.metadata.uid->c_str());

    const auto scaled =
        deployments.patch("kubex-example", kubex::Patch::merge(R"({"spec":{"replicas":3}})"));
    std::printf("replicas: %d\n", *scaled.spec->replicas);

    // Containers merge by name in a strategic merge patch: only "web" changes.
    const auto updated = deployments.patch(
        "kubex-example",
        kubex::Patch::strategic(
            R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"registry.k8s.io/pause:3.9"}]}}}})"));
    std::printf("image: %s\n", updated.spec->template_.spec->containers[0].image->c_str());

    const auto result = deployments.delete_(
        "kubex-example", {.propagation_policy = kubex::PropagationPolicy::background});
    std::printf("deleted: %s\n",
                std::holds_alternative<kubex::Status>(result) ? "gone" : "terminating");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-deployment: %s\n", e.what());
    return 1;
  }
  return 0;
}
