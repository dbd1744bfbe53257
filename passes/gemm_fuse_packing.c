/* dlc-gemm-fuse-packing: a GEMM that packs B on every call (B an
   argument, not a constant weight that dlc-prepack-weights packed at
   compile time) packs it inside its first row block's compute instead of
   in a copy loop of its own.

   The packed-panel GEMM (schedule/gemm_packing.h, cpu_schedule.c) runs,
   per parallel tile of P panels of NR columns, a loop over Kc blocks of K.
   Each block first copied B[k : k + Kc, P panels] into a packed buffer
   Bp[P][Kc][NR], then ran the register tiles over it, panel by panel, MR
   rows at a time. That copy is a pass of its own over B, with nothing to
   overlap: at BERT-base sizes (B 768x3072, 9.4 MB) about 0.3 ms of the
   3.5 ms GEMM, and the whole gap between weights passed as arguments and
   weights prepacked as constants.

   After this pass the copy is gone. For each panel, the first MR-row
   block (peeled off the row loop) reads its B vectors straight from B's
   rows and stores each one into Bp as it goes; the remaining row blocks
   read Bp as before. Every element of Bp is still written before it is
   read (the first row block walks the whole Kc block of its panel), the
   same vectors meet the same accumulators in the same order, so results
   are bit-identical. B's rows are read once, by loads the FMAs overlap.

   Measured (BERT-base layer b=1 s=128, weights as arguments, interleaved
   best of 30, loaded 2-core machine): 1 thread 11.32 -> 10.68 ms CPU time
   (1.06x), 2 threads 12.27 -> 11.63 ms wall (1.055x). Numerics unchanged:
   outputs bit-identical to the unfused build.

   The pass matches the loop nest cpu_schedule.c emits, after
   bufferization and before dlc-kernel-dedup outlines the nests, and
   leaves anything else alone:

     scf.for %k = 0 to K step Kc {
       %blk = memref.subview %B[%k, 0, 0] [Kc, P, NR]
       %bp = memref.alloc() : memref<P x Kc x NR>
       scf.for %i = 0 to Kc { scf.for %j = 0 to P {          // the copy
         %v = vector.transfer_read (subview %blk[%i, %j, 0] [1, 1, NR])
         vector.transfer_write %v, (subview %bp[%j, %i, 0] [1, 1, NR]) } }
       scf.for %p = 0 to P {                                 // the compute
         %panel = memref.subview %bp[%p, 0, 0] [1, Kc, NR]
         scf.for %m = 0 to M step MR { ... vector.transfer_read
             (subview %panel[0, %kk, 0] [1, 1, NR]) ... } } }

   Anything that reads or writes Bp otherwise keeps its copy loop.

   Where the time went (perf annotate of the BERT layer as an AOT library,
   1 thread): the peeled first row block, 1/16 of the FMAs at M = 128,
   took 22-27% of each GEMM's cycles when B (2.4-9.4 MB) comes from beyond
   L2, and ~10% at 128x256x768 where B fits L2: its B rows, N floats apart,
   are demand misses the hardware prefetchers do not follow. Prefetching
   the next panel from the first row block, or from row blocks 1 and 2,
   only moved the misses (no gain); spread over all the other row blocks'
   k loops (prefetchNext) they overlap the FMAs. Measured in one process,
   interleaved best of 30-60, B rotated over 24-80 copies so that it comes
   from memory as in a model, loaded 2-core machine: 128x768x3072 186.5 ->
   198.9 GFLOP/s (1 thread), 329 -> 342 (2 threads); 128x768x768 202 -> 211
   (1T), 306 -> 345 (2T); 128x3072x768 195 -> 208 (1T); square GEMMs with B
   in cache 256^3 to 2048^3 unchanged; the BERT-base layer (weights as
   arguments) 10.53 -> 10.04 ms (1T), 15.7 -> 13.7 ms (2T), 12 layers
   198.9 -> 189.6 ms (1T). Outputs are bit-identical: a prefetch reads
   nothing.

   Not every GEMM gains: with `max-run-bytes` (which --lower-to-llvm sets
   from dlcGemmFusePackingMaxRunBytes: 2 KiB with AVX-512) a tile whose
   Kc rows of B are runs of that many bytes or more keeps its copy, which
   streams long runs faster than the first row block reads them a panel
   at a time (the figures are in cost_model.c): BERT's 128x768x3072 on a
   Sapphire Rapids-class Xeon, 1.06x faster with the copy.

   Nor does a GEMM whose Kc rows of B, N floats apart, map onto fewer
   lines of L2 than Kc (`l2-bytes`, `l2-ways`: dlcCacheLinesForRows): the
   rows the other row blocks prefetch, and those the first row block reads
   ahead, then evict each other before it gets to them, and it waits on
   each row. BERT's 128x768x3072 (rows 12 KiB apart: 16 sets of a 512 KiB
   8-way L2, 128 lines for Kc = 384) ran its first row block, 1/22 of the
   FMAs, in 22% of the GEMM's time (perf annotate, AOT library, AMD EPYC
   Zen 3, AVX2); with the copy, interleaved in one process, 1 thread, 10
   rounds: 64.0 -> 73.9 and 74.9 GFLOP/s median (OpenBLAS 75.9); 1024^3
   (4 KiB, 128 lines for Kc = 256) 67.5 -> 70.4 and 72.8 -> 75.1, 2048^3
   61.8 -> 64.5; 128x768x768 and 128x3072x768 (3 KiB: 512 lines), which
   stay fused, 81.3 either way and 71.5 against 70.6.

   Tried and dropped: prefetching each register tile's next MR x NR block
   of the packed C before its k loop. At 1024^3 (Kc 128) perf annotate
   (cpu-clock) put 11.7% of the samples on the Cp loads, stores and loop
   around the k loop, 3.4% with the prefetch, but the time did not follow:
   interleaved with order alternated by round (loaded machine) it lost at
   1024^3 (1 of 16 rounds, -2.8% median) and 128x3072x768 (1 of 12), won
   only at 2048^3 (+0.6%), and was even at 256^3, 512^3, 128x768x768. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/index_ops.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/prefetch.h"
#include "support/scf_loops.h"
#include "support/type_bytes.h"
#include "schedule/cost_model.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdint.h>
#include <stdio.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* lb, ub and step of an scf.for from 0 by constants, a whole number of steps. */
static bool loopBounds(MlirOperation loop, int64_t b[3]) {
  return dlcForConstantBounds(loop, b) && b[0] == 0 && b[1] > 0 && b[1] % b[2] == 0;
}

