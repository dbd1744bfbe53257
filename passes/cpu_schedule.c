/* --dlc-cpu-schedule: the three loop levers on linalg-on-tensors.

   Each function's linalg ops are partitioned into groups: a sink (an op
   whose result leaves the group) and the producers whose every use is in
   the group (after dlk-to-linalg, one kernel function is one group). Each
   group gets the #dlk.schedule of its kernel, or one from the cost model
   (schedule/cost_model.h), and the pass writes a transform-dialect script
   for all groups, then runs it with the transform interpreter:

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
#include "schedule/normalize.h"
#include "schedule/cost_model.h"
#include "support/op_list.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Transform.h"
#include "mlir-c/Dialect/Transform/Interpreter.h"
#include "mlir-c/Dialect/Vector.h"
#include "shape/Checked.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- Reading linalg ops ---------------------------------------------------------*/

typedef struct {
  MlirOperation op;
  DlcLoopNest loops;
  int64_t tileExtent[DLC_SCHEDULE_MAX_LOOPS]; /* loop extents inside the group's forall */
  bool vectorizable; /* static, projected-permutation maps */
  bool combiner;     /* one trailing reduction loop with a recognised combiner */
  bool sums;         /* the body yields combiner(x, out) */
  int numParallel;   /* leading parallel loops, when every reduction trails */
} OpInfo;

static bool isLinalg(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length > 7 && memcmp(n.data, "linalg.", 7) == 0;
}

static bool attrTextHas(MlirAttribute a, const char *needle) {
  DlcText t = {NULL, 0, 0};
  mlirAttributePrint(a, dlcTextAppend, &t);
  bool has = strstr(dlcTextGet(&t), needle) != NULL;
  dlcTextFree(&t);
  return has;
}

/* True when the body yields `combiner(x, out)` for a combiner that
   tile_reduction_using_for can split into vector-wide partial results. */
static bool yieldsCombiner(MlirOperation generic) {
  static const char *const kCombiners[] = {"arith.addf", "arith.mulf", "arith.maximumf",
                                           "arith.minimumf", "arith.maxnumf", "arith.minnumf",
                                           "arith.addi", NULL};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue y = mlirOperationGetOperand(yield, 0);
  if (!mlirValueIsAOpResult(y))
    return false;
  MlirOperation comb = mlirOpResultGetOwner(y);
  bool known = false;
  for (const char *const *c = kCombiners; *c && !known; ++c)
    known = dlcOpIs(comb, *c);
  if (!known)
    return false;
  MlirValue acc = mlirBlockGetArgument(body, mlirBlockGetNumArguments(body) - 1);
  return mlirValueEqual(mlirOperationGetOperand(comb, 0), acc) ||
         mlirValueEqual(mlirOperationGetOperand(comb, 1), acc);
}

/* Vectors of i1 are bit-packed in memory while tensors of i1 take a byte
   per element, and a tensor.extract in a body is a gather: both stay scalar. */
static bool vectorSafe(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    MlirType e = mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t;
    if (mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1)
      return false;
  }
  if (mlirOperationGetNumRegions(op) == 0)
    return true;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (dlcOpIs(o, "tensor.extract"))
      return false;
  return true;
}

static MlirAffineMap operandMap(MlirOperation op, intptr_t operand);

static bool mapReads(MlirAffineMap m, int d) {
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(m, r);
    if (mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == d)
      return true;
  }
  return false;
}

/* Bytes between consecutive values of loop `d` in operand `i` (a static
   row-major tensor), 0 when the operand does not read it. */
static int64_t rowBytes(MlirOperation op, intptr_t i, int d) {
  MlirAffineMap m = operandMap(op, i);
  MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
  MlirType e = mlirShapedTypeGetElementType(t);
  if (d < 0 || !mlirShapedTypeHasStaticShape(t) || !mlirTypeIsAFloat(e))
    return 0;
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
    MlirAffineExpr x = mlirAffineMapGetResult(m, r);
    if (!mlirAffineExprIsADim(x) || mlirAffineDimExprGetPosition(x) != d)
      continue;
    int64_t bytes = mlirFloatTypeGetWidth(e) / 8;
    for (intptr_t q = r + 1; q < mlirShapedTypeGetRank(t); ++q)
      bytes *= mlirShapedTypeGetDimSize(t, q);
    return bytes;
  }
  return 0;
}

