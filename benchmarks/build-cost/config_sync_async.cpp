// SPDX-License-Identifier: Apache-2.0
// config_sync.cpp written against the asynchronous API, as an operator's code is: Api<Pod> and
// Api<ConfigMap> with C++20 coroutines (list, get, get_opt, create, replace, patch, watch,
// logs, get_metadata, list_metadata, delete). It is compiled, not run, to measure what one
// translation unit of a kubex user costs to build (benchmarks/results/client-build.md).
//
//   config-sync-async NAMESPACE snapshot    # writes a ConfigMap describing the pods of NAMESPACE
//   config-sync-async NAMESPACE watch N     # prints the next N pod events, then the snapshot
//   config-sync-async NAMESPACE logs POD    # prints the last lines of POD's log
//   config-sync-async NAMESPACE clean       # deletes the snapshot

#include <kubex/client/api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include "config_sync.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

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
namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using kubex::client::Api;
using kubex::client::Client;

namespace {

using config_sync::manager;
using config_sync::PodSummary;
using config_sync::snapshot_data;
using config_sync::snapshot_name;
using config_sync::summarize;

awaitable<std::vector<PodSummary>> list_pods(const Api<core::Pod>& pods) {
  std::vector<PodSummary> out;
  const auto list = co_await pods.async_list({.limit = 500}, use_awaitable);
  out.reserve(list.items.size());
  for (const auto& pod : list.items) {
    out.push_back(summarize(pod));
  }
  co_return out;
}

// Creates the snapshot, or replaces it when it exists (keeping its resourceVersion, so a
// concurrent writer makes this fail with 409 instead of being overwritten).
awaitable<core::ConfigMap> write_snapshot(const Api<core::ConfigMap>& maps,
                                          std::map<std::string, std::string> data) {
  if (auto existing = co_await maps.async_get_opt(snapshot_name, use_awaitable)) {
    existing->data = std::move(data);
    co_return co_await maps.async_replace(*existing, use_awaitable);
  }
  core::ConfigMap cm;
  cm.metadata.name = std::string(snapshot_name);
  cm.metadata.labels = {{"app.kubernetes.io/managed-by", std::string(manager)}};
  cm.data = std::move(data);
  co_return co_await maps.async_create(cm, use_awaitable);
}

awaitable<void> label_snapshot(const Api<core::ConfigMap>& maps, std::string key,
                               std::string value) {
  const std::string body =
      std::string(R"({"metadata":{"labels":{")") + key + R"(":")" + value + R"("}}})";
  co_await maps.async_patch(snapshot_name, kubex::Patch::merge(body), use_awaitable);
}

awaitable<int> snapshot(const Api<core::Pod>& pods, const Api<core::ConfigMap>& maps) {
  const auto summaries = co_await list_pods(pods);
  const auto cm = co_await write_snapshot(maps, snapshot_data(summaries));
  co_await label_snapshot(maps, "config-sync/pods", std::to_string(summaries.size()));
  std::printf("%s: %zu pods, resourceVersion %s\n", cm.metadata.name->c_str(), summaries.size(),
              cm.metadata.resource_version.value_or("?").c_str());
  co_return 0;
}

awaitable<int> watch(const Api<core::Pod>& pods, const Api<core::ConfigMap>& maps, int events) {
  const auto start = co_await pods.async_list_metadata({.limit = 1}, use_awaitable);
  auto stream =
      co_await pods.async_watch({.resource_version = start.metadata.resource_version.value_or(""),
                                 .allow_bookmarks = true,
                                 .timeout_seconds = 60},
                                use_awaitable);
  for (int seen = 0; seen < events;) {
    auto event = co_await stream.async_next(use_awaitable);
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
  co_return co_await snapshot(pods, maps);
}

awaitable<int> logs(const Api<core::Pod>& pods, std::string name) {
  const auto pod = co_await pods.async_get(name, use_awaitable);
  if (!pod.spec || pod.spec->containers.empty()) {
    std::fprintf(stderr, "config-sync: %s has no containers\n", name.c_str());
    co_return 1;
  }
  const auto& container = pod.spec->containers.front().name;
  const auto text =
      co_await pods.async_logs(name, {.container = container, .tail_lines = 20}, use_awaitable);
  std::fwrite(text.data(), 1, text.size(), stdout);
  co_return 0;
}

awaitable<int> clean(const Api<core::ConfigMap>& maps) {
  const auto meta = co_await maps.async_get_metadata(snapshot_name, use_awaitable);
  const auto result = co_await maps.async_delete(
      snapshot_name, {.preconditions = kubex::Preconditions{.uid = meta.metadata.uid}},
      use_awaitable);
  std::printf("%s\n", std::holds_alternative<kubex::Status>(result) ? "deleted" : "terminating");
  co_return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: config-sync-async NAMESPACE snapshot|clean\n"
               "       config-sync-async NAMESPACE watch N\n"
               "       config-sync-async NAMESPACE logs POD\n");
  return 2;
}

awaitable<int> run(Client client, std::string ns, std::string command, std::string arg) {
  auto pods = Api<core::Pod>::namespaced(client, ns);
  auto maps = Api<core::ConfigMap>::namespaced(client, ns);
  if (command == "snapshot") {
    co_return co_await snapshot(pods, maps);
  }
  if (command == "watch" && !arg.empty()) {
    co_return co_await watch(pods, maps, std::atoi(arg.c_str()));
  }
  if (command == "logs" && !arg.empty()) {
    co_return co_await logs(pods, arg);
  }
  if (command == "clean") {
    co_return co_await clean(maps);
  }
  co_return usage();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    return usage();
  }
  asio::io_context ioc;
  int status = 1;
  Client client(ioc.get_executor(), kubex::client::infer_config());
  asio::co_spawn(ioc, run(client, argv[1], argv[2], argc > 3 ? argv[3] : ""),
                 [&](std::exception_ptr error, int result) {
                   if (!error) {
                     status = result;
                     return;
                   }
                   try {
                     std::rethrow_exception(error);
                   } catch (const kubex::ApiError& e) {
                     std::fprintf(stderr, "config-sync-async: %s\n", e.what());
                     status = kubex::is_not_found(e) ? 3 : 1;
                   } catch (const std::exception& e) {
                     std::fprintf(stderr, "config-sync-async: %s\n", e.what());
                   }
                 });
  ioc.run();
  return status;
}
