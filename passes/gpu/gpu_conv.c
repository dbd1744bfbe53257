/* The implicit-GEMM conv2d strategy (gpu_conv.h, docs/gpu.md
   "Convolutions as implicit GEMM"): recognising the conv root, its
   schedule, and --dlc-gpu-conv, the rewrite of each block's conv after
   bufferisation:

     warp (wy, wx) = (tid.y, tid.x / 32); lane = tid.x % 32, g = lane / 4, t = lane % 4
     scf.for kt over ceil(K / 16) k tiles, carrying the warp's accumulators
     (f32 with stages S > 1: the tiles come by cp.async into S stages, a
     prologue of S - 1 tiles, wait_group S - 2 + one barrier a step, see
     docs/gpu.md; else:)
       gpu.barrier                        (every warp done with the last tile)
       sA[o][kk]  = W[o, c, r, q]          k = 16 kt + kk = (c, r, q), 0 past K
       sB[kk][p]  = In[0, c, ho s + r d, wo s + q d]   p = (ho, wo) flattened,
                                          0 past K or past the block's pixels
       gpu.barrier                        (the tile is in shared memory)
       f16 / bf16: ldmatrix x4 (A) and x2 transposed (B), mma.sync m16n8k16
       f32:        per k, the lane's (16i + g + 8h, 8j + 2t + p) elements by FFMA
     lanes regroup the accumulators by shuffles (gpu_build.h) to 4 / 8
     adjacent pixels p of one channel o, per element inside the block's pixels:
       v = acc + init(o, p)     (the conv's init: zero or the bias broadcast)
       the epilogue's body on v (BN scale / shift, ReLU, residual)
     then one 16-byte vector.store (per-element stores where it cannot)

   Every thread of the block loads a share of both tiles each k step (in
   rounds of the block's threads; consecutive threads take consecutive
   pixels, so a stride-1 conv's gather is coalesced). The index arithmetic
   of the im2col gather is in that load: nothing like an im2col matrix is
   written to global memory. The input is the padded one the kernel
   stage makes (tensor.pad), so padding needs no test in the gather.

   The accumulators are the mma.sync C fragments (f32) for both paths, so
   the FFMA path is exact f32 and shares the epilogue. */

#include "gpu/gpu_conv.h"
#include "gpu/gpu_build.h"
#include "gpu/gpu_cost_model.h"
#include "gpu/gpu_mma.h"

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/attr_names.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVGPU.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- Recognition ---------------------------------------------------------------------*/

/* `e` is dim `d` times a constant: the constant in `*coef`. */
static bool scaledDim(MlirAffineExpr e, int64_t *d, int64_t *coef) {
  if (mlirAffineExprIsADim(e)) {
    *d = (int64_t)mlirAffineDimExprGetPosition(e);
    *coef = 1;
    return true;
  }
  if (!mlirAffineExprIsAMul(e))
    return false;
  MlirAffineExpr l = mlirAffineBinaryOpExprGetLHS(e), r = mlirAffineBinaryOpExprGetRHS(e);
  if (mlirAffineExprIsAConstant(l)) {
    MlirAffineExpr x = l;
    l = r;
    r = x;
  }
  if (!mlirAffineExprIsADim(l) || !mlirAffineExprIsAConstant(r))
    return false;
  *d = (int64_t)mlirAffineDimExprGetPosition(l);
  *coef = mlirAffineConstantExprGetValue(r);
  return *coef > 0;
}

/* `e` is out * s + win * d (in either order): s and d returned. */
static bool windowExpr(MlirAffineExpr e, int64_t out, int64_t win, int64_t *s, int64_t *d) {
  if (!mlirAffineExprIsAAdd(e))
    return false;
  int64_t d0, c0, d1, c1;
  if (!scaledDim(mlirAffineBinaryOpExprGetLHS(e), &d0, &c0) ||
      !scaledDim(mlirAffineBinaryOpExprGetRHS(e), &d1, &c1))
    return false;
  if (d0 == win) {
    int64_t x = d0, y = c0;
    d0 = d1, c0 = c1, d1 = x, c1 = y;
  }
  if (d0 != out || d1 != win)
    return false;
  *s = c0;
  *d = c1;
  return true;
}

static bool mapIsDims(MlirAffineMap m, const int *dims, int n) {
  if (mlirAffineMapGetNumResults(m) != n)
    return false;
  for (int k = 0; k < n; ++k) {
    MlirAffineExpr e = mlirAffineMapGetResult(m, k);
    if (!mlirAffineExprIsADim(e) || (int)mlirAffineDimExprGetPosition(e) != dims[k])
      return false;
  }
  return true;
}

static MlirType elementOf(MlirOperation op, intptr_t i) {
  return mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(op, i)));
}

bool dlcGpuConvOf(const DlcLinalgInfo *root, DlcGpuConv *c) {
  MlirOperation op = root->op;
  const DlcLoopNest *l = &root->loops;
  if (!dlcOpIs(op, "linalg.generic") || l->numLoops != 7 || root->numParallel != 4 ||
      mlirOperationGetNumOperands(op) != 3 || !dlcGpuMultiplyAdds(op))
    return false;
  for (int d = 0; d < 7; ++d)
    if (l->reduction[d] != (d >= 4) || l->extent[d] <= 0)
      return false;
  MlirAffineMap in = dlcOperandMap(op, 0);
  if (mlirAffineMapGetNumResults(in) != 4)
    return false;
  int64_t p, one;
  if (!scaledDim(mlirAffineMapGetResult(in, 0), &p, &one) || p != 0 || one != 1 ||
      !scaledDim(mlirAffineMapGetResult(in, 1), &p, &one) || p != 4 || one != 1 ||
      !windowExpr(mlirAffineMapGetResult(in, 2), 2, 5, &c->stride[0], &c->dilation[0]) ||
      !windowExpr(mlirAffineMapGetResult(in, 3), 3, 6, &c->stride[1], &c->dilation[1]))
    return false;
  if (!mapIsDims(dlcOperandMap(op, 1), (const int[]){1, 4, 5, 6}, 4) ||
      !mapIsDims(dlcOperandMap(op, 2), (const int[]){0, 1, 2, 3}, 4))
    return false;
  MlirType a = elementOf(op, 0), b = elementOf(op, 1), o = elementOf(op, 2);
  if (!mlirTypeEqual(a, b) || !(mlirTypeIsAF32(a) || mlirTypeIsAF16(a) || mlirTypeIsABF16(a)) ||
      !(mlirTypeEqual(o, a) || mlirTypeIsAF32(o)))
    return false;
  memcpy(c->extent, l->extent, sizeof c->extent);
  c->f16 = !mlirTypeIsAF32(a);
  return true;
}

bool dlcGpuConvGroupOk(const DlcLinalgInfo *ops, int n, int conv) {
  MlirValue init = mlirOperationGetOperand(ops[conv].op, 2);
  for (int i = 0; i < conv; ++i) { /* only the init of the conv's output */
    MlirOperation o = ops[i].op;
    if (mlirOperationGetNumResults(o) != 1 || !mlirValueEqual(mlirOperationGetResult(o, 0), init))
      return false;
  }
  if (conv + 1 < n - 1) /* at most one consumer: the elementwise epilogue */
    return false;
  if (conv == n - 1)
    return true;
  const DlcLinalgInfo *e = &ops[n - 1];
  for (int d = 0; d < e->loops.numLoops; ++d)
    if (e->loops.reduction[d])
      return false;
  return e->loops.numLoops == 4;
}

/*--- Schedule ------------------------------------------------------------------------*/

static int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

enum { kMaxStages = 4 }; /* cp.async stages of the conv's k tiles */

/* The warp's pixel tile for P pixels a block: the one of 32, 16, 8 that
   pads P least, the larger on a tie. */
static int64_t warpPixels(int64_t pixels) {
  int64_t best = 32;
  for (int64_t w = 16; w >= 8; w /= 2)
    if (roundUp(pixels, w) < roundUp(pixels, best))
      best = w;
  return best;
}

static int64_t padElements(bool f16) { return kGpuSmemPadBytes / (f16 ? 2 : 4); }

static int64_t smemBytes(const DlcGpuConv *c, int64_t bo, int64_t bp) {
  int64_t elt = c->f16 ? 2 : 4, pad = padElements(c->f16);
  return elt * (bo * (kGpuConvKTile + pad) + kGpuConvKTile * (bp + pad));
}