static bool readOp(MlirOperation op, OpInfo *info) {
  memset(info, 0, sizeof *info);
  info->op = op;
  DlcLoopNest *l = &info->loops;
  if (dlcOpIs(op, "linalg.fill")) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
    l->numLoops = (int)mlirShapedTypeGetRank(t);
    for (int d = 0; d < l->numLoops; ++d)
      l->extent[d] = mlirShapedTypeIsDynamicDim(t, d) ? -1 : mlirShapedTypeGetDimSize(t, d);
    info->vectorizable = mlirShapedTypeHasStaticShape(t) && vectorSafe(op);
    return l->numLoops <= DLC_SCHEDULE_MAX_LOOPS;
  }
  if (!dlcOpIs(op, "linalg.generic"))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  intptr_t nMaps = mlirArrayAttrGetNumElements(maps);
  if (nMaps != mlirOperationGetNumOperands(op) || mlirArrayAttrGetNumElements(iters) < 1 ||
      mlirArrayAttrGetNumElements(iters) > DLC_SCHEDULE_MAX_LOOPS)
    return false;
  l->numLoops = (int)mlirArrayAttrGetNumElements(iters);
  int reductions = 0;
  for (int d = 0; d < l->numLoops; ++d) {
    l->extent[d] = -1;
    l->reduction[d] = attrTextHas(mlirArrayAttrGetElement(iters, d), "reduction");
    reductions += l->reduction[d];
  }
  info->vectorizable = vectorSafe(op);
  for (intptr_t i = 0; i < nMaps; ++i) {
    MlirAffineMap m = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirAffineMapIsProjectedPermutation(m))
      info->vectorizable = false;
    if (!mlirTypeIsARankedTensor(t))
      return false;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(m, r);
      if (mlirAffineExprIsADim(e) && !mlirShapedTypeIsDynamicDim(t, r))
        l->extent[mlirAffineDimExprGetPosition(e)] = mlirShapedTypeGetDimSize(t, r);
    }
  }
  for (int d = 0; d < l->numLoops; ++d)
    if (l->extent[d] < 0)
      info->vectorizable = false;
  info->sums = yieldsCombiner(op);
  info->combiner = reductions == 1 && l->reduction[l->numLoops - 1] && info->sums;
  info->numParallel = l->numLoops - reductions;
  for (int d = info->numParallel; d < l->numLoops; ++d)
    if (!l->reduction[d])
      info->numParallel = -1;
  if (nMaps == 3) { /* panels: loops B and the output read, A does not */
    for (int d = 0; d < info->numParallel - 2; ++d) {
      bool a = mapReads(operandMap(op, 0), d), b = mapReads(operandMap(op, 1), d);
      l->panel[d] = !a && b;
      l->rows[d] = a && !b;
    }
    l->aRowBytes = rowBytes(op, 0, info->numParallel - 2);
  }
  return true;
}

/* GEMM shape: loops [parallel..., m, n, reduction...] with trailing
   reductions (a reshape folded into a contraction gives two), two inputs
   combined by a sum (linalg-fuse-elementwise-ops may have folded a
   transpose into the maps, and with it dropped dlc.root), the output
   indexed by the parallel loops in order, and maps that vectorise. */
static bool isGemmRoot(const OpInfo *r) {
  int p = r->numParallel;
  if (!r->vectorizable || !r->sums || p < 2 || p == r->loops.numLoops ||
      mlirOperationGetNumOperands(r->op) != 3)
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(r->op, str("indexing_maps"));
  MlirAffineMap out = mlirAffineMapAttrGetValue(
      mlirArrayAttrGetElement(maps, mlirArrayAttrGetNumElements(maps) - 1));
  if (mlirAffineMapGetNumResults(out) != p)
    return false;
  for (int d = 0; d < p; ++d) {
    MlirAffineExpr e = mlirAffineMapGetResult(out, d);
    if (!mlirAffineExprIsADim(e) || mlirAffineDimExprGetPosition(e) != d)
      return false;
  }
  return true;
}

/*--- The transform script ---------------------------------------------------------*/

typedef struct {
  DlcText text;
  int next;      /* fresh SSA number */
  int vw;
  DlcCpuTarget target;
  bool failed;
} Script;

