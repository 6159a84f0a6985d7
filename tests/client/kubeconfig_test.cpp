// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/testing/pki.hpp>
#include <kubex/testing/scoped_env.hpp>
#include <kubex/testing/temp_dir.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using kubex::client::ClientConfig;
using kubex::client::KubeconfigOptions;
using kubex::client::load_kubeconfig;
using kubex::client::parse_kubeconfig;
using kubex::testing::base64_encode;
using kubex::testing::ScopedEnv;
using kubex::testing::TempDir;

// Marked values that must never show up in an error message.
constexpr std::string_view secret_token = "s3cr3t-T0KEN-do-not-print";

constexpr std::string_view standard_template = R"(apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: testenv
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: @CA@
contexts:
- name: admin
  context:
    cluster: testenv
    user: admin
- name: admin-cert
  context:
    cluster: testenv
    user: admin-cert
- name: user
  context:
    cluster: testenv
    user: kubex-user
    namespace: kubex-user
users:
- name: admin
  user:
    token: @TOKEN@
- name: admin-cert
  user:
    client-certificate-data: @CERT@
    client-key-data: @KEY@
- name: kubex-user
  user:
    token: user-token
)";

struct Pki {
  kubex::testing::TestCa ca{"kubex-test-ca"};
  kubex::testing::KeyPair client = ca.issue(
      {.common_name = "kubex-admin-cert", .organization = "system:masters", .client = true});
  kubex::testing::KeyPair other_client = ca.issue({.common_name = "other", .client = true});
};

// Replaces every occurrence of `from` in `text`.
std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

class kubeconfig_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pki_ = std::make_unique<Pki>(); }
  static void TearDownTestSuite() { pki_.reset(); }

  static const Pki& pki() { return *pki_; }

  // A kubeconfig shaped like the one tools/testenv writes, with placeholders filled in.
  static std::string standard_kubeconfig() {
    std::string yaml(standard_template);
    yaml = replace_all(yaml, "@CA@", base64_encode(pki().ca.certificate_pem()));
    yaml = replace_all(yaml, "@TOKEN@", secret_token);
    yaml = replace_all(yaml, "@CERT@", base64_encode(pki().client.certificate_pem));
    return replace_all(yaml, "@KEY@", base64_encode(pki().client.key_pem));
  }

  ClientConfig load(const std::string& yaml, const std::string& context = {}) const {
    const auto path = dir_.write("kubeconfig", yaml);
    return load_kubeconfig(path, KubeconfigOptions{.context = context});
  }

  // Loads `yaml`, expects a ConfigError and returns its message after checking that no secret
  // leaked into it.
  std::string load_error(const std::string& yaml, const std::string& context = {}) const {
    try {
      (void)load(yaml, context);
    } catch (const kubex::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), kubex::errc::invalid_config);
      EXPECT_EQ(message.find(secret_token), std::string::npos) << message;
      EXPECT_EQ(message.find("PRIVATE KEY"), std::string::npos) << message;
      EXPECT_EQ(message.find(base64_encode(pki().client.key_pem).substr(0, 24)), std::string::npos)
          << message;
      EXPECT_EQ(message.rfind(prefix(), 0), 0U) << message;
      return message.substr(prefix().size());
    }
    ADD_FAILURE() << "no ConfigError thrown";
    return {};
  }

  std::string prefix() const {
    return "kubeconfig " + (dir_.path() / "kubeconfig").string() + ": ";
  }

  TempDir dir_;

 private:
  static std::unique_ptr<Pki> pki_;
};

std::unique_ptr<Pki> kubeconfig_test::pki_;

TEST_F(kubeconfig_test, current_context_with_token) {
  const auto config = load(standard_kubeconfig());
  EXPECT_EQ(config.source, "kubeconfig " + (dir_.path() / "kubeconfig").string());
  EXPECT_EQ(config.context_name, "admin");
  EXPECT_EQ(config.cluster_name, "testenv");
  EXPECT_EQ(config.user_name, "admin");
  EXPECT_EQ(config.server.host, "127.0.0.1");
  EXPECT_EQ(config.server.port, 6443);
  EXPECT_EQ(config.certificate_authority_pem, pki().ca.certificate_pem());
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.token, secret_token);
  EXPECT_TRUE(config.client_certificate_pem.empty());
  EXPECT_TRUE(config.client_key_pem.empty());
  EXPECT_EQ(config.namespace_name, "default");  // the context sets none
}

