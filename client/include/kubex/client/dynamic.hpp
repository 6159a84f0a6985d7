// SPDX-License-Identifier: Apache-2.0
#pragma once

// DynamicApi: the verbs of a resource known only at run time (an ApiResource from Discovery or
// written by hand), on DynamicObject. The same requests, options and errors as Api<T>; the
// server's verbs are checked at run time instead of compile time.
//
//     kubex::client::Discovery discovery(client);
//     auto crontab = co_await discovery.async_resolve("stable.example.com", "CronTab",
//     use_awaitable); auto api =
//     kubex::client::DynamicApi<kubex::api::meta::v1::ObjectMeta>::namespaced(
//         client, crontab, "default");
//     auto obj = co_await api.async_get("nightly", use_awaitable);
//     auto spec = obj.get_as<MySpec>("spec");

#include <kubex/client/api.hpp>
#include <kubex/core/dynamic.hpp>
#include <kubex/core/table.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kubex::client {

/// Api for a resource described at run time. `Meta` is the ObjectMeta type of the models in
/// use. A cheap copyable handle, like Api<T>.
template <class Meta>
class DynamicApi {
 public:
  /// The object type.
  using object_type = DynamicObject<Meta>;
  /// The list type.
  using list_type = DynamicList<Meta>;

  /// Objects of a namespaced resource in `namespace_name`.
  /// @throws kubex::Error (errc::invalid_argument) for a cluster-scoped resource.
  static DynamicApi namespaced(Client client, ApiResource resource,
                               std::string_view namespace_name) {
    if (resource.scope != Scope::namespaced) {
      throw Error(errc::invalid_argument,
                  resource.kind + " is cluster-scoped: use DynamicApi::all, not a namespace");
    }
    if (namespace_name.empty()) {
      throw Error(errc::invalid_path, "DynamicApi::namespaced: the namespace must not be empty");
    }
    return DynamicApi(std::move(client), std::move(resource), namespace_name);
  }
  /// All objects: across namespaces, or cluster-wide.
  static DynamicApi all(Client client, ApiResource resource) {
    return DynamicApi(std::move(client), std::move(resource), {});
  }

  /// The resource.
  [[nodiscard]] const ApiResource& resource() const noexcept { return resource_; }
  /// The namespace this Api addresses; empty for all namespaces or a cluster-scoped resource.
  [[nodiscard]] const std::string& namespace_name() const noexcept { return namespace_; }
  /// The client.
  [[nodiscard]] const Client& client() const noexcept { return client_; }

