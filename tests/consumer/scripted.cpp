// kubex::testing from the installed package: a ScriptedTransport answers a Client's request.
#include <kubex/testing/scripted_transport.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <cstdio>
#include <memory>

int main() {
  boost::asio::io_context ioc;
  auto transport = std::make_shared<kubex::testing::ScriptedTransport>(ioc.get_executor());
  transport->respond("GET", "/version", 200, R"({"gitVersion":"v1.35.4"})");
  kubex::client::Client client(transport);
  auto answer = client.async_request({.target = "/version"}, boost::asio::use_future);
  ioc.run();
  const auto response = answer.get();
  if (response.status != 200 || !transport->verify().empty()) {
    std::fprintf(stderr, "scripted consumer: unexpected answer %u\n", response.status);
    return 1;
  }
  std::printf("scripted consumer: %s\n", response.body.c_str());
  return 0;
}
