/* dlc-gemm-prefetch-panels: a GEMM that reads B from panels packed at
   compile time (a model's weight, packed by dlc-prepack-weights) fetches
   each next panel's Kc block while it computes with the current one.

   The packed-panel GEMM (schedule/gemm_packing.h) walks, per Kc block, the
   tile's panels of B, and for each panel all of its MR-row register tiles:

     scf.for %k = 0 to K step Kc {
       %blk = memref.subview %Bp[0, %k, 0] [P, Kc, NR]     // Bp: [P, K, NR]
       scf.for %p = 0 to P {
         %panel = memref.subview %blk[%p, 0, 0] [1, Kc, NR]
         scf.for %m = lb to M step MR {
           scf.for %kk = 0 to Kc step s {                  // the k loop
             ... vector.transfer_read (subview %panel[0, %kk (+ j), 0] [1, 1, NR])

   The first row block of a panel reads its 32 KiB of B (Kc rows of NR
   floats) and the others find it in L1. When the weights come from memory
   (a model's weights seldom stay in cache from one call to the next: a
   BERT-base layer has 28 MB of them), that block waits on each line,
   while the hardware prefetchers, which stop at every 4 KiB page, cover
   only part of it. So every register tile's k loop software-prefetches a
   share of the next panel's block: slot t (row block r, k step s, t = r x
   steps + s) takes lines t*q .. t*q+q-1 of it, q the fewest lines per slot
   that cover its Kc rows (a row's lines are support/prefetch.h's). After
   the tile's last panel the next one is the next Kc block's first panel;
   after the last block's last panel, its own again (a no-op).

   The same loop nest reading a packed copy (B an argument:
   dlc-gemm-fuse-packing prefetches for those) or any other view does not
   match and is left alone. Results are unchanged: a prefetch reads
   nothing.

   A tile of one panel has no panel loop (canonicalization folds it: its
   next block is the same panel's next Kc rows), and rows that make one
   register tile have no row loop (its slots are the k steps alone).

   Measured interleaved in one process, each build first in half of the
   rounds (Sapphire Rapids-class Xeon, 48 KiB L1, 2 MiB L2), median: the
   BERT-base layer with constant weights 12.96 -> 10.91 and 13.04 -> 10.67
   ms at 1 thread (ahead in 16 of 16 rounds), 6.28 -> 5.72 and 6.14 ->
   5.63 at 2; ResNet-50 70.85 -> 68.35 ms (10 of 10); the MLP at b = 32
   0.269 -> 0.242 and 0.252 -> 0.233 ms; MobileNetV2 even; BERT's
   128x768x3072 alone, weights in cache, 177.5 -> 181.3 GFLOP/s (17 of
   20). Outputs bit-identical. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/index_ops.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/prefetch.h"
#include "support/scf_loops.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A k loop reading a prepacked panel, with what the prefetches need. */
typedef struct Nest {
  /* pLoop: null for a tile of one panel; rLoop: null for one row block */
  MlirOperation kLoop, rLoop, pLoop;
  MlirValue packed, k0; /* Bp [P, K, NR] and the Kc block's first row */
  int64_t panels, kc, nr, rows;
} Nest;

/* Whether `read` reads B as the header's nest does; fills `n`. A tile of
   one panel has no panel loop (canonicalization folds it): its Kc block
   is then a view [1, Kc, NR] straight from Bp [1, K, NR], and its next
   block is the same panel's next Kc rows. */
static bool matchRead(MlirOperation read, Nest *n) {
  int64_t row[3], panel[3], blk[3], rb[3], kb[3], pb[3];
  MlirOperation s3 = dlcDefiningOp(mlirOperationGetOperand(read, 0), "memref.subview");
  if (mlirOperationIsNull(s3) || !dlcSubview3(s3, 2u, row) || row[0] != 1 || row[1] != 1)
    return false;
  MlirOperation s2 = dlcDefiningOp(mlirOperationGetOperand(s3, 0), "memref.subview");
  MlirOperation s1 = {NULL}, pLoop = {NULL};
  if (!mlirOperationIsNull(s2) && dlcSubview3(s2, 1u, panel) && panel[0] == 1 &&
      panel[2] == row[2]) { /* s2: the panel of a block of P */
    s1 = dlcDefiningOp(mlirOperationGetOperand(s2, 0), "memref.subview");
    if (mlirOperationIsNull(s1) || !dlcSubview3(s1, 2u, blk) || blk[1] != panel[1] ||
        blk[2] != panel[2])
      return false;
    pLoop = dlcForOfInductionVar(mlirOperationGetOperand(s2, 1));
    if (mlirOperationIsNull(pLoop) || !dlcForConstantBounds(pLoop, pb) || pb[0] != 0 ||
        pb[1] != blk[0] || pb[2] != 1 || dlcOpIsAncestor(pLoop, s1))
      return false;
  } else if (!mlirOperationIsNull(s2) && dlcSubview3(s2, 2u, blk) && blk[0] == 1 &&
             blk[2] == row[2]) { /* s2: the block of a tile of one panel */
    s1 = s2;
  } else {
    return false;
  }
  MlirValue packed = mlirOperationGetOperand(s1, 0);
  MlirType pt = mlirValueGetType(packed);
  if (!mlirTypeIsAMemRef(pt) || mlirShapedTypeGetRank(pt) != 3 ||
      mlirShapedTypeGetDimSize(pt, 0) != blk[0] || mlirShapedTypeGetDimSize(pt, 2) != blk[2] ||
      mlirShapedTypeIsDynamicDim(pt, 1))
    return false;
  /* the row: %kk or %kk + j of the k loop */
  MlirValue kk = mlirOperationGetOperand(s3, 1);
  MlirOperation add = dlcDefiningOp(kk, "arith.addi");
  int64_t j = 0;
  if (!mlirOperationIsNull(add) && dlcConstantInt(mlirOperationGetOperand(add, 1), &j))
    kk = mlirOperationGetOperand(add, 0);
  MlirOperation kLoop = dlcForOfInductionVar(kk);
  if (mlirOperationIsNull(kLoop))
    return false;
  /* the row loop; none where the rows are one register tile (its loop
     folded away: the k loop sits right in the panel or Kc loop) */
  MlirOperation rLoop = mlirOperationGetParentOperation(kLoop);
  if (!dlcOpIs(rLoop, "scf.for") || mlirOperationEqual(rLoop, pLoop) ||
      dlcOpIsAncestor(rLoop, s1))
    rLoop = (MlirOperation){NULL};
  if (!dlcForConstantBounds(kLoop, kb) || kb[0] != 0 || kb[1] != blk[1] ||
      (!mlirOperationIsNull(rLoop) && (!dlcForConstantBounds(rLoop, rb) || rb[1] <= rb[0])) ||
      (!mlirOperationIsNull(pLoop) && !dlcOpIsAncestor(pLoop, kLoop)) ||
      dlcOpIsAncestor(kLoop, s1))
    return false;
  *n = (Nest){.kLoop = kLoop, .rLoop = rLoop, .pLoop = pLoop, .packed = packed,
              .k0 = mlirOperationGetOperand(s1, 1), .panels = blk[0], .kc = blk[1],
              .nr = blk[2], .rows = mlirShapedTypeGetDimSize(pt, 1)};
  return true;
}

