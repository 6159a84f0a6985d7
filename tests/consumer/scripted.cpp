// SPDX-License-Identifier: Apache-2.0
// kubex::testing from the installed package: a ScriptedTransport answers a Client's request,
// and Api<T>'s get of a ConfigMap (the model decoded from the installed kubex::models).
#include <kubex/client/api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <cstdio>
#include <memory>

int main() {
  boost::asio::io_context ioc;
  auto transport = std::make_shared<kubex::testing::ScriptedTransport>(ioc.get_executor());
  transport->respond("GET", "/version", 200, R"({"gitVersion":"v1.35.4"})");
  transport->respond("GET", "/api/v1/namespaces/apps/configmaps/settings", 200,
                     R"({"kind":"ConfigMap","apiVersion":"v1",)"
                     R"("metadata":{"name":"settings","namespace":"apps"},"data":{"k":"v"}})");
  kubex::client::Client client(transport);
  auto answer = client.async_request({.target = "/version"}, boost::asio::use_future);
  auto maps = kubex::client::Api<kubex::api::core::v1::ConfigMap>::namespaced(client, "apps");
  auto map = maps.async_get("settings", boost::asio::use_future);
  ioc.run();
  const auto response = answer.get();
  const auto settings = map.get();
  if (response.status != 200 || settings.data.size() != 1 || settings.data.begin()->second != "v" ||
      !transport->verify().empty()) {
    std::fprintf(stderr, "scripted consumer: unexpected answer %u: %s\n", response.status,
                 transport->verify().c_str());
    return 1;
  }
  std::printf("scripted consumer: %s\n", response.body.c_str());
  return 0;
}
