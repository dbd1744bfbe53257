/* Building linalg / tensor / arith IR from C (see emit.h). */

#include "lowering/emit.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirAttribute segments(MlirContext ctx, intptr_t n, const int32_t *v) {
  return mlirDenseI32ArrayGet(ctx, n, v);
}

static MlirValue result0(MlirOperation op) {
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/*--- Types and constants -----------------------------------------------------*/

MlirType dlcElementType(MlirValue v) {
  return mlirShapedTypeGetElementType(mlirValueGetType(v));
}

bool dlcIsFloat(MlirType t) { return mlirTypeIsAFloat(t); }

MlirType dlcIndexType(MlirContext ctx) { return mlirIndexTypeGet(ctx); }

MlirValue dlcEmitScalar(DlcBuilder *b, MlirType type, double v) {
  MlirAttribute a;
  if (mlirTypeIsAFloat(type))
    a = mlirFloatAttrDoubleGet(b->context, type, v);
  else if (mlirTypeIsAInteger(type) && mlirIntegerTypeGetWidth(type) == 1)
    a = mlirIntegerAttrGet(type, v != 0 ? -1 : 0);
  else /* saturating: i64's highest (2^63 - 1) is 2^63 as a double, and the
          plain conversion of 2^63 is undefined (INT64_MIN on x86) */
    a = mlirIntegerAttrGet(type, v >= 0x1p63 ? INT64_MAX : v <= -0x1p63 ? INT64_MIN : (int64_t)v);
  return result0(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &type,
                                 DLC_ATTRS(dlcNamed(b->context, "value", a))));
}

MlirValue dlcEmitIndex(DlcBuilder *b, int64_t v) {
  MlirType t = mlirIndexTypeGet(b->context);
  MlirAttribute a = mlirIntegerAttrGet(t, v);
  return result0(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &t,
                                 DLC_ATTRS(dlcNamed(b->context, "value", a))));
}

static double intLimit(MlirType t, bool high) {
  unsigned w = mlirIntegerTypeGetWidth(t);
  if (w == 1)
    return high ? 1 : 0;
  double m = ldexp(1.0, (int)w - 1);
  return high ? m - 1 : -m;
}

double dlcLowest(MlirType t) { return mlirTypeIsAFloat(t) ? -INFINITY : intLimit(t, false); }
double dlcHighest(MlirType t) { return mlirTypeIsAFloat(t) ? INFINITY : intLimit(t, true); }

/*--- Tensors -----------------------------------------------------------------*/

MlirValue dlcEmitDim(DlcBuilder *b, MlirValue v, int64_t i) {
  MlirType idx = mlirIndexTypeGet(b->context);
  MlirValue c = dlcEmitIndex(b, i);
  return result0(dlcBuildOpTyped(b, "tensor.dim", DLC_VALUES(v, c), 1, &idx, DLC_NO_ATTRS));
}

MlirValue dlcEmitEmpty(DlcBuilder *b, MlirType type, const MlirValue *dimOf,
                       const int64_t *dimIdx) {
  MlirValue dyn[DLC_MAX_LOOPS];
  intptr_t n = 0, rank = mlirShapedTypeGetRank(type);
  for (intptr_t i = 0; i < rank; ++i) {
    if (!mlirShapedTypeIsDynamicDim(type, i))
      continue;
    if (!dimOf || mlirValueIsNull(dimOf[i]))
      return (MlirValue){NULL};
    dyn[n++] = dlcEmitDim(b, dimOf[i], dimIdx[i]);
  }
  return result0(dlcBuildOpTyped(b, "tensor.empty", n, dyn, 1, &type, DLC_NO_ATTRS));
}

MlirOperation dlcEmitNamedLinalg(DlcBuilder *b, const char *name, intptr_t nOperands,
                                 const MlirValue *operands, MlirType resultType,
                                 intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(str(name), b->loc);
  mlirOperationStateAddOperands(&st, nOperands, operands);
  if (!mlirTypeIsNull(resultType))
    mlirOperationStateAddResults(&st, 1, &resultType);
  mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  MlirRegion region = mlirRegionCreate(); /* filled with the named op's body below */
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation op = mlirOperationCreate(&st);
  mlirLinalgFillBuiltinNamedOpRegion(op);
  return dlcBuilderInsert(b, op);
}

