// SPDX-License-Identifier: Apache-2.0
// Example: list the pods of a namespace, read one, then watch for changes, with C++20
// coroutines on one io_context.
//
//   kubex-watch-pods [NAMESPACE [SECONDS]]
//
// Configuration as kubectl finds it (KUBECONFIG, ~/.kube/config, in-cluster). The watch starts
// at the list's resourceVersion, so it reports only what changes afterwards, and stops after
// SECONDS (default 10) when the server ends it.

#include <kubex/client/api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace core = kubex::k8s::v1_35::core::v1;
using boost::asio::use_awaitable;

// Options are named variables, not braced temporaries: GCC 12 miscompiles temporaries with
// non-trivial destructors inside co_await expressions (they are destroyed twice).
boost::asio::awaitable<void> run(kubex::client::Api<core::Pod> pods, std::int64_t seconds) {
  const kubex::ListParams everything;
  const auto list = co_await pods.async_list(everything, use_awaitable);
  std::printf("%zu pods in %s\n", list.items.size(), pods.namespace_name().c_str());
  if (!list.items.empty()) {
    const auto pod = co_await pods.async_get(*list.items[0].metadata.name, use_awaitable);
    std::printf("first: %s phase=%s\n", pod.metadata.name->c_str(),
                pod.status && pod.status->phase ? pod.status->phase->value().c_str() : "?");
  }
  const kubex::WatchParams changes{.resource_version = *list.metadata.resource_version,
                                   .timeout_seconds = seconds};
  auto watch = co_await pods.async_watch(changes, use_awaitable);
  while (auto event = co_await watch.async_next(use_awaitable)) {
    if (event->type == kubex::WatchEventType::error) {
      std::printf("watch error: %s\n", event->status.message.c_str());
      break;
    }
    std::printf("%s %s\n", kubex::to_string(event->type).data(),
                event->object.metadata.name.value_or("").c_str());
  }
  std::printf("watch ended\n");
}

int main(int argc, char** argv) {
  // Each change is printed as it happens, into a pipe too.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  try {
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
    auto pods = argc > 1 ? kubex::client::Api<core::Pod>::namespaced(client, argv[1])
                         : kubex::client::Api<core::Pod>::default_namespaced(client);
    const std::int64_t seconds = argc > 2 ? std::stoll(argv[2]) : 10;
    std::exception_ptr failure;
    boost::asio::co_spawn(ioc, run(pods, seconds),
                          [&failure](std::exception_ptr e) { failure = std::move(e); });
    ioc.run();
    if (failure) {
      std::rethrow_exception(failure);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-watch-pods: %s\n", e.what());
    return 1;
  }
  return 0;
}
