// SPDX-License-Identifier: Apache-2.0
// Example: follow a pod's log, line by line, as the container writes it.
//
//   kubex-logs-follow POD [NAMESPACE [LINES]]
//
// Prints the last line already written and then new ones, and stops after LINES lines
// (default 10) or when the container ends.

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace core = kubex::k8s::v1_35::core::v1;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kubex-logs-follow POD [NAMESPACE [LINES]]\n");
    return 2;
  }
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto pods = argc > 2 ? kubex::client::BlockingApi<core::Pod>::namespaced(client, argv[2])
                         : kubex::client::BlockingApi<core::Pod>::default_namespaced(client);
    const long lines = argc > 3 ? std::stol(argv[3]) : 10;
    auto stream = pods.log_stream(argv[1], {.tail_lines = 1});
    for (long i = 0; i < lines; ++i) {
      const auto line = stream.next_line();
      if (!line) {
        std::printf("(log ended)\n");
        break;
      }
      std::printf("%s\n", line->c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-logs-follow: %s\n", e.what());
    return 1;
  }
  return 0;
}
