/* gpu_build.h: the IR-building helpers of the GPU rewrites, once. */

#include "gpu/gpu_build.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

MlirValue dlcGpuLookup(const DlcGpuValueMap *m, MlirValue v) {
  for (int i = m->n - 1; i >= 0; --i)
    if (mlirValueEqual(m->from[i], v))
      return m->to[i];
  return v;
}

MlirOperation dlcGpuOp(DlcBuilder *b, const char *name, intptr_t n, const MlirValue *ops,
                       MlirType result, intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  return dlcBuildOpTyped(b, name, n, ops, mlirTypeIsNull(result) ? 0 : 1, &result, nAttrs, attrs);
}

MlirValue dlcGpuRes(MlirOperation op) { return mlirOperationGetResult(op, 0); }

MlirValue dlcGpuConstInt(DlcBuilder *b, MlirType t, int64_t v) {
  MlirNamedAttribute a = dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v));
  return dlcGpuRes(dlcGpuOp(b, "arith.constant", 0, NULL, t, 1, &a));
}

MlirValue dlcGpuIndex(DlcBuilder *b, int64_t v) {
  return dlcGpuConstInt(b, mlirIndexTypeGet(b->context), v);
}

MlirValue dlcGpuBin(DlcBuilder *b, const char *name, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return dlcGpuRes(dlcGpuOp(b, name, 2, ops, mlirValueGetType(x), 0, NULL));
}

MlirValue dlcGpuBinIndex(DlcBuilder *b, const char *name, MlirValue x, int64_t c) {
  return dlcGpuBin(b, name, x, dlcGpuIndex(b, c));
}

MlirValue dlcGpuCmpUlt(DlcBuilder *b, MlirValue x, int64_t c) {
  MlirContext ctx = b->context;
  MlirValue ops[2] = {x, dlcGpuIndex(b, c)};
  MlirNamedAttribute pred =
      dlcNamed(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 6)); /* ult */
  return dlcGpuRes(dlcGpuOp(b, "arith.cmpi", 2, ops, mlirIntegerTypeGet(ctx, 1), 1, &pred));
}

DlcBuilder dlcGpuIfThen(DlcBuilder *b, MlirValue cond) {
  MlirRegion thenR = mlirRegionCreate(), elseR = mlirRegionCreate();
  MlirBlock thenB = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(thenR, thenB);
  MlirOperationState st =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.if"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  MlirRegion regions[2] = {thenR, elseR};
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  dlcBuilderInsert(b, mlirOperationCreate(&st));
  DlcBuilder in = dlcBuilderAtEnd(thenB, b->loc);
  MlirOperation y = dlcGpuOp(&in, "scf.yield", 0, NULL, (MlirType){NULL}, 0, NULL);
  return dlcBuilderBefore(y, b->loc);
}

MlirOperation dlcGpuModuleOf(MlirOperation op) {
  MlirOperation m = op;
  for (MlirOperation p = op; !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p))
    m = p;
  return m;
}

/*--- 128-bit epilogue stores (gpu_build.h) ---------------------------------------------*/

static MlirValue pick(DlcBuilder *b, MlirValue cond, MlirValue x, MlirValue y) {
  MlirValue ops[3] = {cond, x, y};
  return dlcGpuRes(dlcGpuOp(b, "arith.select", 3, ops, mlirValueGetType(x), 0, NULL));
}

void dlcGpuQuadSend(DlcBuilder *b, MlirValue odd, const MlirValue v[4], MlirValue send[2]) {
  for (int p = 0; p < 2; ++p) /* the even partner needs row g (h = 0), the odd one row g + 8 */
    send[p] = pick(b, odd, v[p], v[2 + p]);
}

void dlcGpuQuadJoin(DlcBuilder *b, MlirValue odd, const MlirValue v[4], const MlirValue recv[2],
                    MlirValue out[4]) {
  for (int p = 0; p < 2; ++p) {
    out[p] = pick(b, odd, recv[p], v[p]);         /* even: own row g; odd: partner's row g + 8 */
    out[2 + p] = pick(b, odd, v[2 + p], recv[p]); /* even: partner's columns; odd: own */
  }
}

void dlcGpuPairSend(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    MlirValue send[4]) {
  for (int e = 0; e < 4; ++e)
    send[e] = pick(b, hi, a[e], c[e]);
}

void dlcGpuPairJoin(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    const MlirValue recv[4], MlirValue out[8]) {
  for (int e = 0; e < 4; ++e) {
    out[e] = pick(b, hi, recv[e], a[e]);     /* lo: tile j's columns 0-3 (own) */
    out[4 + e] = pick(b, hi, c[e], recv[e]); /* lo: tile j's columns 4-7 (partner's) */
  }
}

MlirValue dlcGpuShuffleXor(DlcBuilder *b, MlirValue v, int mask) {
  MlirContext ctx = b->context;
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue ops[3] = {v, dlcGpuConstInt(b, i32, mask), dlcGpuConstInt(b, i32, 32)};
  MlirType rts[2] = {mlirValueGetType(v), mlirIntegerTypeGet(ctx, 1)};
  MlirNamedAttribute mode = dlcNamed(
      ctx, "mode",
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#gpu<shuffle_mode xor>")));
  return mlirOperationGetResult(dlcBuildOpTyped(b, "gpu.shuffle", 3, ops, 2, rts, 1, &mode), 0);
}

MlirValue dlcGpuBitSet(DlcBuilder *b, MlirValue x, int64_t bit) {
  MlirContext ctx = b->context;
  MlirValue ops[2] = {dlcGpuBinIndex(b, "arith.andi", x, bit), dlcGpuIndex(b, 0)};
  MlirNamedAttribute pred =
      dlcNamed(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 1)); /* ne */
  return dlcGpuRes(dlcGpuOp(b, "arith.cmpi", 2, ops, mlirIntegerTypeGet(ctx, 1), 1, &pred));
}

void dlcGpuStoreVector(DlcBuilder *b, int n, const MlirValue *vals, MlirValue mem, intptr_t rank,
                       const MlirValue *idx) {
  MlirType vt = mlirVectorTypeGet(1, (int64_t[]){n}, mlirValueGetType(vals[0]));
  MlirValue ops[2 + 16];
  ops[0] = dlcGpuRes(dlcGpuOp(b, "vector.from_elements", n, vals, vt, 0, NULL));
  ops[1] = mem;
  for (intptr_t d = 0; d < rank && d < 16; ++d)
    ops[2 + d] = idx[d];
  dlcGpuOp(b, "vector.store", 2 + rank, ops, (MlirType){NULL}, 0, NULL);
}
