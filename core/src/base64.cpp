// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/base64.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {
namespace {

constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::uint8_t invalid = 0xFF;
constexpr std::uint8_t whitespace = 0xFE;

constexpr std::array<std::uint8_t, 256> make_table() {
  std::array<std::uint8_t, 256> table{};
  table.fill(invalid);
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  }
  for (const char c : std::string_view(" \t\r\n\f\v")) {
    table[static_cast<unsigned char>(c)] = whitespace;
  }
  return table;
}

constexpr auto table = make_table();

}  // namespace

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3 + 3);

  std::uint32_t accumulator = 0;
  int bits = 0;
  std::size_t symbols = 0;  // alphabet characters seen
  std::size_t padding = 0;
  for (const char c : text) {
    const auto value = table[static_cast<unsigned char>(c)];
    if (value == whitespace) {
      continue;
    }
    if (c == '=') {
      ++padding;
      continue;
    }
    if (value == invalid || padding > 0) {  // data after padding is malformed
      return std::nullopt;
    }
    ++symbols;
    accumulator = (accumulator << 6U) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((accumulator >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }

  // A final group of one symbol carries fewer than 8 bits, so it cannot be valid.
  const std::size_t tail = symbols % 4;
  if (tail == 1) {
    return std::nullopt;
  }
  if (padding > 0 && (padding > 2 || (tail + padding) % 4 != 0)) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> base64_decode_padded(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);

  std::array<std::uint32_t, 4> group{};
  std::size_t filled = 0;  // places of the current group of four taken by symbols or padding
  std::size_t padding = 0;
  bool finished = false;  // a padded group ended the data; only line breaks may follow
  for (const char c : text) {
    // Go skips line breaks so that wrapped (MIME/PEM style) text decodes; nothing else.
    if (c == '\r' || c == '\n') {
      continue;
    }
    if (finished) {
      return std::nullopt;
    }
    if (c == '=') {
      // Padding can only stand in for the third and fourth symbol of a group.
      if (filled < 2) {
        return std::nullopt;
      }
      ++padding;
      group[filled++] = 0;
    } else {
      const auto value = table[static_cast<unsigned char>(c)];
      if (value >= 64 || padding > 0) {  // whitespace, other characters, or data after '='
        return std::nullopt;
      }
      group[filled++] = value;
    }
    if (filled == 4) {
      const std::uint32_t bits =
          (group[0] << 18U) | (group[1] << 12U) | (group[2] << 6U) | group[3];
      out.push_back(static_cast<char>((bits >> 16U) & 0xFFU));
      if (padding < 2) {
        out.push_back(static_cast<char>((bits >> 8U) & 0xFFU));
      }
      if (padding < 1) {
        out.push_back(static_cast<char>(bits & 0xFFU));
      }
      finished = padding > 0;
      filled = 0;
    }
  }
  if (filled != 0) {  // unpadded or truncated final group
    return std::nullopt;
  }
  return out;
}

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const std::uint32_t bits = (std::uint32_t{static_cast<unsigned char>(data[i])} << 16U) |
                               (std::uint32_t{static_cast<unsigned char>(data[i + 1])} << 8U) |
                               std::uint32_t{static_cast<unsigned char>(data[i + 2])};
    out.push_back(alphabet[(bits >> 18U) & 0x3FU]);
    out.push_back(alphabet[(bits >> 12U) & 0x3FU]);
    out.push_back(alphabet[(bits >> 6U) & 0x3FU]);
    out.push_back(alphabet[bits & 0x3FU]);
  }
  const std::size_t rest = data.size() - i;
  if (rest > 0) {
    std::uint32_t bits = std::uint32_t{static_cast<unsigned char>(data[i])} << 16U;
    if (rest == 2) {
      bits |= std::uint32_t{static_cast<unsigned char>(data[i + 1])} << 8U;
    }
    out.push_back(alphabet[(bits >> 18U) & 0x3FU]);
    out.push_back(alphabet[(bits >> 12U) & 0x3FU]);
    out.push_back(rest == 2 ? alphabet[(bits >> 6U) & 0x3FU] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace kubex
