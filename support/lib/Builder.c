/* Building and reading ops in one call (see dlc-c/Builder.h). */

#include "dlc-c/Builder.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

DlcBuilder dlcBuilderAtEnd(MlirBlock block, MlirLocation loc) {
  DlcBuilder b = {mlirLocationGetContext(loc), loc, {NULL}, block, {NULL}};
  return b;
}

DlcBuilder dlcBuilderBefore(MlirOperation op, MlirLocation loc) {
  DlcBuilder b = {mlirLocationGetContext(loc), loc, {NULL},
                  mlirOperationGetBlock(op), op};
  return b;
}

DlcBuilder dlcBuilderForRewriter(MlirRewriterBase rewriter, MlirLocation loc) {
  DlcBuilder b = {mlirLocationGetContext(loc), loc, rewriter, {NULL}, {NULL}};
  return b;
}

MlirOperation dlcBuilderInsert(DlcBuilder *b, MlirOperation op) {
  if (mlirOperationIsNull(op))
    return op;
  if (b->rewriter.ptr)
    mlirRewriterBaseInsert(b->rewriter, op);
  else if (!mlirOperationIsNull(b->before))
    mlirBlockInsertOwnedOperationBefore(b->block, b->before, op);
  else if (!mlirBlockIsNull(b->block))
    mlirBlockAppendOwnedOperation(b->block, op);
  return op;
}

static MlirOperationState makeState(DlcBuilder *b, const char *name,
                                    intptr_t nOperands, const MlirValue *operands,
                                    intptr_t nAttrs,
                                    const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(str(name), b->loc);
  mlirOperationStateAddOperands(&st, nOperands, operands);
  mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  return st;
}

MlirOperation dlcBuildOp(DlcBuilder *b, const char *name, intptr_t nOperands,
                         const MlirValue *operands, intptr_t nAttrs,
                         const MlirNamedAttribute *attrs) {
  for (intptr_t i = 0; i < nOperands; ++i)
    if (mlirValueIsNull(operands[i])) /* an earlier build failed */
      return (MlirOperation){NULL};
  MlirOperationState st = makeState(b, name, nOperands, operands, nAttrs, attrs);
  mlirOperationStateEnableResultTypeInference(&st);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

MlirValue dlcBuildValue(DlcBuilder *b, const char *name, intptr_t nOperands,
                        const MlirValue *operands, intptr_t nAttrs,
                        const MlirNamedAttribute *attrs) {
  MlirOperation op = dlcBuildOp(b, name, nOperands, operands, nAttrs, attrs);
  if (mlirOperationIsNull(op) || mlirOperationGetNumResults(op) < 1)
    return (MlirValue){NULL};
  return mlirOperationGetResult(op, 0);
}

MlirOperation dlcBuildOpLike(DlcBuilder *b, MlirOperation like, intptr_t nOperands,
                             const MlirValue *operands) {
  intptr_t na = mlirOperationGetNumAttributes(like);
  MlirNamedAttribute *attrs = dlcXmalloc(sizeof *attrs * (size_t)(na + 1));
  for (intptr_t i = 0; i < na; ++i)
    attrs[i] = mlirOperationGetAttribute(like, i);
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(like));
  char name[128];
  snprintf(name, sizeof name, "%.*s", (int)n.length, n.data);
  MlirOperation op = dlcBuildOp(b, name, nOperands, operands, na, attrs);
  free(attrs);
  return op;
}

MlirOperation dlcBuildOpTyped(DlcBuilder *b, const char *name,
                              intptr_t nOperands, const MlirValue *operands,
                              intptr_t nResults, const MlirType *results,
                              intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  for (intptr_t i = 0; i < nOperands; ++i)
    if (mlirValueIsNull(operands[i]))
      return (MlirOperation){NULL};
  MlirOperationState st = makeState(b, name, nOperands, operands, nAttrs, attrs);
  mlirOperationStateAddResults(&st, nResults, results);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

/*--- Named attributes ------------------------------------------------------*/

MlirNamedAttribute dlcNamed(MlirContext ctx, const char *name,
                            MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(name)), attr);
}

MlirNamedAttribute dlcNamedBool(MlirContext ctx, const char *name, bool v) {
  return dlcNamed(ctx, name, mlirBoolAttrGet(ctx, v));
}

