#include <kubex/testing/testenv.hpp>

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
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return result;
  }
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) {
    result.output.append(buffer, n);
  }
  const int status = ::pclose(pipe);
  result.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
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