/* The prefetches of the header, at the top of `n`'s k loop. */
static void prefetchNext(const Nest *n, int locality) {
  int64_t rb[3] = {0, 1, 1}, kb[3];
  bool rows = !mlirOperationIsNull(n->rLoop);
  if (rows)
    dlcForConstantBounds(n->rLoop, rb);
  dlcForConstantBounds(n->kLoop, kb);
  int64_t lpr = dlcRowPrefetches(n->nr), lines = n->kc * lpr, steps = kb[1] / kb[2];
  int64_t slots = (rb[1] - rb[0] + rb[2] - 1) / rb[2] * steps;
  int64_t q = (lines + slots - 1) / slots;
  /* where: the next panel, else the next Kc block's first, else this one */
  MlirOperation outer = rows ? n->rLoop : n->kLoop;
  DlcBuilder w = dlcBuilderBefore(outer, mlirOperationGetLocation(outer));
  MlirValue p = mlirOperationIsNull(n->pLoop) ? (MlirValue){NULL} : dlcForInductionVar(n->pLoop);
  MlirValue row0, pan;
  dlcNextPanelBlock(&w, p, n->panels, n->k0, n->kc, n->rows, &row0, &pan);
  /* the prefetches go after the slot's ops, before the k loop's own */
  MlirOperation first =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(n->kLoop, 0)));
  MlirValue t = dlcSpreadSlot(n->rLoop, n->kLoop, q);
  DlcBuilder k = dlcBuilderBefore(first, mlirOperationGetLocation(first));
  for (int64_t j = 0; j < q; ++j) {
    MlirValue rowIn, col;
    dlcSpreadLine(&k, t, j, lines, lpr, n->nr, &rowIn, &col);
    MlirValue row = dlcIndexOp(&k, "arith.addi", row0, rowIn);
    dlcBuildPrefetch(&k, DLC_VALUES(n->packed, pan, row, col), false, locality);
  }
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int locality;
  if (!dlcPrefetchLocality(pass, func, "dlc-gemm-prefetch-panels", &locality))
    return (MlirLogicalResult){0};
  DlcOpList reads = dlcOpListOfWalk(func, "vector.transfer_read"), done = {0};
  /* matched first, rewritten after; each k loop once */
  Nest *nests = NULL;
  intptr_t count = 0;
  for (intptr_t i = 0; i < reads.n; ++i) {
    Nest n;
    if (!matchRead(reads.ops[i], &n))
      continue;
    bool seen = false;
    for (intptr_t j = 0; j < done.n && !seen; ++j)
      seen = mlirOperationEqual(done.ops[j], n.kLoop);
    if (seen)
      continue;
    dlcOpListPush(&done, n.kLoop);
    nests = dlcXrealloc(nests, sizeof *nests * (size_t)(count + 1));
    nests[count++] = n;
  }
  for (intptr_t i = 0; i < count; ++i)
    prefetchNext(&nests[i], locality);
  if (count > 0)
    dlcPassAddStatistic(pass, "loops", (uint64_t)count);
  free(nests);
  dlcOpListFree(&reads);
  dlcOpListFree(&done);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"locality", "the prefetches' locality hint (3: prefetcht0, into L1)", DLC_OPTION_INT, "3"},
};

static const DlcStatisticDesc kStats[] = {{"loops", "k loops that prefetch the next panel"}};

const DlcPassDescriptor dlcGemmPrefetchPanelsPass = {
    .argument = "dlc-gemm-prefetch-panels",
    .summary = "In a GEMM on B packed at compile time, each register tile's k loop prefetches "
               "a share of the next panel's Kc block",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof *kStats,
    .run = run,
};
