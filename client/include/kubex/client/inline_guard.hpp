// SPDX-License-Identifier: Apache-2.0
#pragma once

// InlineGuard: the one piece that keeps a composed operation from completing inside its
// initiating function (async_next, async_run...), where the caller may hold a lock or expect
// the call to return first. Shared by the client's streams and the runtime's operations.

#include <boost/asio/post.hpp>

#include <utility>

namespace kubex::client {

/// A member of a composed operation's state. Until the operation has waited for something (a
/// read, a request, a timer), completing it would run the handler inside the initiating
/// function; the operation then keeps its result and post()s itself, and completes when
/// re-entered from the executor.
class InlineGuard {
 public:
  /// The operation waited for I/O or a timer: its completions are now outside the initiating
  /// function.
  void waited() noexcept { waited_ = true; }
  /// True while completing would run inside the initiating function.
  [[nodiscard]] bool inline_now() const noexcept { return !waited_; }
  /// Re-enters the operation `self` from `executor`, outside the initiating function.
  template <class Self, class Executor>
  void post(Self& self, const Executor& executor) {
    waited_ = true;
    boost::asio::post(executor, std::move(self));
  }

 private:
  bool waited_ = false;
};

}  // namespace kubex::client