static void emit(Script *s, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || n >= (int)sizeof buf) {
    s->failed = true;
    return;
  }
  dlcTextAppend(mlirStringRefCreate(buf, (size_t)n), &s->text);
}

static void emitSizes(Script *s, const int64_t *sizes, int n) {
  emit(s, "[");
  for (int i = 0; i < n; ++i)
    emit(s, "%s%lld", i ? ", " : "", (long long)sizes[i]);
  emit(s, "]");
}

static int countNonZero(const int64_t *sizes, int n) {
  int c = 0;
  for (int i = 0; i < n; ++i)
    c += sizes[i] != 0;
  return c;
}

static void emitTypes(Script *s, int results) {
  emit(s, " : (!transform.any_op) -> (");
  for (int i = 0; i < results; ++i)
    emit(s, "%s!transform.any_op", i ? ", " : "");
  emit(s, ")\n");
}

/* %h = the op tagged `sid`. */
static int emitMatch(Script *s, int64_t sid) {
  int h = s->next++;
  emit(s, "    %%h%d = transform.structured.match attributes{dlc.sid = %lld : i64} in %%m"
          " : (!transform.any_op) -> !transform.any_op\n",
       h, (long long)sid);
  return h;
}

/* Tiles handle `h` with scf.for loops; returns the tiled op's handle and,
   through `innermost`, the innermost loop's (-1 when nothing is tiled). */
static int emitTileFor(Script *s, int h, const int64_t *sizes, int n, const int64_t *interchange,
                       int *innermost) {
  int loops = countNonZero(sizes, n);
  if (innermost)
    *innermost = -1;
  if (loops == 0)
    return h;
  int t = s->next;
  s->next += 1 + loops;
  emit(s, "    %%h%d", t);
  for (int i = 1; i <= loops; ++i)
    emit(s, ", %%h%d", t + i);
  emit(s, " = transform.structured.tile_using_for %%h%d tile_sizes ", h);
  emitSizes(s, sizes, n);
  if (interchange) {
    emit(s, " interchange = ");
    emitSizes(s, interchange, n);
  }
  emitTypes(s, 1 + loops);
  if (innermost)
    *innermost = t + loops;
  return t;
}

static void emitVectorize(Script *s, int h) {
  emit(s, "    transform.structured.vectorize %%h%d : !transform.any_op\n", h);
}

/* Vector tile of a non-GEMM op: 1 on every loop but the innermost. A lone
   trailing reduction keeps `vector`-wide partial sums instead. */
static void emitVectorTile(Script *s, int h, const OpInfo *o) {
  const DlcLoopNest *l = &o->loops;
  const int64_t *ext = o->tileExtent;
  int n = l->numLoops;
  if (!o->vectorizable || n == 0)
    return;
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS];
  int64_t v = dlcVectorTile(ext[n - 1], s->vw);
  for (int d = 0; d < n; ++d)
    sizes[d] = ext[d] == 1 ? 0 : 1;
  if (o->combiner && ext[n - 1] > v) {
    sizes[n - 1] = 0;
    int t = emitTileFor(s, h, sizes, n, NULL, NULL);
    memset(sizes, 0, sizeof sizes);
    sizes[n - 1] = v;
    int r = s->next;
    s->next += 4;
    emit(s, "    %%h%d, %%h%d, %%h%d, %%h%d = transform.structured.tile_reduction_using_for %%h%d"
            " by tile_sizes = ",
         r, r + 1, r + 2, r + 3, t);
    emitSizes(s, sizes, n);
    emit(s, " : (!transform.any_op) -> (!transform.any_op, !transform.any_op, "
            "!transform.any_op, !transform.any_op)\n");
    for (int i = 0; i < 3; ++i) /* the partial sums' fill, the partial op, the merge */
      emitVectorize(s, r + i);
    return;
  }
  sizes[n - 1] = v == ext[n - 1] ? 0 : v;
  emitVectorize(s, emitTileFor(s, h, sizes, n, NULL, NULL));
}

typedef struct {
  OpInfo *ops; /* program order; the last is the sink */
  int numOps;
  int root;    /* index of the GEMM root, or -1 */
  int64_t firstSid;
  DlcSchedule sched;
} Group;

static int indexOf(const Group *g, MlirOperation op) {
  for (int i = 0; i < g->numOps; ++i)
    if (mlirOperationEqual(g->ops[i].op, op))
      return i;
  return -1;
}

