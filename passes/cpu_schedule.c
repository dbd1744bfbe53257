/* --dlc-cpu-schedule: the CPU strategy on linalg-on-tensors.

   The shared driver (schedule/driver.h) partitions each function's linalg
   ops into groups: a sink (an op whose result leaves the group) and the
   producers whose every use is in the group (after dlk-to-linalg, one
   kernel function is one group). Each group gets the #dlk.schedule of its
   kernel, or one from the CPU cost model (schedule/cost_model.h), and this
   pass writes a transform-dialect script (schedule/script.h) for all
   groups, then runs it with the transform interpreter:

     fusion         the sink is tiled by scf.forall over its parallel tiles
                    and every producer is fused into the tile;
     tiling         GEMM roots get a Kc reduction block and an MR x NR x 1
                    register tile; other ops a 1 x .. x vector tile (a
                    trailing reduction keeps vector-wide partial sums);
     vectorisation  every tiled op becomes vector code; contractions lower
                    to outer products and the register tile's accumulators
                    are hoisted out of the reduction loop.

   Option print-transform prints the generated script, which replays with
   `mlir-opt --transform-interpreter` on the same input. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "schedule/analysis.h"
#include "schedule/conv_direct.h"
#include "schedule/cost_model.h"
#include "schedule/driver.h"
#include "schedule/script.h"
#include "schedule/transpose_tile.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef DlcLinalgInfo OpInfo;

typedef struct {
  DlcCpuTarget target;
  int vw; /* f32 lanes */
} CpuTarget;

/* The CPU schedules generics with at least one loop and tensor operands
   only (and, as every backend, no op with an empty loop: driver.c). */
static bool readOp(MlirOperation op, OpInfo *info) {
  if (!dlcReadLinalg(op, info) || info->scalarOperand)
    return false;
  return info->loops.numLoops > 0 || !dlcOpIs(op, "linalg.generic");
}

typedef DlcScheduleGroup Group;

static int indexOf(const Group *g, MlirOperation op) {
  for (int i = 0; i < g->numOps; ++i)
    if (mlirOperationEqual(g->ops[i].op, op))
      return i;
  return -1;
}

/* The loop extents each op keeps once fused into the sink's forall tile:
   a producer loop that writes a result dim read through a consumer loop
   gets that loop's tile extent; a loop of its own (a reduction) keeps its
   full extent. */
static void propagateTileExtents(Group *g, const int64_t *forall) {
  for (int i = 0; i < g->numOps; ++i)
    memcpy(g->ops[i].tileExtent, g->ops[i].loops.extent, sizeof g->ops[i].tileExtent);
  OpInfo *sink = &g->ops[g->numOps - 1];
  for (int d = 0; d < sink->loops.numLoops; ++d)
    if (forall[d])
      sink->tileExtent[d] = forall[d];
  for (int i = g->numOps - 2; i >= 0; --i) {
    OpInfo *p = &g->ops[i];
    intptr_t nOps = mlirOperationGetNumOperands(p->op);
    MlirAffineMap out = dlcOperandMap(p->op, nOps - 1);
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(p->op, 0));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      int c = indexOf(g, mlirOpOperandGetOwner(u));
      if (c <= i)
        continue;
      MlirAffineMap in = dlcOperandMap(g->ops[c].op, mlirOpOperandGetOperandNumber(u));
      for (intptr_t r = 0;
           r < mlirAffineMapGetNumResults(out) && r < mlirAffineMapGetNumResults(in); ++r) {
        MlirAffineExpr pe = mlirAffineMapGetResult(out, r), ce = mlirAffineMapGetResult(in, r);
        if (!mlirAffineExprIsADim(pe) || !mlirAffineExprIsADim(ce))
          continue;
        int64_t ext = g->ops[c].tileExtent[mlirAffineDimExprGetPosition(ce)];
        int64_t *mine = &p->tileExtent[mlirAffineDimExprGetPosition(pe)];
        if (ext < *mine)
          *mine = ext;
      }
    }
  }
}

/* Whether producer `i`, made from operands outside the group, would be
   recomputed by several forall tiles: the tiles outnumber its own distinct
   slices (tiles along a loop of the sink that none of its loops follows,
   such as a direct conv's packed weights when the tiles are rows of the
   output). Fused, each tile repeats its slice (the 8 row tiles of a ResNet
   3x3 conv at 56x56 packed all 147 KiB of its weights 8 times, 0.9% of
   the conv); before the forall it runs once. Reads the propagated tile
   extents; `forallTiles` is the forall's iteration count. */
static bool hoistable(const Group *g, int i, int64_t forallTiles) {
  const OpInfo *o = &g->ops[i];
  if (i == g->numOps - 1)
    return false;
  int64_t slices = 1;
  for (int d = 0; d < o->loops.numLoops; ++d)
    if (o->tileExtent[d] > 0)
      slices *= (o->loops.extent[d] + o->tileExtent[d] - 1) / o->tileExtent[d];
  if (forallTiles < 2 * slices)
    return false;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(o->op); ++k) {
    MlirValue v = mlirOperationGetOperand(o->op, k);
    if (mlirValueIsAOpResult(v) && indexOf(g, mlirOpResultGetOwner(v)) >= 0)
      return false;
  }
  return true;
}

/* Tiles the sink by scf.forall over the schedule's parallel loops and fuses
   every producer into it, last first; handles[i] gets op i's handle. With
   `hoistRepeated`, the producers each tile would repeat (hoistable) stay
   before the forall, whole (their tile extents their full ones). */
static int emitForallAndFuse(DlcScript *s, Group *g, const int64_t *forallSizes, int *handles,
                             bool hoistRepeated) {
  int last = g->numOps - 1;
  propagateTileExtents(g, forallSizes);
  const DlcLoopNest *sl = &g->ops[last].loops;
  int64_t tiles = 1;
  for (int d = 0; d < sl->numLoops; ++d)
    if (forallSizes[d] > 0)
      tiles *= (sl->extent[d] + forallSizes[d] - 1) / forallSizes[d];
  bool hoist[DLC_SCHEDULE_MAX_GROUP] = {false};
  for (int i = 0; hoistRepeated && i < last; ++i)
    if ((hoist[i] = hoistable(g, i, tiles)))
      memcpy(g->ops[i].tileExtent, g->ops[i].loops.extent, sizeof g->ops[i].tileExtent);
  dlcScriptMatchAll(s, g->firstSid, g->numOps, handles);
  if (dlcCountNonZero(forallSizes, sl->numLoops) == 0)
    return -1;
  int forall = dlcScriptTileForall(s, &handles[last], forallSizes, sl->numLoops, NULL);
  for (int i = last - 1; i >= 0; --i)
    if (!hoist[i])
      forall = dlcScriptFuseInto(s, &handles[i], forall);
  return forall;
}

