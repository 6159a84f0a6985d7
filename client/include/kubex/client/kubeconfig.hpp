#pragma once

#include <kubex/core/url.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace kubex::client {

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

  /// Bearer token (user `token`, or the trimmed contents of `tokenFile`). Secret.
  std::string token{};
  /// Absolute path of user `tokenFile`, kept so a transport can re-read rotated tokens.
  std::filesystem::path token_file{};
  /// PEM client certificate chain (user `client-certificate[-data]`).
  std::string client_certificate_pem{};
  /// PEM private key for the client certificate (user `client-key[-data]`). Secret.
  std::string client_key_pem{};
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
/// Settings kubex cannot honour yet (`exec`, `auth-provider`, impersonation, `proxy-url`,
/// `username`/`password`) are rejected rather than silently ignored, because ignoring them would
/// connect as a different identity or by a different route than the user asked for.
///
/// @throws kubex::ConfigError naming the file and field, e.g.
///         `kubeconfig /p: users[admin].client-key-data: invalid base64`.
[[nodiscard]] ClientConfig load_kubeconfig(const std::filesystem::path& path,
                                           const KubeconfigOptions& options = {});

/// Resolves a kubeconfig held in memory (YAML or JSON). Relative file paths in it are resolved
/// against `base_directory`; `source_name` identifies the document in error messages.
/// @throws kubex::ConfigError as load_kubeconfig does.
[[nodiscard]] ClientConfig parse_kubeconfig(std::string_view yaml,
                                            const std::filesystem::path& base_directory,
                                            std::string_view source_name = "kubeconfig <memory>",
                                            const KubeconfigOptions& options = {});

}  // namespace kubex::client
