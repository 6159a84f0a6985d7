// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/export.hpp>

// Arena memory for decoded objects. Decoding one object (a Pod, a list item, a watch event)
// allocates its strings, vectors and maps from one Arena, a few malloc calls instead of one per
// container. Nothing is freed when the Arena goes: each block counts the containers that use
// it, and goes back to malloc when the last of them is destroyed. So a string moved out of a
// decoded object, or an object outliving its list, is as safe as with std::string.
//
// A copy of a container is on the heap, unless an ArenaCopyScope names an arena for copies:
// compact() rebuilds an object in an arena of its own that way.

#include <cstddef>
#include <cstdint>
#include <utility>

namespace kubex {

/// Bump allocation for one decoded object; see the file comment. Not thread-safe: one decode
/// owns it. The memory it hands out may be released from any thread.
class KUBEX_API Arena {
 public:
  /// `first_block`: the bytes the first block should hold (0: a default), e.g. an estimate from
  /// the object's encoded size, so that one object usually takes one block.
  explicit Arena(std::size_t first_block = 0) noexcept : next_size_(first_block) {}
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// `n` bytes aligned to 8, to be given back with arena_release().
  void* allocate(std::size_t n) {
    const std::size_t need = sizeof(void*) + ((n + 7) & ~std::size_t{7});
    if (static_cast<std::size_t>(end_ - cur_) < need) {
      next_block(need);
    }
    char* p = cur_;
    *reinterpret_cast<void**>(p) = block_;
    cur_ += need;
    ++pending_;
    used_ += need;
    return p + sizeof(void*);
  }
  /// The bytes handed out so far, headers included: what the next object's estimate can learn
  /// from.
  [[nodiscard]] std::size_t used() const noexcept { return used_; }
  /// How many blocks this Arena took from malloc.
  [[nodiscard]] std::size_t blocks() const noexcept { return blocks_; }

 private:
  void next_block(std::size_t need);
  void close_block() noexcept;

  void* block_ = nullptr;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  std::int64_t pending_ = 0;
  std::size_t next_size_;
  std::size_t used_ = 0;
  std::size_t blocks_ = 0;
};

/// Gives back memory from Arena::allocate; its block is freed with the last of its users.
KUBEX_API void arena_release(void* p) noexcept;

/// How many arena blocks the process holds: blocks some container still uses, and the blocks
/// of live Arenas. For tests and diagnostics of what decoded objects keep.
[[nodiscard]] KUBEX_API std::size_t arena_live_blocks() noexcept;

/// True when a thread keeps the arena blocks it frees for its next decodes; false under
/// AddressSanitizer, which must see a block used after it went back.
[[nodiscard]] KUBEX_API bool arena_caches_blocks() noexcept;

/// `n` bytes aligned to 8 from the current arena, or from the heap outside a decode; either
/// way freed by tagged_release(), which tells them apart by the word before them.
KUBEX_API void* tagged_allocate(std::size_t n);
/// Frees memory from tagged_allocate().
KUBEX_API void tagged_release(void* p) noexcept;

namespace detail {
// The arena decoding on this thread allocates from. Set only by ArenaScope, so code outside a
// decode never sees it. Both variables are exported: with hidden symbols each shared library
// and the program would have a copy of their own, and a decode in libkubex_core would not
// reach the Box allocations of the models' library.
KUBEX_API inline thread_local Arena* current_arena = nullptr;
// The arena copies of containers allocate from on this thread, or null (the heap). Set only by
// ArenaCopyScope.
KUBEX_API inline thread_local Arena* copy_arena = nullptr;
}  // namespace detail

/// The Arena that containers filled on this thread allocate from, or null (the heap).
[[nodiscard]] inline Arena* current_arena() noexcept {
  return detail::current_arena;
}

/// The first block for each decode of a series of alike documents (a list's items, a watch
/// stream's events): the arena bytes per input byte the previous decode took, so that one
/// object usually takes one block with little to spare.
class ArenaEstimate {
 public:
  /// The first block for an input of `input_bytes`.
  [[nodiscard]] std::size_t first_block(std::size_t input_bytes) const noexcept {
    return input_bytes * per_kib_ / 1024 + 64;
  }
  /// Learns from a decode of `input_bytes` that filled `arena`.
  void learn(const Arena& arena, std::size_t input_bytes) noexcept {
    if (arena.used() != 0 && input_bytes != 0) {
      per_kib_ = arena.used() * 1024 / input_bytes + 16;
    }
  }

 private:
  std::size_t per_kib_ = 1024;
};

/// Makes `arena` the current one for its lifetime (nests: restores the previous one).
class ArenaScope {
 public:
  explicit ArenaScope(Arena* arena) noexcept : previous_(detail::current_arena) {
    detail::current_arena = arena;
  }
  ~ArenaScope() { detail::current_arena = previous_; }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* previous_;
};

/// Makes copies of kubex containers made on this thread for its lifetime go to `arena`, where
/// they go to the heap otherwise (nests: restores the previous one).
class ArenaCopyScope {
 public:
  explicit ArenaCopyScope(Arena* arena) noexcept : previous_(detail::copy_arena) {
    detail::copy_arena = arena;
  }
  ~ArenaCopyScope() { detail::copy_arena = previous_; }
  ArenaCopyScope(const ArenaCopyScope&) = delete;
  ArenaCopyScope& operator=(const ArenaCopyScope&) = delete;

 private:
  Arena* previous_;
};

/// Rebuilds `object` by copy in an arena of its own, and lets go of the memory it held. For a
/// decoded object that a transform cut down (runtime::drop_managed_fields): its arena blocks
/// stay whole while any of their contents lives, so what was dropped is freed only once the
/// rest moves out. `first_block`: the arena's first block, or 0 for the size the last object
/// of its type that this thread compacted took.
template <class T>
void compact(T& object, std::size_t first_block = 0) {
  thread_local std::size_t expected = 0;
  Arena arena(first_block != 0 ? first_block : expected);
  T copy = [&] {
    const ArenaCopyScope scope(&arena);
    return T(object);
  }();
  object = std::move(copy);
  expected = arena.used() + 64;
}

}  // namespace kubex