static MlirOperation loopOf(MlirValue v) { return dlcForOfInductionVar(v); }

/* The op in `parent`'s body that holds `op` (null when none does). */
static MlirOperation childHolding(MlirOperation parent, MlirOperation op) {
  MlirOperation prev = {NULL};
  for (; !mlirOperationIsNull(op) && !mlirOperationEqual(op, parent);
       op = mlirOperationGetParentOperation(op))
    prev = op;
  return mlirOperationIsNull(op) ? op : prev;
}

static bool sized(const int64_t s[3], int64_t a, int64_t b, int64_t c) {
  return s[0] == a && s[1] == b && s[2] == c;
}

typedef struct Match {
  MlirOperation kLoop;       /* over Kc blocks */
  MlirOperation copy;        /* the packing copy's outer loop, in kLoop's body */
  MlirOperation read, write; /* its vector read of B and write to Bp */
  MlirOperation elem;        /* its subview of B: blk[%i, %j, 0] [1, 1, NR] */
  MlirValue packed;          /* Bp, a memref.alloc [P, Kc, NR] */
  MlirOperation pLoop, rLoop; /* the compute's panel loop and MR-row loop */
  int64_t kc, panels, nr, mr;
  int64_t bRowBytes; /* between B's rows (0: unknown) */
} Match;

