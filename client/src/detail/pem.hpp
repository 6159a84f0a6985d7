// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal: PEM parsing shared by the kubeconfig loader (to name the bad field early) and the
// HTTPS transport (to build the TLS context). Never installed.

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string_view>
#include <vector>

namespace kubex::client::detail {

/// Releases an X509 reference.
struct X509Free {
  void operator()(X509* cert) const noexcept { X509_free(cert); }
};
/// Releases an EVP_PKEY reference.
struct PkeyFree {
  void operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
};
/// Owning X509 pointer.
using X509Ptr = std::unique_ptr<X509, X509Free>;
/// Owning EVP_PKEY pointer.
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

/// Parses every certificate of a PEM bundle. Returns an empty vector if the text holds no
/// certificate or a malformed one. Leaves the OpenSSL error queue empty.
[[nodiscard]] std::vector<X509Ptr> read_pem_certificates(std::string_view pem);

/// Parses the first private key (PKCS#8, PKCS#1 or SEC1) of a PEM text. Returns nullptr if there
/// is none or it is encrypted: kubex never prompts for a passphrase. Leaves the error queue empty.
[[nodiscard]] PkeyPtr read_pem_private_key(std::string_view pem);

/// True if `key` is the private key of `cert`.
[[nodiscard]] bool key_matches_certificate(X509* cert, EVP_PKEY* key) noexcept;

}  // namespace kubex::client::detail