static MlirAffineMap operandMap(MlirOperation op, intptr_t operand) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  if (mlirAttributeIsNull(maps)) /* linalg.fill: its output is the identity */
    return mlirAffineMapMultiDimIdentityGet(
        mlirOperationGetContext(op),
        mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, operand))));
  return mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operand));
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
    MlirAffineMap out = operandMap(p->op, nOps - 1);
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(p->op, 0));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      int c = indexOf(g, mlirOpOperandGetOwner(u));
      if (c <= i)
        continue;
      MlirAffineMap in = operandMap(g->ops[c].op, mlirOpOperandGetOperandNumber(u));
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(out) &&
                           r < mlirAffineMapGetNumResults(in); ++r) {
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

/* Fuses the producer `*h` into the loop `containing`: `*h` becomes the
   fused op's handle; returns the loop's new handle. */
static int emitFuseInto(Script *s, int *h, int containing) {
  int f = s->next;
  s->next += 2;
  emit(s, "    %%h%d, %%h%d = transform.structured.fuse_into_containing_op %%h%d into %%h%d"
          " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
       f, f + 1, *h, containing);
  *h = f;
  return f + 1;
}

/* Tiles the sink by scf.forall over the schedule's parallel loops and fuses
   every producer into it, last first; handles[i] gets op i's handle. */
static void emitForallAndFuse(Script *s, Group *g, const int64_t *forallSizes,
                              int *handles) {
  int last = g->numOps - 1;
  propagateTileExtents(g, forallSizes);
  const DlcLoopNest *sl = &g->ops[last].loops;
  for (int i = 0; i <= last; ++i)
    handles[i] = emitMatch(s, g->firstSid + i);
  if (countNonZero(forallSizes, sl->numLoops) == 0)
    return;
  int t = s->next;
  s->next += 2;
  emit(s, "    %%h%d, %%h%d = transform.structured.tile_using_forall %%h%d tile_sizes ", t, t + 1,
       handles[last]);
  emitSizes(s, forallSizes, sl->numLoops);
  emitTypes(s, 2);
  handles[last] = t;
  int forall = t + 1;
  for (int i = last - 1; i >= 0; --i)
    forall = emitFuseInto(s, &handles[i], forall);
}

/* The MR x NR x 1 register tile of the (Kc- and NR-tiled) GEMM `h`: its
   MR-row loop and the k loop, whose accumulators hoisting keeps in
   registers. */
static void emitRegisterTile(Script *s, int h, int n, int p, int M, int64_t mr) {
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (int d = 0; d < n; ++d)
    sizes[d] = d >= p ? 1 : 0;
  sizes[M] = mr;
  int inner;
  emitVectorize(s, emitTileFor(s, h, sizes, n, NULL, &inner));
  if (inner >= 0) /* named, as vectorisation invalidates the handle */
    emit(s, "    transform.annotate %%h%d \"dlc.kloop\" : !transform.any_op\n", inner);
}

/* Whether `producer`'s result is an input (not the init) of `root`. */
static bool feedsInput(MlirOperation producer, MlirOperation root) {
  MlirValue r = mlirOperationGetResult(producer, 0);
  for (intptr_t i = 0; i + 1 < mlirOperationGetNumOperands(root); ++i)
    if (mlirValueEqual(mlirOperationGetOperand(root, i), r))
      return true;
  return false;
}

/* The sink's parallel tiles for the root's: the sink's loops are the
   root's parallel loops, in the order the sink reads the root's result (a
   packed GEMM's epilogue reads C3[panel][m][n] as C[m][panel][n]). */
static void sinkTiles(const Group *g, const int64_t *rootTiles, int64_t *sinkTiles) {
  const OpInfo *root = &g->ops[g->root], *sink = &g->ops[g->numOps - 1];
  int p = root->numParallel;
  for (int d = 0; d < p; ++d)
    sinkTiles[d] = rootTiles[d];
  if (g->root == g->numOps - 1)
    return;
  MlirValue r = mlirOperationGetResult(root->op, 0);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(sink->op); ++i) {
    if (!mlirValueEqual(mlirOperationGetOperand(sink->op, i), r))
      continue;
    MlirAffineMap in = operandMap(sink->op, i), out = operandMap(root->op, mlirOperationGetNumOperands(root->op) - 1);
    for (intptr_t k = 0; k < mlirAffineMapGetNumResults(in) && k < p; ++k) {
      MlirAffineExpr se = mlirAffineMapGetResult(in, k), re = mlirAffineMapGetResult(out, k);
      if (mlirAffineExprIsADim(se) && mlirAffineExprIsADim(re))
        sinkTiles[mlirAffineDimExprGetPosition(se)] = rootTiles[mlirAffineDimExprGetPosition(re)];
    }
    return;
  }
}

