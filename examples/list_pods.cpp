// SPDX-License-Identifier: Apache-2.0
// Example: list the pods of a namespace and summarise them.
//
//   kubex-list-pods --kubeconfig PATH [--context NAME] [--namespace NS]
//
// Loads a kubeconfig, GETs /api/v1/namespaces/NS/pods over the bootstrap HTTPS transport and
// parses the PodList with simdjson On-Demand. NS defaults to the context's namespace. Exits
// with 1 on any error (with the HTTP status and the server's Status message) and 2 on bad usage.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view usage =
    "usage: kubex-list-pods --kubeconfig PATH [--context NAME] [--namespace NS]\n";

struct Arguments {
  std::string kubeconfig;
  std::string context;
  std::optional<std::string> namespace_name;
};

// Accepts `--flag value` and `--flag=value`. Returns std::nullopt after printing a message.
std::optional<Arguments> parse_arguments(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << usage;
      std::exit(0);
    }
    std::string_view flag = arg;
    std::optional<std::string> value;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = std::string(arg.substr(eq + 1));
    } else if (i + 1 < argc) {
      value = argv[++i];
    }
    if (!value) {
      std::cerr << "kubex-list-pods: " << flag << " needs a value\n" << usage;
      return std::nullopt;
    }
    if (flag == "--kubeconfig") {
      args.kubeconfig = *value;
    } else if (flag == "--context") {
      args.context = *value;
    } else if (flag == "--namespace" || flag == "-n") {
      args.namespace_name = *value;
    } else {
      std::cerr << "kubex-list-pods: unknown argument " << flag << '\n' << usage;
      return std::nullopt;
    }
  }
  if (args.kubeconfig.empty()) {
    std::cerr << "kubex-list-pods: --kubeconfig is required\n" << usage;
    return std::nullopt;
  }
  return args;
}

// The message of a Kubernetes Status body, or a short excerpt of whatever else came back.
std::string server_message(std::string body) {
  std::string excerpt = body.substr(0, 200);
  try {
    simdjson::ondemand::parser parser;
    const simdjson::padded_string json(body);
    auto doc = parser.iterate(json);
    std::string_view message;
    if (doc["message"].get_string().get(message) == simdjson::SUCCESS) {
      return std::string(message);
    }
  } catch (const simdjson::simdjson_error&) {
    // not JSON: fall back to the excerpt
  }
  return excerpt;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_arguments(argc, argv);
  if (!args) {
    return 2;
  }

  try {
    const auto config =
        kubex::client::load_kubeconfig(args->kubeconfig, {.context = args->context});
    const std::string namespace_name = args->namespace_name.value_or(config.namespace_name);
    const auto path = kubex::resource_path(
        {.version = "v1", .resource = "pods", .namespace_name = namespace_name});

    kubex::client::BlockingClient connection(config);
    const auto start = std::chrono::steady_clock::now();
    auto response = connection.get(path);
    const auto fetched = std::chrono::steady_clock::now();

    if (response.status != 200) {
      std::cerr << "kubex-list-pods: GET " << path << ": HTTP " << response.status << ": "
                << server_message(response.body) << '\n';
      return 1;
    }

    // On-Demand parsing reads past the end of the text; reserving the padding in the body we
    // already own avoids copying a possibly large PodList.
    const std::size_t size = response.body.size();
    response.body.reserve(size + simdjson::SIMDJSON_PADDING);
    simdjson::ondemand::parser parser;
    auto doc = parser.iterate(response.body.data(), size, response.body.capacity());

    std::size_t pods = 0;
    std::map<std::string, std::size_t, std::less<>> phases;
    std::set<std::string, std::less<>> nodes;
    for (auto pod : doc["items"].get_array()) {
      ++pods;
      // Fields are read in document order (spec before status), as On-Demand prefers.
      std::string_view node;
      if (pod["spec"]["nodeName"].get_string().get(node) == simdjson::SUCCESS && !node.empty()) {
        nodes.emplace(node);
      }
      std::string_view phase;
      if (pod["status"]["phase"].get_string().get(phase) != simdjson::SUCCESS) {
        phase = "Unknown";
      }
      ++phases[std::string(phase)];
    }
    const auto parsed = std::chrono::steady_clock::now();

    using ms = std::chrono::duration<double, std::milli>;
    std::cout << "namespace: " << namespace_name << '\n';
    std::cout << "pods: " << pods << '\n';
    for (const auto& [phase, count] : phases) {
      std::cout << "  " << phase << ": " << count << '\n';
    }
    std::cout << "nodes: " << nodes.size() << '\n';
    std::printf("response: %zu bytes in %.1f ms (parse %.1f ms)\n", size,
                ms(fetched - start).count(), ms(parsed - fetched).count());
    return 0;
  } catch (const kubex::Error& e) {
    std::cerr << "kubex-list-pods: " << e.what() << '\n';
  } catch (const simdjson::simdjson_error& e) {
    std::cerr << "kubex-list-pods: cannot parse the PodList: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "kubex-list-pods: " << e.what() << '\n';
  }
  return 1;
}
