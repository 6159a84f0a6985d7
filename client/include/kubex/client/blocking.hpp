#pragma once

#include <kubex/client/client.hpp>
#include <kubex/client/http.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string_view>

namespace kubex::client {

/// The blocking facade over Client for simple programs and tools: each call runs a private
/// io_context on the calling thread until the request has completed. It shares the transport's
/// behaviour (keep-alive pool, gzip, retries, rate limit, credentials) and its errors, which it
/// throws. Not thread-safe: use one BlockingClient per thread, or Client from several.
class BlockingClient {
 public:
  /// Prepares the transport; does not connect yet.
  /// @throws kubex::ConfigError if the configuration cannot be used (plain http server,
  ///         unusable certificate or key).
  explicit BlockingClient(ClientConfig config, ClientOptions options = {});
  /// Closes all connections.
  ~BlockingClient();
  /// Takes over `other`'s transport.
  BlockingClient(BlockingClient&& other) noexcept;
  /// Closes this client's connections and takes over `other`'s transport.
  BlockingClient& operator=(BlockingClient&& other) noexcept;
  BlockingClient(const BlockingClient&) = delete;
  BlockingClient& operator=(const BlockingClient&) = delete;

  /// Sends `request` and reads the whole response; non-2xx statuses are returned, not thrown.
  /// @throws kubex::Error: errc::invalid_path for a malformed method, target or header,
  ///         errc::tls_verification_failed if the server certificate is not trusted,
  ///         std::errc::timed_out past a deadline, and the transport's code otherwise.
  HttpResponse send(HttpRequest request);
  /// `GET target` with `Accept: application/json`; see send().
  HttpResponse get(std::string_view target);
  /// `method target` with `body` of type `content_type`; see send().
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body,
                       std::string_view content_type = "application/json");

  /// Closes the idle pooled connections; the next request opens a new one.
  void close();
  /// The transport's counters (connections opened and reused, retries, exec plugin runs).
  [[nodiscard]] TransportStats stats() const;
  /// The configuration in use, with credentials refreshed so far.
  [[nodiscard]] ClientConfig config() const;

  /// The asynchronous client behind this facade. Its operations make progress only while
  /// this object waits (wait(), or any blocking call).
  [[nodiscard]] const Client& async_client() const noexcept;
  /// Runs this client's I/O on the calling thread until `future` is ready, then returns its
  /// value (or throws its exception): `bc.wait(api.async_get("x", boost::asio::use_future))`.
  template <class R>
  R wait(std::future<R> future) {
    run_until([&future] {
      return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    });
    return future.get();
  }

 private:
  void run_until(const std::function<bool()>& ready);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubex::client
