#include <kubex/core/base64.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubex {
namespace {

constexpr std::uint8_t invalid = 0xFF;
constexpr std::uint8_t whitespace = 0xFE;

constexpr std::array<std::uint8_t, 256> make_table() {
  std::array<std::uint8_t, 256> table{};
  table.fill(invalid);
  constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
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

}  // namespace kubex
