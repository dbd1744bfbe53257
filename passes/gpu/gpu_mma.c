/* --dlc-gpu-mma: after bufferisation, each warp's contraction that
   dlc-gpu-schedule marked (a forall mapped to #gpu.warp with `dlc.mma`)
   becomes tensor-core code (docs/gpu.md, "Contractions"):

     %lane = gpu.lane_id; g = lane / 4, t = lane % 4
     scf.for k0 (step K of the mma) iter_args(one vector<2x2xf32> per
             16 x 8 tile of the warp's tile):
       per 16-row tile i: A fragment loaded at the rows and columns the
         PTX ISA gives lane (g, t) for mma.m16n8k16 (f16) / m16n8k8 (tf32)
       per 8-column tile j: B fragment likewise
       nvgpu.mma.sync per (i, j)
     the epilogue: lanes regroup the accumulators by shuffles so that each
       holds 4 (f32) or 8 (16-bit) adjacent columns of a row (gpu_build.h);
       the epilogue's body cloned once per element there, its other
       operands loaded there, then one 16-byte vector.store.

   The fill that zeroed the accumulator, the contraction and the epilogue
   are erased: the accumulators never leave registers and the epilogue
   (bias, activation, residual) is applied to them in registers. f16
   accumulates in f32 (rounded once, at the end). A warp tile whose ops do
   not have this shape is an error naming the op: the schedule chose
   tensor cores, and running the contraction on every lane would hide it.

   Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16" and
   "mma.m16n8k8" with .tf32): lane = 4 g + t;
     f16  A (4 x f16x2): (g, 2t+{0,1}), (g+8, 2t+{0,1}), (g, 2t+8+{0,1}), (g+8, 2t+8+{0,1})
          B (2 x f16x2): (2t+{0,1}, g), (2t+8+{0,1}, g)
     tf32 A (4 x 1):     (g, t), (g+8, t), (g, t+4), (g+8, t+4)
          B (2 x 1):     (t, g), (t+4, g)
     C (f32, 2 x 2):     (g, 2t+{0,1}), (g+8, 2t+{0,1}) */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "gpu/gpu_build.h"
#include "gpu/gpu_contraction.h"
#include "gpu/gpu_wgmma.h"
#include "gpu/gpu_mma.h"
#include "schedule/analysis.h"
#include "support/attr_names.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/NVGPU.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

enum { kMaxTiles = 64 };

static MlirValue addIndex(DlcBuilder *b, MlirValue x, int64_t c) {
  if (c == 0)
    return x;
  MlirValue ops[2] = {x, dlcGpuIndex(b, c)};
  return dlcGpuRes(dlcGpuOp(b, "arith.addi", 2, ops, mlirIndexTypeGet(b->context), 0, NULL));
}

/* memref.load of `m` at [stage, row, col] when `stage` is set (a shared
   tile), else at [0.., row, col] (leading dims: the batch, one). */
static MlirValue loadAt(DlcBuilder *b, MlirValue m, MlirValue stage, MlirValue row, MlirValue col) {
  MlirType t = mlirValueGetType(m);
  intptr_t r = mlirShapedTypeGetRank(t);
  MlirValue ops[1 + DLC_SCHEDULE_MAX_LOOPS];
  ops[0] = m;
  for (intptr_t d = 0; d + 2 < r; ++d)
    ops[1 + d] = mlirValueIsNull(stage) ? dlcGpuIndex(b, 0) : stage;
  ops[r - 1] = row;
  ops[r] = col;
  return dlcGpuRes(
      dlcGpuOp(b, "memref.load", 1 + r, ops, mlirShapedTypeGetElementType(t), 0, NULL));
}

static MlirValue addValues(DlcBuilder *b, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return dlcGpuRes(dlcGpuOp(b, "arith.addi", 2, ops, mlirIndexTypeGet(b->context), 0, NULL));
}

static MlirValue fromElements(DlcBuilder *b, int n, const MlirValue *els, MlirType vt) {
  return dlcGpuRes(dlcGpuOp(b, "vector.from_elements", n, els, vt, 0, NULL));
}

MlirValue dlcMmaConvert(DlcBuilder *b, MlirValue v, MlirType to) {
  MlirType from = mlirValueGetType(v);
  if (mlirTypeEqual(from, to))
    return v;
  bool wider = mlirFloatTypeGetWidth(to) > mlirFloatTypeGetWidth(from);
  return dlcGpuRes(dlcGpuOp(b, wider ? "arith.extf" : "arith.truncf", 1, &v, to, 0, NULL));
}

/* MLIR 22's convert-nvgpu-to-nvvm rejects nvgpu.mma.sync on bf16 ("failed
   to deduce operand PTX types"), so bf16 tiles are nvvm.mma.sync, which
   takes each register of two bf16 as an i32 (docs/gpu.md). */
static MlirValue packedRow(DlcBuilder *b, MlirValue frag, int64_t row) {
  MlirContext ctx = b->context;
  MlirType ft = mlirValueGetType(frag), i32 = mlirIntegerTypeGet(ctx, 32);
  MlirType pair = mlirVectorTypeGet(1, (int64_t[]){2}, mlirShapedTypeGetElementType(ft));
  MlirNamedAttribute pos = dlcNamedI64Array(ctx, "static_position", 1, (int64_t[]){row});
  MlirValue v = dlcGpuRes(dlcGpuOp(b, "vector.extract", 1, &frag, pair, 1, &pos));
  v = dlcGpuRes(
      dlcGpuOp(b, "vector.bitcast", 1, &v, mlirVectorTypeGet(1, (int64_t[]){1}, i32), 0, NULL));
  pos = dlcNamedI64Array(ctx, "static_position", 1, (int64_t[]){0});
  return dlcGpuRes(dlcGpuOp(b, "vector.extract", 1, &v, i32, 1, &pos));
}

