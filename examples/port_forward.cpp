// SPDX-License-Identifier: Apache-2.0
// Example: forward local ports to a pod, like `kubectl port-forward POD LOCAL:REMOTE`.
//
//   kubex-port-forward [-n NAMESPACE] POD [LOCAL:]REMOTE...
//
// Listens on 127.0.0.1 (LOCAL 0 or omitted: a free port), prints one line per port
// ("Forwarding from 127.0.0.1:LOCAL -> REMOTE") and forwards every connection until SIGINT or
// SIGTERM.

#include <kubex/client/api.hpp>
#include <kubex/client/exec.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace core = kubex::k8s::v1_35::core::v1;

namespace {

int usage() {
  std::fprintf(stderr, "usage: kubex-port-forward [-n NAMESPACE] POD [LOCAL:]REMOTE...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string namespace_name;
  std::string pod;
  std::vector<std::pair<unsigned long, unsigned long>> ports;  // local, remote
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "-n" && i + 1 < argc) {
        namespace_name = argv[++i];
      } else if (pod.empty()) {
        pod = arg;
      } else {
        const auto colon = arg.find(':');
        const unsigned long local =
            colon == std::string::npos ? 0 : std::stoul(arg.substr(0, colon));
        const unsigned long remote =
            std::stoul(colon == std::string::npos ? arg : arg.substr(colon + 1));
        if (local > 65535 || remote == 0 || remote > 65535) {
          return usage();
        }
        ports.emplace_back(local, remote);
      }
    }
  } catch (const std::exception&) {
    return usage();
  }
  if (pod.empty() || ports.empty()) {
    return usage();
  }
  try {
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
    auto pods = namespace_name.empty()
                    ? kubex::client::Api<core::Pod>::default_namespaced(client)
                    : kubex::client::Api<core::Pod>::namespaced(client, namespace_name);
    std::vector<std::unique_ptr<kubex::client::LocalPortForward>> forwards;
    for (const auto& [local, remote] : ports) {
      forwards.push_back(pods.forward_local_port(pod, static_cast<std::uint16_t>(remote),
                                                 static_cast<std::uint16_t>(local)));
      std::printf("Forwarding from 127.0.0.1:%u -> %lu\n", forwards.back()->local_port(), remote);
    }
    std::fflush(stdout);
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code&, int) {
      for (auto& forward : forwards) {
        forward->stop();
      }
      ioc.stop();
    });
    ioc.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-port-forward: %s\n", e.what());
    return 1;
  }
  return 0;
}
