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
#include "support/scf_loops.h"
#include "dlc-c/Pass.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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

/* The slot of the spread prefetches in a register tile's k loop (step s):
   t = (r * steps + kk / s) * q, r = (m - lb) / MR the row block of the row
   loop `rows` (null: a single row block, r = 0), steps the k loop's trip
   count, q the lines per slot. The row part is built before the k loop,
   t at the top of its body. */
static inline MlirValue dlcSpreadSlot(MlirOperation rows, MlirOperation kLoop, int64_t q) {
  int64_t rb[3], kb[3];
  dlcForConstantBounds(kLoop, kb);
  int64_t steps = kb[1] / kb[2];
  DlcBuilder r = dlcBuilderBefore(kLoop, mlirOperationGetLocation(kLoop));
  MlirValue base = {NULL};
  if (!mlirOperationIsNull(rows) && dlcForConstantBounds(rows, rb)) {
    MlirValue m = dlcForInductionVar(rows);
    if (rb[0] != 0) /* a row loop after a peeled first block starts at MR */
      m = dlcIndexOp(&r, "arith.subi", m, dlcIndexConst(&r, rb[0]));
    MlirValue blk = dlcIndexOp(&r, "arith.divui", m, dlcIndexConst(&r, rb[2]));
    base = dlcIndexOp(&r, "arith.muli", blk, dlcIndexConst(&r, steps * q));
  } else {
    base = dlcIndexConst(&r, 0);
  }
  MlirOperation first =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(kLoop, 0)));
  DlcBuilder k = dlcBuilderBefore(first, mlirOperationGetLocation(first));
  MlirValue step = dlcIndexOp(&k, "arith.divui", dlcForInductionVar(kLoop), dlcIndexConst(&k, kb[2]));
  return dlcIndexOp(&k, "arith.addi", base, dlcIndexOp(&k, "arith.muli", step, dlcIndexConst(&k, q)));
}

/* Where the next panel's Kc block starts, for the prefetches of a panel
   `p` (of `panels`) at Kc block row `k0` (blocks of `kc` of `rows`): the
   next panel of this block (rows k0..), after the last one the next
   block's first panel (rows k0 + kc..), after the last block's last
   panel, p itself (a no-op). A null `p` is a tile of one panel: the next
   block is its own next Kc rows. */
static inline void dlcNextPanelBlock(DlcBuilder *b, MlirValue p, int64_t panels, MlirValue k0,
                                     int64_t kc, int64_t rows, MlirValue *row0, MlirValue *pan) {
  MlirValue c0 = dlcIndexConst(b, 0), p1 = {NULL};
  if (!mlirValueIsNull(p))
    p1 = dlcIndexOp(b, "arith.addi", p, dlcIndexConst(b, 1));
  MlirValue kNext = dlcIndexOp(b, "arith.addi", k0, dlcIndexConst(b, kc));
  MlirValue hasK = dlcIndexCmp(b, DLC_CMPI_ULT, kNext, dlcIndexConst(b, rows));
  MlirValue kLast = dlcIndexSelect(b, hasK, kNext, k0);
  if (mlirValueIsNull(p)) {
    *row0 = kLast, *pan = c0;
    return;
  }
  MlirValue pLast = dlcIndexSelect(b, hasK, c0, p);
  MlirValue hasP = dlcIndexCmp(b, DLC_CMPI_ULT, p1, dlcIndexConst(b, panels));
  *row0 = dlcIndexSelect(b, hasP, k0, kLast);
  *pan = dlcIndexSelect(b, hasP, p1, pLast);
}

/* A prefetch pass's `locality` option, 0 to 3 (an error at `func`
   naming the pass otherwise). */
static inline bool dlcPrefetchLocality(const DlcPass *pass, MlirOperation func, const char *name,
                                       int *out) {
  int64_t locality = dlcOptionsGetInt(dlcPassGetOptions(pass), "locality");
  if (locality >= 0 && locality <= 3) {
    *out = (int)locality;
    return true;
  }
  char msg[128];
  snprintf(msg, sizeof msg, "%s: locality must be 0 to 3, got %lld", name, (long long)locality);
  mlirEmitError(mlirOperationGetLocation(func), msg);
  return false;
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