static void emitGemmGroup(Script *s, Group *g) {
  int handles[64];
  const OpInfo *root = &g->ops[g->root];
  int n = root->loops.numLoops, p = root->numParallel, M = p - 2, N = p - 1;
  const DlcSchedule *sc = &g->sched;
  int64_t rootForall[DLC_SCHEDULE_MAX_LOOPS] = {0}, forall[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] < p)
      rootForall[sc->parallel[i]] = sc->tiles[sc->parallel[i]];
  sinkTiles(g, rootForall, forall);
  emitForallAndFuse(s, g, forall, handles);
  int64_t mc = sc->tiles[M] ? sc->tiles[M] : root->loops.extent[M];
  int64_t nc = sc->tiles[N] ? sc->tiles[N] : root->loops.extent[N];
  int64_t kc = sc->tiles[n - 1];
  int64_t reg[2] = {sc->registerTile[0], sc->registerTile[1]};
  if (reg[0] <= 0) /* a given schedule without one */
    dlcGemmRegisterTile(mc, nc, s->vw, reg);
  int64_t mr = reg[0], nr = reg[1];
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  int h = handles[g->root], kcLoop = -1;
  if (kc > 0 && kc < root->loops.extent[n - 1]) {
    sizes[n - 1] = kc;
    h = emitTileFor(s, h, sizes, n, NULL, &kcLoop);
  }
  /* Packing and layout copies of A and B, per Kc block: the packed Kc x Nc
     block of B stays in L2 for all the tile's MR-row blocks. */
  for (int i = g->root - 1; i >= 0 && kcLoop >= 0; --i)
    if (feedsInput(g->ops[i].op, root->op))
      kcLoop = emitFuseInto(s, &handles[i], kcLoop);
  for (int i = 0; i < g->numOps; ++i)
    if (i != g->root)
      emitVectorTile(s, handles[i], &g->ops[i]);
  /* Mc blocks of a tile that runs over more rows than Mc, inside the Kc
     block: the packed block of B serves them all (BLIS's ic loop). */
  if (!rootForall[M] && mc < root->loops.extent[M]) {
    memset(sizes, 0, sizeof sizes);
    sizes[M] = mc;
    h = emitTileFor(s, h, sizes, n, NULL, NULL);
  }
  /* Register tile: an NR-column loop (and one over the tile's panels), so
     the Kc x NR panel of B serves every MR-row block from L1, and the
     MR x NR x 1 tile inside. Rows that MR does not divide are split off
     with a smaller tile. */
  for (int d = 0; d < n; ++d)
    sizes[d] = d < M ? 1 : 0;
  sizes[N] = nr;
  h = emitTileFor(s, h, sizes, n, NULL, NULL);
  int64_t rem = mc % mr;
  if (rem == 0 || mc < mr) {
    emitRegisterTile(s, h, n, p, M, mr < mc ? mr : mc);
    return;
  }
  int parts = s->next, lo = s->next + 1, hi = s->next + 2;
  s->next += 3;
  emit(s, "    %%h%d = transform.structured.split %%h%d after %lld { dimension = %d }"
          " : !transform.any_op\n", parts, h, (long long)(mc - rem), M);
  emit(s, "    %%h%d, %%h%d = transform.split_handle %%h%d"
          " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n", lo, hi, parts);
  emitRegisterTile(s, lo, n, p, M, mr);
  emitRegisterTile(s, hi, n, p, M, dlcLargestDivisor(rem, mr));
}

