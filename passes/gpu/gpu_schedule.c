/* --dlc-gpu-schedule: the GPU strategy on linalg-on-tensors.

   Like dlc-cpu-schedule, each function's linalg ops are partitioned into
   groups (a sink and the producers whose every use is in the group), each
   group gets its kernel's #dlk.schedule GPU fields or the GPU cost
   model's (gpu/gpu_cost_model.h), and the pass writes transform-dialect
   scripts for the transform interpreter. Two scripts run, because the
   vector tiles depend on the shapes that tiling leaves:

   1. blocks and threads: the sink is tiled by an scf.forall mapped to
      #gpu.block (the workgroup tile) and every producer fused into it;
      the tiled sink is tiled again by an scf.forall mapped to
      #gpu.thread (the thread tile) and the producers fused into that.
      The block forall carries `dlc.block_dims`, the thread counts that
      dlc-gpu-map gives the launch.
   2. per thread: every linalg op inside a thread forall is tiled by the
      CPU pass's vector tile rule (1 on outer loops, up to four vectors on
      the innermost, vector partial sums for a trailing reduction) and
      vectorised; a contraction's k loop is tiled by one, so its 4 x 4
      register tile is a vector.contract lowered to outer products (FFMA),
      its accumulators hoisted out of the k loop.

   Ops that no forall holds after this (a reduction to a scalar, copies
   that bufferisation adds) are launched by dlc-gpu-map on one thread.

   Option print-transform prints both scripts. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "gpu/gpu_cost_model.h"
#include "schedule/normalize.h"
#include "support/op_list.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Transform.h"
#include "mlir-c/Dialect/Transform/Interpreter.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- Reading linalg ops (as dlc-cpu-schedule reads them) ---------------------------*/

typedef struct {
  MlirOperation op;
  DlcLoopNest loops;
  bool vectorizable;
  bool combiner;   /* one trailing reduction with a recognised combiner */
  bool sums;       /* the body yields combiner(x, out) */
  int numParallel; /* leading parallel loops, when every reduction trails */
  int elementBits;
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

/* i1 vectors are bit-packed while i1 tensors take a byte; a tensor.extract
   in a body is a gather: both stay scalar. */
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

static MlirAffineMap operandMap(MlirOperation op, intptr_t operand) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  if (mlirAttributeIsNull(maps))
    return mlirAffineMapMultiDimIdentityGet(
        mlirOperationGetContext(op),
        mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, operand))));
  return mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operand));
}

static int bitsOf(MlirType shaped) {
  MlirType e = mlirShapedTypeGetElementType(shaped);
  if (mlirTypeIsAInteger(e))
    return (int)mlirIntegerTypeGetWidth(e);
  if (mlirTypeIsAF16(e) || mlirTypeIsABF16(e))
    return 16;
  if (mlirTypeIsAF64(e))
    return 64;
  return 32;
}

