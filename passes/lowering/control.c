/* The lowering of dlg's control flow to scf on tensors: dlg.if becomes
   scf.if, dlg.while becomes scf.while (and dlg.update_row, a loop's row
   update, tensor.insert_slice). Their regions move over as they are
   (--dlk-to-linalg lowers the ops inside first: it walks in post-order);
   only the terminators change (dlg.yield to scf.yield, dlg.condition to
   scf.condition) and each condition, a one-element i1 tensor, is read into
   an i1 with tensor.extract. The carried values stay tensors: one-shot
   bufferization handles scf.if and scf.while on tensors.

   Unlike the other families these ops have several results, so they do
   their own replacement (dlcLowerControl) instead of a DlcLowering row. */

#include "lowering/lower.h"

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"
#include "support/rebuild.h"

#include <stdlib.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The i1 in a one-element i1 tensor (the verifier checked the shape). */
static MlirValue readCondition(DlcBuilder *b, MlirValue cond) {
  MlirType t = mlirValueGetType(cond);
  intptr_t rank = mlirShapedTypeGetRank(t);
  MlirValue operands[DLC_MAX_LOOPS + 1];
  if (rank > DLC_MAX_LOOPS)
    return (MlirValue){NULL}; /* the caller reports it */
  operands[0] = cond;
  MlirValue zero = rank ? dlcEmitIndex(b, 0) : (MlirValue){NULL};
  for (intptr_t i = 0; i < rank; ++i)
    operands[i + 1] = zero;
  MlirType i1 = mlirShapedTypeGetElementType(t);
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "tensor.extract", rank + 1, operands, 1, &i1, DLC_NO_ATTRS), 0);
}

/* Replaces the terminator of `region`'s block by `name` on `lead` (if not
   null) followed by the old terminator's operands from `from` on. */
static void retarget(MlirRegion region, const char *name, MlirValue lead, intptr_t from) {
  MlirBlock block = mlirRegionGetFirstBlock(region);
  MlirOperation term = mlirBlockGetTerminator(block);
  intptr_t n = mlirOperationGetNumOperands(term);
  MlirValue *vals = dlcXmalloc(sizeof(MlirValue) * (size_t)(n + 1));
  intptr_t k = 0;
  DlcBuilder b = dlcBuilderBefore(term, mlirOperationGetLocation(term));
  if (!mlirValueIsNull(lead))
    vals[k++] = readCondition(&b, lead);
  for (intptr_t i = from; i < n; ++i)
    vals[k++] = mlirOperationGetOperand(term, i);
  dlcBuildOpTyped(&b, name, k, vals, 0, NULL, DLC_NO_ATTRS);
  mlirOperationDestroy(term);
  free(vals);
}

static bool lowerIf(MlirOperation op) {
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirValue c = readCondition(&b, mlirOperationGetOperand(op, 0));
  if (mlirValueIsNull(c))
    return !mlirValueIsNull(dlcLowerFail(op, "dlk-to-linalg: a condition of rank over 16"));
  MlirOperation s = dlcRebuildTakingRegions(op, str("scf.if"), 1, &c, 0, NULL, false);
  for (intptr_t r = 0; r < 2; ++r)
    retarget(mlirOperationGetRegion(s, r), "scf.yield", (MlirValue){NULL}, 0);
  return true;
}

static bool lowerWhile(MlirOperation op) {
  MlirOperation cterm = mlirBlockGetTerminator(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
  if (mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(cterm, 0))) > DLC_MAX_LOOPS)
    return !mlirValueIsNull(dlcLowerFail(op, "dlk-to-linalg: a condition of rank over 16"));
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue *inits = dlcXmalloc(sizeof(MlirValue) * (size_t)(n + 1));
  for (intptr_t i = 0; i < n; ++i)
    inits[i] = mlirOperationGetOperand(op, i);
  MlirOperation s = dlcRebuildTakingRegions(op, str("scf.while"), n, inits, 0, NULL, false);
  MlirOperation cond = mlirBlockGetTerminator(mlirRegionGetFirstBlock(mlirOperationGetRegion(s, 0)));
  retarget(mlirOperationGetRegion(s, 0), "scf.condition", mlirOperationGetOperand(cond, 0), 1);
  retarget(mlirOperationGetRegion(s, 1), "scf.yield", (MlirValue){NULL}, 0);
  free(inits);
  return true;
}

