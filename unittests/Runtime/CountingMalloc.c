//===- CountingMalloc.c - Counting replacement of the C heap functions ----===//
//
// glibc lets a program replace malloc, free, calloc and realloc (and the
// aligned variants) by defining them: every shared object, the dynamic
// linker's lookups for JIT-compiled code included, then binds to the
// program's definitions. These forward to glibc's allocator through its
// exported __libc_* entry points, so memory from either side may be freed
// by the other, and count while counting is on (CountingMalloc.h).
//
//===----------------------------------------------------------------------===//

#include "CountingMalloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#if !defined(__GLIBC__)
#error "CountingMalloc.c forwards to glibc's __libc_* allocator functions"
#endif

void *__libc_malloc(size_t size);
void __libc_free(void *pointer);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void *__libc_valloc(size_t size);
void *__libc_pvalloc(size_t size);

static atomic_bool counting;
static atomic_uint_fast64_t allocations, bytes, largest;

static void record(size_t size) {
  if (!atomic_load_explicit(&counting, memory_order_relaxed))
    return;
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
  uint_fast64_t seen = atomic_load_explicit(&largest, memory_order_relaxed);
  while (seen < size &&
         !atomic_compare_exchange_weak_explicit(
             &largest, &seen, size, memory_order_relaxed, memory_order_relaxed))
    ;
}

void mlprog_start_counting_allocations(void) {
  atomic_store(&allocations, 0);
  atomic_store(&bytes, 0);
  atomic_store(&largest, 0);
  atomic_store(&counting, 1);
}

mlprog_allocation_counts mlprog_stop_counting_allocations(void) {
  atomic_store(&counting, 0);
  mlprog_allocation_counts counts = {
      atomic_load(&allocations), atomic_load(&bytes), atomic_load(&largest)};
  return counts;
}

void *malloc(size_t size) {
  record(size);
  return __libc_malloc(size);
}

void free(void *pointer) { __libc_free(pointer); }

void *calloc(size_t count, size_t size) {
  size_t total;
  record(__builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total);
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  // realloc(p, 0) frees p (glibc), it allocates nothing.
  if (size != 0 || !pointer)
    record(size);
  return __libc_realloc(pointer, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  record(size);
  return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
  record(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 ||
      alignment == 0)
    return EINVAL;
  record(size);
  void *pointer = __libc_memalign(alignment, size);
  if (!pointer)
    return ENOMEM;
  *result = pointer;
  return 0;
}

void *valloc(size_t size) {
  record(size);
  return __libc_valloc(size);
}

void *pvalloc(size_t size) {
  record(size);
  return __libc_pvalloc(size);
}
