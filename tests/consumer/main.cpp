// Uses core and client through the installed package: builds a path and resolves an in-memory
// kubeconfig. Exits non-zero if either gives an unexpected result.

#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>

#include <exception>
#include <iostream>

int main() {
  try {
    const auto path =
        kubex::resource_path({.version = "v1", .resource = "pods", .namespace_name = "default"});
    const auto config = kubex::client::parse_kubeconfig(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: c, context: {cluster: k, namespace: apps}}]
)",
                                                        ".", "consumer kubeconfig");
    if (path != "/api/v1/namespaces/default/pods" || config.namespace_name != "apps" ||
        config.server.port != 6443) {
      std::cerr << "unexpected result\n";
      return 1;
    }
    std::cout << config.server.authority() << path << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
}