/* Checks the tiles of `s` (given or chosen): false with `msg`. */
static bool fits(const DlcGpuConv *c, const DlcSchedule *s, bool mmaOk, char *msg, size_t size) {
  const int64_t *e = c->extent;
  const int64_t *w = s->workgroup, *t = s->thread;
  bool shape = s->numWorkgroup == 7 && s->numThread == 7 && w[0] == 1 && w[1] > 0 &&
               w[1] % 16 == 0 && e[1] % w[1] == 0 && w[2] > 0 && e[2] % w[2] == 0 && w[3] == 0 &&
               t[0] == 0 && t[1] > 0 && t[1] % 16 == 0 && w[1] % t[1] == 0 && t[2] == 0 &&
               t[3] > 0 && t[3] % 8 == 0 && (t[1] / 16) * (t[3] / 8) <= 64;
  for (int d = 4; d < 7 && shape; ++d)
    shape = s->workgroup[d] == 0 && s->thread[d] == 0;
  if (!shape) {
    snprintf(msg, size,
             "#dlk.schedule of an implicit-GEMM conv: workgroup = [1, O tile, Ho tile, 0, 0, 0, "
             "0] (a multiple of 16 dividing O = %lld, a divisor of Ho = %lld, Wo whole), thread = "
             "[0, warp's O tile, 0, warp's pixel tile, 0, 0, 0] (a multiple of 16 dividing the O "
             "tile; a multiple of 8; at most 64 16x8 tiles a warp)",
             (long long)e[1], (long long)e[2]);
    return false;
  }
  if (s->mma[0] && (!c->f16 || !mmaOk || s->mma[1] != 8 || s->mma[2] != 16)) {
    snprintf(msg, size,
             "#dlk.schedule mma = [%lld, %lld, %lld] does not apply to this conv: %s",
             (long long)s->mma[0], (long long)s->mma[1], (long long)s->mma[2],
             !c->f16  ? "f32 convs run exact FFMA (tensor cores take f16 / bf16)"
             : !mmaOk ? "the target chip has no mma.sync (sm_80 and newer)"
                      : "f16 / bf16 take [16, 8, 16]");
    return false;
  }
  if (s->stages < 1 || s->stages > kMaxStages) {
    snprintf(msg, size, "#dlk.schedule stages = %lld: an implicit-GEMM conv takes 1 to %d stages",
             (long long)s->stages, kMaxStages);
    return false;
  }
  if (s->stages > 1 && (c->f16 || !mmaOk)) {
    snprintf(msg, size,
             "#dlk.schedule stages = %lld: %s, so this conv stages one k tile (stages = 1)",
             (long long)s->stages,
             c->f16 ? "the im2col gather of 16-bit elements has no cp.async (it copies 4, 8 or "
                      "16 bytes)"
                    : "the target chip has no cp.async (sm_80 and newer)");
    return false;
  }
  int64_t bp = roundUp(w[2] * e[3], t[3]);
  int64_t warps = (w[1] / t[1]) * (bp / t[3]), smem = s->stages * smemBytes(c, w[1], bp);
  if (warps * kGpuWarpSize > kGpuMaxThreads || smem > kGpuSmemBytes) {
    snprintf(msg, size,
             "#dlk.schedule of an implicit-GEMM conv: %lld warps (%lld pixels a block, padded to "
             "%lld) and %lld bytes of shared memory (stages = %lld); at most %d warps and %d bytes",
             (long long)warps, (long long)(w[2] * e[3]), (long long)bp, (long long)smem,
             (long long)s->stages, kGpuMaxThreads / kGpuWarpSize, (int)kGpuSmemBytes);
    return false;
  }
  return true;
}

/* Stages of a fitting tiling: f32 convs on sm_80+ (cp.async of 4-byte
   elements) take up to 3 (no more than k tiles) while the stages fit in
   shared memory; else 1. */
static int64_t chooseStages(const DlcGpuConv *c, const DlcSchedule *s, bool mmaOk) {
  if (c->f16 || !mmaOk)
    return 1;
  int64_t k = c->extent[4] * c->extent[5] * c->extent[6];
  int64_t nK = (k + kGpuConvKTile - 1) / kGpuConvKTile;
  int64_t bp = roundUp(s->workgroup[2] * c->extent[3], s->thread[3]);
  int64_t st = nK < 3 ? nK : 3;
  while (st > 1 && st * smemBytes(c, s->workgroup[1], bp) > kGpuSmemBytes)
    --st;
  return st;
}

static void setTiles(const DlcGpuConv *c, int64_t bo, int64_t th, bool mma, DlcSchedule *s) {
  memset(s, 0, sizeof *s);
  s->numWorkgroup = s->numThread = 7;
  s->stages = 1;
  s->vectorWidth = 1;
  s->workgroup[0] = 1;
  s->workgroup[1] = bo;
  s->workgroup[2] = th;
  s->thread[1] = bo % 32 == 0 ? 32 : 16;
  s->thread[3] = warpPixels(th * c->extent[3]);
  if (mma) {
    s->mma[0] = 16;
    s->mma[1] = 8;
    s->mma[2] = 16;
  }
}

/* Block tiles tried: O tiles 64, 32, 16 (dividing O), pixels a block
   about 128 down to 8 (the rows of Ho that fit); the first whose grid
   has a block per SM, else the one with most blocks. */
static bool choose(const DlcGpuConv *c, bool mma, bool mmaOk, DlcSchedule *s, char *msg,
                   size_t size) {
  static const int64_t kO[] = {64, 32, 16}, kPixels[] = {128, 64, 32, 16, 8};
  const int64_t *e = c->extent;
  int64_t bestBlocks = -1;
  DlcSchedule cand;
  for (size_t i = 0; i < sizeof kO / sizeof kO[0]; ++i) {
    if (e[1] % kO[i])
      continue;
    for (size_t j = 0; j < sizeof kPixels / sizeof kPixels[0]; ++j) {
      int64_t th = dlcLargestDivisor(e[2], kPixels[j] / e[3] > 0 ? kPixels[j] / e[3] : 1);
      setTiles(c, kO[i], th, mma, &cand);
      if (!fits(c, &cand, true, msg, size))
        continue;
      cand.stages = chooseStages(c, &cand, mmaOk);
      int64_t blocks = e[0] * (e[1] / kO[i]) * (e[2] / th);
      if (blocks > bestBlocks) {
        bestBlocks = blocks;
        *s = cand;
      }
      if (blocks >= kGpuSMs)
        return true;
    }
  }
  return bestBlocks >= 0;
}

bool dlcGpuConvSchedule(DlcScheduleState *st, MlirOperation func, const DlcGpuConv *c,
                        const DlcSchedule *given, bool mmaOk, DlcSchedule *out, bool *direct) {
  char why[512];
  *direct = false;
  if (given) {
    if (!fits(c, given, mmaOk, why, sizeof why)) {
      dlcScheduleFail(st, func, why);
      return false;
    }
    *out = *given;
    return true;
  }
  *direct = !choose(c, c->f16 && mmaOk, mmaOk, out, why, sizeof why);
  return true;
}

void dlcGpuConvEmit(DlcScript *s, DlcScheduleGroup *g, const DlcGpuConv *c) {
  int handles[DLC_SCHEDULE_MAX_GROUP];
  const DlcLinalgInfo *root = &g->ops[g->root], *sink = &g->ops[g->numOps - 1];
  const DlcSchedule *sc = &g->sched;
  int64_t wg[DLC_SCHEDULE_MAX_LOOPS];
  dlcSinkTiles(root, sink, g->root == g->numOps - 1, sc->workgroup, wg);
  dlcScriptMatchAll(s, g->firstSid, g->numOps, handles);
  int forall = dlcScriptTileAndFuse(s, handles, g->numOps, wg, sink->loops.numLoops, "block");
  int64_t bp = roundUp(sc->workgroup[2] * c->extent[3], sc->thread[3]);
  int64_t dims[3] = {kGpuWarpSize * (bp / sc->thread[3]), sc->workgroup[1] / sc->thread[1], 1};
  int64_t conv[9] = {sc->thread[1], sc->thread[3],   sc->mma[2],     c->stride[0], c->stride[1],
                     c->dilation[0], c->dilation[1], bp,             sc->stages};
  int p = s->next++, q = s->next++;
  dlcScriptEmit(
      s,
      "    %%h%d = transform.param.constant array<i64: %lld, %lld, %lld> -> !transform.any_param\n"
      "    transform.annotate %%h%d \"" DLC_ATTR_BLOCK_DIMS "\" = %%h%d : !transform.any_op, "
      "!transform.any_param\n",
      p, (long long)dims[0], (long long)dims[1], (long long)dims[2], forall, p);
  dlcScriptEmit(s,
                "    %%h%d = transform.param.constant array<i64: %lld, %lld, %lld, %lld, %lld, "
                "%lld, %lld, %lld, %lld> -> !transform.any_param\n"
                "    transform.annotate %%h%d \"" DLC_ATTR_CONV "\" = %%h%d : !transform.any_op, "
                "!transform.any_param\n",
                q, (long long)conv[0], (long long)conv[1], (long long)conv[2], (long long)conv[3],
                (long long)conv[4], (long long)conv[5], (long long)conv[6], (long long)conv[7],
                (long long)conv[8], forall, q);
}

/*--- dlc-gpu-conv: the rewrite ---------------------------------------------------------*/

enum { kMaxAcc = 256, kMaxCopies = 1024 };

/* x `name` c on indices; x itself for + 0, * 1, / 1. */
static MlirValue binC(DlcBuilder *b, const char *name, MlirValue x, int64_t c) {
  if ((c == 0 && !strcmp(name, "arith.addi")) ||
      (c == 1 && (!strcmp(name, "arith.muli") || !strcmp(name, "arith.divui"))))
    return x;
  return dlcGpuBin(b, name, x, dlcGpuIndex(b, c));
}

static MlirValue floatConst(DlcBuilder *b, MlirType t, double v) {
  MlirNamedAttribute a = dlcNamed(b->context, "value", mlirFloatAttrDoubleGet(b->context, t, v));
  return dlcGpuRes(dlcGpuOp(b, "arith.constant", 0, NULL, t, 1, &a));
}

static MlirValue convertTo(DlcBuilder *b, MlirValue v, MlirType to) {
  MlirType from = mlirValueGetType(v);
  if (mlirTypeEqual(from, to))
    return v;
  bool wider = mlirFloatTypeGetWidth(to) > mlirFloatTypeGetWidth(from);
  return dlcGpuRes(dlcGpuOp(b, wider ? "arith.extf" : "arith.truncf", 1, &v, to, 0, NULL));
}

