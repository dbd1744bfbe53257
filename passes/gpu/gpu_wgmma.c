/* Hopper contractions (sm_90a): wgmma.mma_async (gpu_wgmma.h; docs/gpu.md,
   "Hopper: wgmma"). The cost model and schedule check, and the rewrite of
   a warpgroup's tile that dlc-gpu-mma (gpu_mma.c) calls.

   A block is one warpgroup (128 threads) and computes a 64 x N tile of C
   (N = the schedule's mma[1]). Per k tile of BK (a pipeline stage):

     A [64 x BK] and B [BK x N] land in shared memory by cp.async (16 bytes
       a thread a copy), in the canonical *no-swizzle* layouts of the PTX
       ISA ("Shared Memory Matrix Layout", "Canonical Layouts"): 8 rows x
       16 bytes core matrices, each 128 contiguous bytes;
         A, K-major:  smA[stage][kc][m][0..8)     = A[m][8 kc ..]
             core (m/8, kc) at kc * 1024 + (m/8) * 128 bytes:
             SBO (next 8 rows, along M) = 128, LBO (next 8 k, along K) = 1024
             = ((8,m),(T,2k)):((1T,SBO),(1,LBO)) with T = 8
         B, N-major:  smB[stage][kc][nc][r][0..8) = B[8 kc + r][8 nc ..]
             core (kc, nc) at kc * (N/8) * 128 + nc * 128 bytes:
             SBO (next 8 n, along N) = 128, LBO (next 8 k, along K) = 16 N
             = ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
       (both read straight from row-major global A [m][k] and B [k][n]: a
       16-byte chunk of a global row is one row of a core matrix);
     each wgmma m64nNk16 takes k 16 = two core matrices along K: its
       descriptors start at the stage's tile + ks * 2 * LBO;
     descriptor (64 bits): bits 0-13 (address & 0x3FFFF) >> 4, 16-29
       LBO >> 4, 32-45 SBO >> 4, 62-63 swizzle 0 (none), base offset 0;
       A is K-major (imm-trans-a 0: layoutA row), B is N-major
       (imm-trans-b 1: layoutB row; f16 / bf16 only, so no tf32 here).
   cp.async synchronisation per k tile: cp.async.wait_group (this thread's copies of
   the tile landed), fence.proxy.async.shared::cta (they become visible to
   the async proxy wgmma reads through), bar.sync (everyone's), the copies
   of tile kt + S - 1 into the stage read one iteration ago, then
   wgmma.fence, the wgmmas, wgmma.commit_group, wgmma.wait_group 0 (the
   stage is free again before the next iteration's barrier).

   Accumulators: N / 2 f32 a thread, an !llvm.struct carried by the k loop;
   element i of thread (warp w, lane 4 g + t) is C[16 w + g + 8 ((i / 2) % 2)]
   [8 (i / 4) + 2 t + i % 2] (PTX ISA, "WGMMA .m64nNk16 register fragment
   layout for accumulator matrix D"). The epilogue runs on them there.

   That is the cp.async fallback. Where A's and B's block tiles are
   views of row-major buffers and N is a multiple of 64, TMA fills the
   stages instead ("TMA" below): a tensor map per operand made on the
   host before the launch and passed in as an i64, A's [64][BK] box with
   a 2 BK-byte swizzle, B's [BK][64] boxes with the 128B swizzle, one
   mbarrier a stage (thread 0: expect_tx and the loads; everyone:
   try_wait.parity), descriptors with the matching layout type, LBO and
   SBO (dlcGpuWgmmaLayout; test/GPU/tma-layout.test checks the pairing).
   MLIR 22's nvgpu ops cover all of it (no inline PTX): the maps, the
   barriers and the loads lower through convert-nvgpu-to-nvvm; the
   descriptors are built with arith, as nvgpu.warpgroup.generate.descriptor
   fixes its own LBO / SBO for a 128B swizzle only. */

#include "gpu/gpu_wgmma.h"
#include "gpu/gpu_build.h"
#include "gpu/gpu_contraction.h"
#include "gpu/gpu_cost_model.h"
#include "support/attr_names.h"
#include "support/memref_views.h"
#include "support/scf_loops.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- Cost model and check ----------------------------------------------------------*/

enum { kSmemLimit = 48 * 1024, kMaxStages = 4 };

int64_t dlcGpuWgmmaSmemBytes(int64_t bn, int64_t bk, int64_t stages) {
  return stages * (kWgmmaM * bk + bk * bn) * 2;
}

DlcWgmmaLayout dlcGpuWgmmaLayout(int64_t bn, int64_t bk, bool tma) {
  DlcWgmmaLayout l = {.stageA = kWgmmaM * bk * 2, .stageB = bk * bn * 2};
  if (tma) { /* rows of 2 BK (A) and 128 (B) bytes, 8-row swizzle patterns */
    l.swizzleA = 2 * bk;
    l.lboA = 16;               /* unused by a swizzled K-major operand (the ISA: "assumed 1") */
    l.sboA = 8 * l.swizzleA;   /* next 8 rows of m: the next pattern */
    l.stepA = kWgmmaK * 2;     /* k 16 = 32 bytes along the swizzled row */
    l.swizzleB = 128;
    l.lboB = bk * 128;         /* next 64 columns of n: the next box */
    l.sboB = 1024;             /* next 8 rows of k */
    l.stepB = kWgmmaK * 128;   /* k 16 = 16 rows of 128 bytes */
  } else { /* no swizzle: 8 x 16-byte core matrices (the file comment) */
    l.lboA = kWgmmaM * 16;
    l.sboA = 128;
    l.stepA = 2 * l.lboA;
    l.lboB = bn * 16;
    l.sboB = 128;
    l.stepB = 2 * l.lboB;
  }
  return l;
}

int64_t dlcGpuWgmmaSwizzleCode(int64_t bytes) {
  return bytes == 128 ? 1 : bytes == 64 ? 2 : bytes == 32 ? 3 : 0;
}

int64_t dlcGpuWgmmaTmaKTile(int64_t k, int64_t bn, int64_t stages) {
  static const int64_t kTiles[] = {64, 32, 16};
  for (size_t i = 0; i < sizeof kTiles / sizeof kTiles[0]; ++i)
    if (k % kTiles[i] == 0 &&
        dlcGpuWgmmaSmemBytes(bn, kTiles[i], stages) + kWgmmaTmaSlack <= kSmemLimit)
      return kTiles[i];
  return 0;
}