  /// Reads object `name`.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_get(std::string_view name, CompletionToken&& token = {}) const {
    return call<object_type>(detail::prepare([&] {
                               require(Verb::get, "get");
                               return named().get(name);
                             }),
                             std::forward<CompletionToken>(token));
  }
  /// Lists objects.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_list(const ListParams& params, CompletionToken&& token = {}) const {
    return detail::async_list_call<list_type>(client_, detail::prepare([&] {
                                                require(Verb::list, "list");
                                                return requests_.list(params);
                                              }),
                                              std::forward<CompletionToken>(token),
                                              [resource = resource_](list_type& list) {
                                                // Items of built-in lists come without apiVersion
                                                // and kind; give them theirs.
                                                for (auto& item : list.items) {
                                                  if (item.kind.empty()) {
                                                    item.kind = resource.kind;
                                                  }
                                                  if (item.api_version.empty()) {
                                                    item.api_version = resource.api_version();
                                                  }
                                                }
                                              });
  }
  /// Lists the objects as a server-side printed Table (what kubectl get shows).
  template <class CompletionToken = DefaultCompletionToken>
  auto async_list_table(const ListParams& params, CompletionToken&& token = {}) const {
    return call<Table>(detail::prepare([&] {
                         require(Verb::list, "list");
                         ApiRequest request = requests_.list(params);
                         request.accept.assign(accept_table);
                         return request;
                       }),
                       std::forward<CompletionToken>(token));
  }
  /// Creates `object`.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_create(const object_type& object, const PostParams& params,
                    CompletionToken&& token = {}) const {
    return call<object_type>(detail::prepare([&] {
                               require(Verb::create, "create");
                               return named().create(body(object), params);
                             }),
                             std::forward<CompletionToken>(token));
  }
  /// Replaces object `object.metadata.name`.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_replace(const object_type& object, const PostParams& params,
                     CompletionToken&& token = {}) const {
    return call<object_type>(detail::prepare([&] {
                               require(Verb::update, "update");
                               return named().replace(name_of(object), body(object), params);
                             }),
                             std::forward<CompletionToken>(token));
  }
  /// Patches object `name`.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_patch(std::string_view name, const Patch& patch, const PatchParams& params,
                   CompletionToken&& token = {}) const {
    return call<object_type>(detail::prepare([&] {
                               require(Verb::patch, "patch");
                               return named().patch(name, patch, params);
                             }),
                             std::forward<CompletionToken>(token));
  }
  /// Server-side apply of `object` by `field_manager`.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_apply(const object_type& object, std::string_view field_manager, bool force,
                   CompletionToken&& token = {}) const {
    return call<object_type>(
        detail::prepare([&] {
          require(Verb::patch, "patch");
          const PatchParams params{.field_manager = std::string(field_manager), .force = force};
          return named().patch(name_of(object), Patch::apply(body(object)), params);
        }),
        std::forward<CompletionToken>(token));
  }
  /// Deletes object `name`: completes with the object (still terminating) or the Status.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_delete(std::string_view name, const DeleteParams& params,
                    CompletionToken&& token = {}) const {
    return detail::async_call<std::variant<object_type, Status>>(
        client_, detail::prepare([&] {
          require(Verb::delete_, "delete");
          return named().delete_(name, params);
        }),
        detail::decode_object_or_status<object_type>(), std::forward<CompletionToken>(token));
  }
  /// Starts a watch.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_watch(const WatchParams& params, CompletionToken&& token = {}) const {
    return detail::async_open<WatchStream<object_type>>(client_, detail::prepare([&] {
                                                          require(Verb::watch, "watch");
                                                          return requests_.watch(params);
                                                        }),
                                                        std::forward<CompletionToken>(token));
  }

 private:
  DynamicApi(Client client, ApiResource resource, std::string_view namespace_name)
      : client_(std::move(client)),
        resource_(std::move(resource)),
        namespace_(namespace_name),
        requests_(resource_.group, resource_.version, resource_.plural, namespace_name) {}

  // A resource described without verbs (written by hand) is assumed to serve them all.
  void require(Verb v, std::string_view name) const {
    if (!resource_.verbs.empty() && !resource_.verbs.contains(v)) {
      std::string message = "the server does not serve ";
      message.append(name).append(" for ").append(resource_.plural);
      throw Error(errc::invalid_argument, message);
    }
  }
  const RequestBuilder& named() const {
    if (resource_.scope == Scope::namespaced && namespace_.empty()) {
      throw Error(errc::invalid_argument,
                  "DynamicApi::all addresses every namespace; reading or writing one " +
                      resource_.kind + " needs DynamicApi::namespaced");
    }
    return requests_;
  }
  template <class R, class CompletionToken>
  auto call(detail::Prepared request, CompletionToken&& token) const {
    return detail::async_call<R>(client_, std::move(request), detail::decode_success<R>(),
                                 std::forward<CompletionToken>(token));
  }
  // The body always names the resource's apiVersion and kind (apply requires them).
  std::string body(const object_type& object) const {
    return detail::encode_typed(object, resource_.api_version(), resource_.kind);
  }
  static std::string_view name_of(const object_type& object) {
    return detail::name_of(object, object.kind);
  }

  Client client_;
  ApiResource resource_;
  std::string namespace_;
  RequestBuilder requests_;
};

}  // namespace kubex::client
