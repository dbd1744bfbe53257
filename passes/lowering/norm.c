/* softmax, log_softmax, layer_norm, rms_norm, batch_norm: reductions into
   a tensor of the kept dims (reduction.c), per-row values once per row by
   a linalg.map, then one parallel generic that reads x and both,
   recomputing cheap prologues instead of materialising them. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

typedef enum { F_SOFTMAX, F_LOG_SOFTMAX, F_LAYER_NORM, F_RMS_NORM, F_BATCH_NORM } FKind;

typedef struct {
  FKind kind;
  double invN, eps;
  bool hasGamma, hasBeta;
} FCtx;

/* Per-row values of the final pass, computed once per row by a linalg.map
   (which elementwise fusion leaves alone) instead of once per element:
   1/sum for softmax, log(sum) for log_softmax, the mean and 1/sqrt(var +
   eps) for the norms. */
typedef enum { S_RECIPROCAL, S_LOG, S_MEAN, S_INV_STD } SKind;

typedef struct {
  SKind kind;
  double invN, eps;
} SCtx;

static bool rowBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  SCtx *c = u;
  MlirType t = mlirValueGetType(a[0]);
  switch (c->kind) {
  case S_RECIPROCAL:
    y[0] = dlcArith(b, "arith.divf", NULL, dlcEmitScalar(b, t, 1.0), a[0]);
    break;
  case S_LOG: y[0] = dlcUnary(b, "math.log", a[0]); break;
  case S_MEAN: y[0] = dlcArith(b, "arith.mulf", NULL, a[0], dlcEmitScalar(b, t, c->invN)); break;
  case S_INV_STD:
    y[0] = dlcUnary(b, "math.rsqrt",
                    dlcArith(b, "arith.addf", NULL,
                             dlcArith(b, "arith.mulf", NULL, a[0], dlcEmitScalar(b, t, c->invN)),
                             dlcEmitScalar(b, t, c->eps)));
    break;
  }
  return !mlirValueIsNull(y[0]);
}

static MlirValue rowStat(DlcBuilder *b, MlirValue stat, SKind kind, double invN, double eps) {
  DlcDimSources dims = dlcDimsOf(stat);
  SCtx c = {kind, invN, eps};
  MlirValue init = dlcEmptyFrom(b, mlirValueGetType(stat), &dims);
  return dlcLowerOut(dlcEmitMap(b, &stat, 1, init, rowBody, &c));
}

/* The final parallel generic: args are x, the statistics, gamma / beta (or
   the batch_norm vectors), then the output. */
static bool finalBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  FCtx *c = u;
  MlirValue x = a[0];
#define ADD(p, q) dlcArith(b, "arith.addf", NULL, p, q)
#define SUB(p, q) dlcArith(b, "arith.subf", NULL, p, q)
#define MUL(p, q) dlcArith(b, "arith.mulf", NULL, p, q)
  MlirValue r;
  int next;
  switch (c->kind) {
  case F_SOFTMAX: /* x, max, 1/sum */
    y[0] = MUL(dlcUnary(b, "math.exp", SUB(x, a[1])), a[2]);
    return true;
  case F_LOG_SOFTMAX: /* x, max, log(sum) */
    y[0] = SUB(SUB(x, a[1]), a[2]);
    return true;
  case F_LAYER_NORM: /* x, mean, 1/std, [gamma], [beta] */
    r = MUL(SUB(x, a[1]), a[2]);
    next = 3;
    break;
  case F_RMS_NORM: /* x, 1/rms, [gamma] */
    r = MUL(x, a[1]);
    next = 2;
    break;
  case F_BATCH_NORM: { /* x, scale, bias, mean, var */
    MlirType t = mlirValueGetType(x);
    MlirValue inv = dlcUnary(b, "math.rsqrt", ADD(a[4], dlcEmitScalar(b, t, c->eps)));
    y[0] = ADD(MUL(SUB(x, a[3]), MUL(a[1], inv)), a[2]);
    return true;
  }
  }
  if (c->hasGamma)
    r = MUL(r, a[next++]);
  if (c->hasBeta)
    r = ADD(r, a[next++]);
  y[0] = r;
  return true;
#undef ADD
#undef SUB
#undef MUL
}

static MlirValue finalGeneric(DlcBuilder *b, MlirOperation op, MlirValue x,
                              const bool *reduced, intptr_t axis, MlirValue *stats,
                              intptr_t nStats, MlirValue *params, intptr_t nParams,
                              DlcAccess paramAccess, FCtx *c) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapIdentity(b->context, rank);
  for (intptr_t i = 0; i < nStats; ++i) {
    g.ins[g.nIns] = stats[i];
    g.maps[g.nIns++] = dlcAccessMap(b->context, DLC_ACCESS_KEPT, rank, reduced, axis);
  }
  for (intptr_t i = 0; i < nParams; ++i) {
    g.ins[g.nIns] = params[i];
    g.maps[g.nIns++] = dlcAccessMap(b->context, paramAccess, rank, reduced, axis);
  }
  g.outs[0] = dlcEmptyLike(b, op, dlcLowerResultType(op));
  g.maps[g.nIns] = dlcMapIdentity(b->context, rank);
  return dlcLowerOut(dlcEmitGeneric(b, &g, finalBody, c));
}