static bool readOp(MlirOperation op, OpInfo *info) {
  memset(info, 0, sizeof *info);
  info->op = op;
  DlcLoopNest *l = &info->loops;
  if (mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!mlirTypeIsARankedTensor(rt))
    return false;
  info->elementBits = bitsOf(rt);
  if (dlcOpIs(op, "linalg.fill")) {
    l->numLoops = (int)mlirShapedTypeGetRank(rt);
    for (int d = 0; d < l->numLoops; ++d)
      l->extent[d] = mlirShapedTypeIsDynamicDim(rt, d) ? -1 : mlirShapedTypeGetDimSize(rt, d);
    info->vectorizable = mlirShapedTypeHasStaticShape(rt) && vectorSafe(op);
    info->numParallel = l->numLoops;
    return l->numLoops <= DLC_SCHEDULE_MAX_LOOPS;
  }
  if (!dlcOpIs(op, "linalg.generic"))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  intptr_t nMaps = mlirArrayAttrGetNumElements(maps);
  if (nMaps != mlirOperationGetNumOperands(op) ||
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
    if (!mlirTypeIsAShaped(t))
      continue; /* a scalar operand (a generalised fill) */
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
  info->combiner = reductions == 1 && l->numLoops > 0 && l->reduction[l->numLoops - 1] &&
                   info->sums;
  info->numParallel = l->numLoops - reductions;
  for (int d = info->numParallel; d < l->numLoops; ++d)
    if (!l->reduction[d])
      info->numParallel = -1;
  return true;
}

/* [parallel..., m, n, reduction...], two inputs combined by a sum, the
   output indexed by the parallel loops in order. */
static bool isGemmRoot(const OpInfo *r) {
  int p = r->numParallel;
  if (!r->vectorizable || !r->sums || p < 2 || p == r->loops.numLoops ||
      mlirOperationGetNumOperands(r->op) != 3)
    return false;
  MlirAffineMap out = operandMap(r->op, 2);
  if (mlirAffineMapGetNumResults(out) != p)
    return false;
  for (int d = 0; d < p; ++d) {
    MlirAffineExpr e = mlirAffineMapGetResult(out, d);
    if (!mlirAffineExprIsADim(e) || mlirAffineDimExprGetPosition(e) != d)
      return false;
  }
  return true;
}

static bool hasReduction(const OpInfo *o) {
  for (int d = 0; d < o->loops.numLoops; ++d)
    if (o->loops.reduction[d])
      return true;
  return false;
}

/*--- The transform scripts ---------------------------------------------------------*/

typedef struct {
  DlcText text;
  int next;
  bool failed;
} Script;

static void emit(Script *s, const char *fmt, ...) {
  char buf[4096];
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

static int emitMatch(Script *s, int64_t sid) {
  int h = s->next++;
  emit(s, "    %%h%d = transform.structured.match attributes{dlc.sid = %lld : i64} in %%m"
          " : (!transform.any_op) -> !transform.any_op\n",
       h, (long long)sid);
  return h;
}

static int emitFuseInto(Script *s, int *h, int containing) {
  int f = s->next;
  s->next += 2;
  emit(s, "    %%h%d, %%h%d = transform.structured.fuse_into_containing_op %%h%d into %%h%d"
          " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
       f, f + 1, *h, containing);
  *h = f;
  return f + 1;
}

/* tile_using_forall of `*h` by `sizes`, the tiled loops mapped innermost
   first to x, y, z of `kind` (block or thread); `*h` becomes the tiled
   op; returns the forall's handle. */
static int emitForall(Script *s, int *h, const int64_t *sizes, int n, const char *kind) {
  static const char *const kDims[] = {"x", "y", "z"};
  int t = s->next;
  s->next += 2;
  emit(s, "    %%h%d, %%h%d = transform.structured.tile_using_forall %%h%d tile_sizes ", t, t + 1,
       *h);
  emitSizes(s, sizes, n);
  emit(s, " (mapping = [");
  int k = countNonZero(sizes, n), first = 1;
  for (int d = 0; d < n; ++d)
    if (sizes[d]) {
      emit(s, "%s#gpu.%s<%s>", first ? "" : ", ", kind, kDims[--k]);
      first = 0;
    }
  emit(s, "]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n");
  *h = t;
  return t + 1;
}

static int emitTileFor(Script *s, int h, const int64_t *sizes, int n, int *innermost) {
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
  emit(s, " : (!transform.any_op) -> (");
  for (int i = 0; i <= loops; ++i)
    emit(s, "%s!transform.any_op", i ? ", " : "");
  emit(s, ")\n");
  if (innermost)
    *innermost = t + loops;
  return t;
}

static void emitVectorize(Script *s, int h) {
  emit(s, "    transform.structured.vectorize %%h%d : !transform.any_op\n", h);
}

/* Phase 2 on one op of a thread tile: the CPU's vector tile rule with the
   GPU's vector width (128 bits). */
static void emitThreadOp(Script *s, int h, const OpInfo *o) {
  const DlcLoopNest *l = &o->loops;
  int n = l->numLoops;
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  if (!o->vectorizable || n == 0)
    return;
  if (isGemmRoot(o)) { /* k by one: the register tile is one vector.contract */
    for (int d = 0; d < n; ++d)
      sizes[d] = d < o->numParallel - 2 ? (l->extent[d] > 1) : d >= o->numParallel;
    int kloop;
    emitVectorize(s, emitTileFor(s, h, sizes, n, &kloop));
    if (kloop >= 0)
      emit(s, "    transform.annotate %%h%d \"dlc.kloop\" : !transform.any_op\n", kloop);
    return;
  }
  int64_t vw = 128 / (o->elementBits > 0 ? o->elementBits : 32);
  int64_t v = dlcVectorTile(l->extent[n - 1], vw);
  for (int d = 0; d < n; ++d)
    sizes[d] = l->extent[d] == 1 ? 0 : 1;
  if (o->combiner && l->extent[n - 1] > v) {
    sizes[n - 1] = 0;
    int t = emitTileFor(s, h, sizes, n, NULL);
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
    for (int i = 0; i < 3; ++i)
      emitVectorize(s, r + i);
    return;
  }
  sizes[n - 1] = v == l->extent[n - 1] ? 0 : v;
  emitVectorize(s, emitTileFor(s, h, sizes, n, NULL));
}

/*--- Groups -----------------------------------------------------------------------*/

typedef struct {
  OpInfo *ops; /* program order; the last is the sink */
  int numOps;
  int root;    /* the contraction, or -1 */
  int64_t firstSid;
  DlcSchedule sched;
  DlcGpuStrategy strategy;
} Group;

/* The sink's tiles for tiles of the root's parallel loops, through the map
   by which the sink reads the root's result. */
static void sinkTiles(const Group *g, const int64_t *rootTiles, int64_t *out) {
  const OpInfo *root = &g->ops[g->root], *sink = &g->ops[g->numOps - 1];
  int p = root->numParallel;
  memset(out, 0, sizeof(int64_t) * DLC_SCHEDULE_MAX_LOOPS);
  for (int d = 0; d < p; ++d)
    out[d] = rootTiles[d];
  if (g->root == g->numOps - 1)
    return;
  MlirValue r = mlirOperationGetResult(root->op, 0);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(sink->op); ++i) {
    if (!mlirValueEqual(mlirOperationGetOperand(sink->op, i), r))
      continue;
    memset(out, 0, sizeof(int64_t) * DLC_SCHEDULE_MAX_LOOPS);
    MlirAffineMap in = operandMap(sink->op, i), outMap = operandMap(root->op, 2);
    for (intptr_t k = 0; k < mlirAffineMapGetNumResults(in) && k < p; ++k) {
      MlirAffineExpr se = mlirAffineMapGetResult(in, k), re = mlirAffineMapGetResult(outMap, k);
      if (mlirAffineExprIsADim(se) && mlirAffineExprIsADim(re))
        out[mlirAffineDimExprGetPosition(se)] = rootTiles[mlirAffineDimExprGetPosition(re)];
    }
    return;
  }
}

/* Loops of the sink by which it reads what a reduction in the group
   produced (softmax's row max and sum): the rows a thread owns whole. */
static void rowDims(const Group *g, bool *rows) {
  const OpInfo *sink = &g->ops[g->numOps - 1];
  int n = sink->loops.numLoops;
  bool any = false;
  for (int d = 0; d < n; ++d)
    rows[d] = true;
  for (intptr_t i = 0; i + 1 < mlirOperationGetNumOperands(sink->op); ++i) {
    MlirValue v = mlirOperationGetOperand(sink->op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation p = mlirOpResultGetOwner(v);
    bool inGroup = false;
    for (int k = 0; k + 1 < g->numOps && !inGroup; ++k)
      inGroup = mlirOperationEqual(g->ops[k].op, p);
    if (!inGroup || mlirShapedTypeGetRank(mlirValueGetType(v)) >= n)
      continue;
    bool reads[DLC_SCHEDULE_MAX_LOOPS] = {0};
    MlirAffineMap m = operandMap(sink->op, i);
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r)
      if (mlirAffineExprIsADim(mlirAffineMapGetResult(m, r)))
        reads[mlirAffineDimExprGetPosition(mlirAffineMapGetResult(m, r))] = true;
    for (int d = 0; d < n; ++d)
      rows[d] = rows[d] && reads[d];
    any = true;
  }
  if (!any) /* the sink reduces: its parallel loops are the rows */
    for (int d = 0; d < n; ++d)
      rows[d] = !sink->loops.reduction[d];
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

static void fail(State *st, MlirOperation at, const char *msg) {
  mlirEmitError(mlirOperationGetLocation(at), msg);
  st->failed = true;
}

/* A given schedule's GPU fields must fit the nest: one tile per loop, each
   dividing its extent, reductions untiled, thread tiles in the block. */
static bool givenFits(State *st, MlirOperation func, const DlcSchedule *s, const DlcLoopNest *l) {
  char msg[256];
  if (s->numWorkgroup != l->numLoops || s->numThread != l->numLoops) {
    snprintf(msg, sizeof msg,
             "#dlk.schedule for the GPU needs one workgroup and one thread tile per loop of the "
             "kernel's root (%d loops); got %d and %d",
             l->numLoops, (int)s->numWorkgroup, (int)s->numThread);
    fail(st, func, msg);
    return false;
  }
  for (int d = 0; d < l->numLoops; ++d) {
    int64_t w = s->workgroup[d], t = s->thread[d], ext = w ? w : l->extent[d];
    if ((w && l->extent[d] % w) || (t && ext % t) || (l->reduction[d] && (w || t))) {
      snprintf(msg, sizeof msg,
               "#dlk.schedule does not fit loop %d (extent %lld%s): workgroup %lld, thread %lld "
               "(tiles must divide; reduction loops stay untiled)",
               d, (long long)l->extent[d], l->reduction[d] ? ", reduction" : "", (long long)w,
               (long long)t);
      fail(st, func, msg);
      return false;
    }
  }
  int64_t dims[3];
  if (!dlcGpuBlockDims(l, s, dims) || countNonZero(s->thread, l->numLoops) == 0) {
    fail(st, func, "#dlk.schedule thread tiles give no thread or more than 1024 threads a block");
    return false;
  }
  if (s->stages > 1) {
    fail(st, func, "#dlk.schedule stages > 1 (multi-stage shared-memory copies) is not "
                   "implemented by the GPU strategy");
    return false;
  }
  if (s->mma[0]) {
    fail(st, func, "#dlk.schedule mma (tensor cores) is not implemented by the GPU strategy; "
                   "contractions use FFMA");
    return false;
  }
  return true;
}

static void emitGroup(Script *s, Group *g) {
  int handles[64];
  int last = g->numOps - 1;
  const OpInfo *sink = &g->ops[last];
  int n = sink->loops.numLoops;
  int64_t wg[DLC_SCHEDULE_MAX_LOOPS], th[DLC_SCHEDULE_MAX_LOOPS], dims[3];
  const DlcLoopNest *nest = g->root >= 0 ? &g->ops[g->root].loops : &sink->loops;
  dlcGpuBlockDims(nest, &g->sched, dims);
  if (g->root >= 0) {
    sinkTiles(g, g->sched.workgroup, wg);
    sinkTiles(g, g->sched.thread, th);
  } else {
    memcpy(wg, g->sched.workgroup, sizeof wg);
    memcpy(th, g->sched.thread, sizeof th);
  }
  /* thread tiles are relative to the block's tile: a loop the block keeps
     whole (0) that threads split gets the split against its extent */
  for (int i = 0; i <= last; ++i)
    handles[i] = emitMatch(s, g->firstSid + i);
  int h = handles[last];
  int forall = emitForall(s, &h, wg, n, "block");
  for (int i = last - 1; i >= 0; --i)
    forall = emitFuseInto(s, &handles[i], forall);
  int p = s->next++;
  emit(s, "    %%h%d = transform.param.constant array<i64: %lld, %lld, %lld> -> !transform.any_param\n"
          "    transform.annotate %%h%d \"dlc.block_dims\" = %%h%d : !transform.any_op, "
          "!transform.any_param\n",
       p, (long long)dims[0], (long long)dims[1], (long long)dims[2], forall, p);
  int threads = emitForall(s, &h, th, n, "thread");
  for (int i = last - 1; i >= 0; --i)
    threads = emitFuseInto(s, &handles[i], threads);
}

static void scheduleGroup(State *st, MlirOperation func, const MlirOperation *ops, int n,
                          bool primary) {
  Group g = {.numOps = 0, .root = -1, .firstSid = st->sid};
  OpInfo infos[64];
  if (n > 64)
    return;
  for (int i = 0; i < n; ++i) {
    if (!readOp(ops[i], &infos[g.numOps]))
      return; /* an op we cannot read: dlc-gpu-map launches it as it is */
    if (g.root < 0 && isGemmRoot(&infos[g.numOps]))
      g.root = g.numOps;
    g.numOps++;
  }
  g.ops = infos;
  const OpInfo *sink = &infos[n - 1];
  if (g.root >= 0 && g.root != n - 1 && sink->loops.numLoops != infos[g.root].numParallel)
    g.root = -1;
  const DlcLoopNest *nest = g.root >= 0 ? &infos[g.root].loops : &sink->loops;
  for (int d = 0; d < nest->numLoops; ++d)
    if (nest->extent[d] < 0) {
      fail(st, func, "dlc-gpu-schedule: dynamic loop extents are not supported on the GPU "
                     "(the program is specialised to its input shapes first)");
      return;
    }
  bool reduces = false;
  for (int i = 0; i < n; ++i)
    reduces = reduces || (i != g.root && hasReduction(&infos[i]));
  g.strategy = g.root >= 0 ? DLC_GPU_GEMM : reduces ? DLC_GPU_ROWS : DLC_GPU_ELEMENTWISE;
  MlirAttribute given = primary ? mlirOperationGetDiscardableAttributeByName(func, str("dlk.schedule"))
                                : mlirAttributeGetNull();
  DlcSchedule read;
  bool haveGiven = !mlirAttributeIsNull(given) && dlcScheduleRead(given, &read) &&
                   (read.numWorkgroup > 0 || read.numThread > 0 || read.mma[0] || read.stages > 1);
  if (haveGiven) {
    if (!givenFits(st, func, &read, nest))
      return;
    g.sched = read;
  } else {
    bool rows[DLC_SCHEDULE_MAX_LOOPS];
    rowDims(&g, rows);
    /* An op that does not vectorise (a gather, a reversed slice) keeps one
       element a thread: tiles of its non-permutation maps wider than one
       are not sliced correctly by upstream tiling (a reversed slice's
       tiled generic fails to verify). 128-bit elements give a width of 1. */
    bool vectorizable = true;
    for (int i = 0; i < n; ++i)
      vectorizable = vectorizable && infos[i].vectorizable;
    dlcGpuSchedule(nest, g.strategy, rows, vectorizable ? sink->elementBits : 128, &g.sched);
    int64_t dims[3];
    if (g.sched.numWorkgroup == 0 || !dlcGpuBlockDims(nest, &g.sched, dims))
      return; /* no parallel loop to spread: launched on one thread */
    bool kernel = !mlirAttributeIsNull(
        mlirOperationGetDiscardableAttributeByName(func, str("dlk.kind")));
    if (kernel && primary) { /* shown in the IR, and overridable */
      DlcSchedule rec = g.sched;
      if (!mlirAttributeIsNull(given) && dlcScheduleRead(given, &read)) {
        rec = read; /* keep the CPU fields given */
        rec.numWorkgroup = g.sched.numWorkgroup;
        rec.numThread = g.sched.numThread;
        memcpy(rec.workgroup, g.sched.workgroup, sizeof rec.workgroup);
        memcpy(rec.thread, g.sched.thread, sizeof rec.thread);
      }
      mlirOperationSetDiscardableAttributeByName(func, str("dlk.schedule"),
                                                 dlcScheduleAttrGet(st->ctx, &rec));
    }
  }
  for (int i = 0; i < n; ++i)
    tag(st, ops[i]);
  MlirStringRef fn = mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, str("sym_name")));
  static const char *const kNames[] = {"elementwise", "rows", "gemm"};
  emit(&st->script, "    // group %d of @%.*s: %d ops, %s\n", st->groups++, (int)fn.length,
       fn.data, n, kNames[g.strategy]);
  emitGroup(&st->script, &g);
}

