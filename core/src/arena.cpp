#include <kubex/core/arena.hpp>

#include <algorithm>
#include <atomic>
#include <new>

namespace kubex {
namespace {

// A block's count of live allocations. While its Arena may still allocate from it, the count
// carries a bias, so that containers destroyed during the decode cannot take it to zero; the
// Arena's own allocations are counted in a plain integer and added when it closes the block.
struct Block {
  std::atomic<std::int64_t> refs;
};
constexpr std::int64_t open_bias = std::int64_t{1} << 40;
constexpr std::size_t default_block = 4096;
constexpr std::size_t max_block = std::size_t{1} << 20;
constexpr std::size_t header = (sizeof(Block) + 7) & ~std::size_t{7};

std::atomic<std::size_t> live_blocks{0};

void free_block(Block* b) noexcept {
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  b->~Block();
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
  void* raw = ::operator new(size);
  auto* b = new (raw) Block{open_bias};
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
