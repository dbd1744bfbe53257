/* reduce_sum / reduce_mean / reduce_max / reduce_min, and the reduction
   into a tensor of the kept dims that the normalisations (norm.c) build on:
   one linalg.generic with reduction loops, accumulating into a filled
   output indexed by the kept dims. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinTypes.h"

MlirAffineMap dlcAccessMap(MlirContext ctx, DlcAccess a, intptr_t rank, const bool *reduced,
                           intptr_t axis) {
  MlirAffineExpr e[DLC_MAX_LOOPS];
  intptr_t n = 0;
  for (intptr_t i = 0; i < rank; ++i) {
    bool take = a == DLC_ACCESS_FULL || (a == DLC_ACCESS_KEPT && !reduced[i]) ||
                (a == DLC_ACCESS_TRAILING && i >= axis) || (a == DLC_ACCESS_CHANNEL && i == axis);
    if (take)
      e[n++] = dlcDim(ctx, i);
  }
  return dlcMapGet(ctx, rank, n, e);
}

/* args: x, [stat], acc */
static bool reduceBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  const DlcReduce *c = u;
  MlirValue x = a[0];
  switch (c->kind) {
  case DLC_RED_SUM: y[0] = dlcArith(b, "arith.addf", "arith.addi", a[1], x); break;
  case DLC_RED_MAX: y[0] = dlcArith(b, "arith.maximumf", "arith.maxsi", a[1], x); break;
  case DLC_RED_MIN: y[0] = dlcArith(b, "arith.minimumf", "arith.minsi", a[1], x); break;
  case DLC_RED_SUM_EXP_SHIFTED: {
    MlirValue e = dlcUnary(b, "math.exp", dlcArith(b, "arith.subf", NULL, x, a[1]));
    y[0] = dlcArith(b, "arith.addf", NULL, a[2], e);
    break;
  }
  case DLC_RED_SUM_SQ:
    y[0] = dlcArith(b, "arith.addf", NULL, a[1], dlcArith(b, "arith.mulf", NULL, x, x));
    break;
  case DLC_RED_SUM_SQ_CENTERED: {
    MlirValue mean = dlcArith(b, "arith.mulf", NULL, a[1],
                              dlcEmitScalar(b, mlirValueGetType(x), c->invN));
    MlirValue d = dlcArith(b, "arith.subf", NULL, x, mean);
    y[0] = dlcArith(b, "arith.addf", NULL, a[2], dlcArith(b, "arith.mulf", NULL, d, d));
    break;
  }
  }
  return !mlirValueIsNull(y[0]);
}

MlirValue dlcReduceInto(DlcBuilder *b, MlirOperation op, MlirValue x, const bool *reduced,
                        MlirValue stat, const DlcReduce *c) {
  MlirType xt = mlirValueGetType(x), elt = mlirShapedTypeGetElementType(xt);
  intptr_t rank = mlirShapedTypeGetRank(xt), nAxes = 0, nKept = 0;
  /* the kept dims' type by reduce_*'s shape rule; their sizes from x */
  int64_t axes[DLC_MAX_LOOPS];
  DlcDimSources dims = dlcDimsNone();
  for (intptr_t i = 0; i < rank; ++i) {
    if (reduced[i])
      axes[nAxes++] = i;
    else
      dims.of[nKept] = x, dims.idx[nKept++] = i;
  }
  DlcShape sx = dlcLowerShape(x), kept = sx; /* nothing reduced (rank 0): x's shape */
  if (nAxes > 0 && !dlcShapeReduce(&sx, axes, nAxes, false, &kept, NULL))
    return dlcLowerFail(op, "cannot lower the reduction: invalid reduced dimensions");
  MlirType kt = dlcTypeFromShape(&kept, elt);
  double init = c->kind == DLC_RED_MAX   ? dlcLowest(elt)
                : c->kind == DLC_RED_MIN ? dlcHighest(elt)
                                         : 0;
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  for (intptr_t i = 0; i < rank; ++i)
    g.reduction[i] = reduced[i];
  g.ins[0] = x;
  g.maps[0] = dlcMapIdentity(b->context, rank);
  if (!mlirValueIsNull(stat)) {
    g.ins[g.nIns] = stat;
    g.maps[g.nIns++] = dlcAccessMap(b->context, DLC_ACCESS_KEPT, rank, reduced, 0);
  }
  g.outs[0] = dlcFilledFrom(b, kt, init, &dims);
  g.maps[g.nIns] = dlcAccessMap(b->context, DLC_ACCESS_KEPT, rank, reduced, 0);
  DlcReduce body = *c;
  MlirOperation r = dlcEmitGeneric(b, &g, reduceBody, &body);
  if (mlirOperationIsNull(r))
    return dlcLowerFail(op, "cannot lower the reduction");
  return dlcLowerOut(r);
}

