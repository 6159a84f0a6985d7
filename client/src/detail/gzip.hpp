// gzip bodies (Content-Encoding: gzip), inflated with zlib under a size limit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// Inflates the gzip member `in`; std::nullopt, with `problem` set, if it is corrupt,
/// truncated, followed by other bytes, or would exceed `limit` bytes (which also stops
/// decompression bombs before they take the memory).
std::optional<std::string> gunzip(std::string_view in, std::size_t limit, std::string& problem);

}  // namespace kubex::client::detail
