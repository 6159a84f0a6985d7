// SPDX-License-Identifier: Apache-2.0
// A first program against kubex, built every way a user takes it in (Conan's test_package,
// scripts/check-debs.sh, and scripts/check-packages.sh through tests/packaging/CMakeLists.txt).
// Prints the version of the linked library and fails unless the headers are of the same one;
// given a kubeconfig (argv[1], or the environment's KUBEX_TESTENV_KUBECONFIG) it lists the
// namespaces with the blocking API and fails unless "default" is among them.
//
//   kubex_test_package [KUBECONFIG]

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/version.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  const std::string linked(kubex::version());
  std::printf("kubex %s (headers %s)\n", linked.c_str(), KUBEX_VERSION_STRING);
  if (linked != KUBEX_VERSION_STRING) {
    std::fprintf(stderr, "kubex_test_package: the library is %s, its headers %s\n", linked.c_str(),
                 KUBEX_VERSION_STRING);
    return 1;
  }
  std::string kubeconfig;
  if (argc > 1) {
    kubeconfig = argv[1];
  } else if (const char* env = std::getenv("KUBEX_TESTENV_KUBECONFIG"); env != nullptr) {
    kubeconfig = env;
  }
  if (kubeconfig.empty()) {
    return 0;
  }
  try {
    kubex::client::BlockingClient client(kubex::client::load_kubeconfig(kubeconfig));
    auto namespaces = kubex::client::BlockingApi<kubex::api::core::v1::Namespace>::all(client);
    bool has_default = false;
    std::size_t count = 0;
    for (const auto& item : namespaces.list().items) {
      const auto name = item.metadata.name.value_or("");
      std::printf("namespace %s\n", name.c_str());
      has_default = has_default || name == "default";
      ++count;
    }
    if (!has_default) {
      std::fprintf(stderr, "kubex_test_package: no \"default\" among the %zu namespaces\n", count);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex_test_package: %s\n", e.what());
    return 1;
  }
}