/* The packing copy around vector.transfer_read `read`. */
static bool matchCopy(MlirOperation read, Match *m) {
  int64_t es[3], bs[3], ds[3], kb[3], ib[3], jb[3];
  MlirOperation elem = dlcDefiningOp(mlirOperationGetOperand(read, 0), "memref.subview");
  if (mlirOperationIsNull(elem) || !dlcSubview3(elem, 3, es))
    return false;
  MlirOperation blk = dlcDefiningOp(mlirOperationGetOperand(elem, 0), "memref.subview");
  if (mlirOperationIsNull(blk) || !dlcSubview3(blk, 1, bs))
    return false;
  MlirOperation kLoop = loopOf(mlirOperationGetOperand(blk, 1));
  MlirOperation iLoop = loopOf(mlirOperationGetOperand(elem, 1));
  MlirOperation jLoop = loopOf(mlirOperationGetOperand(elem, 2));
  MlirOperation write = dlcSoleUser(mlirOperationGetResult(read, 0), NULL);
  if (mlirOperationIsNull(kLoop) || mlirOperationIsNull(iLoop) || mlirOperationIsNull(jLoop) ||
      !dlcOpIs(write, "vector.transfer_write") || mlirOperationGetNumResults(write) != 0 ||
      !loopBounds(kLoop, kb) || !loopBounds(iLoop, ib) || !loopBounds(jLoop, jb))
    return false;
  /* copy: for i < Kc, for j < P: Bp[j, i, :] = blk[i, j, :], blk = B[k + Kc rows] */
  MlirOperation dst = dlcDefiningOp(mlirOperationGetOperand(write, 1), "memref.subview");
  if (mlirOperationIsNull(dst) || !dlcSubview3(dst, 3, ds))
    return false;
  MlirOperation alloc = dlcDefiningOp(mlirOperationGetOperand(dst, 0), "memref.alloc");
  int64_t kc = bs[0], panels = bs[1], nr = bs[2];
  if (mlirOperationIsNull(alloc) || kb[2] != kc || ib[1] != kc || ib[2] != 1 ||
      jb[1] != panels || jb[2] != 1 || !sized(es, 1, 1, nr) || !sized(ds, 1, 1, nr) ||
      !mlirValueEqual(mlirOperationGetOperand(dst, 1), dlcForInductionVar(jLoop)) ||
      !mlirValueEqual(mlirOperationGetOperand(dst, 2), dlcForInductionVar(iLoop)) ||
      !mlirOperationEqual(mlirOperationGetParentOperation(iLoop), kLoop) ||
      !mlirOperationEqual(mlirOperationGetParentOperation(jLoop), iLoop) ||
      !mlirOperationEqual(mlirOperationGetParentOperation(read), jLoop) ||
      !mlirOperationEqual(mlirOperationGetParentOperation(alloc), kLoop))
    return false;
  MlirType at = mlirValueGetType(mlirOperationGetResult(alloc, 0));
  if (mlirShapedTypeGetDimSize(at, 0) != panels || mlirShapedTypeGetDimSize(at, 1) != kc ||
      mlirShapedTypeGetDimSize(at, 2) != nr)
    return false;
  *m = (Match){.kLoop = kLoop, .copy = iLoop, .read = read, .write = write, .elem = elem,
               .packed = mlirOperationGetResult(alloc, 0), .kc = kc, .panels = panels,
               .nr = nr};
  int64_t strides[3], offset, elemBytes = dlcStaticTypeBytes(at) / (panels * kc * nr);
  MlirType bt = mlirValueGetType(mlirOperationGetResult(blk, 0));
  if (mlirLogicalResultIsSuccess(mlirMemRefTypeGetStridesAndOffset(bt, strides, &offset)) &&
      strides[0] > 0 && elemBytes > 0)
    m->bRowBytes = strides[0] * elemBytes;
  return true;
}

/* Whether a read of Bp through `s2` (panel[0, kk, 0] [1, 1, NR]) is one of
   the first row block's reads in its k loop: kk is that loop's induction
   variable plus a constant; marks which constant in `seen`. */
