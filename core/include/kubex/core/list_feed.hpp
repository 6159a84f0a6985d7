// SPDX-License-Identifier: Apache-2.0
#pragma once

// What json::ListDecoder and protobuf::ListDecoder share: decoding a list's items while its
// body arrives. The body is left whole until it is long enough to be worth splitting; then
// each feed scans what was appended, decodes the items it completed, and drops their bytes
// from the body's front; errors wait for finish(). The formats differ only in their splitter
// and in how an item, the list's own fields and a whole body are decoded.

#include <cstddef>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace kubex::detail {

/// The feed()/finish() of a list decoder `Derived` over `Splitter` (json::ListSplitter,
/// protobuf::ListSplitter). `Derived` provides, for this base only:
///   after_scan(body, first_scan_into_items)  once per feed, after the scan;
///   decode_item(body, element)               for each element the scan completed;
///   decode_whole(body, out)                  a body never split (short, or unsupported);
///   fail_truncated(body)                     throws: the body ended inside the items;
///   decode_rest(body, out)                   the list's own fields, items left out.
template <class Derived, class Splitter, class L>
class ListFeed {
 public:
  /// The type of the list's items.
  using item_type = typename decltype(L::items)::value_type;

  /// Bodies shorter than this are left whole for finish(): splitting a small body costs a
  /// scan of its bytes and leaves no transfer time to overlap the decoding with.
  static constexpr std::size_t default_split_after = std::size_t{16} << 10U;

  /// Forgets what was fed: a new body follows (a new attempt of the request).
  void restart() noexcept { derived() = Derived{split_after_}; }

  /// Called with the body received so far; removes the bytes of decoded items from its
  /// front. Errors are kept for finish(), so that the reader of the body never sees an
  /// exception.
  void feed(std::string& body) noexcept {
    if (!started_ && body.size() < split_after_) {
      return;  // finish() decodes it whole if it ends this short
    }
    started_ = true;
    if (error_ || splitter_.phase() == Phase::unsupported) {
      return;
    }
    try {
      const bool had_items = splitting();
      elements_.clear();
      splitter_.scan(body, elements_);
      derived().after_scan(body, !had_items && splitting());
      for (const auto& element : elements_) {
        derived().decode_item(body, element);
      }
      // Dropping moves the item in progress to the front: done once per 64 KiB, not per read.
      if (const std::size_t n = splitter_.consumed();
          n > 0 && (n == body.size() || n >= drop_after)) {
        body.erase(0, n);
        splitter_.drop(n);
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  /// The list, from what feed() decoded and the rest of `body` (the whole body when nothing
  /// was fed).
  L finish(const std::string& body) {
    if (error_) {
      std::rethrow_exception(error_);
    }
    L out{};
    if (!started_ || !splitting()) {
      derived().decode_whole(body, out);
      return out;
    }
    if (splitter_.phase() == Phase::items) {
      derived().fail_truncated(body);
    }
    derived().decode_rest(body, out);
    if constexpr (requires { out.items.assign_moved(items_); }) {
      out.items.assign_moved(items_);  // a kubex::Vector: storage of exactly their count
    } else {
      out.items = std::move(items_);
    }
    return out;
  }

 protected:
  /// The splitter's phases.
  using Phase = typename Splitter::Phase;

  /// A decoder that starts splitting once the body fed holds `split_after` bytes.
  explicit ListFeed(std::size_t split_after) noexcept : split_after_(split_after) {}

  /// Whether the scan reached the items (the items or the tail phase).
  [[nodiscard]] bool splitting() const noexcept {
    return splitter_.phase() == Phase::items || splitter_.phase() == Phase::tail;
  }

  /// The splitter.
  Splitter splitter_;
  /// The items decoded so far.
  std::vector<item_type> items_;

 private:
  static constexpr std::size_t drop_after = std::size_t{64} << 10U;

  Derived& derived() noexcept { return static_cast<Derived&>(*this); }

  std::size_t split_after_;
  std::vector<typename Splitter::Element> elements_;
  std::exception_ptr error_;
  bool started_ = false;
};

}  // namespace kubex::detail