static MlirValue emitFill(DlcBuilder *b, MlirValue scalar, MlirValue dest) {
  MlirNamedAttribute seg =
      dlcNamed(b->context, "operandSegmentSizes", segments(b->context, 2, (int32_t[]){1, 1}));
  return result0(dlcEmitNamedLinalg(b, "linalg.fill", 2, (MlirValue[]){scalar, dest},
                                    mlirValueGetType(dest), 1, &seg));
}

MlirValue dlcEmitFilled(DlcBuilder *b, MlirType type, double v,
                        const MlirValue *dimOf, const int64_t *dimIdx) {
  MlirValue e = dlcEmitEmpty(b, type, dimOf, dimIdx);
  if (mlirValueIsNull(e))
    return e;
  MlirValue s = dlcEmitScalar(b, mlirShapedTypeGetElementType(type), v);
  return emitFill(b, s, e);
}

static MlirValue emitPad(DlcBuilder *b, MlirValue x, const int64_t *low, const int64_t *high,
                         double value, bool poison) {
  MlirType t = mlirValueGetType(x), elt = mlirShapedTypeGetElementType(t);
  intptr_t rank = mlirShapedTypeGetRank(t);
  bool any = false;
  for (intptr_t i = 0; i < rank; ++i)
    any |= low[i] != 0 || high[i] != 0;
  if (!any)
    return x;
  int64_t dims[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t d = mlirShapedTypeGetDimSize(t, i);
    dims[i] = mlirShapedTypeIsDynamicDim(t, i) ? d : d + low[i] + high[i];
  }
  MlirType rt = mlirRankedTensorTypeGet(rank, dims, elt, mlirAttributeGetNull());
  MlirType idx[DLC_MAX_LOOPS];
  MlirLocation locs[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    idx[i] = mlirIndexTypeGet(b->context), locs[i] = b->loc;
  /* The padding value is defined before the pad, not in its region (the
     form canonicalize leaves): linalg's unit-dim folding of a pad fused
     into a tile clones the region, and a constant inside it crashed
     dlc-cpu-schedule run straight after dlk-to-linalg. */
  MlirValue c = poison ? mlirOperationGetResult(
                            dlcBuildOpTyped(b, "ub.poison", 0, NULL, 1, &elt, DLC_NO_ATTRS), 0)
                      : dlcEmitScalar(b, elt, value);
  MlirBlock body = mlirBlockCreate(rank, idx, locs);
  DlcBuilder in = dlcBuilderAtEnd(body, b->loc);
  dlcBuildOpTyped(&in, "tensor.yield", 1, &c, 0, NULL, DLC_NO_ATTRS);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);

  MlirOperationState st = mlirOperationStateGet(str("tensor.pad"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &x);
  mlirOperationStateAddResults(&st, 1, &rt);
  MlirNamedAttribute attrs[3] = {
      dlcNamedI64Array(b->context, "static_low", rank, low),
      dlcNamedI64Array(b->context, "static_high", rank, high),
      dlcNamed(b->context, "operandSegmentSizes",
            segments(b->context, 3, (int32_t[]){1, 0, 0}))};
  mlirOperationStateAddAttributes(&st, 3, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  return mlirOperationGetResult(dlcBuilderInsert(b, mlirOperationCreate(&st)), 0);
}

MlirValue dlcEmitPad(DlcBuilder *b, MlirValue x, const int64_t *low,
                     const int64_t *high, double value) {
  return emitPad(b, x, low, high, value, false);
}

MlirValue dlcEmitPadPoison(DlcBuilder *b, MlirValue x, const int64_t *low, const int64_t *high) {
  return emitPad(b, x, low, high, 0.0, true);
}


/* The reassociation between a shape and the one with its dims [dim, dim +
   count) merged into one (`small` dims): [[0], .., [dim, .., dim + count - 1], ..]. */
static MlirAttribute mergeGroups(MlirContext ctx, intptr_t small, intptr_t dim, intptr_t count) {
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirAttribute groups[DLC_MAX_LOOPS], members[DLC_MAX_LOOPS];
  for (intptr_t i = 0, j = 0; i < small; ++i) {
    intptr_t n = i == dim ? count : 1;
    for (intptr_t k = 0; k < n; ++k)
      members[k] = mlirIntegerAttrGet(i64, j++);
    groups[i] = mlirArrayAttrGet(ctx, n, members);
  }
  return mlirArrayAttrGet(ctx, small, groups);
}

/* The type of x with dims [dim, dim + count) merged (count > 0), or dim
   `dim` split into (extent / inner, inner) (count = 0). */
static MlirType regrouped(MlirType t, intptr_t dim, intptr_t count, int64_t inner,
                          intptr_t *outRank) {
  intptr_t rank = mlirShapedTypeGetRank(t), n = 0;
  int64_t dims[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t d = mlirShapedTypeGetDimSize(t, i);
    if (count > 0 && i > dim && i < dim + count)
      dims[n - 1] *= d;
    else if (count == 0 && i == dim)
      dims[n++] = d / inner, dims[n++] = inner;
    else
      dims[n++] = d;
  }
  *outRank = n;
  return mlirRankedTensorTypeGet(n, dims, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
}

MlirValue dlcEmitSplitDim(DlcBuilder *b, MlirValue x, intptr_t dim, int64_t inner) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x)), outRank;
  MlirType rt = regrouped(mlirValueGetType(x), dim, 0, inner, &outRank);
  int64_t dims[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < outRank; ++i)
    dims[i] = mlirShapedTypeGetDimSize(rt, i);
  return result0(dlcBuildOpTyped(
      b, "tensor.expand_shape", 1, &x, 1, &rt,
      DLC_ATTRS(dlcNamed(b->context, "reassociation", mergeGroups(b->context, rank, dim, 2)),
                dlcNamedI64Array(b->context, "static_output_shape", outRank, dims))));
}