int64_t dlcGpuWgmmaKTile(int64_t k, int64_t bn) {
  static const int64_t kTiles[] = {64, 32, 16};
  for (size_t i = 0; i < sizeof kTiles / sizeof kTiles[0]; ++i)
    if (k % kTiles[i] == 0 && dlcGpuWgmmaSmemBytes(bn, kTiles[i], 2) <= kSmemLimit)
      return kTiles[i];
  return 16;
}

static int64_t stagesFor(int64_t bn, int64_t bk) {
  for (int64_t s = kMaxStages; s >= 2; --s)
    if (dlcGpuWgmmaSmemBytes(bn, bk, s) <= kSmemLimit)
      return s;
  return 0;
}

/* f16 x f16 or bf16 x bf16 (the output f32 or the same type): what
   dlcGpuMmaFor gives mma = [16, 8, 16] for. */
static bool wgmmaTypes(const DlcLinalgInfo *root) {
  int64_t mma[3];
  const char *why;
  return dlcGpuMmaFor(root, false, mma, &why) && mma[2] == 16;
}

bool dlcGpuWgmmaSchedule(const DlcLinalgInfo *root, DlcSchedule *s) {
  const DlcLoopNest *l = &root->loops;
  int n = l->numLoops, p = n - 1;
  if (!dlcIsGemmRoot(root) || !wgmmaTypes(root) || l->extent[p - 2] % kWgmmaM ||
      l->extent[p] % kWgmmaK)
    return false;
  int64_t batch = 1;
  for (int d = 0; d < p - 2; ++d)
    batch *= l->extent[d];
  static const int64_t kWidths[] = {128, 64};
  for (size_t i = 0; i < sizeof kWidths / sizeof kWidths[0]; ++i) {
    int64_t bn = kWidths[i];
    if (l->extent[p - 1] % bn ||
        batch * (l->extent[p - 2] / kWgmmaM) * (l->extent[p - 1] / bn) < kGpuSMs / 2)
      continue;
    memset(s, 0, sizeof *s);
    s->numWorkgroup = s->numThread = n;
    s->vectorWidth = 1;
    for (int d = 0; d < p - 2; ++d)
      s->workgroup[d] = 1;
    s->workgroup[p - 2] = s->thread[p - 2] = kWgmmaM;
    s->workgroup[p - 1] = s->thread[p - 1] = bn;
    s->mma[0] = kWgmmaM;
    s->mma[1] = bn;
    s->mma[2] = kWgmmaK;
    s->stages = stagesFor(bn, dlcGpuWgmmaKTile(l->extent[p], bn));
    return true;
  }
  return false;
}

