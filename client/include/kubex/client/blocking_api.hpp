#pragma once

// The blocking facade of Api<T>: the same verbs as plain function calls that return results
// and throw kubex::ApiError / kubex::Error, for tools and simple programs.
//
//     kubex::client::BlockingClient bc(kubex::client::infer_config());
//     auto pods = kubex::client::BlockingApi<core::Pod>::default_namespaced(bc);
//     for (const auto& pod : pods.list({.label_selector = "app=web"}).items) { ... }

#include <kubex/client/api.hpp>
#include <kubex/client/blocking.hpp>

#include <boost/asio/use_future.hpp>

#include <optional>
#include <string_view>
#include <utility>

namespace kubex::client {

/// A blocking watch: next() waits for the next event.
template <class Object>
class BlockingWatch {
 public:
  /// Wraps an open watch of `client`.
  BlockingWatch(BlockingClient& client, WatchStream<Object> stream)
      : client_(&client), stream_(std::move(stream)) {}
  /// The next event, or std::nullopt when the server ended the watch.
  std::optional<WatchEvent<Object>> next() {
    return client_->wait(stream_.async_next(boost::asio::use_future));
  }
  /// Ends the watch (from any thread; a pending next() throws operation_canceled).
  void cancel() noexcept { stream_.cancel(); }

 private:
  BlockingClient* client_;
  WatchStream<Object> stream_;
};

/// A blocking followed log: next_line() waits for the next line.
class BlockingLogStream {
 public:
  /// Wraps an open log stream of `client`.
  BlockingLogStream(BlockingClient& client, LogStream stream)
      : client_(&client), stream_(std::move(stream)) {}
  /// The next line, or std::nullopt at the end of the log.
  std::optional<std::string> next_line() {
    return client_->wait(stream_.async_next(boost::asio::use_future));
  }
  /// Ends the stream.
  void cancel() noexcept { stream_.cancel(); }

 private:
  BlockingClient* client_;
  LogStream stream_;
};

/// Api<T> with blocking calls on a BlockingClient (which must outlive it). Not thread-safe,
/// like BlockingClient.
template <resource T>
class BlockingApi {
 public:
  /// The asynchronous Api underneath.
  using async_api = Api<T>;
  /// T's list type.
  using list_type = typename async_api::list_type;
  /// Metadata-only object.
  using metadata_type = typename async_api::metadata_type;
  /// Metadata-only list.
  using metadata_list_type = typename async_api::metadata_list_type;

  /// Objects in `namespace_name`.
  static BlockingApi namespaced(BlockingClient& client, std::string_view namespace_name)
    requires namespace_scoped<T>
  {
    return {client, async_api::namespaced(client.async_client(), namespace_name)};
  }
  /// Objects in the client's default namespace.
  static BlockingApi default_namespaced(BlockingClient& client)
    requires namespace_scoped<T>
  {
    return {client, async_api::default_namespaced(client.async_client())};
  }
  /// All namespaces, or cluster-wide.
  static BlockingApi all(BlockingClient& client) {
    return {client, async_api::all(client.async_client())};
  }

  /// See Api::async_get.
  T get(std::string_view name, const GetParams& params = {}) {
    return wait(api_.async_get(name, params, use_future));
  }
  /// See Api::async_get_opt.
  std::optional<T> get_opt(std::string_view name) {
    return wait(api_.async_get_opt(name, use_future));
  }
  /// See Api::async_list.
  list_type list(const ListParams& params = {}) {
    return wait(api_.async_list(params, use_future));
  }
  /// See Api::async_create.
  T create(const T& object, const PostParams& params = {}) {
    return wait(api_.async_create(object, params, use_future));
  }
  /// See Api::async_replace.
  T replace(const T& object, const PostParams& params = {}) {
    return wait(api_.async_replace(object, params, use_future));
  }
  /// See Api::async_patch.
  T patch(std::string_view name, const Patch& patch, const PatchParams& params = {}) {
    return wait(api_.async_patch(name, patch, params, use_future));
  }
  /// See Api::async_apply.
  T apply(const T& object, std::string_view field_manager, bool force = false) {
    return wait(api_.async_apply(object, field_manager, force, use_future));
  }
  /// See Api::async_delete.
  DeleteResult<T> delete_(std::string_view name, const DeleteParams& params = {}) {
    return wait(api_.async_delete(name, params, use_future));
  }
  /// See Api::async_delete_collection.
  std::variant<list_type, Status> delete_collection(const DeleteParams& params = {},
                                                    const ListParams& list = {}) {
    return wait(api_.async_delete_collection(params, list, use_future));
  }
  /// See Api::async_get_metadata.
  metadata_type get_metadata(std::string_view name) {
    return wait(api_.async_get_metadata(name, use_future));
  }
  /// See Api::async_list_metadata.
  metadata_list_type list_metadata(const ListParams& params = {}) {
    return wait(api_.async_list_metadata(params, use_future));
  }
  /// See Api::async_watch.
  BlockingWatch<T> watch(const WatchParams& params = {}) {
    return {*client_, wait(api_.async_watch(params, use_future))};
  }
  /// See Api::async_watch_metadata.
  BlockingWatch<metadata_type> watch_metadata(const WatchParams& params = {}) {
    return {*client_, wait(api_.async_watch_metadata(params, use_future))};
  }
  /// See Api::async_get_status.
  T get_status(std::string_view name)
    requires(subresource_supports<T>("status", Verb::get))
  {
    return wait(api_.async_get_status(name, use_future));
  }
  /// See Api::async_replace_status.
  T replace_status(const T& object, const PostParams& params = {})
    requires(subresource_supports<T>("status", Verb::update))
  {
    return wait(api_.async_replace_status(object, params, use_future));
  }
  /// See Api::async_patch_status.
  T patch_status(std::string_view name, const Patch& patch, const PatchParams& params = {})
    requires(subresource_supports<T>("status", Verb::patch))
  {
    return wait(api_.async_patch_status(name, patch, params, use_future));
  }
  /// See Api::async_logs.
  std::string logs(std::string_view name, const LogParams& params = {})
    requires(subresource_supports<T>("log", Verb::get))
  {
    return wait(api_.async_logs(name, params, use_future));
  }
  /// See Api::async_log_stream.
  BlockingLogStream log_stream(std::string_view name, const LogParams& params = {})
    requires(subresource_supports<T>("log", Verb::get))
  {
    return {*client_, wait(api_.async_log_stream(name, params, use_future))};
  }
  /// The asynchronous Api (for subresources and anything else; wait on the client).
  [[nodiscard]] const async_api& async() const noexcept { return api_; }

 private:
  static constexpr auto use_future = boost::asio::use_future;
  BlockingApi(BlockingClient& client, async_api api) : client_(&client), api_(std::move(api)) {}
  template <class R>
  R wait(std::future<R> f) {
    return client_->wait(std::move(f));
  }
  BlockingClient* client_;
  async_api api_;
};

}  // namespace kubex::client
