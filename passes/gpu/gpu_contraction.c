/* The tensor-core contraction strategy (gpu_contraction.h): which GEMM
   kernels use mma.sync, with which tiles. The rewrite of each warp's
   contraction into nvgpu.mma.sync is dlc-gpu-mma (gpu_mma.c). */

#include "gpu/gpu_contraction.h"
#include "gpu/gpu_cost_model.h"
#include "gpu/gpu_wgmma.h"

#include "dlc-c/Builder.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

static MlirType elementOf(MlirOperation op, intptr_t i) {
  return mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(op, i)));
}

/* Operand `i`'s map ends in dims (d0, d1) and reads only loops before
   `batchEnd` otherwise (the batch loops, tiled by one). */
static bool mapEndsIn(MlirOperation op, intptr_t i, int d0, int d1, int batchEnd) {
  MlirAffineMap m = dlcOperandMap(op, i);
  intptr_t r = mlirAffineMapGetNumResults(m);
  if (r < 2)
    return false;
  for (intptr_t k = 0; k < r; ++k) {
    MlirAffineExpr e = mlirAffineMapGetResult(m, k);
    if (!mlirAffineExprIsADim(e))
      return false;
    int d = (int)mlirAffineDimExprGetPosition(e);
    if ((k == r - 2 && d != d0) || (k == r - 1 && d != d1) || (k < r - 2 && d >= batchEnd))
      return false;
  }
  return true;
}

/* The body is out + a * b, the inputs perhaps extended first. */
bool dlcGpuMultiplyAdds(MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  int muls = 0, adds = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (dlcOpIs(o, "arith.mulf"))
      ++muls;
    else if (dlcOpIs(o, "arith.addf"))
      ++adds;
    else if (!dlcOpIs(o, "arith.extf") && !dlcOpIs(o, "linalg.yield"))
      return false;
  }
  return muls == 1 && adds == 1;
}

typedef enum { KIND_NONE, KIND_F16, KIND_BF16, KIND_TF32 } Kind;

/* Input types -> the kind of mma; the output must hold the inputs' type or f32. */
static Kind kindOf(MlirOperation op) {
  MlirType a = elementOf(op, 0), b = elementOf(op, 1), c = elementOf(op, 2);
  if (!mlirTypeEqual(a, b))
    return KIND_NONE;
  bool cOk = mlirTypeEqual(c, a) || mlirTypeIsAF32(c);
  if (mlirTypeIsAF16(a) && cOk)
    return KIND_F16;
  if (mlirTypeIsABF16(a) && cOk)
    return KIND_BF16;
  if (mlirTypeIsAF32(a) && mlirTypeIsAF32(c))
    return KIND_TF32;
  return KIND_NONE;
}

bool dlcGpuMmaFor(const DlcLinalgInfo *root, bool allowTf32, int64_t mma[3], const char **why) {
  const DlcLoopNest *l = &root->loops;
  int n = l->numLoops, p = root->numParallel;
  *why = NULL;
  MlirOperation op = root->op;
  Kind kind = kindOf(op);
  if (kind == KIND_TF32 && !allowTf32)
    return false; /* exact FFMA by default */
  if (kind == KIND_NONE) {
    *why = "element types other than f16, bf16 (or f32 with allow-tf32)";
    return false;
  }
  if (p != n - 1 || p < 2 || !mapEndsIn(op, 0, p - 2, p, p - 2) ||
      !mapEndsIn(op, 1, p, p - 1, p - 2) || !dlcGpuMultiplyAdds(op)) {
    *why = "not a plain [batch.., m, n, k] multiply-add with A as [m, k] and B as [k, n]";
    return false;
  }
  mma[0] = 16;
  mma[1] = 8;
  mma[2] = kind == KIND_TF32 ? 8 : 16;
  if (l->extent[p - 2] % mma[0] || l->extent[p - 1] % mma[1] || l->extent[p] % mma[2]) {
    *why = "m, n, k not multiples of the mma shape";
    return false;
  }
  return true;
}