static void emitLoopsGroup(Script *s, Group *g) {
  int handles[64];
  const DlcSchedule *sc = &g->sched;
  const DlcLoopNest *sl = &g->ops[g->numOps - 1].loops;
  int64_t forall[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < sc->numParallel; ++i)
    if (sc->parallel[i] < sl->numLoops && !sl->reduction[sc->parallel[i]])
      forall[sc->parallel[i]] = sc->tiles[sc->parallel[i]];
  emitForallAndFuse(s, g, forall, handles);
  for (int i = 0; i < g->numOps; ++i)
    emitVectorTile(s, handles[i], &g->ops[i]);
}

/*--- Grouping ------------------------------------------------------------------*/

static bool inList(const MlirOperation *ops, int n, MlirOperation op) {
  for (int i = 0; i < n; ++i)
    if (mlirOperationEqual(ops[i], op))
      return true;
  return false;
}

static bool allUsesIn(MlirOperation op, const MlirOperation *group, int n) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      if (!inList(group, n, mlirOpOperandGetOwner(u)))
        return false;
  return true;
}

typedef struct {
  Script script;
  int64_t sid;
  int groups;
  bool failed;
  MlirContext ctx;
} State;

static void tag(State *st, MlirOperation op) {
  mlirOperationSetDiscardableAttributeByName(
      op, str("dlc.sid"), mlirIntegerAttrGet(mlirIntegerTypeGet(st->ctx, 64), st->sid++));
}

/* A given [MR, NR] fits the M tile (rows MR does not divide get a tile of
   their own) and NR divides the N tile of the GEMM root (loops
   [..., m, n, k...] with `p` parallel ones); other kernels ignore it. */
static bool registerTileFits(const DlcSchedule *sc, const DlcLoopNest *nest, int p) {
  if (p < 2)
    return false;
  int64_t mc = sc->tiles[p - 2] ? sc->tiles[p - 2] : nest->extent[p - 2];
  int64_t nc = sc->tiles[p - 1] ? sc->tiles[p - 1] : nest->extent[p - 1];
  return mc > 0 && nc > 0 && sc->registerTile[0] <= mc && nc % sc->registerTile[1] == 0;
}

/* The kernel's #dlk.schedule belongs to its primary group, the one with
   the contraction or else the one that ends in the kernel's result; other
   groups (packing and unpacking copies) take the cost model's. */
static void scheduleGroup(State *st, MlirOperation func, const MlirOperation *ops, int n,
                          bool primary) {
  Group g = {.numOps = 0, .root = -1, .firstSid = st->sid};
  OpInfo infos[64];
  if (n > 64)
    return;
  for (int i = 0; i < n; ++i) {
    if (!readOp(ops[i], &infos[g.numOps]))
      return; /* an op we cannot read stays as it is (plain loops) */
    if (g.root < 0 && isGemmRoot(&infos[g.numOps]))
      g.root = g.numOps;
    g.numOps++;
  }
  g.ops = infos;
  const OpInfo *sink = &infos[n - 1];
  if (g.root >= 0 && sink->loops.numLoops != infos[g.root].numParallel && g.root != n - 1)
    g.root = -1; /* an epilogue that changes shape: no common tiling */
  MlirAttribute given = primary ? mlirOperationGetDiscardableAttributeByName(func, str("dlk.schedule"))
                                : mlirAttributeGetNull();
  bool haveGiven = !mlirAttributeIsNull(given) && dlcScheduleRead(given, &g.sched);
  const DlcLoopNest *nest = g.root >= 0 ? &infos[g.root].loops : &sink->loops;
  if (haveGiven) { /* tiles must fit the root, or its tiles stop being static */
    bool fits = g.sched.numTiles == nest->numLoops;
    for (intptr_t d = 0; fits && d < g.sched.numTiles; ++d)
      fits = g.sched.tiles[d] == 0 || (nest->extent[d] > 0 && nest->extent[d] % g.sched.tiles[d] == 0);
    if (!fits) {
      char msg[512], *at = msg;
      at += snprintf(msg, sizeof msg,
                     "#dlk.schedule does not fit the kernel's root loops: it needs one tile "
                     "per loop, each 0 or dividing the loop's extent; the root's loops are [");
      for (int d = 0; d < nest->numLoops && at < msg + sizeof msg - 32; ++d)
        at += snprintf(at, (size_t)(msg + sizeof msg - at), "%s%lld", d ? ", " : "",
                       (long long)nest->extent[d]);
      snprintf(at, (size_t)(msg + sizeof msg - at), "]");
      mlirEmitError(mlirOperationGetLocation(func), msg);
      st->failed = true;
      return;
    }
    if (g.root >= 0 && g.sched.registerTile[0] > 0 &&
        !registerTileFits(&g.sched, nest, infos[g.root].numParallel)) {
      mlirEmitError(mlirOperationGetLocation(func),
                    "#dlk.schedule register tile does not fit: MR must not exceed the M tile "
                    "and NR must divide the N tile of a contraction");
      st->failed = true;
      return;
    }
  }
  if (!haveGiven) {
    if (g.root >= 0)
      dlcScheduleGemm(nest, &st->script.target, &g.sched);
    else
      dlcScheduleLoops(nest, st->script.vw, &g.sched);
    bool kernel = !mlirAttributeIsNull(
        mlirOperationGetDiscardableAttributeByName(func, str("dlk.kind")));
    if (kernel && primary && mlirAttributeIsNull(given)) /* shown in the IR, and overridable */
      mlirOperationSetDiscardableAttributeByName(func, str("dlk.schedule"),
                                                 dlcScheduleAttrGet(st->ctx, &g.sched));
  }
  for (int i = 0; i < n; ++i)
    tag(st, ops[i]);
  MlirAttribute name = mlirOperationGetAttributeByName(func, str("sym_name"));
  MlirStringRef fn = mlirStringAttrGetValue(name);
  emit(&st->script, "    // group %d of @%.*s: %d ops, %s\n", st->groups++, (int)fn.length, fn.data, n,
       g.root >= 0 ? "gemm" : "loops");
  if (g.root >= 0)
    emitGemmGroup(&st->script, &g);
  else
    emitLoopsGroup(&st->script, &g);
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
        !isGemmRoot(&info))
      continue;
    for (int d = 0; d < info.loops.numLoops; ++d)
      if (info.loops.panel[d])
        return true;
  }
  return false;
}

