// SPDX-License-Identifier: Apache-2.0
// Example: run a command in a pod, like `kubectl exec POD -- COMMAND...`.
//
//   kubex-exec [-n NAMESPACE] [-c CONTAINER] [-i] POD -- COMMAND [ARGS...]
//
// Prints the command's stdout and stderr to ours and exits with its exit code. With -i, our
// stdin goes to the command (and is closed at its end, so `cat` finishes).

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

namespace core = kubex::k8s::v1_35::core::v1;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kubex-exec [-n NAMESPACE] [-c CONTAINER] [-i] POD -- COMMAND [ARGS...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string namespace_name;
  std::string pod;
  kubex::ExecParams params;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if ((arg == "-n" || arg == "-c") && i + 1 < argc) {
      (arg == "-n" ? namespace_name : params.container) = argv[++i];
    } else if (arg == "-i") {
      params.with_stdin = true;
    } else if (pod.empty() && !arg.starts_with("-")) {
      pod = arg;
    } else {
      return usage();
    }
  }
  for (; i < argc; ++i) {
    params.command.emplace_back(argv[i]);
  }
  if (pod.empty() || params.command.empty()) {
    return usage();
  }
  try {
    kubex::client::BlockingClient client(kubex::client::infer_config());
    auto pods = namespace_name.empty()
                    ? kubex::client::BlockingApi<core::Pod>::default_namespaced(client)
                    : kubex::client::BlockingApi<core::Pod>::namespaced(client, namespace_name);
    std::string input;
    if (params.with_stdin) {
      input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    const auto result = pods.run(pod, params, std::move(input));
    std::fwrite(result.out.data(), 1, result.out.size(), stdout);
    std::fwrite(result.err.data(), 1, result.err.size(), stderr);
    return result.exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-exec: %s\n", e.what());
    return 1;
  }
}