bool dlcGpuMmaCheck(const DlcLinalgInfo *root, bool allowTf32, const DlcSchedule *s, char *msg,
                    size_t size) {
  int64_t want[3];
  const char *why;
  const DlcLoopNest *l = &root->loops;
  int p = root->numParallel;
  if (s->mma[0] == kWgmmaM) /* wgmma.mma_async: gpu_wgmma.c (the chip is checked by the caller) */
    return dlcGpuWgmmaCheck(root, s, true, msg, size);
  if (!dlcIsGemmRoot(root) || !dlcGpuMmaFor(root, allowTf32, want, &why)) {
    snprintf(msg, size,
             "#dlk.schedule mma = [%lld, %lld, %lld] does not apply to this kernel: %s",
             (long long)s->mma[0], (long long)s->mma[1], (long long)s->mma[2],
             !dlcIsGemmRoot(root) ? "it is not a contraction"
             : why                ? why
                                  : "f32 operands use tensor cores (TF32) only with allow-tf32");
    return false;
  }
  if (memcmp(want, s->mma, sizeof want) != 0) {
    snprintf(msg, size,
             "#dlk.schedule mma = [%lld, %lld, %lld] is not the shape of this kernel's operand "
             "types: [%lld, %lld, %lld]",
             (long long)s->mma[0], (long long)s->mma[1], (long long)s->mma[2],
             (long long)want[0], (long long)want[1], (long long)want[2]);
    return false;
  }
  int64_t wm = s->thread[p - 2], wn = s->thread[p - 1];
  int64_t bm = s->workgroup[p - 2] ? s->workgroup[p - 2] : l->extent[p - 2];
  int64_t bn = s->workgroup[p - 1] ? s->workgroup[p - 1] : l->extent[p - 1];
  bool batchOk = true;
  for (int d = 0; d < p - 2; ++d)
    batchOk = batchOk && (s->workgroup[d] == 1 || l->extent[d] == 1) && s->thread[d] == 0;
  int64_t elt = want[2] == 8 ? 4 : 2, bk = dlcGpuMmaKTile(l->extent[p], want[2]);
  int64_t bytes = dlcGpuMmaSmemBytes(bm, bn, bk, s->stages, elt);
  if (s->stages > 1 && bytes > kGpuSmemBytes) {
    snprintf(msg, size,
             "#dlk.schedule stages = %lld: the staged A and B tiles (%lld x %lld and %lld x %lld "
             "a stage) need %lld bytes of shared memory, more than %d",
             (long long)s->stages, (long long)bm, (long long)bk, (long long)bk, (long long)bn,
             (long long)bytes, (int)kGpuSmemBytes);
    return false;
  }
  int64_t dims[3];
  if (!batchOk || wm <= 0 || wn <= 0 || wm % want[0] || wn % want[1] || bm % wm || bn % wn ||
      (wm / 16) * (wn / 8) > 64 || !dlcGpuMmaBlockDims(l, s, dims)) {
    snprintf(msg, size,
             "#dlk.schedule with mma: the thread tile is the warp's [m, n] tile, a multiple of "
             "[%lld, %lld] dividing the workgroup tile, at most 64 mma tiles a warp, batch loops "
             "tiled by one, at most 32 warps a block; got warp tile %lld x %lld in block tile %lld x %lld",
             (long long)want[0], (long long)want[1], (long long)wm, (long long)wn, (long long)bm,
             (long long)bn);
    return false;
  }
  return true;
}

/* The block tiles tried, largest first: the first whose grid has a block
   per SM is taken, else the one with most blocks. A warp computes at most
   32 x 32 (2 x 4 mma tiles, 32 f32 accumulators a thread). */
static const int64_t kBlockTiles[][2] = {{128, 128}, {128, 64}, {64, 64}, {64, 32},
                                         {32, 32},   {32, 16},  {16, 16}, {16, 8}};

