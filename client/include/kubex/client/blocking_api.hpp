// SPDX-License-Identifier: Apache-2.0
#pragma once

// The blocking facade of Api<T>: the same verbs as plain function calls that return results
// and throw kubex::ApiError / kubex::Error, for tools and simple programs.
//
//     kubex::client::BlockingClient bc(kubex::client::infer_config());
//     auto pods = kubex::client::BlockingApi<core::Pod>::default_namespaced(bc);
//     for (const auto& pod : pods.list({.label_selector = "app=web"}).items) { ... }
//
// It sends what Api<T> sends (ResourceCalls) through BlockingClient's compiled request and
// stream calls, so a program that uses it instantiates no Asio templates.

#include <kubex/client/blocking.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/export.hpp>

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kubex::client {

template <resource T>
class Api;  // <kubex/client/api.hpp>

namespace detail {

/// Sends `request` through `client` and returns decode(response): an R, or std::nullopt to
/// throw the response's ApiError. The body's memory goes back to the transport.
template <class R, class Decode>
R blocking_send(BlockingClient& client, HttpRequest request, const Decode& decode) {
  const std::string method = request.method;  // for the error's message
  const std::string target = request.target;
  HttpResponse response = client.send(std::move(request));
  std::optional<R> result = decode(response);
  if (!result) {
    std::rethrow_exception(api_error(method, target, response));
  }
  client.recycle(std::move(response.body));
  return std::move(*result);
}

/// Opens a stream for `request`; throws the ApiError of a non-2xx answer.
KUBEX_API BlockingStream blocking_open(BlockingClient& client, ApiRequest request);

/// The items of a blocking stream, cut and decoded by `Items` (LineItems, WatchItems).
template <class Items>
class BlockingItems {
 public:
  /// What next() hands out.
  using Result = typename Items::result_type;
  /// Reads the items of an open stream.
  explicit BlockingItems(BlockingStream stream) : stream_(std::move(stream)) {
    if constexpr (requires(Items & i) { i.configure(stream_.head()); }) {
      items_.configure(stream_.head());
    }
  }
  /// The next item, or std::nullopt once the body has ended.
  std::optional<Result> next() {
    std::optional<Result> item;
    while (!items_.take(item)) {
      if (stream_.read_some(items_.buffer()) == 0) {
        items_.end();
      }
    }
    return item;
  }
  /// Ends the stream.
  void cancel() noexcept { stream_.cancel(); }
  /// Items longer than `bytes` make next() throw a kubex::Error of std::errc::message_size (0: no
  /// limit).
  void limit(std::size_t bytes) noexcept { items_.limit(bytes); }
  /// The response head.
  [[nodiscard]] const HttpResponse& head() const noexcept { return stream_.head(); }

 private:
  BlockingStream stream_;
  Items items_;
};

}  // namespace detail

/// A blocking watch: next() waits for the next event. Its BlockingClient must outlive it.
template <class Object>
class BlockingWatch {
 public:
  /// Reads the events of an open watch.
  explicit BlockingWatch(BlockingStream stream) : lines_(std::move(stream)) {
    lines_.limit(default_max_watch_event_size);
  }
  /// The next event, or std::nullopt when the server ended the watch. A malformed event throws
  /// a DecodeError and the watch stays usable; an event over the size limit throws a
  /// kubex::Error of std::errc::message_size, and ends the watch.
  std::optional<WatchEvent<Object>> next() { return lines_.next(); }
  /// Events longer than `bytes` fail next() (default: default_max_watch_event_size; 0: none).
  void set_max_event_size(std::size_t bytes) noexcept { lines_.limit(bytes); }
  /// Ends the watch (from any thread; a pending next() throws operation_canceled).
  void cancel() noexcept { lines_.cancel(); }

 private:
  detail::BlockingItems<detail::WatchItems<Object>> lines_;
};

/// A blocking followed log: next_line() waits for the next line. Its BlockingClient must
/// outlive it.
class BlockingLogStream {
 public:
  /// Reads the lines of an open log follow.
  explicit BlockingLogStream(BlockingStream stream) : lines_(std::move(stream)) {}
  /// The next line, or std::nullopt at the end of the log.
  std::optional<std::string> next_line() { return lines_.next(); }
  /// Ends the stream.
  void cancel() noexcept { lines_.cancel(); }

 private:
  detail::BlockingItems<detail::LineItems<std::string, detail::ParseLogLine>> lines_;
};

/// Api<T> with blocking calls on a BlockingClient (which must outlive it). Not thread-safe,
/// like BlockingClient.
template <resource T>
class BlockingApi {
 public:
  /// The asynchronous Api of T (<kubex/client/api.hpp>).
  using async_api = Api<T>;
  /// T's list type.
  using list_type = typename resource_traits<T>::list_type;
  /// Metadata-only object.
  using metadata_type = PartialObjectMeta<T>;
  /// Metadata-only list.
  using metadata_list_type = PartialObjectMetaList<T>;

  /// Objects in `namespace_name`.
  static BlockingApi namespaced(BlockingClient& client, std::string_view namespace_name)
    requires namespace_scoped<T>
  {
    if (namespace_name.empty()) {
      throw Error(errc::invalid_path, "BlockingApi::namespaced: the namespace must not be empty");
    }
    return {client, namespace_name};
  }
  /// Objects in the client's default namespace.
  static BlockingApi default_namespaced(BlockingClient& client)
    requires namespace_scoped<T>
  {
    const std::string ns = client.config().namespace_name;
    return namespaced(client, ns.empty() ? std::string_view("default") : ns);
  }
  /// All namespaces, or cluster-wide.
  static BlockingApi all(BlockingClient& client) { return {client, {}}; }

  /// The namespace addressed; empty for all namespaces or a cluster-scoped kind.
  [[nodiscard]] const std::string& namespace_name() const noexcept {
    return calls_.namespace_name();
  }

  /// See Api::async_get.
  T get(std::string_view name, const GetParams& params = {}) {
    return call<T>(calls_.get(name, params), detail::decode_success<T>());
  }
  /// See Api::async_get_opt.
  std::optional<T> get_opt(std::string_view name) {
    return call<std::optional<T>>(calls_.get(name), detail::decode_optional<T>());
  }
  /// See Api::async_list.
  list_type list(const ListParams& params = {}) {
    return call_list<list_type>(calls_.list(params));
  }
  /// See Api::async_create.
  T create(const T& object, const PostParams& params = {}) {
    return call<T>(calls_.create(object, params), detail::decode_success<T>());
  }
  /// See Api::async_replace.
  T replace(const T& object, const PostParams& params = {}) {
    return call<T>(calls_.replace(object, params), detail::decode_success<T>());
  }
  /// See Api::async_patch.
  T patch(std::string_view name, const Patch& patch, const PatchParams& params = {}) {
    return call<T>(calls_.patch(name, patch, params), detail::decode_success<T>());
  }
  /// See Api::async_apply.
  T apply(const T& object, std::string_view field_manager, bool force = false) {
    return call<T>(calls_.apply(object, PatchParams{.field_manager = std::string(field_manager),
                                                    .force = force}),
                   detail::decode_success<T>());
  }
  /// See Api::async_delete.
  DeleteResult<T> delete_(std::string_view name, const DeleteParams& params = {}) {
    return call<DeleteResult<T>>(calls_.delete_(name, params),
                                 detail::decode_object_or_status<T>());
  }
  /// See Api::async_delete_collection.
  std::variant<list_type, Status> delete_collection(const DeleteParams& params = {},
                                                    const ListParams& list = {}) {
    return call<std::variant<list_type, Status>>(calls_.delete_collection(params, list),
                                                 detail::decode_object_or_status<list_type>());
  }
  /// See Api::async_get_metadata.
  metadata_type get_metadata(std::string_view name) {
    return call<metadata_type>(calls_.get_metadata(name), detail::decode_success<metadata_type>());
  }
  /// See Api::async_list_metadata.
  metadata_list_type list_metadata(const ListParams& params = {}) {
    return call_list<metadata_list_type>(calls_.list_metadata(params));
  }
  /// See Api::async_watch.
  BlockingWatch<T> watch(const WatchParams& params = {}) {
    return BlockingWatch<T>(detail::blocking_open(*client_, calls_.watch(params)));
  }
  /// See Api::async_watch_metadata.
  BlockingWatch<metadata_type> watch_metadata(const WatchParams& params = {}) {
    return BlockingWatch<metadata_type>(
        detail::blocking_open(*client_, calls_.watch_metadata(params)));
  }
  /// See Api::async_get_status.
  T get_status(std::string_view name)
    requires(subresource_supports<T>("status", Verb::get))
  {
    return call<T>(calls_.get_subresource("status", name), detail::decode_success<T>());
  }
  /// See Api::async_replace_status.
  T replace_status(const T& object, const PostParams& params = {})
    requires(subresource_supports<T>("status", Verb::update))
  {
    return call<T>(calls_.replace_status(object, params), detail::decode_success<T>());
  }
  /// See Api::async_patch_status.
  T patch_status(std::string_view name, const Patch& patch, const PatchParams& params = {})
    requires(subresource_supports<T>("status", Verb::patch))
  {
    return call<T>(calls_.patch_subresource("status", name, patch, params),
                   detail::decode_success<T>());
  }
  /// See Api::async_apply_status.
  T apply_status(const T& object, std::string_view field_manager, bool force = false)
    requires(subresource_supports<T>("status", Verb::patch))
  {
    return call<T>(
        calls_.apply_status(
            object, PatchParams{.field_manager = std::string(field_manager), .force = force}),
        detail::decode_success<T>());
  }
  /// See Api::async_logs.
  std::string logs(std::string_view name, const LogParams& params = {})
    requires(subresource_supports<T>("log", Verb::get))
  {
    return call<std::string>(calls_.logs(name, params, false), detail::decode_text());
  }
  /// See Api::async_log_stream.
  BlockingLogStream log_stream(std::string_view name, const LogParams& params = {})
    requires(subresource_supports<T>("log", Verb::get))
  {
    return BlockingLogStream(detail::blocking_open(*client_, calls_.logs(name, params, true)));
  }
  /// See Api::async_run: runs a command in pod `name` to its end.
  ExecResult run(std::string_view name, const ExecParams& params, std::string input = {})
    requires(subresource_supports<T>("exec", Verb::connect))
  {
    return client_->run_process(calls_.exec(name, params), std::move(input), params.with_stdin);
  }
  /// See Api::async_exec: an interactive session with a command in pod `name`.
  BlockingProcess exec(std::string_view name, const ExecParams& params)
    requires(subresource_supports<T>("exec", Verb::connect))
  {
    return client_->open_process(calls_.exec(name, params), params.tty);
  }
  /// See Api::async_attach.
  BlockingProcess attach(std::string_view name, const AttachParams& params)
    requires(subresource_supports<T>("attach", Verb::connect))
  {
    return client_->open_process(calls_.attach(name, params), params.tty);
  }
  /// See Api::async_port_forward: a connection to `port` of pod `name`.
  BlockingPortStream port_forward(std::string_view name, std::uint16_t port)
    requires(subresource_supports<T>("portforward", Verb::connect))
  {
    return client_->open_port_stream(calls_.port_forward(name, {}), port);
  }
  /// The client it calls through.
  [[nodiscard]] BlockingClient& client() const noexcept { return *client_; }
  /// The asynchronous Api over the same client and namespace, for subresources and anything
  /// else (include <kubex/client/api.hpp>; wait on the client for its operations).
  [[nodiscard]] async_api async() const {
    if constexpr (namespace_scoped<T>) {
      if (!calls_.namespace_name().empty()) {
        return async_api::namespaced(client_->async_client(), calls_.namespace_name());
      }
    }
    return async_api::all(client_->async_client());
  }

 private:
  BlockingApi(BlockingClient& client, std::string_view namespace_name)
      : client_(&client), calls_(namespace_name, client.encoding()) {}

  template <class R, class Decode>
  R call(ApiRequest request, const Decode& decode) {
    return detail::blocking_send<R>(*client_, detail::to_http(std::move(request)), decode);
  }
  // A list, decoded while it arrives.
  template <class L>
  L call_list(ApiRequest request) {
    detail::ListBody<L> body;
    HttpRequest http = detail::to_http(std::move(request));
    http.on_body = body.observer();
    return detail::blocking_send<L>(*client_, std::move(http), body.decoder());
  }

  BlockingClient* client_;
  ResourceCalls<T> calls_;
};

}  // namespace kubex::client
