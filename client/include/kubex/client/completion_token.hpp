// SPDX-License-Identifier: Apache-2.0
#pragma once

// The completion token an asynchronous operation of kubex uses when it is given none.

#include <boost/asio/use_awaitable.hpp>

namespace kubex::client {

/// The completion token of an asynchronous operation called without one:
/// boost::asio::use_awaitable, so that `co_await pods.async_get("web-0")` works in a coroutine
/// (boost::asio::awaitable). (Boost 1.81's deferred cannot be co_awaited for operations that
/// complete with an exception_ptr and a value, so it is not the default here as in newer Asio.)
using DefaultCompletionToken = boost::asio::use_awaitable_t<>;

}  // namespace kubex::client