static MlirValue load(DlcBuilder *b, MlirValue m, int n, const MlirValue *idx) {
  MlirValue ops[1 + DLC_SCHEDULE_MAX_LOOPS];
  ops[0] = m;
  memcpy(ops + 1, idx, sizeof *idx * (size_t)n);
  return dlcGpuRes(dlcGpuOp(b, "memref.load", 1 + n, ops,
                            mlirShapedTypeGetElementType(mlirValueGetType(m)), 0, NULL));
}

static void store(DlcBuilder *b, MlirValue v, MlirValue m, int n, const MlirValue *idx) {
  MlirValue ops[2 + DLC_SCHEDULE_MAX_LOOPS];
  ops[0] = v;
  ops[1] = m;
  memcpy(ops + 2, idx, sizeof *idx * (size_t)n);
  dlcGpuOp(b, "memref.store", 2 + n, ops, (MlirType){NULL}, 0, NULL);
}

typedef struct {
  MlirOperation block, init, conv, epilogue;
  MlirValue x, in, w; /* the conv's output tile, input and weight tiles */
  /* padding read in the gather (findPad): the unpadded input, the block
     tile's offsets in the padded one, the low padding, the input's H, W,
     and the ops that built the padded copy (erased when unused) */
  bool padded;
  MlirValue src, off[4];
  int64_t padT, padL, srcH, srcW;
  MlirOperation inView, padAlloc;
  int64_t wm, wn, mmaK, stride[2], dil[2], bp, stages;
  int64_t bo, th, wo, c, kh, kw, k, pixels, threads, dimX;
} Conv;

static bool fail(MlirOperation at, const char *what) {
  char msg[384];
  snprintf(msg, sizeof msg,
           "dlc-gpu-conv: %s (a conv block is init + conv + at most one elementwise epilogue, "
           "as dlc-gpu-schedule leaves it)",
           what);
  mlirEmitError(mlirOperationGetLocation(at), msg);
  return false;
}

static bool isLinalg(MlirOperation op) {
  return dlcOpIs(op, "linalg.generic") || dlcOpIs(op, "linalg.fill");
}

static bool uses(MlirOperation op, MlirValue v) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (mlirValueEqual(mlirOperationGetOperand(op, i), v))
      return true;
  return false;
}

static int64_t dimOf(MlirValue v, intptr_t d) {
  return mlirShapedTypeGetDimSize(mlirValueGetType(v), d);
}

static bool isZeroConstant(MlirValue v) {
  if (!mlirValueIsAOpResult(v) || !dlcOpIs(mlirOpResultGetOwner(v), "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(mlirOpResultGetOwner(v), str("value"));
  return mlirAttributeIsAFloat(a) && mlirFloatAttrGetValueDouble(a) == 0.0;
}

/* A fill of `buf` with zero (linalg.fill, or linalg.map yielding 0). */
static bool fillsZero(MlirOperation op, MlirValue buf) {
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n < 1 || !mlirValueEqual(mlirOperationGetOperand(op, n - 1), buf))
    return false;
  if (dlcOpIs(op, "linalg.fill"))
    return n == 2 && isZeroConstant(mlirOperationGetOperand(op, 0));
  if (!dlcOpIs(op, "linalg.map") || n != 1)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation y = mlirBlockGetFirstOperation(body);
  return dlcOpIs(y, "linalg.yield") && isZeroConstant(mlirOperationGetOperand(y, 0));
}

/* Static offsets of a subview (none dynamic), unit strides, in `off`. */
static bool staticOffsets(MlirOperation view, int64_t *off, int n) {
  MlirAttribute o = mlirOperationGetAttributeByName(view, str("static_offsets"));
  MlirAttribute st = mlirOperationGetAttributeByName(view, str("static_strides"));
  if (mlirDenseArrayGetNumElements(o) != n || mlirOperationGetNumOperands(view) != 1)
    return false;
  for (int i = 0; i < n; ++i) {
    off[i] = mlirDenseI64ArrayGetElement(o, i);
    if (mlirDenseI64ArrayGetElement(st, i) != 1)
      return false;
  }
  return true;
}

/* The kernel stage's tensor.pad, bufferised: the conv reads a subview of
   a buffer P that is zero-filled, gets the input copied into its interior
   at [0, 0, top, left], and is read by nothing else. Then the gather
   reads the input itself, masked outside it, and P (two one-thread
   launches and a copy of the input) goes. Else the padded P is read. */
static void findPad(Conv *c) {
  c->padded = false;
  if (!mlirValueIsAOpResult(c->in) || !dlcOpIs(mlirOpResultGetOwner(c->in), "memref.subview"))
    return;
  MlirOperation view = mlirOpResultGetOwner(c->in);
  MlirValue p = mlirOperationGetOperand(view, 0);
  if (!mlirValueIsAOpResult(p) || !dlcOpIs(mlirOpResultGetOwner(p), "memref.alloc"))
    return;
  MlirOperation fill = {NULL}, interior = {NULL}, copy = {NULL};
  int others = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(p); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (mlirOperationEqual(o, view) || dlcOpIs(o, "memref.dealloc"))
      continue;
    if (mlirOperationIsNull(fill) && fillsZero(o, p))
      fill = o;
    else if (mlirOperationIsNull(interior) && dlcOpIs(o, "memref.subview"))
      interior = o;
    else
      ++others;
  }
  if (others || mlirOperationIsNull(fill) || mlirOperationIsNull(interior))
    return;
  MlirValue iv = mlirOperationGetResult(interior, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(iv); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!dlcOpIs(o, "memref.copy") || !mlirOperationIsNull(copy) ||
        !mlirValueEqual(mlirOperationGetOperand(o, 1), iv))
      return;
    copy = o;
  }
  int64_t io[4];
  if (mlirOperationIsNull(copy) || !staticOffsets(interior, io, 4) || io[0] || io[1])
    return;
  MlirValue src = mlirOperationGetOperand(copy, 0);
  MlirType st = mlirValueGetType(src);
  if (!mlirTypeIsAMemRef(st) || mlirShapedTypeGetRank(st) != 4 ||
      !mlirTypeEqual(mlirShapedTypeGetElementType(st),
                     mlirShapedTypeGetElementType(mlirValueGetType(c->in))))
    return;
  for (int d = 0; d < 4; ++d)
    if (mlirShapedTypeGetDimSize(st, d) != mlirShapedTypeGetDimSize(mlirValueGetType(iv), d))
      return;
  /* the block tile's offsets in P: static, or the subview's dynamic operands in order */
  MlirAttribute so = mlirOperationGetAttributeByName(view, str("static_offsets"));
  MlirAttribute ss = mlirOperationGetAttributeByName(view, str("static_strides"));
  if (mlirDenseArrayGetNumElements(so) != 4)
    return;
  DlcBuilder b = dlcBuilderBefore(view, mlirOperationGetLocation(view));
  intptr_t dyn = 1;
  for (int d = 0; d < 4; ++d) {
    int64_t v = mlirDenseI64ArrayGetElement(so, d);
    if (mlirDenseI64ArrayGetElement(ss, d) != 1)
      return;
    if (v == INT64_MIN) { /* ShapedType::kDynamic */
      if (dyn >= mlirOperationGetNumOperands(view))
        return;
      c->off[d] = mlirOperationGetOperand(view, dyn++);
    } else {
      c->off[d] = dlcGpuIndex(&b, v);
    }
  }
  c->padded = true;
  c->src = src;
  c->padT = io[2];
  c->padL = io[3];
  c->srcH = mlirShapedTypeGetDimSize(st, 2);
  c->srcW = mlirShapedTypeGetDimSize(st, 3);
  c->inView = view;
  c->padAlloc = mlirOpResultGetOwner(p);
}

/* After the rewrite: P and what built it, when nothing reads it any more. */
static void erasePad(const Conv *c) {
  if (!c->padded ||
      !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(c->inView, 0))))
    return;
  mlirOperationDestroy(c->inView);
  MlirValue p = mlirOperationGetResult(c->padAlloc, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(p); !mlirOpOperandIsNull(u);
       u = mlirValueGetFirstUse(p)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (dlcOpIs(o, "memref.subview")) { /* the interior, and its copy */
      MlirValue iv = mlirOperationGetResult(o, 0);
      for (MlirOpOperand v = mlirValueGetFirstUse(iv); !mlirOpOperandIsNull(v);
           v = mlirValueGetFirstUse(iv))
        mlirOperationDestroy(mlirOpOperandGetOwner(v));
    }
    mlirOperationDestroy(o);
  }
  mlirOperationDestroy(c->padAlloc);
}

