// SPDX-License-Identifier: Apache-2.0
// The protobuf wire format (proto2, as Kubernetes' generated.proto files use it): a reader of
// one message's fields over borrowed bytes, and a writer appending fields to a string. The
// Kubernetes envelope and watch framing on top of it are in protobuf_envelope.hpp.
#pragma once

#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kubex::protobuf {

/// Thrown for malformed protobuf: the message says what was read and at which byte of the
/// body it failed; `code()` is errc::invalid_protobuf. The body itself is never quoted.
class KUBEX_API DecodeError : public Error {
 public:
  /// Creates the error with its complete message.
  explicit DecodeError(const std::string& reason);
};

/// How a field's value is laid out. Groups (3 and 4) are not used by Kubernetes and are
/// refused, as are the undefined types 6 and 7.
enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

/// The largest field number protobuf allows.
inline constexpr std::uint32_t max_field_number = (1U << 29U) - 1;

/// Embedded messages nested deeper than this are refused (a recursive schema such as
/// JSONSchemaProps must not let a body exhaust the stack).
inline constexpr int max_depth = 100;

/// Reads the fields of one message in order. `next()` moves to a field; exactly one value
/// reader (or `skip()`) then takes its value, checking that the wire type fits. Every read is
/// bounds-checked and throws DecodeError naming the byte offset in the whole body. Views
/// returned by `bytes()` and `string()` point into the reader's input.
class KUBEX_API Reader {
 public:
  /// Reads `data`, which starts at byte `origin` of the body (for error messages).
  explicit Reader(std::string_view data, std::size_t origin = 0, int depth = 0) noexcept
      : data_(data), origin_(origin), depth_(depth) {}

  /// Moves to the next field; false at the end of the message. A previous field whose value
  /// was not read is skipped first.
  bool next() {
    // Inline for the common case, a one-byte key (fields 1 to 15) of a defined wire type
    // (0, 1, 2 or 5: the bits of 0x27); anything else takes the checked path.
    if (!pending_ && pos_ < data_.size()) {
      const auto key = static_cast<unsigned char>(data_[pos_]);
      if (key < 0x80U && key >= 8U && ((0x27U >> (key & 7U)) & 1U) != 0) {
        field_start_ = pos_++;
        field_ = key >> 3U;
        type_ = static_cast<WireType>(key & 7U);
        pending_ = true;
        return true;
      }
    }
    return next_checked();
  }
  /// The current field's number (1 to max_field_number).
  [[nodiscard]] std::uint32_t field() const noexcept { return field_; }
  /// The current field's wire type.
  [[nodiscard]] WireType wire_type() const noexcept { return type_; }

