/* Data movement: transpose, reshape, concat, slice, gather, pad, and
   constants. Copies are generics (dlcCopyBody) or tensor ops (reshapes,
   slices, pads) that later passes fold into their consumers' indexing. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>

static MlirValue lowerTranspose(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0);
  int64_t perm[DLC_MAX_LOOPS];
  intptr_t rank = dlcGetI64Array(op, "perm", perm, DLC_MAX_LOOPS);
  MlirAffineExpr e[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i) /* result dim i reads input dim perm[i] */
    e[perm[i]] = dlcDim(ctx, i);
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapGet(ctx, rank, rank, e);
  g.maps[1] = dlcMapIdentity(ctx, rank);
  DlcDimSources dims = dlcDimsPermuted(x, perm, rank);
  g.outs[0] = dlcEmptyFrom(b, dlcLowerResultType(op), &dims);
  return dlcLowerOut(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
}

static MlirValue lowerReshape(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  if (!mlirShapedTypeHasStaticShape(mlirValueGetType(x)) ||
      !mlirShapedTypeHasStaticShape(dlcLowerResultType(op)))
    return dlcLowerFail(op, "reshape with dynamic dimensions is not supported yet");
  return dlcEmitReshape(b, x, dlcLowerResultType(op));
}

static MlirValue lowerConcat(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirType rt = dlcLowerResultType(op);
  if (!mlirShapedTypeHasStaticShape(rt))
    return dlcLowerFail(op, "concat with dynamic dimensions is not supported yet");
  intptr_t rank = mlirShapedTypeGetRank(rt);
  intptr_t axis = dlcLowerAxis(op, rank, 0);
  MlirValue acc = dlcEmitEmpty(b, rt, NULL, NULL);
  int64_t off[DLC_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue x = mlirOperationGetOperand(op, i);
    acc = dlcEmitInsertSlice(b, x, acc, off);
    off[axis] += mlirShapedTypeGetDimSize(mlirValueGetType(x), axis);
  }
  return acc;
}

static MlirValue lowerSlice(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0);
  DlcShape sx = dlcLowerShape(x);
  int64_t starts[DLC_MAX_LOOPS], ends[DLC_MAX_LOOPS], steps[DLC_MAX_LOOPS];
  intptr_t rank = dlcGetI64Array(op, "starts", starts, DLC_MAX_LOOPS);
  dlcGetI64Array(op, "ends", ends, DLC_MAX_LOOPS);
  if (dlcGetI64Array(op, "steps", steps, DLC_MAX_LOOPS) < 0)
    for (intptr_t i = 0; i < rank; ++i)
      steps[i] = 1;
  int64_t first[DLC_MAX_LOOPS], count;
  bool forward = true;
  for (intptr_t i = 0; i < rank; ++i) {
    if (sx.dims[i] < 0)
      return dlcLowerFail(op, "slice of a dynamic dimension is not supported yet");
    /* the first index, by slice's shape rule (the count is the result's) */
    dlcSliceAxis(sx.dims[i], starts[i], ends[i], steps[i], &first[i], &count);
    forward &= steps[i] > 0;
  }
  if (forward)
    return dlcEmitExtractSlice(b, x, dlcLowerResultType(op), first, steps);
  MlirAffineExpr e[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    e[i] = mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, i), dlcConst(ctx, steps[i])),
                                dlcConst(ctx, first[i]));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapGet(ctx, rank, rank, e);
  g.maps[1] = dlcMapIdentity(ctx, rank);
  g.outs[0] = dlcEmitEmpty(b, dlcLowerResultType(op), NULL, NULL);
  return dlcLowerOut(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
}

typedef struct {
  MlirValue data;
  intptr_t axis, idxRank, outRank;
  int64_t dim;
} GatherCtx;

static MlirNamedAttribute i64Attr(DlcBuilder *b, const char *name, int64_t v) {
  return dlcNamed(b->context, name, mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), v));
}

