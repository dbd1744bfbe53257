/* --dlk-to-linalg: every dlg op, inside dlk.kernels and outside, lowered on
   tensors to linalg / tensor / arith / math; kernels are then inlined into
   their function, their linalg ops tagged with the kernel's id and its root
   (contraction or reduction) carrying the kernel's #dlk.schedule.

   Elementwise ops become one linalg.generic each with NumPy broadcasting in
   the indexing maps; the pipeline's elementwise fusion then merges a chain
   into one generic. Reductions (reduce_*, softmax, layer_norm, rms_norm) are
   reductions into a tensor of the kept dims followed by one parallel generic
   that reads both, recomputing cheap prologues instead of materialising
   them. Contractions (matmul, conv2d) are generics with a reduction loop,
   accumulating into a zero- (or bias-) initialised output. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "lowering/emit.h"
#include "schedule/cost_model.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/Tensor.h"
#include "shape/Checked.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool is(MlirOperation op, const char *name) { return dlcOpIs(op, name); }

static MlirValue null(void) { return (MlirValue){NULL}; }

static MlirValue fail(MlirOperation op, const char *msg) {
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return null();
}

static DlcShape shapeOf(MlirValue v) {
  DlcShape s;
  dlcTypeGetShape(mlirValueGetType(v), &s);
  return s;
}

static MlirType resultType(MlirOperation op) {
  return mlirValueGetType(mlirOperationGetResult(op, 0));
}

static MlirValue out0(MlirOperation op) {
  return mlirOperationIsNull(op) ? null() : mlirOperationGetResult(op, 0);
}

/* An empty tensor of `type` whose dynamic dims are read from `like` (same
   rank, trailing-aligned) or from any operand of `op` aligned the same way. */
static MlirValue emptyLike(DlcBuilder *b, MlirOperation op, MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  MlirValue dimOf[DLC_MAX_LOOPS];
  int64_t dimIdx[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i) {
    dimOf[i] = null();
    dimIdx[i] = 0;
    if (!mlirShapedTypeIsDynamicDim(type, i))
      continue;
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k) {
      MlirValue v = mlirOperationGetOperand(op, k);
      MlirType t = mlirValueGetType(v);
      intptr_t j = i - rank + mlirShapedTypeGetRank(t);
      if (j >= 0 && mlirShapedTypeIsDynamicDim(t, j)) {
        dimOf[i] = v, dimIdx[i] = j;
        break;
      }
    }
  }
  MlirValue e = dlcEmitEmpty(b, type, dimOf, dimIdx);
  if (mlirValueIsNull(e))
    fail(op, "cannot lower: a dynamic result dimension has no matching operand dimension");
  return e;
}

/*--- Elementwise ---------------------------------------------------------------*/

typedef struct {
  MlirOperation op;
  MlirType elt;
} EwCtx;

static bool ewBody(DlcBuilder *b, const MlirValue *args, MlirValue *yields, void *u) {
  EwCtx *c = u;
  yields[0] = dlcEmitElementwise(b, c->op, args, c->elt);
  return !mlirValueIsNull(yields[0]);
}

static MlirValue lowerElementwise(DlcBuilder *b, MlirOperation op) {
  MlirType rt = resultType(op);
  DlcShape out = shapeOf(mlirOperationGetResult(op, 0));
  DlcGeneric g = {.nLoops = out.rank, .nIns = mlirOperationGetNumOperands(op), .nOuts = 1};
  for (intptr_t i = 0; i < g.nIns; ++i) {
    g.ins[i] = mlirOperationGetOperand(op, i);
    DlcShape s = shapeOf(g.ins[i]);
    g.maps[i] = dlcMapBroadcast(b->context, &s, &out);
  }
  g.outs[0] = emptyLike(b, op, rt);
  g.maps[g.nIns] = dlcMapIdentity(b->context, out.rank);
  EwCtx c = {op, mlirShapedTypeGetElementType(rt)};
  return out0(dlcEmitGeneric(b, &g, ewBody, &c));
}

/*--- Reductions ------------------------------------------------------------------*/

/* How an operand of a reduction-family generic is indexed by the loop nest
   over x's dims. */
typedef enum { FULL, KEPT, TRAILING, CHANNEL } Access;

static MlirAffineMap accessMap(MlirContext ctx, Access a, intptr_t rank,
                               const bool *reduced, intptr_t axis) {
  MlirAffineExpr e[DLC_MAX_LOOPS];
  intptr_t n = 0;
  for (intptr_t i = 0; i < rank; ++i) {
    bool take = a == FULL || (a == KEPT && !reduced[i]) ||
                (a == TRAILING && i >= axis) || (a == CHANNEL && i == axis);
    if (take)
      e[n++] = dlcDim(ctx, i);
  }
  return dlcMapGet(ctx, rank, n, e);
}

typedef enum { R_SUM, R_MAX, R_MIN, R_SUM_EXP_SHIFTED, R_SUM_SQ, R_SUM_SQ_CENTERED } RKind;

typedef struct {
  RKind kind;
  double invN; /* for R_SUM_SQ_CENTERED: the mean is sum * invN */
} RCtx;

/* args: x, [stat], acc */
static bool reduceBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  RCtx *c = u;
  MlirValue x = a[0];
  switch (c->kind) {
  case R_SUM: y[0] = dlcArith(b, "arith.addf", "arith.addi", a[1], x); break;
  case R_MAX: y[0] = dlcArith(b, "arith.maximumf", "arith.maxsi", a[1], x); break;
  case R_MIN: y[0] = dlcArith(b, "arith.minimumf", "arith.minsi", a[1], x); break;
  case R_SUM_EXP_SHIFTED: {
    MlirValue e = dlcUnary(b, "math.exp", dlcArith(b, "arith.subf", NULL, x, a[1]));
    y[0] = dlcArith(b, "arith.addf", NULL, a[2], e);
    break;
  }
  case R_SUM_SQ:
    y[0] = dlcArith(b, "arith.addf", NULL, a[1], dlcArith(b, "arith.mulf", NULL, x, x));
    break;
  case R_SUM_SQ_CENTERED: {
    MlirValue mean = dlcArith(b, "arith.mulf", NULL, a[1],
                              dlcEmitScalar(b, mlirValueGetType(x), c->invN));
    MlirValue d = dlcArith(b, "arith.subf", NULL, x, mean);
    y[0] = dlcArith(b, "arith.addf", NULL, a[2], dlcArith(b, "arith.mulf", NULL, d, d));
    break;
  }
  }
  return !mlirValueIsNull(y[0]);
}

/* Reduces x over the `reduced` dims into a tensor of the kept dims, reading
   `stat` (kept-dims shaped) when given. */