/* The MR x NR x 1 register tile of the (Kc- and NR-tiled) GEMM `h`: its
   MR-row loop and the k loop, whose accumulators hoisting keeps in
   registers. */
static void emitRegisterTile(DlcScript *s, int h, int n, int p, int M, int64_t mr) {
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (int d = 0; d < n; ++d)
    sizes[d] = d >= p ? 1 : 0;
  sizes[M] = mr;
  int inner;
  dlcScriptVectorize(s, dlcScriptTileFor(s, h, sizes, n, &inner));
  if (inner >= 0) /* named, as vectorisation invalidates the handle */
    dlcScriptMarkReductionLoop(s, inner);
}

/* The register tiles of an Mc block of `mc` rows (handle `h`): an
   NR-column loop (and one over the tile's panels), so the Kc x NR panel
   of B serves every MR-row block from L1, and the MR x NR x 1 tile
   inside. Rows that MR does not divide are split off with a smaller tile
   (dlcGemmTailRows). */
static void emitRowBlocks(DlcScript *s, int h, int n, int p, int64_t mc, const int64_t reg[2],
                          int vw) {
  int M = p - 2, N = p - 1;
  int64_t mr = reg[0], nr = reg[1], sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (int d = 0; d < n; ++d)
    sizes[d] = d < M ? 1 : 0;
  sizes[N] = nr;
  h = dlcScriptTileFor(s, h, sizes, n, NULL);
  int64_t tileRows, tail = dlcGemmTailRows(mc, mr, nr, vw, &tileRows);
  if (tail == 0 || tail == mc) {
    emitRegisterTile(s, h, n, p, M, tileRows);
    return;
  }
  int lo, hi;
  dlcScriptSplit(s, h, M, mc - tail, &lo, &hi);
  emitRegisterTile(s, lo, n, p, M, mr);
  emitRegisterTile(s, hi, n, p, M, tileRows);
}

/* The register tiles of an Mc block whose `nc` columns NR does not divide
   (a few-row GEMM on a ragged N, dlcGemmSplitsRaggedN): the NR-wide tiles
   over the most columns they cover, then the rest split the same way with
   the register tile of its whole vectors, and last the columns short of a
   vector as one partial vector (5 lanes at 1733 = 54 x 32 + 5). */
static void emitColumnBlocks(DlcScript *s, int h, int n, int p, int64_t mc, const int64_t reg[2],
                             int vw, int64_t nc) {
  if (nc % reg[1] == 0) {
    emitRowBlocks(s, h, n, p, mc, reg, vw);
    return;
  }
  int64_t whole = nc / reg[1] * reg[1], rest = nc - whole, next[2];
  dlcGemmRegisterTile(mc, rest > vw ? rest / vw * vw : rest, vw, next);
  if (whole == 0) {
    emitColumnBlocks(s, h, n, p, mc, next, vw, nc);
    return;
  }
  int lo, hi;
  dlcScriptSplit(s, h, p - 1, whole, &lo, &hi);
  emitRowBlocks(s, lo, n, p, mc, reg, vw);
  emitColumnBlocks(s, hi, n, p, mc, next, vw, rest);
}

/* Whether `producer`'s result is an input (not the init) of `root`. */
static bool feedsInput(MlirOperation producer, MlirOperation root) {
  MlirValue r = mlirOperationGetResult(producer, 0);
  for (intptr_t i = 0; i + 1 < mlirOperationGetNumOperands(root); ++i)
    if (mlirValueEqual(mlirOperationGetOperand(root, i), r))
      return true;
  return false;
}

/* The vector tile of op `o` (handle `h`) inside its group's forall: a
   transposing copy (a GEMM's transposed B such as attention's K^T, a
   standalone transpose) reads square blocks rather than strided vectors
   (schedule/transpose_tile.h); other ops the plain rule. */
static void vectorTile(DlcScript *s, int h, const OpInfo *o, int vw) {
  int t = dlcTransposeCopyLoop(o, o->tileExtent, vw);
  if (t >= 0)
    dlcScriptTransposeTile(s, h, o, o->tileExtent, t, vw);
  else
    dlcScriptVectorTile(s, h, o, o->tileExtent, vw);
}

/* The vector width of op `o`'s tile in the GEMM `root` with NR-wide
   panels: a copy that packs one of the root's inputs into panels three
   vectors wide moves a whole panel row per transfer (vector<48xf32> with
   AVX-512), the form dlc-gemm-fuse-packing matches (three 16-lane
   transfers in a loop of their own would keep B's copy loop), and that
   dlc-split-register-tiles gives LLVM as whole vectors; anything else
   takes the vector width. */
static int packingVectorWidth(const OpInfo *o, const OpInfo *root, int64_t nr, int vw) {
  int n = o->loops.numLoops;
  if (!dlcGemmWidePanel(nr, vw) || n == 0 || o->tileExtent[n - 1] != nr ||
      !feedsInput(o->op, root->op) || dlcTransposeCopyLoop(o, o->tileExtent, vw) >= 0)
    return vw;
  return (int)nr;
}

/* The loop of producer `i` (a packing or layout copy of one of the root's
   inputs, fused into the Kc loop) that writes the dim the root reads
   through its K loop gets the Kc block's extent: a transposing copy's
   square blocks must divide it (a transposed B at K = 784 had 8 x 8 blocks
   over Kc = 196 rows, partial ones, and vectorisation failed), and where
   K is no whole number of Kc blocks the last one is dynamic (-1:
   no square blocks, one row at a time). A copy's innermost loop keeps its
   extent where the blocks are dynamic: its vectors run along it. */
static void limitToKcBlock(Group *g, int i, const OpInfo *root, int64_t kc) {
  OpInfo *p = &g->ops[i];
  int n = root->loops.numLoops, pn = p->loops.numLoops;
  int64_t k = root->loops.extent[n - 1];
  MlirValue r = mlirOperationGetResult(p->op, 0);
  MlirAffineMap out = dlcOperandMap(p->op, mlirOperationGetNumOperands(p->op) - 1);
  for (intptr_t j = 0; j + 1 < mlirOperationGetNumOperands(root->op); ++j) {
    if (!mlirValueEqual(mlirOperationGetOperand(root->op, j), r))
      continue;
    MlirAffineMap in = dlcOperandMap(root->op, j);
    for (intptr_t e = 0;
         e < mlirAffineMapGetNumResults(in) && e < mlirAffineMapGetNumResults(out); ++e) {
      MlirAffineExpr ce = mlirAffineMapGetResult(in, e), pe = mlirAffineMapGetResult(out, e);
      if (!mlirAffineExprIsADim(ce) || !mlirAffineExprIsADim(pe) ||
          mlirAffineDimExprGetPosition(ce) != n - 1)
        continue;
      int d = (int)mlirAffineDimExprGetPosition(pe);
      if (k % kc == 0)
        p->tileExtent[d] = kc;
      else if (d != pn - 1)
        p->tileExtent[d] = -1;
    }
  }
}

