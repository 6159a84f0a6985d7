// SPDX-License-Identifier: Apache-2.0
#pragma once

// The requests of the Kubernetes REST API, built without I/O: method, path with query, body
// and media types for every verb and subresource of one resource. Api<T> sends what this
// builds; tests check it byte for byte.

#include <kubex/core/export.hpp>
#include <kubex/core/params.hpp>
#include <kubex/core/patch.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubex {

/// Accept header for full objects.
inline constexpr std::string_view accept_json = "application/json";
/// Accept header for one object's metadata only (meta/v1 PartialObjectMetadata), with plain
/// JSON as the fallback the server may choose; also what a metadata watch asks for.
inline constexpr std::string_view accept_metadata =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
/// Accept header for a list of metadata only (meta/v1 PartialObjectMetadataList).
inline constexpr std::string_view accept_metadata_list =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// accept_metadata in protobuf first (ClientOptions::encoding): the apiserver sends any kind's
/// metadata in protobuf, custom resources' too.
inline constexpr std::string_view accept_metadata_protobuf =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
/// accept_metadata_list in protobuf first.
inline constexpr std::string_view accept_metadata_list_protobuf =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// Accept header for server-side printing (meta/v1 Table), as kubectl get uses it.
inline constexpr std::string_view accept_table =
    "application/json;as=Table;g=meta.k8s.io;v=v1,application/json";

/// One API request, before a transport adds the server address and credentials.
struct ApiRequest {
  /// HTTP method.
  std::string method{"GET"};
  /// Path and query, e.g. "/api/v1/namespaces/default/pods?limit=10".
  std::string target{};
  /// Body; empty for GET.
  std::string body{};
  /// Content-Type of the body.
  std::string content_type{"application/json"};
  /// Accept header.
  std::string accept{accept_json};
  /// For a stream: the longest silence that does not mean a dead connection, used when
  /// ClientOptions::stream_idle_timeout is unset; zero or unset: none. A watch sets its
  /// WatchParams::idle_timeout, or watch_idle_timeout() of its timeoutSeconds.
  std::optional<std::chrono::milliseconds> idle_timeout{};
};

/// Margin over a watch's timeoutSeconds before its silence means a dead connection: a live
/// server has ended the watch by then.
inline constexpr std::chrono::seconds watch_idle_margin{30};

/// The default idle timeout of a watch with `timeout_seconds`: those seconds plus
/// watch_idle_margin; without them (or with 0), 3600 s (twice the apiserver's default
/// --min-request-timeout: the longest a live server with defaults keeps a watch open) plus the
/// margin. A watch with bookmarks hears from a live server about every minute, so a shorter
/// idle timeout finds a dead connection sooner.
[[nodiscard]] constexpr std::chrono::milliseconds watch_idle_timeout(
    std::optional<std::int64_t> timeout_seconds) noexcept {
  const std::int64_t longest =
      timeout_seconds && *timeout_seconds > 0 ? *timeout_seconds : std::int64_t{2 * 1800};
  return std::chrono::seconds(longest) + watch_idle_margin;
}

/// Builds the requests for one resource in one namespace (or cluster-wide, or across all
/// namespaces when `namespace_name` is empty). Names are checked and escaped: a name that
/// cannot be a path segment fails with errc::invalid_path before anything is sent.
class KUBEX_API RequestBuilder {
 public:
  /// The requests for `plural` in `group`/`version`, in `namespace_name` ("" for cluster-scoped
  /// resources and for all namespaces).
  RequestBuilder(std::string_view group, std::string_view version, std::string_view plural,
                 std::string_view namespace_name = {});

  /// `GET` one object.
  [[nodiscard]] ApiRequest get(std::string_view name, const GetParams& params = {}) const;
  /// `GET` the collection.
  [[nodiscard]] ApiRequest list(const ListParams& params = {}) const;
  /// `GET ?watch=true` on the collection.
  [[nodiscard]] ApiRequest watch(const WatchParams& params = {}) const;
  /// `POST` a new object.
  [[nodiscard]] ApiRequest create(std::string body, const PostParams& params = {}) const;
  /// `PUT` an object (optimistic concurrency through its metadata.resourceVersion).
  [[nodiscard]] ApiRequest replace(std::string_view name, std::string body,
                                   const PostParams& params = {}) const;
  /// `PATCH` an object.
  [[nodiscard]] ApiRequest patch(std::string_view name, const Patch& patch,
                                 const PatchParams& params = {}) const;
  /// `DELETE` an object, with a DeleteOptions body.
  [[nodiscard]] ApiRequest delete_(std::string_view name, const DeleteParams& params = {}) const;
  /// `DELETE` the objects of the collection matching `list`'s selectors.
  [[nodiscard]] ApiRequest delete_collection(const DeleteParams& params = {},
                                             const ListParams& list = {}) const;

  /// `GET` subresource `sub` of object `name` (status, scale, ...).
  [[nodiscard]] ApiRequest get_subresource(std::string_view sub, std::string_view name) const;
  /// `POST` to subresource `sub` (eviction, binding, token, ...).
  [[nodiscard]] ApiRequest create_subresource(std::string_view sub, std::string_view name,
                                              std::string body,
                                              const PostParams& params = {}) const;
  /// `PUT` subresource `sub` (status, scale, approval, ephemeralcontainers, resize).
  [[nodiscard]] ApiRequest replace_subresource(std::string_view sub, std::string_view name,
                                               std::string body,
                                               const PostParams& params = {}) const;
  /// `PATCH` subresource `sub`.
  [[nodiscard]] ApiRequest patch_subresource(std::string_view sub, std::string_view name,
                                             const Patch& patch,
                                             const PatchParams& params = {}) const;
  /// `GET .../log` of pod `name`; `follow` keeps the response open for new lines.
  [[nodiscard]] ApiRequest logs(std::string_view name, const LogParams& params, bool follow) const;
  /// `GET .../exec` of pod `name`, to be upgraded to a WebSocket.
  /// @throws kubex::Error (errc::invalid_argument) for no command, no stream, or a tty with
  ///         stderr.
  [[nodiscard]] ApiRequest exec(std::string_view name, const ExecParams& params) const;
  /// `GET .../attach` of pod `name`, to be upgraded to a WebSocket.
  /// @throws kubex::Error (errc::invalid_argument) for no stream, or a tty with stderr.
  [[nodiscard]] ApiRequest attach(std::string_view name, const AttachParams& params) const;
  /// `GET .../portforward[?ports=...]` of pod `name`, to be upgraded to a WebSocket. The
  /// SPDY tunnel names its ports per stream; the legacy WebSocket protocol needs `ports`.
  /// @throws kubex::Error (errc::invalid_argument) for port 0.
  [[nodiscard]] ApiRequest port_forward(std::string_view name,
                                        const std::vector<std::uint16_t>& ports) const;

  /// The collection path, e.g. "/apis/apps/v1/namespaces/web/deployments".
  [[nodiscard]] const std::string& collection_path() const noexcept { return collection_; }

 private:
  [[nodiscard]] std::string object_path(std::string_view name, std::string_view sub = {}) const;
  std::string collection_;
};

/// Appends `key=value` to `target` as a query parameter ('?' or '&' as needed), percent-encoding
/// the value as Go's url.QueryEscape does, except that spaces become %20.
KUBEX_API void append_query(std::string& target, std::string_view key, std::string_view value);

/// The meta/v1 DeleteOptions JSON for `params` ("dryRun" as the list ["All"] the API expects).
[[nodiscard]] KUBEX_API std::string delete_options_json(const DeleteParams& params);

}  // namespace kubex
