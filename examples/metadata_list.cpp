// SPDX-License-Identifier: Apache-2.0
// Example: list only the metadata of every pod in the cluster (PartialObjectMetadata): the
// server leaves out spec and status, so large clusters cost a fraction of a full list.
//
//   kubex-metadata-list

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <exception>
#include <map>
#include <string>

namespace core = kubex::k8s::v1_35::core::v1;

int main() {
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto pods = kubex::client::BlockingApi<core::Pod>::all(client);
    std::map<std::string, int> per_namespace;
    std::size_t total = 0;
    // Pages of 500, following the continue token.
    kubex::ListParams params{.limit = 500};
    do {
      const auto page = pods.list_metadata(params);
      for (const auto& pod : page.items) {
        ++per_namespace[pod.metadata.namespace_.value_or("")];
        ++total;
      }
      params.continue_token = page.metadata.continue_.value_or("");
    } while (!params.continue_token.empty());
    for (const auto& [ns, n] : per_namespace) {
      std::printf("%-40s %d\n", ns.c_str(), n);
    }
    std::printf("pods: %zu\n", total);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-metadata-list: %s\n", e.what());
    return 1;
  }
  return 0;
}