bool dlcGpuWgmmaOperandsLoaded(const DlcLinalgInfo *ops, int n, int root) {
  for (intptr_t i = 0; i < 2; ++i) {
    MlirValue v = mlirOperationGetOperand(ops[root].op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation def = mlirOpResultGetOwner(v);
    for (int j = 0; j < n; ++j)
      if (j != root && mlirOperationEqual(ops[j].op, def))
        return false;
  }
  return true;
}

bool dlcGpuWgmmaCheck(const DlcLinalgInfo *root, const DlcSchedule *s, bool chipHasWgmma,
                      char *msg, size_t size) {
  const DlcLoopNest *l = &root->loops;
  int n = l->numLoops, p = n - 1;
  long long bn = (long long)s->mma[1];
  if (!chipHasWgmma) {
    snprintf(msg, size,
             "#dlk.schedule mma = [64, %lld, 16] (wgmma.mma_async) needs chip sm_90a; this "
             "target has no wgmma (mma = [16, 8, 16] is mma.sync)",
             bn);
    return false;
  }
  if (!dlcIsGemmRoot(root) || !wgmmaTypes(root)) {
    snprintf(msg, size,
             "#dlk.schedule mma = [64, %lld, 16] (wgmma.mma_async) applies to f16 or bf16 "
             "[batch.., m, n, k] contractions only",
             bn);
    return false;
  }
  bool batchOk = true;
  for (int d = 0; d < p - 2; ++d)
    batchOk = batchOk && (s->workgroup[d] == 1 || l->extent[d] == 1) && s->thread[d] == 0;
  if (!batchOk || s->workgroup[p - 2] != kWgmmaM || s->thread[p - 2] != kWgmmaM ||
      s->workgroup[p - 1] != bn || s->thread[p - 1] != bn || l->extent[p - 2] % kWgmmaM ||
      l->extent[p - 1] % bn || l->extent[p] % kWgmmaK) {
    snprintf(msg, size,
             "#dlk.schedule mma = [64, %lld, 16] (wgmma.mma_async): a block is one warpgroup, "
             "so the workgroup and thread tiles of [m, n] must both be [64, %lld] (batch loops "
             "tiled by one), dividing m x n = %lld x %lld, and k (%lld) a multiple of 16",
             bn, bn, (long long)l->extent[p - 2], (long long)l->extent[p - 1],
             (long long)l->extent[p]);
    return false;
  }
  int64_t bk = dlcGpuWgmmaKTile(l->extent[p], bn);
  int64_t bytes = dlcGpuWgmmaSmemBytes(bn, bk, s->stages);
  if (s->stages < 2 || bytes > kSmemLimit) {
    snprintf(msg, size,
             "#dlk.schedule stages = %lld with mma = [64, %lld, 16]: wgmma reads A and B from "
             "shared memory, so stages must be at least 2, and the staged tiles (64 x %lld and "
             "%lld x %lld a stage) need %lld bytes, at most %d",
             (long long)s->stages, bn, (long long)bk, (long long)bk, bn, (long long)bytes,
             (int)kSmemLimit);
    return false;
  }
  return true;
}

/*--- The rewrite ---------------------------------------------------------------------*/

static void op0(DlcBuilder *b, const char *name, intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  dlcGpuOp(b, name, 0, NULL, (MlirType){NULL}, nAttrs, attrs);
}

/* A memref.global of `shape` (text, "AxBx..") in shared memory, `align`
   bytes aligned (128 for cp.async's layouts, 1024 for a 128B swizzle
   pattern: TMA and the descriptors' base offset 0 assume it), and its
   memref.get_global. */
static MlirValue sharedBuffer(DlcBuilder *b, MlirOperation module, const char *shape,
                              MlirType elt, int align) {
  MlirContext ctx = b->context;
  char name[64], text[512];
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  for (int i = 0;; ++i) { /* the first free name (dlc-gpu-mma's naming) */
    snprintf(name, sizeof name, "__dlc_smem_%d", i);
    if (mlirOperationIsNull(mlirSymbolTableLookup(table, str(name))))
      break;
  }
  mlirSymbolTableDestroy(table);
  const char *e = mlirTypeIsABF16(elt) ? "bf16" : "f16";
  snprintf(text, sizeof text,
           "memref.global \"private\" @%s : memref<%sx%s, #gpu.address_space<workgroup>> "
           "{alignment = %d : i64}",
           name, shape, e, align);
  MlirOperation g = mlirOperationCreateParse(ctx, str(text), str("dlc-gpu-mma"));
  MlirBlock top = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  mlirBlockInsertOwnedOperation(top, 0, g);
  snprintf(text, sizeof text, "memref<%sx%s, #gpu.address_space<workgroup>>", shape, e);
  MlirNamedAttribute n = dlcNamed(ctx, "name", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  return dlcGpuRes(
      dlcGpuOp(b, "memref.get_global", 0, NULL, mlirTypeParseGet(ctx, str(text)), 1, &n));
}

typedef struct {
  MlirValue src, dst; /* the block's global tile; the shared buffer */
  int64_t rows, cols; /* of the global tile copied a stage */
  bool bLayout;       /* smB's [kc][nc][r][..] layout, else smA's [kc][m][..] */
} Operand;

/* cp.async of one stage: chunk c (16 bytes, 8 elements) of the rows x
   cols tile at (row0, col0) is row c / (cols / 8), column chunk c % (cols / 8):
   adjacent threads read adjacent 16 bytes of a global row. Returns the
   tokens of the unguarded copies. */
static int copyStage(DlcBuilder *b, const Operand *o, MlirValue stage, MlirValue row0,
                     MlirValue col0, MlirValue tid, MlirValue *tokens) {
  MlirContext ctx = b->context;
  int64_t perRow = o->cols / 8, total = o->rows * perRow;
  MlirType token = mlirTypeParseGet(ctx, str("!nvgpu.device.async.token"));
  int n = 0;
  for (int64_t first = 0; first < total; first += kWgmmaThreads) {
    MlirValue c = first ? dlcGpuBinIndex(b, "arith.addi", tid, first) : tid;
    DlcBuilder at = *b;
    bool guarded = first + kWgmmaThreads > total;
    if (guarded) /* the last round: threads past the tile skip */
      at = dlcGpuIfThen(b, dlcGpuCmpUlt(b, c, total));
    MlirValue r = dlcGpuBinIndex(&at, "arith.divui", c, perRow);
    MlirValue cc = dlcGpuBinIndex(&at, "arith.remui", c, perRow);
    MlirValue ops[16];
    int k = 0, nd = 0;
    ops[k++] = o->dst;
    ops[k++] = stage;
    if (o->bLayout) { /* [stage][r / 8][cc][r % 8][0] */
      ops[k++] = dlcGpuBinIndex(&at, "arith.divui", r, 8);
      ops[k++] = cc;
      ops[k++] = dlcGpuBinIndex(&at, "arith.remui", r, 8);
    } else { /* [stage][cc][r][0] */
      ops[k++] = cc;
      ops[k++] = r;
    }
    ops[k++] = dlcGpuIndex(&at, 0);
    nd = k - 1;
    ops[k++] = o->src;
    intptr_t sr = mlirShapedTypeGetRank(mlirValueGetType(o->src));
    for (intptr_t d = 0; d + 2 < sr; ++d)
      ops[k++] = dlcGpuIndex(&at, 0);
    ops[k++] = dlcGpuBin(&at, "arith.addi", row0, r);
    ops[k++] = dlcGpuBin(&at, "arith.addi", col0, dlcGpuBinIndex(&at, "arith.muli", cc, 8));
    MlirNamedAttribute attrs[3] = {
        dlcNamed(ctx, "dstElements", mlirIntegerAttrGet(mlirIndexTypeGet(ctx), 8)),
        dlcNamed(ctx, "bypassL1", mlirUnitAttrGet(ctx)),
        dlcNamed(ctx, "operandSegmentSizes",
                 mlirDenseI32ArrayGet(ctx, 5, (int32_t[]){1, nd, 1, (int32_t)sr, 0}))};
    MlirValue tok = dlcGpuRes(dlcGpuOp(&at, "nvgpu.device_async_copy", k, ops, token, 3, attrs));
    if (!guarded)
      tokens[n++] = tok;
  }
  return n;
}

static MlirValue commitGroup(DlcBuilder *b, int n, const MlirValue *tokens) {
  MlirType token = mlirTypeParseGet(b->context, str("!nvgpu.device.async.token"));
  return dlcGpuRes(dlcGpuOp(b, "nvgpu.device_async_create_group", n, tokens, token, 0, NULL));
}

static void asyncWait(DlcBuilder *b, MlirValue group, int64_t n) {
  MlirNamedAttribute ng =
      dlcNamed(b->context, "numGroups", mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 32), n));
  dlcGpuOp(b, "nvgpu.device_async_wait", 1, &group, (MlirType){NULL}, 1, &ng);
}

/* The shared-window address of `buf` as i64 (ptrtoint of its
   workgroup-space pointer: what a descriptor's address field encodes). */
static MlirValue sharedAddress(DlcBuilder *b, MlirValue buf) {
  MlirContext ctx = b->context;
  MlirValue p = dlcGpuRes(dlcGpuOp(b, "memref.extract_aligned_pointer_as_index", 1, &buf,
                                   mlirIndexTypeGet(ctx), 0, NULL));
  return dlcGpuRes(dlcGpuOp(b, "arith.index_cast", 1, &p, mlirIntegerTypeGet(ctx, 64), 0, NULL));
}

