// SPDX-License-Identifier: Apache-2.0
/* The memory pass's allocation counter: an LD_PRELOAD library over glibc's malloc family.
 * Adapters that find kubex_bench_alloc_snapshot (dlsym) report allocations and bytes per
 * operation from two snapshots around their measured loop; the timing pass never loads it.
 * glibc >= 2.34 exports the __libc_* entry points, so no dlsym bootstrap is needed. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

static _Atomic uint64_t count, bytes, live, peak;

static void on_alloc(void* p) {
  if (!p) {
    return;
  }
  const uint64_t size = malloc_usable_size(p);
  atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
  const uint64_t now = atomic_fetch_add_explicit(&live, size, memory_order_relaxed) + size;
  uint64_t old = atomic_load_explicit(&peak, memory_order_relaxed);
  while (now > old &&
         !atomic_compare_exchange_weak_explicit(&peak, &old, now, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

static void on_free(void* p) {
  if (p) {
    atomic_fetch_sub_explicit(&live, malloc_usable_size(p), memory_order_relaxed);
  }
}

/* count, bytes allocated, live bytes, peak live bytes (since the last reset_peak). */
void kubex_bench_alloc_snapshot(uint64_t out[4]) {
  out[0] = atomic_load(&count);
  out[1] = atomic_load(&bytes);
  out[2] = atomic_load(&live);
  out[3] = atomic_load(&peak);
}

/* Starts a new peak window at the current live size. */
void kubex_bench_alloc_reset_peak(void) { atomic_store(&peak, atomic_load(&live)); }

void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  on_alloc(p);
  return p;
}

void free(void* p) {
  on_free(p);
  __libc_free(p);
}

void* calloc(size_t n, size_t size) {
  void* p = __libc_calloc(n, size);
  on_alloc(p);
  return p;
}

void* realloc(void* old, size_t size) {
  /* Counted as a free and an allocation, as a moving realloc is. */
  if (old) {
    on_free(old);
  }
  void* p = __libc_realloc(old, size);
  if (p) {
    on_alloc(p);
  } else if (old && size != 0) {
    on_alloc(old); /* failed: the old block is still live */
  }
  return p;
}

void* memalign(size_t alignment, size_t size) {
  void* p = __libc_memalign(alignment, size);
  on_alloc(p);
  return p;
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  void* p = memalign(alignment, size);
  if (!p) {
    return ENOMEM;
  }
  *out = p;
  return 0;
}

void* valloc(size_t size) { return memalign(4096, size); }

void* pvalloc(size_t size) { return memalign(4096, (size + 4095) & ~(size_t)4095); }
