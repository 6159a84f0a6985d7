// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/failure.hpp>

#include <exception>
#include <memory>
#include <string>
#include <system_error>

namespace kubex {
namespace {

failure_kind kind_of(const std::error_code& code) noexcept {
  if (code.category() == http_category()) {
    return failure_kind::api;
  }
  if (code.category() == error_category()) {
    switch (static_cast<errc>(code.value())) {
      case errc::invalid_config:
        return failure_kind::config;
      case errc::invalid_json:
      case errc::invalid_protobuf:
        return failure_kind::decode;
      case errc::tls_verification_failed:
        return failure_kind::transport;
      case errc::invalid_path:
      case errc::invalid_url:
      case errc::invalid_quantity:
      case errc::invalid_argument:
        return failure_kind::invalid_argument;
    }
    return failure_kind::other;
  }
  // Everything else comes from the network stack (system, generic, TLS, HTTP parser codes).
  if (code == std::errc::operation_canceled) {
    return failure_kind::canceled;
  }
  if (code == std::errc::message_size) {
    return failure_kind::too_large;  // a stream's item over its limit; TCP never says EMSGSIZE
  }
  return failure_kind::transport;
}

}  // namespace

Failure::Failure(std::exception_ptr error) : error_(std::move(error)) {
  if (!error_) {
    return;
  }
  try {
    std::rethrow_exception(error_);
  } catch (const ApiError& e) {
    // A copy, since whether rethrow_exception hands out the stored object is unspecified.
    api_ = std::make_shared<const ApiError>(e);
    code_ = e.code();
    message_ = e.what();
    kind_ = failure_kind::api;
  } catch (const Error& e) {
    code_ = e.code();
    message_ = e.what();
    kind_ = kind_of(code_);
  } catch (const std::system_error& e) {
    code_ = e.code();
    message_ = e.what();
    kind_ = kind_of(code_);
  } catch (const std::exception& e) {
    message_ = e.what();
    kind_ = failure_kind::other;
  } catch (...) {
    message_ = "unknown exception";
    kind_ = failure_kind::other;
  }
}

void Failure::rethrow() const {
  if (!error_) {
    throw Error(errc::invalid_argument, "Failure::rethrow: there is no failure");
  }
  std::rethrow_exception(error_);
}

unsigned Failure::http_status() const noexcept {
  return kind_ == failure_kind::api && code_.category() == http_category()
             ? static_cast<unsigned>(code_.value())
             : 0U;
}

bool Failure::gone() const noexcept {
  if (api_) {
    return is_gone(*api_);
  }
  return http_status() == 410;
}

bool Failure::retryable() const noexcept {
  switch (kind_) {
    case failure_kind::transport:
      return code_ != errc::tls_verification_failed;
    case failure_kind::api: {
      const unsigned status = http_status();
      if (status == 429 || status == 500 || status == 502 || status == 503 || status == 504) {
        return true;
      }
      return api_ && (is_too_many_requests(*api_) || is_internal_error(*api_) ||
                      is_service_unavailable(*api_) || is_timeout(*api_));
    }
    default:
      return false;
  }
}

std::string_view to_string(failure_kind kind) noexcept {
  switch (kind) {
    case failure_kind::none:
      return "none";
    case failure_kind::canceled:
      return "canceled";
    case failure_kind::transport:
      return "transport";
    case failure_kind::api:
      return "api";
    case failure_kind::decode:
      return "decode";
    case failure_kind::too_large:
      return "too_large";
    case failure_kind::config:
      return "config";
    case failure_kind::invalid_argument:
      return "invalid_argument";
    case failure_kind::other:
      return "other";
  }
  return "unknown";
}

}  // namespace kubex