/* desc = ((addr & 0x3FFFF) >> 4) | (LBO >> 4) << 16 | (SBO >> 4) << 32
   | layout type << 62 (of the swizzle span, bytes), base offset 0 (the
   buffers are aligned to the swizzle pattern). */
static MlirValue descriptor(DlcBuilder *b, MlirValue addr, int64_t lbo, int64_t sbo,
                            int64_t swizzle) {
  MlirType i64 = mlirIntegerTypeGet(b->context, 64);
  MlirValue a = dlcGpuBin(b, "arith.andi", addr, dlcGpuConstInt(b, i64, 0x3FFFF));
  a = dlcGpuBin(b, "arith.shrui", a, dlcGpuConstInt(b, i64, 4));
  uint64_t layout = (uint64_t)dlcGpuWgmmaSwizzleCode(swizzle) << 62;
  return dlcGpuBin(b, "arith.ori", a,
                   dlcGpuConstInt(b, i64,
                                  ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (int64_t)layout));
}

static MlirValue extractValue(DlcBuilder *b, MlirValue s, int64_t i, MlirType t) {
  MlirNamedAttribute pos = dlcNamedI64Array(b->context, "position", 1, (int64_t[]){i});
  return dlcGpuRes(dlcGpuOp(b, "llvm.extractvalue", 1, &s, t, 1, &pos));
}

/* An scf.for from 0 to `ub` carrying one value of `type` from `init`. */
static MlirOperation buildFor(DlcBuilder *b, int64_t ub, MlirType type, MlirValue init,
                              MlirBlock *body) {
  MlirValue ops[4] = {dlcGpuIndex(b, 0), dlcGpuIndex(b, ub), dlcGpuIndex(b, 1), init};
  MlirType argTypes[2] = {mlirIndexTypeGet(b->context), type};
  MlirLocation argLocs[2] = {b->loc, b->loc};
  MlirRegion region = mlirRegionCreate();
  *body = mlirBlockCreate(2, argTypes, argLocs);
  mlirRegionAppendOwnedBlock(region, *body);
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), b->loc);
  mlirOperationStateAddOperands(&st, 4, ops);
  mlirOperationStateAddResults(&st, 1, &type);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

/* One wgmma.mma_async m64nNk16 on `acc`. */
static MlirValue wgmma(DlcBuilder *b, MlirValue descA, MlirValue descB, MlirValue acc, int64_t n,
                       bool bf16) {
  MlirContext ctx = b->context;
  char shape[64];
  snprintf(shape, sizeof shape, "#nvvm.shape<m = 64, n = %lld, k = 16>", (long long)n);
  const char *ty = bf16 ? "#nvvm.wgmma_type<bf16>" : "#nvvm.wgmma_type<f16>";
  const char *const kAttrs[][2] = {
      {"shape", shape},
      {"typeA", ty},
      {"typeB", ty},
      {"typeD", "#nvvm.wgmma_type<f32>"},
      {"scaleD", "#nvvm.wgmma_scale_out<one>"},
      {"scaleA", "#nvvm.wgmma_scale_in<one>"},
      {"scaleB", "#nvvm.wgmma_scale_in<one>"},
      {"layoutA", "#nvvm.mma_layout<row>"}, /* K-major: imm-trans-a 0 */
      {"layoutB", "#nvvm.mma_layout<row>"}, /* N-major: imm-trans-b 1 */
  };
  MlirNamedAttribute attrs[9];
  for (int i = 0; i < 9; ++i)
    attrs[i] = dlcNamed(ctx, kAttrs[i][0], mlirAttributeParseGet(ctx, str(kAttrs[i][1])));
  MlirValue ops[3] = {acc, descA, descB};
  return dlcGpuRes(dlcGpuOp(b, "nvvm.wgmma.mma_async", 3, ops, mlirValueGetType(acc), 9, attrs));
}

/* The warpgroup forall has one trip (its tile is the block's): its body
   moves into the block with the induction variables 0, so dlc-gpu-map
   sees no nested forall and all 128 threads run it. */
static void inlineWarpgroup(MlirOperation warp) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(warp, 0));
  DlcBuilder b = dlcBuilderBefore(warp, mlirOperationGetLocation(warp));
  MlirValue zero = dlcGpuIndex(&b, 0);
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(body); ++i)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, i), zero);
  MlirOperation op = mlirBlockGetFirstOperation(body);
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (mlirOperationIsNull(next))
      break; /* the terminator (scf.forall.in_parallel) */
    mlirOperationMoveBefore(op, warp);
    op = next;
  }
  mlirOperationDestroy(warp);
}

/*--- TMA (the 128B-swizzled pipeline) -------------------------------------------------*/

/* The type text of a rows x cols box of `e` (f16 / bf16) in shared
   memory with a swizzle span of `swizzle` bytes, zero fill out of bounds. */
static void tensorMapType(char *text, size_t n, int64_t rows, int64_t cols, int64_t swizzle,
                          const char *e) {
  snprintf(text, n,
           "!nvgpu.tensormap.descriptor<tensor = memref<%lldx%lldx%s, "
           "#gpu.address_space<workgroup>>, swizzle = swizzle_%lldb, l2promo = none, oob = zero, "
           "interleave = none>",
           (long long)rows, (long long)cols, e, (long long)swizzle);
}

typedef struct {
  MlirValue map;        /* in the kernel: the tensor map (an i64 kernel argument cast back) */
  MlirValue row0, col0; /* the block tile's first row and column in the 2-D view */
} TmaOperand;

/* The tensor map of the buffer the block tile `tile` (a memref.subview of
   [1.., rows, cols] with unit strides) is cut from: a host buffer with the
   identity layout, viewed as 2-D [outer dims x rows, cols]. Built before
   `blockForall` (on the host: nvgpu.tma.create.descriptor, i.e.
   mgpuTensorMapEncodeTiledMemref a launch), passed into the kernel as an
   i64 (a tensor map type would reach the kernel signature, which
   convert-gpu-to-nvvm cannot convert). False, nothing built, where the
   tile is not such a view (or `out` is NULL): the cp.async path then. */