/* dlg.update_row: tensor.insert_slice of the row into the buffer at
   [index, 0, ...] with sizes [1, row dims...] (the row is the slice less its
   unit dim 0, a rank-reducing insert), the index clamped to [0, dim 0).
   Inside a loop that carries the buffer, bufferization writes the row in
   place: a trip costs the row, where the select it replaces (row i :=
   where(arange == i, row, buffer)) read and wrote the whole buffer. */
static bool lowerUpdateRow(MlirOperation op) {
  MlirValue buf = mlirOperationGetOperand(op, 0), idx = mlirOperationGetOperand(op, 1),
            row = mlirOperationGetOperand(op, 2);
  MlirType bt = mlirValueGetType(buf);
  intptr_t rank = mlirShapedTypeGetRank(bt);
  if (rank > DLC_MAX_LOOPS)
    return !mlirValueIsNull(dlcLowerFail(op, "dlk-to-linalg: a buffer of rank over 16"));
  if (!mlirShapedTypeHasStaticShape(bt))
    return !mlirValueIsNull(dlcLowerFail(op, "dlk-to-linalg: 'dlg.update_row' needs a static "
                                             "buffer shape"));
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirContext ctx = mlirOperationGetContext(op);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64), index = mlirIndexTypeGet(ctx);
  MlirValue i = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "tensor.extract", 1, &idx, 1, &i64, DLC_NO_ATTRS), 0);
  MlirValue x = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "arith.index_cast", 1, &i, 1, &index, DLC_NO_ATTRS), 0);
  MlirValue lo = dlcEmitIndex(&b, 0), hi = dlcEmitIndex(&b, mlirShapedTypeGetDimSize(bt, 0) - 1);
  x = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "arith.maxsi", DLC_VALUES(x, lo), 1, &index, DLC_NO_ATTRS), 0);
  x = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "arith.minsi", DLC_VALUES(x, hi), 1, &index, DLC_NO_ATTRS), 0);
  int64_t offsets[DLC_MAX_LOOPS], sizes[DLC_MAX_LOOPS], strides[DLC_MAX_LOOPS];
  for (intptr_t d = 0; d < rank; ++d)
    offsets[d] = 0, sizes[d] = d ? mlirShapedTypeGetDimSize(bt, d) : 1, strides[d] = 1;
  offsets[0] = mlirShapedTypeGetDynamicStrideOrOffset(); /* the operand x */
  MlirOperation ins = dlcBuildOpTyped(
      &b, "tensor.insert_slice", DLC_VALUES(row, buf, x), 1, &bt,
      DLC_ATTRS(dlcNamedI64Array(ctx, "static_offsets", rank, offsets),
                dlcNamedI64Array(ctx, "static_sizes", rank, sizes),
                dlcNamedI64Array(ctx, "static_strides", rank, strides),
                dlcNamed(ctx, "operandSegmentSizes",
                         mlirDenseI32ArrayGet(ctx, 5, (int32_t[]){1, 1, 1, 0, 0}))));
  if (mlirOperationIsNull(ins))
    return !mlirValueIsNull(dlcLowerFail(op, "dlk-to-linalg: internal error: the row's "
                                             "tensor.insert_slice did not build"));
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(ins, 0));
  return true;
}

int dlcLowerControl(MlirOperation op) {
  bool ok;
  if (dlcOpIs(op, "dlg.if"))
    ok = lowerIf(op);
  else if (dlcOpIs(op, "dlg.while"))
    ok = lowerWhile(op);
  else if (dlcOpIs(op, "dlg.update_row"))
    ok = lowerUpdateRow(op);
  else if (dlcOpIs(op, "dlg.yield") || dlcOpIs(op, "dlg.condition"))
    return 1; /* its parent's lowering replaces it */
  else
    return -1;
  if (ok)
    mlirOperationDestroy(op);
  return ok;
}
