/* --dlc-gpu-schedule: the GPU strategy on linalg-on-tensors.

   Like dlc-cpu-schedule, the shared driver (schedule/driver.h) partitions
   each function's linalg ops into groups (a sink and the producers whose
   every use is in the group), each group gets its kernel's #dlk.schedule
   GPU fields or the GPU cost model's (gpu/gpu_cost_model.h), and the pass
   writes transform-dialect scripts (schedule/script.h) for the transform
   interpreter. Two scripts run, because the vector tiles depend on the
   shapes that tiling leaves:

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
#include "gpu/gpu_contraction.h"
#include "gpu/gpu_conv.h"
#include "gpu/gpu_cost_model.h"
#include "gpu/gpu_wgmma.h"
#include "schedule/analysis.h"
#include "schedule/driver.h"
#include "schedule/script.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"

#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef DlcLinalgInfo OpInfo;

/* The GPU schedules ops with one ranked tensor result. */
static bool readOp(MlirOperation op, OpInfo *info) {
  if (mlirOperationGetNumResults(op) != 1 ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return false;
  return dlcReadLinalg(op, info);
}

/* Phase 2 on one op of a thread tile: a contraction's k loop by one (its
   register tile is one vector.contract), else the CPU's vector tile rule
   with the GPU's vector width (128 bits). */
static void emitThreadOp(DlcScript *s, int h, const OpInfo *o) {
  const DlcLoopNest *l = &o->loops;
  int n = l->numLoops;
  if (!o->vectorizable || n == 0)
    return;
  if (dlcIsGemmRoot(o)) {
    int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
    for (int d = 0; d < n; ++d)
      sizes[d] = d < o->numParallel - 2 ? (l->extent[d] > 1) : d >= o->numParallel;
    int kloop;
    dlcScriptVectorize(s, dlcScriptTileFor(s, h, sizes, n, &kloop));
    if (kloop >= 0)
      dlcScriptMarkReductionLoop(s, kloop);
    return;
  }
  int64_t vw = 128 / (o->elementBits > 0 ? o->elementBits : 32);
  dlcScriptVectorTile(s, h, o, l->extent, vw);
}

/*--- Groups -----------------------------------------------------------------------*/

typedef DlcScheduleGroup Group;

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
    MlirAffineMap m = dlcOperandMap(sink->op, i);
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

/* A given schedule's GPU fields must fit the nest: one tile per loop, each
   dividing its extent, reductions untiled, thread tiles in the block. */
/* Lanes of a ROWS schedule: the innermost loop, not a row, thread-tiled
   (extent / tile lanes per row, see gpu_cost_model.h); 1 when none. */
static int64_t scheduleLanes(const DlcSchedule *s, const DlcLoopNest *l, const bool *rows) {
  int d = l->numLoops - 1;
  if (d < 0 || d >= s->numThread || s->thread[d] <= 0 || (rows[d] && !l->reduction[d]))
    return 1;
  return l->extent[d] / s->thread[d];
}

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static bool givenFits(DlcScheduleState *st, MlirOperation func, const DlcSchedule *s,
                      const DlcLoopNest *l, const OpInfo *root,
                      int64_t lanes) {
  char msg[512];
  if (s->numWorkgroup != l->numLoops || s->numThread != l->numLoops) {
    snprintf(msg, sizeof msg,
             "#dlk.schedule for the GPU needs one workgroup and one thread tile per loop of the "
             "kernel's root (%d loops); got %d and %d",
             l->numLoops, (int)s->numWorkgroup, (int)s->numThread);
    dlcScheduleFail(st, func, msg);
    return false;
  }
  if (s->mma[0]) { /* tensor cores: the thread tile is a warp's */
    const DlcGpuMmaOptions *o = st->target;
    if (s->mma[0] == kWgmmaM && root && !o->wgmma) {
      dlcGpuWgmmaCheck(root, s, false, msg, sizeof msg);
      dlcScheduleFail(st, func, msg);
      return false;
    }
    if (!o->tensorCores || !root || !dlcGpuMmaCheck(root, o->allowTf32, s, msg, sizeof msg)) {
      if (!o->tensorCores)
        snprintf(msg, sizeof msg,
                 "#dlk.schedule mma: the target chip has no mma.sync / cp.async (sm_80 and newer)");
      else if (!root)
        snprintf(msg, sizeof msg, "#dlk.schedule mma applies to contraction kernels only");
      dlcScheduleFail(st, func, msg);
      return false;
    }
  }
  for (int d = 0; d < l->numLoops; ++d) {
    int64_t w = s->workgroup[d], t = s->thread[d], ext = w ? w : l->extent[d];
    bool laneTile = lanes > 1 && d == l->numLoops - 1 && !w;
    if (laneTile && (l->extent[d] % t || !isPowerOfTwo(lanes) || lanes > kGpuMaxThreads)) {
      snprintf(msg, sizeof msg,
               "#dlk.schedule thread tile %lld of a row's innermost loop (extent %lld) gives "
               "%lld lanes a row; lanes must be a power of two up to %d dividing the extent",
               (long long)t, (long long)l->extent[d], (long long)lanes, kGpuMaxThreads);
      dlcScheduleFail(st, func, msg);
      return false;
    }
    if ((w && l->extent[d] % w) || (t && ext % t) ||
        (l->reduction[d] && (w || (t && !laneTile)))) {
      snprintf(msg, sizeof msg,
               "#dlk.schedule does not fit loop %d (extent %lld%s): workgroup %lld, thread %lld "
               "(tiles must divide; reduction loops stay untiled)",
               d, (long long)l->extent[d], l->reduction[d] ? ", reduction" : "", (long long)w,
               (long long)t);
      dlcScheduleFail(st, func, msg);
      return false;
    }
  }
  int64_t dims[3];
  if (lanes > kGpuWarp && dlcGpuBlockDims(l, s, dims) && dims[0] * dims[1] * dims[2] != lanes) {
    snprintf(msg, sizeof msg,
             "#dlk.schedule gives %lld lanes a row, more than a warp: the block must hold one "
             "row (its %lld threads are %lld rows)",
             (long long)lanes, (long long)(dims[0] * dims[1] * dims[2]),
             (long long)(dims[0] * dims[1] * dims[2] / lanes));
    dlcScheduleFail(st, func, msg);
    return false;
  }
  if (!s->mma[0] && (!dlcGpuBlockDims(l, s, dims) || dlcCountNonZero(s->thread, l->numLoops) == 0)) {
    dlcScheduleFail(st, func,
                    "#dlk.schedule thread tiles give no thread or more than 1024 threads a block");
    return false;
  }
  if (s->stages > 1 && !s->mma[0]) {
    dlcScheduleFail(st, func,
                    "#dlk.schedule stages > 1 (multi-stage shared-memory copies) is not "
                    "implemented by the GPU strategy without mma");
    return false;
  }
  return true;
}

/* `lanes` > 1 (ROWS): the lane loop (the innermost) is not tiled here --
   the thread forall spreads rows, and dlc-gpu-rows (gpu_reduction.c)
   later spreads the row's innermost loops over `lanes` threads in x; the
   block forall records `dlc.row_lanes = [lanes, extent]` for it. */
static void emitGroup(DlcScript *s, Group *g, int64_t lanes) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  int last = g->numOps - 1;
  const OpInfo *sink = &g->ops[last];
  int n = sink->loops.numLoops;
  int64_t wg[DLC_SCHEDULE_MAX_LOOPS], th[DLC_SCHEDULE_MAX_LOOPS], dims[3];
  const DlcLoopNest *nest = g->root >= 0 ? &g->ops[g->root].loops : &sink->loops;
  bool mma = g->sched.mma[0] != 0;
  DlcSchedule rowsOnly = g->sched;
  if (lanes > 1)
    rowsOnly.thread[nest->numLoops - 1] = 0;
  if (mma)
    dlcGpuMmaBlockDims(nest, &g->sched, dims);
  else
    dlcGpuBlockDims(nest, &rowsOnly, dims);
  if (g->root >= 0) {
    const OpInfo *root = &g->ops[g->root];
    dlcSinkTiles(root, sink, g->root == last, g->sched.workgroup, wg);
    dlcSinkTiles(root, sink, g->root == last, g->sched.thread, th);
  } else {
    memcpy(wg, g->sched.workgroup, sizeof wg);
    memcpy(th, rowsOnly.thread, sizeof th);
  }
  /* thread tiles are relative to the block's tile: a loop the block keeps
     whole (0) that threads split gets the split against its extent */
  dlcScriptMatchAll(s, g->firstSid, g->numOps, handles);
  int forall = dlcScriptTileAndFuse(s, handles, g->numOps, wg, n, "block");
  int p = s->next++;
  dlcScriptEmit(
      s,
      "    %%h%d = transform.param.constant array<i64: %lld, %lld, %lld> -> !transform.any_param\n"
      "    transform.annotate %%h%d \"" DLC_ATTR_BLOCK_DIMS "\" = %%h%d : !transform.any_op, "
      "!transform.any_param\n",
      p, (long long)dims[0], (long long)dims[1], (long long)dims[2], forall, p);
  if (lanes > 1) {
    int q = s->next++;
    dlcScriptEmit(s,
                  "    %%h%d = transform.param.constant array<i64: %lld, %lld> -> "
                  "!transform.any_param\n"
                  "    transform.annotate %%h%d \"" DLC_ATTR_ROW_LANES "\" = %%h%d : "
                  "!transform.any_op, !transform.any_param\n",
                  q, (long long)lanes, (long long)nest->extent[nest->numLoops - 1], forall, q);
  }
  /* with tensor cores the thread tile is a warp's; dlc-gpu-mma rewrites
     its contraction after bufferisation */
  int inner = dlcScriptTileAndFuse(s, handles, g->numOps, th, n, mma ? "warp" : "thread");
  if (mma) {
    int q = s->next++;
    dlcScriptEmit(
        s,
        "    %%h%d = transform.param.constant array<i64: %lld, %lld, %lld, %lld> -> "
        "!transform.any_param\n"
        "    transform.annotate %%h%d \"" DLC_ATTR_MMA "\" = %%h%d : !transform.any_op, "
        "!transform.any_param\n",
        q, (long long)g->sched.mma[0], (long long)g->sched.mma[1], (long long)g->sched.mma[2],
        (long long)g->sched.stages, inner, q);
  }
}