static MlirValue mmaBf16(DlcBuilder *b, MlirValue a, MlirValue bf, MlirValue acc) {
  MlirContext ctx = b->context;
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirValue ops[10];
  for (int q = 0; q < 4; ++q)
    ops[q] = packedRow(b, a, q);
  for (int q = 0; q < 2; ++q)
    ops[4 + q] = packedRow(b, bf, q);
  for (int q = 0; q < 4; ++q) {
    MlirNamedAttribute pos = dlcNamedI64Array(ctx, "static_position", 2, (int64_t[]){q / 2, q % 2});
    ops[6 + q] = dlcGpuRes(dlcGpuOp(b, "vector.extract", 1, &acc, f32, 1, &pos));
  }
  static const char *const kAttrs[][2] = {
      {"layoutA", "#nvvm.mma_layout<row>"},
      {"layoutB", "#nvvm.mma_layout<col>"},
      {"shape", "#nvvm.shape<m = 16, n = 8, k = 16>"},
      {"multiplicandAPtxType", "#nvvm.mma_type<bf16>"},
      {"multiplicandBPtxType", "#nvvm.mma_type<bf16>"},
  };
  MlirNamedAttribute attrs[6];
  for (int i = 0; i < 5; ++i)
    attrs[i] = dlcNamed(ctx, kAttrs[i][0], mlirAttributeParseGet(ctx, str(kAttrs[i][1])));
  attrs[5] =
      dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 3, (int32_t[]){4, 2, 4}));
  MlirType st = mlirTypeParseGet(ctx, str("!llvm.struct<(f32, f32, f32, f32)>"));
  MlirValue d = dlcGpuRes(dlcGpuOp(b, "nvvm.mma.sync", 10, ops, st, 6, attrs));
  MlirValue els[4];
  for (int q = 0; q < 4; ++q) {
    MlirNamedAttribute pos = dlcNamedI64Array(ctx, "position", 1, (int64_t[]){q});
    els[q] = dlcGpuRes(dlcGpuOp(b, "llvm.extractvalue", 1, &d, f32, 1, &pos));
  }
  return fromElements(b, 4, els, mlirValueGetType(acc));
}

typedef DlcMmaTile Tile; /* gpu_wgmma.h: the wgmma rewrite reads the same tile */

static bool fail(MlirOperation at, const char *what) {
  char msg[384];
  snprintf(msg, sizeof msg, "dlc-gpu-mma: %s (the warp's tile is not fill + contraction + "
                            "elementwise epilogue as dlc-gpu-schedule leaves it)", what);
  mlirEmitError(mlirOperationGetLocation(at), msg);
  return false;
}

static bool isGeneric(MlirOperation op) {
  return dlcOpIs(op, "linalg.generic") || dlcOpIs(op, "linalg.fill");
}

static bool usesValue(MlirOperation op, MlirValue v, intptr_t *pos) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (mlirValueEqual(mlirOperationGetOperand(op, i), v)) {
      if (pos)
        *pos = i;
      return true;
    }
  return false;
}

/* Reads the warp forall's body into `t`. */
static bool readTile(MlirOperation warp, Tile *t) {
  memset(t, 0, sizeof *t);
  t->warp = warp;
  MlirAttribute shape = mlirOperationGetDiscardableAttributeByName(warp, str(DLC_ATTR_MMA));
  for (int i = 0; i < 3; ++i)
    t->mma[i] = mlirDenseI64ArrayGetElement(shape, i);
  t->stages = mlirDenseArrayGetNumElements(shape) > 3 ? mlirDenseI64ArrayGetElement(shape, 3) : 1;
  t->tf32 = t->mma[2] == 8;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(warp, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isGeneric(op))
      continue;
    if (mlirOperationIsNull(t->gemm) && mlirOperationGetNumOperands(op) == 3 &&
        dlcOpIs(op, "linalg.generic")) {
      MlirValue out = mlirOperationGetOperand(op, 2);
      MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
      intptr_t ni = mlirArrayAttrGetNumElements(iters);
      if (mlirTypeIsAMemRef(mlirValueGetType(out)) && ni >= 3 &&
          dlcIteratorIsReduction(mlirArrayAttrGetElement(iters, ni - 1))) {
        t->gemm = op;
        t->acc = out;
        continue;
      }
    }
    if (mlirOperationIsNull(t->gemm)) {
      t->fill = op; /* the last op before the contraction: its fill */
      continue;
    }
    if (!mlirOperationIsNull(t->epilogue))
      return fail(op, "more than one linalg op after the contraction");
    t->epilogue = op;
  }
  if (mlirOperationIsNull(t->gemm))
    return fail(warp, "no contraction in a warp tile marked for mma");
  MlirOperation f = t->fill;
  if (mlirOperationIsNull(f) || mlirOperationGetNumOperands(f) != 2 ||
      !mlirValueEqual(mlirOperationGetOperand(f, 1), t->acc) ||
      mlirTypeIsAShaped(mlirValueGetType(mlirOperationGetOperand(f, 0))))
    return fail(t->gemm, "the contraction's accumulator is not filled with a scalar first");
  intptr_t pos;
  if (!mlirOperationIsNull(t->epilogue) &&
      (!usesValue(t->epilogue, t->acc, &pos) ||
       pos >= mlirOperationGetNumOperands(t->epilogue) - 1))
    return fail(t->epilogue, "the op after the contraction does not read its result");
  MlirType accT = mlirValueGetType(t->acc);
  intptr_t r = mlirShapedTypeGetRank(accT);
  t->wm = mlirShapedTypeGetDimSize(accT, r - 2);
  t->wn = mlirShapedTypeGetDimSize(accT, r - 1);
  t->k = mlirShapedTypeGetDimSize(mlirValueGetType(mlirOperationGetOperand(t->gemm, 0)), r - 1);
  if (t->mma[0] == kWgmmaM) /* a warpgroup's 64 x N (gpu_wgmma.c checks it) */
    return true;
  if (t->wm % 16 || t->wn % 8 || t->k % t->mma[2] || (t->wm / 16) * (t->wn / 8) > kMaxTiles)
    return fail(t->gemm, "the warp tile is not a multiple of the mma shape");
  return true;
}