static bool inList(const MlirOperation *ops, intptr_t n, MlirOperation op) {
  for (intptr_t i = 0; i < n; ++i)
    if (mlirOperationEqual(ops[i], op))
      return true;
  return false;
}

static bool allUsesIn(MlirOperation op, const MlirOperation *group, intptr_t n) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      if (!inList(group, n, mlirOpOperandGetOwner(u)))
        return false;
  return true;
}

static bool groupHasGemm(const DlcOpList *group) {
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
  bool *taken = calloc(all.n ? all.n : 1, sizeof *taken);
  DlcOpList *groups = calloc(all.n ? all.n : 1, sizeof *groups);
  int numGroups = 0, primary = -1;
  for (intptr_t i = all.n - 1; i >= 0; --i) {
    if (taken[i])
      continue;
    DlcOpList *group = &groups[numGroups++];
    dlcOpListPush(group, all.ops[i]);
    taken[i] = true;
    for (intptr_t j = i - 1; j >= 0; --j)
      if (!taken[j] && allUsesIn(all.ops[j], group->ops, group->n)) {
        dlcOpListPush(group, all.ops[j]);
        taken[j] = true;
      }
    for (intptr_t a = 0, b = group->n - 1; a < b; ++a, --b) {
      MlirOperation t = group->ops[a];
      group->ops[a] = group->ops[b];
      group->ops[b] = t;
    }
    if (primary < 0 && groupHasGemm(group))
      primary = numGroups - 1;
  }
  for (int gi = 0; gi < numGroups && !st->failed; ++gi)
    scheduleGroup(st, func, groups[gi].ops, (int)groups[gi].n, gi == (primary < 0 ? 0 : primary));
  for (int gi = 0; gi < numGroups; ++gi)
    dlcOpListFree(&groups[gi]);
  free(groups);
  free(taken);
  dlcOpListFree(&all);
}

