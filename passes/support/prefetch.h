/* Software prefetches of the rows the GEMM loop-nest passes read or write
   (dlc-gemm-fuse-packing, dlc-gemm-fuse-unpack): the memref.prefetch op,
   and which floats of a row of `len` to prefetch so that every cache line
   it touches is fetched. A row need not start a line (NumPy's buffers are
   16-byte aligned), so the floats 0, 16, 32 ... and the last: consecutive
   ones at most a line apart cover every line in between. */
#ifndef DLC_PASSES_SUPPORT_PREFETCH_H
#define DLC_PASSES_SUPPORT_PREFETCH_H

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdbool.h>
#include <stdint.h>

enum { DLC_LINE_FLOATS = 16 };

/* How many floats of a row of `len` (> 0) to prefetch: 3 for 32 (0, 16,
   31), 2 for 16 (0, 15), 1 for 1. */
static inline int64_t dlcRowPrefetches(int64_t len) {
  return (len + DLC_LINE_FLOATS - 1) / DLC_LINE_FLOATS + ((len - 1) % DLC_LINE_FLOATS != 0);
}

/* The `j`th of them: min(16 j, len - 1). */
static inline int64_t dlcRowPrefetchAt(int64_t j, int64_t len) {
  return j * DLC_LINE_FLOATS < len - 1 ? j * DLC_LINE_FLOATS : len - 1;
}

/* memref.prefetch of operands[0] at indices operands[1 .. n - 1]. */
static inline void dlcBuildPrefetch(DlcBuilder *b, intptr_t n, const MlirValue *operands,
                                    bool isWrite, int locality) {
  MlirContext ctx = b->context;
  dlcBuildOpTyped(b, "memref.prefetch", n, operands, 0, NULL,
                  DLC_ATTRS(dlcNamedBool(ctx, "isWrite", isWrite),
                            dlcNamed(ctx, "localityHint",
                                     mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), locality)),
                            dlcNamedBool(ctx, "isDataCache", true)));
}

#endif
