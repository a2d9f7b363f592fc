//===- CountingMalloc.h - Heap allocation counts for tests ------*- C++ -*-===//
//
// The allocation tests link CountingMalloc.c, which replaces the C heap
// functions of their process (glibc: "Replacing malloc") with ones that
// forward to glibc's own allocator and, while counting is on, count what
// every thread allocates. JIT-compiled code and dlopen'ed model libraries
// resolve `malloc` to the executable's definition, so their allocations are
// counted too. Only for test executables of their own: nothing else may
// link it.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_UNITTESTS_RUNTIME_COUNTINGMALLOC_H
#define MLPROG_UNITTESTS_RUNTIME_COUNTINGMALLOC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the process allocated while counting was on: every successful or
/// failed call of malloc, calloc, realloc (to a non-zero size),
/// aligned_alloc, posix_memalign, memalign, valloc and pvalloc (C++'s
/// operator new goes through malloc). Bytes are the sizes asked for.
typedef struct mlprog_allocation_counts {
  uint64_t count;   /**< number of allocations */
  uint64_t bytes;   /**< sum of their sizes, in bytes */
  uint64_t largest; /**< size of the largest one, in bytes; 0 if none */
} mlprog_allocation_counts;

/// Zeroes the counts and starts counting (in every thread).
void mlprog_start_counting_allocations(void);

/// Stops counting and returns the counts since the last start.
mlprog_allocation_counts mlprog_stop_counting_allocations(void);

#ifdef __cplusplus
}
#endif

#endif // MLPROG_UNITTESTS_RUNTIME_COUNTINGMALLOC_H
