// SPDX-License-Identifier: Apache-2.0
// Internal: fails an operation at its start without throwing from the initiating function:
// the handler gets the error on its own executor, as co_spawn delivers every other failure.
// Never installed.
#pragma once

#include <kubex/core/error.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/system_executor.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace kubex::client::detail {

/// Completes `handler` (whose result is a Result) with kubex::Error(errc::invalid_argument,
/// `message`).
template <class Result, class Handler>
void refuse(Handler handler, std::string message) {
  boost::asio::co_spawn(
      boost::asio::system_executor(),
      [m = std::move(message)]() -> boost::asio::awaitable<Result> {
        throw Error(errc::invalid_argument, m);
        if constexpr (std::is_void_v<Result>) {
          co_return;
        } else {
          co_return Result{};
        }
      },
      std::move(handler));
}

}  // namespace kubex::client::detail
