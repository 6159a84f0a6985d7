// SPDX-License-Identifier: Apache-2.0
#pragma once

// ScriptedTransport: a client::Transport that plays a script instead of talking to a server,
// so that code above the transport (Api<T>, pagination, watch streams, the runtime) gets fast,
// deterministic unit tests, including faults a real apiserver cannot be made to show on cue.
// It is a test double, not an apiserver: every behaviour still needs its test against the real
// control plane (tools/testenv). Each request must match the next step of the script; anything
// else fails that request with an error naming both, and verify() reports it.

#include <kubex/client/client.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace kubex::testing {

/// One piece of a scripted stream's body, delivered by one async_read_some.
struct StreamPiece {
  /// The bytes delivered (ignored when `error` is set).
  std::string bytes{};
  /// Wait before delivering it, as a server that is slow to send.
  std::chrono::milliseconds delay{0};
  /// A transport failure instead of bytes: the read fails with kubex::Error of this code.
  std::optional<std::error_code> error{};
};

/// A step of the script: the request expected next and what answers it.
struct Step {
  /// Expected method.
  std::string method = "GET";
  /// Expected target: path and query, exactly as the client sends it.
  std::string target{};
  /// Further check of the request (a body, a header); empty accepts any.
  std::function<bool(const client::HttpRequest&)> check{};

  /// The answer (async_send), or the head of the stream (async_open: its body is `stream`).
  client::HttpResponse response{.status = 200, .content_type = "application/json"};
  /// Pieces of a whole response's body: the body is shown to the request's on_body reader
  /// this many bytes at a time, as the real transport does while a body arrives; 0: at once.
  std::size_t piece_size = 0;
  /// Wait before answering.
  std::chrono::milliseconds delay{0};
  /// A transport failure instead of an answer (connection refused, reset, a timeout).
  std::optional<std::error_code> fault{};

  /// async_open only: the body, piece by piece.
  std::vector<StreamPiece> stream{};
  /// async_open only: after the last piece the stream stays open until cancelled, instead of
  /// ending cleanly (a watch the server keeps open).
  bool hold_open = false;
};

/// A Transport that answers from a script of Steps, in order. Thread-safe; handlers complete
/// on their associated executor, or the one given here.
class KUBEX_API ScriptedTransport final : public client::Transport,
                                          public std::enable_shared_from_this<ScriptedTransport> {
 public:
  /// A transport on `executor`; config() returns `config` (its namespace_name is what
  /// Api<T>::default_namespaced uses).
  explicit ScriptedTransport(boost::asio::any_io_executor executor,
                             client::ClientConfig config = {});

  /// Appends `step` to the script.
  ScriptedTransport& expect(Step step);
  /// Appends a step answering `method target` with `status` and `body`.
  ScriptedTransport& respond(std::string method, std::string target, unsigned status,
                             std::string body);

  /// What encoding() answers (ClientOptions::encoding of a real transport); set it before the
  /// first Api is made from the client.
  ScriptedTransport& encoding(client::Encoding encoding) noexcept {
    encoding_ = encoding;
    return *this;
  }

  /// Every request received so far, in order (their on_body readers dropped).
  [[nodiscard]] std::vector<client::HttpRequest> requests() const;
  /// Steps not yet played.
  [[nodiscard]] std::size_t remaining() const;
  /// Empty when every step was played and every request matched; otherwise what went wrong.
  [[nodiscard]] std::string verify() const;

  [[nodiscard]] boost::asio::any_io_executor get_executor() const override;
  void async_send(client::HttpRequest request,
                  boost::asio::any_completion_handler<client::RequestSignature> handler) override;
  void async_open(client::HttpRequest request,
                  boost::asio::any_completion_handler<client::StreamSignature> handler) override;
  [[nodiscard]] client::TransportStats stats() const override;
  void close_idle() override {}
  [[nodiscard]] client::ClientConfig config() const override;
  [[nodiscard]] client::Encoding encoding() const override { return encoding_; }

  struct State;

 private:
  std::shared_ptr<State> state_;
  client::Encoding encoding_ = client::Encoding::json;
};

}  // namespace kubex::testing