MlirValue dlcEmitMergeDims(DlcBuilder *b, MlirValue x, intptr_t dim, intptr_t count) {
  intptr_t outRank;
  MlirType rt = regrouped(mlirValueGetType(x), dim, count, 1, &outRank);
  return result0(dlcBuildOpTyped(
      b, "tensor.collapse_shape", 1, &x, 1, &rt,
      DLC_ATTRS(dlcNamed(b->context, "reassociation",
                         mergeGroups(b->context, outRank, dim, count)))));
}

MlirValue dlcEmitTranspose(DlcBuilder *b, MlirValue x, const int64_t *perm) {
  MlirType t = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t dims[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    dims[i] = mlirShapedTypeGetDimSize(t, perm[i]);
  MlirType rt = mlirRankedTensorTypeGet(rank, dims, mlirShapedTypeGetElementType(t),
                                        mlirAttributeGetNull());
  MlirValue init = dlcEmitEmpty(b, rt, NULL, NULL);
  if (mlirValueIsNull(init))
    return init;
  MlirNamedAttribute attr = dlcNamed(b->context, "permutation",
                                     mlirDenseI64ArrayGet(b->context, rank, perm));
  return result0(dlcEmitNamedLinalg(b, "linalg.transpose", 2, (MlirValue[]){x, init}, rt, 1,
                                    &attr));
}

/* [[0, 1, ..., rank-1]] (or [] for rank 0), grouping every dim into one. */
static MlirAttribute allInOne(MlirContext ctx, intptr_t rank) {
  MlirAttribute elems[DLC_MAX_LOOPS];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  for (intptr_t i = 0; i < rank; ++i)
    elems[i] = mlirIntegerAttrGet(i64, i);
  if (rank == 0)
    return mlirArrayAttrGet(ctx, 0, NULL);
  MlirAttribute group = mlirArrayAttrGet(ctx, rank, elems);
  return mlirArrayAttrGet(ctx, 1, &group);
}

MlirValue dlcEmitReshape(DlcBuilder *b, MlirValue x, MlirType resultType) {
  MlirType t = mlirValueGetType(x), elt = mlirShapedTypeGetElementType(t);
  if (mlirTypeEqual(t, resultType))
    return x;
  intptr_t rank = mlirShapedTypeGetRank(t), outRank = mlirShapedTypeGetRank(resultType);
  int64_t n = 1;
  for (intptr_t i = 0; i < rank; ++i)
    n *= mlirShapedTypeGetDimSize(t, i);
  int64_t dims[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < outRank; ++i)
    dims[i] = mlirShapedTypeGetDimSize(resultType, i);
  /* A 0-d tensor (a full reduction) expands to all-ones dims directly: it
     cannot be "collapsed" to rank 1 first. */
  if (rank == 0)
    return result0(dlcBuildOpTyped(
        b, "tensor.expand_shape", 1, &x, 1, &resultType,
        DLC_ATTRS(dlcNamed(b->context, "reassociation", allInOne(b->context, 0)),
                  dlcNamedI64Array(b->context, "static_output_shape", outRank, dims))));
  MlirValue flat = x;
  MlirType flatType = mlirRankedTensorTypeGet(1, &n, elt, mlirAttributeGetNull());
  if (rank != 1) {
    flat = result0(dlcBuildOpTyped(
        b, "tensor.collapse_shape", 1, &x, 1, &flatType,
        DLC_ATTRS(dlcNamed(b->context, "reassociation", allInOne(b->context, rank)))));
  }
  if (outRank == 1)
    return flat;
  if (outRank == 0)
    return result0(dlcBuildOpTyped(
        b, "tensor.collapse_shape", 1, &flat, 1, &resultType,
        DLC_ATTRS(dlcNamed(b->context, "reassociation", allInOne(b->context, 0)))));
  return result0(dlcBuildOpTyped(
      b, "tensor.expand_shape", 1, &flat, 1, &resultType,
      DLC_ATTRS(dlcNamed(b->context, "reassociation", allInOne(b->context, outRank)),
                dlcNamedI64Array(b->context, "static_output_shape", outRank, dims))));
}

MlirValue dlcEmitInsertSlice(DlcBuilder *b, MlirValue src, MlirValue dest,
                             const int64_t *offsets) {
  MlirType st = mlirValueGetType(src), dt = mlirValueGetType(dest);
  intptr_t rank = mlirShapedTypeGetRank(st);
  int64_t sizes[DLC_MAX_LOOPS], strides[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    sizes[i] = mlirShapedTypeGetDimSize(st, i), strides[i] = 1;
  return result0(dlcBuildOpTyped(
      b, "tensor.insert_slice", DLC_VALUES(src, dest), 1, &dt,
      DLC_ATTRS(dlcNamedI64Array(b->context, "static_offsets", rank, offsets),
                dlcNamedI64Array(b->context, "static_sizes", rank, sizes),
                dlcNamedI64Array(b->context, "static_strides", rank, strides),
                dlcNamed(b->context, "operandSegmentSizes",
                      segments(b->context, 5, (int32_t[]){1, 1, 0, 0, 0})))));
}

MlirValue dlcEmitExtractSlice(DlcBuilder *b, MlirValue src, MlirType resultType,
                              const int64_t *offsets, const int64_t *strides) {
  intptr_t rank = mlirShapedTypeGetRank(resultType);
  int64_t sizes[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    sizes[i] = mlirShapedTypeGetDimSize(resultType, i);
  return result0(dlcBuildOpTyped(
      b, "tensor.extract_slice", 1, &src, 1, &resultType,
      DLC_ATTRS(dlcNamedI64Array(b->context, "static_offsets", rank, offsets),
                dlcNamedI64Array(b->context, "static_sizes", rank, sizes),
                dlcNamedI64Array(b->context, "static_strides", rank, strides),
                dlcNamed(b->context, "operandSegmentSizes",
                      segments(b->context, 4, (int32_t[]){1, 0, 0, 0})))));
}

/*--- linalg.generic ----------------------------------------------------------*/

MlirAffineExpr dlcDim(MlirContext ctx, intptr_t i) { return mlirAffineDimExprGet(ctx, i); }
MlirAffineExpr dlcConst(MlirContext ctx, int64_t c) {
  return mlirAffineConstantExprGet(ctx, c);
}

MlirAffineMap dlcMapIdentity(MlirContext ctx, intptr_t n) {
  return mlirAffineMapMultiDimIdentityGet(ctx, n);
}

MlirAffineMap dlcMapGet(MlirContext ctx, intptr_t nLoops, intptr_t n,
                        MlirAffineExpr *exprs) {
  return mlirAffineMapGet(ctx, nLoops, 0, n, exprs);
}

MlirAffineMap dlcMapBroadcast(MlirContext ctx, const DlcShape *s, const DlcShape *out) {
  MlirAffineExpr e[DLC_MAX_LOOPS];
  intptr_t lead = out->rank - s->rank;
  for (intptr_t j = 0; j < s->rank; ++j) {
    bool pinned = s->dims[j] == 1 && out->dims[lead + j] != 1;
    e[j] = pinned ? dlcConst(ctx, 0) : dlcDim(ctx, lead + j);
  }
  return dlcMapGet(ctx, out->rank, s->rank, e);
}

bool dlcCopyBody(DlcBuilder *b, const MlirValue *args, MlirValue *yields, void *user) {
  (void)b, (void)user;
  yields[0] = args[0];
  return true;
}

/* The body region of a linalg op over `operands` (inputs then outputs):
   one scalar block argument each, `body`'s yields returned; null when the
   body fails. */
static MlirRegion emitBody(DlcBuilder *b, const MlirValue *operands, intptr_t n, intptr_t nOuts,
                           DlcBodyFn body, void *user) {
  MlirType argTypes[12];
  MlirLocation locs[12];
  for (intptr_t i = 0; i < n; ++i)
    argTypes[i] = dlcElementType(operands[i]), locs[i] = b->loc;
  MlirBlock block = mlirBlockCreate(n, argTypes, locs);
  MlirValue args[12], yields[4];
  for (intptr_t i = 0; i < n; ++i)
    args[i] = mlirBlockGetArgument(block, i);
  DlcBuilder in = dlcBuilderAtEnd(block, b->loc);
  bool ok = body(&in, args, yields, user);
  for (intptr_t i = 0; ok && i < nOuts; ++i)
    ok = !mlirValueIsNull(yields[i]);
  if (!ok) {
    mlirBlockDestroy(block);
    return (MlirRegion){NULL};
  }
  dlcBuildOpTyped(&in, "linalg.yield", nOuts, yields, 0, NULL, DLC_NO_ATTRS);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);
  return region;
}

MlirOperation dlcEmitGeneric(DlcBuilder *b, const DlcGeneric *g, DlcBodyFn body,
                             void *user) {
  MlirContext ctx = b->context;
  intptr_t n = g->nIns + g->nOuts;
  MlirValue operands[12];
  MlirType resTypes[4];
  MlirAttribute maps[12], iters[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < n; ++i) {
    operands[i] = i < g->nIns ? g->ins[i] : g->outs[i - g->nIns];
    if (mlirValueIsNull(operands[i]))
      return (MlirOperation){NULL};
    maps[i] = mlirAffineMapAttrGet(g->maps[i]);
  }
  for (intptr_t i = 0; i < g->nOuts; ++i)
    resTypes[i] = mlirValueGetType(g->outs[i]);
  MlirAttribute par = mlirAttributeParseGet(ctx, str("#linalg.iterator_type<parallel>"));
  MlirAttribute red = mlirAttributeParseGet(ctx, str("#linalg.iterator_type<reduction>"));
  for (intptr_t i = 0; i < g->nLoops; ++i)
    iters[i] = g->reduction[i] ? red : par;
  MlirRegion region = emitBody(b, operands, n, g->nOuts, body, user);
  if (mlirRegionIsNull(region))
    return (MlirOperation){NULL};
  MlirOperationState st = mlirOperationStateGet(str("linalg.generic"), b->loc);
  mlirOperationStateAddOperands(&st, n, operands);
  mlirOperationStateAddResults(&st, g->nOuts, resTypes);
  int32_t seg[2] = {(int32_t)g->nIns, (int32_t)g->nOuts};
  MlirNamedAttribute attrs[3] = {
      dlcNamed(ctx, "indexing_maps", mlirArrayAttrGet(ctx, n, maps)),
      dlcNamed(ctx, "iterator_types", mlirArrayAttrGet(ctx, g->nLoops, iters)),
      dlcNamed(ctx, "operandSegmentSizes", segments(ctx, 2, seg))};
  mlirOperationStateAddAttributes(&st, 3, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

MlirOperation dlcEmitMap(DlcBuilder *b, const MlirValue *ins, intptr_t nIns, MlirValue init,
                         DlcBodyFn body, void *user) {
  MlirValue operands[12];
  if (nIns > 11 || mlirValueIsNull(init))
    return (MlirOperation){NULL};
  for (intptr_t i = 0; i < nIns; ++i)
    operands[i] = ins[i];
  operands[nIns] = init;
  MlirRegion region = emitBody(b, operands, nIns + 1, 1, body, user);
  if (mlirRegionIsNull(region))
    return (MlirOperation){NULL};
  MlirType rt = mlirValueGetType(init);
  MlirOperationState st = mlirOperationStateGet(str("linalg.map"), b->loc);
  mlirOperationStateAddOperands(&st, nIns + 1, operands);
  mlirOperationStateAddResults(&st, 1, &rt);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}