static MlirValue reduceInto(DlcBuilder *b, MlirOperation op, MlirValue x,
                            const bool *reduced, MlirValue stat, RCtx *c) {
  MlirType xt = mlirValueGetType(x), elt = mlirShapedTypeGetElementType(xt);
  intptr_t rank = mlirShapedTypeGetRank(xt), n = 0;
  int64_t dims[DLC_MAX_LOOPS], dimIdx[DLC_MAX_LOOPS];
  MlirValue dimOf[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    if (!reduced[i]) {
      dimOf[n] = x, dimIdx[n] = i;
      dims[n++] = mlirShapedTypeGetDimSize(xt, i);
    }
  MlirType kt = mlirRankedTensorTypeGet(n, dims, elt, mlirAttributeGetNull());
  double init = c->kind == R_MAX ? dlcLowest(elt) : c->kind == R_MIN ? dlcHighest(elt) : 0;
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  for (intptr_t i = 0; i < rank; ++i)
    g.reduction[i] = reduced[i];
  g.ins[0] = x;
  g.maps[0] = dlcMapIdentity(b->context, rank);
  if (!mlirValueIsNull(stat)) {
    g.ins[g.nIns] = stat;
    g.maps[g.nIns++] = accessMap(b->context, KEPT, rank, reduced, 0);
  }
  g.outs[0] = dlcEmitFilled(b, kt, init, dimOf, dimIdx);
  g.maps[g.nIns] = accessMap(b->context, KEPT, rank, reduced, 0);
  MlirOperation r = dlcEmitGeneric(b, &g, reduceBody, c);
  if (mlirOperationIsNull(r))
    return fail(op, "cannot lower the reduction");
  mlirOperationSetDiscardableAttributeByName(r, str("dlc.root"), mlirUnitAttrGet(b->context));
  return out0(r);
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

static bool divBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  double inv = *(double *)u;
  MlirType t = mlirValueGetType(a[0]);
  y[0] = dlcIsFloat(t) ? dlcArith(b, "arith.mulf", NULL, a[0], dlcEmitScalar(b, t, inv))
                       : dlcArith(b, NULL, "arith.divsi", a[0], dlcEmitScalar(b, t, 1.0 / inv));
  return true;
}

/* A parallel generic applying `body` to each element of x (and nothing else). */
static MlirValue mapEach(DlcBuilder *b, MlirOperation op, MlirValue x, DlcBodyFn body,
                         void *u) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = g.maps[1] = dlcMapIdentity(b->context, rank);
  MlirValue dimOf[DLC_MAX_LOOPS];
  int64_t dimIdx[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    dimOf[i] = x, dimIdx[i] = i;
  g.outs[0] = dlcEmitEmpty(b, mlirValueGetType(x), dimOf, dimIdx);
  return out0(dlcEmitGeneric(b, &g, body, u));
}

static double countOf(MlirType xt, const bool *reduced, intptr_t rank) {
  double n = 1;
  for (intptr_t i = 0; i < rank; ++i)
    if (reduced[i]) {
      if (mlirShapedTypeIsDynamicDim(xt, i))
        return -1;
      n *= (double)mlirShapedTypeGetDimSize(xt, i);
    }
  return n;
}

static MlirValue lowerReduce(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirType xt = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(xt);
  bool reduced[DLC_MAX_LOOPS];
  if (!reducedDims(op, rank, reduced))
    return fail(op, "axis out of range");
  RCtx c = {is(op, "dlg.reduce_max") ? R_MAX : is(op, "dlg.reduce_min") ? R_MIN : R_SUM, 0};
  MlirValue r = reduceInto(b, op, x, reduced, null(), &c);
  if (is(op, "dlg.reduce_mean") && !mlirValueIsNull(r)) {
    double n = countOf(xt, reduced, rank);
    if (n <= 0)
      return fail(op, "reduce_mean over a dynamic dimension is not supported yet");
    double inv = 1.0 / n;
    r = mapEach(b, op, r, divBody, &inv);
  }
  MlirType rt = resultType(op);
  if (mlirValueIsNull(r) || mlirTypeEqual(mlirValueGetType(r), rt))
    return r;
  if (!mlirShapedTypeHasStaticShape(rt))
    return fail(op, "keepdims with a dynamic dimension is not supported yet");
  return dlcEmitReshape(b, r, rt);
}

/*--- Softmax and normalisations ------------------------------------------------*/

typedef enum { F_SOFTMAX, F_LOG_SOFTMAX, F_LAYER_NORM, F_RMS_NORM, F_BATCH_NORM } FKind;

typedef struct {
  FKind kind;
  double invN, eps;
  bool hasGamma, hasBeta;
} FCtx;

/* The final parallel generic: args are x, the statistics, gamma / beta (or
   the batch_norm vectors), then the output. */
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
  MlirType t = mlirValueGetType(stat);
  intptr_t rank = mlirShapedTypeGetRank(t);
  MlirValue dimOf[DLC_MAX_LOOPS];
  int64_t dimIdx[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    dimOf[i] = stat, dimIdx[i] = i;
  SCtx c = {kind, invN, eps};
  return out0(dlcEmitMap(b, &stat, 1, dlcEmitEmpty(b, t, dimOf, dimIdx), rowBody, &c));
}

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
                              Access paramAccess, FCtx *c) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapIdentity(b->context, rank);
  for (intptr_t i = 0; i < nStats; ++i) {
    g.ins[g.nIns] = stats[i];
    g.maps[g.nIns++] = accessMap(b->context, KEPT, rank, reduced, axis);
  }
  for (intptr_t i = 0; i < nParams; ++i) {
    g.ins[g.nIns] = params[i];
    g.maps[g.nIns++] = accessMap(b->context, paramAccess, rank, reduced, axis);
  }
  g.outs[0] = emptyLike(b, op, resultType(op));
  g.maps[g.nIns] = dlcMapIdentity(b->context, rank);
  return out0(dlcEmitGeneric(b, &g, finalBody, c));
}

static intptr_t normAxis(MlirOperation op, intptr_t rank, int64_t dflt) {
  int64_t a = dlcGetI64(op, "axis", dflt);
  return a < 0 ? a + rank : a;
}

static MlirValue lowerSoftmax(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  intptr_t axis = normAxis(op, rank, -1);
  bool reduced[DLC_MAX_LOOPS] = {false};
  reduced[axis] = true;
  RCtx cmax = {R_MAX, 0}, csum = {R_SUM_EXP_SHIFTED, 0};
  MlirValue stats[2];
  stats[0] = reduceInto(b, op, x, reduced, null(), &cmax);
  stats[1] = reduceInto(b, op, x, reduced, stats[0], &csum);
  bool log = is(op, "dlg.log_softmax");
  stats[1] = rowStat(b, stats[1], log ? S_LOG : S_RECIPROCAL, 0, 0);
  FCtx c = {log ? F_LOG_SOFTMAX : F_SOFTMAX, 0, 0, false, false};
  return finalGeneric(b, op, x, reduced, axis, stats, 2, NULL, 0, FULL, &c);
}

/* Optional operands of layer_norm / rms_norm, through operandSegmentSizes
   when present. */
