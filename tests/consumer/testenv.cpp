// SPDX-License-Identifier: Apache-2.0
// The installed package against a real apiserver (test install_consumer_testenv), as a user's
// first program would use it: the blocking API lists the namespaces and makes one of its own;
// Api<T> (asynchronous, coroutines on one io_context) creates and reads a ConfigMap there while
// a watch and a Reflector run: the watch must see the create and the reflector's store hold the
// ConfigMap. The blocking API deletes it and the namespace. Exits non-zero naming what failed.
//
//   consumer_testenv KUBECONFIG

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/reflector.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

namespace core = kubex::api::core::v1;
using boost::asio::use_awaitable;
using kubex::client::Api;
using kubex::client::BlockingApi;

const std::string config_map_name = "consumer";

void check(bool ok, const std::string& what) {
  if (!ok) {
    throw std::runtime_error(what);
  }
}

// Options are named variables, not braced temporaries, inside co_await expressions: GCC 12
// destroys such temporaries twice (see examples/watch_pods.cpp).
boost::asio::awaitable<void> exercise(Api<core::ConfigMap> maps,
                                      kubex::runtime::Reflector<core::ConfigMap>& reflector) {
  const kubex::ListParams everything;
  const auto before = co_await maps.async_list(everything, use_awaitable);
  const kubex::WatchParams changes{
      .resource_version = before.metadata.resource_version.value_or(""), .timeout_seconds = 60};
  auto watch = co_await maps.async_watch(changes, use_awaitable);
  auto stored = reflector.subscribe();

  core::ConfigMap map;
  map.metadata.name = config_map_name;
  map.data["greeting"] = "hello";
  const auto created = co_await maps.async_create(map, use_awaitable);
  check(created.metadata.uid.has_value(), "create: the answer has no uid");

  // The watch began before the create, so it must report it.
  for (;;) {
    auto event = co_await watch.async_next(use_awaitable);
    check(event.has_value(), "watch: ended before the ConfigMap's ADDED event");
    check(event->type != kubex::WatchEventType::error, "watch: ERROR event");
    if (event->type == kubex::WatchEventType::added &&
        event->object.metadata.name.value_or("") == config_map_name) {
      break;
    }
  }
  std::printf("watch: ADDED %s\n", config_map_name.c_str());

  const auto got = co_await maps.async_get(config_map_name, use_awaitable);
  check(got.metadata.uid == created.metadata.uid && got.data.size() == 1 &&
            got.data.begin()->second == "hello",
        "get: not the ConfigMap created");

  // The reflector lists and watches by itself: wait for its store to hold the ConfigMap (from
  // its list or from its watch, whichever came first).
  const std::string key = maps.namespace_name() + "/" + config_map_name;
  while (!reflector.store().ready() || !reflector.store().get(key)) {
    co_await stored.async_next(use_awaitable);
  }
  check(reflector.store().get(key)->metadata.uid == created.metadata.uid,
        "reflector: the store holds another object");
  std::printf("reflector: synced, %zu ConfigMaps, holds %s\n", reflector.store().size(),
              key.c_str());
  reflector.cancel();
}

// Runs the asynchronous part against `ns`; rethrows its failure.
void run_async(const kubex::client::ClientConfig& config, const std::string& ns) {
  boost::asio::io_context ioc;
  kubex::client::Client client(ioc.get_executor(), config);
  auto maps = Api<core::ConfigMap>::namespaced(client, ns);
  kubex::runtime::Reflector<core::ConfigMap> reflector(maps);
  std::exception_ptr failure;
  std::exception_ptr reflector_failure;
  reflector.async_run([&reflector_failure](std::exception_ptr e) { reflector_failure = e; });
  boost::asio::co_spawn(ioc, exercise(maps, reflector), [&](std::exception_ptr e) {
    failure = std::move(e);
    reflector.cancel();  // on failure too: run() returns once the reflector has stopped
  });
  ioc.run();
  if (failure) {
    std::rethrow_exception(failure);
  }
  if (reflector_failure) {
    std::rethrow_exception(reflector_failure);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer_testenv KUBECONFIG\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  std::optional<kubex::client::BlockingClient> blocking;
  std::string ns;
  int status = 0;
  try {
    const auto config = kubex::client::load_kubeconfig(argv[1]);
    blocking.emplace(config);
    auto namespaces = BlockingApi<core::Namespace>::all(*blocking);
    const auto list = namespaces.list();
    bool has_default = false;
    for (const auto& item : list.items) {
      has_default = has_default || item.metadata.name.value_or("") == "default";
    }
    check(has_default, "list namespaces: no \"default\" among them");
    std::printf("namespaces: %zu\n", list.items.size());

    core::Namespace mine;
    mine.metadata.generate_name = "kubex-consumer-";
    ns = namespaces.create(mine).metadata.name.value_or("");
    check(!ns.empty(), "create namespace: the answer has no name");
    std::printf("namespace: %s\n", ns.c_str());

    run_async(config, ns);

    auto maps = BlockingApi<core::ConfigMap>::namespaced(*blocking, ns);
    check(maps.get(config_map_name).data.size() == 1, "blocking get: not the ConfigMap created");
    maps.delete_(config_map_name);
    check(!maps.get_opt(config_map_name).has_value(), "blocking get_opt: still there after delete");
    std::printf("deleted %s/%s\n", ns.c_str(), config_map_name.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer_testenv: %s\n", e.what());
    status = 1;
  }
  if (blocking && !ns.empty()) {
    try {
      BlockingApi<core::Namespace>::all(*blocking).delete_(ns);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "consumer_testenv: deleting namespace %s: %s\n", ns.c_str(), e.what());
      status = 1;
    }
  }
  return status;
}
