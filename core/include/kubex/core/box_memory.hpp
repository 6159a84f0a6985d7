// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where the generated models' out-of-line Box functions (box.hpp) put a boxed object: in the
// current decode's arena, or on the heap outside a decode. A copy is on the heap (or in the
// arena of an ArenaCopyScope).

#include <kubex/core/arena.hpp>

#include <new>

namespace kubex {

/// A default-constructed T for a Box, in the arena while decoding.
template <class T>
T* box_new() {
  static_assert(alignof(T) <= alignof(void*), "tagged memory is aligned to 8");
  void* memory = tagged_allocate(sizeof(T));
  try {
    return ::new (memory) T();
  } catch (...) {
    tagged_release(memory);
    throw;
  }
}

/// A copy of `from` for a Box, on the heap (or in the arena of an ArenaCopyScope).
template <class T>
T* box_copy(const T& from) {
  const ArenaScope copy(detail::copy_arena);
  void* memory = tagged_allocate(sizeof(T));
  try {
    return ::new (memory) T(from);
  } catch (...) {
    tagged_release(memory);
    throw;
  }
}

/// Destroys and frees what box_new() or box_copy() made.
template <class T>
void box_delete(T* p) noexcept {
  p->~T();
  tagged_release(p);
}

}  // namespace kubex