static void normParams(MlirOperation op, MlirValue *gamma, MlirValue *beta) {
  *gamma = *beta = null();
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirAttribute seg = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
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

static MlirValue lowerNorm(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0), gamma, beta;
  MlirType xt = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(xt);
  intptr_t axis = normAxis(op, rank, -1);
  bool reduced[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    reduced[i] = i >= axis;
  double n = countOf(xt, reduced, rank);
  if (n <= 0)
    return fail(op, "normalising over a dynamic dimension is not supported yet");
  normParams(op, &gamma, &beta);
  bool layer = is(op, "dlg.layer_norm");
  FCtx c = {layer ? F_LAYER_NORM : F_RMS_NORM, 1.0 / n, dlcGetF64(op, "epsilon", 1e-5),
            !mlirValueIsNull(gamma), !mlirValueIsNull(beta)};
  MlirValue stats[2], params[2];
  intptr_t nParams = 0;
  if (c.hasGamma)
    params[nParams++] = gamma;
  if (c.hasBeta)
    params[nParams++] = beta;
  if (layer) {
    RCtx s1 = {R_SUM, 0}, s2 = {R_SUM_SQ_CENTERED, 1.0 / n};
    stats[0] = reduceInto(b, op, x, reduced, null(), &s1);
    stats[1] = reduceInto(b, op, x, reduced, stats[0], &s2);
    stats[0] = rowStat(b, stats[0], S_MEAN, c.invN, 0);
    stats[1] = rowStat(b, stats[1], S_INV_STD, c.invN, c.eps);
    return finalGeneric(b, op, x, reduced, axis, stats, 2, params, nParams, TRAILING, &c);
  }
  RCtx s = {R_SUM_SQ, 0};
  stats[0] = rowStat(b, reduceInto(b, op, x, reduced, null(), &s), S_INV_STD, c.invN, c.eps);
  return finalGeneric(b, op, x, reduced, axis, stats, 1, params, nParams, TRAILING, &c);
}

static MlirValue lowerBatchNorm(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0), params[4];
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  intptr_t axis = normAxis(op, rank, 1);
  for (int i = 0; i < 4; ++i)
    params[i] = mlirOperationGetOperand(op, 1 + i);
  bool reduced[DLC_MAX_LOOPS] = {false};
  FCtx c = {F_BATCH_NORM, 0, dlcGetF64(op, "epsilon", 1e-5), false, false};
  return finalGeneric(b, op, x, reduced, axis, NULL, 0, params, 4, CHANNEL, &c);
}

/*--- Contractions ----------------------------------------------------------------*/

static bool macBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  MlirType t = mlirValueGetType(a[2]);
  MlirValue p = dlcConvertScalar(b, a[0], t), q = dlcConvertScalar(b, a[1], t);
  y[0] = dlcArith(b, "arith.addf", "arith.addi", a[2],
                  dlcArith(b, "arith.mulf", "arith.muli", p, q));
  return true;
}

static void markRoot(MlirOperation r, MlirContext ctx) {
  if (!mlirOperationIsNull(r))
    mlirOperationSetDiscardableAttributeByName(r, str("dlc.root"), mlirUnitAttrGet(ctx));
}


/* GEMMs read B from NR-column panels, Bp[N / NR][K][NR], packed by a named
   linalg.transpose that the schedule fuses into each output tile: the
   register tile then streams B contiguously, whatever B's row stride (rows
   a multiple of 256 bytes apart map a K x NR panel onto a few L1 sets) or
   layout (transpose_b packs the same way). The contraction runs over
   loops (panel, m, n, k) into C3[N / NR][M][NR], which a transposing copy
   turns back into C; elementwise fusion merges that copy with the
   epilogue. Packing costs K * N moves per M tile against M * K * N
   multiply-adds, so it is kept for GEMMs with enough rows. */
enum { kPackMinRows = 16 };

/* A kernel whose given #dlk.schedule names the plain GEMM's loops
   [M, N, K] keeps them. */
static bool scheduledPlain(MlirOperation op, intptr_t rank) {
  MlirOperation k = mlirOperationGetParentOperation(op);
  if (mlirOperationIsNull(k) || !dlcOpIs(k, "dlk.kernel"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(k, str("schedule"));
  DlcSchedule s;
  return !mlirAttributeIsNull(a) && dlcScheduleRead(a, &s) && s.numTiles == rank + 1;
}

/* Option `pack` of the running pass: panel packing is a CPU cache layout;
   the GPU pipeline turns it off and keeps plain [M, N, K] contractions,
   which its strategy tiles for blocks and threads. Per thread, as pass
   instances run on several threads of one process. */
static _Thread_local bool packPanels = true;

/* The panel width for B (the cost model's, 0: no packing). */
static int64_t packsB(const DlcShape *sa, const DlcShape *sb, const DlcShape *so, bool tb,
                      int64_t vw) {
  if (!packPanels)
    return 0;
  if (sa->rank != 2 || sb->rank != 2 || so->rank != 2)
    return 0;
  for (intptr_t i = 0; i < 2; ++i)
    if (sa->dims[i] == DLC_DYNAMIC || sb->dims[i] == DLC_DYNAMIC)
      return 0;
  int64_t k = tb ? sb->dims[1] : sb->dims[0], n = tb ? sb->dims[0] : sb->dims[1];
  int64_t panel = dlcGemmPanelWidth(vw, n);
  return so->dims[0] >= kPackMinRows && panel > 0 && k >= panel ? panel : 0;
}

static bool addBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  (void)u;
  y[0] = dlcArith(b, "arith.addf", NULL, a[0], a[1]);
  return true;
}

/* The GEMM on packed panels: A [M, K] (transposed: [K, M]) times
   bp [batch..., N/NR, K, NR], over loops (batch..., panel, m, n, k) into
   C3 [batch..., N/NR, M, NR], then the copy back to [batch..., M, N/NR, NR]
   (plus `bias` [M] when given), or with `outT` to the transposed
   [batch..., N/NR, NR, M] (plus `bias` [N]). */
static MlirValue emitPanelGemm(DlcBuilder *b, MlirValue a, bool ta, MlirValue bp,
                               MlirValue bias, bool outT) {
  MlirContext ctx = b->context;
  MlirType bt = mlirValueGetType(bp), et = mlirShapedTypeGetElementType(bt);
  intptr_t nb = mlirShapedTypeGetRank(bt) - 3, P = nb, M = nb + 1, N = nb + 2, K = nb + 3;
  int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(a), ta ? 1 : 0);
  int64_t dims[DLC_MAX_LOOPS];
  MlirAffineExpr be[DLC_MAX_LOOPS], ce[DLC_MAX_LOOPS], ue[DLC_MAX_LOOPS];
  for (intptr_t d = 0; d < nb; ++d) {
    be[d] = ce[d] = ue[d] = dlcDim(ctx, d);
    dims[d] = mlirShapedTypeGetDimSize(bt, d);
  }
  int64_t panels = mlirShapedTypeGetDimSize(bt, P);
  DlcGeneric g = {.nLoops = nb + 4, .nIns = 2, .nOuts = 1};
  g.reduction[K] = true;
  g.ins[0] = a;
  g.maps[0] = dlcMapGet(ctx, g.nLoops, 2,
                        (MlirAffineExpr[]){dlcDim(ctx, ta ? K : M), dlcDim(ctx, ta ? M : K)});
  g.ins[1] = bp;
  be[nb] = dlcDim(ctx, P), be[nb + 1] = dlcDim(ctx, K), be[nb + 2] = dlcDim(ctx, N);
  g.maps[1] = dlcMapGet(ctx, g.nLoops, nb + 3, be);
  ce[nb] = dlcDim(ctx, P), ce[nb + 1] = dlcDim(ctx, M), ce[nb + 2] = dlcDim(ctx, N);
  g.maps[2] = dlcMapGet(ctx, g.nLoops, nb + 3, ce);
  dims[nb] = panels, dims[nb + 1] = m, dims[nb + 2] = mlirShapedTypeGetDimSize(bt, nb + 2);
  g.outs[0] = dlcEmitFilled(b, mlirRankedTensorTypeGet(nb + 3, dims, et, mlirAttributeGetNull()),
                            0.0, NULL, NULL);
  MlirOperation r = dlcEmitGeneric(b, &g, macBody, NULL);
  markRoot(r, ctx);
  if (mlirOperationIsNull(r))
    return null();
  /* C3 -> [batch..., M, N/NR, NR] (outT: [batch..., N/NR, NR, M]), plus the bias */
  int64_t nr = dims[nb + 2];
  bool withBias = !mlirValueIsNull(bias);
  DlcGeneric u = {.nLoops = nb + 3, .nIns = withBias ? 2 : 1, .nOuts = 1};
  u.ins[0] = out0(r);
  if (outT) /* loops (batch..., panel, n, m) */
    ue[nb] = dlcDim(ctx, nb), ue[nb + 1] = dlcDim(ctx, nb + 2), ue[nb + 2] = dlcDim(ctx, nb + 1);
  else /* loops (batch..., m, panel, n) */
    ue[nb] = dlcDim(ctx, nb + 1), ue[nb + 1] = dlcDim(ctx, nb), ue[nb + 2] = dlcDim(ctx, nb + 2);
  u.maps[0] = dlcMapGet(ctx, u.nLoops, nb + 3, ue);
  if (withBias && outT) { /* bias [N] as [N/NR, NR] */
    u.ins[1] = dlcEmitSplitDim(b, bias, 0, nr);
    MlirAffineExpr pe[2] = {dlcDim(ctx, nb), dlcDim(ctx, nb + 1)};
    u.maps[1] = dlcMapGet(ctx, u.nLoops, 2, pe);
  } else if (withBias) {
    u.ins[1] = bias;
    MlirAffineExpr me = dlcDim(ctx, nb);
    u.maps[1] = dlcMapGet(ctx, u.nLoops, 1, &me);
  }
  u.maps[u.nIns] = dlcMapIdentity(ctx, u.nLoops);
  if (outT)
    dims[nb] = panels, dims[nb + 1] = nr, dims[nb + 2] = m;
  else
    dims[nb] = m, dims[nb + 1] = panels;
  u.outs[0] = dlcEmitEmpty(b, mlirRankedTensorTypeGet(nb + 3, dims, et, mlirAttributeGetNull()),
                           NULL, NULL);
  return out0(dlcEmitGeneric(b, &u, withBias ? addBody : dlcCopyBody, NULL));
}