static bool readConv(MlirOperation block, Conv *c) {
  memset(c, 0, sizeof *c);
  c->block = block;
  MlirAttribute a = mlirOperationGetDiscardableAttributeByName(block, str(DLC_ATTR_CONV));
  MlirAttribute dims = mlirOperationGetDiscardableAttributeByName(block, str(DLC_ATTR_BLOCK_DIMS));
  if (mlirDenseArrayGetNumElements(a) != 9 || mlirAttributeIsNull(dims))
    return fail(block, "a conv block without its tiles");
  c->wm = mlirDenseI64ArrayGetElement(a, 0);
  c->wn = mlirDenseI64ArrayGetElement(a, 1);
  c->mmaK = mlirDenseI64ArrayGetElement(a, 2);
  for (int i = 0; i < 2; ++i) {
    c->stride[i] = mlirDenseI64ArrayGetElement(a, 3 + i);
    c->dil[i] = mlirDenseI64ArrayGetElement(a, 5 + i);
  }
  c->bp = mlirDenseI64ArrayGetElement(a, 7);
  c->stages = mlirDenseI64ArrayGetElement(a, 8);
  c->dimX = mlirDenseI64ArrayGetElement(dims, 0);
  c->threads = c->dimX * mlirDenseI64ArrayGetElement(dims, 1);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(block, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isLinalg(op))
      continue;
    MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
    if (mlirOperationIsNull(c->conv) && !mlirAttributeIsNull(iters) &&
        mlirArrayAttrGetNumElements(iters) == 7) {
      c->conv = op;
      c->x = mlirOperationGetOperand(op, 2);
      continue;
    }
    if (mlirOperationIsNull(c->conv)) {
      c->init = op; /* the last op before the conv: its init, checked below */
      continue;
    }
    if (!uses(op, c->x))
      continue;
    if (!mlirOperationIsNull(c->epilogue))
      return fail(op, "a second op after the conv reads its result");
    c->epilogue = op;
  }
  if (mlirOperationIsNull(c->conv))
    return fail(block, "no conv in a block marked for the implicit GEMM");
  intptr_t last = mlirOperationIsNull(c->init) ? 0 : mlirOperationGetNumOperands(c->init) - 1;
  if (mlirOperationIsNull(c->init) || !mlirValueEqual(mlirOperationGetOperand(c->init, last), c->x))
    return fail(c->conv, "the conv's output is not initialised by the op before it");
  c->in = mlirOperationGetOperand(c->conv, 0);
  c->w = mlirOperationGetOperand(c->conv, 1);
  c->bo = dimOf(c->x, 1);
  c->th = dimOf(c->x, 2);
  c->wo = dimOf(c->x, 3);
  c->c = dimOf(c->w, 1);
  c->kh = dimOf(c->w, 2);
  c->kw = dimOf(c->w, 3);
  c->k = c->c * c->kh * c->kw;
  c->pixels = c->th * c->wo;
  if (dimOf(c->x, 0) != 1 || dimOf(c->w, 0) != c->bo || c->bp < c->pixels || c->bp % c->wn ||
      c->stages < 1 || c->stages > kMaxStages ||
      c->bo % c->wm || (c->wm / 16) * (c->wn / 8) * 4 > kMaxAcc)
    return fail(c->conv, "the conv's tiles do not match its schedule");
  return true;
}

/* The value `op` (the conv's init or its epilogue) yields at `idx` (the
   tile's [n, o, ho, wo]); operands that are the conv's output read
   `acc` (null for the init: it may not read it). */
static bool valueAt(DlcBuilder *b, const Conv *c, MlirOperation op, const MlirValue *idx,
                    MlirValue acc, MlirValue *out) {
  if (dlcOpIs(op, "linalg.fill")) {
    *out = mlirOperationGetOperand(op, 0);
    return true;
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  intptr_t n = mlirOperationGetNumOperands(op);
  DlcGpuValueMap m = {.n = 0};
  for (intptr_t i = 0; i < n; ++i) {
    MlirValue o = mlirOperationGetOperand(op, i), v = {NULL};
    MlirAffineMap am = dlcOperandMap(op, i);
    if (mlirValueEqual(o, c->x)) {
      if (!mlirAffineMapIsIdentity(am))
        return fail(op, "an op reads the conv's output through a non-identity map");
      v = acc; /* null: a use is an error, below */
    } else if (!mlirTypeIsAMemRef(mlirValueGetType(o))) {
      v = o;
    } else if (i < n - 1) {
      intptr_t nr = mlirAffineMapGetNumResults(am);
      MlirValue at[DLC_SCHEDULE_MAX_LOOPS];
      for (intptr_t k = 0; k < nr; ++k) {
        MlirAffineExpr e = mlirAffineMapGetResult(am, k);
        if (mlirAffineExprIsADim(e))
          at[k] = idx[mlirAffineDimExprGetPosition(e)];
        else if (mlirAffineExprIsAConstant(e))
          at[k] = dlcGpuIndex(b, mlirAffineConstantExprGetValue(e));
        else
          return fail(op, "an operand's map is not dims and constants");
      }
      v = load(b, o, (int)nr, at);
    }
    m.from[m.n] = mlirBlockGetArgument(body, i);
    m.to[m.n++] = v;
  }
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (m.n + 4 >= DLC_GPU_MAX_MAP)
      return fail(op, "an elementwise body too large");
    if (dlcOpIs(o, "linalg.yield")) {
      *out = dlcGpuLookup(&m, mlirOperationGetOperand(o, 0));
      if (mlirValueIsNull(*out))
        return fail(op, "the conv's init reads the output it initialises");
      return true;
    }
    if (dlcOpIs(o, "linalg.index")) {
      m.from[m.n] = dlcGpuRes(o);
      m.to[m.n++] = idx[dlcGetI64(o, "dim", 0)];
      continue;
    }
    if (mlirOperationGetNumRegions(o) > 0)
      return fail(o, "an elementwise op with regions");
    MlirOperation cl = mlirOperationClone(o);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(cl); ++i) {
      MlirValue v = dlcGpuLookup(&m, mlirOperationGetOperand(cl, i));
      if (mlirValueIsNull(v)) {
        mlirOperationDestroy(cl);
        return fail(op, "the conv's init reads the output it initialises");
      }
      mlirOperationSetOperand(cl, i, v);
    }
    dlcBuilderInsert(b, cl);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(o); ++i) {
      m.from[m.n] = mlirOperationGetResult(o, i);
      m.to[m.n++] = mlirOperationGetResult(cl, i);
    }
  }
  return fail(op, "a body without linalg.yield");
}

/* k = (c, r, q) of the weights, k clamped to K - 1 (its value is masked). */
static void splitK(DlcBuilder *b, const Conv *c, MlirValue k, MlirValue *ch, MlirValue *r,
                   MlirValue *q) {
  if (c->k % kGpuConvKTile) {
    MlirValue ops[2] = {k, dlcGpuIndex(b, c->k - 1)};
    k = dlcGpuRes(dlcGpuOp(b, "arith.minui", 2, ops, mlirIndexTypeGet(b->context), 0, NULL));
  }
  *ch = binC(b, "arith.divui", k, c->kh * c->kw);
  MlirValue rs = binC(b, "arith.remui", k, c->kh * c->kw);
  *r = binC(b, "arith.divui", rs, c->kw);
  *q = binC(b, "arith.remui", rs, c->kw);
}

/* v, or 0 where !cond (a null cond: always v). */
static MlirValue masked(DlcBuilder *b, MlirValue cond, MlirValue v) {
  if (mlirValueIsNull(cond))
    return v;
  MlirValue ops[3] = {cond, v, floatConst(b, mlirValueGetType(v), 0.0)};
  return dlcGpuRes(dlcGpuOp(b, "arith.select", 3, ops, mlirValueGetType(v), 0, NULL));
}

static MlirValue andI1(DlcBuilder *b, MlirValue x, MlirValue y) {
  if (mlirValueIsNull(x))
    return y;
  if (mlirValueIsNull(y))
    return x;
  return dlcGpuBin(b, "arith.andi", x, y);
}

/* One k tile of the weights (which = 0: sA[o][kk]) or of the gathered
   input (1: sB[kk][p]) loaded by the block's threads, `total` elements in
   rounds of `threads`. */
