// SPDX-License-Identifier: Apache-2.0
#pragma once

// Api<T>: the typed verbs of one Kubernetes resource, on top of Client. Generic over any type
// with resource_traits (generated models, custom resources): paths come from the traits,
// requests from core's RequestBuilder, bodies from the kubex JSON codec, and every operation
// takes an Asio completion token (boost::asio::use_awaitable when none is given).
//
//     namespace core = kubex::api::core::v1;
//     kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
//     auto pods = kubex::client::Api<core::Pod>::default_namespaced(client);
//     core::Pod pod = co_await pods.async_get("web-0");
//     auto list = co_await pods.async_list({.label_selector = "app=web"}, use_awaitable);
//
// Related headers: <kubex/client/pager.hpp> (every page of a list), <kubex/client/exec.hpp>
// (exec, attach and port-forward), <kubex/client/item_stream.hpp> (WatchStream, LogStream;
// included here).

#include <kubex/client/client.hpp>
#include <kubex/client/detail/call.hpp>
#include <kubex/client/item_stream.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/custom_resource.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/params.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/table.hpp>
#include <kubex/core/watch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace kubex::client {

class LocalPortForward;
struct ProcessOptions;

namespace detail {

/// True unless T is `Options`: keeps an overload that takes only a completion token from
/// taking the options struct of its sibling, now that the token may be left out.
template <class T, class Options>
concept not_options = !
std::is_same_v<std::remove_cvref_t<T>, Options>;

}  // namespace detail