double dlcReducedCount(MlirType xt, const bool *reduced, intptr_t rank) {
  double n = 1;
  for (intptr_t i = 0; i < rank; ++i)
    if (reduced[i]) {
      if (mlirShapedTypeIsDynamicDim(xt, i))
        return -1;
      n *= (double)mlirShapedTypeGetDimSize(xt, i);
    }
  return n;
}

/* Which dims a reduction op reduces; false when an axis is invalid. */
static bool reducedDims(MlirOperation op, intptr_t rank, bool *reduced) {
  int64_t axes[DLC_MAX_LOOPS];
  intptr_t n = dlcGetI64Array(op, "axes", axes, DLC_MAX_LOOPS);
  for (intptr_t i = 0; i < rank; ++i)
    reduced[i] = n <= 0;
  for (intptr_t i = 0; i < n; ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank)
      return false;
    reduced[a] = true;
  }
  return true;
}

/* x * (1 / n), or x / n on integers. */
static bool divBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  double inv = *(double *)u;
  MlirType t = mlirValueGetType(a[0]);
  y[0] = dlcIsFloat(t) ? dlcArith(b, "arith.mulf", NULL, a[0], dlcEmitScalar(b, t, inv))
                       : dlcArith(b, NULL, "arith.divsi", a[0], dlcEmitScalar(b, t, 1.0 / inv));
  return true;
}

/* A parallel generic applying `body` to each element of x (and nothing else). */
static MlirValue mapEach(DlcBuilder *b, MlirValue x, DlcBodyFn body, void *u) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = g.maps[1] = dlcMapIdentity(b->context, rank);
  DlcDimSources dims = dlcDimsOf(x);
  g.outs[0] = dlcEmptyFrom(b, mlirValueGetType(x), &dims);
  return dlcLowerOut(dlcEmitGeneric(b, &g, body, u));
}

static MlirValue lowerReduce(DlcBuilder *b, MlirOperation op, DlcReduceKind kind, bool mean) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirType xt = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(xt);
  bool reduced[DLC_MAX_LOOPS];
  if (!reducedDims(op, rank, reduced))
    return dlcLowerFail(op, "axis out of range");
  DlcReduce c = {kind, 0};
  MlirValue r = dlcReduceInto(b, op, x, reduced, dlcLowerNull(), &c);
  if (mean && !mlirValueIsNull(r)) {
    double n = dlcReducedCount(xt, reduced, rank);
    if (n <= 0)
      return dlcLowerFail(op, "reduce_mean over a dynamic dimension is not supported yet");
    double inv = 1.0 / n;
    r = mapEach(b, r, divBody, &inv);
  }
  MlirType rt = dlcLowerResultType(op);
  if (mlirValueIsNull(r) || mlirTypeEqual(mlirValueGetType(r), rt))
    return r;
  if (!mlirShapedTypeHasStaticShape(rt))
    return dlcLowerFail(op, "keepdims with a dynamic dimension is not supported yet");
  return dlcEmitReshape(b, r, rt);
}

static MlirValue lowerSum(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerReduce(b, op, DLC_RED_SUM, false);
}
static MlirValue lowerMean(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerReduce(b, op, DLC_RED_SUM, true);
}
static MlirValue lowerMax(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerReduce(b, op, DLC_RED_MAX, false);
}
static MlirValue lowerMin(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerReduce(b, op, DLC_RED_MIN, false);
}

DLC_LOWERINGS(Reduction,
    {"dlg.reduce_sum", lowerSum}, {"dlg.reduce_mean", lowerMean},
    {"dlg.reduce_max", lowerMax}, {"dlg.reduce_min", lowerMin});