/* C [m, n] = A x B on f32 operands, B packed into `panel`-column panels. */
static MlirValue emitPackedMatmul(DlcBuilder *b, MlirValue a, MlirValue w, bool ta, bool tb,
                                  int64_t panel) {
  /* B [K, N] -> [K, N/NR, NR] -> [N/NR, K, NR]; transposed, [N, K] -> [N/NR, NR, K]. */
  int64_t perm[3] = {1, 0, 2}, permT[3] = {0, 2, 1};
  MlirValue bp = dlcEmitTranspose(b, dlcEmitSplitDim(b, w, tb ? 0 : 1, panel), tb ? permT : perm);
  MlirValue c = emitPanelGemm(b, a, ta, bp, null(), false);
  return mlirValueIsNull(c) ? c : dlcEmitMergeDims(b, c, 1, 2);
}

static MlirValue lowerMatmul(DlcBuilder *b, MlirOperation op, int64_t vw) {
  MlirContext ctx = b->context;
  MlirValue a = mlirOperationGetOperand(op, 0), w = mlirOperationGetOperand(op, 1);
  DlcShape sa = shapeOf(a), sb = shapeOf(w), so = shapeOf(mlirOperationGetResult(op, 0));
  bool ta = dlcGetBool(op, "transpose_a", false), tb = dlcGetBool(op, "transpose_b", false);
  int64_t panel = packsB(&sa, &sb, &so, tb, vw);
  if (panel > 0 && mlirTypeIsAF32(dlcElementType(w)) && mlirTypeIsAF32(dlcElementType(a)) &&
      !scheduledPlain(op, so.rank))
    return emitPackedMatmul(b, a, w, ta, tb, panel);
  intptr_t nb = so.rank - 2, m = nb, n = nb + 1, k = nb + 2, loops = nb + 3;
  DlcGeneric g = {.nLoops = loops, .nIns = 2, .nOuts = 1};
  g.reduction[k] = true;
  const DlcShape *ss[2] = {&sa, &sb};
  for (int which = 0; which < 2; ++which) {
    const DlcShape *s = ss[which];
    MlirAffineExpr e[DLC_MAX_LOOPS];
    intptr_t lead = nb - (s->rank - 2);
    for (intptr_t j = 0; j < s->rank - 2; ++j)
      e[j] = s->dims[j] == 1 && so.dims[lead + j] != 1 ? dlcConst(ctx, 0)
                                                       : dlcDim(ctx, lead + j);
    bool t = which == 0 ? ta : tb;
    intptr_t rows = which == 0 ? m : k, cols = which == 0 ? k : n;
    e[s->rank - 2] = dlcDim(ctx, t ? cols : rows);
    e[s->rank - 1] = dlcDim(ctx, t ? rows : cols);
    g.ins[which] = which == 0 ? a : w;
    g.maps[which] = dlcMapGet(ctx, loops, s->rank, e);
  }
  MlirAffineExpr oe[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < so.rank; ++i)
    oe[i] = dlcDim(ctx, i);
  g.maps[2] = dlcMapGet(ctx, loops, so.rank, oe);
  MlirType rt = resultType(op);
  MlirValue dimOf[DLC_MAX_LOOPS];
  int64_t dimIdx[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < so.rank; ++i) { /* dynamic dims: batch/M from a, N from b */
    bool fromB = i == n;
    const DlcShape *s = fromB ? &sb : &sa;
    dimOf[i] = fromB ? w : a;
    dimIdx[i] = i == m ? (ta ? s->rank - 1 : s->rank - 2)
              : i == n ? (tb ? s->rank - 2 : s->rank - 1)
                       : i - (nb - (s->rank - 2));
  }
  g.outs[0] = dlcEmitFilled(b, rt, 0.0, dimOf, dimIdx);
  if (mlirValueIsNull(g.outs[0]))
    return fail(op, "cannot lower: a dynamic batch dimension of the result is broadcast");
  MlirOperation r = dlcEmitGeneric(b, &g, macBody, NULL);
  markRoot(r, ctx);
  return out0(r);
}

static bool copyBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  y[0] = dlcConvertScalar(b, a[0], mlirValueGetType(a[1]));
  return true;
}

/* conv2d as a GEMM (im2col): W [O, C*kH*kW] x col [C*kH*kW, Ho*Wo], where
   col copies the input window of each output pixel, then the packed GEMM
   above; the epilogue (bias, batch_norm, activation) fuses into its copy
   back to C. For up to kMaxImagesAsGemm images whose Ho*Wo is a multiple
   of the panel width:
   col costs C*kH*kW*Ho*Wo moves against O times as many multiply-adds.
   The copy is a generic with the convolution's index map: it reads the
   input rows contiguously (for stride 1), which LLVM vectorises.
   kConvPixelPanels: one GEMM over loops (image, panel, m, n, k) with W
   shared, so the code is that of one GEMM whatever the batch.
   kConvChannelPanels, for one image whose Ho*Wo no panel width divides
   (ResNet's 14x14 and 7x7 stages) but whose output channels one does:
   Y^T [Ho*Wo, O] = col^T x W^T, W packed into channel panels, col
   transposed into rows of A, and the copy back transposes to [O, Ho*Wo]. */