/* The forall of a group with a GEMM root: the schedule's parallel tiles
   of the root's loops, carried over to the sink's, every producer fused
   into it. `rootForall` (unless NULL) gets the root's tiles (0: not in
   the forall). */
static void emitRootForall(DlcScript *s, Group *g, int *handles, int64_t *rootForall) {
  const OpInfo *root = &g->ops[g->root];
  const DlcSchedule *sc = &g->sched;
  int64_t tiles[DLC_SCHEDULE_MAX_LOOPS] = {0}, forall[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] < root->numParallel)
      tiles[sc->parallel[i]] = sc->tiles[sc->parallel[i]];
  dlcSinkTiles(root, &g->ops[g->numOps - 1], g->root == g->numOps - 1, tiles, forall);
  emitForallAndFuse(s, g, forall, handles, false);
  if (rootForall)
    memcpy(rootForall, tiles, sizeof tiles);
}

/* The extent of root loop `d` inside the group's forall: its tile where
   the schedule puts it in the forall, else all of it (a tile of a loop
   the forall does not split tiles nothing). */
static int64_t forallExtent(const DlcSchedule *s, const DlcLoopNest *nest, int d) {
  for (int i = 0; i < s->numParallel; ++i)
    if (s->parallel[i] == d && s->tiles[d] > 0)
      return s->tiles[d];
  return nest->extent[d];
}

static void emitGemmGroup(DlcScript *s, Group *g, int vw) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const OpInfo *root = &g->ops[g->root];
  int n = root->loops.numLoops, p = root->numParallel, M = p - 2, N = p - 1;
  const DlcSchedule *sc = &g->sched;
  int64_t rootForall[DLC_SCHEDULE_MAX_LOOPS];
  emitRootForall(s, g, handles, rootForall);
  int64_t mc = sc->tiles[M] ? sc->tiles[M] : root->loops.extent[M];
  int64_t nc = sc->tiles[N] ? sc->tiles[N] : root->loops.extent[N];
  int64_t kc = sc->tiles[n - 1];
  int64_t reg[2] = {sc->registerTile[0], sc->registerTile[1]};
  /* a given schedule without one: on the plain loops whole vectors, the
     rest split off (emitColumnBlocks); packed panels keep an NR dividing
     their columns */
  bool plain = !dlcLoopNestHasPanel(&root->loops);
  if (reg[0] <= 0)
    dlcGemmRegisterTile(mc, plain && nc > vw && nc % vw ? nc / vw * vw : nc, vw, reg);
  int64_t nr = reg[1];
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  int h = handles[g->root], kcLoop = -1;
  if (kc > 0 && kc < root->loops.extent[n - 1]) {
    sizes[n - 1] = kc;
    h = dlcScriptTileFor(s, h, sizes, n, &kcLoop);
  }
  /* Packing and layout copies of A and B, per Kc block: the packed Kc x Nc
     block of B stays in L2 for all the tile's MR-row blocks. */
  for (int i = g->root - 1; i >= 0 && kcLoop >= 0; --i)
    if (feedsInput(g->ops[i].op, root->op)) {
      kcLoop = dlcScriptFuseInto(s, &handles[i], kcLoop);
      limitToKcBlock(g, i, root, kc);
    }
  for (int i = 0; i < g->numOps; ++i)
    if (i != g->root)
      vectorTile(s, handles[i], &g->ops[i], packingVectorWidth(&g->ops[i], root, nr, vw));
  /* Mc blocks of a tile that runs over more rows than Mc, inside the Kc
     block: the packed block of B serves them all (BLIS's ic loop). An Mc
     that does not divide M (a prime M, rowBlock in the cost model) leaves
     a shorter last block, split off first so every block is static. */
  int64_t rows = root->loops.extent[M], cols = forallExtent(sc, &root->loops, N);
  if (!rootForall[M] && mc < rows) {
    int64_t whole = rows / mc * mc;
    if (whole < rows) {
      int lo, hi;
      dlcScriptSplit(s, h, M, whole, &lo, &hi);
      emitColumnBlocks(s, hi, n, p, rows - whole, reg, vw, cols);
      h = lo;
    }
    if (whole > mc) {
      memset(sizes, 0, sizeof sizes);
      sizes[M] = mc;
      h = dlcScriptTileFor(s, h, sizes, n, NULL);
    }
  }
  emitColumnBlocks(s, h, n, p, mc, reg, vw, cols);
}

/* The multiply and add of a dot-product GEMM's body marked `contract`,
   so that LLVM fuses them into one FMA (one rounding): its partial sums
   are vector mulf + addf, not the vector.outerproduct (an FMA) of the
   GEMM's register tile, and unfused each step of a partial sum was two
   floating-point ops, and two roundings, where one does. */
static MlirWalkResult markContract(MlirOperation op, void *user) {
  if (dlcOpIs(op, "arith.mulf") || dlcOpIs(op, "arith.addf"))
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"),
                                    *(const MlirAttribute *)user);
  return MlirWalkResultAdvance;
}

static void contractBody(MlirOperation root) {
  MlirAttribute contract = mlirAttributeParseGet(
      mlirOperationGetContext(root), mlirStringRefCreateFromCString("#arith.fastmath<contract>"));
  mlirOperationWalk(root, markContract, &contract, MlirWalkPreOrder);
}

/* A dot-product GEMM (dlcScheduleDot): the forall over the batch or B's
   rows, its producers (C's zero fill) and epilogue tiled as plain loops,
   the root in mr x nr register tiles of partial sums along K. */
static void emitDotGroup(DlcScript *s, Group *g, int vw) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const OpInfo *root = &g->ops[g->root];
  const DlcSchedule *sc = &g->sched;
  int p = root->numParallel;
  emitRootForall(s, g, handles, NULL);
  for (int i = 0; i < g->numOps; ++i)
    if (i == g->root)
      dlcScriptDotTile(s, handles[i], root->loops.numLoops, sc->registerTile[0],
                       sc->registerTile[1], sc->vectorWidth, forallExtent(sc, &root->loops, p - 1));
    else
      vectorTile(s, handles[i], &g->ops[i], vw);
}

