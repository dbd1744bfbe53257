/* The vector tile of a transposing copy (schedule/transpose_tile.h). */

#include "schedule/transpose_tile.h"

#include "schedule/cost_model.h"

#include "dlc-c/Builder.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinTypes.h"

/* A square block of at most one vector a side: vw rows of one vector
   each, which the permutation patterns read as vw contiguous vectors and
   one vector.transpose. */
static int64_t blockSide(int64_t extent, int64_t vw) {
  return extent % vw == 0 ? vw : dlcLargestDivisor(extent, vw);
}

int dlcTransposedReadLoop(const DlcLinalgInfo *o, const int64_t *ext, int64_t vw) {
  int n = o->loops.numLoops;
  if (!o->vectorizable || n < 2 || dlcHasReduction(o))
    return -1;
  /* a generic's tensor input (a fill's input is a scalar, with no map) */
  if (!dlcOpIs(o->op, "linalg.generic") ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(o->op, 0))))
    return -1;
  MlirAffineMap in = dlcOperandMap(o->op, 0);
  intptr_t r = mlirAffineMapGetNumResults(in);
  if (r < 2 || mlirAffineMapGetNumDims(in) != n)
    return -1;
  MlirAffineExpr last = mlirAffineMapGetResult(in, r - 1);
  if (!mlirAffineExprIsADim(last))
    return -1;
  int t = (int)mlirAffineDimExprGetPosition(last);
  if (t == n - 1)
    return -1;
  /* a block narrower than 4 lanes a side gains nothing on the strided read */
  if (blockSide(ext[t], vw) < 4 || blockSide(ext[n - 1], vw) < 4)
    return -1;
  return t;
}

int dlcTransposeCopyLoop(const DlcLinalgInfo *o, const int64_t *ext, int64_t vw) {
  if (mlirOperationGetNumOperands(o->op) != 2 || mlirOperationGetNumResults(o->op) != 1)
    return -1;
  return dlcTransposedReadLoop(o, ext, vw);
}

/* Tiles `o` in t x vw blocks and vectorises them; returns the block loop's
   handle, or -1 when `o` is a single block (vectorised untiled). */
static int transposeTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                         int inner, int64_t vw) {
  int n = o->loops.numLoops;
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS];
  for (int d = 0; d < n; ++d)
    sizes[d] = ext[d] == 1 ? 0 : 1;
  int64_t a = blockSide(ext[inner], vw), b = blockSide(ext[n - 1], vw);
  sizes[inner] = a == ext[inner] ? 0 : a;
  sizes[n - 1] = b == ext[n - 1] ? 0 : b;
  if (dlcCountNonZero(sizes, n) == 0) {
    dlcScriptVectorize(s, h);
    return -1;
  }
  int loop;
  dlcScriptTileFor(s, h, sizes, n, &loop);
  /* The tile's unit loops fold away first: the read becomes a 2-D
     transposed one, which the permutation patterns turn into contiguous
     rows and a vector.transpose (with a unit dim left in its map, they do
     not apply and the rows stay strided). */
  dlcScriptFoldUnitDimsAndVectorize(s, loop);
  return loop;
}

void dlcScriptTransposeTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                            int inner, int64_t vw) {
  transposeTile(s, h, o, ext, inner, vw);
}

void dlcScriptConvCopyBackTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                               int inner, int64_t vw) {
  int n = o->loops.numLoops;
  int64_t w = ext[n - 1], whole = w / vw * vw;
  /* no whole vw x vw block: the blocks of dlcScriptTransposeTile, lowered
     as any transpose */
  if (vw != 16 || whole == 0 || ext[inner] % vw != 0) {
    transposeTile(s, h, o, ext, inner, vw);
    return;
  }
  int64_t e[DLC_SCHEDULE_MAX_LOOPS];
  for (int d = 0; d < n; ++d)
    e[d] = ext[d];
  int lo = h, hi = -1;
  if (whole < w) /* the row's last w - whole pixels: one narrower block */
    dlcScriptSplit(s, h, n - 1, whole, &lo, &hi);
  e[n - 1] = whole;
  int loop = transposeTile(s, lo, o, e, inner, vw);
  /* Each 16 x 16 block's transpose as the 64 unpack / shuffle steps of
     the AVX-512 in-register transpose. Left to the LLVM conversion, it
     became one 256-lane shuffle that LLVM compiled to about 100 vpermt2ps
     with their index vectors reloaded and spilled (48 instructions per
     output vector in the 14 x 16 blocks before). */
  if (loop >= 0)
    dlcScriptEmit(s,
                  "    transform.apply_patterns to %%h%d {\n"
                  "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                  "      transform.apply_patterns.vector.lower_transpose"
                  " lowering_strategy = \"shuffle_16x16\"\n"
                  "    } : !transform.any_op\n",
                  loop);
  if (hi >= 0) {
    e[n - 1] = w - whole;
    transposeTile(s, hi, o, e, inner, vw);
  }
}
