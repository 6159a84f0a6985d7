// SPDX-License-Identifier: Apache-2.0
#pragma once

// Decoding a protobuf list body while it is still arriving, as json_list.hpp does for JSON:
// each item is decoded once its last byte is in, so decoding overlaps the transfer and the
// bytes of decoded items leave the receive buffer. The body is the magic, then the envelope
// (runtime.Unknown) whose field 2 holds the list message; every list message of the API holds
// its items in field 2 and its ListMeta in field 1 (the generated.proto files of k8s.io/api
// and of meta/v1).

#include <kubex/core/arena.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/list_feed.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_object.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kubex::protobuf {

/// Finds, in a protobuf list body that grows at its end, the items of its list message as
/// each one completes. Checks the framing of the fields it passes (keys, wire types, lengths);
/// the items and the list's other fields are left to the decoder.
class KUBEX_API ListSplitter {
 public:
  /// An item's message: [begin, end) in the body as it is now.
  struct Element {
    std::size_t begin = 0;  ///< offset of the message's first byte
    std::size_t end = 0;    ///< offset just past its last byte
  };
  /// Where the scan stands.
  enum class Phase {
    envelope,     ///< before the list message
    items,        ///< inside it
    tail,         ///< after it
    unsupported,  ///< not a protobuf body: it is to be decoded whole
  };

  /// Scans what was appended to `body` since the last call and appends the items it completed
  /// to `out`.
  /// @throws DecodeError when a field's framing is malformed.
  void scan(std::string_view body, std::vector<Element>& out);
  /// The phase reached.
  [[nodiscard]] Phase phase() const noexcept { return phase_; }
  /// The envelope's fields before the list message (the object's apiVersion and kind), whole
  /// once the items phase is reached.
  [[nodiscard]] std::string_view envelope_head() const noexcept { return envelope_head_; }
  /// How many bytes at the front of the body the scan no longer needs: all before the field in
  /// progress (in the tail, before the list message's end).
  [[nodiscard]] std::size_t consumed() const noexcept {
    return phase_ == Phase::items || phase_ == Phase::tail ? pos_ : 0;
  }
  /// The first `n` bytes were removed from the body (n <= consumed()); shifts the offsets.
  void drop(std::size_t n) noexcept;
  /// The offset in the whole response of the body's first byte (for error messages).
  [[nodiscard]] std::size_t origin() const noexcept { return dropped_; }
  /// In the tail phase, the body the list decodes from without its items: the magic, the
  /// envelope, and the list message's other fields, then `rest` (the body from consumed()).
  /// @throws DecodeError when `rest` holds a second list message (the decoded items would
  ///         belong to the first, which a whole decode discards).
  [[nodiscard]] std::string without_items(std::string_view rest) const;

 private:
  void scan_envelope(std::string_view body);
  void scan_items(std::string_view body, std::vector<Element>& out);

  Phase phase_ = Phase::envelope;
  std::size_t pos_ = 0;      // next byte to scan
  std::size_t raw_end_ = 0;  // offset just past the list message
  std::size_t dropped_ = 0;
  std::string envelope_head_;  // the magic and the envelope's fields before the list message
  std::string list_head_;      // the list message's fields other than its items
};

/// Decodes a list type L (PodList, PartialObjectMetadataList...) from a protobuf body fed as
/// it arrives: the counterpart of json::ListDecoder, with the same feed()/finish() contract.
/// Every body decodes as decode_object would decode it whole, except that a kind of another
/// list is refused before its items are read, and an envelope holding two list messages is
/// refused (decode_object keeps the last; its items are gone by then).
template <class L>
class ListDecoder : public kubex::detail::ListFeed<ListDecoder<L>, ListSplitter, L> {
  using Base = kubex::detail::ListFeed<ListDecoder<L>, ListSplitter, L>;
  friend Base;

 public:
  /// A decoder that starts splitting once the body fed holds `split_after` bytes (0: from
  /// the first byte).
  explicit ListDecoder(std::size_t split_after = Base::default_split_after) noexcept
      : Base(split_after) {}

  // feed(body) and finish(body) (kubex::detail::ListFeed): finish() throws DecodeError for
  // malformed protobuf, json::DecodeError for a body of another kind.

 private:
  // The envelope names the body's kind before the items: a body of another kind is refused
  // with both kinds named, instead of its fields being read as items.
  void after_scan(const std::string& /*body*/, bool first_in_items) {
    if constexpr (requires(L l) {
                    l.api_version;
                    l.kind;
                  }) {
      if (first_in_items) {
        std::string envelope(this->splitter_.envelope_head());
        Writer(envelope).bytes(2, {});
        L probe{};
        decode_object(envelope, probe);
      }
    }
  }

  void decode_item(const std::string& body, ListSplitter::Element e) {
    const std::string_view bytes(body.data() + e.begin, e.end - e.begin);
    // At depth 1, inside the list's message, as when the whole body is decoded.
    Reader reader(bytes, this->splitter_.origin() + e.begin, 1);
    auto& item = this->items_.emplace_back();
    Arena arena(estimate_.first_block(bytes.size()));
    {
      const ArenaScope scope(&arena);
      kubex_read_proto(reader, item);
    }
    estimate_.learn(arena, bytes.size());
  }

  static void decode_whole(const std::string& body, L& out) { decode_object(body, out); }

  [[noreturn]] void fail_truncated(const std::string& body) const {
    throw DecodeError("the list message ends past the body's end, at byte " +
                      std::to_string(this->splitter_.origin() + body.size()));
  }

  void decode_rest(const std::string& body, L& out) const {
    decode_object(
        this->splitter_.without_items(std::string_view(body).substr(this->splitter_.consumed())),
        out);
  }

  ArenaEstimate estimate_;
};

}  // namespace kubex::protobuf