/* The loop of a direct conv's copy back to NCHW (op `o`, whose operand 0
   is the blocked result Y3[.., ow, n]) that walks Y3's channel dim n, or
   -1 when `o` does not read Y3 so. That copy may carry the epilogue's other
   inputs (bias, batch norm, residual), so it is no plain two-operand copy
   for dlcTransposeCopyLoop; vectorised along ow, each vector of the copy
   was 16 scalar loads from Y3 (n is innermost there) and 15 lane inserts.
   Tiled in square blocks (schedule/transpose_tile.h,
   dlcScriptConvCopyBackTile: whole vector-wide blocks along ow, the rest of
   the row split off), Y3 is read as whole vectors along n and transposed in
   registers; the other inputs are broadcasts along ow (per-channel) or
   contiguous rows (the residual). */
static int convCopyBackLoop(const OpInfo *o, int64_t vw) {
  return dlcTransposedReadLoop(o, o->tileExtent, vw);
}

/* The prologue both direct-conv emitters share: the sink tiled over the
   schedule's parallel loops below `firstInner` (the loops the conv keeps
   inside a thread), the group fused into that forall (but the producers
   each tile would compute whole, hoistable), every op but the
   conv vector-tiled (a direct conv's copy back to NCHW in transposed
   blocks, convCopyBackLoop). */
static int emitConvForall(DlcScript *s, Group *g, int conv, int firstInner, int vw,
                          int *handles) {
  const OpInfo *root = &g->ops[conv];
  const DlcSchedule *sc = &g->sched;
  int64_t rootForall[DLC_SCHEDULE_MAX_LOOPS] = {0}, forall[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] < firstInner)
      rootForall[sc->parallel[i]] = sc->tiles[sc->parallel[i]];
  dlcSinkTiles(root, &g->ops[g->numOps - 1], conv == g->numOps - 1, rootForall, forall);
  int loop = emitForallAndFuse(s, g, forall, handles, true);
  for (int i = 0; i < g->numOps; ++i) {
    if (i == conv)
      continue;
    const OpInfo *o = &g->ops[i];
    bool readsY3 = firstInner == DLC_CONV_C && mlirOperationGetNumOperands(o->op) >= 2 &&
                   mlirValueEqual(mlirOperationGetOperand(o->op, 0),
                                  mlirOperationGetResult(root->op, 0));
    int t = readsY3 ? convCopyBackLoop(o, vw) : -1;
    if (t >= 0)
      dlcScriptConvCopyBackTile(s, handles[i], o, o->tileExtent, t, vw);
    else
      dlcScriptVectorTile(s, handles[i], o, o->tileExtent, vw);
  }
  return loop;
}

/* A direct conv (schedule/conv_direct.h): the sink tiled over (image,
   panel, oh rows) with every producer fused (the Wp panel, the zero fill);
   inside, one output row at a time, by channel blocks, in MR-pixel register tiles over the
   NR-channel panel, the taps (kh, kw) outside and the channels inside in
   steps of up to 4 (unrolled further by the k-loop unroll); the unit
   loops fold away, so the tile vectorises to MR x NR outer products whose
   accumulators hoisting keeps in registers across c, kh and kw.
   The tap loops are hoisted but not unrolled by the script (hoist-only;
   LLVM decides as for any loop). The k-loop unroll by four
   left 3 x 3 taps as loops (it skips loops of fewer trips) but unrolled
   those of larger filters (the stem's 7 x 4 taps became 28 copies of the
   channel steps): one block of kH x kW x Cb outer products whose
   weights do not change along the row, which LLVM hoisted out of the pixel
   loop onto the stack while spilling accumulators. Measured with the taps
   as loops, AMD EPYC Zen 3, AVX2, one conv alone, 1 thread, alternated
   runs (dlc-run --profile): ResNet's 7x7 stride-2 stem (phase split, 7 x 4
   taps on 6 channels) 6.9-8.9 -> 3.3-3.7 ms (to 74-84% of the FMA peak),
   5x5 64 -> 64 at 28x28 4.3-5.4 -> 2.4-2.6 ms, 7x7 32 -> 64 at 56x56
   9.6-15.3 -> 6.9-8.9 ms; kh alone a loop (kw unrolled) gave 3.7-4.4,
   2.6-3.0 and 9.3-9.4 ms. Outputs are bit for bit the same (the same FMAs
   in the same order per accumulator), and 3 x 3 and 1 x 1 convs compile
   as before.
   `padSid`: the conv input's tensor.pad (inputPad) where padPerTile says
   each tile should pad its own rows, fused into the forall. */
static void emitDirectConvGroup(DlcScript *s, Group *g, int conv, int vw, int64_t padSid) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const OpInfo *root = &g->ops[conv];
  const DlcSchedule *sc = &g->sched;
  int n = root->loops.numLoops;
  int forall = emitConvForall(s, g, conv, DLC_CONV_C, vw, handles);
  if (padSid >= 0 && forall >= 0) {
    int pad = dlcScriptMatch(s, padSid);
    dlcScriptFuseInto(s, &pad, forall);
  }
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (int d = 0; d < DLC_CONV_OW; ++d)
    sizes[d] = 1;
  sizes[DLC_CONV_C] = sc->tiles[DLC_CONV_C]; /* the channel block, inside the row */
  int h = dlcScriptTileFor(s, handles[conv], sizes, n, NULL);
  memset(sizes, 0, sizeof sizes);
  sizes[DLC_CONV_OW] = sc->registerTile[0];
  h = dlcScriptTileFor(s, h, sizes, n, NULL);
  int taps[2], inner;
  memset(sizes, 0, sizeof sizes);
  sizes[DLC_CONV_KH] = sizes[DLC_CONV_KW] = 1;
  int t = dlcScriptTileFor(s, h, sizes, n, NULL);
  taps[0] = t + 1, taps[1] = t + 2;
  memset(sizes, 0, sizeof sizes);
  int64_t cb = sc->tiles[DLC_CONV_C] ? sc->tiles[DLC_CONV_C] : root->loops.extent[DLC_CONV_C];
  sizes[DLC_CONV_C] = dlcLargestDivisor(cb, 4);
  t = dlcScriptTileFor(s, t, sizes, n, &inner);
  dlcScriptFoldUnitDimsAndVectorize(s, inner);
  /* The taps stay loops (hoist-only, see above): the k-loop unroll by
     four would unroll any filter dimension of 4 taps or more. */
  dlcScriptMarkHoistOnlyLoop(s, taps[0]);
  dlcScriptMarkHoistOnlyLoop(s, taps[1]);
  dlcScriptMarkReductionLoop(s, inner);
}

