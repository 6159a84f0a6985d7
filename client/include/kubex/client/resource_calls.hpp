// SPDX-License-Identifier: Apache-2.0
#pragma once

// What Api<T> and BlockingApi<T> send for each verb of resource T and how they read the
// answers, without any I/O: the request (path, query, body, Accept) and the decoding of the
// response, of a list while it arrives, and of a stream line by line. The asynchronous and the
// blocking API do their I/O differently over the same calls, so they cannot disagree on what
// a verb means; and a program that uses only the blocking API compiles none of Asio's
// completion machinery.

#include <kubex/client/http.hpp>
#include <kubex/client/options.hpp>
#include <kubex/client/stream_items.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_list.hpp>
#include <kubex/core/kind_check.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_list.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/protobuf_status.hpp>
#include <kubex/core/protobuf_write.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/watch.hpp>

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace kubex::client {

/// What a delete answers: the object while its deletion is still in progress (finalizers,
/// graceful pod termination; metadata.deletionTimestamp is set), or, for kinds that return
/// it, its final state; or the server's Status (status "Success") when it is gone.
template <class T>
using DeleteResult = std::variant<T, Status>;

/// The Accept of a call in protobuf: the server answers JSON where it has no protobuf (custom
/// resources), as client-go asks.
inline constexpr std::string_view accept_protobuf =
    "application/vnd.kubernetes.protobuf, application/json";

namespace detail {

/// The HTTP form of an API request.
KUBEX_API HttpRequest to_http(ApiRequest request);

/// The ApiError for a non-2xx response to `method` `target`, as an exception pointer.
KUBEX_API std::exception_ptr api_error(std::string_view method, std::string_view target,
                                       const HttpResponse& response);

/// True when a JSON body is a meta/v1 Status (kind "Status").
KUBEX_API bool is_status_body(const std::string& body);

/// Decodes a successful response body into an R, or fails with a DecodeError that names the
/// request.
template <class R>
R decode_body(std::string& body) {
  R out{};
  json::decode_padded(body, out);
  check_decoded_kind(out);  // a body of another kind is refused, not taken for an R
  return out;
}

/// Decodes a successful response as R, from protobuf or JSON as its Content-Type says.
template <class R>
R decode_response(HttpResponse& response) {
  if constexpr (protobuf_readable<R>) {
    if (protobuf::is_media_type(response.content_type)) {
      R out{};
      protobuf::decode_object(response.body, out);
      return out;
    }
  }
  return decode_body<R>(response.body);
}

/// Decodes 2xx responses as R; std::nullopt (the response's ApiError) for anything else.
template <class R>
auto decode_success() {
  return [](HttpResponse& response) -> std::optional<R> {
    if (response.status / 100 != 2) {
      return std::nullopt;
    }
    return decode_response<R>(response);
  };
}

/// Decodes a 2xx answer as R, a 404 as an empty optional (get_opt); fails otherwise.
template <class R>
auto decode_optional() {
  return [](HttpResponse& r) -> std::optional<std::optional<R>> {
    if (r.status == 404) {
      return std::optional<R>{};
    }
    if (r.status / 100 != 2) {
      return std::nullopt;
    }
    return std::optional<R>(decode_response<R>(r));
  };
}

/// Decodes a 2xx answer that is either an O or a meta/v1 Status (deletes); fails otherwise.
template <class O>
auto decode_object_or_status() {
  return [](HttpResponse& r) -> std::optional<std::variant<O, Status>> {
    if (r.status / 100 != 2) {
      return std::nullopt;
    }
    // Built in place: GCC 12 takes a variant moved into the optional for one whose Status
    // may be uninitialized (-Wmaybe-uninitialized).
    std::optional<std::variant<O, Status>> out;
    if (protobuf::is_media_type(r.content_type)) {
      if (auto status = protobuf::status_of_body(r.body)) {
        out.emplace(std::in_place_index<1>, std::move(*status));
        return out;
      }
    } else if (is_status_body(r.body)) {
      out.emplace(std::in_place_index<1>, decode_body<Status>(r.body));
      return out;
    }
    out.emplace(std::in_place_index<0>, decode_response<O>(r));
    return out;
  };
}

/// Takes a 2xx body as text (a log); fails otherwise.
inline auto decode_text() {
  return [](HttpResponse& r) -> std::optional<std::string> {
    if (r.status / 100 != 2) {
      return std::nullopt;
    }
    return std::move(r.body);
  };
}

/// Does nothing to a decoded list.
struct KeepList {
  template <class L>
  void operator()(L& /*list*/) const noexcept {}
};

/// A list decoded while its body arrives (json::ListDecoder, protobuf::ListDecoder): set
/// `observer()` as the request's on_body and decode the response with `decoder()`. Decoding
/// then overlaps the transfer, and neither the body nor the parser ever holds the whole list.
/// `complete(L&)` runs on the decoded list before it is delivered.
template <class L>
class ListBody {
 public:
  /// The request's HttpRequest::on_body.
  [[nodiscard]] auto observer() const {
    return [decoders = decoders_](std::string& body, bool start) {
      if (start) {
        decoders->json.restart();
        if constexpr (protobuf_readable<L>) {
          decoders->protobuf.restart();
        }
        decoders->encoding = Received::unknown;
        return;
      }
      // Told by the first byte, once: a decoder drops what it decoded from the front. The
      // protobuf magic begins with a letter no JSON body starts with.
      if (decoders->encoding == Received::unknown && !body.empty()) {
        decoders->encoding =
            body.front() == protobuf::magic.front() ? Received::protobuf : Received::json;
      }
      if (decoders->encoding != Received::protobuf) {
        decoders->json.feed(body);
      } else if constexpr (protobuf_readable<L>) {
        decoders->protobuf.feed(body);
      }
    };
  }
  /// Decodes a 2xx response as the list; std::nullopt (its ApiError) otherwise.
  template <class Complete = KeepList>
  [[nodiscard]] auto decoder(Complete complete = {}) const {
    return [decoders = decoders_, complete](HttpResponse& response) -> std::optional<L> {
      if (response.status / 100 != 2) {
        return std::nullopt;
      }
      if constexpr (protobuf_readable<L>) {
        if (protobuf::is_media_type(response.content_type)) {
          L list = decoders->protobuf.finish(response.body);
          complete(list);
          return list;
        }
      }
      L list = decoders->json.finish(response.body);
      check_list_kind(list);
      complete(list);
      return list;
    };
  }

 private:
  struct NoDecoder {};
  enum class Received { unknown, json, protobuf };
  struct Decoders {
    json::ListDecoder<L> json;
    std::conditional_t<protobuf_readable<L>, protobuf::ListDecoder<L>, NoDecoder> protobuf;
    Received encoding = Received::unknown;  // of the attempt's body
  };
  std::shared_ptr<Decoders> decoders_ = std::make_shared<Decoders>();
};

/// A request an initiating function built, or what building it threw (an invalid name, a
/// namespace missing): such errors reach the handler like any other failure, so initiating
/// functions never throw.
struct Prepared {
  /// A request built without error.
  Prepared(ApiRequest built) : request(std::move(built)) {}  // NOLINT(google-explicit-constructor)
  /// What building a request threw.
  explicit Prepared(std::exception_ptr failure) : error(std::move(failure)) {}
  ApiRequest request{};
  std::exception_ptr error{};
};

/// Runs `make` (which returns an ApiRequest) at once, catching what it throws.
template <class Make>
Prepared prepare(Make&& make) noexcept {
  try {
    return Prepared(std::forward<Make>(make)());
  } catch (...) {
    return Prepared(std::current_exception());
  }
}

/// The apiVersion member of `object`: `api_version` in generated models, or `apiVersion` in a
/// hand-written custom resource that names its members after the JSON fields.
template <class O>
decltype(auto) api_version_member(O& object) {
  if constexpr (requires { object.api_version; }) {
    return (object.api_version);
  } else {
    return (object.apiVersion);
  }
}

/// `object` as JSON that names `api_version` and `kind` even if the caller cleared them
/// (server-side apply requires both).
template <class O>
std::string encode_typed(const O& object, std::string_view api_version, std::string_view kind,
                         json::Writer::Mode mode = json::Writer::Mode::full) {
  std::string out;
  if (api_version_member(object) == api_version && object.kind == kind) {
    json::encode(object, out, mode);
    return out;
  }
  O copy = object;
  api_version_member(copy).assign(api_version);
  copy.kind.assign(kind);
  json::encode(copy, out, mode);
  return out;
}

/// metadata.name of `object`, which a write addressed to one object needs.
/// @throws kubex::Error (errc::invalid_argument) naming `kind` when it is unset.
template <class O>
std::string_view name_of(const O& object, std::string_view kind) {
  const auto& name = object.metadata.name;
  if (!name || name->empty()) {
    std::string message(kind);
    message.append(": metadata.name is required");
    throw Error(errc::invalid_argument, message);
  }
  return *name;
}

}  // namespace detail

/// The requests for the verbs of resource T in one namespace, across all namespaces, or
/// cluster-wide: each returns the ApiRequest to send, and throws kubex::Error for an argument
/// the server would refuse (an invalid name, an object without metadata.name, one object
/// addressed through all namespaces). Verbs the server does not serve for T do not compile.
template <resource T>
class ResourceCalls {
 public:
  /// The traits of T.
  using traits = resource_traits<T>;

  /// Calls in `namespace_name`; empty for all namespaces or a cluster-scoped kind. With
  /// Encoding::protobuf, calls whose answer is a T, its list or a Status ask for protobuf
  /// when T is a built-in kind (protobuf_readable), and metadata-only calls for every kind.
  explicit ResourceCalls(std::string_view namespace_name, Encoding encoding = Encoding::json)
      : namespace_(namespace_name),
        requests_(traits::group, traits::version, traits::plural, namespace_name),
        protobuf_(encoding == Encoding::protobuf && protobuf_readable<T>),
        metadata_protobuf_(encoding == Encoding::protobuf &&
                           protobuf_readable<PartialObjectMeta<T>>) {}

  /// True when this kind's calls ask for protobuf.
  [[nodiscard]] bool protobuf() const noexcept { return protobuf_; }

  /// The namespace addressed; empty for all namespaces or a cluster-scoped kind.
  [[nodiscard]] const std::string& namespace_name() const noexcept { return namespace_; }
  /// The request builder (for requests there is no verb for).
  [[nodiscard]] const RequestBuilder& requests() const noexcept { return requests_; }

  /// Reads object `name`.
  [[nodiscard]] ApiRequest get(std::string_view name, const GetParams& params = {}) const {
    static_assert(supports<T>(Verb::get), "the server does not serve get for this kind");
    return encoded(named().get(name, params));
  }
  /// Lists objects.
  [[nodiscard]] ApiRequest list(const ListParams& params) const {
    static_assert(supports<T>(Verb::list), "the server does not serve list for this kind");
    if constexpr (protobuf_readable<typename traits::list_type>) {
      return encoded(requests_.list(params));
    } else {
      return requests_.list(params);
    }
  }
  /// Creates `object`.
  [[nodiscard]] ApiRequest create(const T& object, const PostParams& params) const {
    static_assert(supports<T>(Verb::create), "the server does not serve create for this kind");
    auto [body, media_type] = object_body(object);
    return encoded(with_content_type(named().create(std::move(body), params), media_type));
  }
  /// Replaces object `object.metadata.name`.
  [[nodiscard]] ApiRequest replace(const T& object, const PostParams& params) const {
    static_assert(supports<T>(Verb::update), "the server does not serve update for this kind");
    const std::string_view name = name_of(object);
    auto [body, media_type] = object_body(object);
    return encoded(with_content_type(named().replace(name, std::move(body), params), media_type));
  }
  /// Patches object `name`.
  [[nodiscard]] ApiRequest patch(std::string_view name, const Patch& patch,
                                 const PatchParams& params) const {
    static_assert(supports<T>(Verb::patch), "the server does not serve patch for this kind");
    return encoded(named().patch(name, patch, params));
  }
  /// Server-side apply of `object` (apiVersion and kind always sent), as a partial object:
  /// required fields left empty are not sent (json::Writer::Mode::partial), so applying only
  /// spec.replicas of a Deployment claims only that field.
  [[nodiscard]] ApiRequest apply(const T& object, const PatchParams& params) const {
    static_assert(supports<T>(Verb::patch), "the server does not serve patch for this kind");
    return encoded(
        named().patch(name_of(object),
                      Patch::apply(detail::encode_typed(object, traits::api_version, traits::kind,
                                                        json::Writer::Mode::partial)),
                      params));
  }
  /// Server-side apply of `object`'s status subresource, as apply() does for the object: a
  /// controller's field manager owns the status fields it sets, and only those.
  [[nodiscard]] ApiRequest apply_status(const T& object, const PatchParams& params) const {
    static_assert(subresource_supports<T>("status", Verb::patch),
                  "this kind has no status subresource to patch");
    return encoded(named().patch_subresource(
        "status", name_of(object),
        Patch::apply(detail::encode_typed(object, traits::api_version, traits::kind,
                                          json::Writer::Mode::partial)),
        params));
  }
  /// Deletes object `name`.
  [[nodiscard]] ApiRequest delete_(std::string_view name, const DeleteParams& params) const {
    static_assert(supports<T>(Verb::delete_), "the server does not serve delete for this kind");
    return encoded(named().delete_(name, params));
  }
  /// Deletes the objects matching `list`'s selectors.
  [[nodiscard]] ApiRequest delete_collection(const DeleteParams& params,
                                             const ListParams& list) const {
    static_assert(supports<T>(Verb::delete_collection),
                  "the server does not serve deletecollection for this kind");
    if constexpr (protobuf_readable<typename traits::list_type>) {
      return encoded(requests_.delete_collection(params, list));
    } else {
      return requests_.delete_collection(params, list);
    }
  }
  /// Reads only the metadata of object `name` (PartialObjectMetadata).
  [[nodiscard]] ApiRequest get_metadata(std::string_view name) const {
    return with_accept(get(name), metadata_accept());
  }
  /// Lists only the metadata of objects (PartialObjectMetadataList).
  [[nodiscard]] ApiRequest list_metadata(const ListParams& params) const {
    return with_accept(list(params),
                       metadata_protobuf_ ? accept_metadata_list_protobuf : accept_metadata_list);
  }
  /// Patches object `name`; the answer is only its metadata.
  [[nodiscard]] ApiRequest patch_metadata(std::string_view name, const Patch& patch,
                                          const PatchParams& params) const {
    return with_accept(this->patch(name, patch, params), metadata_accept());
  }
  /// Lists the objects as a server-side printed meta/v1 Table.
  [[nodiscard]] ApiRequest list_table(const ListParams& params) const {
    return with_accept(list(params), accept_table);
  }
  /// Starts a watch.
  [[nodiscard]] ApiRequest watch(const WatchParams& params) const {
    static_assert(supports<T>(Verb::watch), "the server does not serve watch for this kind");
    return encoded(requests_.watch(params));
  }
  /// Starts a metadata-only watch.
  [[nodiscard]] ApiRequest watch_metadata(const WatchParams& params) const {
    return with_accept(watch(params), metadata_accept());
  }
  /// Reads subresource `sub` of object `name`.
  [[nodiscard]] ApiRequest get_subresource(std::string_view sub, std::string_view name) const {
    return named().get_subresource(sub, name);
  }
  /// Replaces subresource `sub` of object `name` with `body` (JSON).
  [[nodiscard]] ApiRequest replace_subresource(std::string_view sub, std::string_view name,
                                               std::string body, const PostParams& params) const {
    return named().replace_subresource(sub, name, std::move(body), params);
  }
  /// Patches subresource `sub` of object `name`.
  [[nodiscard]] ApiRequest patch_subresource(std::string_view sub, std::string_view name,
                                             const Patch& patch, const PatchParams& params) const {
    return named().patch_subresource(sub, name, patch, params);
  }
  /// Posts `body` (JSON) to subresource `sub` of object `name`.
  [[nodiscard]] ApiRequest create_subresource(std::string_view sub, std::string_view name,
                                              std::string body, const PostParams& params) const {
    return named().create_subresource(sub, name, std::move(body), params);
  }
  /// Replaces the status of `object`.
  [[nodiscard]] ApiRequest replace_status(const T& object, const PostParams& params) const {
    const std::string_view name = name_of(object);
    auto [body, media_type] = object_body(object);
    return encoded(with_content_type(
        named().replace_subresource("status", name, std::move(body), params), media_type));
  }
  /// The log of pod `name`: all of it so far, or followed.
  [[nodiscard]] ApiRequest logs(std::string_view name, const LogParams& params, bool follow) const {
    return named().logs(name, params, follow);
  }
  /// Exec in pod `name` (a WebSocket upgrade).
  [[nodiscard]] ApiRequest exec(std::string_view name, const ExecParams& params) const {
    return named().exec(name, params);
  }
  /// Attach to pod `name` (a WebSocket upgrade).
  [[nodiscard]] ApiRequest attach(std::string_view name, const AttachParams& params) const {
    return named().attach(name, params);
  }
  /// Port-forward to pod `name` (a WebSocket upgrade).
  [[nodiscard]] ApiRequest port_forward(std::string_view name,
                                        const std::vector<std::uint16_t>& ports) const {
    return named().port_forward(name, ports);
  }

 private:
  // Object requests of a namespaced kind need a namespace.
  const RequestBuilder& named() const {
    if constexpr (namespace_scoped<T>) {
      if (namespace_.empty()) {
        std::string message = "Api<";
        message.append(traits::kind)
            .append(
                ">::all addresses every namespace; reading or writing one object needs "
                "Api::namespaced");
        throw Error(errc::invalid_argument, message);
      }
    }
    return requests_;
  }

  // The Accept of a metadata-only call: in protobuf first when the client asks for it.
  [[nodiscard]] std::string_view metadata_accept() const noexcept {
    return metadata_protobuf_ ? accept_metadata_protobuf : accept_metadata;
  }

  // The body of a create or replace and its media type: protobuf when this kind's calls ask
  // for it, as client-go sends it, unless the object holds what only JSON can carry (fields
  // read from JSON that its model does not know); JSON otherwise.
  std::pair<std::string, std::string_view> object_body(const T& object) const {
    if constexpr (protobuf_writable<T>) {
      if (protobuf_) {
        try {
          return {protobuf::encode_object(object, traits::api_version, traits::kind),
                  protobuf::media_type};
        } catch (const protobuf::Unrepresentable&) {  // JSON keeps every field
        }
      }
    }
    return {json::encode(object), "application/json"};
  }

  static ApiRequest with_content_type(ApiRequest request, std::string_view media_type) {
    request.content_type.assign(media_type);
    return request;
  }

  static ApiRequest with_accept(ApiRequest request, std::string_view accept) {
    request.accept.assign(accept);
    return request;
  }

  // A request whose answer is a T, its list or a Status, in protobuf when this kind's calls
  // ask for it.
  ApiRequest encoded(ApiRequest request) const {
    if (protobuf_) {
      request.accept.assign(accept_protobuf);
    }
    return request;
  }

  static std::string_view name_of(const T& object) { return detail::name_of(object, traits::kind); }

  std::string namespace_;
  RequestBuilder requests_;
  bool protobuf_ = false;
  bool metadata_protobuf_ = false;  // metadata-only calls ask for protobuf
};

}  // namespace kubex::client