static bool kStep(const Match *m, MlirOperation s2, MlirOperation *kLoop, uint64_t *seen) {
  MlirValue kk = mlirOperationGetOperand(s2, 1);
  int64_t j = 0;
  MlirOperation add = dlcDefiningOp(kk, "arith.addi");
  if (!mlirOperationIsNull(add)) {
    if (!dlcConstantInt(mlirOperationGetOperand(add, 1), &j))
      return false;
    kk = mlirOperationGetOperand(add, 0);
  }
  MlirOperation l = loopOf(kk);
  int64_t b[3];
  if (mlirOperationIsNull(l) || !loopBounds(l, b) || b[1] != m->kc || b[2] > 64 || j < 0 ||
      j >= b[2] || !mlirOperationEqual(mlirOperationGetParentOperation(l), m->rLoop) ||
      (!mlirOperationIsNull(*kLoop) && !mlirOperationEqual(*kLoop, l)))
    return false;
  *kLoop = l;
  *seen |= 1ull << j;
  return true;
}

/* Ops that neither read nor write memory: views and constants. The B
   reads move from the copy to the first row block, past whatever lies
   between them, so only these may. */
static bool viewOnly(MlirOperation op) {
  static const char *const kViews[] = {"memref.subview", "memref.expand_shape",
                                       "memref.collapse_shape", "memref.alloc",
                                       "arith.constant", "affine.apply"};
  return DLC_OP_IS_ANY(op, kViews);
}

/* Whether only views and constants run from `op` (inclusive) to `to`. */
static bool viewsUntil(MlirOperation op, MlirOperation to) {
  for (; !mlirOperationEqual(op, to); op = mlirOperationGetNextInBlock(op))
    if (mlirOperationIsNull(op) || !viewOnly(op))
      return false;
  return true;
}

/* Whether `v` (a view of Bp) is only viewed further and read by
   vector.transfer_read. */
static bool readOnlyView(MlirValue v) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (dlcOpIs(user, "memref.subview") && mlirOpOperandGetOperandNumber(u) == 0) {
      if (!readOnlyView(mlirOperationGetResult(user, 0)))
        return false;
    } else if (!dlcOpIs(user, "vector.transfer_read") || mlirOpOperandGetOperandNumber(u) != 0) {
      return false;
    }
  }
  return true;
}

/* The compute: scf.for %p < P whose body views Bp[%p] and whose first
   loop walks rows MR at a time. Bp is used by nothing else than the copy,
   its dealloc and those views; every read of a view sits in the row loop,
   or after it; and in the row loop a k loop over the whole Kc block reads
   each step (unrolled by its step: every offset 0..step-1 present), so
   peeling the first row block writes all of Bp[%p] before any other read. */
