// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/blocking.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/client/port_forward.hpp>
#include <kubex/client/remote_process.hpp>
#include <kubex/core/error.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <future>
#include <memory>
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

  // Runs the io_context until `future` is ready; returns its value or throws its error.
  template <class R>
  R wait(std::future<R> future) {
    run_until([&future] {
      return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    });
    return future.get();
  }

  // Destruction order: the client's pending work belongs to the io_context.
  boost::asio::io_context ioc{1};
  Client client;
};

struct BlockingStream::Impl {
  BlockingClient::Impl* client;  // the BlockingClient outlives its streams
  ResponseStream stream;
};

BlockingStream::BlockingStream(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
BlockingStream::~BlockingStream() = default;
BlockingStream::BlockingStream(BlockingStream&& other) noexcept = default;
BlockingStream& BlockingStream::operator=(BlockingStream&& other) noexcept = default;

const HttpResponse& BlockingStream::head() const noexcept {
  static const HttpResponse none{};
  return impl_ ? impl_->stream.head() : none;
}

std::size_t BlockingStream::read_some(std::string& out) {
  if (!impl_) {
    throw Error(errc::invalid_argument, "BlockingStream::read_some: the stream was moved from");
  }
  return impl_->client->wait(impl_->stream.async_read_some(out, boost::asio::use_future));
}

void BlockingStream::cancel() noexcept {
  if (impl_) {
    impl_->stream.cancel();
  }
}

struct BlockingProcess::Impl {
  BlockingClient::Impl* client;  // the BlockingClient outlives its sessions
  RemoteProcess process;
};

BlockingProcess::BlockingProcess(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
BlockingProcess::~BlockingProcess() = default;
BlockingProcess::BlockingProcess(BlockingProcess&& other) noexcept = default;
BlockingProcess& BlockingProcess::operator=(BlockingProcess&& other) noexcept = default;

namespace {

void require_session(const void* impl) {
  if (impl == nullptr) {
    throw Error(errc::invalid_argument, "the blocking session or stream was moved from");
  }
}

}  // namespace

std::optional<ProcessOutput> BlockingProcess::read() {
  require_session(impl_.get());
  return impl_->client->wait(impl_->process.async_read(boost::asio::use_future));
}

void BlockingProcess::write(std::string data) {
  require_session(impl_.get());
  impl_->client->wait(impl_->process.async_write(std::move(data), boost::asio::use_future));
}

void BlockingProcess::close_stdin() {
  require_session(impl_.get());
  impl_->client->wait(impl_->process.async_close_stdin(boost::asio::use_future));
}

void BlockingProcess::resize(std::uint16_t width, std::uint16_t height) {
  require_session(impl_.get());
  impl_->client->wait(impl_->process.async_resize(width, height, boost::asio::use_future));
}

std::optional<int> BlockingProcess::exit_code() const noexcept {
  return impl_ ? impl_->process.exit_code() : std::nullopt;
}

std::string BlockingProcess::subprotocol() const {
  return impl_ ? impl_->process.subprotocol() : std::string();
}

void BlockingProcess::cancel() noexcept {
  if (impl_) {
    impl_->process.cancel();
  }
}

ProcessStats BlockingProcess::stats() const noexcept {
  return impl_ ? impl_->process.stats() : ProcessStats{};
}

struct BlockingPortStream::Impl {
  BlockingClient::Impl* client;  // the BlockingClient outlives its streams
  PortForwarder forwarder;
  PortStream stream;
};

BlockingPortStream::BlockingPortStream(std::unique_ptr<Impl> impl) noexcept
    : impl_(std::move(impl)) {}
BlockingPortStream::~BlockingPortStream() = default;
BlockingPortStream::BlockingPortStream(BlockingPortStream&& other) noexcept = default;
BlockingPortStream& BlockingPortStream::operator=(BlockingPortStream&& other) noexcept = default;

std::size_t BlockingPortStream::read_some(std::string& out) {
  require_session(impl_.get());
  return impl_->client->wait(impl_->stream.async_read_some(out, boost::asio::use_future));
}

void BlockingPortStream::write(std::string data) {
  require_session(impl_.get());
  impl_->client->wait(impl_->stream.async_write(std::move(data), boost::asio::use_future));
}

void BlockingPortStream::close_write() {
  require_session(impl_.get());
  impl_->client->wait(impl_->stream.async_close_write(boost::asio::use_future));
}

void BlockingPortStream::cancel() noexcept {
  if (impl_) {
    impl_->stream.cancel();
  }
}

BlockingClient::BlockingClient(ClientConfig config, ClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

BlockingClient::~BlockingClient() = default;
BlockingClient::BlockingClient(BlockingClient&& other) noexcept = default;
BlockingClient& BlockingClient::operator=(BlockingClient&& other) noexcept = default;

HttpResponse BlockingClient::send(HttpRequest request) {
  return wait(impl_->client.async_request(std::move(request), boost::asio::use_future));
}

BlockingStream BlockingClient::open(HttpRequest request) {
  auto stream =
      impl_->wait(impl_->client.async_stream(std::move(request), boost::asio::use_future));
  return BlockingStream(
      std::make_unique<BlockingStream::Impl>(BlockingStream::Impl{impl_.get(), std::move(stream)}));
}

BlockingProcess BlockingClient::open_process(ApiRequest request, bool tty,
                                             const ProcessOptions& options) {
  auto process = impl_->wait(
      async_open_process(impl_->client, std::move(request), tty, options, boost::asio::use_future));
  return BlockingProcess(std::make_unique<BlockingProcess::Impl>(
      BlockingProcess::Impl{impl_.get(), std::move(process)}));
}

ExecResult BlockingClient::run_process(ApiRequest request, std::string input, bool with_stdin) {
  std::promise<ExecResult> promise;
  auto future = promise.get_future();
  detail::run_process(impl_->client, detail::Prepared(std::move(request)), std::move(input),
                      with_stdin, ProcessOptions{},
                      [&promise](std::exception_ptr error, ExecResult result) {
                        if (error) {
                          promise.set_exception(error);
                        } else {
                          promise.set_value(std::move(result));
                        }
                      });
  return impl_->wait(std::move(future));
}

BlockingPortStream BlockingClient::open_port_stream(ApiRequest request, std::uint16_t port) {
  std::promise<PortForwarder> promise;
  auto future = promise.get_future();
  detail::open_port_forward(impl_->client, detail::Prepared(std::move(request)),
                            [&promise](std::exception_ptr error, PortForwarder forwarder) {
                              if (error) {
                                promise.set_exception(error);
                              } else {
                                promise.set_value(std::move(forwarder));
                              }
                            });
  auto forwarder = impl_->wait(std::move(future));
  auto stream = impl_->wait(forwarder.async_open(port, boost::asio::use_future));
  return BlockingPortStream(std::make_unique<BlockingPortStream::Impl>(
      BlockingPortStream::Impl{impl_.get(), std::move(forwarder), std::move(stream)}));
}

void BlockingClient::recycle(std::string&& body) noexcept {
  impl_->client.recycle(std::move(body));
}

const Client& BlockingClient::async_client() const noexcept {
  return impl_->client;
}

void BlockingClient::run_until(const std::function<bool()>& ready) {
  impl_->run_until(ready);
}

bool BlockingClient::wait_until(const std::function<bool()>& ready,
                                std::chrono::milliseconds timeout) {
  if (ready()) {
    return true;
  }
  // The timer wakes the loop at the deadline; its flag outlives this call, as the cancelled
  // wait's handler runs at some later turn of the loop.
  auto expired = std::make_shared<bool>(false);
  boost::asio::steady_timer timer(impl_->ioc);
  timer.expires_after(timeout);
  timer.async_wait([expired](boost::system::error_code ec) {
    if (!ec) {
      *expired = true;
    }
  });
  impl_->run_until([&] { return *expired || ready(); });
  return ready();
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

Encoding BlockingClient::encoding() const {
  return impl_->client.encoding();
}

ClientConfig BlockingClient::config() const {
  return impl_->client.config();
}

namespace detail {

BlockingStream blocking_open(BlockingClient& client, ApiRequest request) {
  HttpRequest http = to_http(std::move(request));
  const std::string method = http.method;  // for the error's message
  const std::string target = http.target;
  BlockingStream stream = client.open(std::move(http));
  if (stream.head().status / 100 != 2) {
    std::rethrow_exception(api_error(method, target, stream.head()));
  }
  return stream;
}

}  // namespace detail

}  // namespace kubex::client