/* One piece of a depthwise row (handle `h`, `width` pixels of ow): tiled
   into `v`-pixel vectors, each over the taps (kh, kw), whose unit loops
   fold away so it vectorises (x's row times the broadcast weight), its
   accumulators hoisted across the taps and the taps unrolled (`taps`:
   kH, kW): a tap is one FMA, which a loop of its own would bury in
   counter updates and branches. */
static void emitDepthwisePiece(DlcScript *s, int h, int n, int64_t width, int64_t v,
                               const int64_t *taps) {
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  if (v < width) {
    sizes[DLC_DW_OW] = v;
    h = dlcScriptTileFor(s, h, sizes, n, NULL);
    sizes[DLC_DW_OW] = 0;
  }
  sizes[DLC_DW_KH] = sizes[DLC_DW_KW] = 1;
  int t = dlcScriptTileFor(s, h, sizes, n, NULL);
  dlcScriptFoldUnitDimsAndVectorize(s, t + 2);
  for (int i = 2; i >= 1; --i)
    dlcScriptEmit(s, "    transform.loop.hoist_loop_invariant_subsets %%h%d : !transform.any_op\n",
                  t + i);
  for (int i = 2; i >= 1; --i)
    if (taps[i - 1] > 1)
      dlcScriptEmit(s, "    transform.loop.unroll %%h%d {factor = %lld} : !transform.any_op\n",
                    t + i, (long long)taps[i - 1]);
}

/* Output rows a depthwise tile computes at once: each tap is one FMA per
   accumulator, and with one row the taps of a narrow piece (8 lanes of
   Wo = 56, 4 of 28, all of Wo = 7) form one dependency chain, 9 FMA
   latencies long, per piece. R rows give R independent chains (vector<R x
   v> accumulators, R x the widest piece within six vectors). Only for a
   unit vertical stride: R rows with stride 2 would be a strided read. */
static int64_t depthwiseRows(const OpInfo *root, int64_t vw) {
  enum { kAccVectors = 6 };
  MlirAffineExpr row = mlirAffineMapGetResult(dlcOperandMap(root->op, 0), 2);
  if (!mlirAffineExprIsAAdd(row))
    return 1;
  MlirAffineExpr l = mlirAffineBinaryOpExprGetLHS(row), r = mlirAffineBinaryOpExprGetRHS(row);
  bool unit = (mlirAffineExprIsADim(l) && mlirAffineDimExprGetPosition(l) == DLC_DW_OH) ||
              (mlirAffineExprIsADim(r) && mlirAffineDimExprGetPosition(r) == DLC_DW_OH);
  if (!unit)
    return 1;
  int64_t wo = root->loops.extent[DLC_DW_OW], widest = wo / vw * vw;
  if (widest == 0)
    for (widest = 1; widest * 2 <= wo; widest *= 2)
      ;
  else
    widest = vw * dlcLargestDivisor(widest / vw, 4);
  return dlcLargestDivisor(root->loops.extent[DLC_DW_OH], kAccVectors * vw / widest);
}

/* A depthwise conv (schedule/conv_direct.h): the sink tiled over (image,
   channel chunks) with the conv fused; inside, one output row of one
   channel at a time, in whole vectors of up to four times `vw` lanes, and
   what is left of the row (Wo not a multiple of vw: 56, 28, 14, 7) split
   off in power-of-two pieces. A row as one vector of Wo lanes (vector<112>,
   vector<56>) is a type LLVM legalises lane by lane when it is a loop's
   accumulator: that made these kernels 5x slower than PyTorch's. */
static void emitDepthwiseGroup(DlcScript *s, Group *g, int conv, int vw, int64_t padSid) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const OpInfo *root = &g->ops[conv];
  int n = root->loops.numLoops;
  int forall = emitConvForall(s, g, conv, DLC_DW_KH, vw, handles);
  if (padSid >= 0 && forall >= 0) {
    int pad = dlcScriptMatch(s, padSid);
    dlcScriptFuseInto(s, &pad, forall);
  }
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  sizes[DLC_DW_IMAGE] = sizes[DLC_DW_C] = 1;
  sizes[DLC_DW_OH] = depthwiseRows(root, vw);
  int h = dlcScriptTileFor(s, handles[conv], sizes, n, NULL);
  int64_t left = root->loops.extent[DLC_DW_OW];
  const int64_t taps[2] = {root->loops.extent[DLC_DW_KH], root->loops.extent[DLC_DW_KW]};
  while (left > 0) {
    /* the whole vectors, then the largest power of two left */
    int64_t piece = left / vw * vw;
    if (piece == 0)
      for (piece = 1; piece * 2 <= left; piece *= 2)
        ;
    int64_t v = piece >= vw ? vw * dlcLargestDivisor(piece / vw, 4) : piece;
    if (piece == left) {
      emitDepthwisePiece(s, h, n, piece, v, taps);
      break;
    }
    int lo, hi;
    dlcScriptSplit(s, h, DLC_DW_OW, piece, &lo, &hi);
    emitDepthwisePiece(s, lo, n, piece, v, taps);
    h = hi, left -= piece;
  }
}

/* `padSid`: an NCHW input's tensor.pad (inputPad), fused into the forall
   when that splits only images and channels, so each tile pads whole
   planes of its own channels. */
static void emitLoopsGroup(DlcScript *s, Group *g, int vw, int64_t padSid) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const DlcSchedule *sc = &g->sched;
  const DlcLoopNest *sl = &g->ops[g->numOps - 1].loops;
  int64_t forall[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] < sl->numLoops && !sl->reduction[sc->parallel[i]])
      forall[sc->parallel[i]] = sc->tiles[sc->parallel[i]];
  int loop = emitForallAndFuse(s, g, forall, handles, false);
  if (padSid >= 0 && loop >= 0 && sl->numLoops == 4 && !forall[2] && !forall[3]) {
    int pad = dlcScriptMatch(s, padSid);
    dlcScriptFuseInto(s, &pad, loop);
  }
  for (int i = 0; i < g->numOps; ++i)
    vectorTile(s, handles[i], &g->ops[i], vw);
}

/*--- Groups ----------------------------------------------------------------------*/

