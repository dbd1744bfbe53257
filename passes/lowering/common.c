/* What every lowering family uses: failing on an op, reading shapes and
   results, and the dims of the tensors a lowering creates (lower.h). */

#include "lowering/lower.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

MlirValue dlcLowerNull(void) { return (MlirValue){NULL}; }

MlirValue dlcLowerFail(MlirOperation op, const char *msg) {
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return dlcLowerNull();
}

DlcShape dlcLowerShape(MlirValue v) {
  DlcShape s;
  dlcTypeGetShape(mlirValueGetType(v), &s);
  return s;
}

MlirType dlcLowerResultType(MlirOperation op) {
  return mlirValueGetType(mlirOperationGetResult(op, 0));
}

MlirValue dlcLowerOut(MlirOperation op) {
  return mlirOperationIsNull(op) ? dlcLowerNull() : mlirOperationGetResult(op, 0);
}

intptr_t dlcLowerAxis(MlirOperation op, intptr_t rank, int64_t dflt) {
  int64_t a = dlcGetI64(op, "axis", dflt);
  return a < 0 ? a + rank : a;
}

DlcDimSources dlcDimsNone(void) {
  DlcDimSources d;
  for (intptr_t i = 0; i < DLC_MAX_LOOPS; ++i)
    d.of[i] = dlcLowerNull(), d.idx[i] = 0;
  return d;
}

DlcDimSources dlcDimsOf(MlirValue x) {
  DlcDimSources d = dlcDimsNone();
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  for (intptr_t i = 0; i < rank; ++i)
    d.of[i] = x, d.idx[i] = i;
  return d;
}

DlcDimSources dlcDimsPermuted(MlirValue x, const int64_t *perm, intptr_t rank) {
  DlcDimSources d = dlcDimsNone();
  for (intptr_t i = 0; i < rank; ++i)
    d.of[i] = x, d.idx[i] = perm[i];
  return d;
}

bool dlcDimsFromOperands(MlirOperation op, MlirType type, DlcDimSources *out) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  *out = dlcDimsNone();
  bool ok = true;
  for (intptr_t i = 0; i < rank; ++i) {
    if (!mlirShapedTypeIsDynamicDim(type, i))
      continue;
    bool found = false;
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op) && !found; ++k) {
      MlirValue v = mlirOperationGetOperand(op, k);
      MlirType t = mlirValueGetType(v);
      intptr_t j = i - rank + mlirShapedTypeGetRank(t);
      if (j >= 0 && mlirShapedTypeIsDynamicDim(t, j))
        out->of[i] = v, out->idx[i] = j, found = true;
    }
    ok &= found;
  }
  return ok;
}

MlirValue dlcEmptyFrom(DlcBuilder *b, MlirType type, const DlcDimSources *d) {
  return dlcEmitEmpty(b, type, d->of, d->idx);
}

MlirValue dlcFilledFrom(DlcBuilder *b, MlirType type, double v, const DlcDimSources *d) {
  return dlcEmitFilled(b, type, v, d->of, d->idx);
}

MlirValue dlcEmptyLike(DlcBuilder *b, MlirOperation op, MlirType type) {
  DlcDimSources d;
  dlcDimsFromOperands(op, type, &d);
  MlirValue e = dlcEmptyFrom(b, type, &d);
  if (mlirValueIsNull(e))
    dlcLowerFail(op, "cannot lower: a dynamic result dimension has no matching operand dimension");
  return e;
}
