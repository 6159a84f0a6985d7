// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exec credential plugins (kubeconfig user `exec`), as client-go runs them: the program gets
// KUBERNETES_EXEC_INFO, no terminal, and prints an ExecCredential on stdout.

#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/time.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace kubex::client {

/// What an exec plugin returned. `token` and `client_key_pem` are secrets.
struct ExecCredential {
  /// Bearer token; empty if the plugin returned a client certificate instead.
  std::string token{};
  /// PEM client certificate chain, with `client_key_pem`; empty for a token.
  std::string client_certificate_pem{};
  /// PEM private key of the client certificate.
  std::string client_key_pem{};
  /// When the credential stops being valid; none means until the server refuses it (401).
  std::optional<Time> expiration{};
};

/// Runs `config.exec` and reads its ExecCredential. The plugin's stdin is /dev/null and its
/// stderr is this process's; its stdout is read up to 1 MiB and never quoted in errors.
/// KUBERNETES_EXEC_INFO carries the apiVersion, `interactive: false` and, with
/// provideClusterInfo, the cluster (server, tls-server-name, CA, insecure-skip-tls-verify).
/// @throws kubex::Error (errc::invalid_config) naming the plugin and what went wrong: it could
///         not start (with the installHint), exited with a non-zero status, timed out after
///         `timeout`, or printed no valid ExecCredential of the configured apiVersion.
[[nodiscard]] KUBEX_API ExecCredential run_exec_plugin(
    const ClientConfig& config, std::chrono::milliseconds timeout = std::chrono::minutes(1));

}  // namespace kubex::client
