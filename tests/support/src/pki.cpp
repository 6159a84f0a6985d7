// SPDX-License-Identifier: Apache-2.0
#include <kubex/testing/pki.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace kubex::testing {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
  void operator()(X509* p) const noexcept { X509_free(p); }
  void operator()(BIO* p) const noexcept { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const noexcept { X509_EXTENSION_free(p); }
  void operator()(BIGNUM* p) const noexcept { BN_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using X509Ptr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

void check(bool ok, const char* what) {
  if (!ok) {
    throw std::runtime_error(std::string("test PKI: ") + what + " failed");
  }
}

PkeyPtr generate_key(KeyFormat format) {
  PkeyPtr key(format == KeyFormat::rsa_pkcs1 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
  check(key != nullptr, "key generation");
  return key;
}

std::string bio_string(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string certificate_to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert) == 1, "PEM_write_bio_X509");
  return bio_string(bio.get());
}

std::string key_to_pem(EVP_PKEY* key, KeyFormat format) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  const int ok =
      format == KeyFormat::ec_pkcs8
          ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
          : PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                                 nullptr);
  check(ok == 1, "PEM_write_bio_PrivateKey");
  return bio_string(bio.get());
}

void add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  check(X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                   0) == 1,
        "X509_NAME_add_entry_by_txt");
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  check(ext != nullptr, "X509V3_EXT_conf_nid");
  check(X509_add_ext(cert, ext.get(), -1) == 1, "X509_add_ext");
}

// Creates an unsigned certificate for `key`; the issuer name is taken from `issuer`, or the
// subject itself when `issuer` is null (self-signed).
X509Ptr make_certificate(EVP_PKEY* key, const std::string& common_name,
                         const std::string& organization, X509* issuer) {
  X509Ptr cert(X509_new());
  check(cert != nullptr, "X509_new");
  check(X509_set_version(cert.get(), 2) == 1, "X509_set_version");

  std::unique_ptr<BIGNUM, Free> serial(BN_new());
  check(serial && BN_rand(serial.get(), 64, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1, "BN_rand");
  check(BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) != nullptr,
        "serial number");

  check(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr, "notBefore");
  check(X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24L * 3600) != nullptr, "notAfter");
  check(X509_set_pubkey(cert.get(), key) == 1, "X509_set_pubkey");

  X509_NAME* subject = X509_get_subject_name(cert.get());
  if (!organization.empty()) {
    add_name_entry(subject, "O", organization);
  }
  add_name_entry(subject, "CN", common_name);
  check(X509_set_issuer_name(cert.get(),
                             issuer != nullptr ? X509_get_subject_name(issuer) : subject) == 1,
        "X509_set_issuer_name");
  return cert;
}

void sign(X509* cert, EVP_PKEY* key) {
  check(X509_sign(cert, key, EVP_sha256()) > 0, "X509_sign");
}

}  // namespace

struct TestCa::State {
  PkeyPtr key;
  X509Ptr cert;
  std::string pem;
};

TestCa::TestCa(const std::string& common_name) : state_(std::make_unique<State>()) {
  state_->key = generate_key(KeyFormat::ec_pkcs8);
  state_->cert = make_certificate(state_->key.get(), common_name, "", nullptr);
  X509* cert = state_->cert.get();
  add_extension(cert, cert, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_extension(cert, cert, NID_subject_key_identifier, "hash");
  sign(cert, state_->key.get());
  state_->pem = certificate_to_pem(cert);
}

TestCa::~TestCa() = default;

const std::string& TestCa::certificate_pem() const noexcept {
  return state_->pem;
}

KeyPair TestCa::issue(const CertificateSpec& spec) const {
  const auto key = generate_key(spec.key_format);
  auto cert = make_certificate(key.get(), spec.common_name, spec.organization, state_->cert.get());
  add_extension(cert.get(), state_->cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), state_->cert.get(), NID_key_usage,
                "critical,digitalSignature,keyEncipherment");
  add_extension(cert.get(), state_->cert.get(), NID_ext_key_usage,
                spec.client ? "clientAuth" : "serverAuth");
  add_extension(cert.get(), state_->cert.get(), NID_authority_key_identifier, "keyid:always");
  std::string sans;
  for (const auto& dns : spec.dns_names) {
    sans += (sans.empty() ? "" : ",") + std::string("DNS:") + dns;
  }
  for (const auto& ip : spec.ip_addresses) {
    sans += (sans.empty() ? "" : ",") + std::string("IP:") + ip;
  }
  if (!sans.empty()) {
    add_extension(cert.get(), state_->cert.get(), NID_subject_alt_name, sans);
  }
  sign(cert.get(), state_->key.get());
  return KeyPair{certificate_to_pem(cert.get()), key_to_pem(key.get(), spec.key_format)};
}

std::string base64_encode(const std::string& data) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto byte = [&](std::size_t i) -> unsigned {
    return i < data.size() ? static_cast<unsigned char>(data[i]) : 0U;
  };
  std::string out;
  for (std::size_t i = 0; i < data.size(); i += 3) {
    const unsigned n = (byte(i) << 16U) | (byte(i + 1) << 8U) | byte(i + 2);
    const std::size_t available = data.size() - i;
    out += alphabet[(n >> 18U) & 63U];
    out += alphabet[(n >> 12U) & 63U];
    out += available > 1 ? alphabet[(n >> 6U) & 63U] : '=';
    out += available > 2 ? alphabet[n & 63U] : '=';
  }
  return out;
}

}  // namespace kubex::testing
