// SPDX-License-Identifier: Apache-2.0
#pragma once

// Decoding a list (`{"kind":"PodList", "metadata":{...}, "items":[...]}`) while its body is
// still arriving: each item is decoded as soon as its last byte is in, so decoding overlaps
// the transfer, the parser works on one item at a time instead of the whole document, and the
// bytes of decoded items can be dropped from the receive buffer.

#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/list_feed.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kubex::json {

/// Finds, in the text of a JSON object that grows at its end, the elements of its top-level
/// "items" array as each one completes. Checks only the array's own punctuation; the
/// elements and the rest of the object are left to the decoder.
class KUBEX_API ListSplitter {
 public:
  /// An element's text: [begin, end) in the text as it is now.
  struct Element {
    std::size_t begin = 0;  ///< offset of the element's first byte
    std::size_t end = 0;    ///< offset just past its last byte
  };
  /// Where the scan stands.
  enum class Phase {
    head,         ///< before the items array
    items,        ///< inside it
    tail,         ///< after it
    unsupported,  ///< not an object with an "items" array: the text is to be decoded whole
  };

  /// Scans what was appended to `text` since the last call and appends the elements it
  /// completed to `out`.
  /// @throws DecodeError when the items array is malformed between its elements, or holds
  ///         values nested deeper than the decoder's limit.
  void scan(std::string_view text, std::vector<Element>& out);
  /// The phase reached.
  [[nodiscard]] Phase phase() const noexcept { return phase_; }
  /// Offset just past the '[' that opens the items array (phases items and tail).
  [[nodiscard]] std::size_t items_begin() const noexcept { return items_begin_; }
  /// How many bytes at the front of the text only the elements scanned so far need: in the
  /// items phase up to the element in progress, in the tail up to the array's closing ']'.
  [[nodiscard]] std::size_t consumed() const noexcept;
  /// The first `n` bytes were removed from the text (n <= consumed()); shifts the offsets.
  void drop(std::size_t n) noexcept;

 private:
  enum class Expect { element_or_end, element, separator, in_element, in_scalar };
  void structural(std::string_view text, std::size_t i, std::vector<Element>& out);
  void items_byte(char c, std::size_t i, std::vector<Element>& out);
  std::size_t scan_item_blocks(std::string_view text, std::size_t i, std::vector<Element>& out);
  void close_items(std::size_t i);

  Phase phase_ = Phase::head;
  std::size_t pos_ = 0;  // next byte to scan
  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool expect_key_ = false;    // at depth 1: the next string is a key
  bool reading_key_ = false;   // the string being scanned is that key
  bool key_is_items_ = false;  // the last key at depth 1 was "items"
  bool await_value_ = false;   // at depth 1: between that key's ':' and its value
  std::size_t key_begin_ = 0;  // of the key being read at depth 1
  std::size_t string_depth_ = 0;
  Expect expect_ = Expect::element_or_end;
  std::size_t items_begin_ = 0;
  std::size_t items_end_ = 0;  // offset of the closing ']'
  std::size_t element_begin_ = 0;
  std::size_t slow_until_ = 0;  // a backslash lies before: byte by byte up to here
};

/// Decodes a list type L (a struct with a vector member `items`, such as PodList or
/// ObjectList<T>) from a body fed as it arrives. feed() decodes the items completed so far and
/// removes their bytes from the body; finish() decodes the rest. A body whose items cannot be
/// told apart early (not an object, "items" not an array) is kept whole and decoded by
/// finish(), so every body decodes as json::decode would decode it, except that an error in
/// an item is reported before one in the list's own fields, and that a second "items" key is
/// an error (json::decode keeps the last array; the first is gone by then).
template <class L>
class ListDecoder : public kubex::detail::ListFeed<ListDecoder<L>, ListSplitter, L> {
  using Base = kubex::detail::ListFeed<ListDecoder<L>, ListSplitter, L>;
  friend Base;

 public:
  /// A decoder that starts splitting once the body fed holds `split_after` bytes (0: from
  /// the first byte, as the tests do to cover small bodies).
  explicit ListDecoder(std::size_t split_after = Base::default_split_after) noexcept
      : Base(split_after) {}

  // feed(body) and finish(body) (kubex::detail::ListFeed): finish() throws DecodeError naming
  // the path of the first value that does not fit.

 private:
  void after_scan(const std::string& body, bool /*first_in_items*/) {
    if (this->splitting() && head_.empty()) {
      head_.assign(body, 0, this->splitter_.items_begin());
    }
  }

  void decode_item(const std::string& body, ListSplitter::Element e) {
    const std::string_view text(body.data() + e.begin, e.end - e.begin);
    // simdjson reads ahead in 64-byte blocks; the body's spare capacity is readable.
    const bool padded = body.capacity() - e.end >= 64;
    auto& items = this->items_;
    auto& item = items.emplace_back();
    try {
      // At depth 2, inside the list and its items array, as when the whole body is decoded.
      detail::decode(
          text, padded, &item,
          [](Reader& r, void* o) { read(r, *static_cast<typename Base::item_type*>(o)); }, 2);
    } catch (DecodeError& err) {
      err.prepend_index(items.size() - 1);
      err.prepend_field("items");
      throw;
    }
  }

  static void decode_whole(const std::string& body, L& out) { decode_padded(body, out); }

  [[noreturn]] static void fail_truncated(const std::string& /*body*/) {
    DecodeError err("invalid JSON: unexpected end of the document");
    err.prepend_field("items");
    throw err;
  }

  // The list's own fields, with the items array emptied: the head and the body from the
  // array's ']' on.
  void decode_rest(const std::string& body, L& out) {
    head_.append(body, this->splitter_.consumed());
    decode(head_, out);
    if (!out.items.empty()) {
      // Another key spelled "items" with escapes follows: json::decode would keep its array.
      DecodeError err("the key appears twice in the list");
      err.prepend_field("items");
      throw err;
    }
  }

  std::string head_;  // the body up to the items array's '['
};

}  // namespace kubex::json