/* The epilogue's body on one accumulator element at `idx` (all loops):
   the value it yields in `*res` and the buffer it writes in `*dst`;
   `value` is the element, of the accumulator's type. */
static bool epilogueValue(DlcBuilder *b, const Tile *t, MlirValue value, const MlirValue *idx,
                          MlirValue *res, MlirValue *dst) {
  MlirOperation e = t->epilogue;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(e, 0));
  intptr_t nOps = mlirOperationGetNumOperands(e);
  DlcGpuValueMap m = {.n = 0};
  intptr_t numInits = 1; /* elementwise epilogues have one output */
  for (intptr_t i = 0; i < nOps; ++i) {
    MlirValue o = mlirOperationGetOperand(e, i), v;
    MlirType ot = mlirValueGetType(o);
    if (mlirValueEqual(o, t->acc)) {
      MlirAffineMap am = dlcOperandMap(e, i);
      if (!mlirAffineMapIsIdentity(am))
        return fail(e, "the epilogue reads the accumulator through a non-identity map");
      v = value;
    } else if (!mlirTypeIsAMemRef(ot)) {
      v = o;
    } else {
      MlirAffineMap am = dlcOperandMap(e, i);
      intptr_t nr = mlirAffineMapGetNumResults(am);
      MlirValue ops[1 + DLC_SCHEDULE_MAX_LOOPS];
      ops[0] = o;
      for (intptr_t k = 0; k < nr; ++k) {
        MlirAffineExpr x = mlirAffineMapGetResult(am, k);
        if (mlirAffineExprIsADim(x))
          ops[1 + k] = idx[mlirAffineDimExprGetPosition(x)];
        else if (mlirAffineExprIsAConstant(x))
          ops[1 + k] = dlcGpuIndex(b, mlirAffineConstantExprGetValue(x));
        else
          return fail(e, "an epilogue operand's map is not dims and constants");
      }
      v = dlcGpuRes(
          dlcGpuOp(b, "memref.load", 1 + nr, ops, mlirShapedTypeGetElementType(ot), 0, NULL));
    }
    if (m.n >= DLC_GPU_MAX_MAP)
      return fail(e, "epilogue too large");
    m.from[m.n] = mlirBlockGetArgument(body, i);
    m.to[m.n++] = v;
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (dlcOpIs(op, "linalg.yield")) {
      if (mlirOperationGetNumOperands(op) != numInits)
        return fail(e, "the epilogue does not yield one value");
      if (!mlirAffineMapIsIdentity(dlcOperandMap(e, nOps - numInits)))
        return fail(e, "the epilogue writes through a non-identity map");
      *dst = mlirOperationGetOperand(e, nOps - numInits);
      *res = dlcGpuLookup(&m, mlirOperationGetOperand(op, 0));
      return true;
    }
    if (dlcOpIs(op, "linalg.index")) {
      int64_t dim = dlcGetI64(op, "dim", 0);
      m.from[m.n] = dlcGpuRes(op);
      m.to[m.n++] = idx[dim];
      continue;
    }
    if (mlirOperationGetNumRegions(op) > 0)
      return fail(op, "an epilogue op with regions");
    MlirOperation c = mlirOperationClone(op);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(c); ++i)
      mlirOperationSetOperand(c, i, dlcGpuLookup(&m, mlirOperationGetOperand(c, i)));
    dlcBuilderInsert(b, c);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(op) && m.n < DLC_GPU_MAX_MAP; ++i) {
      m.from[m.n] = mlirOperationGetResult(op, i);
      m.to[m.n++] = mlirOperationGetResult(c, i);
    }
    if (m.n >= DLC_GPU_MAX_MAP)
      return fail(e, "epilogue too large");
  }
  return fail(e, "an epilogue without linalg.yield");
}

static void storeAt(DlcBuilder *b, MlirValue v, MlirValue mem, intptr_t rank,
                    const MlirValue *idx) {
  MlirValue ops[2 + DLC_SCHEDULE_MAX_LOOPS];
  ops[0] = v;
  ops[1] = mem;
  for (intptr_t d = 0; d < rank; ++d)
    ops[2 + d] = idx[d];
  dlcGpuOp(b, "memref.store", 2 + rank, ops, (MlirType){NULL}, 0, NULL);
}

/* The epilogue's body on one accumulator element at `idx`, its result
   stored there (the wgmma path's per-element epilogue). */
bool dlcMmaEpilogueAt(DlcBuilder *b, const Tile *t, MlirValue value, const MlirValue *idx) {
  MlirValue res, dst;
  if (!epilogueValue(b, t, value, idx, &res, &dst))
    return false;
  storeAt(b, res, dst, mlirShapedTypeGetRank(mlirValueGetType(dst)), idx);
  return true;
}

/* Where a warp's fragments are read from: `a`/`b` (the warp's global
   tiles, or the shared stage tiles at `stage`), the warp's A tile at
   (aRow, aCol) and its B tile at (bRow, bCol) of them. */
typedef struct {
  MlirValue a, b, stage, aRow, aCol, bRow, bCol;
  bool ldmatrix; /* 16-bit fragments from shared memory */
} Frags;

