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
                 std::uint64_t seed)
    : kubex::Backoff(
          [&] {
            kubex::BackoffPolicy policy;
            policy.initial = std::max(initial, std::chrono::milliseconds(1));
            policy.max = std::max(cap, policy.initial);
            policy.factor = 2.0;
            policy.jitter = -0.5;  // (b/2, b]
            return policy;
          }(),
          seed) {}

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

RequestRetries::RequestRetries(const RetryPolicy& policy, Backoff& backoff, bool read,
                               bool streaming, Clock::time_point deadline) noexcept
    : policy_(policy), backoff_(backoff), read_(read), streaming_(streaming), deadline_(deadline) {}

RetryDecision RequestRetries::after_failure(const AttemptFailure& failure, Clock::time_point now) {
  using Action = RetryDecision::Action;
  if (failure.refused && !failure.timed_out && refusals_ < max_refusals) {
    ++refusals_;
    return {Action::retry_now, {}};
  }
  // A pooled connection the server closed while idle fails before any answer: one more try.
  if (failure.reused && failure.code && !failure.received && !failure.timed_out && read_ &&
      !retried_stale_) {
    retried_stale_ = true;
    return {Action::retry_now, {}};
  }
  // The connection failed before the caller saw any of the answer: a whole response is
  // delivered only complete, a stream once its head is in.
  if (failure.code && (!failure.received || !streaming_) && !failure.timed_out &&
      !failure.protocol_error && read_ && transport_retries_ < policy_.max_transport_retries &&
      is_transient_transport_error(failure.code)) {
    return wait(backoff_.delay(transport_retries_), transport_retries_, now);
  }
  return {};
}

RetryDecision RequestRetries::after_response(unsigned status, std::string_view retry_after,
                                             Clock::time_point now) {
  const auto delay =
      response_retry_delay(policy_, backoff_, status, retry_after, response_retries_);
  if (!delay) {
    return {};
  }
  // Without time to wait, the caller gets the server's answer while there is time to act.
  return wait(*delay, response_retries_, now);
}

RetryDecision RequestRetries::wait(std::chrono::milliseconds delay, int& counter,
                                   Clock::time_point now) {
  if (!streaming_ && now + delay > deadline_) {
    return {};
  }
  ++counter;
  return {RetryDecision::Action::retry_after, delay};
}

}  // namespace kubex::client::detail