/* A given [MR, NR] fits the M tile (rows MR does not divide get a tile of
   their own) and the N tile of the GEMM root (loops [..., m, n, k...] with
   `p` parallel ones): NR divides it where B is packed into panels of the
   tile's columns, and on the plain loops is no wider than it (the columns
   NR does not divide get tiles of their own: emitColumnBlocks, as the
   cost model's own schedules for a ragged N have them); other kernels
   ignore it. */
static bool registerTileFits(const DlcSchedule *sc, const DlcLoopNest *nest, int p) {
  if (p < 2)
    return false;
  bool panels = dlcLoopNestHasPanel(nest);
  int64_t mc = sc->tiles[p - 2] ? sc->tiles[p - 2] : nest->extent[p - 2];
  int64_t nc = sc->tiles[p - 1] ? sc->tiles[p - 1] : nest->extent[p - 1];
  int64_t nr = sc->registerTile[1];
  return mc > 0 && nc > 0 && sc->registerTile[0] <= mc &&
         (panels ? nc % nr == 0 : nr <= nc);
}

/* A given schedule's tiles must fit the root, or its tiles stop being
   static; a given register tile must fit the GEMM's tiles (a dot-product
   GEMM's are checked by givenDotFits). */
static bool givenFits(DlcScheduleState *st, MlirOperation func, const Group *g,
                      const DlcLoopNest *nest, bool dot) {
  bool fits = g->sched.numTiles == nest->numLoops;
  for (intptr_t d = 0; fits && d < g->sched.numTiles; ++d)
    fits =
        g->sched.tiles[d] == 0 || (nest->extent[d] > 0 && nest->extent[d] % g->sched.tiles[d] == 0);
  if (!fits) {
    char msg[512], *at = msg;
    at += snprintf(msg, sizeof msg,
                   "#dlk.schedule does not fit the kernel's root loops: it needs one tile "
                   "per loop, each 0 or dividing the loop's extent; the root's loops are [");
    for (int d = 0; d < nest->numLoops && at < msg + sizeof msg - 32; ++d)
      at += snprintf(at, (size_t)(msg + sizeof msg - at), "%s%lld", d ? ", " : "",
                     (long long)nest->extent[d]);
    snprintf(at, (size_t)(msg + sizeof msg - at), "]");
    dlcScheduleFail(st, func, msg);
    return false;
  }
  if (g->root >= 0 && !dot && g->sched.registerTile[0] > 0 &&
      !registerTileFits(&g->sched, nest, g->ops[g->root].numParallel)) {
    dlcScheduleFail(st, func,
                    "#dlk.schedule register tile does not fit: MR must not exceed the M tile "
                    "and NR must divide the N tile of a contraction on packed panels, or not "
                    "exceed it");
    return false;
  }
  return true;
}

/* A given schedule of a dot-product GEMM: MR must divide the M tile (the
   dot tiles split off no rows), NR fit in the N tile (the last columns
   that NR does not divide get a tile of their own), and the lanes of the
   partial sums divide K. Where it names no register tile, the cost
   model's rule picks one for its tiles. */
static bool givenDotFits(DlcScheduleState *st, MlirOperation func, DlcSchedule *given,
                         const DlcCpuTarget *t, const DlcLoopNest *nest) {
  int n = nest->numLoops, p = n - 1;
  int64_t mc = forallExtent(given, nest, p - 2), nc = forallExtent(given, nest, p - 1);
  if (given->registerTile[0] <= 0)
    dlcDotRegisterTile(t, mc, nc, given->registerTile);
  if (mc % given->registerTile[0] == 0 && given->registerTile[1] <= nc &&
      nest->extent[n - 1] % given->vectorWidth == 0)
    return true;
  dlcScheduleFail(st, func,
                  "#dlk.schedule does not fit this dot-product GEMM: MR must divide the M "
                  "tile, NR must not exceed the N tile, and the vector width must divide K");
  return false;
}

/* Whether a loops group reduces rows before its sink reads them again: a
   producer with a trailing reduction (a norm's sum of squares, softmax's
   max and sum) fused into the sink's row tiles. */
static bool rereadsRows(const OpInfo *infos, int n) {
  for (int i = 0; i < n - 1; ++i)
    if (infos[i].combiner)
      return true;
  return false;
}

/* The tensor.pad that makes a depthwise conv's input (its schedule id,
   tagged here), or -1. Fused into the conv's channel forall, each chunk
   pads its own channels while they are in cache and on its own thread;
   left outside, the pad was a serial copy of the whole input ahead of the
   parallel loop (MobileNetV2's 144x56x56: as long as the conv itself). */
static int64_t inputPad(DlcScheduleState *st, MlirOperation conv) {
  MlirValue x = mlirOperationGetOperand(conv, 0);
  if (!mlirValueIsAOpResult(x))
    return -1;
  MlirOperation pad = mlirOpResultGetOwner(x);
  if (!dlcOpIs(pad, "tensor.pad"))
    return -1;
  int64_t sid = st->sid;
  dlcScheduleTag(st, pad);
  return sid;
}

/* Whether a direct conv's input pad goes into its forall (emitDirectConvGroup):
   only when no two tiles read the same input rows, i.e. the forall does
   not split the channel panels (the 7x7 convs' tiles are panels of all
   rows: each would pad the whole input again). Fused, each tile pads its
   rows (and their halo) into a buffer of its own, on its own thread and
   while they are in cache; left outside, the pad is a parallel loop of
   its own before the conv's, and its border fill a serial one. */
static bool padPerTile(const DlcSchedule *sc, const DlcLoopNest *conv) {
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] == DLC_CONV_PANEL && sc->tiles[DLC_CONV_PANEL] > 0 &&
        sc->tiles[DLC_CONV_PANEL] < conv->extent[DLC_CONV_PANEL])
      return false;
  return true;
}

/* Whether `op`'s operand 0 is a tensor.pad of a rank-4 tensor that pads
   only dims 2 and 3 (an NCHW window op's input). */
static bool spatialPad(MlirOperation op) {
  if (mlirOperationGetNumOperands(op) < 1)
    return false;
  MlirValue x = mlirOperationGetOperand(op, 0);
  if (!mlirValueIsAOpResult(x) || !dlcOpIs(mlirOpResultGetOwner(x), "tensor.pad"))
    return false;
  MlirOperation pad = mlirOpResultGetOwner(x);
  MlirAttribute lo = mlirOperationGetAttributeByName(pad, mlirStringRefCreateFromCString("static_low"));
  MlirAttribute hi = mlirOperationGetAttributeByName(pad, mlirStringRefCreateFromCString("static_high"));
  if (mlirAttributeIsNull(lo) || mlirAttributeIsNull(hi) || !mlirAttributeIsADenseI64Array(lo) ||
      !mlirAttributeIsADenseI64Array(hi) || mlirDenseArrayGetNumElements(lo) != 4 ||
      mlirDenseArrayGetNumElements(hi) != 4)
    return false;
  for (intptr_t d = 0; d < 2; ++d)
    if (mlirDenseI64ArrayGetElement(lo, d) || mlirDenseI64ArrayGetElement(hi, d))
      return false;
  return true;
}

