// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/exec_credential.hpp>
#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/json_types.hpp>

#include "detail/text.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

extern char** environ;  // NOLINT: POSIX

namespace kubex::client {
namespace {

// ExecCredential as the plugin prints it, and KUBERNETES_EXEC_INFO as the plugin reads it.
struct CredentialStatus {
  std::string token;
  std::string client_certificate_data;
  std::string client_key_data;
  std::optional<Time> expiration_timestamp;
};

struct CredentialDocument {
  std::string api_version;
  std::string kind;
  std::optional<CredentialStatus> status;
};

struct ClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority_data;
};

struct ExecSpec {
  bool interactive = false;
  std::optional<ClusterInfo> cluster;
};

struct ExecInfo {
  std::string api_version;
  std::string kind = "ExecCredential";
  ExecSpec spec;
};

constexpr auto kubex_fields(const CredentialStatus*) noexcept {
  return std::tuple{
      json::field("token", &CredentialStatus::token),
      json::field("clientCertificateData", &CredentialStatus::client_certificate_data),
      json::field("clientKeyData", &CredentialStatus::client_key_data),
      json::field("expirationTimestamp", &CredentialStatus::expiration_timestamp)};
}

constexpr auto kubex_fields(const CredentialDocument*) noexcept {
  return std::tuple{json::field("apiVersion", &CredentialDocument::api_version),
                    json::field("kind", &CredentialDocument::kind),
                    json::field("status", &CredentialDocument::status)};
}

constexpr auto kubex_fields(const ClusterInfo*) noexcept {
  return std::tuple{
      json::field("server", &ClusterInfo::server),
      json::field("tls-server-name", &ClusterInfo::tls_server_name),
      json::field("insecure-skip-tls-verify", &ClusterInfo::insecure_skip_tls_verify),
      json::field("certificate-authority-data", &ClusterInfo::certificate_authority_data)};
}

constexpr auto kubex_fields(const ExecSpec*) noexcept {
  return std::tuple{json::field("interactive", &ExecSpec::interactive),
                    json::field("cluster", &ExecSpec::cluster)};
}

constexpr auto kubex_fields(const ExecInfo*) noexcept {
  return std::tuple{json::field("apiVersion", &ExecInfo::api_version),
                    json::field("kind", &ExecInfo::kind), json::field("spec", &ExecInfo::spec)};
}

constexpr std::size_t max_output = 1024U * 1024U;

class Fd {
 public:
  explicit Fd(int fd = -1) noexcept : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }

 private:
  int fd_;
};

}  // namespace

ExecCredential run_exec_plugin(const ClientConfig& config, std::chrono::milliseconds timeout) {
  if (!config.exec) {
    throw Error(errc::invalid_config,
                config.source + ": users[" + config.user_name + "]: no exec plugin configured");
  }
  const ExecConfig& exec = *config.exec;
  const std::string who = "exec plugin \"" + exec.command + "\" of " + config.source + " users[" +
                          config.user_name + "]";
  const auto fail = [&who](const std::string& what) -> void {
    throw Error(errc::invalid_config, who + ": " + what);
  };

  ExecInfo info;
  info.api_version = exec.api_version;
  if (exec.provide_cluster_info) {
    info.spec.cluster = ClusterInfo{
        config.server.scheme + "://" + config.server.authority() + config.server.base_path,
        config.tls_server_name, config.insecure_skip_tls_verify,
        base64_encode(config.certificate_authority_pem)};
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool overridden = entry.starts_with("KUBERNETES_EXEC_INFO=");
    for (const auto& [name, value] : exec.env) {
      overridden = overridden || entry.starts_with(name + "=");
    }
    if (!overridden) {
      env_strings.emplace_back(entry);
    }
  }
  for (const auto& [name, value] : exec.env) {
    env_strings.push_back(name + "=" + value);
  }
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + json::encode(info));
  std::vector<char*> envp;
  for (auto& e : env_strings) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings{exec.command};
  arg_strings.insert(arg_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& a : arg_strings) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    fail(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();
  if (spawned != 0) {
    std::string message = std::string("cannot start: ") + std::strerror(spawned);
    if (!exec.install_hint.empty()) {
      message += ". " + exec.install_hint;
    }
    fail(message);
  }

  // Read stdout until EOF, the size limit or the deadline; then reap the plugin.
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string problem;
  while (problem.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      problem = "timed out after " + std::to_string(timeout.count()) + " ms";
      break;
    }
    pollfd p{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) {
      problem = std::string("cannot read its output: ") + std::strerror(errno);
      break;
    }
    if (ready <= 0) {
      continue;
    }
    char chunk[4096];
    const ssize_t n = ::read(read_end.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      problem = std::string("cannot read its output: ") + std::strerror(errno);
      break;
    }
    if (n == 0) {
      break;
    }
    out.append(chunk, static_cast<std::size_t>(n));
    if (out.size() > max_output) {
      problem = "printed more than 1 MiB";
    }
  }
  if (!problem.empty()) {
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!problem.empty()) {
    fail(problem);
  }
  if (WIFSIGNALED(status)) {
    fail("killed by signal " + std::to_string(WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) != 0) {
    fail("exited with status " + std::to_string(WEXITSTATUS(status)));
  }

  CredentialDocument doc;
  try {
    json::decode(out, doc);
  } catch (const json::DecodeError& e) {
    // The reason and path only: the output holds the credential.
    fail("printed no valid ExecCredential: " +
         (e.path().empty() ? e.reason() : e.path() + ": " + e.reason()));
  }
  if (doc.kind != "ExecCredential") {
    fail("printed kind \"" + doc.kind + "\", not ExecCredential");
  }
  if (doc.api_version != exec.api_version) {
    fail("printed apiVersion \"" + doc.api_version + "\", but the kubeconfig asks for \"" +
         exec.api_version + "\"");
  }
  if (!doc.status) {
    fail("printed an ExecCredential without status");
  }
  ExecCredential credential;
  credential.token = std::move(doc.status->token);
  credential.client_certificate_pem = std::move(doc.status->client_certificate_data);
  credential.client_key_pem = std::move(doc.status->client_key_data);
  credential.expiration = doc.status->expiration_timestamp;
  if (credential.client_certificate_pem.empty() != credential.client_key_pem.empty()) {
    fail("printed only one of clientCertificateData and clientKeyData");
  }
  if (credential.token.empty() && credential.client_certificate_pem.empty()) {
    fail("printed neither a token nor a client certificate");
  }
  if (detail::has_control_characters(credential.token)) {
    fail("printed a token with control characters");
  }
  return credential;
}

}  // namespace kubex::client