static bool matchCompute(Match *m) {
  MlirValue panel = (MlirValue){NULL};
  for (MlirOpOperand u = mlirValueGetFirstUse(m->packed); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    int64_t s1[3];
    if (dlcOpIsAncestor(m->copy, user) || dlcOpIs(user, "memref.dealloc"))
      continue;
    if (!dlcSubview3(user, 1, s1) || !sized(s1, 1, m->kc, m->nr))
      return false;
    MlirOperation p = loopOf(mlirOperationGetOperand(user, 1));
    int64_t pb[3];
    if (mlirOperationIsNull(p) || !loopBounds(p, pb) || pb[1] != m->panels || pb[2] != 1 ||
        !mlirOperationEqual(mlirOperationGetParentOperation(p), m->kLoop) ||
        !mlirOperationEqual(mlirOperationGetParentOperation(user), p) ||
        !mlirOperationIsBeforeInBlock(m->copy, p) ||
        (!mlirOperationIsNull(m->pLoop) && mlirOperationEqual(m->pLoop, p)))
      return false;
    /* Rows of M split into blocks of their own (a prime M, 197 or 257
       rows: cpu_schedule.c's emitGemmGroup) each walk the panels in a loop
       of its own. The first packs; the later ones only read Bp, whole by
       then. */
    if (!mlirOperationIsNull(m->pLoop) && mlirOperationIsBeforeInBlock(m->pLoop, p)) {
      if (!readOnlyView(mlirOperationGetResult(user, 0)))
        return false;
      continue;
    }
    if (!mlirValueIsNull(panel) && !readOnlyView(panel))
      return false;
    m->pLoop = p;
    panel = mlirOperationGetResult(user, 0);
  }
  if (mlirValueIsNull(panel))
    return false;
  MlirBlock pBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(m->pLoop, 0));
  for (MlirOperation r = mlirBlockGetFirstOperation(pBody); !mlirOperationIsNull(r);
       r = mlirOperationGetNextInBlock(r)) {
    int64_t rb[3];
    if (dlcOpIs(r, "scf.for")) {
      if (!loopBounds(r, rb) || mlirOperationGetNumResults(r) != 0)
        return false;
      m->rLoop = r, m->mr = rb[2];
      break;
    }
  }
  if (mlirOperationIsNull(m->rLoop) ||
      !viewsUntil(mlirOperationGetNextInBlock(m->copy), m->pLoop) ||
      !viewsUntil(mlirBlockGetFirstOperation(pBody), m->rLoop))
    return false;
  MlirOperation kLoop = {NULL};
  uint64_t seen = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(panel); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation s2 = mlirOpOperandGetOwner(u);
    int64_t s[3];
    if (!dlcSubview3(s2, 2, s) || !sized(s, 1, 1, m->nr))
      return false;
    bool read = false;
    for (MlirOpOperand r = mlirValueGetFirstUse(mlirOperationGetResult(s2, 0));
         !mlirOpOperandIsNull(r); r = mlirOpOperandGetNextUse(r), read = true)
      if (!dlcOpIs(mlirOpOperandGetOwner(r), "vector.transfer_read") ||
          mlirOpOperandGetOperandNumber(r) != 0)
        return false;
    MlirOperation top = childHolding(m->pLoop, s2);
    if (!read) /* a view nothing reads needs no packed data */
      continue;
    if (mlirOperationEqual(top, m->rLoop)) {
      if (!kStep(m, s2, &kLoop, &seen))
        return false;
    } else if (mlirOperationIsNull(top) || !mlirOperationIsBeforeInBlock(m->rLoop, top)) {
      return false;
    }
  }
  int64_t kb[3];
  return !mlirOperationIsNull(kLoop) && loopBounds(kLoop, kb) &&
         seen == (kb[2] == 64 ? ~0ull : (1ull << kb[2]) - 1);
}

/* The scf.for directly in `loop`'s body that walks the Kc block. */
static MlirOperation innerKLoop(const Match *m, MlirOperation loop) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    int64_t kb[3];
    if (loopBounds(op, kb) && kb[1] == m->kc)
      return op;
  }
  return (MlirOperation){NULL};
}

/* memref.prefetch (read) of tile[row, pan, col]. */
static void prefetchRead(DlcBuilder *b, MlirValue tile, MlirValue row, MlirValue pan,
                         MlirValue col, int locality) {
  dlcBuildPrefetch(b, DLC_VALUES(tile, row, pan, col), false, locality);
}

/* Software prefetch of the B rows the next first row block will read.
   The first row block streams its panel's Kc rows of B, NR floats each, N
   floats apart, doing MR FMAs per float where the other row blocks do M:
   from beyond L2 it cannot keep up, and the hardware prefetchers do not
   follow one short run per 4 KiB page. So the other row blocks, which
   read only Bp and A (L1, L2), spread those loads over their k loops:
   slot t (row block r, step s of the unrolled k loop, t = r * steps + s)
   prefetches lines t*q .. t*q+q-1 of the next panel (the next Kc block's
   first panel after the last one; the last panel of the last block
   prefetches its own rows again, a no-op), q the fewest lines per slot
   that cover its Kc rows, a row's lines those of support/prefetch.h
   (NR/16 + 1 for a multiple of 16: offsets 0, 16, ... and its last float).
   Locality 3 (prefetcht0): measured against 1 (prefetcht2) and 2, the
   same within noise, never slower. */
