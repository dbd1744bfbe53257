/* Specializing a dlg function to static input shapes (dlc-c/Specialize.h). */

#include "dlc-c/Specialize.h"

#include "dlc-c/Builder.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "shape/Checked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MlirLogicalResult kSuccess = {1}, kFailure = {0};

static bool isDlg(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length > 4 && memcmp(n.data, "dlg.", 4) == 0;
}

static bool isStatic(MlirType t) {
  return !mlirTypeIsAShaped(t) || mlirShapedTypeHasStaticShape(t);
}

static MlirLogicalResult fail(MlirOperation op, const char *why) {
  char msg[256];
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(msg, sizeof msg, "cannot specialize '%.*s' to static shapes: %s", (int)n.length,
           n.data, why);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return kFailure;
}

/* reshape: the target keeps its static dims; one dynamic dim takes the rest
   of the element count. */
static MlirLogicalResult reshape(MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirType xt = mlirValueGetType(x), rt = mlirValueGetType(r);
  int64_t rank = mlirShapedTypeGetRank(rt), dims[DLC_MAX_RANK], known = 1, total = 1, at = -1;
  if (rank > DLC_MAX_RANK)
    return fail(op, "rank above 16");
  for (int64_t d = 0; d < mlirShapedTypeGetRank(xt); ++d)
    total *= mlirShapedTypeGetDimSize(xt, d);
  for (int64_t d = 0; d < rank; ++d) {
    dims[d] = mlirShapedTypeGetDimSize(rt, d);
    if (mlirShapedTypeIsDynamicDim(rt, d)) {
      if (at >= 0)
        return fail(op, "the target shape has more than one dynamic dimension");
      at = d;
    } else {
      known *= dims[d];
    }
  }
  if (at >= 0) {
    if (known == 0 || total % known)
      return fail(op, "the element count does not divide by the target's static dimensions");
    dims[at] = total / known;
  }
  mlirValueSetType(r, mlirRankedTensorTypeGet(rank, dims, mlirShapedTypeGetElementType(rt),
                                              mlirRankedTensorTypeGetEncoding(rt)));
  return kSuccess;
}

/* cast: the operand's shape, the result's element type. */
static void cast(MlirOperation op) {
  MlirType xt = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirValue r = mlirOperationGetResult(op, 0);
  int64_t rank = mlirShapedTypeGetRank(xt), dims[DLC_MAX_RANK];
  for (int64_t d = 0; d < rank && d < DLC_MAX_RANK; ++d)
    dims[d] = mlirShapedTypeGetDimSize(xt, d);
  mlirValueSetType(r, mlirRankedTensorTypeGet(
                          rank, dims, mlirShapedTypeGetElementType(mlirValueGetType(r)),
                          mlirAttributeGetNull()));
}

/* Any other dlg op: built again from its operands and attributes, so its
   shape rule infers the result types (and rejects what no longer fits). */
static MlirLogicalResult reinfer(MlirOperation op) {
  intptr_t no = mlirOperationGetNumOperands(op), nr = mlirOperationGetNumResults(op);
  MlirValue *operands = dlcXmalloc(sizeof *operands * (size_t)(no + 1));
  for (intptr_t i = 0; i < no; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirOperation fresh = dlcBuildOpLike(&b, op, no, operands);
  free(operands);
  if (mlirOperationIsNull(fresh) || mlirOperationGetNumResults(fresh) != nr)
    return kFailure; /* the shape rule said why, at the op */
  for (intptr_t i = 0; i < nr; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i),
                                  mlirOperationGetResult(fresh, i));
  mlirOperationDestroy(op);
  return kSuccess;
}

MlirLogicalResult dlcSpecializeFunction(MlirOperation func, intptr_t numTypes,
                                        const MlirType *types) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body) || mlirBlockGetNumArguments(body) != numTypes)
    return fail(func, "the argument count differs");
  for (intptr_t i = 0; i < numTypes; ++i)
    mlirValueSetType(mlirBlockGetArgument(body, i), types[i]);
  MlirOperation ret = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (dlcOpIs(op, "func.return")) {
      ret = op;
    } else if (dlcOpIs(op, "dlg.constant")) {
    } else if (dlcOpIs(op, "dlg.reshape")) {
      if (mlirLogicalResultIsFailure(reshape(op)))
        return kFailure;
    } else if (dlcOpIs(op, "dlg.cast")) {
      cast(op);
    } else if (isDlg(op)) {
      if (mlirLogicalResultIsFailure(reinfer(op)))
        return kFailure;
    } else {
      bool fixed = true;
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
        fixed &= isStatic(mlirValueGetType(mlirOperationGetOperand(op, i)));
      for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
        fixed &= isStatic(mlirValueGetType(mlirOperationGetResult(op, i)));
      if (!fixed)
        return fail(op, "only dlg ops have their shapes inferred again");
    }
  }
  if (mlirOperationIsNull(ret))
    return fail(func, "no func.return");
  intptr_t nr = mlirOperationGetNumOperands(ret);
  MlirType *results = dlcXmalloc(sizeof *results * (size_t)(nr + 1));
  for (intptr_t i = 0; i < nr; ++i)
    results[i] = mlirValueGetType(mlirOperationGetOperand(ret, i));
  MlirContext ctx = mlirOperationGetContext(func);
  mlirOperationSetAttributeByName(
      func, mlirStringRefCreateFromCString("function_type"),
      mlirTypeAttrGet(mlirFunctionTypeGet(ctx, numTypes, types, nr, results)));
  free(results);
  return mlirOperationVerify(func) ? kSuccess : kFailure;
}