TEST_F(kubeconfig_test, explicit_context_with_client_certificate) {
  const auto config = load(standard_kubeconfig(), "admin-cert");
  EXPECT_EQ(config.context_name, "admin-cert");
  EXPECT_EQ(config.user_name, "admin-cert");
  EXPECT_TRUE(config.token.empty());
  EXPECT_EQ(config.client_certificate_pem, pki().client.certificate_pem);
  EXPECT_EQ(config.client_key_pem, pki().client.key_pem);
}

TEST_F(kubeconfig_test, context_namespace) {
  const auto config = load(standard_kubeconfig(), "user");
  EXPECT_EQ(config.namespace_name, "kubex-user");
  EXPECT_EQ(config.token, "user-token");
}

TEST_F(kubeconfig_test, relative_files_resolve_against_the_kubeconfig_directory) {
  dir_.write("pki/ca.crt", pki().ca.certificate_pem());
  dir_.write("pki/client.crt", pki().client.certificate_pem);
  dir_.write("pki/client.key", pki().client.key_pem);
  dir_.write("conf/token", "  file-token\n");
  const auto path = dir_.write("conf/kubeconfig", R"(
current-context: c
clusters:
- name: k
  cluster:
    server: https://localhost:6443
    certificate-authority: ../pki/ca.crt
users:
- name: u
  user:
    client-certificate: ../pki/client.crt
    client-key: ../pki/client.key
    tokenFile: token
contexts:
- name: c
  context: {cluster: k, user: u}
)");
  // The working directory must not matter.
  const auto config = load_kubeconfig(path);
  EXPECT_EQ(config.certificate_authority_pem, pki().ca.certificate_pem());
  EXPECT_EQ(config.client_certificate_pem, pki().client.certificate_pem);
  EXPECT_EQ(config.client_key_pem, pki().client.key_pem);
  EXPECT_EQ(config.token, "file-token");  // trimmed
  EXPECT_EQ(config.token_file, (dir_.path() / "conf/token").lexically_normal());
}

TEST_F(kubeconfig_test, absolute_file_paths) {
  const auto ca = dir_.write("elsewhere/ca.pem", pki().ca.certificate_pem());
  const auto config = load(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://k:1", certificate-authority: ")" +
                           ca.string() + R"("}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  EXPECT_EQ(config.certificate_authority_pem, pki().ca.certificate_pem());
  EXPECT_TRUE(config.user_name.empty());  // no user: anonymous
}

TEST_F(kubeconfig_test, data_takes_precedence_over_files) {
  const auto config = load(R"(
current-context: c
clusters:
- name: k
  cluster:
    server: https://k:1
    certificate-authority: /does/not/exist/ca.crt
    certificate-authority-data: )" +
                           base64_encode(pki().ca.certificate_pem()) + R"(
users:
- name: u
  user:
    client-certificate: /does/not/exist/client.crt
    client-certificate-data: )" +
                           base64_encode(pki().client.certificate_pem) + R"(
    client-key: /does/not/exist/client.key
    client-key-data: )" + base64_encode(pki().client.key_pem) +
                           R"(
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  EXPECT_EQ(config.certificate_authority_pem, pki().ca.certificate_pem());
  EXPECT_EQ(config.client_key_pem, pki().client.key_pem);
}

