// SPDX-License-Identifier: Apache-2.0
// Example: work with a kind known only at run time. Discovery resolves the name as kubectl
// does ("deploy", "crontabs.stable.example.com"), DynamicApi lists the objects, and the
// server's Table gives the columns kubectl get prints.
//
//   kubex-dynamic RESOURCE [NAMESPACE]

#include <kubex/client/discovery.hpp>
#include <kubex/client/dynamic.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <exception>
#include <string>

using Meta = kubex::k8s::v1_35::meta::v1::ObjectMeta;
using boost::asio::use_awaitable;

boost::asio::awaitable<void> run(kubex::client::Client client, std::string name, std::string ns) {
  kubex::client::Discovery discovery(client);
  co_await discovery.async_refresh(use_awaitable);
  const auto resource = discovery.find_name(name);
  if (!resource) {
    throw kubex::Error(kubex::errc::invalid_argument,
                       "the server has no resource \"" + name + "\"");
  }
  std::printf("%s: %s/%s %s, %s\n", name.c_str(), resource->api_version().c_str(),
              resource->plural.c_str(), resource->kind.c_str(),
              resource->scope == kubex::Scope::namespaced ? "namespaced" : "cluster-scoped");
  auto api = resource->scope == kubex::Scope::namespaced && !ns.empty()
                 ? kubex::client::DynamicApi<Meta>::namespaced(client, *resource, ns)
                 : kubex::client::DynamicApi<Meta>::all(client, *resource);
  const kubex::ListParams everything;  // named: GCC 12 mishandles temporaries in co_await
  const auto list = co_await api.async_list(everything, use_awaitable);
  for (const auto& item : list.items) {
    std::printf("  %s (%zu top-level fields besides metadata)\n",
                item.metadata.name.value_or("").c_str(), item.fields.size());
  }
  const auto table = co_await api.async_list_table(everything, use_awaitable);
  for (const auto& column : table.column_definitions) {
    if (column.priority == 0) {
      std::printf("%-24s", column.name.c_str());
    }
  }
  std::printf("\n");
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.cells.size() && i < table.column_definitions.size(); ++i) {
      if (table.column_definitions[i].priority == 0) {
        std::printf("%-24s", row.cells[i].text.c_str());
      }
    }
    std::printf("\n");
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kubex-dynamic RESOURCE [NAMESPACE]\n");
    return 2;
  }
  try {
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
    std::exception_ptr failure;
    boost::asio::co_spawn(ioc, run(client, argv[1], argc > 2 ? argv[2] : ""),
                          [&failure](std::exception_ptr e) { failure = std::move(e); });
    ioc.run();
    if (failure) {
      std::rethrow_exception(failure);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-dynamic: %s\n", e.what());
    return 1;
  }
  return 0;
}