static bool tmaOperand(DlcBuilder *b, MlirValue tile, MlirOperation blockForall, int64_t rows,
                       int64_t cols, int64_t boxRows, int64_t boxCols, int64_t swizzle,
                       TmaOperand *out) { /* out NULL: only whether it can */
  MlirContext ctx = b->context;
  if (!mlirValueIsAOpResult(tile) || !dlcOpIs(mlirOpResultGetOwner(tile), "memref.subview"))
    return false;
  MlirOperation sv = mlirOpResultGetOwner(tile);
  MlirValue root = mlirOperationGetOperand(sv, 0);
  MlirType rt = mlirValueGetType(root);
  if (!dlcDefinedOutside(root, blockForall) || !mlirTypeIsAMemRef(rt) || !mlirShapedTypeHasStaticShape(rt))
    return false;
  if (!dlcMemRefIsIdentityLayout(rt))
    return false;
  intptr_t r = mlirShapedTypeGetRank(rt);
  MlirAttribute offs = mlirOperationGetAttributeByName(sv, str("static_offsets"));
  MlirAttribute sizes = mlirOperationGetAttributeByName(sv, str("static_sizes"));
  MlirAttribute strides = mlirOperationGetAttributeByName(sv, str("static_strides"));
  if (r < 2 || r > 5 || mlirDenseArrayGetNumElements(offs) != r)
    return false;
  for (intptr_t d = 0; d < r; ++d) {
    int64_t want = d == r - 2 ? rows : d == r - 1 ? cols : 1;
    if (mlirDenseI64ArrayGetElement(sizes, d) != want ||
        mlirDenseI64ArrayGetElement(strides, d) != 1)
      return false;
  }
  /* byte strides of the outer dims must be multiples of 16 (TMA) */
  if ((mlirShapedTypeGetDimSize(rt, r - 1) * 2) % 16)
    return false;
  if (!out)
    return true;
  /* the tile's start in the 2-D view: row = the linear offset / cols */
  MlirValue off[5];
  intptr_t dyn = 1;
  for (intptr_t d = 0; d < r; ++d) {
    int64_t o = mlirDenseI64ArrayGetElement(offs, d);
    off[d] = o == mlirShapedTypeGetDynamicStrideOrOffset() ? mlirOperationGetOperand(sv, dyn++)
                                                           : dlcGpuIndex(b, o);
  }
  MlirValue row = off[0];
  for (intptr_t d = 1; d + 1 < r; ++d)
    row = dlcGpuBin(b, "arith.addi",
                    dlcGpuBinIndex(b, "arith.muli", row, mlirShapedTypeGetDimSize(rt, d)), off[d]);
  out->row0 = row;
  out->col0 = off[r - 1];

  /* on the host: the 2-D view, unranked, its tensor map, as an i64 */
  DlcBuilder h = dlcBuilderBefore(blockForall, b->loc);
  MlirType elt = mlirShapedTypeGetElementType(rt);
  const char *e = mlirTypeIsABF16(elt) ? "bf16" : "f16";
  int64_t outer = 1;
  for (intptr_t d = 0; d + 1 < r; ++d)
    outer *= mlirShapedTypeGetDimSize(rt, d);
  int64_t cols2 = mlirShapedTypeGetDimSize(rt, r - 1);
  char text[512];
  MlirValue view = root;
  if (r > 2) {
    MlirAttribute groups[2];
    MlirAttribute lead[4];
    for (intptr_t d = 0; d + 1 < r; ++d)
      lead[d] = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), d);
    groups[0] = mlirArrayAttrGet(ctx, r - 1, lead);
    MlirAttribute last = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), r - 1);
    groups[1] = mlirArrayAttrGet(ctx, 1, &last);
    MlirNamedAttribute re = dlcNamed(ctx, "reassociation", mlirArrayAttrGet(ctx, 2, groups));
    snprintf(text, sizeof text, "memref<%lldx%lldx%s>", (long long)outer, (long long)cols2, e);
    view = dlcGpuRes(dlcGpuOp(&h, "memref.collapse_shape", 1, &root,
                              mlirTypeParseGet(ctx, str(text)), 1, &re));
  }
  snprintf(text, sizeof text, "memref<*x%s>", e);
  MlirValue unranked =
      dlcGpuRes(dlcGpuOp(&h, "memref.cast", 1, &view, mlirTypeParseGet(ctx, str(text)), 0, NULL));
  tensorMapType(text, sizeof text, boxRows, boxCols, swizzle, e);
  MlirType mapT = mlirTypeParseGet(ctx, str(text));
  MlirValue ops[3] = {unranked, dlcGpuIndex(&h, boxRows), dlcGpuIndex(&h, boxCols)};
  MlirValue map = dlcGpuRes(dlcGpuOp(&h, "nvgpu.tma.create.descriptor", 3, ops, mapT, 0, NULL));
  MlirType ptr = mlirTypeParseGet(ctx, str("!llvm.ptr"));
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirValue p =
      dlcGpuRes(dlcGpuOp(&h, "builtin.unrealized_conversion_cast", 1, &map, ptr, 0, NULL));
  MlirValue bits = dlcGpuRes(dlcGpuOp(&h, "llvm.ptrtoint", 1, &p, i64, 0, NULL));
  /* in the kernel: back to the tensor map */
  MlirValue kp = dlcGpuRes(dlcGpuOp(b, "llvm.inttoptr", 1, &bits, ptr, 0, NULL));
  out->map =
      dlcGpuRes(dlcGpuOp(b, "builtin.unrealized_conversion_cast", 1, &kp, mapT, 0, NULL));
  return true;
}

typedef struct {
  TmaOperand a, b;
  MlirValue smemA, smemB; /* [S][64][64] and [S][N/64][64][64], 1024-byte aligned */
  MlirValue bars;         /* S mbarriers, one a stage */
  MlirType barT, boxA, boxB; /* [64][BK] and [BK][64] views of a stage */
  int64_t bk, n, bytes; /* bytes a stage (the barrier's transaction count) */
} Tma;

/* memref.subview of the box at [stage, 0, 0] of A's [S][64][BK] buffer,
   or at [stage, group, 0, 0] of B's [S][N/64][BK][64]. */