typedef enum { kConvPixelPanels, kConvChannelPanels } ConvGemm;

static MlirValue lowerConvAsGemm(DlcBuilder *b, MlirOperation op, MlirValue xpad,
                                 const int64_t *st, const int64_t *dl, ConvGemm mode,
                                 int64_t panel) {
  MlirContext ctx = b->context;
  MlirValue w = mlirOperationGetOperand(op, 1);
  DlcShape sw = shapeOf(w), so = shapeOf(mlirOperationGetResult(op, 0));
  int64_t images = so.dims[0], c = sw.dims[1], kh = sw.dims[2], kw = sw.dims[3];
  int64_t oh = so.dims[2], ow = so.dims[3];
  MlirType et = dlcElementType(xpad);
  enum { I, C, KH, KW, OH, OW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 1, .nOuts = 1};
  MlirAffineExpr xe[4] = {
      dlcDim(ctx, I), dlcDim(ctx, C),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OH), dlcConst(ctx, st[0])),
                           mlirAffineMulExprGet(dlcDim(ctx, KH), dlcConst(ctx, dl[0]))),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OW), dlcConst(ctx, st[1])),
                           mlirAffineMulExprGet(dlcDim(ctx, KW), dlcConst(ctx, dl[1])))};
  g.ins[0] = xpad;
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapIdentity(ctx, LOOPS);
  int64_t colDims[6] = {images, c, kh, kw, oh, ow};
  g.outs[0] = dlcEmitEmpty(b, mlirRankedTensorTypeGet(6, colDims, et, mlirAttributeGetNull()),
                           NULL, NULL);
  MlirValue col = out0(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
  if (mlirValueIsNull(col))
    return null();
  col = dlcEmitMergeDims(b, dlcEmitMergeDims(b, col, 4, 2), 1, 3); /* [N, K, Ho*Wo] */
  MlirValue bias = mlirOperationGetNumOperands(op) > 2 ? mlirOperationGetOperand(op, 2) : null();
  MlirValue y;
  if (mode == kConvPixelPanels) {
    int64_t perm[4] = {0, 2, 1, 3}; /* [N, Ho*Wo/NR, K, NR] */
    MlirValue bp = dlcEmitTranspose(b, dlcEmitSplitDim(b, col, 2, panel), perm);
    y = emitPanelGemm(b, dlcEmitMergeDims(b, w, 1, 3) /* [O, K] */, false, bp, bias, false);
  } else { /* Y^T [Ho*Wo, O] = col^T x W^T, W in [O/NR, K, NR] panels */
    MlirValue w2 = dlcEmitMergeDims(b, w, 1, 3);
    int64_t permT[3] = {0, 2, 1}, perm2[2] = {1, 0};
    MlirValue bp = dlcEmitTranspose(b, dlcEmitSplitDim(b, w2, 0, panel), permT);
    int64_t colDims2[2] = {c * kh * kw, oh * ow};
    /* col^T [Ho*Wo, K] by a named transpose, which keeps elementwise fusion
       from folding the im2col copy into the contraction's indexing */
    MlirValue a = dlcEmitTranspose(
        b, dlcEmitReshape(b, col, mlirRankedTensorTypeGet(2, colDims2, et, mlirAttributeGetNull())),
        perm2);
    y = emitPanelGemm(b, a, false, bp, bias, true); /* [O/NR, NR, Ho*Wo] */
  }
  return mlirValueIsNull(y) ? y : dlcEmitReshape(b, y, resultType(op));
}

/* Batches of up to kMaxImagesAsGemm images. */
enum { kMaxImagesAsGemm = 64 };

/* The panel width of a conv2d lowered as a GEMM, 0 when it is not; `mode`
   says which operand is packed into panels. */
static int64_t convAsGemm(MlirOperation op, int64_t groups, int64_t vw, ConvGemm *mode) {
  DlcShape sx = shapeOf(mlirOperationGetOperand(op, 0)), sw = shapeOf(mlirOperationGetOperand(op, 1));
  DlcShape so = shapeOf(mlirOperationGetResult(op, 0));
  if (groups != 1 || sx.rank != 4 || so.rank != 4 || sx.dims[0] > kMaxImagesAsGemm ||
      !mlirTypeIsAF32(dlcElementType(mlirOperationGetOperand(op, 0))) ||
      !mlirTypeIsAF32(dlcElementType(mlirOperationGetOperand(op, 1))))
    return false;
  for (intptr_t i = 0; i < 4; ++i)
    if (sx.dims[i] == DLC_DYNAMIC || sw.dims[i] == DLC_DYNAMIC || so.dims[i] == DLC_DYNAMIC)
      return false;
  DlcShape sa = {2, {sw.dims[0], sw.dims[1] * sw.dims[2] * sw.dims[3]}};
  DlcShape sb = {2, {sa.dims[1], so.dims[2] * so.dims[3]}};
  DlcShape sc = {2, {sw.dims[0], sb.dims[1]}};
  int64_t panel = packsB(&sa, &sb, &sc, false, vw);
  *mode = kConvPixelPanels;
  if (panel > 0 || sx.dims[0] != 1)
    return panel;
  /* Ho*Wo not a multiple of a vector (14x14, 7x7): transposed, the output
     channels are the GEMM's columns */
  DlcShape ta = {2, {sb.dims[1], sa.dims[1]}}, tb = {2, {sa.dims[0], sa.dims[1]}};
  DlcShape tc = {2, {sb.dims[1], sa.dims[0]}};
  *mode = kConvChannelPanels;
  return packsB(&ta, &tb, &tc, true, vw);
}