typedef struct {
  /* lane / 4, lane % 4, 2 t, lane % 16, (lane / 16) 8 */
  MlirValue lane, g, tq, t2, lane16, laneHi8;
} Lane;

/* One mma k step of the warp: fragments per 16-row and 8-column tile,
   nvgpu.mma.sync (nvvm.mma.sync for bf16) per pair; `acc` updated. */
static void mmaStep(DlcBuilder *in, const Tile *t, const Frags *f, const Lane *l, MlirValue *acc) {
  MlirContext ctx = in->context;
  MlirType ab = mlirShapedTypeGetElementType(mlirValueGetType(f->a));
  int tm = (int)(t->wm / 16), tn = (int)(t->wn / 8);
  MlirType accV = mlirVectorTypeGet(2, (int64_t[]){2, 2}, mlirF32TypeGet(ctx));
  MlirType aV = mlirVectorTypeGet(2, (int64_t[]){4, t->tf32 ? 1 : 2}, ab);
  MlirType bV = mlirVectorTypeGet(2, (int64_t[]){2, t->tf32 ? 1 : 2}, ab);
  MlirValue aFrag[kMaxTiles], bFrag[kMaxTiles];
  for (int i = 0; i < tm; ++i) { /* A: rows 16 i + g (+8) */
    MlirValue row0 = addIndex(in, f->aRow, 16 * i);
    if (f->ldmatrix) { /* lanes 0-15 rows 0-15 at k 0, lanes 16-31 at k 8 */
      MlirValue ops[4] = {f->a, f->stage, addValues(in, row0, l->lane16),
                          addValues(in, f->aCol, l->laneHi8)};
      MlirNamedAttribute at[2] = {
          dlcNamed(ctx, "numTiles", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 4)),
          dlcNamedBool(ctx, "transpose", false)};
      aFrag[i] = dlcGpuRes(dlcGpuOp(in, "nvgpu.ldmatrix", 4, ops, aV, 2, at));
      continue;
    }
    MlirValue r0 = addValues(in, row0, l->g), r8 = addIndex(in, r0, 8), els[8];
    if (t->tf32) {
      MlirValue ct = addValues(in, f->aCol, l->tq), ct4 = addIndex(in, ct, 4);
      els[0] = loadAt(in, f->a, f->stage, r0, ct);
      els[1] = loadAt(in, f->a, f->stage, r8, ct);
      els[2] = loadAt(in, f->a, f->stage, r0, ct4);
      els[3] = loadAt(in, f->a, f->stage, r8, ct4);
      aFrag[i] = fromElements(in, 4, els, aV);
    } else {
      MlirValue c = addValues(in, f->aCol, l->t2);
      MlirValue c1 = addIndex(in, c, 1), c8 = addIndex(in, c, 8), c9 = addIndex(in, c, 9);
      MlirValue rows[4] = {r0, r8, r0, r8}, cols[4][2] = {{c, c1}, {c, c1}, {c8, c9}, {c8, c9}};
      for (int q = 0; q < 4; ++q)
        for (int p = 0; p < 2; ++p)
          els[2 * q + p] = loadAt(in, f->a, f->stage, rows[q], cols[q][p]);
      aFrag[i] = fromElements(in, 8, els, aV);
    }
  }
  for (int j = 0; j < tn; ++j) { /* B: column 8 j + g */
    MlirValue col0 = addIndex(in, f->bCol, 8 * j);
    if (f->ldmatrix) { /* transposed: lanes 0-15 give k rows 0-15 */
      MlirValue ops[4] = {f->b, f->stage, addValues(in, f->bRow, l->lane16), col0};
      MlirNamedAttribute at[2] = {
          dlcNamed(ctx, "numTiles", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 2)),
          dlcNamedBool(ctx, "transpose", true)};
      bFrag[j] = dlcGpuRes(dlcGpuOp(in, "nvgpu.ldmatrix", 4, ops, bV, 2, at));
      continue;
    }
    MlirValue col = addValues(in, col0, l->g), els[4];
    if (t->tf32) {
      MlirValue r = addValues(in, f->bRow, l->tq);
      els[0] = loadAt(in, f->b, f->stage, r, col);
      els[1] = loadAt(in, f->b, f->stage, addIndex(in, r, 4), col);
      bFrag[j] = fromElements(in, 2, els, bV);
    } else {
      MlirValue r = addValues(in, f->bRow, l->t2);
      els[0] = loadAt(in, f->b, f->stage, r, col);
      els[1] = loadAt(in, f->b, f->stage, addIndex(in, r, 1), col);
      els[2] = loadAt(in, f->b, f->stage, addIndex(in, r, 8), col);
      els[3] = loadAt(in, f->b, f->stage, addIndex(in, r, 9), col);
      bFrag[j] = fromElements(in, 4, els, bV);
    }
  }
  MlirNamedAttribute attrs[2] = {
      dlcNamed(ctx, "mmaShape",
               mlirArrayAttrGet(ctx, 3,
                                (MlirAttribute[]){
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), t->mma[0]),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), t->mma[1]),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), t->mma[2])})),
      dlcNamed(ctx, "tf32Enabled", mlirUnitAttrGet(ctx))};
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j) {
      MlirValue ops[3] = {aFrag[i], bFrag[j], acc[i * tn + j]};
      acc[i * tn + j] =
          mlirTypeIsABF16(ab)
              ? mmaBf16(in, ops[0], ops[1], ops[2])
              : dlcGpuRes(dlcGpuOp(in, "nvgpu.mma.sync", 3, ops, accV, t->tf32 ? 2 : 1, attrs));
    }
}

/* An scf.for from 0 to `ub` by `step` carrying `n` values of `types`
   from `inits`, inserted by `b`; its body block in `body`. */