static void setTiles(const DlcLoopNest *l, int p, int64_t bm, int64_t bn, DlcSchedule *s) {
  memset(s->workgroup, 0, sizeof s->workgroup);
  memset(s->thread, 0, sizeof s->thread);
  for (int d = 0; d < p - 2; ++d)
    s->workgroup[d] = 1;
  s->workgroup[p - 2] = bm;
  s->workgroup[p - 1] = bn;
  s->thread[p - 2] = bm % 32 == 0 ? 32 : 16;
  s->thread[p - 1] = bn % 32 == 0 ? 32 : bn % 16 == 0 ? 16 : 8;
  (void)l;
}

int64_t dlcGpuMmaKTile(int64_t k, int64_t mmaK) { return k % (2 * mmaK) == 0 ? 2 * mmaK : mmaK; }

int64_t dlcGpuMmaSmemBytes(int64_t bm, int64_t bn, int64_t bk, int64_t stages, int64_t eltBytes) {
  int64_t pad = kGpuSmemPadBytes / eltBytes;
  return stages * (bm * (bk + pad) + bk * (bn + pad)) * eltBytes;
}

/* The deepest pipeline (3, else 2) whose tiles fit the shared memory of
   a block; 1 (no staging) when none does. */
static int64_t stagesFor(int64_t bm, int64_t bn, int64_t k, const int64_t mma[3]) {
  int64_t elt = mma[2] == 8 ? 4 : 2, bk = dlcGpuMmaKTile(k, mma[2]);
  for (int64_t st = 3; st >= 2; --st)
    if (dlcGpuMmaSmemBytes(bm, bn, bk, st, elt) <= kGpuSmemBytes)
      return st;
  return 1;
}

void dlcGpuMmaSchedule(const DlcLoopNest *l, const int64_t mma[3], DlcSchedule *s) {
  int n = l->numLoops, p = n - 1;
  memset(s, 0, sizeof *s);
  s->numWorkgroup = s->numThread = n;
  s->stages = 1;
  s->vectorWidth = 1;
  memcpy(s->mma, mma, 3 * sizeof mma[0]);
  int64_t batch = 1;
  for (int d = 0; d < p - 2; ++d)
    batch *= l->extent[d];
  int best = -1;
  int64_t bestBlocks = 0;
  for (size_t i = 0; i < sizeof kBlockTiles / sizeof kBlockTiles[0]; ++i) {
    int64_t bm = kBlockTiles[i][0], bn = kBlockTiles[i][1];
    if (l->extent[p - 2] % bm || l->extent[p - 1] % bn)
      continue;
    int64_t blocks = batch * (l->extent[p - 2] / bm) * (l->extent[p - 1] / bn);
    if (best < 0 || blocks > bestBlocks) {
      best = (int)i;
      bestBlocks = blocks;
    }
    if (blocks >= kGpuSMs)
      break;
  }
  /* m, n are multiples of 16 and 8 (dlcGpuMmaFor): 16 x 8 always divides */
  setTiles(l, p, kBlockTiles[best][0], kBlockTiles[best][1], s);
  s->stages = stagesFor(kBlockTiles[best][0], kBlockTiles[best][1], l->extent[p], mma);
}

bool dlcGpuMmaBlockDims(const DlcLoopNest *l, const DlcSchedule *s, int64_t dims[3]) {
  int n = l->numLoops, p = n - 1;
  int64_t warps[2];
  if (s->mma[0] == kWgmmaM) { /* wgmma: one warpgroup a block */
    dims[0] = kWgmmaThreads;
    dims[1] = dims[2] = 1;
    return true;
  }
  for (int d = p - 2; d < p; ++d) {
    int64_t tile = s->workgroup[d] ? s->workgroup[d] : l->extent[d];
    if (s->thread[d] <= 0 || tile % s->thread[d])
      return false;
    warps[d - (p - 2)] = tile / s->thread[d];
  }
  /* warps along n in x (32 threads each), along m in y: the mapping
     checks each dimension's warps against the block's */
  dims[0] = warps[1] * kGpuWarpSize;
  dims[1] = warps[0];
  dims[2] = 1;
  return dims[0] * dims[1] <= kGpuMaxThreads;
}