static bool gatherBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  GatherCtx *c = u;
  MlirType index = dlcIndexType(b->context);
  MlirValue i =
      dlcLowerOut(dlcBuildOpTyped(b, "arith.index_cast", 1, &a[0], 1, &index, DLC_NO_ATTRS));
  /* negative indices count from the end */
  MlirValue zero = dlcEmitIndex(b, 0), dim = dlcEmitIndex(b, c->dim);
  MlirType i1 = mlirIntegerTypeGet(b->context, 1);
  MlirValue neg = dlcLowerOut(dlcBuildOpTyped(b, "arith.cmpi", DLC_VALUES(i, zero), 1, &i1,
                                              DLC_ATTRS(i64Attr(b, "predicate", 2 /* slt */))));
  MlirValue wrapped = dlcArith(b, NULL, "arith.addi", i, dim);
  i = dlcLowerOut(dlcBuildOpTyped(b, "arith.select", DLC_VALUES(neg, wrapped, i), 1, &index,
                                  DLC_NO_ATTRS));
  /* An index still outside [0, dim) (ONNX: an error; constant ones the
     importer refuses) reads row 0 instead of memory past the data, and its
     result is a marker: NaN for floats, the type's lowest value for
     integers. Indices arrive at run time and kernels have no way to report
     an error yet; before this, index 10 of a 4-row table returned whatever
     followed the table and 2^40 crashed (an ONNX mutation campaign). */
  MlirType elt = mlirValueGetType(a[1]);
  MlirValue marker = dlcEmitScalar(b, elt, dlcIsFloat(elt) ? NAN : dlcLowest(elt));
  if (c->dim == 0) { /* nothing to read at all */
    y[0] = marker;
    return true;
  }
  MlirValue inRange = dlcLowerOut(dlcBuildOpTyped(b, "arith.cmpi", DLC_VALUES(i, dim), 1, &i1,
                                                  DLC_ATTRS(i64Attr(b, "predicate", 6 /* ult */))));
  i = dlcLowerOut(dlcBuildOpTyped(b, "arith.select", DLC_VALUES(inRange, i, zero), 1, &index,
                                  DLC_NO_ATTRS));
  MlirValue idx[DLC_MAX_LOOPS + 1];
  intptr_t dataRank = c->outRank - c->idxRank + 1, n = 0;
  idx[n++] = c->data;
  for (intptr_t d = 0; d < dataRank; ++d) {
    if (d == c->axis) {
      idx[n++] = i;
      continue;
    }
    intptr_t loop = d < c->axis ? d : d - 1 + c->idxRank;
    idx[n++] = dlcLowerOut(dlcBuildOpTyped(b, "linalg.index", 0, NULL, 1, &index,
                                           DLC_ATTRS(i64Attr(b, "dim", loop))));
  }
  MlirValue v = dlcLowerOut(dlcBuildOpTyped(b, "tensor.extract", n, idx, 1, &elt, DLC_NO_ATTRS));
  y[0] = dlcLowerOut(
      dlcBuildOpTyped(b, "arith.select", DLC_VALUES(inRange, v, marker), 1, &elt, DLC_NO_ATTRS));
  return true;
}

static MlirValue lowerGather(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirContext ctx = b->context;
  MlirValue data = mlirOperationGetOperand(op, 0), ids = mlirOperationGetOperand(op, 1);
  DlcShape sd = dlcLowerShape(data), si = dlcLowerShape(ids);
  intptr_t axis = dlcLowerAxis(op, sd.rank, 0);
  intptr_t outRank = sd.rank - 1 + si.rank;
  if (sd.dims[axis] < 0)
    return dlcLowerFail(op, "gather along a dynamic dimension is not supported yet");
  GatherCtx c = {data, axis, si.rank, outRank, sd.dims[axis]};
  DlcGeneric g = {.nLoops = outRank, .nIns = 1, .nOuts = 1};
  MlirAffineExpr e[DLC_MAX_LOOPS];
  for (intptr_t j = 0; j < si.rank; ++j)
    e[j] = dlcDim(ctx, axis + j);
  g.ins[0] = ids;
  g.maps[0] = dlcMapGet(ctx, outRank, si.rank, e);
  g.maps[1] = dlcMapIdentity(ctx, outRank);
  /* result dims by gather's shape rule: data's before axis, the indices',
     data's after axis */
  DlcDimSources dims = dlcDimsNone();
  for (intptr_t r = 0; r < outRank; ++r) {
    bool fromIds = r >= axis && r < axis + si.rank;
    dims.of[r] = fromIds ? ids : data;
    dims.idx[r] = r < axis ? r : fromIds ? r - axis : r - si.rank + 1;
  }
  g.outs[0] = dlcEmptyFrom(b, dlcLowerResultType(op), &dims);
  return dlcLowerOut(dlcEmitGeneric(b, &g, gatherBody, &c));
}

static MlirValue lowerPad(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  int64_t pads[2 * DLC_MAX_LOOPS];
  intptr_t n = dlcGetI64Array(op, "pads", pads, 2 * DLC_MAX_LOOPS), rank = n / 2;
  for (intptr_t i = 0; i < n; ++i)
    if (pads[i] < 0)
      return dlcLowerFail(op, "negative pads (cropping) are not supported yet");
  return dlcEmitPad(b, x, pads, pads + rank, dlcGetF64(op, "value", 0.0));
}

static MlirValue lowerConstant(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirType t = dlcLowerResultType(op);
  MlirAttribute v = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  return dlcLowerOut(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &t,
                                     DLC_ATTRS(dlcNamed(b->context, "value", v))));
}

DLC_LOWERINGS(Data,
    {"dlg.transpose", lowerTranspose}, {"dlg.reshape", lowerReshape},
    {"dlg.concat", lowerConcat},       {"dlg.slice", lowerSlice},
    {"dlg.gather", lowerGather},       {"dlg.pad", lowerPad},
    {"dlg.constant", lowerConstant});