  /// A varint field as unsigned (uint32 and enum values are range-checked by the caller).
  std::uint64_t uint64() {
    expect(WireType::varint);
    return read_varint("varint");
  }
  /// A varint field as int64 (two's complement, ten bytes for negative values).
  std::int64_t int64();
  /// A varint field as int32: the low 32 bits, as protobuf specifies.
  std::int32_t int32();
  /// A varint field as bool: any value but 0 is true.
  bool boolean();
  /// A zigzag-encoded varint field (sint64).
  std::int64_t sint64();
  /// A fixed64 field.
  std::uint64_t fixed64();
  /// A fixed32 field.
  std::uint32_t fixed32();
  /// A double (fixed64) field.
  double float64();
  /// A length-delimited field's bytes.
  std::string_view bytes() {
    expect(WireType::bytes);
    const std::size_t at = pos_;
    const std::uint64_t length = read_varint("length");
    if (length > data_.size() - pos_) {
      length_past_end(at, length);
    }
    const std::string_view v = data_.substr(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return v;
  }
  /// A length-delimited field as a string. Not checked for UTF-8, as Go's proto2 code does
  /// not check it either.
  std::string_view string() { return bytes(); }
  /// A length-delimited field as an embedded message.
  Reader message() {
    if (depth_ >= max_depth) {
      too_deep();
    }
    const std::string_view body = bytes();
    return Reader(body, origin_ + pos_ - body.size(), depth_ + 1);
  }
  /// Skips the current field's value, whatever its wire type.
  void skip();
  /// A packed run of varints (a repeated scalar in the wire form proto3 uses), appended to
  /// `out` as unsigned values.
  void packed_varints(std::vector<std::uint64_t>& out);

  /// The current field's encoding, key and value, once its value has been read or skipped:
  /// what a decoder keeps of a field it does not know, to write it back unchanged.
  [[nodiscard]] std::string_view field_bytes() const noexcept {
    return data_.substr(field_start_, pos_ - field_start_);
  }
  /// The bytes this reader reads: the whole message (for an embedded one, its value).
  [[nodiscard]] std::string_view data() const noexcept { return data_; }
  /// Offset of the reader's position in the whole body.
  [[nodiscard]] std::size_t offset() const noexcept { return origin_ + pos_; }
  /// True when every byte has been read.
  [[nodiscard]] bool done() const noexcept { return pos_ == data_.size(); }

 private:
  // Inline for one-byte varints (most keys, lengths and small values).
  std::uint64_t read_varint(const char* what) {
    if (pos_ < data_.size()) {
      const auto byte = static_cast<unsigned char>(data_[pos_]);
      if (byte < 0x80U) {
        ++pos_;
        return byte;
      }
    }
    return read_varint_checked(what);
  }
  void expect(WireType type) {
    if (!pending_ || type_ != type) {
      wrong_type(type);
    }
    pending_ = false;
  }
  bool next_checked();
  std::uint64_t read_varint_checked(const char* what);
  [[noreturn]] void wrong_type(WireType type) const;
  [[noreturn]] void length_past_end(std::size_t at, std::uint64_t length);
  [[noreturn]] void too_deep() const;
  [[noreturn]] void fail(const std::string& what) const;

  std::string_view data_;
  std::size_t origin_ = 0;
  int depth_ = 0;
  std::size_t pos_ = 0;
  std::size_t field_start_ = 0;
  std::uint32_t field_ = 0;
  WireType type_ = WireType::varint;
  bool pending_ = false;  // the current field's value is still unread
};

/// Appends fields to a string in the canonical encoding (shortest varints). Field numbers
/// must be 1 to max_field_number.
class KUBEX_API Writer {
 public:
  /// Appends to `out`.
  explicit Writer(std::string& out) noexcept : out_(out) {}

  /// A varint field holding `value` unsigned (uint32, uint64, enum).
  void uint64(std::uint32_t field, std::uint64_t value);
  /// A varint field holding `value` as two's complement (int32, int64).
  void int64(std::uint32_t field, std::int64_t value) {
    uint64(field, static_cast<std::uint64_t>(value));
  }
  /// A varint field holding 0 or 1.
  void boolean(std::uint32_t field, bool value) { uint64(field, value ? 1U : 0U); }
  /// A zigzag-encoded varint field (sint64).
  void sint64(std::uint32_t field, std::int64_t value);
  /// A fixed64 field.
  void fixed64(std::uint32_t field, std::uint64_t value);
  /// A fixed32 field.
  void fixed32(std::uint32_t field, std::uint32_t value);
  /// A double field.
  void float64(std::uint32_t field, double value);
  /// A length-delimited field (bytes, string).
  void bytes(std::uint32_t field, std::string_view value);
  /// An embedded message whose fields `write(Writer&)` appends. The length, known only
  /// afterwards, is put in front of them; a small message (under 128 bytes, the usual case)
  /// costs no move, a larger one moves its bytes once per level of nesting.
  template <class F>
  void message(std::uint32_t field, F&& write) {
    key(field, WireType::bytes);
    const std::size_t at = out_.size();
    out_.push_back('\0');  // the length, if it fits one byte
    Writer inner(out_);
    write(inner);
    close_message(at);
  }
  /// Bytes that are already an encoded field (Reader::field_bytes), appended unchanged.
  void raw(std::string_view encoded) { out_.append(encoded); }

 private:
  void key(std::uint32_t field, WireType type);
  void varint(std::uint64_t value);
  void close_message(std::size_t at);

  std::string& out_;
};

/// Appends `value` as a varint (1 to 10 bytes).
KUBEX_API void append_varint(std::string& out, std::uint64_t value);

}  // namespace kubex::protobuf