/* Records the cost model's GPU fields on the kernel (keeping CPU fields given). */
static void recordSchedule(DlcScheduleState *st, MlirOperation func, MlirAttribute given,
                           const DlcSchedule *s) {
  DlcSchedule rec = *s, read;
  if (!mlirAttributeIsNull(given) && dlcScheduleRead(given, &read)) {
    rec = read; /* keep the CPU fields given */
    rec.numWorkgroup = s->numWorkgroup;
    rec.numThread = s->numThread;
    memcpy(rec.workgroup, s->workgroup, sizeof rec.workgroup);
    memcpy(rec.thread, s->thread, sizeof rec.thread);
    memcpy(rec.mma, s->mma, sizeof rec.mma);
    rec.stages = s->stages;
  }
  mlirOperationSetDiscardableAttributeByName(func, str(DLC_ATTR_SCHEDULE),
                                             dlcScheduleAttrGet(st->ctx, &rec));
}

static void scheduleGroup(DlcScheduleState *st, MlirOperation func, const MlirOperation *ops, int n,
                          bool primary) {
  Group g;
  OpInfo infos[DLC_SCHEDULE_MAX_GROUP];
  if (!dlcScheduleReadGroup(st, ops, n, infos, &g))
    return; /* an op we cannot read: dlc-gpu-map launches it as it is */
  const OpInfo *sink = &infos[n - 1];
  const DlcLoopNest *nest = g.root >= 0 ? &infos[g.root].loops : &sink->loops;
  for (int d = 0; d < nest->numLoops; ++d)
    if (nest->extent[d] < 0) {
      dlcScheduleFail(st, func,
                      "dlc-gpu-schedule: dynamic loop extents are not supported on the GPU "
                      "(the program is specialised to its input shapes first)");
      return;
    }
  bool reduces = false;
  for (int i = 0; i < n; ++i)
    reduces = reduces || (i != g.root && dlcHasReduction(&infos[i]));
  DlcGpuStrategy strategy = g.root >= 0 ? DLC_GPU_GEMM
                            : reduces   ? DLC_GPU_ROWS
                                        : DLC_GPU_ELEMENTWISE;
  MlirAttribute given = dlcScheduleGiven(func, primary);
  DlcSchedule read;
  bool haveGiven = !mlirAttributeIsNull(given) && dlcScheduleRead(given, &read) &&
                   (read.numWorkgroup > 0 || read.numThread > 0 || read.mma[0] || read.stages > 1);
  bool rows[DLC_SCHEDULE_MAX_LOOPS];
  rowDims(&g, rows);
  DlcGpuConv conv; /* implicit GEMM (gpu_conv.c): its own tiles, no thread forall */
  int convAt = -1;
  for (int i = 0; i < n && convAt < 0 && g.root < 0; ++i)
    if (dlcGpuConvOf(&infos[i], &conv) && dlcGpuConvGroupOk(infos, n, i))
      convAt = i;
  bool direct = false;
  if (convAt >= 0 && !dlcGpuConvSchedule(st, func, &conv, haveGiven ? &read : NULL,
                                         ((const DlcGpuMmaOptions *)st->target)->tensorCores,
                                         &g.sched, &direct))
    return;
  if (convAt >= 0 && !direct) {
    g.root = convAt;
    if (!haveGiven && dlcScheduleIsKernel(func) && primary)
      recordSchedule(st, func, given, &g.sched);
    for (int i = 0; i < n; ++i)
      dlcScheduleTag(st, ops[i]);
    dlcScheduleComment(st, func, n,
                       g.sched.mma[0] ? "conv (implicit gemm, mma.sync)" : "conv (implicit gemm)");
    dlcGpuConvEmit(&st->script, &g, &conv);
    return;
  }
  if (haveGiven) {
    int64_t lanes = strategy == DLC_GPU_ROWS ? scheduleLanes(&read, nest, rows) : 1;
    if (!givenFits(st, func, &read, nest, g.root >= 0 ? &infos[g.root] : NULL, lanes))
      return;
    if (read.mma[0] == kWgmmaM && !dlcGpuWgmmaOperandsLoaded(infos, n, g.root)) {
      dlcScheduleFail(st, func,
                      "#dlk.schedule mma = [64, N, 16] (wgmma.mma_async): an operand of the "
                      "contraction is computed in the kernel (a fused producer); wgmma reads A "
                      "and B from shared memory, staged only from loaded tiles");
      return;
    }
    g.sched = read;
  } else {
    /* An op that does not vectorise (a gather, a reversed slice) keeps one
       element a thread: tiles of its non-permutation maps wider than one
       are not sliced correctly by upstream tiling (a reversed slice's
       tiled generic fails to verify). 128-bit elements give a width of 1. */
    bool vectorizable = true;
    for (int i = 0; i < n; ++i)
      vectorizable = vectorizable && infos[i].vectorizable;
    int64_t mmaShape[3];
    const char *why;
    const DlcGpuMmaOptions *o = st->target;
    if (strategy == DLC_GPU_GEMM && o->wgmma && dlcGpuWgmmaOperandsLoaded(infos, n, g.root) &&
        dlcGpuWgmmaSchedule(&infos[g.root], &g.sched))
      ; /* sm_90a, a large f16 / bf16 GEMM: wgmma (gpu_wgmma.h) */
    else if (strategy == DLC_GPU_GEMM && o->tensorCores && dlcIsGemmRoot(&infos[g.root]) &&
             dlcGpuMmaFor(&infos[g.root], o->allowTf32, mmaShape, &why))
      dlcGpuMmaSchedule(nest, mmaShape, &g.sched);
    else
      dlcGpuSchedule(nest, strategy, rows, vectorizable ? sink->elementBits : 128, &g.sched);
    int64_t dims[3];
    if (g.sched.numWorkgroup == 0 ||
        !(g.sched.mma[0] ? dlcGpuMmaBlockDims(nest, &g.sched, dims)
                         : dlcGpuBlockDims(nest, &g.sched, dims)))
      return; /* no parallel loop to spread: launched on one thread */
    if (dlcScheduleIsKernel(func) && primary) /* shown in the IR, and overridable */
      recordSchedule(st, func, given, &g.sched);
  }
  for (int i = 0; i < n; ++i)
    dlcScheduleTag(st, ops[i]);
  static const char *const kNames[] = {"elementwise", "rows", "gemm"};
  dlcScheduleComment(st, func, n, g.sched.mma[0] == kWgmmaM ? "gemm (wgmma)"
                                : g.sched.mma[0]    ? "gemm (mma.sync)"
                                                    : kNames[strategy]);
  emitGroup(&st->script, &g, strategy == DLC_GPU_ROWS ? scheduleLanes(&g.sched, nest, rows) : 1);
}