static MlirOperation buildFor(DlcBuilder *b, int64_t ub, int64_t step, int n, const MlirType *types,
                              const MlirValue *inits, MlirBlock *body) {
  MlirValue ops[3 + kMaxTiles] = {dlcGpuIndex(b, 0), dlcGpuIndex(b, ub), dlcGpuIndex(b, step)};
  MlirType argTypes[1 + kMaxTiles];
  MlirLocation argLocs[1 + kMaxTiles];
  argTypes[0] = mlirIndexTypeGet(b->context);
  argLocs[0] = b->loc;
  for (int i = 0; i < n; ++i) {
    ops[3 + i] = inits[i];
    argTypes[1 + i] = types[i];
    argLocs[1 + i] = b->loc;
  }
  MlirRegion region = mlirRegionCreate();
  *body = mlirBlockCreate(1 + n, argTypes, argLocs);
  mlirRegionAppendOwnedBlock(region, *body);
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), b->loc);
  mlirOperationStateAddOperands(&st, 3 + n, ops);
  mlirOperationStateAddResults(&st, n, types);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

/*--- Shared-memory staging --------------------------------------------------------*/

/* The block's tile of a warp operand: the source of the warp's subview
   when the warp takes a part of it, else the operand; null when it is not
   defined outside the warp forall (a producer computed per warp). */
MlirValue dlcMmaBlockTile(MlirValue v, MlirOperation warp) {
  if (mlirValueIsAOpResult(v)) {
    MlirOperation def = mlirOpResultGetOwner(v);
    if (dlcOpIs(def, "memref.subview") &&
        mlirOperationEqual(mlirOperationGetParentOperation(def), warp))
      v = mlirOperationGetOperand(def, 0);
  }
  MlirOperation owner = mlirValueIsAOpResult(v)
                            ? mlirOpResultGetOwner(v)
                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  for (MlirOperation p = owner; !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p))
    if (mlirOperationEqual(p, warp))
      return (MlirValue){NULL};
  return v;
}


/* cp.async of a rows x cols tile of `src` at (row0, col0) into
   dst[stage] by the block's `threads` threads (16 bytes each a copy, in
   rounds); the tokens go to `tokens`. */
static int copyTile(DlcBuilder *b, MlirValue src, MlirValue row0, MlirValue col0, MlirValue dst,
                    MlirValue stage, int64_t rows, int64_t cols, MlirValue tid, int64_t threads,
                    MlirValue *tokens) {
  MlirType elt = mlirShapedTypeGetElementType(mlirValueGetType(src));
  int64_t vec = 16 / (mlirTypeIsAF32(elt) ? 4 : 2), perRow = cols / vec, total = rows * perRow;
  int n = 0;
  for (int64_t first = 0; first < total; first += threads) {
    MlirValue c = addIndex(b, tid, first);
    DlcBuilder at = *b;
    bool guarded = first + threads > total;
    if (guarded) /* the last round: threads past the tile skip */
      at = dlcGpuIfThen(b, dlcGpuCmpUlt(b, c, total));
    MlirValue r = dlcGpuBinIndex(&at, "arith.divui", c, perRow);
    MlirValue k =
        dlcGpuBinIndex(&at, "arith.muli", dlcGpuBinIndex(&at, "arith.remui", c, perRow), vec);
    intptr_t sr = mlirShapedTypeGetRank(mlirValueGetType(src));
    MlirValue si[DLC_SCHEDULE_MAX_LOOPS], di[3] = {stage, r, k};
    intptr_t o = 0;
    for (intptr_t d = 0; d + 2 < sr; ++d)
      si[o++] = dlcGpuIndex(&at, 0);
    si[o++] = addValues(&at, row0, r);
    si[o++] = addValues(&at, col0, k);
    MlirValue tok = dlcGpuAsyncCopy(&at, dst, 3, di, src, sr, si, vec, (MlirValue){NULL}, true);
    if (!guarded)
      tokens[n++] = tok;
  }
  return n;
}


/* The element type and rank the epilogue (or the contraction) writes. */
static MlirValue outputOf(const Tile *t) {
  if (mlirOperationIsNull(t->epilogue))
    return t->acc;
  return mlirOperationGetOperand(t->epilogue, mlirOperationGetNumOperands(t->epilogue) - 1);
}

/* `n` adjacent outputs of one row: element e at column col + e of `row`,
   each through the epilogue once (`vals`: the accumulator values, f32),
   then one vector.store of the n results (16 bytes: st.global.v4). */
static bool storeRun(DlcBuilder *b, const Tile *t, int n, const MlirValue *vals, MlirValue row,
                     MlirValue col) {
  MlirType accElt = mlirShapedTypeGetElementType(mlirValueGetType(t->acc));
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(t->acc));
  MlirValue idx[DLC_SCHEDULE_MAX_LOOPS], res[8], dst = t->acc;
  for (intptr_t d = 0; d + 2 < rank; ++d)
    idx[d] = dlcGpuIndex(b, 0);
  idx[rank - 2] = row;
  for (int e = 0; e < n; ++e) {
    MlirValue v = dlcMmaConvert(b, vals[e], accElt);
    idx[rank - 1] = addIndex(b, col, e);
    if (mlirOperationIsNull(t->epilogue))
      res[e] = v;
    else if (!epilogueValue(b, t, v, idx, &res[e], &dst))
      return false;
  }
  idx[rank - 1] = col;
  dlcGpuStoreVector(b, n, res, dst, rank, idx);
  return true;
}

/* The warp's accumulators (one vector<2x2xf32> per 16 x 8 tile) through
   the epilogue into the output: lanes regroup them by shuffles
   (gpu_build.h) so that each lane stores 16 adjacent bytes of a row --
   four f32, or eight 16-bit values from a pair of tiles (an odd last tile
   of a 16-bit output: four, 8 bytes). An output whose rows are not
   contiguous (no unit stride) or of another width takes one store per
   element. */