static void prefetchNext(const Match *m, MlirOperation pLoopFirst) {
  MlirOperation rest = m->rLoop, kLoop = innerKLoop(m, rest);
  MlirOperation blk = dlcDefiningOp(mlirOperationGetOperand(m->elem, 0), "memref.subview");
  enum { kLocality = 3 };
  int64_t rb[3], kb[3];
  bool bounds = true;
  for (int i = 0; i < 3; ++i)
    bounds = bounds && dlcConstantInt(mlirOperationGetOperand(rest, i), &rb[i]);
  if (mlirOperationIsNull(kLoop) || mlirOperationIsNull(blk) || !bounds ||
      rb[2] <= 0 || rb[1] <= rb[0] || !loopBounds(kLoop, kb))
    return;
  MlirValue tile = mlirOperationGetOperand(blk, 0), k0 = mlirOperationGetOperand(blk, 1);
  int64_t kTotal = mlirShapedTypeGetDimSize(mlirValueGetType(tile), 0);
  int64_t lpr = dlcRowPrefetches(m->nr);
  int64_t lines = m->kc * lpr, steps = kb[1] / kb[2];
  int64_t slots = (rb[1] - rb[0]) / rb[2] * steps, q = (lines + slots - 1) / slots;
  if (kTotal <= 0 || slots <= 0)
    return;
  /* where: the next panel of this Kc block, else the next block's first */
  DlcBuilder b = dlcBuilderBefore(pLoopFirst, mlirOperationGetLocation(pLoopFirst));
  MlirValue row0, pan;
  dlcNextPanelBlock(&b, dlcForInductionVar(m->pLoop), m->panels, k0, m->kc, kTotal, &row0, &pan);
  /* the prefetches go after the slot's ops, before the k loop's own */
  MlirOperation kFirst =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(kLoop, 0)));
  MlirValue t = dlcSpreadSlot(rest, kLoop, q);
  DlcBuilder kb2 = dlcBuilderBefore(kFirst, mlirOperationGetLocation(kFirst));
  for (int64_t j = 0; j < q; ++j) {
    MlirValue rowIn, col;
    dlcSpreadLine(&kb2, t, j, lines, lpr, m->nr, &rowIn, &col);
    MlirValue row = dlcIndexOp(&kb2, "arith.addi", row0, rowIn);
    prefetchRead(&kb2, tile, row, pan, col, kLocality);
  }
}

/* In the first row block, each step's read of B row kk also prefetches
   row kk + `ahead` of the same panel (clamped to B's last row: the next
   Kc block's, past the end of this one) into L1: its NR floats, at
   offsets 0, 16, ... and the last. The spread prefetches above bring the
   panel's rows in ahead of the block, but not all of them stay in L1
   until it reads them: rows N floats apart share few L1 sets (N = 3072,
   12 KiB: all of them one set per line, 12 ways for 256 rows), so most
   come back from L2, a latency the block's 16 FMAs per row do not hide.
   Measured interleaved in one process, each build first in half of the
   runs (1 thread, Sapphire Rapids-class Xeon, loaded machine), 16 rows
   ahead against none: 512^3 160.0 -> 162.6 and 162.7 -> 166.1 GFLOP/s
   median (ahead in 16 and 14 of 20 rounds); 128x768x3072 with B from
   memory (24 copies) 132.6 -> 133.7 and 132.2 -> 133.4; the BERT layer
   13.18 -> 12.66 and 15.35 -> 15.25 ms. A first run that always timed
   the variant without it first showed 1.10x at 512^3 and 1.04x at
   128x768x3072: that harness favoured one position by 2-3%. On a
   smaller, 8-way L1 (Zen 3) fewer rows ahead pay: the pipeline takes the
   distance from the target (dlcGemmFusePackingRowsAhead, cost_model.c). */