static MlirValue boxView(DlcBuilder *b, const Tma *t, bool isB, MlirValue stage, int64_t group) {
  MlirContext ctx = b->context;
  int64_t dynMark = mlirShapedTypeGetDynamicStrideOrOffset();
  intptr_t rank = isB ? 4 : 3;
  int64_t soA[3] = {dynMark, 0, 0}, ssA[3] = {1, kWgmmaM, t->bk};
  int64_t soB[4] = {dynMark, group, 0, 0}, ssB[4] = {1, 1, t->bk, kWgmmaTmaCols};
  int64_t strides[4] = {1, 1, 1, 1};
  MlirNamedAttribute attrs[4] = {
      dlcNamed(ctx, "static_offsets", mlirDenseI64ArrayGet(ctx, rank, isB ? soB : soA)),
      dlcNamed(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, rank, isB ? ssB : ssA)),
      dlcNamed(ctx, "static_strides", mlirDenseI64ArrayGet(ctx, rank, strides)),
      dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, (int32_t[]){1, 1, 0, 0}))};
  MlirValue ops[2] = {isB ? t->smemB : t->smemA, stage};
  return dlcGpuRes(dlcGpuOp(b, "memref.subview", 2, ops, isB ? t->boxB : t->boxA, 4, attrs));
}

/* Thread 0: the stage's barrier expects the stage's bytes, and TMA loads
   A's box (64 rows, the k tile at k0) and B's N / 64 boxes (the k tile at
   k0, 64 columns each) into stage `stage`. */
static void issueStage(DlcBuilder *b, const Tma *t, MlirValue stage, MlirValue k0) {
  MlirContext ctx = b->context;
  MlirValue tx[3] = {t->bars, dlcGpuIndex(b, t->bytes), stage};
  dlcGpuOp(b, "nvgpu.mbarrier.arrive.expect_tx", 3, tx, (MlirType){NULL}, 0, NULL);
  MlirNamedAttribute seg = dlcNamed(ctx, "operandSegmentSizes",
                                    mlirDenseI32ArrayGet(ctx, 7, (int32_t[]){1, 1, 1, 2, 1, 0, 0}));
  /* coordinates innermost first: (column, row) of the 2-D view */
  MlirValue a[6] = {boxView(b, t, false, stage, 0), t->bars, t->a.map,
                    dlcGpuBin(b, "arith.addi", t->a.col0, k0), t->a.row0, stage};
  dlcGpuOp(b, "nvgpu.tma.async.load", 6, a, (MlirType){NULL}, 1, &seg);
  for (int64_t g = 0; g < t->n / kWgmmaTmaCols; ++g) {
    MlirValue col = dlcGpuBinIndex(b, "arith.addi", t->b.col0, g * kWgmmaTmaCols);
    MlirValue o[6] = {boxView(b, t, true, stage, g), t->bars, t->b.map, col,
                      dlcGpuBin(b, "arith.addi", t->b.row0, k0), stage};
    dlcGpuOp(b, "nvgpu.tma.async.load", 6, o, (MlirType){NULL}, 1, &seg);
  }
}

/* All threads: wait until the stage's barrier completed phase `parity`
   (i1): its TMA bytes landed. */
static void waitStage(DlcBuilder *b, const Tma *t, MlirValue stage, MlirValue parity) {
  MlirValue ops[4] = {t->bars, parity, dlcGpuIndex(b, 10000000), stage};
  dlcGpuOp(b, "nvgpu.mbarrier.try_wait.parity", 4, ops, (MlirType){NULL}, 0, NULL);
}

static bool fail(MlirOperation at, const char *what) {
  mlirEmitError(mlirOperationGetLocation(at), what);
  return false;
}