TEST_F(kubeconfig_test, token_takes_precedence_over_token_file) {
  const auto config = load(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://k:1"}}]
users: [{name: u, user: {token: inline, tokenFile: /does/not/exist}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  EXPECT_EQ(config.token, "inline");
  EXPECT_TRUE(config.token_file.empty());  // nothing to re-read: the inline token stays
}

TEST_F(kubeconfig_test, tls_settings) {
  const auto config = load(R"(
current-context: c
clusters:
- name: k
  cluster:
    server: https://[::1]:6443/prefix/
    insecure-skip-tls-verify: yes
    tls-server-name: kubernetes
contexts: [{name: c, context: {cluster: k}}]
)");
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.tls_server_name, "kubernetes");
  EXPECT_EQ(config.server.host, "::1");
  EXPECT_EQ(config.server.base_path, "/prefix");
  EXPECT_TRUE(config.certificate_authority_pem.empty());
}

TEST_F(kubeconfig_test, key_formats) {
  for (const auto format :
       {kubex::testing::KeyFormat::ec_sec1, kubex::testing::KeyFormat::rsa_pkcs1}) {
    const auto pair = pki().ca.issue({.common_name = "fmt", .client = true, .key_format = format});
    const auto config = load(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://k:1"}}]
users: [{name: u, user: {client-certificate-data: )" +
                             base64_encode(pair.certificate_pem) +
                             ", client-key-data: " + base64_encode(pair.key_pem) + R"(}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
    EXPECT_EQ(config.client_key_pem, pair.key_pem);
  }
}

TEST_F(kubeconfig_test, json_from_memory) {
  const auto config = parse_kubeconfig(
      R"({"current-context": "c",
          "clusters": [{"name": "k", "cluster": {"server": "https://10.0.0.1"}}],
          "contexts": [{"name": "c", "context": {"cluster": "k", "namespace": "ns"}}]})",
      "/base", "test document");
  EXPECT_EQ(config.source, "test document");
  EXPECT_EQ(config.server.port, 443);
  EXPECT_EQ(config.namespace_name, "ns");
}

TEST_F(kubeconfig_test, memory_source_appears_in_errors) {
  try {
    (void)parse_kubeconfig("clusters: 1", "/base", "my config");
    FAIL() << "no exception";
  } catch (const kubex::ConfigError& e) {
    EXPECT_STREQ(e.what(), "my config: clusters: expected a list");
  }
}

// --- bad input: every case names the field and leaks no secret -------------------------------

TEST_F(kubeconfig_test, unreadable_kubeconfig) {
  try {
    (void)load_kubeconfig(dir_.path() / "missing");
    FAIL() << "no exception";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "kubeconfig " + (dir_.path() / "missing").string() +
                                         ": cannot read file: No such file or directory");
  }
}

TEST_F(kubeconfig_test, yaml_syntax_error) {
  const auto message = load_error(
      "users:\n- name: admin\n  user:\n    token: " + std::string(secret_token) + "\n   bad: [\n");
  EXPECT_EQ(message.rfind("invalid YAML at line ", 0), 0U) << message;
}

TEST_F(kubeconfig_test, empty_and_non_mapping_documents) {
  EXPECT_EQ(load_error(""), "document is empty");
  EXPECT_EQ(load_error("- a\n- b\n"), "document is not a mapping");
}

TEST_F(kubeconfig_test, context_selection_errors) {
  const auto base = standard_kubeconfig();
  EXPECT_EQ(load_error(base, "nope"), "contexts: no context named \"nope\"");
  EXPECT_EQ(load_error(replace_all(base, "current-context: admin", "current-context: gone")),
            "current-context: context \"gone\" not found");
  EXPECT_EQ(load_error(replace_all(base, "current-context: admin", "")),
            "current-context: not set and no context was chosen");
  EXPECT_EQ(load_error(replace_all(base, "    cluster: testenv\n    user: admin\n",
                                   "    cluster: elsewhere\n    user: admin\n")),
            "contexts[admin].cluster: cluster \"elsewhere\" not found");
  EXPECT_EQ(load_error(replace_all(base, "    cluster: testenv\n    user: admin\n",
                                   "    cluster: testenv\n    user: nobody\n")),
            "contexts[admin].user: user \"nobody\" not found");
  EXPECT_EQ(
      load_error(replace_all(base, "    cluster: testenv\n    user: admin\n", "    user: admin\n")),
      "contexts[admin].cluster: missing");
}

TEST_F(kubeconfig_test, structure_errors) {
  const auto base = standard_kubeconfig();
  EXPECT_EQ(load_error("clusters: {a: b}\n"), "clusters: expected a list");
  EXPECT_EQ(load_error("contexts:\n- context: {cluster: k}\n"), "contexts[0].name: missing");
  EXPECT_EQ(load_error("contexts:\n- just-a-string\n"), "contexts[0]: expected a mapping");
  EXPECT_EQ(load_error(base + "- name: admin\n  user: {}\n"), "users: duplicate name \"admin\"");
  EXPECT_EQ(
      load_error(replace_all(base, "    server: https://127.0.0.1:6443\n", "    server: [a, b]\n")),
      "clusters[testenv].server: expected a string");
}

TEST_F(kubeconfig_test, server_errors) {
  const auto base = standard_kubeconfig();
  EXPECT_EQ(load_error(replace_all(base, "    server: https://127.0.0.1:6443\n", "")),
            "clusters[testenv].server: missing");
  EXPECT_EQ(load_error(replace_all(base, "https://127.0.0.1:6443", "127.0.0.1:6443")),
            "clusters[testenv].server: missing scheme; expected https://host[:port]");
  EXPECT_EQ(load_error(replace_all(base, "https://127.0.0.1:6443",
                                   "https://admin:" + std::string(secret_token) + "@h")),
            "clusters[testenv].server: user information in the URL is not supported");
}

TEST_F(kubeconfig_test, certificate_authority_errors) {
  const auto base = standard_kubeconfig();
  const auto ca_data = base64_encode(pki().ca.certificate_pem());
  EXPECT_EQ(load_error(replace_all(base, ca_data, "not*base64")),
            "clusters[testenv].certificate-authority-data: invalid base64");
  EXPECT_EQ(load_error(replace_all(base, ca_data, base64_encode("just text"))),
            "clusters[testenv].certificate-authority-data: no valid PEM certificate found");
  EXPECT_EQ(load_error(replace_all(base, "certificate-authority-data: " + ca_data,
                                   "certificate-authority: missing/ca.crt")),
            "clusters[testenv].certificate-authority: cannot read \"" +
                (dir_.path() / "missing/ca.crt").string() + "\": No such file or directory");
  EXPECT_EQ(load_error(replace_all(base, "certificate-authority-data: " + ca_data,
                                   "certificate-authority: " + dir_.path().string())),
            "clusters[testenv].certificate-authority: cannot read \"" + dir_.path().string() +
                "\": is a directory");
  EXPECT_EQ(load_error(replace_all(base, "    server: https://127.0.0.1:6443\n",
                                   "    server: https://127.0.0.1:6443\n"
                                   "    insecure-skip-tls-verify: true\n")),
            "clusters[testenv].insecure-skip-tls-verify: cannot be combined with "
            "certificate-authority or certificate-authority-data");
  EXPECT_EQ(load_error(replace_all(base, "    server: https://127.0.0.1:6443\n",
                                   "    server: https://127.0.0.1:6443\n"
                                   "    insecure-skip-tls-verify: maybe\n")),
            "clusters[testenv].insecure-skip-tls-verify: expected true or false");
}

TEST_F(kubeconfig_test, client_certificate_errors) {
  const auto base = standard_kubeconfig();
  const auto cert_data = base64_encode(pki().client.certificate_pem);
  const auto key_data = base64_encode(pki().client.key_pem);
  // Invalid base64 that still contains most of the key: it must not be echoed.
  EXPECT_EQ(
      load_error(replace_all(base, key_data, key_data.substr(0, 40) + "!!" + key_data.substr(40)),
                 "admin-cert"),
      "users[admin-cert].client-key-data: invalid base64");
  EXPECT_EQ(load_error(replace_all(base, key_data, base64_encode("garbage")), "admin-cert"),
            "users[admin-cert].client-key-data: no valid PEM private key found (encrypted keys "
            "are not supported)");
  EXPECT_EQ(load_error(replace_all(base, cert_data, base64_encode("garbage")), "admin-cert"),
            "users[admin-cert].client-certificate-data: no valid PEM certificate found");
  EXPECT_EQ(load_error(replace_all(base, key_data, base64_encode(pki().other_client.key_pem)),
                       "admin-cert"),
            "users[admin-cert].client-key-data: does not match the client certificate");
  EXPECT_EQ(
      load_error(replace_all(base, "    client-key-data: " + key_data + "\n", ""), "admin-cert"),
      "users[admin-cert].client-certificate-data: is set but client-key-data or client-key "
      "is not");
  EXPECT_EQ(load_error(replace_all(base, "    client-certificate-data: " + cert_data + "\n", ""),
                       "admin-cert"),
            "users[admin-cert].client-key-data: is set but client-certificate-data or "
            "client-certificate is not");
  EXPECT_EQ(load_error(replace_all(base, "client-key-data: " + key_data, "client-key: nokey.pem"),
                       "admin-cert"),
            "users[admin-cert].client-key: cannot read \"" + (dir_.path() / "nokey.pem").string() +
                "\": No such file or directory");
}

TEST_F(kubeconfig_test, token_errors) {
  const auto base = standard_kubeconfig();
  EXPECT_EQ(load_error(replace_all(base, "token: " + std::string(secret_token),
                                   "token: \"" + std::string(secret_token) + "\\r\\nX-Evil: 1\"")),
            "users[admin].token: contains control characters");
  EXPECT_EQ(
      load_error(replace_all(base, "token: " + std::string(secret_token), "tokenFile: nofile")),
      "users[admin].tokenFile: cannot read \"" + (dir_.path() / "nofile").string() +
          "\": No such file or directory");
  dir_.write("empty-token", " \n");
  EXPECT_EQ(
      load_error(
          replace_all(base, "token: " + std::string(secret_token), "tokenFile: empty-token")),
      "users[admin].tokenFile: file \"" + (dir_.path() / "empty-token").string() + "\" is empty");
}

TEST_F(kubeconfig_test, disable_compression) {
  EXPECT_FALSE(load(standard_kubeconfig()).disable_compression);
  const auto config =
      load(replace_all(standard_kubeconfig(), "    server: https://127.0.0.1:6443\n",
                       "    server: https://127.0.0.1:6443\n"
                       "    disable-compression: true\n"));
  EXPECT_TRUE(config.disable_compression);
  EXPECT_EQ(load_error(replace_all(standard_kubeconfig(), "    server: https://127.0.0.1:6443\n",
                                   "    server: https://127.0.0.1:6443\n"
                                   "    disable-compression: maybe\n")),
            "clusters[testenv].disable-compression: expected true or false");
}

TEST_F(kubeconfig_test, impersonation) {
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto config =
      load(replace_all(standard_kubeconfig(), token_line,
                       token_line + "    as: jane\n"
                                    "    as-uid: \"1234\"\n"
                                    "    as-groups: [developers, \"system:authenticated\"]\n"
                                    "    as-user-extra:\n"
                                    "      scopes.example.com/team: [blue, green]\n"
                                    "      reason: [\"on call\"]\n"));
  EXPECT_EQ(config.impersonate.user, "jane");
  EXPECT_EQ(config.impersonate.uid, "1234");
  EXPECT_EQ(config.impersonate.groups,
            (std::vector<std::string>{"developers", "system:authenticated"}));
  EXPECT_EQ(config.impersonate.extra,
            (std::map<std::string, std::vector<std::string>>{
                {"reason", {"on call"}}, {"scopes.example.com/team", {"blue", "green"}}}));
  EXPECT_EQ(config.token, secret_token);  // authenticates as admin, acts as jane
  EXPECT_TRUE(load(standard_kubeconfig()).impersonate.user.empty());
}

TEST_F(kubeconfig_test, impersonation_errors) {
  const auto base = standard_kubeconfig();
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto with = [&](const std::string& lines) {
    return load_error(replace_all(base, token_line, token_line + lines));
  };
  EXPECT_EQ(with("    as-groups: [developers]\n"),
            "users[admin].as: missing, but as-uid, as-groups or as-user-extra needs it");
  EXPECT_EQ(with("    as-uid: \"1\"\n"),
            "users[admin].as: missing, but as-uid, as-groups or as-user-extra needs it");
  EXPECT_EQ(with("    as: jane\n    as-groups: developers\n"),
            "users[admin].as-groups: expected a list of strings");
  EXPECT_EQ(with("    as: jane\n    as-groups: [a, [b]]\n"),
            "users[admin].as-groups[1]: expected a non-empty string");
  EXPECT_EQ(with("    as: \"jane\\r\\nX-Evil: 1\"\n"),
            "users[admin].as: contains control characters");
  EXPECT_EQ(with("    as: jane\n    as-user-extra: [a]\n"),
            "users[admin].as-user-extra: expected a mapping");
  EXPECT_EQ(with("    as: jane\n    as-user-extra: {k: v}\n"),
            "users[admin].as-user-extra[k]: expected a list of strings");
  EXPECT_EQ(with("    as: jane\n    as-user-extra: {k: [\"a\\nb\"]}\n"),
            "users[admin].as-user-extra[k][0]: contains control characters");
}

TEST_F(kubeconfig_test, exec_plugin) {
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto config = load(replace_all(standard_kubeconfig(), token_line,
                                       "    exec:\n"
                                       "      apiVersion: client.authentication.k8s.io/v1\n"
                                       "      command: bin/get-token\n"
                                       "      args: [--cluster, prod]\n"
                                       "      env: [{name: REGION, value: eu}, {name: EMPTY}]\n"
                                       "      installHint: install get-token\n"
                                       "      provideClusterInfo: true\n"
                                       "      interactiveMode: Never\n"));
  ASSERT_TRUE(config.exec.has_value());
  EXPECT_EQ(config.exec->command, (dir_.path() / "bin/get-token").string());
  EXPECT_EQ(config.exec->args, (std::vector<std::string>{"--cluster", "prod"}));
  EXPECT_EQ(config.exec->env,
            (std::vector<std::pair<std::string, std::string>>{{"REGION", "eu"}, {"EMPTY", ""}}));
  EXPECT_EQ(config.exec->api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(config.exec->install_hint, "install get-token");
  EXPECT_TRUE(config.exec->provide_cluster_info);
  EXPECT_EQ(config.exec->interactive_mode, "Never");
  EXPECT_TRUE(config.token.empty());

  // A bare name is for PATH; v1beta1 defaults interactiveMode.
  const auto beta = load(replace_all(standard_kubeconfig(), token_line,
                                     "    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
                                     "command: gke-gcloud-auth-plugin}\n"));
  EXPECT_EQ(beta.exec->command, "gke-gcloud-auth-plugin");
  EXPECT_EQ(beta.exec->interactive_mode, "IfAvailable");
  EXPECT_FALSE(load(standard_kubeconfig()).exec.has_value());
}

TEST_F(kubeconfig_test, exec_plugin_errors) {
  const auto base = standard_kubeconfig();
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto with = [&](const std::string& exec) {
    return load_error(replace_all(base, token_line, "    exec: " + exec + "\n"));
  };
  const std::string v1 = "apiVersion: client.authentication.k8s.io/v1";
  EXPECT_EQ(with("{" + v1 + ", interactiveMode: Never}"), "users[admin].exec.command: missing");
  EXPECT_EQ(with("{command: x, interactiveMode: Never}"), "users[admin].exec.apiVersion: missing");
  EXPECT_EQ(with("{command: x, apiVersion: client.authentication.k8s.io/v1alpha1}"),
            "users[admin].exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is not "
            "supported (client.authentication.k8s.io/v1 or v1beta1)");
  EXPECT_EQ(with("{command: x, " + v1 + "}"),
            "users[admin].exec.interactiveMode: missing (required by "
            "client.authentication.k8s.io/v1)");
  EXPECT_EQ(with("{command: x, " + v1 + ", interactiveMode: Always}"),
            "users[admin].exec.interactiveMode: \"Always\" needs a terminal, which kubex never "
            "gives a plugin");
  EXPECT_EQ(with("{command: x, " + v1 + ", interactiveMode: Sometimes}"),
            "users[admin].exec.interactiveMode: \"Sometimes\" is not one of Never, IfAvailable, "
            "Always");
  EXPECT_EQ(with("{command: x, " + v1 + ", interactiveMode: Never, env: [{value: v}]}"),
            "users[admin].exec.env[0].name: missing");
  EXPECT_EQ(with("{command: x, " + v1 + ", interactiveMode: Never, args: a}"),
            "users[admin].exec.args: expected a list of strings");
  EXPECT_EQ(with("[x]"), "users[admin].exec: expected a mapping");
}

TEST_F(kubeconfig_test, basic_credentials_are_read_and_checked) {
  const auto base = standard_kubeconfig();
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto basic =
      replace_all(base, token_line, "    username: admin\n    password: \"pa:ss w0rd\"\n");
  const auto config = load(basic);
  EXPECT_EQ(config.username, "admin");
  EXPECT_EQ(config.password, "pa:ss w0rd");
  EXPECT_TRUE(config.token.empty());

  // client-go refuses two authentication methods; so does kubex, without printing either.
  const auto both = load_error(replace_all(base, token_line, token_line + "    username: a\n"));
  EXPECT_NE(both.find("username/password and a bearer token"), std::string::npos) << both;
  EXPECT_NE(load_error(replace_all(basic, "username: admin", "username: \"ad:min\""))
                .find("must not contain ':'"),
            std::string::npos);
  const auto control = load_error(replace_all(basic, "\"pa:ss w0rd\"", "\"pa\\nss\""));
  EXPECT_NE(control.find("control characters"), std::string::npos) << control;
  EXPECT_EQ(control.find("pa\nss"), std::string::npos) << control;
}

TEST_F(kubeconfig_test, oidc_auth_provider_is_read_and_checked) {
  const auto base = standard_kubeconfig();
  const std::string token_line = "    token: " + std::string(secret_token) + "\n";
  const auto with_provider = [&](const std::string& provider) {
    return replace_all(base, token_line, "    auth-provider:\n" + provider);
  };
  const auto oidc = with_provider(
      "      name: oidc\n      config:\n        client-id: kubex\n"
      "        client-secret: hunter2\n        id-token: ey.x.y\n"
      "        refresh-token: r1\n        idp-issuer-url: https://idp.example/realms/k\n"
      "        extra-scopes: groups, email\n");
  const auto config = load(oidc);
  ASSERT_TRUE(config.oidc);
  EXPECT_EQ(config.oidc->client_id, "kubex");
  EXPECT_EQ(config.oidc->client_secret, "hunter2");
  EXPECT_EQ(config.oidc->id_token, "ey.x.y");
  EXPECT_EQ(config.oidc->refresh_token, "r1");
  EXPECT_EQ(config.oidc->issuer_url, "https://idp.example/realms/k");
  EXPECT_EQ(config.oidc->extra_scopes, (std::vector<std::string>{"groups", "email"}));
  EXPECT_TRUE(config.token.empty());

  EXPECT_NE(load_error(with_provider("      name: gcp\n")).find("\"gcp\" is not supported"),
            std::string::npos);
  EXPECT_NE(load_error(replace_all(oidc, "        client-id: kubex\n", ""))
                .find("auth-provider.config.client-id: missing"),
            std::string::npos);
  const auto plain = load_error(replace_all(oidc, "https://idp.example", "http://idp.example"));
  EXPECT_NE(plain.find("must be an https:// URL"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("hunter2"), std::string::npos) << plain;
  const auto both =
      load_error(replace_all(oidc, "    auth-provider:\n", token_line + "    auth-provider:\n"));
  EXPECT_NE(both.find("use one authentication method"), std::string::npos) << both;
}

TEST_F(kubeconfig_test, proxy_url_is_read_and_checked) {
  const auto base = standard_kubeconfig();
  const auto with_proxy = [&](const std::string& url) {
    return replace_all(base, "    server: https://127.0.0.1:6443\n",
                       "    server: https://127.0.0.1:6443\n    proxy-url: " + url + "\n");
  };
  EXPECT_EQ(load(with_proxy("http://proxy:3128")).proxy_url, "http://proxy:3128");
  EXPECT_EQ(load(with_proxy("socks5://u:p@[::1]:1080")).proxy_url, "socks5://u:p@[::1]:1080");
  const auto error = load_error(with_proxy("ftp://user:hunter2@proxy"));
  EXPECT_NE(error.find("clusters[testenv].proxy-url: invalid proxy URL: scheme must be"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
}

// --- merged files (KUBECONFIG=a:b), in-cluster, and inference -----------------------------------

TEST_F(kubeconfig_test, merged_files_first_definition_wins) {
  const std::string ca = base64_encode(pki().ca.certificate_pem());
  // a: the cluster, the contexts and current-context; b: the users (with a certificate file
  // relative to b's folder), a second cluster of the same name and another current-context.
  const auto a = dir_.write("a/config", R"(clusters:
- name: testenv
  cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: )" +
                                            ca + R"(}
contexts:
- name: admin
  context: {cluster: testenv, user: admin, namespace: team-a}
- name: admin-cert
  context: {cluster: testenv, user: admin-cert}
current-context: admin
)");
  dir_.write("b/certs/client.crt", pki().client.certificate_pem);
  dir_.write("b/certs/client.key", pki().client.key_pem);
  const auto b = dir_.write("b/config", R"(clusters:
- name: testenv
  cluster: {server: "https://10.0.0.1:6443"}
users:
- name: admin
  user: {token: )" + std::string(secret_token) +
                                            R"(}
- name: admin-cert
  user: {client-certificate: certs/client.crt, client-key: certs/client.key}
current-context: admin-cert
)");
  const auto empty = dir_.write("empty", "");
  const auto missing = dir_.path() / "missing";
  const auto config = kubex::client::load_kubeconfig_files({missing, a, empty, b, a});
  EXPECT_EQ(config.context_name, "admin");     // a's current-context
  EXPECT_EQ(config.server.host, "127.0.0.1");  // a's cluster, not b's
  EXPECT_EQ(config.namespace_name, "team-a");
  EXPECT_EQ(config.token, secret_token);  // from b
  EXPECT_EQ(config.source, "kubeconfig " + a.string() + ":" + empty.string() + ":" + b.string());

  const auto cert = kubex::client::load_kubeconfig_files({a, b}, {.context = "admin-cert"});
  EXPECT_EQ(cert.client_certificate_pem, pki().client.certificate_pem);  // relative to b/

  EXPECT_EQ(kubex::client::split_kubeconfig_env("a::b:"),
            (std::vector<std::filesystem::path>{"a", "b"}));
}

TEST_F(kubeconfig_test, merged_file_errors_name_the_file) {
  const auto a = dir_.write("a", "contexts:\n- name: c\n  context: {cluster: x, user: u}\n");
  const auto b = dir_.write("b",
                            "users:\n- name: u\n  user: {token: [1]}\n"
                            "clusters:\n- name: x\n  cluster: {server: \"https://h\"}\n");
  try {
    (void)kubex::client::load_kubeconfig_files({a, b}, {.context = "c"});
    ADD_FAILURE() << "no error";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kubeconfig " + b.string() + ": users[u].token: expected a string");
  }
  const auto dup = dir_.write("dup", "users:\n- name: u\n- name: u\n");
  try {
    (void)kubex::client::load_kubeconfig_files({a, dup});
    ADD_FAILURE() << "no error";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kubeconfig " + dup.string() + ": users: duplicate name \"u\"");
  }
  try {
    (void)kubex::client::load_kubeconfig_files({a, b});
    ADD_FAILURE() << "no error";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "kubeconfig " + a.string() + ":" + b.string() +
                                         ": current-context: not set and no context was chosen");
  }
  const auto nowhere = dir_.path() / "nowhere";
  try {
    (void)kubex::client::load_kubeconfig_files({nowhere});
    ADD_FAILURE() << "no error";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kubeconfig " + nowhere.string() + ": none of the files exists");
  }
}

TEST_F(kubeconfig_test, in_cluster) {
  dir_.write("sa/token", std::string(secret_token) + "\n");
  dir_.write("sa/ca.crt", pki().ca.certificate_pem());
  dir_.write("sa/namespace", "team-b");
  const kubex::client::InClusterOptions sa{.service_account_dir = dir_.path() / "sa"};
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    EXPECT_TRUE(kubex::client::in_cluster_environment());
    const auto config = kubex::client::incluster_config(sa);
    EXPECT_EQ(config.server.host, "10.96.0.1");
    EXPECT_EQ(config.server.port, 443);
    EXPECT_EQ(config.token, secret_token);
    EXPECT_EQ(config.token_file, dir_.path() / "sa" / "token");
    EXPECT_EQ(config.certificate_authority_pem, pki().ca.certificate_pem());
    EXPECT_EQ(config.namespace_name, "team-b");
  }
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
    const auto config = kubex::client::incluster_config(sa);
    EXPECT_EQ(config.server.host, "fd00:10:96::1");
    EXPECT_EQ(config.server.authority(), "[fd00:10:96::1]:6443");
  }
  const auto error = [&](const kubex::client::InClusterOptions& options) {
    try {
      (void)kubex::client::incluster_config(options);
    } catch (const kubex::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find(secret_token), std::string::npos) << message;
      return message;
    }
    return std::string("no error");
  };
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", std::nullopt);
    EXPECT_FALSE(kubex::client::in_cluster_environment());
    EXPECT_EQ(error(sa),
              "in-cluster configuration: KUBERNETES_SERVICE_HOST is not set (not running in a "
              "pod?)");
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  EXPECT_EQ(error({.service_account_dir = dir_.path() / "none"}),
            "in-cluster configuration: cannot read the service account token \"" +
                (dir_.path() / "none" / "token").string() + "\": No such file or directory");
  dir_.write("bad/token", "t");
  dir_.write("bad/ca.crt", "not a certificate");
  EXPECT_EQ(error({.service_account_dir = dir_.path() / "bad"}),
            "in-cluster configuration: \"" + (dir_.path() / "bad" / "ca.crt").string() +
                "\": no valid PEM certificate found");
  dir_.write("nons/token", "t");
  dir_.write("nons/ca.crt", pki().ca.certificate_pem());
  EXPECT_EQ(
      kubex::client::incluster_config({.service_account_dir = dir_.path() / "nons"}).namespace_name,
      "default");
}

