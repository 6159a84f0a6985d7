// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>

namespace kubex {

/// Error codes raised by kubex itself. Failures of the network or TLS stack keep their
/// original Asio/Beast/OpenSSL code; these cover what kubex decides on its own.
enum class errc {
  /// A kubeconfig or client configuration is unusable (missing field, bad base64, bad PEM...).
  invalid_config = 1,
  /// A request path, or a name or namespace used to build one, cannot be put into a URL.
  invalid_path,
  /// A server URL (kubeconfig `server`) is malformed or uses an unsupported scheme.
  invalid_url,
  /// The server's TLS certificate did not verify against the configured CA or host name.
  tls_verification_failed,
  /// A resource quantity (such as "500m" or "1Gi") is malformed or cannot be represented.
  invalid_quantity,
  /// JSON is malformed or does not fit the model it is decoded into, or cannot be encoded.
  invalid_json,
  /// An option or argument of a call is invalid (a malformed label selector, options the API
  /// does not allow together); raised before anything is sent.
  invalid_argument,
  /// A Kubernetes protobuf body (its envelope, a watch frame or the wire format) is malformed.
  invalid_protobuf,
};

/// The category of kubex::errc codes; its name is "kubex".
KUBEX_API const std::error_category& error_category() noexcept;

/// Makes `e` usable as a std::error_code (found by argument-dependent lookup).
KUBEX_API std::error_code make_error_code(errc e) noexcept;

/// Base class of every exception kubex throws. `what()` is the full, human-readable message;
/// `code()` tells programs what went wrong. Messages never contain tokens or key material.
class KUBEX_API Error : public std::runtime_error {
 public:
  /// Creates an error with the given code and complete message.
  Error(std::error_code code, const std::string& message);

  /// The machine-readable cause: a kubex::errc or a code from the transport stack.
  [[nodiscard]] const std::error_code& code() const noexcept { return code_; }

 private:
  std::error_code code_;
};

/// Thrown when a kubeconfig or client configuration cannot be used. The message names the
/// source and the offending field, e.g. `kubeconfig /p: users[admin].client-key-data: invalid
/// base64`. `code()` is always errc::invalid_config.
class KUBEX_API ConfigError : public Error {
 public:
  /// Creates a configuration error with the complete message.
  explicit ConfigError(const std::string& message);
};

}  // namespace kubex

/// Lets kubex::errc values convert to and compare with std::error_code.
template <>
struct std::is_error_code_enum<kubex::errc> : std::true_type {};