static MlirValue lowerSoftmaxLike(DlcBuilder *b, MlirOperation op, bool log) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  intptr_t axis = dlcLowerAxis(op, rank, -1);
  bool reduced[DLC_MAX_LOOPS] = {false};
  reduced[axis] = true;
  DlcReduce cmax = {DLC_RED_MAX, 0}, csum = {DLC_RED_SUM_EXP_SHIFTED, 0};
  MlirValue stats[2];
  stats[0] = dlcReduceInto(b, op, x, reduced, dlcLowerNull(), &cmax);
  stats[1] = dlcReduceInto(b, op, x, reduced, stats[0], &csum);
  stats[1] = rowStat(b, stats[1], log ? S_LOG : S_RECIPROCAL, 0, 0);
  FCtx c = {log ? F_LOG_SOFTMAX : F_SOFTMAX, 0, 0, false, false};
  return finalGeneric(b, op, x, reduced, axis, stats, 2, NULL, 0, DLC_ACCESS_FULL, &c);
}

static MlirValue lowerSoftmax(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerSoftmaxLike(b, op, false);
}

static MlirValue lowerLogSoftmax(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerSoftmaxLike(b, op, true);
}

/* Optional operands of layer_norm / rms_norm, through operandSegmentSizes
   when present. */
static void normParams(MlirOperation op, MlirValue *gamma, MlirValue *beta) {
  *gamma = *beta = dlcLowerNull();
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirAttribute seg = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (!mlirAttributeIsNull(seg) && mlirDenseArrayGetNumElements(seg) == 3) {
    intptr_t g = mlirDenseI32ArrayGetElement(seg, 1), bt = mlirDenseI32ArrayGetElement(seg, 2);
    if (g)
      *gamma = mlirOperationGetOperand(op, 1);
    if (bt)
      *beta = mlirOperationGetOperand(op, 1 + g);
    return;
  }
  if (n > 1)
    *gamma = mlirOperationGetOperand(op, 1);
  if (n > 2)
    *beta = mlirOperationGetOperand(op, 2);
}

static MlirValue lowerNorm(DlcBuilder *b, MlirOperation op, bool layer) {
  MlirValue x = mlirOperationGetOperand(op, 0), gamma, beta;
  MlirType xt = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(xt);
  intptr_t axis = dlcLowerAxis(op, rank, -1);
  bool reduced[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    reduced[i] = i >= axis;
  double n = dlcReducedCount(xt, reduced, rank);
  if (n <= 0)
    return dlcLowerFail(op, "normalising over a dynamic dimension is not supported yet");
  normParams(op, &gamma, &beta);
  FCtx c = {layer ? F_LAYER_NORM : F_RMS_NORM, 1.0 / n, dlcGetF64(op, "epsilon", 1e-5),
            !mlirValueIsNull(gamma), !mlirValueIsNull(beta)};
  MlirValue stats[2], params[2];
  intptr_t nParams = 0;
  if (c.hasGamma)
    params[nParams++] = gamma;
  if (c.hasBeta)
    params[nParams++] = beta;
  if (layer) {
    DlcReduce s1 = {DLC_RED_SUM, 0}, s2 = {DLC_RED_SUM_SQ_CENTERED, 1.0 / n};
    stats[0] = dlcReduceInto(b, op, x, reduced, dlcLowerNull(), &s1);
    stats[1] = dlcReduceInto(b, op, x, reduced, stats[0], &s2);
    stats[0] = rowStat(b, stats[0], S_MEAN, c.invN, 0);
    stats[1] = rowStat(b, stats[1], S_INV_STD, c.invN, c.eps);
    return finalGeneric(b, op, x, reduced, axis, stats, 2, params, nParams,
                        DLC_ACCESS_TRAILING, &c);
  }
  DlcReduce s = {DLC_RED_SUM_SQ, 0};
  stats[0] = rowStat(b, dlcReduceInto(b, op, x, reduced, dlcLowerNull(), &s), S_INV_STD, c.invN,
                     c.eps);
  return finalGeneric(b, op, x, reduced, axis, stats, 1, params, nParams, DLC_ACCESS_TRAILING,
                      &c);
}

static MlirValue lowerLayerNorm(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerNorm(b, op, true);
}

static MlirValue lowerRmsNorm(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerNorm(b, op, false);
}

static MlirValue lowerBatchNorm(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirValue x = mlirOperationGetOperand(op, 0), params[4];
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  intptr_t axis = dlcLowerAxis(op, rank, 1);
  for (int i = 0; i < 4; ++i)
    params[i] = mlirOperationGetOperand(op, 1 + i);
  bool reduced[DLC_MAX_LOOPS] = {false};
  FCtx c = {F_BATCH_NORM, 0, dlcGetF64(op, "epsilon", 1e-5), false, false};
  return finalGeneric(b, op, x, reduced, axis, NULL, 0, params, 4, DLC_ACCESS_CHANNEL, &c);
}

DLC_LOWERINGS(Norm,
    {"dlg.softmax", lowerSoftmax}, {"dlg.log_softmax", lowerLogSoftmax},
    {"dlg.layer_norm", lowerLayerNorm}, {"dlg.rms_norm", lowerRmsNorm},
    {"dlg.batch_norm", lowerBatchNorm});