TEST_F(kubeconfig_test, inference_order) {
  const auto file = dir_.write("explicit/config", standard_kubeconfig());
  dir_.write("home/.kube/config",
             replace_all(standard_kubeconfig(), "current-context: admin", "current-context: user"));
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  {
    ScopedEnv kubeconfig("KUBECONFIG", ":" + file.string() + ":");
    ScopedEnv home("HOME", (dir_.path() / "home").string());
    EXPECT_EQ(kubex::client::infer_config().context_name, "admin");  // KUBECONFIG first
    EXPECT_EQ(kubex::client::infer_config({.context = "admin-cert"}).context_name, "admin-cert");
  }
  {
    ScopedEnv kubeconfig("KUBECONFIG", "");
    ScopedEnv home("HOME", (dir_.path() / "home").string());
    EXPECT_EQ(kubex::client::infer_config().context_name, "user");  // then ~/.kube/config
  }
  {
    ScopedEnv kubeconfig("KUBECONFIG", std::nullopt);
    ScopedEnv home("HOME", (dir_.path() / "nohome").string());
    // Then in-cluster; the default service account folder does not exist here.
    try {
      (void)kubex::client::infer_config();
      ADD_FAILURE() << "no error";
    } catch (const kubex::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("in-cluster configuration: cannot read the service "
                                            "account token",
                                            0),
                0U)
          << e.what();
    }
  }
  ScopedEnv kubeconfig("KUBECONFIG", std::nullopt);
  ScopedEnv home("HOME", (dir_.path() / "nohome").string());
  ScopedEnv no_host("KUBERNETES_SERVICE_HOST", std::nullopt);
  try {
    (void)kubex::client::infer_config();
    ADD_FAILURE() << "no error";
  } catch (const kubex::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no Kubernetes configuration found: KUBECONFIG is not set, " +
                  (dir_.path() / "nohome" / ".kube" / "config").string() +
                  " does not exist, and KUBERNETES_SERVICE_HOST is not set (not in a pod)");
  }
}

}  // namespace
