// SPDX-License-Identifier: Apache-2.0
// The user program behind benchmarks/results/client-build.md: a small tool of the kind the
// blocking API is for, using BlockingApi<Pod> and BlockingApi<ConfigMap> the way such tools do
// (list, get, create, replace, patch, watch, logs, delete). It is compiled, not run, to measure
// what one translation unit of a kubex user costs to build.
//
//   config-sync NAMESPACE snapshot    # writes a ConfigMap describing the pods of NAMESPACE
//   config-sync NAMESPACE watch N     # prints the next N pod events, then the snapshot again
//   config-sync NAMESPACE logs POD    # prints the last lines of POD's log
//   config-sync NAMESPACE clean       # deletes the snapshot

#include "config_sync.hpp"

#include <kubex/client/blocking_api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace core = kubex::api::core::v1;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;

namespace {

using config_sync::manager;
using config_sync::PodSummary;
using config_sync::snapshot_data;
using config_sync::snapshot_name;
using config_sync::summarize;

std::vector<PodSummary> list_pods(BlockingApi<core::Pod>& pods) {
  std::vector<PodSummary> out;
  const auto list = pods.list({.limit = 500});
  out.reserve(list.items.size());
  for (const auto& pod : list.items) {
    out.push_back(summarize(pod));
  }
  return out;
}

// Creates the snapshot, or replaces it when it exists (keeping its resourceVersion, so a
// concurrent writer makes this fail with 409 instead of being overwritten).
core::ConfigMap write_snapshot(BlockingApi<core::ConfigMap>& maps,
                               const std::map<std::string, std::string>& data) {
  if (auto existing = maps.get_opt(snapshot_name)) {
    existing->data = data;
    return maps.replace(*existing);
  }
  core::ConfigMap cm;
  cm.metadata.name = std::string(snapshot_name);
  cm.metadata.labels = {{"app.kubernetes.io/managed-by", std::string(manager)}};
  cm.data = data;
  return maps.create(cm);
}

void label_snapshot(BlockingApi<core::ConfigMap>& maps, std::string_view key,
                    std::string_view value) {
  const std::string body = std::string(R"({"metadata":{"labels":{")") + std::string(key) +
                           R"(":")" + std::string(value) + R"("}}})";
  maps.patch(snapshot_name, kubex::Patch::merge(body));
}

int snapshot(BlockingApi<core::Pod>& pods, BlockingApi<core::ConfigMap>& maps) {
  const auto summaries = list_pods(pods);
  const auto cm = write_snapshot(maps, snapshot_data(summaries));
  label_snapshot(maps, "config-sync/pods", std::to_string(summaries.size()));
  std::printf("%s: %zu pods, resourceVersion %s\n", cm.metadata.name->c_str(), summaries.size(),
              cm.metadata.resource_version.value_or("?").c_str());
  return 0;
}

int watch(BlockingApi<core::Pod>& pods, BlockingApi<core::ConfigMap>& maps, int events) {
  const auto start = pods.list_metadata({.limit = 1});
  auto stream = pods.watch({.resource_version = start.metadata.resource_version.value_or(""),
                            .allow_bookmarks = true,
                            .timeout_seconds = 60});
  for (int seen = 0; seen < events;) {
    auto event = stream.next();
    if (!event) {
      std::printf("the server ended the watch\n");
      break;
    }
    if (event->type == kubex::WatchEventType::error) {
      std::printf("watch error: %s\n", event->status.message.c_str());
      break;
    }
    if (event->type == kubex::WatchEventType::bookmark) {
      continue;
    }
    const auto s = summarize(event->object);
    std::printf("%-8s %s %s\n", std::string(kubex::to_string(event->type)).c_str(), s.name.c_str(),
                s.phase.c_str());
    ++seen;
  }
  return snapshot(pods, maps);
}

int logs(BlockingApi<core::Pod>& pods, std::string_view name) {
  const auto pod = pods.get(name);
  if (!pod.spec || pod.spec->containers.empty()) {
    std::fprintf(stderr, "config-sync: %s has no containers\n", std::string(name).c_str());
    return 1;
  }
  const auto& container = pod.spec->containers.front().name;
  const auto text = pods.logs(name, {.container = container, .tail_lines = 20});
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int clean(BlockingApi<core::ConfigMap>& maps) {
  const auto meta = maps.get_metadata(snapshot_name);
  const auto result = maps.delete_(
      snapshot_name, {.preconditions = kubex::Preconditions{.uid = meta.metadata.uid}});
  std::printf("%s\n", std::holds_alternative<kubex::Status>(result) ? "deleted" : "terminating");
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: config-sync NAMESPACE snapshot|clean\n"
               "       config-sync NAMESPACE watch N\n"
               "       config-sync NAMESPACE logs POD\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    return usage();
  }
  const std::string_view ns = argv[1];
  const std::string_view command = argv[2];
  try {
    BlockingClient client(kubex::client::infer_config());
    auto pods = BlockingApi<core::Pod>::namespaced(client, ns);
    auto maps = BlockingApi<core::ConfigMap>::namespaced(client, ns);
    if (command == "snapshot") {
      return snapshot(pods, maps);
    }
    if (command == "watch" && argc > 3) {
      return watch(pods, maps, std::atoi(argv[3]));
    }
    if (command == "logs" && argc > 3) {
      return logs(pods, argv[3]);
    }
    if (command == "clean") {
      return clean(maps);
    }
    return usage();
  } catch (const kubex::ApiError& e) {
    std::fprintf(stderr, "config-sync: %s\n", e.what());
    return kubex::is_not_found(e) ? 3 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "config-sync: %s\n", e.what());
    return 1;
  }
}
