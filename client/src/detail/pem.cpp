// SPDX-License-Identifier: Apache-2.0
#include "detail/pem.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <limits>
#include <memory>
#include <string_view>
#include <vector>

namespace kubex::client::detail {
namespace {

struct BioFree {
  void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr memory_bio(std::string_view data) {
  if (data.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return nullptr;
  }
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

// OpenSSL's default passphrase callback reads from the terminal; refusing keeps a library call
// from ever blocking on stdin.
int no_passphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*userdata*/) {
  return 0;
}

}  // namespace

std::vector<X509Ptr> read_pem_certificates(std::string_view pem) {
  std::vector<X509Ptr> certs;
  const auto bio = memory_bio(pem);
  if (!bio) {
    return certs;
  }
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr)) {
    certs.emplace_back(cert);
  }
  // Reaching the end of the text reports "no start line"; anything else is a broken block.
  const unsigned long last = ERR_peek_last_error();
  const bool clean_end = last == 0 || (ERR_GET_LIB(last) == ERR_LIB_PEM &&
                                       ERR_GET_REASON(last) == PEM_R_NO_START_LINE);
  ERR_clear_error();
  if (!clean_end) {
    certs.clear();
  }
  return certs;
}

PkeyPtr read_pem_private_key(std::string_view pem) {
  const auto bio = memory_bio(pem);
  if (!bio) {
    return nullptr;
  }
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  ERR_clear_error();
  return key;
}

bool key_matches_certificate(X509* cert, EVP_PKEY* key) noexcept {
  const bool matches = X509_check_private_key(cert, key) == 1;
  ERR_clear_error();
  return matches;
}

}  // namespace kubex::client::detail