MlirNamedAttribute dlcNamedI64(MlirContext ctx, const char *name, int64_t v) {
  return dlcNamed(ctx, name,
                  mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), v));
}

MlirNamedAttribute dlcNamedF64(MlirContext ctx, const char *name, double v) {
  return dlcNamed(ctx, name, mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), v));
}

MlirNamedAttribute dlcNamedString(MlirContext ctx, const char *name,
                                  const char *v) {
  return dlcNamed(ctx, name, mlirStringAttrGet(ctx, str(v)));
}

MlirNamedAttribute dlcNamedI64Array(MlirContext ctx, const char *name,
                                    intptr_t n, const int64_t *v) {
  return dlcNamed(ctx, name, mlirDenseI64ArrayGet(ctx, n, v));
}

/*--- Reading ops -----------------------------------------------------------*/

bool dlcOpIs(MlirOperation op, const char *name) {
  if (mlirOperationIsNull(op))
    return false;
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

bool dlcOpIsAny(MlirOperation op, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (dlcOpIs(op, names[i]))
      return true;
  return false;
}

MlirOperation dlcDefiningOp(MlirValue v, const char *name) {
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(v);
  return dlcOpIs(op, name) ? op : (MlirOperation){NULL};
}

MlirOperation dlcSoleUser(MlirValue v, intptr_t *operand) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)))
    return (MlirOperation){NULL};
  if (operand)
    *operand = (intptr_t)mlirOpOperandGetOperandNumber(u);
  return mlirOpOperandGetOwner(u);
}

bool dlcConstantInt(MlirValue v, int64_t *out) {
  MlirOperation c = dlcDefiningOp(v, "arith.constant");
  if (mlirOperationIsNull(c))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(c, str("value"));
  if (!mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, str(name));
}

bool dlcGetBool(MlirOperation op, const char *name, bool dflt) {
  MlirAttribute a = attr(op, name);
  return !mlirAttributeIsNull(a) && mlirAttributeIsABool(a)
             ? mlirBoolAttrGetValue(a)
             : dflt;
}

int64_t dlcGetI64(MlirOperation op, const char *name, int64_t dflt) {
  MlirAttribute a = attr(op, name);
  return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
             ? mlirIntegerAttrGetValueInt(a)
             : dflt;
}

double dlcGetF64(MlirOperation op, const char *name, double dflt) {
  MlirAttribute a = attr(op, name);
  return !mlirAttributeIsNull(a) && mlirAttributeIsAFloat(a)
             ? mlirFloatAttrGetValueDouble(a)
             : dflt;
}

intptr_t dlcGetI64Array(MlirOperation op, const char *name, int64_t *out,
                        intptr_t cap) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a))
    return -1;
  intptr_t n = mlirDenseArrayGetNumElements(a);
  for (intptr_t i = 0; i < n && i < cap; ++i)
    out[i] = mlirDenseI64ArrayGetElement(a, i);
  return n;
}

bool dlcGetSplat(MlirValue v, double *out) {
  MlirOperation def = dlcDefiningOp(v, "dlg.constant");
  if (mlirOperationIsNull(def))
    return false;
  MlirAttribute a = attr(def, "value");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseElements(a) ||
      !mlirDenseElementsAttrIsSplat(a))
    return false;
  MlirAttribute s = mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsAFloat(s))
    *out = mlirFloatAttrGetValueDouble(s);
  else if (mlirAttributeIsAInteger(s))
    *out = (double)mlirIntegerAttrGetValueInt(s);
  else
    return false;
  return true;
}

/*--- Shapes of types -------------------------------------------------------*/

bool dlcTypeGetShape(MlirType type, DlcShape *out) {
  if (!mlirTypeIsARankedTensor(type))
    return false;
  int64_t rank = mlirShapedTypeGetRank(type);
  if (rank > DLC_MAX_RANK)
    return false;
  out->rank = rank;
  for (int64_t i = 0; i < rank; ++i)
    out->dims[i] = mlirShapedTypeGetDimSize(type, i);
  return true;
}

MlirType dlcTypeFromShape(const DlcShape *s, MlirType elementType) {
  return mlirRankedTensorTypeGet(s->rank, s->dims, elementType,
                                 mlirAttributeGetNull());
}