static MlirValue lowerConv(DlcBuilder *b, MlirOperation op, int64_t vw) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0), w = mlirOperationGetOperand(op, 1);
  DlcShape sw = shapeOf(w), so = shapeOf(mlirOperationGetResult(op, 0));
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  dlcGetI64Array(op, "strides", st, 2);
  dlcGetI64Array(op, "dilations", dl, 2);
  dlcGetI64Array(op, "padding", pad, 4);
  int64_t groups = dlcGetI64(op, "groups", 1);
  int64_t low[4] = {0, 0, pad[0], pad[1]}, high[4] = {0, 0, pad[2], pad[3]};
  x = dlcEmitPad(b, x, low, high, 0.0);
  ConvGemm mode;
  int64_t panel = convAsGemm(op, groups, vw, &mode);
  if (panel > 0)
    return lowerConvAsGemm(b, op, x, st, dl, mode, panel);
  /* loops: n o oh ow | c kh kw */
  enum { N, O, OH, OW, C, KH, KW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 2, .nOuts = 1};
  g.reduction[C] = g.reduction[KH] = g.reduction[KW] = true;
  MlirAffineExpr ch = dlcDim(ctx, C);
  if (groups > 1) {
    int64_t og = sw.dims[0] / groups, cg = sw.dims[1];
    MlirAffineExpr grp = mlirAffineFloorDivExprGet(dlcDim(ctx, O), dlcConst(ctx, og));
    ch = mlirAffineAddExprGet(mlirAffineMulExprGet(grp, dlcConst(ctx, cg)), ch);
  }
  MlirAffineExpr xe[4] = {
      dlcDim(ctx, N), ch,
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OH), dlcConst(ctx, st[0])),
                           mlirAffineMulExprGet(dlcDim(ctx, KH), dlcConst(ctx, dl[0]))),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OW), dlcConst(ctx, st[1])),
                           mlirAffineMulExprGet(dlcDim(ctx, KW), dlcConst(ctx, dl[1])))};
  MlirAffineExpr we[4] = {dlcDim(ctx, O), dlcDim(ctx, C), dlcDim(ctx, KH), dlcDim(ctx, KW)};
  MlirAffineExpr oe[4] = {dlcDim(ctx, N), dlcDim(ctx, O), dlcDim(ctx, OH), dlcDim(ctx, OW)};
  g.ins[0] = x, g.ins[1] = w;
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapGet(ctx, LOOPS, 4, we);
  g.maps[2] = dlcMapGet(ctx, LOOPS, 4, oe);
  MlirType rt = resultType(op);
  MlirValue dimOf[4] = {x, w, null(), null()};
  int64_t dimIdx[4] = {0, 0, 0, 0};
  if (mlirOperationGetNumOperands(op) > 2) { /* start from the broadcast bias */
    MlirValue bias = mlirOperationGetOperand(op, 2);
    DlcGeneric bg = {.nLoops = 4, .nIns = 1, .nOuts = 1};
    bg.ins[0] = bias;
    MlirAffineExpr be = dlcDim(ctx, 1);
    bg.maps[0] = dlcMapGet(ctx, 4, 1, &be);
    bg.maps[1] = dlcMapIdentity(ctx, 4);
    bg.outs[0] = dlcEmitEmpty(b, rt, dimOf, dimIdx);
    g.outs[0] = out0(dlcEmitGeneric(b, &bg, copyBody, NULL));
  } else {
    g.outs[0] = dlcEmitFilled(b, rt, 0.0, dimOf, dimIdx);
  }
  if (mlirValueIsNull(g.outs[0]) || so.rank != 4)
    return fail(op, "cannot lower conv2d with dynamic spatial or channel dimensions");
  MlirOperation r = dlcEmitGeneric(b, &g, macBody, NULL);
  markRoot(r, ctx);
  return out0(r);
}

/*--- Pools -----------------------------------------------------------------------*/

static bool poolBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  bool isMax = *(bool *)u;
  y[0] = isMax ? dlcArith(b, "arith.maximumf", "arith.maxsi", a[2], a[0])
               : dlcArith(b, "arith.addf", "arith.addi", a[2], a[0]);
  return true;
}

static bool divideBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  y[0] = dlcArith(b, "arith.divf", NULL, a[0], dlcConvertScalar(b, a[1], mlirValueGetType(a[0])));
  return true;
}

static MlirValue lowerPool(DlcBuilder *b, MlirOperation op) {
  MlirContext ctx = b->context;
  bool isMax = is(op, "dlg.max_pool2d");
  MlirValue x = mlirOperationGetOperand(op, 0);
  DlcShape sx = shapeOf(x), so = shapeOf(mlirOperationGetResult(op, 0));
  int64_t k[2] = {1, 1}, st[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  dlcGetI64Array(op, "kernel", k, 2);
  dlcGetI64Array(op, "strides", st, 2);
  dlcGetI64Array(op, "padding", pad, 4);
  if (sx.dims[2] < 0 || sx.dims[3] < 0)
    return fail(op, "cannot lower pooling over dynamic spatial dimensions");
  MlirType elt = mlirShapedTypeGetElementType(resultType(op));
  int64_t low[4] = {0, 0, pad[0], pad[1]}, high[4] = {0, 0, pad[2], pad[3]};
  for (int d = 0; d < 2; ++d) { /* ceil_mode windows may run past the padding */
    int64_t need = (so.dims[2 + d] - 1) * st[d] + k[d] - (sx.dims[2 + d] + pad[d] + pad[d + 2]);
    if (need > 0)
      high[2 + d] += need;
  }
  x = dlcEmitPad(b, x, low, high, isMax ? dlcLowest(elt) : 0.0);
  enum { N, C, OH, OW, KH, KW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 2, .nOuts = 1};
  g.reduction[KH] = g.reduction[KW] = true;
  MlirAffineExpr xe[4] = {
      dlcDim(ctx, N), dlcDim(ctx, C),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OH), dlcConst(ctx, st[0])),
                           dlcDim(ctx, KH)),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OW), dlcConst(ctx, st[1])),
                           dlcDim(ctx, KW))};
  MlirAffineExpr ke[2] = {dlcDim(ctx, KH), dlcDim(ctx, KW)};
  MlirAffineExpr oe[4] = {dlcDim(ctx, N), dlcDim(ctx, C), dlcDim(ctx, OH), dlcDim(ctx, OW)};
  MlirType wt = mlirRankedTensorTypeGet(2, k, elt, mlirAttributeGetNull());
  g.ins[0] = x;
  g.ins[1] = dlcEmitEmpty(b, wt, NULL, NULL);
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapGet(ctx, LOOPS, 2, ke);
  g.maps[2] = dlcMapGet(ctx, LOOPS, 4, oe);
  MlirValue dimOf[4] = {x, x, null(), null()};
  int64_t dimIdx[4] = {0, 1, 0, 0};
  g.outs[0] = dlcEmitFilled(b, resultType(op), isMax ? dlcLowest(elt) : 0.0, dimOf, dimIdx);
  MlirOperation r = dlcEmitGeneric(b, &g, poolBody, &isMax);
  markRoot(r, ctx);
  if (isMax || mlirOperationIsNull(r))
    return out0(r);
  /* Average: divide by each window's element count (PyTorch's rule). */
  bool include = dlcGetBool(op, "count_include_pad", false);
  int64_t ho = so.dims[2], wo = so.dims[3];
  float *div = dlcXmalloc(sizeof(float) * (size_t)(ho * wo));
  for (int64_t i = 0; i < ho; ++i)
    for (int64_t j = 0; j < wo; ++j) {
      int64_t cnt[2], idx[2] = {i, j};
      for (int d = 0; d < 2; ++d) {
        int64_t lo = idx[d] * st[d] - pad[d];
        int64_t hi = lo + k[d] < sx.dims[2 + d] + pad[d + 2] ? lo + k[d]
                                                             : sx.dims[2 + d] + pad[d + 2];
        int64_t full = hi - lo;
        lo = lo < 0 ? 0 : lo;
        hi = hi > sx.dims[2 + d] ? sx.dims[2 + d] : hi;
        cnt[d] = include ? full : hi - lo;
      }
      div[i * wo + j] = (float)(cnt[0] * cnt[1]);
    }
  int64_t dd[2] = {ho, wo};
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType dt = mlirRankedTensorTypeGet(2, dd, f32, mlirAttributeGetNull());
  MlirAttribute dv = mlirDenseElementsAttrFloatGet(dt, ho * wo, div);
  free(div);
  MlirValue divisor = out0(dlcBuildOpTyped(
      b, "arith.constant", 0, NULL, 1, &dt,
      DLC_ATTRS(dlcNamed(ctx, "value", dv))));
  DlcGeneric q = {.nLoops = 4, .nIns = 2, .nOuts = 1};
  MlirAffineExpr de[2] = {dlcDim(ctx, 2), dlcDim(ctx, 3)};
  q.ins[0] = out0(r);
  q.ins[1] = divisor;
  q.maps[0] = q.maps[2] = dlcMapIdentity(ctx, 4);
  q.maps[1] = dlcMapGet(ctx, 4, 2, de);
  q.outs[0] = dlcEmitEmpty(b, resultType(op), dimOf, dimIdx);
  return out0(dlcEmitGeneric(b, &q, divideBody, NULL));
}

