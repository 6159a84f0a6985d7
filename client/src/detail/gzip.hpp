// SPDX-License-Identifier: Apache-2.0
// gzip bodies (Content-Encoding: gzip), inflated with zlib under a size limit, whole or piece
// by piece as they arrive.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// Inflates one gzip member fed in pieces. The limit counts every byte inflated since the last
/// reset, which stops decompression bombs before they take the memory.
class Inflater {
 public:
  /// An inflater that refuses to produce more than `limit` bytes.
  explicit Inflater(std::size_t limit);
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  /// Starts a new member (another attempt's body).
  void reset();
  /// Appends what `in` inflates to to `out`; false, with `problem` set, if the input is
  /// corrupt, goes on after the member's end, or would pass the limit.
  bool feed(std::string_view in, std::string& out, std::string& problem);
  /// Whether the member's trailer has arrived (its CRC and length checked).
  [[nodiscard]] bool ended() const noexcept { return ended_; }

 private:
  struct Stream;
  std::unique_ptr<Stream> stream_;
  std::size_t limit_;
  std::size_t produced_ = 0;
  bool ended_ = false;
};

/// Inflates the gzip member `in`; std::nullopt, with `problem` set, if it is corrupt,
/// truncated, followed by other bytes, or would exceed `limit` bytes.
std::optional<std::string> gunzip(std::string_view in, std::size_t limit, std::string& problem);

}  // namespace kubex::client::detail
