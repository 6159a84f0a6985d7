// SPDX-License-Identifier: Apache-2.0
#pragma once

// Api<T>: the typed verbs of one Kubernetes resource, on top of Client. Generic over any type
// with resource_traits (generated models, custom resources): paths come from the traits,
// requests from core's RequestBuilder, bodies from the kubex JSON codec, and every operation
// takes an Asio completion token.
//
//     namespace core = kubex::api::core::v1;
//     kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
//     auto pods = kubex::client::Api<core::Pod>::default_namespaced(client);
//     core::Pod pod = co_await pods.async_get("web-0", boost::asio::use_awaitable);
//     auto list = co_await pods.async_list({.label_selector = "app=web"}, use_awaitable);

#include <kubex/client/client.hpp>
#include <kubex/client/port_forward.hpp>
#include <kubex/client/remote_process.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/custom_resource.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/table.hpp>
#include <kubex/core/watch.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kubex::client {

namespace detail {

// The first step of a composed operation whose request could not be built: the error
// completes it from the handler's executor, never inside the initiating function.
template <class R, class Self>
void complete_early(Self& self, std::exception_ptr& error, bool& posted,
                    const boost::asio::any_io_executor& executor) {
  if (!posted) {
    // Through the client's executor: posting to the handler's own (a future's runs on
    // another thread) would complete it where a BlockingClient waiting on its loop never sees.
    posted = true;
    boost::asio::post(executor, std::move(self));
    return;
  }
  self.complete(std::move(error), R{});
}

// One request and the decoding of its response, as an Asio composed operation: the handler
// runs on its associated executor, cancellation reaches the transport.
template <class R, class Decode>
struct CallOp {
  Client client;
  HttpRequest request;
  Decode decode;
  std::exception_ptr early{};  // building the request failed
  bool posted = false;
  std::string method{};
  std::string target{};

  template <class Self>
  void operator()(Self& self) {
    if (early) {
      complete_early<R>(self, early, posted, client.get_executor());
      return;
    }
    method = request.method;
    target = request.target;
    client.async_request(std::move(request), std::move(self));
  }

