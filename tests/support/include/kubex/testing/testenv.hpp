// SPDX-License-Identifier: Apache-2.0
#pragma once

// Access to the real control plane that scripts/with-testenv.sh starts (tools/testenv), for
// integration tests: its kubeconfig, kubectl as an independent cross-check, seeding, and
// namespaces that belong to one test.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::testing {

/// Exit status and standard output of a shell command.
struct CommandResult {
  /// The exit status, or -1 if the command did not exit normally.
  int exit_code = -1;
  /// Everything the command wrote to stdout (stderr is passed through to the test's stderr).
  std::string output{};
};

/// Runs `command` with /bin/sh -c and waits for it.
CommandResult run_command(const std::string& command);

/// Runs `command` as above and calls `on_line` with each line of its stdout (without the
/// newline) as soon as it is read, so a test can act on what the program has reached.
CommandResult run_command(const std::string& command,
                          const std::function<void(std::string_view line)>& on_line);

/// `text` in single quotes, safe to paste into a /bin/sh command line.
std::string shell_quote(std::string_view text);

/// Appends `secret` (a token a test minted) to the file named by KUBEX_TEST_SECRETS_FILE, if
/// set, so scripts/check-no-secrets.sh can look for it in the logs; a no-op otherwise.
void record_secret(std::string_view secret);

/// The testenv of the current run, described by the environment variables that
/// scripts/with-testenv.sh sets.
class Testenv {
 public:
  /// Reads KUBEX_TESTENV_KUBECONFIG (required), KUBEX_TESTENV_BIN (needed by seed() and
  /// restart_apiserver()) and KUBEX_TESTENV_DIR (needed by restart_apiserver()).
  /// Returns std::nullopt if KUBEX_TESTENV_KUBECONFIG is unset or empty: the caller must then
  /// fail, because integration tests never skip.
  static std::optional<Testenv> from_environment();

  /// Path of the kubeconfig (contexts admin, admin-cert and user).
  [[nodiscard]] const std::string& kubeconfig() const noexcept { return kubeconfig_; }

  /// Runs `kubectl --kubeconfig <kubeconfig> <arguments>` (`arguments` is pasted into a shell
  /// command line as is) and returns its stdout.
  /// @throws std::runtime_error with the command and exit status if kubectl fails.
  std::string kubectl(const std::string& arguments) const;

  /// `kubectl create token <service_account> -n <namespace_name> --duration 10m`: the token,
  /// without its newline, recorded with record_secret().
  [[nodiscard]] std::string create_token(const std::string& service_account,
                                         const std::string& namespace_name) const;

  /// Runs `testenv seed`: creates `namespace_name` if needed and `pods` pods seed-0...,
  /// without the log-emitter pod, and waits until they are all Running.
  /// @throws std::runtime_error if KUBEX_TESTENV_BIN is unset or seeding fails.
  void seed(const std::string& namespace_name, std::size_t pods) const;

  /// Runs `testenv ctl --signal <signal> apiserver-restart`: stops kube-apiserver with
  /// `signal` ("TERM" or "KILL"), starts it again on the same port and waits until it is ready.
  /// Either way the server's end of every connection is closed. Disrupts every test running at
  /// the same time; such tests must run serially.
  /// @throws std::runtime_error if KUBEX_TESTENV_BIN or KUBEX_TESTENV_DIR is unset or the
  ///         restart fails.
  void restart_apiserver(const std::string& signal) const;

  /// Runs `testenv ctl etcd-compact`: compacts etcd's history up to its current revision, so
  /// resourceVersions and continue tokens issued before now expire (410 Gone), as they do after
  /// the apiserver's periodic compaction. Affects every test running at the same time; such
  /// tests must run serially.
  void compact_etcd() const;

 private:
  // Runs `<KUBEX_TESTENV_BIN> <arguments>`; throws with its output if it fails.
  void run_testenv(const std::string& arguments) const;

  std::string kubeconfig_;
  std::string binary_;
  std::string directory_;
};

/// A namespace name that no other test or run uses: `prefix` (lowered, '_' turned into '-',
/// shortened) plus the process id and a random suffix; a valid DNS label.
std::string unique_namespace_name(std::string_view prefix);

/// Creates a namespace with kubectl and deletes it (without waiting) when destroyed.
class ScopedNamespace {
 public:
  /// Creates a namespace named unique_namespace_name(prefix).
  /// @throws std::runtime_error if kubectl fails.
  ScopedNamespace(const Testenv& testenv, std::string_view prefix);
  ~ScopedNamespace();
  ScopedNamespace(const ScopedNamespace&) = delete;
  ScopedNamespace& operator=(const ScopedNamespace&) = delete;

  /// The namespace name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  const Testenv& testenv_;
  std::string name_;
};

}  // namespace kubex::testing
