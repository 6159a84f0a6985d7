// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

// Where the arena memory of decoded objects goes, summed over the process: for benchmarks and
// diagnostics (benchmarks/models/codec_bench.cpp reports it per item), not for control flow.

#include <cstdint>

namespace kubex {

/// Totals over every arena block closed so far, in any thread.
struct ArenaStats {
  std::uint64_t blocks = 0;       ///< blocks closed (one per object, usually)
  std::uint64_t block_bytes = 0;  ///< their sizes, block headers included
  std::uint64_t allocations = 0;  ///< allocations made from them
  std::uint64_t used_bytes = 0;   ///< bytes handed out, the word before each allocation included
};

/// The totals so far; the difference of two calls is what happened between them.
[[nodiscard]] KUBEX_API ArenaStats arena_stats() noexcept;

}  // namespace kubex