  template <class Self>
  void operator()(Self& self, std::exception_ptr error, HttpResponse response) {
    if (error) {
      self.complete(std::move(error), R{});
      return;
    }
    std::optional<R> result;
    std::exception_ptr failure;
    try {
      result = decode(response);
      if (!result) {
        failure = api_error(method, target, response);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    // The decoded value owns its data; the body's memory can serve the next response.
    client.recycle(std::move(response.body));
    if (failure) {
      self.complete(std::move(failure), R{});
    } else {
      self.complete(nullptr, std::move(*result));
    }
  }
};

/// Sends `request` and completes with decode(response): an R, or std::nullopt to fail with
/// the response's ApiError.
template <class R, class Decode, class CompletionToken>
auto async_call(const Client& client, Prepared prepared, Decode decode, CompletionToken&& token) {
  return boost::asio::async_compose<CompletionToken, void(std::exception_ptr, R)>(
      CallOp<R, Decode>{client, to_http(std::move(prepared.request)), std::move(decode),
                        std::move(prepared.error)},
      token, client.get_executor());
}

/// Sends a list request and decodes the list's items while its body arrives (ListBody).
/// `complete(L&)` runs on the decoded list before it is delivered.
template <class L, class CompletionToken, class Complete = KeepList>
auto async_list_call(const Client& client, Prepared prepared, CompletionToken&& token,
                     Complete complete = {}) {
  ListBody<L> body;
  HttpRequest http = to_http(std::move(prepared.request));
  http.on_body = body.observer();
  auto decode = body.decoder(std::move(complete));
  return boost::asio::async_compose<CompletionToken, void(std::exception_ptr, L)>(
      CallOp<L, decltype(decode)>{client, std::move(http), std::move(decode),
                                  std::move(prepared.error)},
      token, client.get_executor());
}

/// The items of a streamed body as they arrive, cut and decoded by `Items` (LineItems,
/// WatchItems). Shared by WatchStream and LogStream.
template <class Items>
class ItemStream {
 public:
  /// What async_next hands out.
  using Result = typename Items::result_type;
  /// Completion signature of async_next: an item, or std::nullopt once the body has ended.
  using Signature = void(std::exception_ptr, std::optional<Result>);

  /// Wraps an open stream whose status is 2xx. With `post_buffered`, an item already buffered
  /// when async_next starts is handed over through `executor` (the client's), never inside
  /// async_next; without, it completes there at once, which costs a post less per item.
  ItemStream(ResponseStream stream, boost::asio::any_io_executor executor, bool post_buffered)
      : stream_(std::move(stream)), executor_(std::move(executor)), post_buffered_(post_buffered) {
    if constexpr (requires(Items & i) { i.configure(stream_.head()); }) {
      items_.configure(stream_.head());
    }
  }

  /// Reads the next item. Fails with what decoding it throws (the stream stays usable) or with the
  /// transport's error (std::errc::operation_canceled after cancel()).
  template <class CompletionToken>
  auto async_next(CompletionToken&& token) {
    // The token as an lvalue: async_compose takes `CompletionToken&`, so forwarding a
    // callback passed as a temporary would not compile.
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token);
  }

  /// Ends the stream from any thread; a pending read fails with operation_canceled.
  void cancel() noexcept { stream_.cancel(); }
  /// Items longer than `bytes` fail async_next with a kubex::Error of std::errc::message_size
  /// (Failure::too_large()), and so does every later read: the stream must be dropped. 0: no
  /// limit.
  void set_max_item_size(std::size_t bytes) noexcept { items_.limit(bytes); }

  /// The response head (status, warnings).
  [[nodiscard]] const HttpResponse& head() const noexcept { return stream_.head(); }

 private:
  struct NextOp {
    ItemStream* self_;
    // False until this operation has waited for a read: an item already buffered is then
    // posted, so that the handler never runs inside async_next (several events often arrive
    // in one read, and a caller's handler may hold a lock around async_next).
    bool waited = false;
    // A read completed: 0 bytes is the clean end of the body.
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, std::size_t read) {
      waited = true;
      if (error) {
        self.complete(std::move(error), std::nullopt);
        return;
      }
      if (read == 0) {
        self_->items_.end();
      }
      (*this)(self);
    }
    // Delivers the next complete line, or the rest once the body has ended, or reads more.
    template <class Self>
    void operator()(Self& self) {
      ItemStream& s = *self_;
      if (s.ready_ || s.failed_) {  // taken before a post
        auto error = std::exchange(s.failed_, nullptr);
        auto ready = std::exchange(s.ready_, std::nullopt);
        self.complete(std::move(error), std::move(ready));
        return;
      }
      std::optional<Result> item;
      try {
        if (s.items_.take(item)) {
          if (!waited && s.post_buffered_) {
            s.ready_ = std::move(item);
            waited = true;
            boost::asio::post(s.executor_, std::move(self));
            return;
          }
          self.complete(nullptr, std::move(item));
          return;
        }
      } catch (...) {
        if (!waited && s.post_buffered_) {
          s.failed_ = std::current_exception();
          waited = true;
          boost::asio::post(s.executor_, std::move(self));
          return;
        }
        self.complete(std::current_exception(), std::nullopt);
        return;
      }
      s.stream_.async_read_some(s.items_.buffer(), std::move(self));
    }
  };

  ResponseStream stream_;
  boost::asio::any_io_executor executor_;
  bool post_buffered_;
  Items items_;
  std::optional<Result> ready_;  // an item taken, on its way through a post
  std::exception_ptr failed_;    // a parse failure, on its way through a post
};

}  // namespace detail