static int loadTile(DlcBuilder *b, const Conv *c, int which, MlirValue kt, MlirValue tid,
                    MlirValue dst, MlirValue stage, MlirValue *tokens) {
  int64_t cols = which ? c->bp : kGpuConvKTile, total = (which ? kGpuConvKTile : c->bo) * cols;
  MlirValue k0 = binC(b, "arith.muli", kt, kGpuConvKTile);
  int n = 0;
  for (int64_t first = 0; first < total; first += c->threads) {
    MlirValue e = binC(b, "arith.addi", tid, first);
    bool last = first + c->threads > total;
    DlcBuilder at = *b;
    if (last && tokens) { /* cp.async: threads past the tile repeat its last element (the same
                             bytes to the same place), so every copy's token is in the group */
      MlirValue mo[2] = {e, dlcGpuIndex(b, total - 1)};
      e = dlcGpuRes(dlcGpuOp(b, "arith.minui", 2, mo, mlirIndexTypeGet(b->context), 0, NULL));
    } else if (last) {
      at = dlcGpuIfThen(b, dlcGpuCmpUlt(b, e, total));
    }
    MlirValue row = binC(&at, "arith.divui", e, cols), col = binC(&at, "arith.remui", e, cols);
    MlirValue kk = which ? row : col;
    MlirValue k = dlcGpuBin(&at, "arith.addi", k0, kk), valid = {NULL}, ch, r, q, v;
    if (c->k % kGpuConvKTile)
      valid = dlcGpuCmpUlt(&at, k, c->k);
    splitK(&at, c, k, &ch, &r, &q);
    MlirValue src, idx[4];
    if (!which) {
      src = c->w;
      idx[0] = row, idx[1] = ch, idx[2] = r, idx[3] = q;
    } else {
      MlirValue p = col;
      if (c->bp != c->pixels) { /* the block's padded pixels read pixel P - 1, masked */
        valid = andI1(&at, valid, dlcGpuCmpUlt(&at, p, c->pixels));
        MlirValue ops[2] = {p, dlcGpuIndex(&at, c->pixels - 1)};
        p = dlcGpuRes(dlcGpuOp(&at, "arith.minui", 2, ops, mlirIndexTypeGet(at.context), 0, NULL));
      }
      MlirValue ho = binC(&at, "arith.divui", p, c->wo), wo = binC(&at, "arith.remui", p, c->wo);
      MlirValue ih = dlcGpuBin(&at, "arith.addi", binC(&at, "arith.muli", ho, c->stride[0]),
                               binC(&at, "arith.muli", r, c->dil[0]));
      MlirValue iw = dlcGpuBin(&at, "arith.addi", binC(&at, "arith.muli", wo, c->stride[1]),
                               binC(&at, "arith.muli", q, c->dil[1]));
      if (c->padded) { /* the unpadded input, 0 outside it */
        MlirValue sh = dlcGpuBin(&at, "arith.subi", dlcGpuBin(&at, "arith.addi", c->off[2], ih),
                                 dlcGpuIndex(&at, c->padT));
        MlirValue sw = dlcGpuBin(&at, "arith.subi", dlcGpuBin(&at, "arith.addi", c->off[3], iw),
                                 dlcGpuIndex(&at, c->padL));
        MlirValue inH = dlcGpuCmpUlt(&at, sh, c->srcH), inW = dlcGpuCmpUlt(&at, sw, c->srcW);
        valid = andI1(&at, valid, andI1(&at, inH, inW));
        MlirValue z = dlcGpuIndex(&at, 0), s1[3] = {inH, sh, z}, s2[3] = {inW, sw, z};
        MlirType index = mlirIndexTypeGet(at.context);
        src = c->src;
        idx[0] = c->off[0];
        idx[1] = dlcGpuBin(&at, "arith.addi", c->off[1], ch);
        idx[2] = dlcGpuRes(dlcGpuOp(&at, "arith.select", 3, s1, index, 0, NULL));
        idx[3] = dlcGpuRes(dlcGpuOp(&at, "arith.select", 3, s2, index, 0, NULL));
      } else {
        src = c->in;
        idx[0] = dlcGpuIndex(&at, 0), idx[1] = ch, idx[2] = ih, idx[3] = iw;
      }
    }
    MlirValue sidx[3] = {stage, row, col};
    bool staged = !mlirValueIsNull(stage);
    if (tokens) { /* 4 bytes by cp.async, zero-filled (0 bytes read) where masked; the
                     indices are clamped in range, so the address is valid either way */
      MlirValue srcElts = {NULL};
      if (!mlirValueIsNull(valid)) {
        MlirValue so[3] = {valid, dlcGpuIndex(&at, 1), dlcGpuIndex(&at, 0)};
        srcElts = dlcGpuRes(
            dlcGpuOp(&at, "arith.select", 3, so, mlirIndexTypeGet(at.context), 0, NULL));
      }
      tokens[n++] = dlcGpuAsyncCopy(&at, dst, 3, sidx, src, 4, idx, 1, srcElts, false);
      continue;
    }
    v = load(&at, src, 4, idx);
    store(&at, masked(&at, valid, v), dst, staged ? 3 : 2, staged ? sidx : sidx + 1);
  }
  return n;
}

typedef struct {
  MlirValue lane, g, t2, lane16, hi8, wm0, wn0;
} Lanes;

/* The lane's accumulators (tile (i, j), row half h, column p at
   ((i tn + j) 2 + h) 2 + p) += sA[warp rows][k tile] x sB[k tile][warp columns]. */
static void computeTile(DlcBuilder *b, const Conv *c, const Lanes *l, MlirValue sA, MlirValue sB,
                        MlirValue stage, MlirValue *acc) {
  bool staged = !mlirValueIsNull(stage); /* [stage][row][col] tiles */
  MlirContext ctx = b->context;
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType elt = mlirShapedTypeGetElementType(mlirValueGetType(sA));
  int tm = (int)(c->wm / 16), tn = (int)(c->wn / 8);
  if (c->mmaK) { /* ldmatrix x4 / x2.trans, mma.sync m16n8k16 per (i, j) */
    MlirValue aF[8], bF[8];
    for (int i = 0; i < tm; ++i) {
      MlirValue ops[4] = {
          sA, stage, dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", l->wm0, 16 * i), l->lane16),
          l->hi8};
      if (!staged)
        ops[1] = ops[2], ops[2] = ops[3];
      MlirNamedAttribute at[2] = {
          dlcNamed(ctx, "numTiles", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 4)),
          dlcNamedBool(ctx, "transpose", false)};
      aF[i] = dlcGpuRes(dlcGpuOp(b, "nvgpu.ldmatrix", staged ? 4 : 3, ops,
                                 mlirVectorTypeGet(2, (int64_t[]){4, 2}, elt), 2, at));
    }
    for (int j = 0; j < tn; ++j) {
      MlirValue ops[4] = {sB, stage, l->lane16, binC(b, "arith.addi", l->wn0, 8 * j)};
      if (!staged)
        ops[1] = ops[2], ops[2] = ops[3];
      MlirNamedAttribute at[2] = {
          dlcNamed(ctx, "numTiles", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 2)),
          dlcNamedBool(ctx, "transpose", true)};
      bF[j] = dlcGpuRes(dlcGpuOp(b, "nvgpu.ldmatrix", staged ? 4 : 3, ops,
                                 mlirVectorTypeGet(2, (int64_t[]){2, 2}, elt), 2, at));
    }
    MlirType accV = mlirVectorTypeGet(2, (int64_t[]){2, 2}, f32);
    const int64_t shape[3] = {16, 8, 16};
    for (int i = 0; i < tm; ++i)
      for (int j = 0; j < tn; ++j) {
        MlirValue *a4 = acc + (i * tn + j) * 4;
        MlirValue v = dlcGpuRes(dlcGpuOp(b, "vector.from_elements", 4, a4, accV, 0, NULL));
        v = dlcGpuMmaSync(b, aF[i], bF[j], v, shape);
        for (int q = 0; q < 4; ++q) {
          MlirNamedAttribute pos =
              dlcNamedI64Array(ctx, "static_position", 2, (int64_t[]){q / 2, q % 2});
          a4[q] = dlcGpuRes(dlcGpuOp(b, "vector.extract", 1, &v, f32, 1, &pos));
        }
      }
    return;
  }
  MlirNamedAttribute contract =
      dlcNamed(ctx, "fastmath", mlirAttributeParseGet(ctx, str("#arith.fastmath<contract>")));
  for (int64_t kk = 0; kk < kGpuConvKTile; ++kk) { /* exact f32 FFMA */
    MlirValue a[8][2], bv[8][2], kI = dlcGpuIndex(b, kk);
    for (int i = 0; i < tm; ++i)
      for (int h = 0; h < 2; ++h) {
        MlirValue idx[3] = {
            stage, dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", l->wm0, 16 * i + 8 * h), l->g),
            kI};
        a[i][h] = convertTo(b, load(b, sA, staged ? 3 : 2, staged ? idx : idx + 1), f32);
      }
    for (int j = 0; j < tn; ++j)
      for (int p = 0; p < 2; ++p) {
        MlirValue idx[3] = {
            stage, kI, dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", l->wn0, 8 * j + p), l->t2)};
        bv[j][p] = convertTo(b, load(b, sB, staged ? 3 : 2, staged ? idx : idx + 1), f32);
      }
    for (int i = 0; i < tm; ++i)
      for (int j = 0; j < tn; ++j)
        for (int h = 0; h < 2; ++h)
          for (int p = 0; p < 2; ++p) {
            MlirValue *s = &acc[((i * tn + j) * 2 + h) * 2 + p];
            /* mul + add allowed to contract: one fma.rn.f32 (math.fma
               would be split again by math-expand-ops) */
            MlirValue m[2] = {a[i][h], bv[j][p]};
            MlirValue prod = dlcGpuRes(dlcGpuOp(b, "arith.mulf", 2, m, f32, 1, &contract));
            MlirValue sum[2] = {*s, prod};
            *s = dlcGpuRes(dlcGpuOp(b, "arith.addf", 2, sum, f32, 1, &contract));
          }
  }
}

/* An scf.for from 0 to `ub` (step 1) with no results; its induction
   variable in `iv`, a builder at the end of its body returned. */
static DlcBuilder forLoop(DlcBuilder *b, int64_t ub, MlirValue *iv) {
  MlirType index = mlirIndexTypeGet(b->context);
  MlirValue ops[3] = {dlcGpuIndex(b, 0), dlcGpuIndex(b, ub), dlcGpuIndex(b, 1)};
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(1, &index, &b->loc);
  mlirRegionAppendOwnedBlock(region, body);
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), b->loc);
  mlirOperationStateAddOperands(&st, 3, ops);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  dlcBuilderInsert(b, mlirOperationCreate(&st));
  *iv = mlirBlockGetArgument(body, 0);
  DlcBuilder in = dlcBuilderAtEnd(body, b->loc);
  MlirOperation y = dlcGpuOp(&in, "scf.yield", 0, NULL, (MlirType){NULL}, 0, NULL);
  return dlcBuilderBefore(y, b->loc);
}

