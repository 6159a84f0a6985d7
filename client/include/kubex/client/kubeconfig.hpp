// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>
#include <kubex/core/url.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::client {

/// An identity to act as (kubeconfig user `as`, `as-uid`, `as-groups`, `as-user-extra`). The
/// server checks that the authenticated user may impersonate it, then authorizes every request
/// as this identity. Sent as Impersonate-* headers.
struct Impersonation {
  /// User name to act as (`as`); empty means no impersonation.
  std::string user{};
  /// UID to act as (`as-uid`); needs `user`.
  std::string uid{};
  /// Groups to act as (`as-groups`); needs `user`.
  std::vector<std::string> groups{};
  /// Extra user attributes (`as-user-extra`), e.g. scopes; needs `user`.
  std::map<std::string, std::vector<std::string>> extra{};
};

/// The OpenID Connect auth provider (kubeconfig user `auth-provider` named `oidc`, as in
/// client-go): the id-token is the bearer token until it expires, then the refresh-token buys a
/// new one from the issuer's token endpoint. Refreshed tokens are kept in memory only; the
/// kubeconfig file is never rewritten.
struct OidcConfig {
  /// OAuth client (config `client-id`).
  std::string client_id{};
  /// Its secret (config `client-secret`), sent to the token endpoint only. Secret.
  std::string client_secret{};
  /// The current ID token (config `id-token`); may be empty or expired. Secret.
  std::string id_token{};
  /// The refresh token (config `refresh-token`); empty means no refresh. Secret.
  std::string refresh_token{};
  /// Issuer URL (config `idp-issuer-url`); its `/.well-known/openid-configuration` names the
  /// token endpoint.
  std::string issuer_url{};
  /// PEM CAs that sign the issuer's certificate (config `idp-certificate-authority[-data]`);
  /// empty means the system trust store.
  std::string certificate_authority_pem{};
  /// Scopes requested in addition to `openid` (config `extra-scopes`, comma-separated).
  std::vector<std::string> extra_scopes{};
};

/// An exec credential plugin (kubeconfig user `exec`): a program that prints an ExecCredential
/// with a token (or a client certificate) on stdout, as cloud CLIs do for their clusters.
struct ExecConfig {
  /// The program; a relative path with a '/' is resolved against the kubeconfig's folder,
  /// a bare name is looked up in PATH.
  std::string command{};
  /// Its arguments.
  std::vector<std::string> args{};
  /// Environment variables added to the inherited environment.
  std::vector<std::pair<std::string, std::string>> env{};
  /// client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1.
  std::string api_version{};
  /// Shown with the error when the program cannot be started, e.g. how to install it.
  std::string install_hint{};
  /// Pass the cluster's server, CA and name to the program in KUBERNETES_EXEC_INFO.
  bool provide_cluster_info = false;
  /// "Never" or "IfAvailable": kubex never gives the plugin a terminal, so a plugin that
  /// needs one ("Always") is refused when the kubeconfig is read.
  std::string interactive_mode{};
};

/// Everything needed to talk to one apiserver as one user, resolved from a kubeconfig context
/// (the counterpart of client-go's rest.Config and kube-rs's Config).
///
/// IMPORTANT: `token` and `client_key_pem` are secrets. kubex never puts them into error
/// messages; do not log this struct.
struct ClientConfig {
  /// Where the settings came from, e.g. `kubeconfig /home/me/.kube/config`; used in messages.
  std::string source{};
  /// Name of the kubeconfig context that was resolved.
  std::string context_name{};
  /// Name of the kubeconfig cluster entry used by the context.
  std::string cluster_name{};
  /// Name of the kubeconfig user entry used by the context; empty for anonymous access.
  std::string user_name{};

  /// The apiserver base URL (cluster `server`).
  ServerUrl server{};
  /// Default namespace for namespaced requests (context `namespace`, or "default").
  std::string namespace_name = "default";

  /// PEM bundle of trusted CAs (cluster `certificate-authority[-data]`). Empty means the system
  /// trust store is used; verification is never switched off implicitly.
  std::string certificate_authority_pem{};
  /// Skip server certificate verification (cluster `insecure-skip-tls-verify`). Dangerous.
  bool insecure_skip_tls_verify = false;
  /// Name used for SNI and certificate verification instead of the server host
  /// (cluster `tls-server-name`).
  std::string tls_server_name{};
  /// Do not ask the server for gzip-compressed responses (cluster `disable-compression`).
  bool disable_compression = false;
  /// Proxy URL for this cluster (cluster `proxy-url`: http:// or socks5://), validated at
  /// load; empty for none. May hold proxy credentials.
  std::string proxy_url{};