/// A typed watch: the events of a `watch=true` response, decoded one at a time as they arrive
/// (JSON lines, or protobuf frames with Encoding::protobuf). async_next completes with an event, or
/// std::nullopt when the server ended the watch cleanly (timeoutSeconds elapsed, or it closed the
/// stream; start again from the last resourceVersion seen). An ERROR event is an event, not a
/// failure: see WatchEvent::status. A malformed event fails with a DecodeError and the stream stays
/// usable; an event over default_max_watch_event_size (16 MiB) fails with std::errc::message_size
/// (Failure::too_large()), and ends the stream. Keep the stream alive while an async_next is
/// pending.
template <class Object>
class WatchStream : public detail::ItemStream<detail::WatchItems<Object>> {
 public:
  /// Wraps an open watch whose status is 2xx (see ItemStream for `executor`).
  WatchStream(ResponseStream stream, boost::asio::any_io_executor executor)
      : detail::ItemStream<detail::WatchItems<Object>>(std::move(stream), std::move(executor),
                                                       true) {
    this->set_max_item_size(default_max_watch_event_size);
  }
};

/// The lines of a followed container log (`follow=true`), as they are written: async_next
/// completes with a line without its "\n" (or "\r\n"; a last line without a newline is
/// delivered too), or std::nullopt when the log has ended (the container stopped, or
/// limitBytes was reached).
class LogStream : public detail::ItemStream<detail::LineItems<std::string, detail::ParseLogLine>> {
 public:
  /// Wraps an open log follow whose status is 2xx. A line already buffered completes inside
  /// async_next: a post per line would cost more than the line (stream_logs_n_lines, ab.py).
  LogStream(ResponseStream stream, boost::asio::any_io_executor executor)
      : detail::ItemStream<detail::LineItems<std::string, detail::ParseLogLine>>(
            std::move(stream), std::move(executor), false) {}
};

namespace detail {

// Opens a stream and wraps it as S, failing with the ApiError of a non-2xx status.
template <class S>
struct OpenOp {
  Client client;
  HttpRequest request;
  std::exception_ptr early{};  // building the request failed
  bool posted = false;
  std::string method{};
  std::string target{};

  template <class Self>
  void operator()(Self& self) {
    if (early) {
      if (!posted) {
        posted = true;
        boost::asio::post(client.get_executor(), std::move(self));  // see complete_early
        return;
      }
      self.complete(std::move(early), S(ResponseStream{}, client.get_executor()));
      return;
    }
    method = request.method;
    target = request.target;
    client.async_stream(std::move(request), std::move(self));
  }

  template <class Self>
  void operator()(Self& self, std::exception_ptr error, ResponseStream stream) {
    if (!error && stream.head().status / 100 != 2) {
      error = api_error(method, target, stream.head());
    }
    if (error) {
      self.complete(std::move(error), S(ResponseStream{}, client.get_executor()));
      return;
    }
    self.complete(nullptr, S(std::move(stream), client.get_executor()));
  }
};

template <class S, class CompletionToken>
auto async_open(const Client& client, Prepared prepared, CompletionToken&& token) {
  return boost::asio::async_compose<CompletionToken, void(std::exception_ptr, S)>(
      OpenOp<S>{client, to_http(std::move(prepared.request)), std::move(prepared.error)}, token,
      client.get_executor());
}

}  // namespace detail

/// The verbs of resource T, in one namespace, across all namespaces, or cluster-wide. A cheap
/// copyable handle; all operations take an Asio completion token and complete with
/// `(std::exception_ptr, result)`: co_await and futures throw kubex::ApiError for non-2xx
/// answers (see kubex/core/api_error.hpp), kubex::json::DecodeError for bodies that do not
/// fit T, and kubex::Error for transport failures and invalid arguments.
template <resource T>
class Api {
 public:
  /// The traits of T.
  using traits = resource_traits<T>;
  /// T's list type (PodList for Pod).
  using list_type = typename traits::list_type;
  /// The metadata-only form of T.
  using metadata_type = PartialObjectMeta<T>;
  /// A metadata-only list of T.
  using metadata_list_type = PartialObjectMetaList<T>;