/*--- Data movement ---------------------------------------------------------------*/


static MlirValue lowerTranspose(DlcBuilder *b, MlirOperation op) {
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
  MlirValue dimOf[DLC_MAX_LOOPS];
  int64_t dimIdx[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    dimOf[i] = x, dimIdx[i] = perm[i];
  g.outs[0] = dlcEmitEmpty(b, resultType(op), dimOf, dimIdx);
  return out0(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
}

static MlirValue lowerReshape(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  if (!mlirShapedTypeHasStaticShape(mlirValueGetType(x)) ||
      !mlirShapedTypeHasStaticShape(resultType(op)))
    return fail(op, "reshape with dynamic dimensions is not supported yet");
  return dlcEmitReshape(b, x, resultType(op));
}

static MlirValue lowerConcat(DlcBuilder *b, MlirOperation op) {
  MlirType rt = resultType(op);
  if (!mlirShapedTypeHasStaticShape(rt))
    return fail(op, "concat with dynamic dimensions is not supported yet");
  intptr_t rank = mlirShapedTypeGetRank(rt);
  intptr_t axis = normAxis(op, rank, 0);
  MlirValue acc = dlcEmitEmpty(b, rt, NULL, NULL);
  int64_t off[DLC_MAX_LOOPS] = {0};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue x = mlirOperationGetOperand(op, i);
    acc = dlcEmitInsertSlice(b, x, acc, off);
    off[axis] += mlirShapedTypeGetDimSize(mlirValueGetType(x), axis);
  }
  return acc;
}

static MlirValue lowerSlice(DlcBuilder *b, MlirOperation op) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0);
  DlcShape sx = shapeOf(x);
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
      return fail(op, "slice of a dynamic dimension is not supported yet");
    dlcSliceAxis(sx.dims[i], starts[i], ends[i], steps[i], &first[i], &count);
    forward &= steps[i] > 0;
  }
  if (forward)
    return dlcEmitExtractSlice(b, x, resultType(op), first, steps);
  MlirAffineExpr e[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    e[i] = mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, i), dlcConst(ctx, steps[i])),
                                dlcConst(ctx, first[i]));
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapGet(ctx, rank, rank, e);
  g.maps[1] = dlcMapIdentity(ctx, rank);
  g.outs[0] = dlcEmitEmpty(b, resultType(op), NULL, NULL);
  return out0(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
}

typedef struct {
  MlirValue data;
  intptr_t axis, idxRank, outRank;
  int64_t dim;
} GatherCtx;

static bool gatherBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  GatherCtx *c = u;
  MlirType index = dlcIndexType(b->context);
  MlirValue i = out0(dlcBuildOpTyped(b, "arith.index_cast", 1, &a[0], 1, &index, DLC_NO_ATTRS));
  /* negative indices count from the end */
  MlirValue zero = dlcEmitIndex(b, 0), dim = dlcEmitIndex(b, c->dim);
  MlirType i1 = mlirIntegerTypeGet(b->context, 1);
  MlirAttribute slt = mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), 2);
  MlirValue neg = out0(dlcBuildOpTyped(
      b, "arith.cmpi", DLC_VALUES(i, zero), 1, &i1,
      DLC_ATTRS(dlcNamed(b->context, "predicate", slt))));
  MlirValue wrapped = dlcArith(b, NULL, "arith.addi", i, dim);
  i = out0(dlcBuildOpTyped(b, "arith.select", DLC_VALUES(neg, wrapped, i), 1, &index,
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
    MlirAttribute da = mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), loop);
    idx[n++] = out0(dlcBuildOpTyped(
        b, "linalg.index", 0, NULL, 1, &index,
        DLC_ATTRS(dlcNamed(b->context, "dim", da))));
  }
  MlirType elt = mlirValueGetType(a[1]);
  y[0] = out0(dlcBuildOpTyped(b, "tensor.extract", n, idx, 1, &elt, DLC_NO_ATTRS));
  return true;
}

static MlirValue lowerGather(DlcBuilder *b, MlirOperation op) {
  MlirContext ctx = b->context;
  MlirValue data = mlirOperationGetOperand(op, 0), ids = mlirOperationGetOperand(op, 1);
  DlcShape sd = shapeOf(data), si = shapeOf(ids);
  intptr_t axis = normAxis(op, sd.rank, 0);
  intptr_t outRank = sd.rank - 1 + si.rank;
  if (sd.dims[axis] < 0)
    return fail(op, "gather along a dynamic dimension is not supported yet");
  GatherCtx c = {data, axis, si.rank, outRank, sd.dims[axis]};
  DlcGeneric g = {.nLoops = outRank, .nIns = 1, .nOuts = 1};
  MlirAffineExpr e[DLC_MAX_LOOPS];
  for (intptr_t j = 0; j < si.rank; ++j)
    e[j] = dlcDim(ctx, axis + j);
  g.ins[0] = ids;
  g.maps[0] = dlcMapGet(ctx, outRank, si.rank, e);
  g.maps[1] = dlcMapIdentity(ctx, outRank);
  g.outs[0] = emptyLike(b, op, resultType(op));
  return out0(dlcEmitGeneric(b, &g, gatherBody, &c));
}

static MlirValue lowerPad(DlcBuilder *b, MlirOperation op) {
  MlirValue x = mlirOperationGetOperand(op, 0);
  int64_t pads[2 * DLC_MAX_LOOPS];
  intptr_t n = dlcGetI64Array(op, "pads", pads, 2 * DLC_MAX_LOOPS), rank = n / 2;
  for (intptr_t i = 0; i < n; ++i)
    if (pads[i] < 0)
      return fail(op, "negative pads (cropping) are not supported yet");
  return dlcEmitPad(b, x, pads, pads + rank, dlcGetF64(op, "value", 0.0));
}

static MlirValue lowerConstant(DlcBuilder *b, MlirOperation op) {
  MlirType t = resultType(op);
  MlirAttribute v = mlirOperationGetAttributeByName(op, str("value"));
  return out0(dlcBuildOpTyped(
      b, "arith.constant", 0, NULL, 1, &t,
      DLC_ATTRS(dlcNamed(b->context, "value", v))));
}

/*--- Dispatch --------------------------------------------------------------------*/

static MlirValue lowerOne(DlcBuilder *b, MlirOperation op, int64_t vw) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (dlcIsElementwiseName(name)) return lowerElementwise(b, op);
  if (is(op, "dlg.constant")) return lowerConstant(b, op);
  if (is(op, "dlg.matmul")) return lowerMatmul(b, op, vw);
  if (is(op, "dlg.conv2d")) return lowerConv(b, op, vw);
  if (is(op, "dlg.max_pool2d") || is(op, "dlg.avg_pool2d")) return lowerPool(b, op);
  if (is(op, "dlg.batch_norm")) return lowerBatchNorm(b, op);
  if (is(op, "dlg.layer_norm") || is(op, "dlg.rms_norm")) return lowerNorm(b, op);
  if (is(op, "dlg.softmax") || is(op, "dlg.log_softmax")) return lowerSoftmax(b, op);
  if (is(op, "dlg.reduce_sum") || is(op, "dlg.reduce_mean") || is(op, "dlg.reduce_max") ||
      is(op, "dlg.reduce_min"))
    return lowerReduce(b, op);
  if (is(op, "dlg.transpose")) return lowerTranspose(b, op);
  if (is(op, "dlg.reshape")) return lowerReshape(b, op);
  if (is(op, "dlg.concat")) return lowerConcat(b, op);
  if (is(op, "dlg.slice")) return lowerSlice(b, op);
  if (is(op, "dlg.gather")) return lowerGather(b, op);
  if (is(op, "dlg.pad")) return lowerPad(b, op);
  char msg[160];
  snprintf(msg, sizeof msg, "dlk-to-linalg has no lowering for '%.*s'", (int)name.length,
           name.data);
  return fail(op, msg);
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  DlcOpList *l = user;
  MlirStringRef d = mlirIdentifierStr(mlirOperationGetName(op));
  if ((d.length > 4 && memcmp(d.data, "dlg.", 4) == 0) || dlcOpIs(op, "dlk.kernel"))
    dlcOpListPush(l, op);
  return MlirWalkResultAdvance;
}