/*--- Phase 2: ops inside thread foralls --------------------------------------------*/

static bool inThreadForall(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p)) {
    if (!dlcOpIs(p, "scf.forall"))
      continue;
    MlirAttribute m = mlirOperationGetAttributeByName(p, str("mapping"));
    if (!mlirAttributeIsNull(m) && attrTextHas(m, "#gpu.thread"))
      return true;
  }
  return false;
}

static MlirWalkResult collectThreadOps(MlirOperation op, void *u) {
  DlcOpList *l = u;
  if (isLinalg(op) && inThreadForall(op))
    dlcOpListPush(l, op);
  return MlirWalkResultAdvance;
}

static MlirWalkResult untag(MlirOperation op, void *u) {
  (void)u;
  mlirOperationRemoveDiscardableAttributeByName(op, str("dlc.sid"));
  mlirOperationRemoveDiscardableAttributeByName(op, str("dlc.kloop"));
  return MlirWalkResultAdvance;
}

static const char kHeader[] =
    "module attributes {transform.with_named_sequence} {\n"
    "  transform.named_sequence @__transform_main(%m: !transform.any_op {transform.readonly}) {\n";

static MlirLogicalResult runScript(State *st, MlirOperation module, bool print) {
  Script *s = &st->script;
  if (s->failed) {
    mlirEmitError(mlirOperationGetLocation(module), "dlc-gpu-schedule: script line too long");
    return (MlirLogicalResult){0};
  }
  if (print)
    fputs(dlcTextGet(&s->text), stderr);
  MlirModule script = mlirModuleCreateParse(st->ctx, str(dlcTextGet(&s->text)));
  if (mlirModuleIsNull(script)) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-gpu-schedule: generated an invalid transform script "
                  "(print it with print-transform)");
    return (MlirLogicalResult){0};
  }
  MlirOperation sop = mlirModuleGetOperation(script);
  MlirOperation entry =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(sop, 0)));
  MlirTransformOptions topts = mlirTransformOptionsCreate();
  MlirLogicalResult r = mlirTransformApplyNamedSequence(module, entry, sop, topts);
  mlirTransformOptionsDestroy(topts);
  mlirModuleDestroy(script);
  return r;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  bool print = dlcOptionsGetBool(o, "print-transform");
  State st = {.script = {.text = {NULL, 0, 0}}, .ctx = mlirOperationGetContext(module)};
  Script *s = &st.script;
  emit(s, "%s", kHeader);
  MlirBlock mb = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(mb); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f))
    if (dlcOpIs(f, "func.func")) {
      dlcNormalizeForSchedule(f);
      scheduleFunc(&st, f);
    }
  MlirLogicalResult result = {1};
  if (st.failed)
    result.value = 0;
  else if (st.groups > 0) {
    emit(s, "    transform.yield\n  }\n}\n");
    result = runScript(&st, module, print);
  }
  dlcPassAddStatistic(pass, "groups", (uint64_t)st.groups);
  dlcTextFree(&s->text);
  if (mlirLogicalResultIsFailure(result)) {
    mlirOperationWalk(module, untag, NULL, MlirWalkPostOrder);
    return result;
  }
  /* phase 2 */
  DlcOpList ops = {0};
  mlirOperationWalk(module, collectThreadOps, &ops, MlirWalkPreOrder);
  st.script = (Script){.text = {NULL, 0, 0}};
  emit(s, "%s", kHeader);
  int tiled = 0;
  for (intptr_t i = 0; i < ops.n; ++i) {
    OpInfo info;
    if (!readOp(ops.ops[i], &info))
      continue;
    tag(&st, ops.ops[i]);
    emitThreadOp(s, emitMatch(s, st.sid - 1), &info);
    ++tiled;
  }
  dlcOpListFree(&ops);
  if (tiled > 0) {
    emit(s, "    %%vf = transform.structured.match ops{[\"func.func\"]} in %%m"
            " : (!transform.any_op) -> !transform.any_op\n"
            "    transform.apply_patterns to %%vf {\n"
            "      transform.apply_patterns.vector.reduction_to_contract\n"
            "      transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n"
            "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
            "      transform.apply_patterns.canonicalization\n"
            "    } : !transform.any_op\n"
            "    %%kloops = transform.structured.match attributes{dlc.kloop} in %%m"
            " : (!transform.any_op) -> !transform.any_op\n"
            "    transform.loop.hoist_loop_invariant_subsets %%kloops : !transform.any_op\n"
            "    transform.apply_patterns to %%vf {\n"
            "      transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\"\n"
            "      transform.apply_patterns.vector.lower_multi_reduction"
            " lowering_strategy = \"innerreduction\"\n"
            "      transform.apply_patterns.vector.lower_transpose lowering_strategy = \"eltwise\"\n"
            "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
            "      transform.apply_patterns.canonicalization\n"
            "    } : !transform.any_op\n"
            "    transform.yield\n  }\n}\n");
    result = runScript(&st, module, print);
  }
  dlcTextFree(&s->text);
  mlirOperationWalk(module, untag, NULL, MlirWalkPostOrder);
  return result;
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {
      mlirGetDialectHandle__transform__(), mlirGetDialectHandle__linalg__(),
      mlirGetDialectHandle__scf__(),       mlirGetDialectHandle__vector__(),
      mlirGetDialectHandle__tensor__(),    mlirGetDialectHandle__arith__(),
      mlirGetDialectHandle__gpu__(),
  };
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcOptionDesc kOptions[] = {
    {"print-transform", "print the generated transform scripts to stderr", DLC_OPTION_BOOL,
     "false"},
};

static const DlcStatisticDesc kStats[] = {{"groups", "fused groups mapped to blocks and threads"}};

const DlcPassDescriptor dlcGpuSchedulePass = {
    .argument = "dlc-gpu-schedule",
    .summary = "Tile linalg-on-tensors into scf.forall loops mapped to GPU blocks and threads "
               "by each kernel's #dlk.schedule (or the GPU cost model's), fuse producers, "
               "vectorise each thread's tile",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