  /// Objects of a namespaced kind in `namespace_name`.
  static Api namespaced(Client client, std::string_view namespace_name)
    requires namespace_scoped<T>
  {
    if (namespace_name.empty()) {
      throw Error(errc::invalid_path, "Api::namespaced: the namespace must not be empty");
    }
    return Api(std::move(client), namespace_name);
  }
  /// Objects of a namespaced kind in the client's default namespace (kubeconfig context,
  /// in-cluster namespace file, or "default").
  static Api default_namespaced(Client client)
    requires namespace_scoped<T>
  {
    const std::string ns = client.config().namespace_name;
    return namespaced(std::move(client), ns.empty() ? std::string_view("default") : ns);
  }
  /// All objects of T: across all namespaces for a namespaced kind (list, watch and
  /// delete_collection; get and the writes need a namespace), cluster-wide otherwise.
  static Api all(Client client) { return Api(std::move(client), {}); }

  /// The namespace this Api addresses; empty for all namespaces or a cluster-scoped kind.
  [[nodiscard]] const std::string& namespace_name() const noexcept {
    return calls_.namespace_name();
  }
  /// The client.
  [[nodiscard]] const Client& client() const noexcept { return client_; }
  /// The request builder (for requests Api has no verb for).
  [[nodiscard]] const RequestBuilder& requests() const noexcept { return calls_.requests(); }
  /// The requests of each verb, as ResourceCalls builds them.
  [[nodiscard]] const ResourceCalls<T>& calls() const noexcept { return calls_; }

  // --- reads ------------------------------------------------------------------------------