static bool hasGemmRoot(const DlcOpList *group) {
  OpInfo info;
  for (intptr_t i = 0; i < group->n; ++i)
    if (readOp(group->ops[i], &info) && isGemmRoot(&info))
      return true;
  return false;
}

static void scheduleFunc(State *st, MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body))
    return;
  DlcOpList all = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (isLinalg(op))
      dlcOpListPush(&all, op);
  bool *taken = dlcXcalloc(all.n ? all.n : 1, sizeof *taken);
  DlcOpList *groups = dlcXcalloc(all.n ? all.n : 1, sizeof *groups);
  int numGroups = 0, primary = -1;
  for (int i = all.n - 1; i >= 0; --i) {
    if (taken[i])
      continue;
    DlcOpList *group = &groups[numGroups++];
    dlcOpListPush(group, all.ops[i]);
    taken[i] = true;
    for (int j = i - 1; j >= 0; --j)
      if (!taken[j] && allUsesIn(all.ops[j], group->ops, group->n) &&
          !feedsPanelA(all.ops[j], group->ops, (int)group->n)) {
        dlcOpListPush(group, all.ops[j]);
        taken[j] = true;
      }
    /* group holds sink first; scheduleGroup wants program order */
    for (intptr_t a = 0, b = group->n - 1; a < b; ++a, --b) {
      MlirOperation t = group->ops[a];
      group->ops[a] = group->ops[b];
      group->ops[b] = t;
    }
    if (primary < 0 && hasGemmRoot(group))
      primary = numGroups - 1;
  }
  for (int gi = 0; gi < numGroups; ++gi) {
    scheduleGroup(st, func, groups[gi].ops, (int)groups[gi].n, gi == (primary < 0 ? 0 : primary));
    dlcOpListFree(&groups[gi]);
  }
  free(groups);
  free(taken);
  dlcOpListFree(&all);
}

