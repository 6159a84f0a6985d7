// SPDX-License-Identifier: Apache-2.0
// Example: keep a cache of the pods of a namespace with the watcher, and print each change.
//
//   kubex-pod-cache [NAMESPACE [SECONDS]]
//
// The watcher lists, then watches, resumes, relists after a 410 and backs off after failures
// by itself: the loop below only applies its events. A failure is printed and the loop goes
// on, as a controller's would. It stops after SECONDS (default 10).

#include <kubex/client/api.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/watcher.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <string>

namespace core = kubex::k8s::v1_35::core::v1;
using kubex::runtime::WatcherEventType;

std::string phase_of(const core::Pod& pod) {
  return pod.status && pod.status->phase ? pod.status->phase->value() : "?";
}

boost::asio::awaitable<void> run(kubex::runtime::Watcher<core::Pod>& watcher) {
  std::map<std::string, std::string> cache;     // name -> phase
  std::map<std::string, std::string> building;  // the state being listed
  bool synced = false;
  for (;;) {
    kubex::runtime::WatcherEvent<core::Pod> event;
    try {
      event = co_await watcher.async_next(boost::asio::use_awaitable);
    } catch (const std::exception& e) {
      if (kubex::Failure(std::current_exception()).canceled()) {
        co_return;
      }
      std::printf("watch failed (will resume): %s\n", e.what());
      continue;
    }
    const std::string name = event.object.metadata.name.value_or("");
    switch (event.type) {
      case WatcherEventType::init:
        building.clear();
        break;
      case WatcherEventType::init_apply:
        building[name] = phase_of(event.object);
        break;
      case WatcherEventType::init_done:
        cache.swap(building);
        std::printf("%s: %zu pods\n", synced ? "relisted" : "synced", cache.size());
        synced = true;
        break;
      case WatcherEventType::apply: {
        const auto [it, added] = cache.insert_or_assign(name, phase_of(event.object));
        std::printf("%s %s %s\n", added ? "+" : "~", name.c_str(), it->second.c_str());
        break;
      }
      case WatcherEventType::deleted:
        cache.erase(name);
        std::printf("- %s\n", name.c_str());
        break;
    }
  }
}

int main(int argc, char** argv) {
  // Each change is printed as it happens, into a pipe too.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  try {
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
    auto pods = argc > 1 ? kubex::client::Api<core::Pod>::namespaced(client, argv[1])
                         : kubex::client::Api<core::Pod>::default_namespaced(client);
    const int seconds = argc > 2 ? std::stoi(argv[2]) : 10;
    kubex::runtime::Watcher<core::Pod> watcher(pods);
    boost::asio::steady_timer stop(ioc, std::chrono::seconds(seconds));
    stop.async_wait([&watcher](boost::system::error_code) { watcher.cancel(); });
    std::exception_ptr failure;
    boost::asio::co_spawn(ioc, run(watcher),
                          [&failure](std::exception_ptr e) { failure = std::move(e); });
    ioc.run();
    if (failure) {
      std::rethrow_exception(failure);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-pod-cache: %s\n", e.what());
    return 1;
  }
  return 0;
}