static void prefetchAhead(const Match *m, MlirOperation before, MlirValue kk, MlirValue pan,
                          int64_t ahead) {
  enum { kLocality = 3 };
  MlirOperation blk = dlcDefiningOp(mlirOperationGetOperand(m->elem, 0), "memref.subview");
  if (mlirOperationIsNull(blk) || ahead <= 0)
    return;
  MlirValue tile = mlirOperationGetOperand(blk, 0), k0 = mlirOperationGetOperand(blk, 1);
  int64_t kTotal = mlirShapedTypeGetDimSize(mlirValueGetType(tile), 0);
  DlcBuilder b = dlcBuilderBefore(before, mlirOperationGetLocation(before));
  MlirValue row = dlcIndexOp(&b, "arith.addi", k0,
                             dlcIndexOp(&b, "arith.addi", kk, dlcIndexConst(&b, ahead)));
  row = dlcIndexOp(&b, "arith.minui", row, dlcIndexConst(&b, kTotal - 1));
  for (int64_t j = 0; j < dlcRowPrefetches(m->nr); ++j)
    prefetchRead(&b, tile, row, pan, dlcIndexConst(&b, dlcRowPrefetchAt(j, m->nr)), kLocality);
}

static MlirOperation insertClone(MlirOperation like, MlirOperation before) {
  MlirOperation c = mlirOperationClone(like);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, c);
  return c;
}

/* The first row block peeled off the row loop; in it each read of
   Bp[%p, kk] becomes a read of B's blk[kk, %p] that also stores the vector
   to Bp[%p, kk]; the copy loop goes. */
static void fuse(const Match *m, bool prefetch, int64_t ahead) {
  MlirOperation first = m->rLoop;
  int64_t rb[3];
  loopBounds(m->rLoop, rb);
  if (rb[1] > m->mr) {
    first = insertClone(m->rLoop, m->rLoop);
    DlcBuilder b = dlcBuilderBefore(first, mlirOperationGetLocation(first));
    MlirValue mr = dlcIndexConst(&b, m->mr);
    mlirOperationSetOperand(first, 1, mr);
    mlirOperationSetOperand(m->rLoop, 0, mr);
  }
  if (prefetch && !mlirOperationEqual(first, m->rLoop))
    prefetchNext(m, first);
  DlcOpList reads = dlcOpListOfWalk(first, "vector.transfer_read");
  MlirValue p = dlcForInductionVar(m->pLoop);
  for (intptr_t i = 0; i < reads.n; ++i) {
    MlirOperation rd = reads.ops[i];
    MlirValue view = mlirOperationGetOperand(rd, 0);
    MlirOperation s2 = dlcDefiningOp(view, "memref.subview");
    MlirOperation s1 = mlirOperationIsNull(s2)
                           ? s2
                           : dlcDefiningOp(mlirOperationGetOperand(s2, 0), "memref.subview");
    if (mlirOperationIsNull(s1) || !mlirValueEqual(mlirOperationGetOperand(s1, 0), m->packed))
      continue;
    MlirOperation e = insertClone(m->elem, rd); /* blk[kk, %p, 0] [1, 1, NR] */
    mlirOperationSetOperand(e, 1, mlirOperationGetOperand(s2, 1));
    mlirOperationSetOperand(e, 2, p);
    if (prefetch)
      prefetchAhead(m, rd, mlirOperationGetOperand(s2, 1), p, ahead);
    MlirOperation nr = insertClone(m->read, rd);
    mlirOperationSetOperand(nr, 0, mlirOperationGetResult(e, 0));
    MlirOperation w = insertClone(m->write, rd);
    mlirOperationSetOperand(w, 0, mlirOperationGetResult(nr, 0));
    mlirOperationSetOperand(w, 1, view);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(rd, 0), mlirOperationGetResult(nr, 0));
    mlirOperationDestroy(rd);
  }
  dlcOpListFree(&reads);
  mlirOperationDestroy(m->copy);
  /* visible in the IR, for tests and for reading a schedule */
  mlirOperationSetDiscardableAttributeByName(m->kLoop, str("dlc.fused_packing"),
                                             mlirUnitAttrGet(mlirOperationGetContext(m->kLoop)));
}