static bool storeRows(DlcBuilder *b, const Tile *t, const Lane *l, const MlirValue *acc) {
  MlirContext ctx = b->context;
  MlirType f32 = mlirF32TypeGet(ctx), accElt = mlirShapedTypeGetElementType(mlirValueGetType(t->acc));
  MlirValue out = outputOf(t);
  MlirType ot = mlirValueGetType(out);
  intptr_t rank = mlirShapedTypeGetRank(ot);
  int64_t strides[DLC_SCHEDULE_MAX_LOOPS], offset;
  unsigned width = mlirTypeIsAFloat(mlirShapedTypeGetElementType(ot))
                       ? mlirFloatTypeGetWidth(mlirShapedTypeGetElementType(ot))
                       : 0;
  bool rows = rank <= DLC_SCHEDULE_MAX_LOOPS &&
              mlirLogicalResultIsSuccess(mlirMemRefTypeGetStridesAndOffset(ot, strides, &offset)) &&
              strides[rank - 1] == 1 && (width == 32 || width == 16);
  int tm = (int)(t->wm / 16), tn = (int)(t->wn / 8);
  MlirValue v[kMaxTiles][4];
  for (int a = 0; a < tm * tn; ++a)
    for (int q = 0; q < 4; ++q) {
      MlirNamedAttribute pos = dlcNamedI64Array(ctx, "static_position", 2, (int64_t[]){q / 2, q % 2});
      v[a][q] = dlcGpuRes(dlcGpuOp(b, "vector.extract", 1, &acc[a], f32, 1, &pos));
    }
  if (!rows) { /* per element: (16i + g + 8h, 8j + 2t + p) */
    MlirValue idx[DLC_SCHEDULE_MAX_LOOPS];
    intptr_t ar = mlirShapedTypeGetRank(mlirValueGetType(t->acc));
    for (intptr_t d = 0; d + 2 < ar; ++d)
      idx[d] = dlcGpuIndex(b, 0);
    for (int a = 0; a < tm * tn; ++a)
      for (int q = 0; q < 4; ++q) {
        MlirValue x = dlcMmaConvert(b, v[a][q], accElt);
        idx[ar - 2] = addIndex(b, l->g, 16 * (a / tn) + 8 * (q / 2));
        idx[ar - 1] = addIndex(b, l->t2, 8 * (a % tn) + q % 2);
        if (mlirOperationIsNull(t->epilogue))
          storeAt(b, x, t->acc, ar, idx);
        else if (!dlcMmaEpilogueAt(b, t, x, idx))
          return false;
      }
    return true;
  }
  MlirValue odd = dlcGpuBitSet(b, l->lane, 1), hi = dlcGpuBitSet(b, l->lane, 2);
  MlirValue lane2 = dlcGpuBinIndex(b, "arith.andi", l->lane, 2);
  /* round 1: row g + 8 (lane & 1), columns 4 (t >> 1) .. + 3 of each tile */
  MlirValue row1 = addValues(b, l->g,
                             dlcGpuBinIndex(b, "arith.muli",
                                            dlcGpuBinIndex(b, "arith.andi", l->lane, 1), 8));
  MlirValue col4 = dlcGpuBinIndex(b, "arith.muli", lane2, 2);
  MlirValue q4[kMaxTiles][4];
  for (int a = 0; a < tm * tn; ++a) {
    MlirValue send[2], recv[2];
    dlcGpuQuadSend(b, odd, v[a], send);
    for (int p = 0; p < 2; ++p)
      recv[p] = dlcGpuShuffleXor(b, send[p], 1);
    dlcGpuQuadJoin(b, odd, v[a], recv, q4[a]);
  }
  /* round 2 (16-bit outputs): tile j + hi's 8 columns of that row */
  MlirValue col8 = dlcGpuBinIndex(b, "arith.muli", lane2, 4);
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn;) {
      MlirValue row = addIndex(b, row1, 16 * i);
      if (width == 16 && j + 1 < tn) {
        const MlirValue *a4 = q4[i * tn + j], *c4 = q4[i * tn + j + 1];
        MlirValue send[4], recv[4], o8[8];
        dlcGpuPairSend(b, hi, a4, c4, send);
        for (int e = 0; e < 4; ++e)
          recv[e] = dlcGpuShuffleXor(b, send[e], 2);
        dlcGpuPairJoin(b, hi, a4, c4, recv, o8);
        if (!storeRun(b, t, 8, o8, row, addIndex(b, col8, 8 * j)))
          return false;
        j += 2;
      } else {
        if (!storeRun(b, t, 4, q4[i * tn + j], row, addIndex(b, col4, 8 * j)))
          return false;
        j += 1;
      }
    }
  return true;
}

