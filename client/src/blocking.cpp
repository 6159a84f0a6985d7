#include <kubex/client/blocking.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <future>
#include <string>
#include <utility>

namespace kubex::client {

struct BlockingClient::Impl {
  Impl(ClientConfig config, ClientOptions options)
      : client(ioc.get_executor(), std::move(config), std::move(options)) {}

  // Runs the private io_context on this thread until `ready()`.
  void run_until(const std::function<bool()>& ready) {
    ioc.restart();
    while (!ready()) {
      if (ioc.run_one() == 0) {
        ioc.restart();  // out of work means the result is set; the loop condition sees it
      }
    }
  }

  // Destruction order: the client's pending work belongs to the io_context.
  boost::asio::io_context ioc{1};
  Client client;
};

BlockingClient::BlockingClient(ClientConfig config, ClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

BlockingClient::~BlockingClient() = default;
BlockingClient::BlockingClient(BlockingClient&& other) noexcept = default;
BlockingClient& BlockingClient::operator=(BlockingClient&& other) noexcept = default;

HttpResponse BlockingClient::send(HttpRequest request) {
  return wait(impl_->client.async_request(std::move(request), boost::asio::use_future));
}

const Client& BlockingClient::async_client() const noexcept {
  return impl_->client;
}

void BlockingClient::run_until(const std::function<bool()>& ready) {
  impl_->run_until(ready);
}

HttpResponse BlockingClient::get(std::string_view target) {
  HttpRequest request;
  request.target.assign(target);
  return send(std::move(request));
}

HttpResponse BlockingClient::request(std::string_view method, std::string_view target,
                                     std::string_view body, std::string_view content_type) {
  HttpRequest request;
  request.method.assign(method);
  request.target.assign(target);
  request.body.assign(body);
  request.content_type.assign(content_type);
  return send(std::move(request));
}

void BlockingClient::close() {
  impl_->client.transport()->close_idle();
  impl_->ioc.restart();
  impl_->ioc.poll();
}

TransportStats BlockingClient::stats() const {
  return impl_->client.stats();
}

ClientConfig BlockingClient::config() const {
  return impl_->client.config();
}

}  // namespace kubex::client
