// SPDX-License-Identifier: Apache-2.0
// The program every way of consuming kubex builds (scripts/check-packages.sh, the Conan
// test_package, the .debs): it prints the version of the headers and of the linked library,
// which must agree, and given a kubeconfig, lists the namespaces through Api<T>'s blocking
// facade and fails unless "default" is among them.
//
//   kubex-list-namespaces [KUBECONFIG]

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/version.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string_view>

int main(int argc, char** argv) {
  std::printf("kubex headers %s, library %.*s\n", KUBEX_VERSION_STRING,
              static_cast<int>(kubex::version().size()), kubex::version().data());
  if (kubex::version() != std::string_view(KUBEX_VERSION_STRING)) {
    std::fprintf(stderr, "error: the headers and the linked library are different releases\n");
    return 1;
  }
  if (argc < 2) {
    return 0;
  }
  try {
    using Namespace = kubex::api::core::v1::Namespace;
    kubex::client::BlockingClient client(kubex::client::load_kubeconfig(argv[1]));
    const auto list = kubex::client::BlockingApi<Namespace>::all(client).list();
    bool found_default = false;
    for (const auto& ns : list.items) {
      const auto name = ns.metadata.name.value_or("");
      std::printf("namespace %s\n", name.c_str());
      found_default = found_default || name == "default";
    }
    if (!found_default) {
      std::fprintf(stderr, "error: no namespace \"default\" among %zu\n", list.items.size());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