/* Whether the copy's rows are short enough for fusing to pay: each Kc
   row of the tile's P panels is one run of P x NR floats in the copy, and
   the hardware prefetchers stream long runs, while the first row block
   reads NR floats a row whatever P is. `maxRun` bytes (0: no limit) is
   the run from which the copy is kept (dlcGemmFusePackingMaxRunBytes). */
static bool fusePays(const Match *m, int64_t maxRun, int64_t l2Bytes, int64_t l2Ways) {
  int64_t bytes = dlcStaticTypeBytes(mlirValueGetType(m->packed));
  if (maxRun > 0 && (bytes <= 0 || bytes / m->kc >= maxRun))
    return false;
  return l2Bytes <= 0 || l2Ways <= 0 || m->bRowBytes <= 0 ||
         dlcCacheLinesForRows(l2Bytes, l2Ways, m->bRowBytes) >= m->kc;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  bool prefetch = dlcOptionsGetBool(dlcPassGetOptions(pass), "prefetch");
  int64_t ahead = dlcOptionsGetInt(dlcPassGetOptions(pass), "prefetch-rows-ahead");
  if (ahead < 0) {
    char msg[112];
    snprintf(msg, sizeof msg,
             "dlc-gemm-fuse-packing: prefetch-rows-ahead must be 0 or more, got %lld",
             (long long)ahead);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    return (MlirLogicalResult){0};
  }
  int64_t maxRun = dlcOptionsGetInt(dlcPassGetOptions(pass), "max-run-bytes");
  int64_t l2Bytes = dlcOptionsGetInt(dlcPassGetOptions(pass), "l2-bytes");
  int64_t l2Ways = dlcOptionsGetInt(dlcPassGetOptions(pass), "l2-ways");
  if (l2Bytes < 0 || l2Ways < 0) {
    char msg[128];
    snprintf(msg, sizeof msg,
             "dlc-gemm-fuse-packing: l2-bytes and l2-ways must be 0 or more, got %lld and %lld",
             (long long)l2Bytes, (long long)l2Ways);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    return (MlirLogicalResult){0};
  }
  DlcOpList reads = dlcOpListOfWalk(func, "vector.transfer_read");
  /* matched first, rewritten after: a rewrite destroys reads of the list */
  Match *matches = NULL;
  intptr_t n = 0;
  for (intptr_t i = 0; i < reads.n; ++i) {
    Match m;
    if (!matchCopy(reads.ops[i], &m) || !matchCompute(&m) || !fusePays(&m, maxRun, l2Bytes, l2Ways))
      continue;
    matches = dlcXrealloc(matches, sizeof *matches * (size_t)(n + 1));
    matches[n++] = m;
  }
  for (intptr_t i = 0; i < n; ++i)
    fuse(&matches[i], prefetch, ahead);
  free(matches);
  dlcOpListFree(&reads);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"prefetch", "software-prefetch each next panel's B rows from the other row blocks",
     DLC_OPTION_BOOL, "true"},
    {"prefetch-rows-ahead",
     "with prefetch, the first row block also prefetches the B row this many rows ahead of "
     "the one it reads (0: not)",
     DLC_OPTION_INT, "16"},
    {"max-run-bytes",
     "keep the copy when each Kc row of the tile's panels is a run of at least this many "
     "bytes (0: fuse at any width)",
     DLC_OPTION_INT, "0"},
    {"l2-bytes",
     "with l2-ways, keep the copy when the Kc rows of B the first row block reads map onto "
     "fewer lines of this L2 than Kc (0: no such check)",
     DLC_OPTION_INT, "0"},
    {"l2-ways", "the L2's associativity, for l2-bytes", DLC_OPTION_INT, "0"},
};

const DlcPassDescriptor dlcGemmFusePackingPass = {
    .argument = "dlc-gemm-fuse-packing",
    .summary = "Pack a GEMM's B inside the first row block's compute (which reads B in "
               "place and stores the packed panel) instead of in a copy loop of its own",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .run = run,
};
