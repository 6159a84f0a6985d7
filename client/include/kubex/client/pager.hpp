// SPDX-License-Identifier: Apache-2.0
#pragma once

// Pager<T>: every page of a list, following continue tokens, starting over when one expires.

#include <kubex/client/api.hpp>
#include <kubex/core/failure.hpp>

#include <boost/asio/compose.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace kubex::client {

/// The pages of a list, following `continue` tokens. If a continue token expires (410 Gone:
/// the data it pointed at was compacted), the pager starts again from the first page, as
/// client-go's pager falls back to a full list: items already delivered are delivered again,
/// and restarts() counts how often that happened (at most max_restarts, then the 410 fails).
template <resource T>
class Pager {
 public:
  /// The page type.
  using list_type = typename resource_traits<T>::list_type;
  /// Completion signature of async_next: a page, or std::nullopt after the last one.
  using Signature = void(std::exception_ptr, std::optional<list_type>);

  /// Pages of `api.async_list(params)`; `params.limit` is the page size (0: one page).
  Pager(Api<T> api, ListParams params, std::size_t max_restarts = 3)
      : api_(std::move(api)),
        params_(std::move(params)),
        first_continue_(params_.continue_token),
        max_restarts_(max_restarts) {}

  /// Reads the next page. Keep the pager alive until it completes. Cancellation: terminal,
  /// through the token's slot, fails the page's request with std::errc::operation_canceled.
  template <class CompletionToken = DefaultCompletionToken>
  auto async_next(CompletionToken&& token = {}) {
    return boost::asio::async_compose<CompletionToken, Signature>(NextOp{this}, token,
                                                                  api_.client().get_executor());
  }
  /// How often an expired continue token made the pager start over.
  [[nodiscard]] std::size_t restarts() const noexcept { return restarts_; }
  /// True after the last page.
  [[nodiscard]] bool done() const noexcept { return done_; }

 private:
  struct NextOp {
    Pager* p;
    template <class Self>
    void operator()(Self& self) {
      if (p->done_) {
        self.complete(nullptr, std::nullopt);
        return;
      }
      p->api_.async_list(p->params_, std::move(self));
    }
    template <class Self>
    void operator()(Self& self, std::exception_ptr error, list_type page) {
      if (error) {
        if (p->params_.continue_token != p->first_continue_ && p->restarts_ < p->max_restarts_ &&
            expired(error)) {
          ++p->restarts_;
          p->params_.continue_token = p->first_continue_;
          p->api_.async_list(p->params_, std::move(self));
          return;
        }
        p->done_ = true;
        self.complete(std::move(error), std::nullopt);
        return;
      }
      const auto& next = page.metadata.continue_;
      if (next && !next->empty()) {
        p->params_.continue_token = *next;
      } else {
        p->done_ = true;
      }
      self.complete(nullptr, std::move(page));
    }
    static bool expired(const std::exception_ptr& error) { return Failure(error).gone(); }
  };

  Api<T> api_;
  ListParams params_;
  std::string first_continue_;
  std::size_t max_restarts_;
  std::size_t restarts_ = 0;
  bool done_ = false;
};

}  // namespace kubex::client
