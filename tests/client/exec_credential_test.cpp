// SPDX-License-Identifier: Apache-2.0
// run_exec_plugin with real processes: small shell scripts written by the tests stand for the
// plugins (as cloud CLIs are in real kubeconfigs). The transport's use of the plugin against the
// real apiserver is in tests/integration/https_test.cpp.
#include <kubex/client/exec_credential.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/temp_dir.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using kubex::client::ClientConfig;
using kubex::client::ExecConfig;
using kubex::client::run_exec_plugin;
using kubex::testing::TempDir;

constexpr std::string_view secret = "s3cr3t-exec-T0KEN";

class exec_credential_test : public ::testing::Test {
 protected:
  // A config whose plugin is a shell script with `body`.
  ClientConfig with_plugin(const std::string& body,
                           const std::string& api_version = "client.authentication.k8s.io/v1") {
    const auto script = dir_.write("plugin.sh", "#!/bin/sh\n" + body);
    ::chmod(script.c_str(), 0700);
    ClientConfig config;
    config.source = "kubeconfig /k";
    config.user_name = "me";
    config.server = kubex::parse_server_url("https://10.0.0.1:6443/prefix");
    config.certificate_authority_pem = "CA PEM";
    config.tls_server_name = "api.example";
    config.exec = ExecConfig{.command = script.string(),
                             .args = {"--flag", "two words"},
                             .env = {{"PLUGIN_MODE", "test"}},
                             .api_version = api_version,
                             .install_hint = "Install it with: apt install plugin",
                             .provide_cluster_info = false,
                             .interactive_mode = "Never"};
    return config;
  }

  std::string read(const std::string& name) const {
    std::ifstream in(dir_.path() / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Runs the plugin, expects an error and returns its message, checking no secret leaked.
  static std::string error(const ClientConfig& config,
                           std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    try {
      (void)run_exec_plugin(config, timeout);
    } catch (const kubex::Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), kubex::errc::invalid_config);
      EXPECT_EQ(message.find(secret), std::string::npos) << message;
      return message;
    }
    return "no error";
  }

  std::string prefix(const ClientConfig& c) const {
    return "exec plugin \"" + c.exec->command + "\" of kubeconfig /k users[me]: ";
  }

  TempDir dir_;
};

TEST_F(exec_credential_test, token_with_expiry_and_what_the_plugin_sees) {
  auto config = with_plugin(
      "printf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args\"\n"
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/info\"\n"
      "printf '%s' \"$PLUGIN_MODE\" > \"$(dirname \"$0\")/env\"\n"
      "if read -r line; then echo open; else echo closed; fi > \"$(dirname \"$0\")/stdin\"\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"" +
      std::string(secret) + "\",\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}'\n");
  const auto credential = run_exec_plugin(config);
  EXPECT_EQ(credential.token, secret);
  ASSERT_TRUE(credential.expiration.has_value());
  EXPECT_EQ(credential.expiration->format(), "2030-01-02T03:04:05Z");
  EXPECT_TRUE(credential.client_certificate_pem.empty());
  EXPECT_EQ(read("args"), "--flag\ntwo words\n");
  EXPECT_EQ(read("env"), "test");
  EXPECT_EQ(read("stdin"), "closed\n");  // never interactive
  EXPECT_EQ(read("info"),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"interactive":false}})");

  config.exec->provide_cluster_info = true;
  (void)run_exec_plugin(config);
  EXPECT_EQ(read("info"),
            R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
            R"("spec":{"interactive":false,"cluster":{"server":"https://10.0.0.1:6443/prefix",)"
            R"("tls-server-name":"api.example","insecure-skip-tls-verify":false,)"
            R"("certificate-authority-data":"Q0EgUEVN"}}})");
}

TEST_F(exec_credential_test, client_certificate) {
  const auto config = with_plugin(
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"clientCertificateData\":\"CERT\\\\n\",\"clientKeyData\":\"KEY\\\\n\"}}'\n",
      "client.authentication.k8s.io/v1beta1");
  const auto credential = run_exec_plugin(config);
  EXPECT_TRUE(credential.token.empty());
  EXPECT_EQ(credential.client_certificate_pem, "CERT\n");
  EXPECT_EQ(credential.client_key_pem, "KEY\n");
  EXPECT_FALSE(credential.expiration.has_value());
}

TEST_F(exec_credential_test, failures_are_named_and_output_never_quoted) {
  const std::string v1 =
      R"("apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential")";
  auto c = with_plugin("echo " + std::string(secret) + "; exit 3\n");
  EXPECT_EQ(error(c), prefix(c) + "exited with status 3");
  c = with_plugin("echo '{\"token\": \"" + std::string(secret) + "\"'\n");
  EXPECT_EQ(error(c).rfind(prefix(c) + "printed no valid ExecCredential: ", 0), 0U) << error(c);
  c = with_plugin("echo '{" + v1 + "}'\n");
  EXPECT_EQ(error(c), prefix(c) + "printed an ExecCredential without status");
  c = with_plugin("echo '{" + v1 + ",\"status\":{}}'\n");
  EXPECT_EQ(error(c), prefix(c) + "printed neither a token nor a client certificate");
  c = with_plugin("echo '{" + v1 + ",\"status\":{\"clientKeyData\":\"k\"}}'\n");
  EXPECT_EQ(error(c), prefix(c) + "printed only one of clientCertificateData and clientKeyData");
  c = with_plugin("echo '{" + v1 + ",\"status\":{\"token\":\"a\\\\nb\"}}'\n");
  EXPECT_EQ(error(c), prefix(c) + "printed a token with control characters");
  c = with_plugin(
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"t\"}}'\n");
  EXPECT_EQ(error(c), prefix(c) +
                          "printed apiVersion \"client.authentication.k8s.io/v1beta1\", but the "
                          "kubeconfig asks for \"client.authentication.k8s.io/v1\"");
  c = with_plugin("sleep 5\n");
  EXPECT_EQ(error(c, std::chrono::milliseconds(200)), prefix(c) + "timed out after 200 ms");
  c = with_plugin("head -c 2000000 /dev/zero\n");
  EXPECT_EQ(error(c), prefix(c) + "printed more than 1 MiB");
  c = with_plugin("kill -9 $$\n");
  EXPECT_EQ(error(c), prefix(c) + "killed by signal 9");
  c = with_plugin("");
  c.exec->command = (dir_.path() / "no-such-plugin").string();
  EXPECT_EQ(error(c), prefix(c) +
                          "cannot start: No such file or directory. Install it with: apt install "
                          "plugin");
}

}  // namespace
