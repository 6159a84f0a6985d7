// SPDX-License-Identifier: Apache-2.0
#include "detail/retry.hpp"

#include "detail/text.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/system/error_code.hpp>

#include <algorithm>
#include <array>
#include <charconv>

namespace kubex::client::detail {

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds cap,
                 std::uint_fast32_t seed)
    : initial_(std::max(initial, std::chrono::milliseconds(1))),
      cap_(std::max(cap, initial_)),
      random_(seed) {}

std::chrono::milliseconds Backoff::delay(int retry) {
  long long bound = initial_.count();
  for (int i = 0; i < retry && bound < cap_.count(); ++i) {
    bound *= 2;
  }
  bound = std::min(bound, static_cast<long long>(cap_.count()));
  std::uniform_int_distribution<long long> jitter(bound / 2, bound);
  return std::chrono::milliseconds(jitter(random_));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  value = trim_space(value);
  unsigned long seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc{} || end != value.data() + value.size() || value.empty()) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(std::min<unsigned long>(seconds, 86400UL) * 1000UL);
}

std::optional<std::chrono::milliseconds> response_retry_delay(const RetryPolicy& policy,
                                                              Backoff& backoff, unsigned status,
                                                              std::string_view retry_after,
                                                              int retries) {
  const auto asked = parse_retry_after(retry_after);
  const bool busy = status == 429;
  const bool unavailable = (status == 503 || status == 504) && asked;
  if ((!busy && !unavailable) || retries >= policy.max_retries) {
    return std::nullopt;
  }
  auto delay = backoff.delay(retries);
  if (asked) {
    delay = std::max(delay, std::min(*asked, policy.max_retry_after));
  }
  return delay;
}

bool is_transient_transport_error(const std::error_code& code) noexcept {
  namespace error = boost::asio::error;
  // The transport reports Asio's codes converted to std::error_code (their categories kept).
  static const std::array<std::error_code, 7> transient = {
      std::error_code(boost::system::error_code(error::connection_refused)),
      std::error_code(boost::system::error_code(error::connection_reset)),
      std::error_code(boost::system::error_code(error::connection_aborted)),
      std::error_code(boost::system::error_code(error::broken_pipe)),
      std::error_code(boost::system::error_code(error::not_connected)),
      std::error_code(boost::system::error_code(error::eof)),
      std::error_code(boost::system::error_code(boost::asio::ssl::error::stream_truncated)),
  };
  return std::find(transient.begin(), transient.end(), code) != transient.end();
}

}  // namespace kubex::client::detail
