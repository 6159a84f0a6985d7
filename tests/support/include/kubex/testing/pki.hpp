// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace kubex::testing {

/// A certificate and its private key, both PEM.
struct KeyPair {
  /// PEM certificate.
  std::string certificate_pem{};
  /// PEM private key (PKCS#8 unless a traditional format was asked for).
  std::string key_pem{};
};

/// Which private key algorithm and PEM encoding to generate.
enum class KeyFormat {
  ec_pkcs8,  ///< P-256, "BEGIN PRIVATE KEY"
  ec_sec1,   ///< P-256, "BEGIN EC PRIVATE KEY"
  rsa_pkcs1  ///< RSA 2048, "BEGIN RSA PRIVATE KEY"
};

/// What to put into an issued certificate.
struct CertificateSpec {
  /// Subject common name.
  std::string common_name{};
  /// Subject organization (Kubernetes reads it as the group); empty for none.
  std::string organization{};
  /// DNS subject alternative names.
  std::vector<std::string> dns_names{};
  /// IP subject alternative names, e.g. "127.0.0.1".
  std::vector<std::string> ip_addresses{};
  /// Client authentication certificate instead of a server certificate.
  bool client = false;
  /// Key algorithm and encoding.
  KeyFormat key_format = KeyFormat::ec_pkcs8;
};

/// A throwaway certificate authority generated in memory, for tests only.
class TestCa {
 public:
  /// Generates a self-signed CA certificate with a fresh P-256 key.
  explicit TestCa(const std::string& common_name);
  ~TestCa();
  TestCa(const TestCa&) = delete;
  TestCa& operator=(const TestCa&) = delete;

  /// The CA certificate, PEM.
  [[nodiscard]] const std::string& certificate_pem() const noexcept;
  /// Issues a leaf certificate signed by this CA, valid for one day.
  [[nodiscard]] KeyPair issue(const CertificateSpec& spec) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Standard base64 with padding, for writing kubeconfig `*-data` fields in tests.
[[nodiscard]] std::string base64_encode(const std::string& data);

}  // namespace kubex::testing
