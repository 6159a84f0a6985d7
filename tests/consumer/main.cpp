// SPDX-License-Identifier: Apache-2.0
// Uses core, client and runtime through the installed package: builds a path, resolves an
// in-memory kubeconfig and draws a backoff delay. Exits non-zero on an unexpected result.

#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>
#include <kubex/runtime/backoff.hpp>

#include <chrono>
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
    kubex::runtime::Backoff backoff({.initial = std::chrono::milliseconds(5), .jitter = 0.0});
    const auto delay = backoff.next(kubex::runtime::Backoff::clock::now());
    if (path != "/api/v1/namespaces/default/pods" || config.namespace_name != "apps" ||
        config.server.port != 6443 || delay != std::chrono::milliseconds(5)) {
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
