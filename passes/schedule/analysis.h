/* Linalg analysis shared by the CPU and GPU schedules (as IREE's
   LLVMCPU/LLVMGPU share their lowering-config analysis): what a schedule
   reads from a linalg op (its loop kinds and extents, whether it
   vectorises, whether it is a GEMM root) and how a function's linalg ops
   form the groups a schedule tiles and fuses together.

   A backend adds only its strategy (the cost model that picks tiles) and
   what it emits for a group; the transform-script mechanism both share is
   schedule/script.h. */

#ifndef DLC_PASSES_SCHEDULE_ANALYSIS_H
#define DLC_PASSES_SCHEDULE_ANALYSIS_H

#include "schedule/cost_model.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/* What a schedule knows of one linalg.generic or linalg.fill. */
typedef struct DlcLinalgInfo {
  MlirOperation op;
  DlcLoopNest loops;
  int64_t tileExtent[DLC_SCHEDULE_MAX_LOOPS]; /* loop extents inside the group's forall */
  bool vectorizable;  /* static, projected-permutation maps, no i1 or gather */
  bool combiner;      /* one trailing reduction loop with a recognised combiner */
  bool sums;          /* the body yields combiner(x, out) */
  bool scalarOperand; /* an operand that is not a tensor (a generalised fill) */
  int numParallel;    /* leading parallel loops, when every reduction trails (-1) */
  int elementBits;    /* of the first result, 0 without a ranked tensor result */
} DlcLinalgInfo;

bool dlcIsLinalg(MlirOperation op);

/* Whether loop kind `iter` (an element of a linalg op's iterator_types) is
   a reduction. */
bool dlcIteratorIsReduction(MlirAttribute iter);

/* The indexing map of `operand` (the identity for linalg.fill's output). */
MlirAffineMap dlcOperandMap(MlirOperation op, intptr_t operand);

/* Reads a linalg.generic or linalg.fill; false for other ops, more than
   DLC_SCHEDULE_MAX_LOOPS loops, or an operand of unranked or memref type. */
bool dlcReadLinalg(MlirOperation op, DlcLinalgInfo *info);

/* GEMM shape: loops [parallel..., m, n, reduction...] with trailing
   reductions, two inputs combined by a sum, the output indexed by the
   parallel loops in order, and maps that vectorise. */
bool dlcIsGemmRoot(const DlcLinalgInfo *r);

/* A GEMM root with one reduction loop (K) that is the innermost index of
   both inputs: A [.., M, K] and B read as [.., N, K] (transpose_b). Each
   output is a dot product of two contiguous rows. */
bool dlcIsDotGemmRoot(const DlcLinalgInfo *r);

bool dlcHasReduction(const DlcLinalgInfo *o);

/* The sink's tiles for tiles of a GEMM root's parallel loops: the sink's
   loops are the root's parallel loops, in the order the sink reads the
   root's result (a packed GEMM's epilogue reads C3[panel][m][n] as
   C[m][panel][n]). `out` has DLC_SCHEDULE_MAX_LOOPS entries. */
void dlcSinkTiles(const DlcLinalgInfo *root, const DlcLinalgInfo *sink, bool rootIsSink,
                  const int64_t *rootTiles, int64_t *out);

#endif
