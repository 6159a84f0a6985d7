// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/base64.hpp>
#include <kubex/core/bytes.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace kubex {

Bytes::Bytes(std::span<const std::byte> data)
    : data_(reinterpret_cast<const char*>(data.data()), data.size()) {}

std::optional<Bytes> Bytes::from_base64(std::string_view text) {
  auto decoded = base64_decode_padded(text);
  if (!decoded) {
    return std::nullopt;
  }
  return Bytes(std::move(*decoded));
}

std::string Bytes::to_base64() const {
  return base64_encode(data_);
}

std::span<const std::byte> Bytes::bytes() const noexcept {
  return {reinterpret_cast<const std::byte*>(data_.data()), data_.size()};
}

}  // namespace kubex