static const DlcScheduleBackend kGpu = {
    .pass = "dlc-gpu-schedule",
    .read = readOp,
    .scheduleGroup = scheduleGroup,
    .stopAtFirstError = true,
};

/*--- Phase 2: ops inside thread foralls --------------------------------------------*/

/* Whether `mapping` (an scf.forall's) maps to threads. The C API cannot
   read #gpu.thread's enum, but attributes are uniqued: a thread mapping is
   one of the three dlcScriptTileForall writes. */
static bool mapsToThreads(MlirAttribute mapping) {
  static const char *const kThreads[] = {"#gpu.thread<x>", "#gpu.thread<y>", "#gpu.thread<z>"};
  MlirContext ctx = mlirAttributeGetContext(mapping);
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(mapping); ++i)
    for (size_t k = 0; k < sizeof kThreads / sizeof kThreads[0]; ++k)
      if (mlirAttributeEqual(mlirArrayAttrGetElement(mapping, i),
                             mlirAttributeParseGet(ctx, str(kThreads[k]))))
        return true;
  return false;
}

static bool inThreadForall(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p)) {
    if (!dlcOpIs(p, "scf.forall"))
      continue;
    MlirAttribute m = mlirOperationGetAttributeByName(p, str("mapping"));
    if (!mlirAttributeIsNull(m) && mlirAttributeIsAArray(m) && mapsToThreads(m))
      return true;
  }
  return false;
}

