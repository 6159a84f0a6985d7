// SPDX-License-Identifier: Apache-2.0
#include <kubex/testing/testenv.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kubex::testing {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

CommandResult run_command(const std::string& command) {
  return run_command(command, [](std::string_view) {});
}

CommandResult run_command(const std::string& command,
                          const std::function<void(std::string_view line)>& on_line) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return result;
  }
  char buffer[4096];
  std::size_t line_start = 0;
  // fgets returns as soon as a line (or a full buffer) is in, unlike fread.
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    result.output += buffer;
    std::size_t newline;
    while ((newline = result.output.find('\n', line_start)) != std::string::npos) {
      on_line(std::string_view(result.output).substr(line_start, newline - line_start));
      line_start = newline + 1;
    }
  }
  const int status = ::pclose(pipe);
  result.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void record_secret(std::string_view secret) {
  const std::string file = environment("KUBEX_TEST_SECRETS_FILE");
  if (file.empty() || secret.empty()) {
    return;
  }
  // One write of the whole line to an O_APPEND file: tests running in parallel do not interleave.
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw std::runtime_error("record_secret: cannot open KUBEX_TEST_SECRETS_FILE " + file);
  }
  const std::string line = std::string(secret) + "\n";
  const auto written = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error("record_secret: cannot write KUBEX_TEST_SECRETS_FILE " + file);
  }
}

std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::optional<Testenv> Testenv::from_environment() {
  Testenv testenv;
  testenv.kubeconfig_ = environment("KUBEX_TESTENV_KUBECONFIG");
  testenv.binary_ = environment("KUBEX_TESTENV_BIN");
  testenv.directory_ = environment("KUBEX_TESTENV_DIR");
  if (testenv.kubeconfig_.empty()) {
    return std::nullopt;
  }
  return testenv;
}

std::string Testenv::kubectl(const std::string& arguments) const {
  const std::string command = "kubectl --kubeconfig " + shell_quote(kubeconfig_) + " " + arguments;
  auto result = run_command(command);
  if (result.exit_code != 0) {
    throw std::runtime_error(command + ": exit status " + std::to_string(result.exit_code) +
                             "; output: " + result.output);
  }
  return std::move(result.output);
}

std::string Testenv::create_token(const std::string& service_account,
                                  const std::string& namespace_name) const {
  std::string token = kubectl("create token " + shell_quote(service_account) + " -n " +
                              shell_quote(namespace_name) + " --duration 10m");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) {
    token.pop_back();
  }
  record_secret(token);
  return token;
}

void Testenv::run_testenv(const std::string& arguments) const {
  if (binary_.empty()) {
    throw std::runtime_error(
        "KUBEX_TESTENV_BIN is not set; run the tests through scripts/with-testenv.sh");
  }
  const std::string command = shell_quote(binary_) + " " + arguments;
  const auto result = run_command(command + " 2>&1");
  if (result.exit_code != 0) {
    throw std::runtime_error(command + ": exit status " + std::to_string(result.exit_code) +
                             "; output: " + result.output);
  }
}

void Testenv::seed(const std::string& namespace_name, std::size_t pods) const {
  run_testenv("seed --kubeconfig " + shell_quote(kubeconfig_) + " --namespace " +
              shell_quote(namespace_name) + " --pods " + std::to_string(pods) +
              " --log-emitter=false");
}

void Testenv::restart_apiserver(const std::string& signal) const {
  if (directory_.empty()) {
    throw std::runtime_error(
        "KUBEX_TESTENV_DIR is not set; run the tests through scripts/with-testenv.sh");
  }
  run_testenv("ctl --dir " + shell_quote(directory_) + " --signal " + shell_quote(signal) +
              " apiserver-restart");
}

void Testenv::compact_etcd() const {
  if (directory_.empty()) {
    throw std::runtime_error(
        "KUBEX_TESTENV_DIR is not set; run the tests through scripts/with-testenv.sh");
  }
  run_testenv("ctl --dir " + shell_quote(directory_) + " etcd-compact");
}

std::string unique_namespace_name(std::string_view prefix) {
  std::string name;
  for (const char c : prefix.substr(0, 36)) {
    const auto u = static_cast<unsigned char>(c);
    name += std::isalnum(u) != 0 ? static_cast<char>(std::tolower(u)) : '-';
  }
  while (!name.empty() && name.back() == '-') {
    name.pop_back();
  }
  if (name.empty() || std::isalpha(static_cast<unsigned char>(name.front())) == 0) {
    name.insert(0, "ns-");
  }
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", random() & 0xffffffU);
  return name + "-" + std::to_string(::getpid()) + "-" + suffix;
}

ScopedNamespace::ScopedNamespace(const Testenv& testenv, std::string_view prefix)
    : testenv_(testenv), name_(unique_namespace_name(prefix)) {
  testenv_.kubectl("create namespace " + shell_quote(name_) + " >/dev/null");
}

ScopedNamespace::~ScopedNamespace() {
  try {
    testenv_.kubectl("delete namespace " + shell_quote(name_) + " --wait=false >/dev/null");
  } catch (const std::exception& e) {
    std::cerr << "warning: cannot delete namespace " << name_ << ": " << e.what() << '\n';
  }
}

}  // namespace kubex::testing