static MlirWalkResult untag(MlirOperation op, void *u) {
  mlirOperationRemoveDiscardableAttributeByName(op, str("dlc.sid"));
  mlirOperationRemoveDiscardableAttributeByName(op, str("dlc.kloop"));
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  const DlcOptions *o = dlcPassGetOptions(pass);
  State st = {.script = {.text = {NULL, 0, 0}, .next = 0}, .ctx = mlirOperationGetContext(module)};
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (!dlcTargetIsKnown(target)) {
    char msg[160];
    snprintf(msg, sizeof msg, "dlc-cpu-schedule: unknown target '%.*s' (host, avx2 or avx512)",
             (int)(target.length < 64 ? target.length : 64), target.data);
    mlirEmitError(mlirOperationGetLocation(module), msg);
    return (MlirLogicalResult){0};
  }
  st.script.target = dlcCpuTargetGet(target, dlcOptionsGetInt(o, "vector-width"));
  st.script.vw = (int)st.script.target.vectorWidth;
  Script *s = &st.script;
  emit(s, "module attributes {transform.with_named_sequence} {\n"
          "  transform.named_sequence @__transform_main(%%m: !transform.any_op {transform.readonly}) {\n");
  MlirBlock mb = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(mb); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f))
    if (dlcOpIs(f, "func.func")) {
      dlcNormalizeForSchedule(f);
      scheduleFunc(&st, f);
    }
  if (st.failed) {
    mlirOperationWalk(module, untag, NULL, MlirWalkPostOrder);
    dlcTextFree(&s->text);
    return (MlirLogicalResult){0};
  }
  if (st.groups == 0) {
    dlcTextFree(&s->text);
    return (MlirLogicalResult){1};
  }
  emit(s, "    %%vf = transform.structured.match ops{[\"func.func\"]} in %%m"
          " : (!transform.any_op) -> !transform.any_op\n"
          "    transform.apply_patterns to %%vf {\n"
          "      transform.apply_patterns.vector.reduction_to_contract\n"
          "      transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n"
          "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
          "      transform.apply_patterns.canonicalization\n"
          "    } : !transform.any_op\n");
  emit(s, "    %%kloops = transform.structured.match attributes{dlc.kloop} in %%m"
          " : (!transform.any_op) -> !transform.any_op\n"
          "    transform.loop.hoist_loop_invariant_subsets %%kloops : !transform.any_op\n"
          /* four k steps a trip: the loop's own instructions no longer
             compete with the FMAs for the front end */
          "    transform.loop.unroll %%kloops {factor = 4} : !transform.any_op\n");
  emit(s, "    transform.apply_patterns to %%vf {\n"
          "      transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\"\n"
          "      transform.apply_patterns.vector.lower_multi_reduction"
          " lowering_strategy = \"innerreduction\"\n"
          "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
          "      transform.apply_patterns.canonicalization\n"
          "    } : !transform.any_op\n"
          "    transform.yield\n  }\n}\n");
  MlirLogicalResult result = {1};
  if (s->failed) {
    mlirEmitError(mlirOperationGetLocation(module), "dlc-cpu-schedule: script line too long");
    result.value = 0;
  } else {
    if (dlcOptionsGetBool(o, "print-transform"))
      fputs(dlcTextGet(&s->text), stderr);
    MlirModule script = mlirModuleCreateParse(st.ctx, str(dlcTextGet(&s->text)));
    if (mlirModuleIsNull(script)) {
      mlirEmitError(mlirOperationGetLocation(module),
                    "dlc-cpu-schedule: generated an invalid transform script "
                    "(print it with print-transform)");
      result.value = 0;
    } else {
      MlirOperation sop = mlirModuleGetOperation(script);
      MlirOperation entry = mlirBlockGetFirstOperation(
          mlirRegionGetFirstBlock(mlirOperationGetRegion(sop, 0)));
      MlirTransformOptions topts = mlirTransformOptionsCreate();
      result = mlirTransformApplyNamedSequence(module, entry, sop, topts);
      mlirTransformOptionsDestroy(topts);
      mlirModuleDestroy(script);
    }
  }
  mlirOperationWalk(module, untag, NULL, MlirWalkPostOrder);
  dlcPassAddStatistic(pass, "groups", (uint64_t)st.groups);
  dlcTextFree(&s->text);
  return result;
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {
      mlirGetDialectHandle__transform__(), mlirGetDialectHandle__linalg__(),
      mlirGetDialectHandle__scf__(),       mlirGetDialectHandle__vector__(),
      mlirGetDialectHandle__tensor__(),    mlirGetDialectHandle__arith__(),
  };
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU to schedule for: host, avx2 or avx512", DLC_OPTION_STRING, "host"},
    {"vector-width", "f32 lanes per vector; 0 takes the target's", DLC_OPTION_INT, "0"},
    {"print-transform", "print the generated transform script to stderr", DLC_OPTION_BOOL,
     "false"},
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