/* Turns a lowered kernel into a private function of its own, called in
   its place: kernel boundaries then survive the elementwise fusion that
   follows (it works within a function), so an expensive producer is never
   recomputed inside a consumer that dlg-fuse kept apart. The function
   carries the kernel's kind and schedule; its contraction or reduction
   root keeps the dlc.root tag for the scheduler. */
static void outlineKernel(MlirOperation k, MlirOperation parentFunc, int64_t id) {
  MlirContext ctx = mlirOperationGetContext(k);
  MlirLocation loc = mlirOperationGetLocation(k);
  MlirStringRef parent = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(parentFunc, str("sym_name")));
  char name[256];
  snprintf(name, sizeof name, "%.*s_kernel%lld", (int)parent.length, parent.data, (long long)id);

  intptr_t nIn = mlirOperationGetNumOperands(k), nOut = mlirOperationGetNumResults(k);
  MlirType *types = dlcXmalloc(sizeof(MlirType) * (size_t)(nIn + nOut + 1));
  for (intptr_t i = 0; i < nIn; ++i)
    types[i] = mlirValueGetType(mlirOperationGetOperand(k, i));
  for (intptr_t i = 0; i < nOut; ++i)
    types[nIn + i] = mlirValueGetType(mlirOperationGetResult(k, i));
  MlirType fnType = mlirFunctionTypeGet(ctx, nIn, types, nOut, types + nIn);

  /* func.return in place of dlk.yield */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(k, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirOperationState rs = mlirOperationStateGet(str("func.return"), loc);
  intptr_t nY = mlirOperationGetNumOperands(yield);
  MlirValue *ys = dlcXmalloc(sizeof(MlirValue) * (size_t)(nY + 1));
  for (intptr_t i = 0; i < nY; ++i)
    ys[i] = mlirOperationGetOperand(yield, i);
  mlirOperationStateAddOperands(&rs, nY, ys);
  mlirBlockInsertOwnedOperationBefore(body, yield, mlirOperationCreate(&rs));
  mlirOperationDestroy(yield);
  free(ys);

  MlirRegion region = mlirRegionCreate();
  mlirRegionTakeBody(region, mlirOperationGetRegion(k, 0));
  MlirAttribute kind = mlirOperationGetAttributeByName(k, str("kind"));
  MlirAttribute sched = mlirOperationGetAttributeByName(k, str("schedule"));
  MlirNamedAttribute attrs[5];
  int na = 0;
  attrs[na++] = dlcNamed(ctx, "sym_name", mlirStringAttrGet(ctx, str(name)));
  attrs[na++] = dlcNamed(ctx, "function_type", mlirTypeAttrGet(fnType));
  attrs[na++] = dlcNamed(ctx, "sym_visibility", mlirStringAttrGet(ctx, str("private")));
  if (!mlirAttributeIsNull(kind))
    attrs[na++] = dlcNamed(ctx, "dlk.kind", kind);
  if (!mlirAttributeIsNull(sched))
    attrs[na++] = dlcNamed(ctx, "dlk.schedule", sched);
  MlirOperationState fs = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&fs, na, attrs);
  mlirOperationStateAddOwnedRegions(&fs, 1, &region);
  MlirOperation fn = mlirOperationCreate(&fs);
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(parentFunc), parentFunc, fn);

  MlirOperationState cs = mlirOperationStateGet(str("func.call"), loc);
  MlirValue *args = dlcXmalloc(sizeof(MlirValue) * (size_t)(nIn + 1));
  for (intptr_t i = 0; i < nIn; ++i)
    args[i] = mlirOperationGetOperand(k, i);
  mlirOperationStateAddOperands(&cs, nIn, args);
  mlirOperationStateAddResults(&cs, nOut, types + nIn);
  MlirNamedAttribute callee = dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  mlirOperationStateAddAttributes(&cs, 1, &callee);
  MlirOperation call = mlirOperationCreate(&cs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(k), k, call);
  for (intptr_t i = 0; i < nOut; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(k, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(k);
  free(args);
  free(types);
}

/* Lowers every dlg op of one function (post-order, so kernel bodies come
   before their kernel), then outlines its kernels. */
static bool lowerFunction(MlirOperation func, int64_t vw) {
  DlcOpList l = {0};
  mlirOperationWalk(func, collect, &l, MlirWalkPostOrder);
  bool ok = true;
  int64_t kernels = 0;
  for (intptr_t i = 0; i < l.n && ok; ++i) {
    MlirOperation op = l.ops[i];
    if (dlcOpIs(op, "dlk.kernel")) {
      outlineKernel(op, func, kernels++);
      continue;
    }
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    MlirValue v = lowerOne(&b, op, vw);
    if (mlirValueIsNull(v)) {
      ok = false;
      break;
    }
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), v);
    mlirOperationDestroy(op);
  }
  dlcOpListFree(&l);
  return ok;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  packPanels = dlcOptionsGetBool(dlcPassGetOptions(pass), "pack");
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  DlcOpList funcs = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (dlcOpIs(op, "func.func"))
      dlcOpListPush(&funcs, op);
  bool ok = true;
  int64_t vw = dlcOptionsGetInt(dlcPassGetOptions(pass), "vector-width");
  for (intptr_t i = 0; i < funcs.n && ok; ++i)
    ok = lowerFunction(funcs.ops[i], vw);
  dlcOpListFree(&funcs);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry registry) {
  MlirDialectHandle handles[] = {mlirGetDialectHandle__linalg__(), mlirGetDialectHandle__tensor__(),
                                 mlirGetDialectHandle__arith__(), mlirGetDialectHandle__math__()};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i)
    mlirDialectHandleInsertDialect(handles[i], registry);
}

/* The vector width picks the GEMM panel width (the cost model's register
   tile width): 8 lanes, AVX2's, unless the pipeline says otherwise. */
static const DlcOptionDesc kOptions[] = {
    {"vector-width", "f32 lanes per vector of the target (GEMM panel width)", DLC_OPTION_INT, "8"},
    {"pack", "GEMMs and conv2d read B from packed panels (the CPU layout); false keeps "
             "plain contractions (the GPU pipeline)", DLC_OPTION_BOOL, "true"},
};

const DlcPassDescriptor dlcDlkToLinalgPass = {
    .argument = "dlk-to-linalg",
    .summary = "Lower dlk kernels and dlg ops to linalg/tensor/arith/math on tensors",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