/* Gives each op of the group that starts from the same tensor.empty as
   the sink (a depthwise conv's bias fill, or its zero fill) an empty of
   its own. Sharing it, the fill's tile became a slice of the forall's
   output, which the sink writes too: bufferisation then copied that
   output slice (undefined data, read from memory) into a temporary for
   the fill, every tile, as scalar loops. */
static void ownInits(MlirOperation const *ops, int n) {
  MlirOperation sink = ops[n - 1];
  intptr_t sinkOperands = mlirOperationGetNumOperands(sink);
  if (sinkOperands < 1)
    return;
  MlirValue shared = mlirOperationGetOperand(sink, sinkOperands - 1);
  if (!mlirValueIsAOpResult(shared) || !dlcOpIs(mlirOpResultGetOwner(shared), "tensor.empty"))
    return;
  for (int i = 0; i + 1 < n; ++i) {
    intptr_t k = mlirOperationGetNumOperands(ops[i]) - 1;
    if (k < 0 || mlirOperationGetNumResults(ops[i]) != 1 ||
        !mlirValueEqual(mlirOperationGetOperand(ops[i], k), shared))
      continue;
    MlirOperation empty = mlirOperationClone(mlirOpResultGetOwner(shared));
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(ops[i]), ops[i], empty);
    mlirOperationSetOperand(ops[i], k, mlirOperationGetResult(empty, 0));
  }
}

/* The kernel's #dlk.schedule belongs to its primary group, the one with
   the contraction or else the one that ends in the kernel's result; other
   groups (packing and unpacking copies) take the cost model's. */
static void scheduleGroup(DlcScheduleState *st, MlirOperation func, const MlirOperation *ops, int n,
                          bool primary) {
  const CpuTarget *cpu = st->target;
  Group g;
  OpInfo infos[DLC_SCHEDULE_MAX_GROUP];
  if (!dlcScheduleReadGroup(st, ops, n, infos, &g))
    return; /* an op we cannot read stays as it is (plain loops) */
  const OpInfo *sink = &infos[n - 1];
  MlirAttribute given = dlcScheduleGiven(func, primary);
  bool haveGiven = !mlirAttributeIsNull(given) && dlcScheduleRead(given, &g.sched);
  int conv = -1, depthwise = -1;
  for (int i = 0; i < n && g.root < 0; ++i)
    if (dlcIsDirectConvRoot(&infos[i]))
      conv = i;
    else if (dlcIsDepthwiseConvRoot(&infos[i]))
      depthwise = i;
  const DlcLoopNest *nest =
      g.root >= 0       ? &infos[g.root].loops
      : conv >= 0      ? &infos[conv].loops
      : depthwise >= 0 ? &infos[depthwise].loops
                       : &sink->loops;
  /* a transposed B with few rows of A: dot products (decided by the
     shape, so that a schedule printed in the IR reads back the same) */
  DlcSchedule dotSched;
  bool dot = g.root >= 0 && dlcIsDotGemmRoot(&infos[g.root]) &&
             dlcScheduleDot(nest, &cpu->target, &dotSched);
  if (haveGiven && !givenFits(st, func, &g, nest, dot))
    return;
  if (haveGiven && dot && !givenDotFits(st, func, &g.sched, &cpu->target, nest))
    return;
  if (!haveGiven) {
    if (dot)
      g.sched = dotSched;
    else if (g.root >= 0)
      dlcScheduleGemm(nest, &cpu->target, &g.sched);
    else if (conv >= 0)
      dlcScheduleDirectConv(nest, &cpu->target, &g.sched);
    else if (depthwise >= 0)
      dlcScheduleDepthwiseConv(nest, &cpu->target, &g.sched);
    else {
      dlcScheduleLoops(nest, cpu->vw, &g.sched);
      if (rereadsRows(infos, n))
        dlcScheduleRowsInL1(nest, &cpu->target, sink->elementBits / 8, &g.sched);
    }
    if (dlcScheduleIsKernel(func) && primary && mlirAttributeIsNull(given))
      /* shown in the IR, and overridable */
      mlirOperationSetDiscardableAttributeByName(func,
                                                 mlirStringRefCreateFromCString(DLC_ATTR_SCHEDULE),
                                                 dlcScheduleAttrGet(st->ctx, &g.sched));
  }
  for (int i = 0; i < n; ++i)
    dlcScheduleTag(st, ops[i]);
  int64_t padSid = -1;
  if (depthwise >= 0) {
    padSid = inputPad(st, infos[depthwise].op);
    ownInits(ops, n);
  } else if (conv >= 0 && padPerTile(&g.sched, &infos[conv].loops)) {
    padSid = inputPad(st, infos[conv].op);
  } else if (g.root < 0 && conv < 0) { /* a conv (or pool) as plain loops: a window op's pad */
    for (int i = 0; i < n && padSid < 0; ++i)
      if (infos[i].loops.numLoops > 4 && spatialPad(infos[i].op))
        padSid = inputPad(st, infos[i].op);
    if (padSid >= 0)
      ownInits(ops, n);
  }
  dlcScheduleComment(st, func, n,
                     dot               ? "dot"
                     : g.root >= 0     ? "gemm"
                     : conv >= 0      ? "direct conv"
                     : depthwise >= 0 ? "depthwise conv"
                                      : "loops");
  if (dot) {
    contractBody(infos[g.root].op);
    emitDotGroup(&st->script, &g, cpu->vw);
  }
  else if (g.root >= 0)
    emitGemmGroup(&st->script, &g, cpu->vw);
  else if (conv >= 0)
    emitDirectConvGroup(&st->script, &g, conv, cpu->vw, padSid);
  else if (depthwise >= 0)
    emitDepthwiseGroup(&st->script, &g, depthwise, cpu->vw, padSid);
  else
    emitLoopsGroup(&st->script, &g, cpu->vw, padSid);
}

/* Whether `producer` computes the A operand of a GEMM on packed B in
   `group`. Its parallel tiles split B's panels, which A does not depend
   on: fused into them, A would be computed once per tile (a conv's
   transposed im2col, four times), so it gets a group of its own. */