  /// Reads object `name`. Completes with T.
  template <class CompletionToken>
  auto async_get(std::string_view name, const GetParams& params, CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.get(name, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Reads object `name`. Completes with T.
  template <class CompletionToken>
  auto async_get(std::string_view name, CompletionToken&& token) const {
    return async_get(name, GetParams{}, std::forward<CompletionToken>(token));
  }
  /// Reads object `name`; completes with std::nullopt instead of failing when it does not
  /// exist (404 NotFound).
  template <class CompletionToken>
  auto async_get_opt(std::string_view name, CompletionToken&& token) const {
    return detail::async_call<std::optional<T>>(
        client_, detail::prepare([&] { return calls_.get(name); }), detail::decode_optional<T>(),
        std::forward<CompletionToken>(token));
  }
  /// Lists objects (one page when params.limit is set; see Pager for all pages). Completes
  /// with list_type, whose metadata carries resourceVersion, continue and remainingItemCount.
  template <class CompletionToken>
  auto async_list(const ListParams& params, CompletionToken&& token) const {
    return detail::async_list_call<list_type>(client_,
                                              detail::prepare([&] { return calls_.list(params); }),
                                              std::forward<CompletionToken>(token));
  }
  /// Lists all objects.
  template <class CompletionToken>
  auto async_list(CompletionToken&& token) const {
    return async_list(ListParams{}, std::forward<CompletionToken>(token));
  }

  // --- writes -----------------------------------------------------------------------------

  /// Creates `object` (its metadata.name, or generateName). Completes with the stored object.
  template <class CompletionToken>
  auto async_create(const T& object, const PostParams& params, CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.create(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Creates `object`.
  template <class CompletionToken>
  auto async_create(const T& object, CompletionToken&& token) const {
    return async_create(object, PostParams{}, std::forward<CompletionToken>(token));
  }
  /// Replaces object `object.metadata.name` with `object`; with metadata.resourceVersion set
  /// it fails with 409 Conflict if the object changed since it was read.
  template <class CompletionToken>
  auto async_replace(const T& object, const PostParams& params, CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.replace(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Replaces object `object.metadata.name`.
  template <class CompletionToken>
  auto async_replace(const T& object, CompletionToken&& token) const {
    return async_replace(object, PostParams{}, std::forward<CompletionToken>(token));
  }
  /// Patches object `name` with any patch type. Completes with the patched object.
  template <class CompletionToken>
  auto async_patch(std::string_view name, const Patch& patch, const PatchParams& params,
                   CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.patch(name, patch, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches object `name`.
  template <class CompletionToken>
  auto async_patch(std::string_view name, const Patch& patch, CompletionToken&& token) const {
    return async_patch(name, patch, PatchParams{}, std::forward<CompletionToken>(token));
  }
  /// Server-side apply: makes `field_manager` own exactly the fields set in `object` (named by
  /// its metadata.name; apiVersion and kind are always sent). With `force`, takes fields other
  /// managers own instead of failing with 409 Conflict. Completes with the resulting object.
  template <class CompletionToken>
  auto async_apply(const T& object, std::string_view field_manager, bool force,
                   CompletionToken&& token) const {
    return async_apply(object,
                       PatchParams{.field_manager = std::string(field_manager), .force = force},
                       std::forward<CompletionToken>(token));
  }
  /// Server-side apply with all patch options (dry_run, field_validation).
  template <class CompletionToken>
  auto async_apply(const T& object, const PatchParams& params, CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.apply(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Deletes object `name`. Completes with a DeleteResult<T>.
  template <class CompletionToken>
  auto async_delete(std::string_view name, const DeleteParams& params,
                    CompletionToken&& token) const {
    return detail::async_call<DeleteResult<T>>(
        client_, detail::prepare([&] { return calls_.delete_(name, params); }),
        detail::decode_object_or_status<T>(), std::forward<CompletionToken>(token));
  }
  /// Deletes object `name`.
  template <class CompletionToken>
  auto async_delete(std::string_view name, CompletionToken&& token) const {
    return async_delete(name, DeleteParams{}, std::forward<CompletionToken>(token));
  }
  /// Deletes the objects matching `list`'s selectors. Completes with the list of deleted
  /// objects, or a Status.
  template <class CompletionToken>
  auto async_delete_collection(const DeleteParams& params, const ListParams& list,
                               CompletionToken&& token) const {
    return detail::async_call<std::variant<list_type, Status>>(
        client_, detail::prepare([&] { return calls_.delete_collection(params, list); }),
        detail::decode_object_or_status<list_type>(), std::forward<CompletionToken>(token));
  }

  // --- metadata only ------------------------------------------------------------------------

  /// Reads only the metadata of object `name` (PartialObjectMetadata).
  template <class CompletionToken>
  auto async_get_metadata(std::string_view name, CompletionToken&& token) const {
    return call<metadata_type>(detail::prepare([&] { return calls_.get_metadata(name); }),
                               std::forward<CompletionToken>(token));
  }
  /// Lists only the metadata of objects (PartialObjectMetadataList).
  template <class CompletionToken>
  auto async_list_metadata(const ListParams& params, CompletionToken&& token) const {
    return detail::async_list_call<metadata_list_type>(
        client_, detail::prepare([&] { return calls_.list_metadata(params); }),
        std::forward<CompletionToken>(token));
  }
  /// Patches object `name` and completes with only its metadata.
  template <class CompletionToken>
  auto async_patch_metadata(std::string_view name, const Patch& patch, const PatchParams& params,
                            CompletionToken&& token) const {
    return call<metadata_type>(
        detail::prepare([&] { return calls_.patch_metadata(name, patch, params); }),
        std::forward<CompletionToken>(token));
  }

  /// Lists the objects as a server-side printed meta/v1 Table (the columns kubectl get shows).
  template <class CompletionToken>
  auto async_list_table(const ListParams& params, CompletionToken&& token) const {
    return call<Table>(detail::prepare([&] { return calls_.list_table(params); }),
                       std::forward<CompletionToken>(token));
  }

  // --- watch --------------------------------------------------------------------------------

  /// Starts a watch. Completes with a WatchStream<T> once the server has accepted it (a
  /// non-2xx answer fails with its ApiError).
  template <class CompletionToken>
  auto async_watch(const WatchParams& params, CompletionToken&& token) const {
    return detail::async_open<WatchStream<T>>(client_,
                                              detail::prepare([&] { return calls_.watch(params); }),
                                              std::forward<CompletionToken>(token));
  }
  /// Starts a metadata-only watch (events carry PartialObjectMetadata).
  template <class CompletionToken>
  auto async_watch_metadata(const WatchParams& params, CompletionToken&& token) const {
    return detail::async_open<WatchStream<metadata_type>>(
        client_, detail::prepare([&] { return calls_.watch_metadata(params); }),
        std::forward<CompletionToken>(token));
  }

  // --- subresources -----------------------------------------------------------------------

  /// Reads subresource `Sub` of object `name` as an R, e.g.
  /// `async_get_subresource<"scale", autoscaling::v1::Scale>("web", token)`.
  template <FixedString Sub, class R, class CompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::get))
  auto async_get_subresource(std::string_view name, CompletionToken&& token) const {
    return call<R>(detail::prepare([&] { return calls_.get_subresource(Sub.view(), name); }),
                   std::forward<CompletionToken>(token));
  }
  /// Replaces subresource `Sub` of object `name` with `body`; completes with an R.
  template <FixedString Sub, class R, class Body, class CompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::update))
  auto async_replace_subresource(std::string_view name, const Body& body, const PostParams& params,
                                 CompletionToken&& token) const {
    return call<R>(detail::prepare([&] {
                     return calls_.replace_subresource(Sub.view(), name, json::encode(body),
                                                       params);
                   }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches subresource `Sub` of object `name`; completes with an R.
  template <FixedString Sub, class R, class CompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::patch))
  auto async_patch_subresource(std::string_view name, const Patch& patch, const PatchParams& params,
                               CompletionToken&& token) const {
    return call<R>(
        detail::prepare([&] { return calls_.patch_subresource(Sub.view(), name, patch, params); }),
        std::forward<CompletionToken>(token));
  }
  /// Posts `body` to subresource `Sub` of object `name` (eviction, binding, token); completes
  /// with an R (Status for eviction and binding; the TokenRequest for token).
  template <FixedString Sub, class R, class Body, class CompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::create))
  auto async_create_subresource(std::string_view name, const Body& body, const PostParams& params,
                                CompletionToken&& token) const {
    return call<R>(detail::prepare([&] {
                     return calls_.create_subresource(Sub.view(), name, json::encode(body), params);
                   }),
                   std::forward<CompletionToken>(token));
  }

  /// Reads the status subresource of `name` (the whole object, as the server returns it).
  template <class CompletionToken>
    requires(subresource_supports<T>("status", Verb::get))
  auto async_get_status(std::string_view name, CompletionToken&& token) const {
    return async_get_subresource<"status", T>(name, std::forward<CompletionToken>(token));
  }
  /// Replaces the status of `object` (only .status is stored; spec changes are ignored).
  template <class CompletionToken>
    requires(subresource_supports<T>("status", Verb::update))
  auto async_replace_status(const T& object, const PostParams& params,
                            CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.replace_status(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches the status of `name`.
  template <class CompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_patch_status(std::string_view name, const Patch& patch, const PatchParams& params,
                          CompletionToken&& token) const {
    return async_patch_subresource<"status", T>(name, patch, params,
                                                std::forward<CompletionToken>(token));
  }
  /// Server-side apply of `object`'s status as field manager `field_manager` (see
  /// async_apply): a controller owns the status fields it sets, and only those.
  template <class CompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_apply_status(const T& object, std::string_view field_manager, bool force,
                          CompletionToken&& token) const {
    return async_apply_status(
        object, PatchParams{.field_manager = std::string(field_manager), .force = force},
        std::forward<CompletionToken>(token));
  }
  /// Server-side apply of `object`'s status with all patch options.
  template <class CompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_apply_status(const T& object, const PatchParams& params,
                          CompletionToken&& token) const {
    return call<T>(detail::prepare([&] { return calls_.apply_status(object, params); }),
                   std::forward<CompletionToken>(token));
  }

  /// The log of pod `name` so far, as text.
  template <class CompletionToken>
    requires(subresource_supports<T>("log", Verb::get))
  auto async_logs(std::string_view name, const LogParams& params, CompletionToken&& token) const {
    return detail::async_call<std::string>(
        client_, detail::prepare([&] { return calls_.logs(name, params, false); }),
        detail::decode_text(), std::forward<CompletionToken>(token));
  }
  /// Follows the log of pod `name`: completes with a LogStream of its lines.
  template <class CompletionToken>
    requires(subresource_supports<T>("log", Verb::get))
  auto async_log_stream(std::string_view name, const LogParams& params,
                        CompletionToken&& token) const {
    return detail::async_open<LogStream>(
        client_, detail::prepare([&] { return calls_.logs(name, params, true); }),
        std::forward<CompletionToken>(token));
  }

  /// Starts `params.command` in a container of pod `name` (exec) and completes with the
  /// session once the server has accepted it: read its output, write its stdin, resize its
  /// tty. Refusals (no such pod or container, 403) fail with kubex::ApiError.
  template <class CompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect))
  auto async_exec(std::string_view name, const ExecParams& params, const ProcessOptions& options,
                  CompletionToken&& token) const {
    return async_process(detail::prepare([&] { return calls_.exec(name, params); }), params.tty,
                         options, std::forward<CompletionToken>(token));
  }
  /// async_exec with the default ProcessOptions.
  template <class CompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect))
  auto async_exec(std::string_view name, const ExecParams& params, CompletionToken&& token) const {
    return async_exec(name, params, ProcessOptions{}, std::forward<CompletionToken>(token));
  }
  /// Runs `params.command` in pod `name` to its end and completes with its output and exit
  /// code; a non-zero exit is a result, not an error. With `params.with_stdin`, `input` is
  /// written to its stdin, which is then closed. A command that cannot run fails with
  /// kubex::ApiError (reason InternalError), as do refusals. Terminal cancellation through the
  /// token's cancellation slot (emitted on the client's executor's thread) ends the run, and
  /// the process, with std::errc::operation_canceled.
  template <class CompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect))
  auto async_run(std::string_view name, const ExecParams& params, std::string input,
                 CompletionToken&& token) const {
    return boost::asio::async_initiate<CompletionToken, ProcessRunSignature>(
        [client = client_](auto handler, detail::Prepared prepared, std::string in,
                           bool with_stdin) {
          detail::run_process(client, std::move(prepared), std::move(in), with_stdin,
                              ProcessOptions{}, std::move(handler));
        },
        token, detail::prepare([&] { return calls_.exec(name, params); }), std::move(input),
        params.with_stdin);
  }
  /// Attaches to the main process of a container of pod `name`: its output from now on, and
  /// its stdin when the container has `stdin: true`.
  template <class CompletionToken>
    requires(subresource_supports<T>("attach", Verb::connect))
  auto async_attach(std::string_view name, const AttachParams& params,
                    CompletionToken&& token) const {
    return async_process(detail::prepare([&] { return calls_.attach(name, params); }), params.tty,
                         ProcessOptions{}, std::forward<CompletionToken>(token));
  }
  /// Opens a port-forward tunnel to pod `name`; open streams to its ports with
  /// PortForwarder::async_open. Refusals (no such pod, 403) fail with kubex::ApiError.
  template <class CompletionToken>
    requires(subresource_supports<T>("portforward", Verb::connect))
  auto async_port_forward(std::string_view name, CompletionToken&& token) const {
    return boost::asio::async_initiate<CompletionToken, PortForwardSignature>(
        [client = client_](auto handler, detail::Prepared prepared) {
          detail::open_port_forward(client, std::move(prepared), std::move(handler));
        },
        token, detail::prepare([&] { return calls_.port_forward(name, {}); }));
  }
  /// `kubectl port-forward`: listens on 127.0.0.1:`local_port` (0: a free one) and forwards
  /// every connection to `remote_port` of pod `name`, until the result is destroyed. It runs
  /// on the client's executor, which must be running.
  /// @throws kubex::Error if the local port cannot be bound, or the name is invalid.
  [[nodiscard]] std::unique_ptr<LocalPortForward> forward_local_port(
      std::string_view name, std::uint16_t remote_port, std::uint16_t local_port = 0) const
    requires(subresource_supports<T>("portforward", Verb::connect))
  {
    return std::make_unique<LocalPortForward>(client_, calls_.port_forward(name, {}), remote_port,
                                              local_port);
  }

 private:
  template <class CompletionToken>
  auto async_process(detail::Prepared prepared, bool tty, const ProcessOptions& options,
                     CompletionToken&& token) const {
    return boost::asio::async_initiate<CompletionToken, ProcessOpenSignature>(
        [client = client_](auto handler, detail::Prepared p, bool t, ProcessOptions o) {
          detail::open_process(client, std::move(p), t, o, std::move(handler));
        },
        token, std::move(prepared), tty, options);
  }

  Api(Client client, std::string_view namespace_name)
      : client_(std::move(client)), calls_(namespace_name, client_.encoding()) {}

  template <class R, class CompletionToken>
  auto call(detail::Prepared request, CompletionToken&& token) const {
    return detail::async_call<R>(client_, std::move(request), detail::decode_success<R>(),
                                 std::forward<CompletionToken>(token));
  }

  Client client_;
  ResourceCalls<T> calls_;
};

/// The pages of a list, following `continue` tokens. If a continue token expires (410 Gone:
/// the data it pointed at was compacted), the pager starts again from the first page, as
/// client-go's pager falls back to a full list: items already delivered are delivered again,
/// and restarts() counts how often that happened (at most max_restarts, then the 410 fails).
template <resource T>
class Pager {
 public:
  /// The page type.
  using list_type = typename resource_traits<T>::list_type;
  /// Completion signature of async_next: a page, or std::nullopt after the last one.
  using Signature = void(std::exception_ptr, std::optional<list_type>);