/// The verbs of resource T, in one namespace, across all namespaces, or cluster-wide. A cheap
/// copyable handle; all operations take an Asio completion token and complete with
/// `(std::exception_ptr, result)`: co_await and futures throw kubex::ApiError for non-2xx
/// answers (see kubex/core/api_error.hpp), kubex::json::DecodeError for bodies that do not
/// fit T, and kubex::Error for transport failures and invalid arguments. Without a token, an
/// operation returns an awaitable (DefaultCompletionToken). Every operation supports
/// per-operation cancellation: terminal cancellation through the token's cancellation slot
/// fails it with std::errc::operation_canceled (partial and total are ignored).
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
  template <class CompletionToken = DefaultCompletionToken>
  auto async_get(std::string_view name, const GetParams& params,
                 CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.get(name, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Reads object `name`. Completes with T.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, GetParams>
  auto async_get(std::string_view name, CompletionToken&& token = {}) const {
    return async_get(name, GetParams{}, std::forward<CompletionToken>(token));
  }
  /// Reads object `name`; completes with std::nullopt instead of failing when it does not
  /// exist (404 NotFound).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_get_opt(std::string_view name, CompletionToken&& token = {}) const {
    return detail::async_call<std::optional<T>>(
        client_, detail::prepare([&] { return calls_.get(name); }), detail::decode_optional<T>(),
        std::forward<CompletionToken>(token));
  }
  /// Lists objects (one page when params.limit is set; see Pager for all pages). Completes
  /// with list_type, whose metadata carries resourceVersion, continue and remainingItemCount.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_list(const ListParams& params, CompletionToken&& token = {}) const {
    return detail::async_list_call<list_type>(client_,
                                              detail::prepare([&] { return calls_.list(params); }),
                                              std::forward<CompletionToken>(token));
  }
  /// Lists all objects.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, ListParams>
  auto async_list(CompletionToken&& token = {}) const {
    return async_list(ListParams{}, std::forward<CompletionToken>(token));
  }

  // --- writes -----------------------------------------------------------------------------

  /// Creates `object` (its metadata.name, or generateName). Completes with the stored object.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_create(const T& object, const PostParams& params, CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.create(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Creates `object`.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, PostParams>
  auto async_create(const T& object, CompletionToken&& token = {}) const {
    return async_create(object, PostParams{}, std::forward<CompletionToken>(token));
  }
  /// Replaces object `object.metadata.name` with `object`; with metadata.resourceVersion set
  /// it fails with 409 Conflict if the object changed since it was read.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_replace(const T& object, const PostParams& params,
                     CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.replace(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Replaces object `object.metadata.name`.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, PostParams>
  auto async_replace(const T& object, CompletionToken&& token = {}) const {
    return async_replace(object, PostParams{}, std::forward<CompletionToken>(token));
  }
  /// Patches object `name` with any patch type. Completes with the patched object.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_patch(std::string_view name, const Patch& patch, const PatchParams& params,
                   CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.patch(name, patch, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches object `name`.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, PatchParams>
  auto async_patch(std::string_view name, const Patch& patch, CompletionToken&& token = {}) const {
    return async_patch(name, patch, PatchParams{}, std::forward<CompletionToken>(token));
  }
  /// Server-side apply: makes `field_manager` own exactly the fields set in `object` (named by
  /// its metadata.name; apiVersion and kind are always sent). With `force`, takes fields other
  /// managers own instead of failing with 409 Conflict. Completes with the resulting object.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_apply(const T& object, std::string_view field_manager, bool force,
                   CompletionToken&& token = {}) const {
    return async_apply(object,
                       PatchParams{.field_manager = std::string(field_manager), .force = force},
                       std::forward<CompletionToken>(token));
  }
  /// Server-side apply with all patch options (dry_run, field_validation).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_apply(const T& object, const PatchParams& params, CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.apply(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Deletes object `name`. Completes with a DeleteResult<T>.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_delete(std::string_view name, const DeleteParams& params,
                    CompletionToken&& token = {}) const {
    return detail::async_call<DeleteResult<T>>(
        client_, detail::prepare([&] { return calls_.delete_(name, params); }),
        detail::decode_object_or_status<T>(), std::forward<CompletionToken>(token));
  }
  /// Deletes object `name`.
  template <class CompletionToken = DefaultCompletionToken>
    requires detail::not_options<CompletionToken, DeleteParams>
  auto async_delete(std::string_view name, CompletionToken&& token = {}) const {
    return async_delete(name, DeleteParams{}, std::forward<CompletionToken>(token));
  }
  /// Deletes the objects matching `list`'s selectors. Completes with the list of deleted
  /// objects, or a Status.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_delete_collection(const DeleteParams& params, const ListParams& list,
                               CompletionToken&& token = {}) const {
    return detail::async_call<std::variant<list_type, Status>>(
        client_, detail::prepare([&] { return calls_.delete_collection(params, list); }),
        detail::decode_object_or_status<list_type>(), std::forward<CompletionToken>(token));
  }

  // --- metadata only ------------------------------------------------------------------------

  /// Reads only the metadata of object `name` (PartialObjectMetadata).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_get_metadata(std::string_view name, CompletionToken&& token = {}) const {
    return call<metadata_type>(detail::prepare([&] { return calls_.get_metadata(name); }),
                               std::forward<CompletionToken>(token));
  }
  /// Lists only the metadata of objects (PartialObjectMetadataList).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_list_metadata(const ListParams& params, CompletionToken&& token = {}) const {
    return detail::async_list_call<metadata_list_type>(
        client_, detail::prepare([&] { return calls_.list_metadata(params); }),
        std::forward<CompletionToken>(token));
  }
  /// Patches object `name` and completes with only its metadata.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_patch_metadata(std::string_view name, const Patch& patch, const PatchParams& params,
                            CompletionToken&& token = {}) const {
    return call<metadata_type>(
        detail::prepare([&] { return calls_.patch_metadata(name, patch, params); }),
        std::forward<CompletionToken>(token));
  }

  /// Lists the objects as a server-side printed meta/v1 Table (the columns kubectl get shows).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_list_table(const ListParams& params, CompletionToken&& token = {}) const {
    return call<Table>(detail::prepare([&] { return calls_.list_table(params); }),
                       std::forward<CompletionToken>(token));
  }

  // --- watch --------------------------------------------------------------------------------

  /// Starts a watch. Completes with a WatchStream<T> once the server has accepted it (a
  /// non-2xx answer fails with its ApiError).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_watch(const WatchParams& params, CompletionToken&& token = {}) const {
    return detail::async_open<WatchStream<T>>(client_,
                                              detail::prepare([&] { return calls_.watch(params); }),
                                              std::forward<CompletionToken>(token));
  }
  /// Starts a metadata-only watch (events carry PartialObjectMetadata).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_watch_metadata(const WatchParams& params, CompletionToken&& token = {}) const {
    return detail::async_open<WatchStream<metadata_type>>(
        client_, detail::prepare([&] { return calls_.watch_metadata(params); }),
        std::forward<CompletionToken>(token));
  }

  // --- subresources -----------------------------------------------------------------------

  /// Reads subresource `Sub` of object `name` as an R, e.g.
  /// `async_get_subresource<"scale", autoscaling::v1::Scale>("web", token)`.
  template <FixedString Sub, class R, class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::get))
  auto async_get_subresource(std::string_view name, CompletionToken&& token = {}) const {
    return call<R>(detail::prepare([&] { return calls_.get_subresource(Sub.view(), name); }),
                   std::forward<CompletionToken>(token));
  }
  /// Replaces subresource `Sub` of object `name` with `body`; completes with an R.
  template <FixedString Sub, class R, class Body, class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::update))
  auto async_replace_subresource(std::string_view name, const Body& body, const PostParams& params,
                                 CompletionToken&& token = {}) const {
    return call<R>(detail::prepare([&] {
                     return calls_.replace_subresource(Sub.view(), name, json::encode(body),
                                                       params);
                   }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches subresource `Sub` of object `name`; completes with an R.
  template <FixedString Sub, class R, class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::patch))
  auto async_patch_subresource(std::string_view name, const Patch& patch, const PatchParams& params,
                               CompletionToken&& token = {}) const {
    return call<R>(
        detail::prepare([&] { return calls_.patch_subresource(Sub.view(), name, patch, params); }),
        std::forward<CompletionToken>(token));
  }
  /// Posts `body` to subresource `Sub` of object `name` (eviction, binding, token); completes
  /// with an R (Status for eviction and binding; the TokenRequest for token).
  template <FixedString Sub, class R, class Body, class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>(Sub.view(), Verb::create))
  auto async_create_subresource(std::string_view name, const Body& body, const PostParams& params,
                                CompletionToken&& token = {}) const {
    return call<R>(detail::prepare([&] {
                     return calls_.create_subresource(Sub.view(), name, json::encode(body), params);
                   }),
                   std::forward<CompletionToken>(token));
  }

  /// Reads the status subresource of `name` (the whole object, as the server returns it).
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("status", Verb::get))
  auto async_get_status(std::string_view name, CompletionToken&& token = {}) const {
    return async_get_subresource<"status", T>(name, std::forward<CompletionToken>(token));
  }
  /// Replaces the status of `object` (only .status is stored; spec changes are ignored).
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("status", Verb::update))
  auto async_replace_status(const T& object, const PostParams& params,
                            CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.replace_status(object, params); }),
                   std::forward<CompletionToken>(token));
  }
  /// Patches the status of `name`.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_patch_status(std::string_view name, const Patch& patch, const PatchParams& params,
                          CompletionToken&& token = {}) const {
    return async_patch_subresource<"status", T>(name, patch, params,
                                                std::forward<CompletionToken>(token));
  }
  /// Server-side apply of `object`'s status as field manager `field_manager` (see
  /// async_apply): a controller owns the status fields it sets, and only those.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_apply_status(const T& object, std::string_view field_manager, bool force,
                          CompletionToken&& token = {}) const {
    return async_apply_status(
        object, PatchParams{.field_manager = std::string(field_manager), .force = force},
        std::forward<CompletionToken>(token));
  }
  /// Server-side apply of `object`'s status with all patch options.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("status", Verb::patch))
  auto async_apply_status(const T& object, const PatchParams& params,
                          CompletionToken&& token = {}) const {
    return call<T>(detail::prepare([&] { return calls_.apply_status(object, params); }),
                   std::forward<CompletionToken>(token));
  }

  /// The log of pod `name` so far, as text.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("log", Verb::get))
  auto async_logs(std::string_view name, const LogParams& params,
                  CompletionToken&& token = {}) const {
    return detail::async_call<std::string>(
        client_, detail::prepare([&] { return calls_.logs(name, params, false); }),
        detail::decode_text(), std::forward<CompletionToken>(token));
  }
  /// Follows the log of pod `name`: completes with a LogStream of its lines.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("log", Verb::get))
  auto async_log_stream(std::string_view name, const LogParams& params,
                        CompletionToken&& token = {}) const {
    return detail::async_open<LogStream>(
        client_, detail::prepare([&] { return calls_.logs(name, params, true); }),
        std::forward<CompletionToken>(token));
  }

  // --- exec, attach, port-forward: declared here, defined in <kubex/client/exec.hpp> ---------

  /// Starts `params.command` in a container of pod `name` (exec) and completes with the
  /// session once the server has accepted it: read its output, write its stdin, resize its
  /// tty. Refusals (no such pod or container, 403) fail with kubex::ApiError. Needs
  /// <kubex/client/exec.hpp>.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect))
  auto async_exec(std::string_view name, const ExecParams& params, const ProcessOptions& options,
                  CompletionToken&& token = {}) const;
  /// async_exec with the default ProcessOptions. Needs <kubex/client/exec.hpp>.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect) &&
             detail::not_options<CompletionToken, ProcessOptions>)
  auto async_exec(std::string_view name, const ExecParams& params,
                  CompletionToken&& token = {}) const;
  /// Runs `params.command` in pod `name` to its end and completes with its output and exit
  /// code; a non-zero exit is a result, not an error. With `params.with_stdin`, `input` is
  /// written to its stdin, which is then closed. A command that cannot run fails with
  /// kubex::ApiError (reason InternalError), as do refusals. Terminal cancellation through the
  /// token's cancellation slot (emitted on the client's executor's thread) ends the run, and
  /// the process, with std::errc::operation_canceled. Needs <kubex/client/exec.hpp>.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("exec", Verb::connect))
  auto async_run(std::string_view name, const ExecParams& params, std::string input,
                 CompletionToken&& token = {}) const;
  /// Attaches to the main process of a container of pod `name`: its output from now on, and
  /// its stdin when the container has `stdin: true`. Needs <kubex/client/exec.hpp>.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("attach", Verb::connect))
  auto async_attach(std::string_view name, const AttachParams& params,
                    CompletionToken&& token = {}) const;
  /// Opens a port-forward tunnel to pod `name`; open streams to its ports with
  /// PortForwarder::async_open. Refusals (no such pod, 403) fail with kubex::ApiError. Needs
  /// <kubex/client/exec.hpp>.
  template <class CompletionToken = DefaultCompletionToken>
    requires(subresource_supports<T>("portforward", Verb::connect))
  auto async_port_forward(std::string_view name, CompletionToken&& token = {}) const;
  /// `kubectl port-forward`: listens on 127.0.0.1:`local_port` (0: a free one) and forwards
  /// every connection to `remote_port` of pod `name`, until the result is destroyed. It runs
  /// on the client's executor, which must be running. Needs <kubex/client/exec.hpp>.
  /// @throws kubex::Error if the local port cannot be bound, or the name is invalid.
  [[nodiscard]] std::unique_ptr<LocalPortForward> forward_local_port(
      std::string_view name, std::uint16_t remote_port, std::uint16_t local_port = 0) const
    requires(subresource_supports<T>("portforward", Verb::connect));

 private:
  template <class CompletionToken = DefaultCompletionToken>
  auto async_process(detail::Prepared prepared, bool tty, const ProcessOptions& options,
                     CompletionToken&& token) const;

  Api(Client client, std::string_view namespace_name)
      : client_(std::move(client)), calls_(namespace_name, client_.encoding()) {}

  template <class R, class CompletionToken = DefaultCompletionToken>
  auto call(detail::Prepared request, CompletionToken&& token = {}) const {
    return detail::async_call<R>(client_, std::move(request), detail::decode_success<R>(),
                                 std::forward<CompletionToken>(token));
  }

  Client client_;
  ResourceCalls<T> calls_;
};

}  // namespace kubex::client
