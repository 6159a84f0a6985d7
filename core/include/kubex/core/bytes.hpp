// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace kubex {

/// Binary data of an OpenAPI `format: byte` field (Secret.data, ConfigMap.binaryData,
/// caBundle...), which travels as standard base64 in JSON.
///
/// The bytes are stored in a std::string: it holds any byte values including zeros, gives a
/// std::string_view of the data without copying (most such data is text: certificates, tokens,
/// configuration), and moves cheaply. bytes() offers the same data as std::byte for binary use.
class KUBEX_API Bytes {
 public:
  /// No bytes.
  Bytes() noexcept = default;

  /// Takes the bytes of `data` (any values, including zeros).
  explicit Bytes(std::string data) noexcept : data_(std::move(data)) {}

  /// Copies the bytes of `data`.
  explicit Bytes(std::string_view data) : data_(data) {}

  /// Copies the bytes of a NUL-terminated string, without the terminator.
  explicit Bytes(const char* data) : data_(data) {}

  /// Copies `data`.
  explicit Bytes(std::span<const std::byte> data);

  /// Decodes standard base64 as the apiserver does (kubex::base64_decode_padded: padding
  /// required, line breaks skipped, anything else outside the alphabet rejected); std::nullopt
  /// if `text` is not valid.
  [[nodiscard]] static std::optional<Bytes> from_base64(std::string_view text);

  /// Standard base64 with padding, no line breaks: what the apiserver sends and expects.
  [[nodiscard]] std::string to_base64() const;

  /// The bytes as characters.
  [[nodiscard]] std::string_view view() const noexcept { return data_; }

  /// The bytes as characters, for APIs that want a std::string.
  [[nodiscard]] const std::string& str() const noexcept { return data_; }

  /// The bytes as std::byte.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept;

  /// The number of bytes.
  [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }

  /// True if there are no bytes.
  [[nodiscard]] bool empty() const noexcept { return data_.empty(); }

  /// Same bytes.
  friend bool operator==(const Bytes&, const Bytes&) = default;

 private:
  std::string data_;
};

}  // namespace kubex