static MlirWalkResult collectThreadOps(MlirOperation op, void *u) {
  DlcOpList *l = u;
  if (dlcIsLinalg(op) && inThreadForall(op))
    dlcOpListPush(l, op);
  return MlirWalkResultAdvance;
}

/* Phase 2's script: the vector tile of every op a thread forall holds. */
static MlirLogicalResult tileThreads(DlcScheduleState *st, MlirOperation module, bool print) {
  DlcOpList ops = {0};
  mlirOperationWalk(module, collectThreadOps, &ops, MlirWalkPreOrder);
  DlcScript *s = &st->script;
  dlcScriptBegin(s);
  int tiled = 0;
  for (intptr_t i = 0; i < ops.n; ++i) {
    OpInfo info;
    if (!readOp(ops.ops[i], &info))
      continue;
    dlcScheduleTag(st, ops.ops[i]);
    emitThreadOp(s, dlcScriptMatch(s, st->sid - 1), &info);
    ++tiled;
  }
  dlcOpListFree(&ops);
  if (tiled == 0)
    return (MlirLogicalResult){1};
  dlcScriptVectorLowering(s, 0, true);
  return dlcScriptRun(s, module, kGpu.pass, print);
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  bool print = dlcOptionsGetBool(dlcPassGetOptions(pass), "print-transform");
  DlcGpuMmaOptions mma = {.allowTf32 = dlcOptionsGetBool(dlcPassGetOptions(pass), "allow-tf32"),
                          .tensorCores = dlcOptionsGetBool(dlcPassGetOptions(pass), "tensor-cores"),
                          .wgmma = dlcOptionsGetBool(dlcPassGetOptions(pass), "wgmma")};
  DlcScheduleState st = {
      .backend = &kGpu, .target = &mma, .ctx = mlirOperationGetContext(module)};
  dlcScheduleModule(&st, module);
  MlirLogicalResult result = {1};
  if (st.failed)
    result.value = 0;
  else if (st.groups > 0) {
    dlcScriptEnd(&st.script);
    result = dlcScriptRun(&st.script, module, kGpu.pass, print);
  }
  dlcPassAddStatistic(pass, "groups", (uint64_t)st.groups);
  dlcScriptFree(&st.script);
  if (mlirLogicalResultIsSuccess(result))
    result = tileThreads(&st, module, print);
  dlcScriptFree(&st.script);
  dlcScheduleUntag(module);
  return result;
}

static void dependentDialects(MlirDialectRegistry r) {
  dlcScheduleDialects(r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__gpu__(), r);
}

static const DlcOptionDesc kOptions[] = {
    {"print-transform", "print the generated transform scripts to stderr", DLC_OPTION_BOOL,
     "false"},
    {"allow-tf32", "f32 contractions on TF32 tensor cores (mma.sync m16n8k8)", DLC_OPTION_BOOL,
     "false"},
    {"tensor-cores", "contractions may use mma.sync and cp.async (sm_80 and newer)",
     DLC_OPTION_BOOL, "true"},
    {"wgmma", "large f16 / bf16 contractions may use wgmma.mma_async (sm_90a)", DLC_OPTION_BOOL,
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