  /// Pages of `api.async_list(params)`; `params.limit` is the page size (0: one page).
  Pager(Api<T> api, ListParams params, std::size_t max_restarts = 3)
      : api_(std::move(api)),
        params_(std::move(params)),
        first_continue_(params_.continue_token),
        max_restarts_(max_restarts) {}

  /// Reads the next page. Keep the pager alive until it completes.
  template <class CompletionToken>
  auto async_next(CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token,
                                                                  api_.client().get_executor());
  }
  /// How often an expired continue token made the pager start over.
  [[nodiscard]] std::size_t restarts() const noexcept { return restarts_; }
  /// True after the last page.
  [[nodiscard]] bool done() const noexcept { return done_; }

 private:
  struct NextOp {
    Pager* p;
    template <class Self>
    void operator()(Self& self) {
      if (p->done_) {
        self.complete(nullptr, std::nullopt);
        return;
      }
      p->api_.async_list(p->params_, std::move(self));
    }
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, list_type page) {
      if (error) {
        if (p->params_.continue_token != p->first_continue_ && p->restarts_ < p->max_restarts_ &&
            expired(error)) {
          ++p->restarts_;
          p->params_.continue_token = p->first_continue_;
          p->api_.async_list(p->params_, std::move(self));
          return;
        }
        p->done_ = true;
        self.complete(std::move(error), std::nullopt);
        return;
      }
      const auto& next = page.metadata.continue_;
      if (next && !next->empty()) {
        p->params_.continue_token = *next;
      } else {
        p->done_ = true;
      }
      self.complete(nullptr, std::move(page));
    }
    static bool expired(const std::exception_ptr& error) { return Failure(error).gone(); }
  };

  Api<T> api_;
  ListParams params_;
  std::string first_continue_;
  std::size_t max_restarts_;
  std::size_t restarts_ = 0;
  bool done_ = false;
};

}  // namespace kubex::client