static bool rewriteTile(const Tile *t) {
  MlirContext ctx = mlirOperationGetContext(t->gemm);
  MlirLocation loc = mlirOperationGetLocation(t->gemm);
  DlcBuilder b = dlcBuilderBefore(t->gemm, loc);
  MlirType index = mlirIndexTypeGet(ctx), f32 = mlirF32TypeGet(ctx);
  MlirValue A = mlirOperationGetOperand(t->gemm, 0), B = mlirOperationGetOperand(t->gemm, 1);
  MlirType ab = mlirShapedTypeGetElementType(mlirValueGetType(A));
  int tm = (int)(t->wm / 16), tn = (int)(t->wn / 8), nt = tm * tn;
  MlirType accV = mlirVectorTypeGet(2, (int64_t[]){2, 2}, f32);

  Lane l;
  l.lane = dlcGpuRes(dlcGpuOp(&b, "gpu.lane_id", 0, NULL, index, 0, NULL));
  l.g = dlcGpuBinIndex(&b, "arith.divui", l.lane, 4);
  l.tq = dlcGpuBinIndex(&b, "arith.remui", l.lane, 4);
  l.t2 = dlcGpuBinIndex(&b, "arith.muli", l.tq, 2);
  l.lane16 = dlcGpuBinIndex(&b, "arith.remui", l.lane, 16);
  l.laneHi8 = dlcGpuBinIndex(&b, "arith.muli", dlcGpuBinIndex(&b, "arith.divui", l.lane, 16), 8);
  MlirValue init = dlcMmaConvert(&b, mlirOperationGetOperand(t->fill, 0), f32);
  MlirValue initV = dlcGpuRes(dlcGpuOp(&b, "vector.broadcast", 1, &init, accV, 0, NULL));
  MlirType accTypes[kMaxTiles];
  MlirValue inits[kMaxTiles], acc[kMaxTiles];
  for (int i = 0; i < nt; ++i) {
    accTypes[i] = accV;
    inits[i] = initV;
  }

  /* Shared-memory staging when the schedule asks for it and A and B are
     block tiles read from outside the warp forall. */
  MlirValue blockA = dlcMmaBlockTile(A, t->warp), blockB = dlcMmaBlockTile(B, t->warp);
  MlirOperation blockForall = mlirOperationGetParentOperation(t->warp);
  MlirAttribute dims =
      mlirOperationGetDiscardableAttributeByName(blockForall, str(DLC_ATTR_BLOCK_DIMS));
  bool staged = t->stages >= 2 && !mlirValueIsNull(blockA) && !mlirValueIsNull(blockB) &&
                !mlirAttributeIsNull(dims);
  MlirOperation loop;
  MlirBlock body;
  if (!staged) { /* fragments straight from global memory, one mma k step an iteration */
    loop = buildFor(&b, t->k, t->mma[2], nt, accTypes, inits, &body);
    DlcBuilder in = dlcBuilderAtEnd(body, loc);
    Frags f = {.a = A, .b = B, .stage = {NULL}, .aRow = dlcGpuIndex(&in, 0),
               .aCol = mlirBlockGetArgument(body, 0), .bRow = mlirBlockGetArgument(body, 0),
               .bCol = dlcGpuIndex(&in, 0), .ldmatrix = false};
    for (int i = 0; i < nt; ++i)
      acc[i] = mlirBlockGetArgument(body, 1 + i);
    mmaStep(&in, t, &f, &l, acc);
    dlcGpuOp(&in, "scf.yield", nt, acc, (MlirType){NULL}, 0, NULL);
  } else {
    /* S stages of [BM x BK] A and [BK x BN] B tiles; tile kt + S - 1 is
       copied (cp.async) while tile kt is computed */
    MlirType at = mlirValueGetType(blockA), bt = mlirValueGetType(blockB);
    intptr_t ra = mlirShapedTypeGetRank(at), rb = mlirShapedTypeGetRank(bt);
    int64_t bm = mlirShapedTypeGetDimSize(at, ra - 2), bn = mlirShapedTypeGetDimSize(bt, rb - 1);
    int64_t S = t->stages, bk = dlcGpuMmaKTile(t->k, t->mma[2]), nK = t->k / bk;
    int64_t eltBytes = mlirTypeIsAF32(ab) ? 4 : 2, pad = kGpuSmemPadBytes / eltBytes;
    int64_t threads = mlirDenseI64ArrayGetElement(dims, 0) * mlirDenseI64ArrayGetElement(dims, 1) *
                      mlirDenseI64ArrayGetElement(dims, 2);
    MlirOperation module = dlcGpuModuleOf(t->warp);
    MlirValue smA = dlcGpuSharedGlobal(&b, module, "__dlc_smem_", 3, (int64_t[]){S, bm, bk + pad}, ab);
    MlirValue smB = dlcGpuSharedGlobal(&b, module, "__dlc_smem_", 3, (int64_t[]){S, bk, bn + pad}, ab);
    MlirNamedAttribute dx =
        dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim x>")));
    MlirNamedAttribute dy =
        dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim y>")));
    MlirValue tx = dlcGpuRes(dlcGpuOp(&b, "gpu.thread_id", 0, NULL, index, 1, &dx));
    MlirValue ty = dlcGpuRes(dlcGpuOp(&b, "gpu.thread_id", 0, NULL, index, 1, &dy));
    MlirValue tid = addValues(
        &b, tx, dlcGpuBinIndex(&b, "arith.muli", ty, mlirDenseI64ArrayGetElement(dims, 0)));
    MlirBlock wb = mlirRegionGetFirstBlock(mlirOperationGetRegion(t->warp, 0));
    MlirValue wm0 = dlcGpuBinIndex(&b, "arith.muli", mlirBlockGetArgument(wb, 0), t->wm);
    MlirValue wn0 = dlcGpuBinIndex(&b, "arith.muli", mlirBlockGetArgument(wb, 1), t->wn);
    MlirValue zero = dlcGpuIndex(&b, 0), tokens[64];
    MlirValue group = {NULL};
    for (int64_t s0 = 0; s0 + 1 < S; ++s0) { /* prologue: tiles 0 .. S - 2 */
      int64_t kt = s0 < nK ? s0 : nK - 1; /* a repeated last tile lands in a stage never read */
      MlirValue stage = dlcGpuIndex(&b, s0), k0 = dlcGpuIndex(&b, kt * bk);
      int n = copyTile(&b, blockA, zero, k0, smA, stage, bm, bk, tid, threads, tokens);
      n += copyTile(&b, blockB, k0, zero, smB, stage, bk, bn, tid, threads, tokens + n);
      group = dlcGpuAsyncCommit(&b, n, tokens);
    }
    loop = buildFor(&b, nK, 1, nt, accTypes, inits, &body);
    DlcBuilder in = dlcBuilderAtEnd(body, loc);
    MlirValue kt = mlirBlockGetArgument(body, 0);
    /* tile kt has landed (at most S - 2 younger groups in flight) and
       every warp is done with the stage the next copy overwrites */
    dlcGpuAsyncWait(&in, group, (int32_t)(S - 2));
    dlcGpuOp(&in, "gpu.barrier", 0, NULL, (MlirType){NULL}, 0, NULL);
    MlirValue next = addIndex(&in, kt, S - 1);
    MlirValue mops[2] = {next, dlcGpuIndex(&in, nK - 1)};
    MlirValue nextC = dlcGpuRes(dlcGpuOp(&in, "arith.minui", 2, mops, index, 0, NULL));
    MlirValue nstage = dlcGpuBinIndex(&in, "arith.remui", next, S);
    MlirValue k0 = dlcGpuBinIndex(&in, "arith.muli", nextC, bk);
    int n =
        copyTile(&in, blockA, dlcGpuIndex(&in, 0), k0, smA, nstage, bm, bk, tid, threads, tokens);
    n += copyTile(&in, blockB, k0, dlcGpuIndex(&in, 0), smB, nstage, bk, bn, tid, threads,
                  tokens + n);
    dlcGpuAsyncCommit(&in, n, tokens);
    MlirValue stage = dlcGpuBinIndex(&in, "arith.remui", kt, S);
    for (int i = 0; i < nt; ++i)
      acc[i] = mlirBlockGetArgument(body, 1 + i);
    for (int64_t kk = 0; kk < bk; kk += t->mma[2]) {
      Frags f = {.a = smA, .b = smB, .stage = stage, .aRow = wm0,
                 .aCol = dlcGpuIndex(&in, kk), .bRow = dlcGpuIndex(&in, kk), .bCol = wn0,
                 .ldmatrix = !t->tf32};
      mmaStep(&in, t, &f, &l, acc);
    }
    dlcGpuOp(&in, "scf.yield", nt, acc, (MlirType){NULL}, 0, NULL);
    /* no copy left in flight (the clamped repeats of the last tile) when
       the block moves on to the epilogue and exits */
    dlcGpuAsyncWait(&b, group, 0);
  }

  /* the epilogue (or the store), where the epilogue was: its operands
     (subviews) may be defined after the contraction */
  b = dlcBuilderBefore(mlirOperationIsNull(t->epilogue) ? t->gemm : t->epilogue, loc);
  for (int i = 0; i < nt; ++i)
    acc[i] = mlirOperationGetResult(loop, i);
  if (!storeRows(&b, t, &l, acc))
    return false;
  if (!mlirOperationIsNull(t->epilogue))
    mlirOperationDestroy(t->epilogue);
  mlirOperationDestroy(t->gemm);
  mlirOperationDestroy(t->fill);
  return true;
}

