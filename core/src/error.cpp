// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>

#include <string>

namespace kubex {
namespace {

class category final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "kubex"; }

  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_config:
        return "invalid configuration";
      case errc::invalid_path:
        return "invalid request path";
      case errc::invalid_url:
        return "invalid URL";
      case errc::tls_verification_failed:
        return "TLS certificate verification failed";
      case errc::invalid_quantity:
        return "invalid quantity";
      case errc::invalid_json:
        return "invalid JSON";
      case errc::invalid_argument:
        return "invalid argument";
      case errc::invalid_protobuf:
        return "invalid protobuf";
    }
    return "unknown kubex error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const category instance;
  return instance;
}

std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

Error::Error(std::error_code code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

ConfigError::ConfigError(const std::string& message) : Error(errc::invalid_config, message) {}

}  // namespace kubex