/* The code of one thread between barriers. On the GPU: `b` itself, the
   thread ids read once (`gpuIds`). Emulated on the CPU: loops over the
   block's threads (y, then x) around it -- the phases between barriers
   run one thread after another, which is what the barriers allow. */
typedef struct {
  DlcBuilder b;
  MlirValue tx, ty, tid;
  Lanes l;
} Thread;

static Thread threadScope(DlcBuilder *b, const Conv *c, bool emulate, const MlirValue gpuIds[2]) {
  Thread t;
  if (emulate) {
    DlcBuilder y = forLoop(b, c->threads / c->dimX, &t.ty);
    t.b = forLoop(&y, c->dimX, &t.tx);
  } else {
    t.b = *b;
    t.tx = gpuIds[0];
    t.ty = gpuIds[1];
  }
  DlcBuilder *in = &t.b;
  t.tid = dlcGpuBin(in, "arith.addi", t.tx, binC(in, "arith.muli", t.ty, c->dimX));
  t.l.lane = binC(in, "arith.remui", t.tx, kGpuWarpSize);
  t.l.g = binC(in, "arith.divui", t.l.lane, 4);
  t.l.t2 = binC(in, "arith.muli", binC(in, "arith.remui", t.l.lane, 4), 2);
  t.l.lane16 = binC(in, "arith.remui", t.l.lane, 16);
  t.l.hi8 = binC(in, "arith.muli", binC(in, "arith.divui", t.l.lane, 16), 8);
  t.l.wm0 = binC(in, "arith.muli", t.ty, c->wm);
  t.l.wn0 = binC(in, "arith.muli", binC(in, "arith.divui", t.tx, kGpuWarpSize), c->wn);
  return t;
}

/* Shared memory: a workgroup global on the GPU; emulated, a buffer of
   the block (an alloca in the block's loop body). */
static MlirValue sharedTile(DlcBuilder *b, MlirOperation module, int64_t stages, int64_t rows,
                            int64_t cols, MlirType elt, bool emulate) {
  /* [rows x cols], or [stages x rows x cols] for a pipeline */
  int64_t shape[3] = {stages, rows, cols};
  intptr_t rank = stages > 1 ? 3 : 2;
  const int64_t *sh = stages > 1 ? shape : shape + 1;
  if (!emulate)
    return dlcGpuSharedGlobal(b, module, "__dlc_conv_smem_", rank, sh, elt);
  MlirType t = mlirMemRefTypeGet(elt, rank, sh, mlirAttributeGetNull(), mlirAttributeGetNull());
  MlirNamedAttribute seg = dlcNamed(b->context, "operandSegmentSizes",
                                    mlirDenseI32ArrayGet(b->context, 2, (int32_t[]){0, 0}));
  return dlcGpuRes(dlcGpuOp(b, "memref.alloca", 0, NULL, t, 1, &seg));
}

/* The accumulators of the thread: `acc` (the k loop's iter_args on the
   GPU); emulated, a [threads x n] f32 buffer loaded at the thread's row. */
static void loadAcc(Thread *t, MlirValue buf, int n, MlirValue *acc) {
  for (int a = 0; a < n; ++a) {
    MlirValue idx[2] = {t->tid, dlcGpuIndex(&t->b, a)};
    acc[a] = load(&t->b, buf, 2, idx);
  }
}

static void storeAcc(Thread *t, MlirValue buf, int n, const MlirValue *acc) {
  for (int a = 0; a < n; ++a) {
    MlirValue idx[2] = {t->tid, dlcGpuIndex(&t->b, a)};
    store(&t->b, acc[a], buf, 2, idx);
  }
}

/* The output element at idx ([0, o, ho, wo]) from its accumulator value
   `acc`: + init, the epilogue's body once; the buffer it goes to in `*dst`. */
static bool elementValue(DlcBuilder *b, const Conv *c, MlirValue acc, const MlirValue *idx,
                         MlirValue *v, MlirValue *dst) {
  MlirType f32 = mlirF32TypeGet(b->context);
  MlirType xElt = mlirShapedTypeGetElementType(mlirValueGetType(c->x));
  MlirValue init;
  if (!valueAt(b, c, c->init, idx, (MlirValue){NULL}, &init))
    return false;
  *v = convertTo(b, dlcGpuBin(b, "arith.addf", convertTo(b, init, f32), acc), xElt);
  *dst = c->x;
  if (mlirOperationIsNull(c->epilogue))
    return true;
  intptr_t last = mlirOperationGetNumOperands(c->epilogue) - 1;
  if (!mlirAffineMapIsIdentity(dlcOperandMap(c->epilogue, last)))
    return fail(c->epilogue, "the epilogue writes through a non-identity map");
  *dst = mlirOperationGetOperand(c->epilogue, last);
  return valueAt(b, c, c->epilogue, idx, *v, v);
}

/* [0, o, p / Wo, p % Wo] of output channel o, block pixel p. */
static void pixelIndex(DlcBuilder *b, const Conv *c, MlirValue o, MlirValue p, MlirValue idx[4]) {
  idx[0] = dlcGpuIndex(b, 0);
  idx[1] = o;
  idx[2] = binC(b, "arith.divui", p, c->wo);
  idx[3] = binC(b, "arith.remui", p, c->wo);
}

/* The lane's accumulators + init, the epilogue, one store each (outputs
   that take no 16-byte stores, see storeRows). */
static bool epilogueAll(Thread *t, const Conv *c, const MlirValue *acc) {
  int tn = (int)(c->wn / 8), nAcc = (int)((c->wm / 16) * tn * 4);
  DlcBuilder *b = &t->b;
  for (int a = 0; a < nAcc; ++a) {
    int p = a % 2, h = (a / 2) % 2, tile = a / 4, i = tile / tn, j = tile % tn;
    MlirValue o =
        dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", t->l.wm0, 16 * i + 8 * h), t->l.g);
    MlirValue pix = dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", t->l.wn0, 8 * j + p), t->l.t2);
    DlcBuilder at = c->bp != c->pixels ? dlcGpuIfThen(b, dlcGpuCmpUlt(b, pix, c->pixels)) : *b;
    MlirValue idx[4], v, dst;
    pixelIndex(&at, c, o, pix, idx);
    if (!elementValue(&at, c, acc[a], idx, &v, &dst))
      return false;
    store(&at, v, dst, 4, idx);
  }
  return true;
}

/* The output's (or the epilogue's) [1, O tile, rows, Wo] buffer as
   [O tile, rows x Wo] when its rows follow each other (Wo whole, unit
   stride): a block's pixels are then adjacent in memory, and a run of
   them is one vector store. Null when not, or not 16 / 32-bit floats. */
static MlirValue pixelRows(DlcBuilder *b, const Conv *c, MlirValue dst, int *vec) {
  MlirType t = mlirValueGetType(dst), elt = mlirShapedTypeGetElementType(t);
  int64_t strides[4], offset;
  *vec = 0;
  if (!mlirTypeIsAMemRef(t) || mlirShapedTypeGetRank(t) != 4 || !mlirTypeIsAFloat(elt) ||
      mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(t, strides, &offset)) ||
      strides[3] != 1 || strides[2] != mlirShapedTypeGetDimSize(t, 3) ||
      mlirShapedTypeIsDynamicStrideOrOffset(strides[1]))
    return (MlirValue){NULL};
  unsigned w = mlirFloatTypeGetWidth(elt);
  if (w != 16 && w != 32)
    return (MlirValue){NULL};
  *vec = w == 32 ? 4 : 8;
  MlirContext ctx = b->context;
  int64_t rows = mlirShapedTypeGetDimSize(t, 1), cols = c->pixels;
  MlirAttribute layout =
      mlirStridedLayoutAttrGet(ctx, offset, 2, (int64_t[]){strides[1], 1});
  MlirType rt = mlirMemRefTypeGet(elt, 2, (int64_t[]){rows, cols}, layout,
                                  mlirMemRefTypeGetMemorySpace(t));
  MlirAttribute re = mlirAttributeParseGet(ctx, str("[[0, 1], [2, 3]]"));
  MlirNamedAttribute a = dlcNamed(ctx, "reassociation", re);
  return dlcGpuRes(dlcGpuOp(b, "memref.collapse_shape", 1, &dst, rt, 1, &a));
}

/* Round 1 of the lane regrouping (gpu_build.h) on the 4 accumulators
   `own` of a tile: on the GPU the partner's pair by a shuffle; emulated,
   the partner's send computed from its accumulators `other` (lane ^ 1). */
static void round1(DlcBuilder *b, MlirValue lane, const MlirValue *own, const MlirValue *other,
                   MlirValue out[4]) {
  MlirValue odd = dlcGpuBitSet(b, lane, 1), recv[2];
  if (other) {
    MlirValue pOdd = dlcGpuBitSet(b, binC(b, "arith.xori", lane, 1), 1);
    dlcGpuQuadSend(b, pOdd, other, recv);
  } else {
    MlirValue send[2];
    dlcGpuQuadSend(b, odd, own, send);
    for (int q = 0; q < 2; ++q)
      recv[q] = dlcGpuShuffleXor(b, send[q], 1);
  }
  dlcGpuQuadJoin(b, odd, own, recv, out);
}