typedef struct {
  MlirOperation warps[1024];
  int n;
} Warps;

static MlirWalkResult collect(MlirOperation op, void *u) {
  Warps *w = u;
  if (dlcOpIs(op, "scf.forall") &&
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_MMA))) &&
      w->n < 1024)
    w->warps[w->n++] = op;
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  Warps *w = calloc(1, sizeof *w);
  mlirOperationWalk(module, collect, w, MlirWalkPreOrder);
  bool ok = true;
  for (int i = 0; i < w->n && ok; ++i) {
    Tile t;
    ok = readTile(w->warps[i], &t);
    mlirOperationRemoveDiscardableAttributeByName(w->warps[i], str(DLC_ATTR_MMA));
    /* wgmma (sm_90a) erases the warpgroup forall: its body joins the block */
    ok = ok && (t.mma[0] == kWgmmaM ? dlcGpuWgmmaRewrite(&t) : rewriteTile(&t));
  }
  dlcPassAddStatistic(pass, "tiles", (uint64_t)w->n);
  free(w);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {mlirGetDialectHandle__gpu__(), mlirGetDialectHandle__nvgpu__(),
                            mlirGetDialectHandle__nvvm__(), mlirGetDialectHandle__llvm__()};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcStatisticDesc kStats[] = {{"tiles", "warp tiles rewritten to nvgpu.mma.sync"}};

const DlcPassDescriptor dlcGpuMmaPass = {
    .argument = "dlc-gpu-mma",
    .summary = "Rewrite each warp's contraction (marked by dlc-gpu-schedule) into "
               "nvgpu.mma.sync tensor-core code with the epilogue applied in registers",
    .anchor = "builtin.module",
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};

/*--- Shared with gpu_conv.c (gpu_mma.h) ----------------------------------------------*/

MlirValue dlcGpuMmaSync(DlcBuilder *b, MlirValue a, MlirValue bFrag, MlirValue acc,
                        const int64_t mma[3]) {
  MlirContext ctx = b->context;
  if (mlirTypeIsABF16(mlirShapedTypeGetElementType(mlirValueGetType(a))))
    return mmaBf16(b, a, bFrag, acc);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirNamedAttribute attrs[2] = {
      dlcNamed(ctx, "mmaShape",
               mlirArrayAttrGet(ctx, 3,
                                (MlirAttribute[]){mlirIntegerAttrGet(i64, mma[0]),
                                                  mlirIntegerAttrGet(i64, mma[1]),
                                                  mlirIntegerAttrGet(i64, mma[2])})),
      dlcNamed(ctx, "tf32Enabled", mlirUnitAttrGet(ctx))};
  MlirValue ops[3] = {a, bFrag, acc};
  return dlcGpuRes(
      dlcGpuOp(b, "nvgpu.mma.sync", 3, ops, mlirValueGetType(acc), mma[2] == 8 ? 2 : 1, attrs));
}