static bool feedsPanelA(MlirOperation producer, const MlirOperation *group, int n) {
  MlirValue r = mlirOperationGetResult(producer, 0);
  for (int i = 0; i < n; ++i) {
    OpInfo info;
    if (mlirOperationGetNumOperands(group[i]) < 1 ||
        !mlirValueEqual(mlirOperationGetOperand(group[i], 0), r) || !readOp(group[i], &info) ||
        !dlcIsGemmRoot(&info))
      continue;
    if (dlcLoopNestHasPanel(&info.loops))
      return true;
  }
  return false;
}

/* The horizontal sum that ends a tiled reduction (its vector of partial
   sums, vector.reduction <add>) may reassociate: the partial sums already
   put the row's elements in another order than a sequential loop. Without
   the flag LLVM adds the 64 lanes one after the other, a chain of 64
   dependent adds per row (RMSNorm [32, 4096]: about 2 us of 15); with it,
   a tree of shuffles. */
typedef struct {
  MlirAttribute add, mul, none, reassoc;
} ReassocAttrs;

static MlirWalkResult reassociate(MlirOperation op, void *user) {
  const ReassocAttrs *a = user;
  if (!dlcOpIs(op, "vector.reduction") ||
      !mlirTypeIsAFloat(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return MlirWalkResultAdvance;
  MlirAttribute kind = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kind"));
  MlirAttribute fm = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"));
  if ((mlirAttributeEqual(kind, a->add) || mlirAttributeEqual(kind, a->mul)) &&
      (mlirAttributeIsNull(fm) || mlirAttributeEqual(fm, a->none)))
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("fastmath"), a->reassoc);
  return MlirWalkResultAdvance;
}

static void reassociateReductions(MlirOperation module) {
  MlirContext ctx = mlirOperationGetContext(module);
#define PARSE(text) mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(text))
  ReassocAttrs a = {PARSE("#vector.kind<add>"), PARSE("#vector.kind<mul>"),
                    PARSE("#arith.fastmath<none>"), PARSE("#arith.fastmath<reassoc>")};
#undef PARSE
  mlirOperationWalk(module, reassociate, &a, MlirWalkPreOrder);
}

static const DlcScheduleBackend kCpu = {
    .pass = "dlc-cpu-schedule",
    .read = readOp,
    .splitOff = feedsPanelA,
    .scheduleGroup = scheduleGroup,
    .stopAtFirstError = false,
};

typedef struct {
  DlcScript *scripts;
  const int *groups;
  const MlirOperation *funcs;
} ApplyAll;

static MlirLogicalResult applyOne(intptr_t f, void *user) {
  const ApplyAll *a = user;
  if (a->groups[f] == 0)
    return (MlirLogicalResult){1};
  MlirLogicalResult r = dlcScriptRun(&a->scripts[f], a->funcs[f], kCpu.pass, false);
  if (mlirLogicalResultIsSuccess(r))
    reassociateReductions(a->funcs[f]);
  return r;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (!dlcTargetCheck(module, "dlc-cpu-schedule", "target", target))
    return (MlirLogicalResult){0};
  CpuTarget cpu = {.target = dlcCpuTargetGet(target, dlcOptionsGetInt(o, "vector-width"))};
  cpu.vw = (int)cpu.target.vectorWidth;
  DlcScheduleState st = {.backend = &kCpu, .target = &cpu, .ctx = mlirOperationGetContext(module)};
  /* One script per function, applied to that function: a script's matches
     walk its payload and every live handle is checked on each rewrite, so
     one script for the module cost (kernels x module size); on
     DenseNet-121 the matches and the handle bookkeeping were 60% of this
     pass. All scripts are written first (every function's schedule errors
     are reported before anything is rewritten, as with one script). */
  DlcOpList funcs = dlcOpListOfModule(module, "func.func");
  DlcScript *scripts = dlcXcalloc((size_t)funcs.n + 1, sizeof *scripts);
  int *groups = dlcXcalloc((size_t)funcs.n + 1, sizeof *groups);
  for (intptr_t f = 0; f < funcs.n; ++f) {
    int before = st.groups;
    st.script = (DlcScript){.hoistPartials = true};
    dlcScriptBegin(&st.script);
    dlcScheduleFunc(&st, funcs.ops[f]);
    /* four k steps a trip: the loop's own instructions no longer compete
       with the FMAs for the front end */
    dlcScriptVectorLowering(&st.script, 4, false);
    scripts[f] = st.script;
    groups[f] = st.groups - before;
  }
  st.script = (DlcScript){0};
  MlirLogicalResult result = {!st.failed};
  if (mlirLogicalResultIsSuccess(result)) {
    /* The scripts print in the functions' order before any runs. */
    if (dlcOptionsGetBool(o, "print-transform"))
      for (intptr_t f = 0; f < funcs.n; ++f)
        if (groups[f] > 0)
          fputs(dlcTextGet(&scripts[f].text), stderr);
    /* Applying the scripts is nearly all of this pass's time (0.6 s of
       ResNet-50's); each rewrites its own function only, so they run on
       the context's threads, as a func.func pipeline would. */
    ApplyAll all = {scripts, groups, funcs.ops};
    result = dlcParallelFor(mlirOperationGetContext(module), funcs.n, applyOne, &all);
  }
  if (st.groups > 0)
    dlcPassAddStatistic(pass, "groups", (uint64_t)st.groups);
  dlcScheduleUntag(module);
  for (intptr_t f = 0; f < funcs.n; ++f)
    dlcScriptFree(&scripts[f]);
  free(scripts);
  free(groups);
  dlcOpListFree(&funcs);
  return result;
}

/* The schedule writes #dlk.schedule on kernels, so dlk must be loaded
   even when the input has no dlk op or attribute left (linalg input). */
static void dependentDialects(MlirDialectRegistry r) {
  dlcScheduleDialects(r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlk__(), r);
}

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU to schedule for: host, avx2 or avx512", DLC_OPTION_STRING, "host"},
    {"vector-width", "f32 lanes per vector; 0 takes the target's", DLC_OPTION_INT, "0"},
    {"print-transform", "print the generated transform script to stderr", DLC_OPTION_BOOL, "false"},
};

static const DlcStatisticDesc kStats[] = {{"groups", "fused groups scheduled"}};

const DlcPassDescriptor dlcCpuSchedulePass = {
    .argument = "dlc-cpu-schedule",
    .summary = "Tile, fuse and vectorise linalg-on-tensors by each kernel's #dlk.schedule "
               "(or the cost model's), through the transform interpreter",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