/* The lane's accumulators through the epilogue with 16-byte stores:
   lanes regroup the mma.sync C fragments (gpu_build.h, the GEMMs' code)
   so that a lane holds `vec` adjacent pixels of one output channel; the
   epilogue runs once per element, then one vector.store. `partner[m]`:
   emulated, the accumulators of lane ^ m (m = 1, 2, 3); null on the GPU
   (shuffles). Pixels past the block's (bp > pixels): a run wholly past
   is skipped; one across the end (pixels % vec != 0) computes at the
   last pixel and stores its valid elements one by one. False (with
   *done unset) when the output takes no vector stores. */
static bool storeRows(Thread *t, const Conv *c, const MlirValue *acc, const MlirValue *partner[4],
                      bool *done) {
  DlcBuilder *b = &t->b;
  *done = false;
  MlirValue dst0 = mlirOperationIsNull(c->epilogue)
                       ? c->x
                       : mlirOperationGetOperand(c->epilogue,
                                                 mlirOperationGetNumOperands(c->epilogue) - 1);
  int vec;
  MlirValue rows = pixelRows(b, c, dst0, &vec);
  if (mlirValueIsNull(rows) || c->pixels < vec)
    return true;
  *done = true;
  int tm = (int)(c->wm / 16), tn = (int)(c->wn / 8);
  MlirValue lane = t->l.lane, hi = dlcGpuBitSet(b, lane, 2);
  MlirValue lane2 = binC(b, "arith.andi", lane, 2);
  MlirValue row1 = dlcGpuBin(b, "arith.addi", t->l.g,
                             binC(b, "arith.muli", binC(b, "arith.andi", lane, 1), 8));
  MlirValue col4 = binC(b, "arith.muli", lane2, 2), col8 = binC(b, "arith.muli", lane2, 4);
  MlirValue q4[kMaxAcc / 4][4];
  for (int a = 0; a < tm * tn; ++a)
    round1(b, lane, acc + 4 * a, partner[1] ? partner[1] + 4 * a : NULL, q4[a]);
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn;) {
      int n = vec == 8 && j + 1 < tn ? 8 : 4;
      MlirValue vals[8], col;
      if (n == 8) { /* round 2: tile j + hi's 8 pixels of the row */
        const MlirValue *a4 = q4[i * tn + j], *c4 = q4[i * tn + j + 1];
        MlirValue recv[4];
        if (partner[2]) { /* lane ^ 2's send, from its round 1 (with lane ^ 3) */
          MlirValue l2 = binC(b, "arith.xori", lane, 2), pa[4], pc[4];
          round1(b, l2, partner[2] + 4 * (i * tn + j), partner[3] + 4 * (i * tn + j), pa);
          round1(b, l2, partner[2] + 4 * (i * tn + j + 1), partner[3] + 4 * (i * tn + j + 1), pc);
          dlcGpuPairSend(b, dlcGpuBitSet(b, l2, 2), pa, pc, recv);
        } else {
          MlirValue send[4];
          dlcGpuPairSend(b, hi, a4, c4, send);
          for (int e = 0; e < 4; ++e)
            recv[e] = dlcGpuShuffleXor(b, send[e], 2);
        }
        dlcGpuPairJoin(b, hi, a4, c4, recv, vals);
        col = dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", t->l.wn0, 8 * j), col8);
      } else {
        memcpy(vals, q4[i * tn + j], sizeof(MlirValue) * 4);
        col = dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", t->l.wn0, 8 * j), col4);
      }
      j += n / 4;
      MlirValue o = dlcGpuBin(b, "arith.addi", binC(b, "arith.addi", t->l.wm0, 16 * i), row1);
      bool tail = c->pixels % n != 0;
      /* a run wholly past the block's pixels: nothing (pixels % n == 0
         makes every run wholly in or wholly out) */
      DlcBuilder at = c->bp != c->pixels && !tail
                          ? dlcGpuIfThen(b, dlcGpuCmpUlt(b, col, c->pixels))
                          : *b;
      MlirValue res[8], dst = dst0, idx[8][4]; /* per element: [0, o, row, col] */
      for (int e = 0; e < n; ++e) {
        MlirValue p = binC(&at, "arith.addi", col, e);
        if (tail) { /* computed at the last pixel past the end, not stored */
          MlirValue mo[2] = {p, dlcGpuIndex(&at, c->pixels - 1)};
          p = dlcGpuRes(
              dlcGpuOp(&at, "arith.minui", 2, mo, mlirIndexTypeGet(at.context), 0, NULL));
        }
        pixelIndex(&at, c, o, p, idx[e]);
        if (!elementValue(&at, c, vals[e], idx[e], &res[e], &dst))
          return false;
      }
      MlirValue vidx[2] = {o, col};
      if (!tail) {
        dlcGpuStoreVector(&at, n, res, rows, 2, vidx);
        continue;
      }
      /* the run is whole (col + n <= pixels): one vector store; else the
         elements before the end one by one */
      MlirValue whole = dlcGpuCmpUlt(&at, col, c->pixels - n + 1);
      DlcBuilder w = dlcGpuIfThen(&at, whole);
      dlcGpuStoreVector(&w, n, res, rows, 2, vidx);
      MlirValue part = dlcGpuBin(&at, "arith.xori", dlcGpuCmpUlt(&at, col, c->pixels), whole);
      DlcBuilder pt = dlcGpuIfThen(&at, part);
      for (int e = 0; e < n; ++e) {
        DlcBuilder one =
            dlcGpuIfThen(&pt, dlcGpuCmpUlt(&pt, binC(&pt, "arith.addi", col, e), c->pixels));
        store(&one, res[e], dst, 4, idx[e]);
      }
    }
  return true;
}

/* The epilogue of the lane's accumulators: 16-byte stores where the
   output allows them, else one store per element. */
static bool epilogue(Thread *t, const Conv *c, const MlirValue *acc, const MlirValue *partner[4]) {
  bool done;
  if (!storeRows(t, c, acc, partner, &done))
    return false;
  return done || epilogueAll(t, c, acc);
}

/* `emulate`: the same tiles, gather and epilogue with the block's threads
   as loops between the barriers and FFMA for every type (nvgpu's ldmatrix
   and mma.sync have no CPU lowering), so the CPU can run the rewrite. */
/* Tile kt + S - 1 of the pipeline (clamped to the last: a repeat lands in
   a stage never read again) and its stage, (kt + S - 1) % S. */
static void nextTile(DlcBuilder *b, MlirValue kt, int64_t S, int64_t nK, MlirValue *next,
                     MlirValue *stage) {
  MlirValue n = binC(b, "arith.addi", kt, S - 1);
  MlirValue mo[2] = {n, dlcGpuIndex(b, nK - 1)};
  *next = dlcGpuRes(dlcGpuOp(b, "arith.minui", 2, mo, mlirIndexTypeGet(b->context), 0, NULL));
  *stage = binC(b, "arith.remui", n, S);
}