bool dlcGpuWgmmaRewrite(const DlcMmaTile *t) {
  MlirContext ctx = mlirOperationGetContext(t->gemm);
  MlirLocation loc = mlirOperationGetLocation(t->gemm);
  DlcBuilder b = dlcBuilderBefore(t->gemm, loc);
  MlirType index = mlirIndexTypeGet(ctx), f32 = mlirF32TypeGet(ctx);
  MlirValue A = mlirOperationGetOperand(t->gemm, 0), B = mlirOperationGetOperand(t->gemm, 1);
  MlirType ab = mlirShapedTypeGetElementType(mlirValueGetType(A));
  MlirType accElt = mlirShapedTypeGetElementType(mlirValueGetType(t->acc));
  int64_t N = t->mma[1], S = t->stages, nAcc = N / 2;
  MlirValue blockA = dlcMmaBlockTile(A, t->warp), blockB = dlcMmaBlockTile(B, t->warp);
  if (t->wm != kWgmmaM || t->wn != N || S < 2)
    return fail(t->gemm, "dlc-gpu-mma: a wgmma warpgroup tile must be 64 x N of mma = [64, N, 16] "
                         "with at least 2 stages (the schedule check lets no other through)");
  if (mlirValueIsNull(blockA) || mlirValueIsNull(blockB))
    return fail(t->gemm, "dlc-gpu-mma: wgmma needs A and B read from memory outside the "
                         "warpgroup's tile (a producer fused into the tile cannot be staged "
                         "in shared memory for wgmma)");
  MlirOperation module = dlcGpuModuleOf(t->warp);
  MlirOperation blockForall = mlirOperationGetParentOperation(t->warp);
  const char *e = mlirTypeIsABF16(ab) ? "bf16" : "f16";
  /* TMA where both operands are boxes of row-major host buffers and the
     stages fit with TMA's slack (dlcGpuWgmmaTmaKTile); cp.async otherwise */
  int64_t bk = dlcGpuWgmmaTmaKTile(t->k, N, S);
  Tma tma = {.bk = bk, .n = N};
  DlcWgmmaLayout lay = dlcGpuWgmmaLayout(N, bk, true);
  bool useTma = bk && N % kWgmmaTmaCols == 0 &&
                tmaOperand(&b, blockA, blockForall, kWgmmaM, t->k, 0, 0, 0, NULL) &&
                tmaOperand(&b, blockB, blockForall, t->k, N, 0, 0, 0, NULL);
  if (useTma) {
    tmaOperand(&b, blockA, blockForall, kWgmmaM, t->k, kWgmmaM, bk, lay.swizzleA, &tma.a);
    tmaOperand(&b, blockB, blockForall, t->k, N, bk, kWgmmaTmaCols, lay.swizzleB, &tma.b);
  }
  if (!useTma) {
    bk = dlcGpuWgmmaKTile(t->k, N);
    lay = dlcGpuWgmmaLayout(N, bk, false);
  }
  int64_t nK = t->k / bk;

  char shapeA[96], shapeB[96];
  Operand oa = {.src = blockA, .rows = kWgmmaM, .cols = bk, .bLayout = false};
  Operand ob = {.src = blockB, .rows = bk, .cols = N, .bLayout = true};
  if (useTma) {
    snprintf(shapeA, sizeof shapeA, "%lldx64x%lld", (long long)S, (long long)bk);
    snprintf(shapeB, sizeof shapeB, "%lldx%lldx%lldx64", (long long)S, (long long)(N / 64),
             (long long)bk);
    oa.dst = sharedBuffer(&b, module, shapeA, ab, 1024);
    ob.dst = sharedBuffer(&b, module, shapeB, ab, 1024);
    char text[512];
    snprintf(text, sizeof text,
             "memref<64x%lldx%s, strided<[%lld, 1], offset: ?>, #gpu.address_space<workgroup>>",
             (long long)bk, e, (long long)bk);
    tma.boxA = mlirTypeParseGet(ctx, str(text));
    snprintf(text, sizeof text,
             "memref<%lldx64x%s, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>",
             (long long)bk, e);
    tma.boxB = mlirTypeParseGet(ctx, str(text));
    snprintf(text, sizeof text,
             "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
             "num_barriers = %lld>",
             (long long)S);
    tma.barT = mlirTypeParseGet(ctx, str(text));
    tma.smemA = oa.dst;
    tma.smemB = ob.dst;
    tma.bytes = lay.stageA + lay.stageB;
  } else {
    snprintf(shapeA, sizeof shapeA, "%lldx%lldx64x8", (long long)S, (long long)(bk / 8));
    snprintf(shapeB, sizeof shapeB, "%lldx%lldx%lldx8x8", (long long)S, (long long)(bk / 8),
             (long long)(N / 8));
    oa.dst = sharedBuffer(&b, module, shapeA, ab, 128);
    ob.dst = sharedBuffer(&b, module, shapeB, ab, 128);
  }
  MlirValue addrA = sharedAddress(&b, oa.dst), addrB = sharedAddress(&b, ob.dst);

  MlirNamedAttribute dx =
      dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim x>")));
  MlirValue tid = dlcGpuRes(dlcGpuOp(&b, "gpu.thread_id", 0, NULL, index, 1, &dx));
  MlirValue warp = dlcGpuBinIndex(&b, "arith.divui", tid, 32);
  MlirValue lane = dlcGpuBinIndex(&b, "arith.remui", tid, 32);
  MlirValue g = dlcGpuBinIndex(&b, "arith.divui", lane, 4);
  MlirValue t2 = dlcGpuBinIndex(&b, "arith.muli", dlcGpuBinIndex(&b, "arith.remui", lane, 4), 2);
  MlirValue zero = dlcGpuIndex(&b, 0), tokens[64];
  MlirValue isLeader = {NULL};

  /* prologue: tiles 0 .. S - 2 */
  MlirValue group = {NULL};
  if (useTma) { /* thread 0 sets up the barriers (count 1: its arrive), issues the loads */
    tma.bars = dlcGpuRes(dlcGpuOp(&b, "nvgpu.mbarrier.create", 0, NULL, tma.barT, 0, NULL));
    isLeader = dlcGpuCmpUlt(&b, tid, 1);
    DlcBuilder lead = dlcGpuIfThen(&b, isLeader);
    for (int64_t s0 = 0; s0 < S; ++s0) {
      MlirValue ops[3] = {tma.bars, dlcGpuIndex(&lead, 1), dlcGpuIndex(&lead, s0)};
      dlcGpuOp(&lead, "nvgpu.mbarrier.init", 3, ops, (MlirType){NULL}, 0, NULL);
    }
    /* the inits visible to the async proxy TMA completes through (as
       CUTLASS's fence_barrier_init) */
    op0(&lead, "nvvm.fence.mbarrier.init", 0, NULL);
    for (int64_t s0 = 0; s0 + 1 < S && s0 < nK; ++s0)
      issueStage(&lead, &tma, dlcGpuIndex(&lead, s0), dlcGpuIndex(&lead, s0 * bk));
    op0(&b, "gpu.barrier", 0, NULL); /* the barriers are initialised for everyone */
  } else { /* one group each (a repeated last tile lands in a stage never read) */
    for (int64_t s0 = 0; s0 + 1 < S; ++s0) {
      int64_t kt = s0 < nK ? s0 : nK - 1;
      MlirValue stage = dlcGpuIndex(&b, s0), k0 = dlcGpuIndex(&b, kt * bk);
      int n = copyStage(&b, &oa, stage, zero, k0, tid, tokens);
      n += copyStage(&b, &ob, stage, k0, zero, tid, tokens + n);
      group = commitGroup(&b, n, tokens);
    }
  }

  /* accumulators: N / 2 f32 a thread, all the fill's value */
  char accText[4096];
  int w = snprintf(accText, sizeof accText, "!llvm.struct<(");
  for (int64_t i = 0; i < nAcc; ++i)
    w += snprintf(accText + w, sizeof accText - (size_t)w, "%sf32", i ? ", " : "");
  snprintf(accText + w, sizeof accText - (size_t)w, ")>");
  MlirType accT = mlirTypeParseGet(ctx, str(accText));
  MlirValue init = dlcMmaConvert(&b, mlirOperationGetOperand(t->fill, 0), f32);
  MlirValue accV = dlcGpuRes(dlcGpuOp(&b, "llvm.mlir.undef", 0, NULL, accT, 0, NULL));
  for (int64_t i = 0; i < nAcc; ++i) {
    MlirNamedAttribute pos = dlcNamedI64Array(ctx, "position", 1, (int64_t[]){i});
    MlirValue ops[2] = {accV, init};
    accV = dlcGpuRes(dlcGpuOp(&b, "llvm.insertvalue", 2, ops, accT, 1, &pos));
  }

  MlirBlock body;
  MlirOperation loop = buildFor(&b, nK, accT, accV, &body);
  DlcBuilder in = dlcBuilderAtEnd(body, loc);
  MlirValue kt = mlirBlockGetArgument(body, 0), acc = mlirBlockGetArgument(body, 1);
  MlirValue stage = dlcGpuBinIndex(&in, "arith.remui", kt, S);
  MlirValue next = dlcGpuBinIndex(&in, "arith.addi", kt, S - 1);
  MlirValue nstage = dlcGpuBinIndex(&in, "arith.remui", next, S);
  if (useTma) {
    /* tile kt is the (kt / S)-th load into its stage: phase parity (kt / S) % 2 */
    MlirValue ph = dlcGpuBinIndex(&in, "arith.remui", dlcGpuBinIndex(&in, "arith.divui", kt, S), 2);
    MlirValue odd = dlcGpuRes(
        dlcGpuOp(&in, "arith.index_cast", 1, &ph, mlirIntegerTypeGet(ctx, 1), 0, NULL));
    waitStage(&in, &tma, stage, odd);
    op0(&in, "gpu.barrier", 0, NULL); /* every warp passed the last wgmma wait: nstage is free */
    MlirValue more = dlcGpuCmpUlt(&in, next, nK);
    MlirValue go = dlcGpuBin(&in, "arith.andi", isLeader, more);
    DlcBuilder lead = dlcGpuIfThen(&in, go);
    issueStage(&lead, &tma, nstage, dlcGpuBinIndex(&lead, "arith.muli", next, bk));
  } else {
    asyncWait(&in, group, S - 2); /* this thread's copies of tile kt landed */
    MlirNamedAttribute fence[2] = {
        dlcNamed(ctx, "kind", mlirAttributeParseGet(ctx, str("#nvvm.proxy_kind<async.shared>"))),
        dlcNamed(ctx, "space", mlirAttributeParseGet(ctx, str("#nvvm.shared_space<cta>")))};
    op0(&in, "nvvm.fence.proxy", 2, fence); /* visible to wgmma's async proxy */
    op0(&in, "gpu.barrier", 0, NULL);       /* everyone's; the stage below is free */
    MlirValue nextC = dlcGpuBin(&in, "arith.minui", next, dlcGpuIndex(&in, nK - 1));
    MlirValue k0 = dlcGpuBinIndex(&in, "arith.muli", nextC, bk);
    int n = copyStage(&in, &oa, nstage, dlcGpuIndex(&in, 0), k0, tid, tokens);
    n += copyStage(&in, &ob, nstage, k0, dlcGpuIndex(&in, 0), tid, tokens + n);
    commitGroup(&in, n, tokens);
  }
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirValue stage64 = dlcGpuRes(dlcGpuOp(&in, "arith.index_cast", 1, &stage, i64, 0, NULL));
  MlirValue baseA =
      dlcGpuBin(&in, "arith.addi", addrA,
                dlcGpuBin(&in, "arith.muli", stage64, dlcGpuConstInt(&in, i64, lay.stageA)));
  MlirValue baseB =
      dlcGpuBin(&in, "arith.addi", addrB,
                dlcGpuBin(&in, "arith.muli", stage64, dlcGpuConstInt(&in, i64, lay.stageB)));
  op0(&in, "nvvm.wgmma.fence.aligned", 0, NULL);
  for (int64_t ks = 0; ks < bk / kWgmmaK; ++ks) {
    MlirValue da = descriptor(
        &in, dlcGpuBin(&in, "arith.addi", baseA, dlcGpuConstInt(&in, i64, ks * lay.stepA)),
        lay.lboA, lay.sboA, lay.swizzleA);
    MlirValue db = descriptor(
        &in, dlcGpuBin(&in, "arith.addi", baseB, dlcGpuConstInt(&in, i64, ks * lay.stepB)),
        lay.lboB, lay.sboB, lay.swizzleB);
    acc = wgmma(&in, da, db, acc, N, mlirTypeIsABF16(ab));
  }
  op0(&in, "nvvm.wgmma.commit.group.sync.aligned", 0, NULL);
  MlirNamedAttribute wg =
      dlcNamed(ctx, "group", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 0));
  op0(&in, "nvvm.wgmma.wait.group.sync.aligned", 1, &wg);
  dlcGpuOp(&in, "scf.yield", 1, &acc, (MlirType){NULL}, 0, NULL);
  if (!useTma)
    asyncWait(&b, group, 0); /* no copy in flight when the block moves on */
  /* (TMA: no load is issued past the last tile, and each was waited for) */

  /* the epilogue per accumulator element, where the epilogue was */
  b = dlcBuilderBefore(mlirOperationIsNull(t->epilogue) ? t->gemm : t->epilogue, loc);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(t->acc));
  MlirValue idx[DLC_SCHEDULE_MAX_LOOPS];
  for (intptr_t d = 0; d + 2 < rank; ++d)
    idx[d] = dlcGpuIndex(&b, 0);
  MlirValue row0 = dlcGpuBin(&b, "arith.addi", dlcGpuBinIndex(&b, "arith.muli", warp, 16), g);
  MlirValue result = dlcGpuRes(loop);
  for (int64_t i = 0; i < nAcc; ++i) {
    MlirValue v = dlcMmaConvert(&b, extractValue(&b, result, i, f32), accElt);
    idx[rank - 2] = dlcGpuBinIndex(&b, "arith.addi", row0, 8 * ((i / 2) % 2));
    idx[rank - 1] = dlcGpuBinIndex(&b, "arith.addi", t2, 8 * (i / 4) + i % 2);
    if (mlirOperationIsNull(t->epilogue)) {
      MlirValue ops[2 + DLC_SCHEDULE_MAX_LOOPS];
      ops[0] = v;
      ops[1] = t->acc;
      for (intptr_t d = 0; d < rank; ++d)
        ops[2 + d] = idx[d];
      dlcGpuOp(&b, "memref.store", 2 + rank, ops, (MlirType){NULL}, 0, NULL);
    } else if (!dlcMmaEpilogueAt(&b, t, v, idx)) {
      return false;
    }
  }
  if (!mlirOperationIsNull(t->epilogue))
    mlirOperationDestroy(t->epilogue);
  mlirOperationDestroy(t->gemm);
  mlirOperationDestroy(t->fill);
  inlineWarpgroup(t->warp);
  return true;
}
