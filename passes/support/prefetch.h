/* Software prefetches of the rows the GEMM loop-nest passes read or write
   (dlc-gemm-fuse-packing, dlc-gemm-fuse-unpack, dlc-gemm-prefetch-panels):
   the memref.prefetch op, which floats of a row of `len` to prefetch so
   that every cache line it touches is fetched, and the lines of a block
   spread over slots. A row need not start a line (NumPy's buffers are
   16-byte aligned), so the floats 0, 16, 32 ... and the last: consecutive
   ones at most a line apart cover every line in between. */
#ifndef DLC_PASSES_SUPPORT_PREFETCH_H
#define DLC_PASSES_SUPPORT_PREFETCH_H

#include "dlc-c/Builder.h"
#include "support/index_ops.h"
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

/* The prefetches spread over a loop nest's slots (dlc-gemm-fuse-packing,
   dlc-gemm-prefetch-panels): slot `t` takes lines t + j of a block of rows
   of `len` floats, each row its dlcRowPrefetches(len) = `lpr` lines. Line
   t + j (clamped to the block's last, `lines` - 1) as the row in the block
   and the float of that row to prefetch. */
static inline void dlcSpreadLine(DlcBuilder *b, MlirValue t, int64_t j, int64_t lines,
                                 int64_t lpr, int64_t len, MlirValue *row, MlirValue *col) {
  MlirValue line = dlcIndexOp(b, "arith.minui", dlcIndexOp(b, "arith.addi", t, dlcIndexConst(b, j)),
                              dlcIndexConst(b, lines - 1));
  *row = dlcIndexOp(b, "arith.divui", line, dlcIndexConst(b, lpr));
  *col = dlcIndexOp(b, "arith.minui",
                    dlcIndexOp(b, "arith.muli",
                               dlcIndexOp(b, "arith.remui", line, dlcIndexConst(b, lpr)),
                               dlcIndexConst(b, DLC_LINE_FLOATS)),
                    dlcIndexConst(b, len - 1));
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