static bool rewrite(const Conv *cIn, bool emulate) {
  Conv cc = *cIn;
  const Conv *c = &cc;
  if (emulate)
    cc.mmaK = 0;
  MlirContext ctx = mlirOperationGetContext(c->conv);
  MlirLocation loc = mlirOperationGetLocation(c->conv);
  DlcBuilder b = dlcBuilderBefore(c->conv, loc);
  MlirType index = mlirIndexTypeGet(ctx), f32 = mlirF32TypeGet(ctx);
  MlirType elt = mlirShapedTypeGetElementType(mlirValueGetType(c->in));
  int64_t pad = kGpuSmemPadBytes / (mlirTypeIsAF32(elt) ? 4 : 2);
  MlirOperation module = dlcGpuModuleOf(c->block);
  int64_t S = c->stages;
  MlirValue sA = sharedTile(&b, module, S, c->bo, kGpuConvKTile + pad, elt, emulate);
  MlirValue sB = sharedTile(&b, module, S, kGpuConvKTile, c->bp + pad, elt, emulate);
  MlirValue ids[2] = {{NULL}, {NULL}};
  if (!emulate) {
    MlirNamedAttribute dx =
        dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim x>")));
    MlirNamedAttribute dy =
        dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim y>")));
    ids[0] = dlcGpuRes(dlcGpuOp(&b, "gpu.thread_id", 0, NULL, index, 1, &dx));
    ids[1] = dlcGpuRes(dlcGpuOp(&b, "gpu.thread_id", 0, NULL, index, 1, &dy));
  }
  int nAcc = (int)((c->wm / 16) * (c->wn / 8) * 4);
  int64_t nK = (c->k + kGpuConvKTile - 1) / kGpuConvKTile;
  MlirValue zero = floatConst(&b, f32, 0.0), acc[kMaxAcc];
  /* a thread's cp.async copies of one k tile: rounds of both tiles */
  int64_t copies = (c->bo * kGpuConvKTile + c->threads - 1) / c->threads +
                   (kGpuConvKTile * c->bp + c->threads - 1) / c->threads;
  if (S > 1 && !mlirTypeIsAF32(elt))
    return fail(c->conv, "a cp.async pipeline of 16-bit tiles (the schedule allows f32 only)");
  if (S > 1 && copies > kMaxCopies)
    return fail(c->conv, "a k tile takes more cp.async copies a thread than the rewrite holds");
  MlirValue tokens[kMaxCopies];

  if (emulate) {
    MlirType t = mlirMemRefTypeGet(f32, 2, (int64_t[]){c->threads, nAcc}, mlirAttributeGetNull(),
                                   mlirAttributeGetNull());
    MlirNamedAttribute seg =
        dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, (int32_t[]){0, 0}));
    MlirValue buf = dlcGpuRes(dlcGpuOp(&b, "memref.alloca", 0, NULL, t, 1, &seg));
    Thread t0 = threadScope(&b, c, true, ids);
    for (int a = 0; a < nAcc; ++a)
      acc[a] = zero;
    storeAcc(&t0, buf, nAcc, acc);
    for (int64_t s0 = 0; s0 + 1 < S; ++s0) { /* the pipeline's prologue: tiles 0 .. S - 2 */
      Thread tp = threadScope(&b, c, true, ids);
      MlirValue kt0 = dlcGpuIndex(&tp.b, s0 < nK ? s0 : nK - 1), st0 = dlcGpuIndex(&tp.b, s0);
      loadTile(&tp.b, c, 0, kt0, tp.tid, sA, st0, NULL);
      loadTile(&tp.b, c, 1, kt0, tp.tid, sB, st0, NULL);
    }
    MlirValue kt, next = {NULL}, nstage = {NULL}, stage = {NULL};
    DlcBuilder k = forLoop(&b, nK, &kt);
    Thread tl = threadScope(&k, c, true, ids); /* barrier */
    if (S > 1) /* the copies of tile kt + S - 1 (the GPU overlaps them with tile kt) */
      nextTile(&tl.b, kt, S, nK, &next, &nstage);
    loadTile(&tl.b, c, 0, S > 1 ? next : kt, tl.tid, sA, nstage, NULL);
    loadTile(&tl.b, c, 1, S > 1 ? next : kt, tl.tid, sB, nstage, NULL);
    Thread tc = threadScope(&k, c, true, ids); /* barrier */
    loadAcc(&tc, buf, nAcc, acc);
    if (S > 1)
      stage = binC(&tc.b, "arith.remui", kt, S);
    computeTile(&tc.b, c, &tc.l, sA, sB, stage, acc);
    storeAcc(&tc, buf, nAcc, acc);
    b = dlcBuilderBefore(mlirOperationIsNull(c->epilogue) ? c->conv : c->epilogue, loc);
    Thread te = threadScope(&b, c, true, ids);
    loadAcc(&te, buf, nAcc, acc);
    /* the accumulators of lanes ^ 1, ^ 2, ^ 3: what the shuffles read */
    MlirValue other[3][kMaxAcc];
    const MlirValue *partner[4] = {NULL, other[0], other[1], other[2]};
    for (int m = 1; m < 4; ++m)
      for (int a = 0; a < nAcc; ++a) {
        MlirValue idx[2] = {binC(&te.b, "arith.xori", te.tid, m), dlcGpuIndex(&te.b, a)};
        other[m - 1][a] = load(&te.b, buf, 2, idx);
      }
    if (!epilogue(&te, c, acc, partner))
      return false;
  } else {
    /* S > 1: the prologue's cp.async of tiles 0 .. S - 2, a group each */
    MlirValue group = {NULL};
    if (S > 1) {
      Thread tp = threadScope(&b, c, false, ids);
      for (int64_t s0 = 0; s0 + 1 < S; ++s0) {
        MlirValue kt0 = dlcGpuIndex(&tp.b, s0 < nK ? s0 : nK - 1), st0 = dlcGpuIndex(&tp.b, s0);
        int n = loadTile(&tp.b, c, 0, kt0, tp.tid, sA, st0, tokens);
        n += loadTile(&tp.b, c, 1, kt0, tp.tid, sB, st0, tokens + n);
        group = dlcGpuAsyncCommit(&tp.b, n, tokens);
      }
    }
    /* scf.for kt over the k tiles, the accumulators carried */
    MlirValue ops[3 + kMaxAcc] = {dlcGpuIndex(&b, 0), dlcGpuIndex(&b, nK), dlcGpuIndex(&b, 1)};
    MlirType types[1 + kMaxAcc];
    MlirLocation locs[1 + kMaxAcc];
    types[0] = index;
    locs[0] = loc;
    for (int i = 0; i < nAcc; ++i) {
      ops[3 + i] = zero;
      types[1 + i] = f32;
      locs[1 + i] = loc;
    }
    MlirRegion region = mlirRegionCreate();
    MlirBlock body = mlirBlockCreate(1 + nAcc, types, locs);
    mlirRegionAppendOwnedBlock(region, body);
    MlirOperationState st = mlirOperationStateGet(str("scf.for"), loc);
    mlirOperationStateAddOperands(&st, 3 + nAcc, ops);
    mlirOperationStateAddResults(&st, nAcc, types + 1);
    mlirOperationStateAddOwnedRegions(&st, 1, &region);
    MlirOperation loop = dlcBuilderInsert(&b, mlirOperationCreate(&st));
    DlcBuilder in = dlcBuilderAtEnd(body, loc);
    Thread t = threadScope(&in, c, false, ids);
    MlirValue kt = mlirBlockGetArgument(body, 0);
    for (int i = 0; i < nAcc; ++i)
      acc[i] = mlirBlockGetArgument(body, 1 + i);
    if (S == 1) {
      dlcGpuOp(&t.b, "gpu.barrier", 0, NULL, (MlirType){NULL}, 0, NULL); /* the last tile is used */
      loadTile(&t.b, c, 0, kt, t.tid, sA, (MlirValue){NULL}, NULL);
      loadTile(&t.b, c, 1, kt, t.tid, sB, (MlirValue){NULL}, NULL);
      dlcGpuOp(&t.b, "gpu.barrier", 0, NULL, (MlirType){NULL}, 0, NULL); /* this tile has landed */
      computeTile(&t.b, c, &t.l, sA, sB, (MlirValue){NULL}, acc);
    } else {
      /* tile kt has landed (at most S - 2 younger groups in flight), and
         every warp is done with tile kt - 1, whose stage the copies of
         tile kt + S - 1 overwrite; those copies run while kt is computed */
      dlcGpuAsyncWait(&t.b, group, (int32_t)(S - 2));
      dlcGpuOp(&t.b, "gpu.barrier", 0, NULL, (MlirType){NULL}, 0, NULL);
      MlirValue next, nstage;
      nextTile(&t.b, kt, S, nK, &next, &nstage);
      int n = loadTile(&t.b, c, 0, next, t.tid, sA, nstage, tokens);
      n += loadTile(&t.b, c, 1, next, t.tid, sB, nstage, tokens + n);
      dlcGpuAsyncCommit(&t.b, n, tokens);
      computeTile(&t.b, c, &t.l, sA, sB, binC(&t.b, "arith.remui", kt, S), acc);
    }
    dlcGpuOp(&t.b, "scf.yield", nAcc, acc, (MlirType){NULL}, 0, NULL);
    if (S > 1) /* no copy left in flight (the clamped repeats of the last tile) */
      dlcGpuAsyncWait(&b, group, 0);
    /* per accumulator element: + init, the epilogue, one store; where the
       epilogue was (its operands' subviews may follow the conv) */
    b = dlcBuilderBefore(mlirOperationIsNull(c->epilogue) ? c->conv : c->epilogue, loc);
    Thread te = threadScope(&b, c, false, ids);
    for (int a = 0; a < nAcc; ++a)
      acc[a] = mlirOperationGetResult(loop, a);
    const MlirValue *none[4] = {NULL, NULL, NULL, NULL};
    if (!epilogue(&te, c, acc, none))
      return false;
  }
  if (!mlirOperationIsNull(c->epilogue))
    mlirOperationDestroy(c->epilogue);
  mlirOperationDestroy(c->conv);
  mlirOperationDestroy(c->init);
  erasePad(c);
  return true;
}

typedef struct {
  MlirOperation ops[1024];
  int n;
} Blocks;

static MlirWalkResult collect(MlirOperation op, void *u) {
  Blocks *w = u;
  if (dlcOpIs(op, "scf.forall") &&
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_CONV))) &&
      w->n < 1024)
    w->ops[w->n++] = op;
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  bool emulate = dlcOptionsGetBool(dlcPassGetOptions(pass), "emulate");
  Blocks *w = calloc(1, sizeof *w);
  mlirOperationWalk(module, collect, w, MlirWalkPreOrder);
  bool ok = true;
  for (int i = 0; i < w->n && ok; ++i) {
    Conv c;
    ok = readConv(w->ops[i], &c);
    if (ok)
      findPad(&c);
    ok = ok && rewrite(&c, emulate);
    mlirOperationRemoveDiscardableAttributeByName(w->ops[i], str(DLC_ATTR_CONV));
  }
  dlcPassAddStatistic(pass, "convs", (uint64_t)w->n);
  free(w);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {mlirGetDialectHandle__gpu__(), mlirGetDialectHandle__nvgpu__(),
                            mlirGetDialectHandle__nvvm__(), mlirGetDialectHandle__llvm__(),
                            mlirGetDialectHandle__vector__()};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcStatisticDesc kStats[] = {{"convs", "conv blocks rewritten to implicit GEMMs"}};

static const DlcOptionDesc kOptions[] = {
    {"emulate", "for the CPU emulation (test/GPU/conv_check.py): the block's threads as loops "
                "between the barriers, FFMA for every type, no GPU ops",
     DLC_OPTION_BOOL, "false"},
};

const DlcPassDescriptor dlcGpuConvPass = {
    .argument = "dlc-gpu-conv",
    .summary = "Rewrite each conv block (marked by dlc-gpu-schedule) into an implicit GEMM: "
               "weights and the im2col-gathered input staged in shared memory per k tile, "
               "mma.sync (f16 / bf16) or FFMA (f32) on them, the epilogue in registers",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
