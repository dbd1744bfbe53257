/*===-- shape/Checked.h - Overflow-checked size arithmetic --------*- C -*-===*\
|*                                                                            *|
|* Every size dlc computes from a program or a file (element and byte        *|
|* counts, strides, window spans, padded extents, cost-model products)       *|
|* goes through these helpers, so an overflow is reported, never wrapped:    *|
|* the checked forms return true when the exact result does not fit in       *|
|* int64_t (like __builtin_*_overflow), the saturating ones clamp at         *|
|* INT64_MAX for estimates where "huge" is the right answer.                 *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_SHAPE_CHECKED_H
#define DLC_SHAPE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* True when a + b, a - b or a * b overflows; *out holds the exact result
   otherwise (and is unspecified on overflow: never print it). */
static inline bool dlcAddOverflow(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}
static inline bool dlcSubOverflow(int64_t a, int64_t b, int64_t *out) {
  return __builtin_sub_overflow(a, b, out);
}
static inline bool dlcMulOverflow(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}

/* The product of n static (non-negative) dims; true when it overflows
   (a zero dim makes it 0 whatever the others). */
static inline bool dlcProductOverflow(const int64_t *dims, int64_t n, int64_t *out) {
  int64_t p = 1;
  for (int64_t i = 0; i < n; ++i)
    if (dims[i] == 0) {
      *out = 0;
      return false;
    }
  for (int64_t i = 0; i < n; ++i)
    if (__builtin_mul_overflow(p, dims[i], &p))
      return true;
  *out = p;
  return false;
}

/* a * b clamped to INT64_MAX, for non-negative operands (cost estimates). */
static inline int64_t dlcMulSaturate(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* a + b clamped to INT64_MAX, for non-negative operands (sums of sizes). */
static inline int64_t dlcAddSaturate(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Bytes of n elements of `elementBytes` each into a size_t allocation
   size; false when it does not fit (or n is negative). */
static inline bool dlcAllocSize(int64_t n, uint64_t elementBytes, size_t *out) {
  uint64_t bytes;
  if (n < 0 || __builtin_mul_overflow((uint64_t)n, elementBytes, &bytes) ||
      bytes > (uint64_t)INT64_MAX || bytes > SIZE_MAX)
    return false;
  *out = (size_t)bytes;
  return true;
}

/* malloc, calloc and realloc for compiler-internal memory (op lists,
   strings, argument arrays): on failure they print one line naming the
   size and abort, as LLVM's allocator does for the rest of the process;
   nothing was returned NULL and used. Memory sized by a tensor or a file
   is allocated with plain malloc and a checked result that becomes an
   error message instead (runtime/npy.c, dlc-run). */
static inline void *dlcOutOfMemory(size_t count, size_t size) {
  fprintf(stderr, "dlc: out of memory allocating %zu x %zu bytes\n", count, size);
  abort();
}
static inline void *dlcXmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  return p ? p : dlcOutOfMemory(1, bytes);
}
static inline void *dlcXcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  return p ? p : dlcOutOfMemory(count, size);
}
static inline void *dlcXrealloc(void *old, size_t bytes) {
  void *p = realloc(old, bytes ? bytes : 1);
  return p ? p : dlcOutOfMemory(1, bytes);
}

#endif /* DLC_SHAPE_CHECKED_H */
