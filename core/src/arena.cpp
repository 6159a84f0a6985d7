// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/arena.hpp>
#include <kubex/core/arena_stats.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <new>

namespace kubex {
namespace {

// A block's count of live allocations. While its Arena may still allocate from it, the count
// carries a bias, so that containers destroyed during the decode cannot take it to zero; the
// Arena's own allocations are counted in a plain integer and added when it closes the block.
struct Block {
  std::atomic<std::int64_t> refs;
  std::size_t size;  // bytes from malloc, this header included
};
constexpr std::int64_t open_bias = std::int64_t{1} << 40;
constexpr std::size_t default_block = 4096;
constexpr std::size_t max_block = std::size_t{1} << 20;
constexpr std::size_t header = (sizeof(Block) + 7) & ~std::size_t{7};

std::atomic<std::size_t> live_blocks{0};

// arena_stats(): counted as each block closes, so once per object, not per allocation.
std::atomic<std::uint64_t> closed_blocks{0};
std::atomic<std::uint64_t> closed_block_bytes{0};
std::atomic<std::uint64_t> closed_allocations{0};
std::atomic<std::uint64_t> closed_used_bytes{0};

// Freed blocks the freeing thread keeps for its next decodes, by size in 256-byte steps up to
// 64 KiB, at most 4 MiB per thread. Without them, the blocks of a list freed together coalesce
// into the top of glibc's heap, which trims it, and the next list faults every page in again:
// 800 page faults per 500-pod protobuf list, 15 % of its CPU (benchmarks/results/lean-decode.md).
// Off under AddressSanitizer, so that it still sees a decoded object used after its block
// went back.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t cache_limit = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr std::size_t cache_limit = 0;
#else
constexpr std::size_t cache_limit = std::size_t{4} << 20;
#endif
#else
constexpr std::size_t cache_limit = std::size_t{4} << 20;
#endif
constexpr std::size_t granule = 256;
constexpr std::size_t max_cached_block = std::size_t{64} << 10;

class BlockCache {
 public:
  BlockCache() noexcept;
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A cached block of `size` bytes (a multiple of granule) or up to 1 KiB more, as the items
  // of a list differ a little; nullptr if none. `size` becomes the block's size.
  void* take(std::size_t& size) noexcept {
    const std::size_t first = size / granule - 1;
    const std::size_t last = std::min(first + 4, heads_.size() - 1);
    for (std::size_t c = first; c <= last; ++c) {
      if (FreeBlock* b = heads_[c]; b != nullptr) {
        heads_[c] = b->next;
        size = (c + 1) * granule;
        bytes_ -= size;
        return b;
      }
    }
    return nullptr;
  }
  // Keeps a freed block if it is of a cached size and the cache has room.
  bool put(void* raw, std::size_t size) noexcept {
    if (size > max_cached_block || size % granule != 0 || bytes_ + size > cache_limit) {
      return false;
    }
    FreeBlock*& head = heads_[size / granule - 1];
    head = new (raw) FreeBlock{head};
    bytes_ += size;
    return true;
  }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  std::array<FreeBlock*, max_cached_block / granule> heads_{};
  std::size_t bytes_ = 0;
};

// The thread's cache, or nullptr once it is destroyed (a decoded object a later thread_local
// destructor frees goes straight back to malloc). Trivially destructible, so readable then.
thread_local int cache_state = 0;  // 0: not made yet, 1: alive, 2: destroyed

BlockCache::BlockCache() noexcept {
  cache_state = 1;
}
BlockCache::~BlockCache() {
  cache_state = 2;
  for (FreeBlock* b : heads_) {
    while (b != nullptr) {
      FreeBlock* next = b->next;
      ::operator delete(static_cast<void*>(b));
      b = next;
    }
  }
}

BlockCache* block_cache() noexcept {
  if (cache_limit == 0 || cache_state == 2) {
    return nullptr;
  }
  thread_local BlockCache cache;
  return &cache;
}

void free_block(Block* b) noexcept {
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  const std::size_t size = b->size;
  b->~Block();
  if (BlockCache* cache = block_cache(); cache != nullptr && cache->put(b, size)) {
    return;
  }
  ::operator delete(static_cast<void*>(b));
}

}  // namespace

Arena::~Arena() {
  close_block();
}

void Arena::next_block(std::size_t need) {
  close_block();
  std::size_t size = next_size_ != 0 ? next_size_ : default_block;
  size = std::max(size, need) + header;
  void* raw = nullptr;
  if (size <= max_cached_block) {
    size = (size + granule - 1) & ~(granule - 1);  // a size the cache keeps
    if (BlockCache* cache = block_cache()) {
      raw = cache->take(size);
    }
  }
  if (raw == nullptr) {
    raw = ::operator new(size);
  }
  auto* b = new (raw) Block{open_bias, size};
  live_blocks.fetch_add(1, std::memory_order_relaxed);
  block_ = b;
  cur_ = static_cast<char*>(raw) + header;
  end_ = static_cast<char*>(raw) + size;
  ++blocks_;
  // An object larger than its estimate grows by halves of what it has, not block by block.
  next_size_ = std::min(std::max(default_block, used_ / 2), max_block);
}

void Arena::close_block() noexcept {
  if (block_ == nullptr) {
    return;
  }
  auto* b = static_cast<Block*>(block_);
  closed_blocks.fetch_add(1, std::memory_order_relaxed);
  closed_block_bytes.fetch_add(b->size, std::memory_order_relaxed);
  closed_allocations.fetch_add(static_cast<std::uint64_t>(pending_), std::memory_order_relaxed);
  closed_used_bytes.fetch_add(
      static_cast<std::uint64_t>(cur_ - (static_cast<char*>(block_) + header)),
      std::memory_order_relaxed);
  const std::int64_t delta = pending_ - open_bias;
  if (b->refs.fetch_add(delta, std::memory_order_acq_rel) + delta == 0) {
    free_block(b);
  }
  block_ = nullptr;
  cur_ = end_ = nullptr;
  pending_ = 0;
}

void arena_release(void* p) noexcept {
  auto* b = static_cast<Block*>(*(static_cast<void**>(p) - 1));
  if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    free_block(b);
  }
}

std::size_t arena_live_blocks() noexcept {
  return live_blocks.load(std::memory_order_relaxed);
}

ArenaStats arena_stats() noexcept {
  return {.blocks = closed_blocks.load(std::memory_order_relaxed),
          .block_bytes = closed_block_bytes.load(std::memory_order_relaxed),
          .allocations = closed_allocations.load(std::memory_order_relaxed),
          .used_bytes = closed_used_bytes.load(std::memory_order_relaxed)};
}

bool arena_caches_blocks() noexcept {
  return cache_limit != 0;
}

void* tagged_allocate(std::size_t n) {
  if (Arena* a = current_arena()) {
    return a->allocate(n);
  }
  void** p = static_cast<void**>(::operator new(n + sizeof(void*)));
  *p = nullptr;  // no block: the heap
  return p + 1;
}

void tagged_release(void* p) noexcept {
  void** header = static_cast<void**>(p) - 1;
  if (*header == nullptr) {
    ::operator delete(static_cast<void*>(header));
  } else {
    arena_release(p);
  }
}

}  // namespace kubex