  /// Bearer token (user `token`, or the trimmed contents of `tokenFile`). Secret.
  std::string token{};
  /// Absolute path of the file `token` came from (user `tokenFile`, or the service account
  /// token in a pod), re-read by transports to pick up rotated tokens; empty for an inline
  /// token.
  std::filesystem::path token_file{};
  /// HTTP Basic credentials (user `username` and `password`), sent when there is no token.
  /// kube-apiserver itself no longer accepts them; proxies in front of it may. Secret.
  std::string username{};
  /// See username. Secret.
  std::string password{};
  /// PEM client certificate chain (user `client-certificate[-data]`).
  std::string client_certificate_pem{};
  /// PEM private key for the client certificate (user `client-key[-data]`). Secret.
  std::string client_key_pem{};
  /// Identity to impersonate, if any.
  Impersonation impersonate{};
  /// OpenID Connect provider, if the user has one; transports use and refresh its id-token.
  std::optional<OidcConfig> oidc{};
  /// Credential plugin, if the user has one; transports run it for a token when they have
  /// none, when it expires and on a 401.
  std::optional<ExecConfig> exec{};
};

/// Options for resolving a kubeconfig.
struct KubeconfigOptions {
  /// Context to use; empty selects the kubeconfig's `current-context`.
  std::string context{};
};

/// Loads the kubeconfig file at `path` and resolves one context, following client-go: `*-data`
/// fields take precedence over the matching file fields, relative file paths are resolved
/// against the kubeconfig's directory, `token` takes precedence over `tokenFile`, and the
/// namespace defaults to "default". Multi-file merging (KUBECONFIG=a:b) is not done here.
///
/// Settings kubex cannot honour (auth providers other than `oidc`, which client-go removed)
/// are rejected rather than silently ignored, because ignoring them would connect as a
/// different identity than the user asked for.
///
/// @throws kubex::ConfigError naming the file and field, e.g.
///         `kubeconfig /p: users[admin].client-key-data: invalid base64`.
[[nodiscard]] KUBEX_API ClientConfig load_kubeconfig(const std::filesystem::path& path,
                                                     const KubeconfigOptions& options = {});

/// Resolves a kubeconfig held in memory (YAML or JSON). Relative file paths in it are resolved
/// against `base_directory`; `source_name` identifies the document in error messages.
/// @throws kubex::ConfigError as load_kubeconfig does.
[[nodiscard]] KUBEX_API ClientConfig parse_kubeconfig(
    std::string_view yaml, const std::filesystem::path& base_directory,
    std::string_view source_name = "kubeconfig <memory>", const KubeconfigOptions& options = {});

/// Loads and merges several kubeconfig files the way client-go merges `KUBECONFIG=a:b:c`: for
/// each cluster, user and context name the first file that defines it wins, and so does the
/// first file that sets current-context. Files that do not exist are skipped, a file named
/// twice is read once, an empty file is accepted; relative paths resolve against the
/// directory of the file they appear in, and errors name that file.
/// @throws kubex::ConfigError as load_kubeconfig does, or if none of the files exists.
[[nodiscard]] KUBEX_API ClientConfig load_kubeconfig_files(
    const std::vector<std::filesystem::path>& paths, const KubeconfigOptions& options = {});

/// Splits a `KUBECONFIG` value at ':' and drops empty items.
[[nodiscard]] KUBEX_API std::vector<std::filesystem::path> split_kubeconfig_env(
    std::string_view value);

/// Where a pod finds its service account, and which environment tells it the apiserver.
struct InClusterOptions {
  /// Folder holding `token`, `ca.crt` and `namespace`.
  std::filesystem::path service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

/// The configuration of a process running in a pod: server
/// `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` (an IPv6 host is bracketed), the
/// service account's token (its path kept in `token_file`, so a transport can re-read the
/// rotated token), CA and namespace (default "default" if the file is absent).
/// @throws kubex::ConfigError naming the variable or file that is missing or unusable.
[[nodiscard]] KUBEX_API ClientConfig incluster_config(const InClusterOptions& options = {});

/// True if the environment looks like a pod's: KUBERNETES_SERVICE_HOST and
/// KUBERNETES_SERVICE_PORT are both set.
[[nodiscard]] KUBEX_API bool in_cluster_environment() noexcept;

/// Finds the configuration the way kubectl does, in this order: the files of `KUBECONFIG` if
/// it is set and not empty (merged, see load_kubeconfig_files), else `$HOME/.kube/config` if
/// it exists, else the in-cluster configuration if in_cluster_environment(). An explicit
/// choice is simply a call to load_kubeconfig or incluster_config instead.
/// @throws kubex::ConfigError saying what was tried if nothing is found, or what is wrong with
///         the configuration that was found.
[[nodiscard]] KUBEX_API ClientConfig infer_config(const KubeconfigOptions& options = {});

}  // namespace kubex::client
