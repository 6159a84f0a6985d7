// SPDX-License-Identifier: Apache-2.0
#pragma once

// The blocking client. This header and blocking_api.hpp include nothing of Asio: a program
// that uses only the blocking API compiles none of the completion-token machinery.

#include <kubex/client/http.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>
#include <kubex/client/process_output.hpp>
#include <kubex/client/stats.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/request.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client {

class Client;
class BlockingClient;

/// An open streaming response (a watch, a log follow) of a BlockingClient, read with blocking
/// calls. Destroying or cancelling it closes the stream.
class KUBEX_API BlockingStream {
 public:
  /// Closes the stream if it is still open.
  ~BlockingStream();
  /// Takes over `other`'s stream.
  BlockingStream(BlockingStream&& other) noexcept;
  /// Closes this stream and takes over `other`'s.
  BlockingStream& operator=(BlockingStream&& other) noexcept;
  BlockingStream(const BlockingStream&) = delete;
  BlockingStream& operator=(const BlockingStream&) = delete;

  /// Status, content type and warnings; for a non-2xx status the whole (small) error body is
  /// in `head().body` and the stream is at its end.
  [[nodiscard]] const HttpResponse& head() const noexcept;
  /// Waits for the next piece of the body and appends it to `out`; returns its size, 0 once
  /// the body has ended cleanly.
  /// @throws kubex::Error for transport failures (std::errc::operation_canceled after
  ///         cancel()).
  std::size_t read_some(std::string& out);
  /// Closes the stream (from any thread); a read in progress fails with operation_canceled.
  void cancel() noexcept;

 private:
  friend class BlockingClient;
  struct Impl;
  explicit BlockingStream(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

/// An exec or attach session of a BlockingClient (see RemoteProcess), driven by blocking
/// calls. Destroying it closes the connection.
class KUBEX_API BlockingProcess {
 public:
  /// Closes the connection if it is still open.
  ~BlockingProcess();
  /// Takes over `other`'s session.
  BlockingProcess(BlockingProcess&& other) noexcept;
  /// Closes this session and takes over `other`'s.
  BlockingProcess& operator=(BlockingProcess&& other) noexcept;
  BlockingProcess(const BlockingProcess&) = delete;
  BlockingProcess& operator=(const BlockingProcess&) = delete;

  /// Waits for the next piece of output; std::nullopt once the process has ended (its exit
  /// code is then in exit_code()). @throws kubex::ApiError if the process could not run.
  std::optional<ProcessOutput> read();
  /// Writes `data` to the process's stdin.
  void write(std::string data);
  /// Closes the process's stdin (v5.channel.k8s.io only).
  void close_stdin();
  /// Resizes its tty to `width` columns and `height` rows.
  void resize(std::uint16_t width, std::uint16_t height);
  /// The exit code, once read() has returned std::nullopt.
  [[nodiscard]] std::optional<int> exit_code() const noexcept;
  /// The subprotocol the server chose.
  [[nodiscard]] std::string subprotocol() const;
  /// Closes the connection (any thread, also while another thread waits in read() or
  /// write(), which then throws kubex::Error with std::errc::operation_canceled).
  void cancel() noexcept;
  /// Bytes moved so far and the most held at once (RemoteProcess::stats; any thread).
  [[nodiscard]] ProcessStats stats() const noexcept;

 private:
  friend class BlockingClient;
  struct Impl;
  explicit BlockingProcess(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

/// A port-forward connection of a BlockingClient (see PortStream): one connection to a port
/// of a pod, through a tunnel of its own. Destroying it resets the connection.
class KUBEX_API BlockingPortStream {
 public:
  /// Resets the connection if it is still open.
  ~BlockingPortStream();
  /// Takes over `other`'s connection.
  BlockingPortStream(BlockingPortStream&& other) noexcept;
  /// Resets this connection and takes over `other`'s.
  BlockingPortStream& operator=(BlockingPortStream&& other) noexcept;
  BlockingPortStream(const BlockingPortStream&) = delete;
  BlockingPortStream& operator=(const BlockingPortStream&) = delete;

  /// Waits for what the pod sends next and appends it to `out`; returns its size, 0 once the
  /// pod's side has closed. @throws kubex::Error if the kubelet could not forward.
  std::size_t read_some(std::string& out);
  /// Sends `data` to the pod.
  void write(std::string data);
  /// Half-closes the connection: the pod's program reads end of file.
  void close_write();
  /// Resets the connection (any thread).
  void cancel() noexcept;

 private:
  friend class BlockingClient;
  struct Impl;
  explicit BlockingPortStream(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

/// The blocking facade over Client for simple programs and tools: each call runs a private
/// io_context on the calling thread until the request has completed. It shares the transport's
/// behaviour (keep-alive pool, gzip, retries, rate limit, credentials) and its errors, which it
/// throws. Not thread-safe: use one BlockingClient per thread, or Client from several.
class KUBEX_API BlockingClient {
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
  /// Sends `request` and returns once the response head has arrived; the body is read from
  /// the stream. Throws as send() does.
  BlockingStream open(HttpRequest request);
  /// Gives a response body that has been read back to the transport, for a later response to
  /// be read into its memory.
  void recycle(std::string&& body) noexcept;
  /// Opens an exec or attach session for `request` (RequestBuilder::exec or attach).
  /// @throws kubex::ApiError if the server refuses it.
  BlockingProcess open_process(ApiRequest request, bool tty, const ProcessOptions& options = {});
  /// Runs the exec `request` to its end, writing `input` to its stdin (then closing it) when
  /// `with_stdin`. @throws kubex::ApiError if it is refused or cannot run.
  ExecResult run_process(ApiRequest request, std::string input, bool with_stdin);
  /// Opens a port-forward tunnel for `request` (RequestBuilder::port_forward) and a connection
  /// to `port` through it. @throws kubex::ApiError if the server refuses the tunnel.
  BlockingPortStream open_port_stream(ApiRequest request, std::uint16_t port);

  /// Closes the idle pooled connections; the next request opens a new one.
  void close();
  /// The transport's counters (connections opened and reused, retries, exec plugin runs).
  [[nodiscard]] TransportStats stats() const;
  /// The configuration in use, with credentials refreshed so far.
  [[nodiscard]] ClientConfig config() const;
  /// The encoding Api asks responses in (ClientOptions::encoding).
  [[nodiscard]] Encoding encoding() const;

  /// The asynchronous client behind this facade (include <kubex/client/client.hpp> to use
  /// it). Its operations make progress only while this object waits (wait(), or any blocking
  /// call).
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
  /// Runs this client's I/O on the calling thread until `ready()` holds (asked after each
  /// completion it runs) or `timeout` has passed; returns ready(). For work started on
  /// async_client() that ends by no future: a reflector's store catching up, say.
  bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds timeout);

 private:
  friend class BlockingStream;
  friend class BlockingProcess;
  friend class BlockingPortStream;
  void run_until(const std::function<bool()>& ready);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubex::client
