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
