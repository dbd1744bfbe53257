/* --dlg-simplify: algebraic simplification of dlg ops, as greedy rewrite
   patterns written against the MLIR C API.

   Every pattern keeps the program's meaning, including its types: an
   identity such as x * 1 only folds when the result has x's exact type (a
   broadcasting 1 that grows the shape must stay). Floating-point caveat:
   x + 0 -> x ignores the sign of a zero result (-0 + 0 is +0), as XLA and
   TOSA do.

   GELU spelled out in erf, as ONNX exporters before opset 20 write it, is
   recognised in its three groupings and becomes dlg.gelu (one polynomial
   instead of div, erf, add and two muls). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Rewrite.h"
#include "shape/Checked.h"

#include <math.h>
#include <stdlib.h>

typedef struct SimplifyState {
  MlirFrozenRewritePatternSet patterns;
  MlirGreedyRewriteDriverConfig config;
  uint64_t rewrites; /* counted by the patterns, reported as a statistic */
} SimplifyState;

static const MlirLogicalResult kSuccess = {1}, kFailure = {0};

static MlirRewriterBase asBase(MlirPatternRewriter rw) {
  return mlirPatternRewriterAsBase(rw);
}

static bool sameType(MlirValue a, MlirValue b) {
  return mlirTypeEqual(mlirValueGetType(a), mlirValueGetType(b));
}

static MlirValue operand(MlirOperation op, intptr_t i) {
  return mlirOperationGetOperand(op, i);
}

static MlirValue result(MlirOperation op) { return mlirOperationGetResult(op, 0); }

/* Replaces `op` by `v` when the types agree exactly. */
static MlirLogicalResult replaceBy(MlirPatternRewriter rw, MlirOperation op,
                                   MlirValue v, void *state) {
  if (!sameType(v, result(op)))
    return kFailure;
  mlirRewriterBaseReplaceOpWithValues(asBase(rw), op, 1, &v);
  ++((SimplifyState *)state)->rewrites;
  return kSuccess;
}

/* Rewires `op` to read `v` as its first operand, in place. */
static MlirLogicalResult setFirstOperand(MlirPatternRewriter rw, MlirOperation op,
                                         MlirValue v, void *state) {
  MlirRewriterBase base = asBase(rw);
  mlirRewriterBaseStartOpModification(base, op);
  mlirOperationSetOperand(op, 0, v);
  mlirRewriterBaseFinalizeOpModification(base, op);
  ++((SimplifyState *)state)->rewrites;
  return kSuccess;
}

static bool isSplat(MlirValue v, double want) {
  double got;
  return dlcGetSplat(v, &got) && got == want;
}

/*--- x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 --------------------------------*/

static MlirLogicalResult identityOperand(MlirOperation op, MlirPatternRewriter rw,
                                         void *state, double identity,
                                         bool commutes) {
  MlirValue lhs = operand(op, 0), rhs = operand(op, 1);
  if (isSplat(rhs, identity) && sameType(lhs, result(op)))
    return replaceBy(rw, op, lhs, state);
  if (commutes && isSplat(lhs, identity) && sameType(rhs, result(op)))
    return replaceBy(rw, op, rhs, state);
  return kFailure;
}

static MlirLogicalResult addZero(MlirRewritePattern p, MlirOperation op,
                                 MlirPatternRewriter rw, void *state) {
  return identityOperand(op, rw, state, 0.0, true);
}
static MlirLogicalResult subZero(MlirRewritePattern p, MlirOperation op,
                                 MlirPatternRewriter rw, void *state) {
  return identityOperand(op, rw, state, 0.0, false);
}
static MlirLogicalResult mulOne(MlirRewritePattern p, MlirOperation op,
                                MlirPatternRewriter rw, void *state) {
  return identityOperand(op, rw, state, 1.0, true);
}
static MlirLogicalResult divOne(MlirRewritePattern p, MlirOperation op,
                                MlirPatternRewriter rw, void *state) {
  return identityOperand(op, rw, state, 1.0, false);
}

/*--- neg(neg x), relu(relu x), relu(clamp), clamp(relu) ---------------------*/

static MlirLogicalResult negNeg(MlirRewritePattern p, MlirOperation op,
                                MlirPatternRewriter rw, void *state) {
  MlirOperation inner = dlcDefiningOp(operand(op, 0), "dlg.neg");
  if (mlirOperationIsNull(inner))
    return kFailure;
  return replaceBy(rw, op, operand(inner, 0), state);
}

static MlirLogicalResult reluOfNonNegative(MlirRewritePattern p, MlirOperation op,
                                           MlirPatternRewriter rw, void *state) {
  MlirValue x = operand(op, 0);
  /* relu(relu x) = relu x; relu(clamp(x, min >= 0)) = clamp(x, ...). */
  MlirOperation clamp = dlcDefiningOp(x, "dlg.clamp");
  bool nonNegative = !mlirOperationIsNull(dlcDefiningOp(x, "dlg.relu")) ||
                     (!mlirOperationIsNull(clamp) &&
                      dlcGetF64(clamp, "min", -1.0 / 0.0) >= 0.0);
  return nonNegative ? replaceBy(rw, op, x, state) : kFailure;
}

/* clamp(relu x, min >= 0, max) = clamp(x, min, max): drop the relu. */
static MlirLogicalResult clampOfRelu(MlirRewritePattern p, MlirOperation op,
                                     MlirPatternRewriter rw, void *state) {
  MlirOperation relu = dlcDefiningOp(operand(op, 0), "dlg.relu");
  if (mlirOperationIsNull(relu) || !(dlcGetF64(op, "min", -1.0 / 0.0) >= 0.0))
    return kFailure;
  return setFirstOperand(rw, op, operand(relu, 0), state);
}

/*--- transpose --------------------------------------------------------------*/

static bool isIdentityPerm(const int64_t *perm, intptr_t n) {
  for (intptr_t i = 0; i < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/* transpose(x, identity) = x; transpose(transpose(x, p), q) =
   transpose(x, p[q[i]]), or x when that is the identity. */
static MlirLogicalResult transposeCompose(MlirRewritePattern p, MlirOperation op,
                                          MlirPatternRewriter rw, void *state) {
  int64_t outer[DLC_MAX_RANK], innerPerm[DLC_MAX_RANK], composed[DLC_MAX_RANK];
  intptr_t n = dlcGetI64Array(op, "perm", outer, DLC_MAX_RANK);
  if (n < 0 || n > DLC_MAX_RANK)
    return kFailure;
  if (isIdentityPerm(outer, n))
    return replaceBy(rw, op, operand(op, 0), state);
  MlirOperation inner = dlcDefiningOp(operand(op, 0), "dlg.transpose");
  if (mlirOperationIsNull(inner) ||
      dlcGetI64Array(inner, "perm", innerPerm, DLC_MAX_RANK) != n)
    return kFailure;
  for (intptr_t i = 0; i < n; ++i)
    composed[i] = innerPerm[outer[i]];
  MlirValue x = operand(inner, 0);
  if (isIdentityPerm(composed, n))
    return replaceBy(rw, op, x, state);
  DlcBuilder b = dlcBuilderForRewriter(asBase(rw), mlirOperationGetLocation(op));
  MlirValue t = dlcBuildValue(&b, "dlg.transpose", DLC_VALUES(x),
                              DLC_ATTRS(dlcNamedI64Array(b.context, "perm", n, composed)));
  return mlirValueIsNull(t) ? kFailure : replaceBy(rw, op, t, state);
}

/*--- reshape ----------------------------------------------------------------*/

/* reshape(x) to x's own type = x; reshape(reshape(x)) = reshape(x). */
static MlirLogicalResult reshapeSimplify(MlirRewritePattern p, MlirOperation op,
                                         MlirPatternRewriter rw, void *state) {
  MlirValue x = operand(op, 0);
  if (sameType(x, result(op)))
    return replaceBy(rw, op, x, state);
  MlirOperation inner = dlcDefiningOp(x, "dlg.reshape");
  if (mlirOperationIsNull(inner))
    return kFailure;
  return setFirstOperand(rw, op, operand(inner, 0), state);
}

/*--- cast -------------------------------------------------------------------*/

/* Rank of an element type in the exact-widening order, by family: a cast
   from `from` to `to` is exact (injective) when every value of `from` is
   representable in `to`. */
static bool isExactCast(MlirType from, MlirType to) {
  if (mlirTypeEqual(from, to))
    return true;
  bool toF32 = mlirTypeIsAF32(to);
  bool toFloat = toF32 || mlirTypeIsAF16(to) || mlirTypeIsABF16(to);
  if (mlirTypeIsAInteger(from)) {
    unsigned w = mlirIntegerTypeGetWidth(from);
    if (w == 1)
      return true; /* 0 and 1 exist everywhere */
    if (mlirTypeIsAInteger(to))
      return mlirIntegerTypeGetWidth(to) > w;
    /* f16 and bf16 hold every integer of magnitude <= 256, f32 <= 2^24. */
    return toFloat && (w <= 8 || (toF32 && w <= 16));
  }
  if (mlirTypeIsAF16(from) || mlirTypeIsABF16(from))
    return toF32;
  return false;
}

/* cast to the same type = x; cast(cast(x)) = cast(x) (or x) when the inner
   cast is exact, since converting an exactly represented value is the same
   as converting the original. */
static MlirLogicalResult castSimplify(MlirRewritePattern p, MlirOperation op,
                                      MlirPatternRewriter rw, void *state) {
  MlirValue x = operand(op, 0);
  if (sameType(x, result(op)))
    return replaceBy(rw, op, x, state);
  MlirOperation inner = dlcDefiningOp(x, "dlg.cast");
  if (mlirOperationIsNull(inner))
    return kFailure;
  MlirValue src = operand(inner, 0);
  MlirType a = mlirShapedTypeGetElementType(mlirValueGetType(src));
  MlirType bt = mlirShapedTypeGetElementType(mlirValueGetType(x));
  if (!isExactCast(a, bt))
    return kFailure;
  if (sameType(src, result(op)))
    return replaceBy(rw, op, src, state);
  return setFirstOperand(rw, op, src, state);
}

/*--- concat of one, whole-tensor slice -------------------------------------*/

static MlirLogicalResult concatOfOne(MlirRewritePattern p, MlirOperation op,
                                     MlirPatternRewriter rw, void *state) {
  if (mlirOperationGetNumOperands(op) != 1)
    return kFailure;
  return replaceBy(rw, op, operand(op, 0), state);
}

static MlirLogicalResult wholeSlice(MlirRewritePattern p, MlirOperation op,
                                   MlirPatternRewriter rw, void *state) {
  MlirValue x = operand(op, 0);
  DlcShape s;
  int64_t starts[DLC_MAX_RANK], ends[DLC_MAX_RANK], steps[DLC_MAX_RANK];
  if (!dlcTypeGetShape(mlirValueGetType(x), &s) ||
      dlcGetI64Array(op, "starts", starts, DLC_MAX_RANK) != s.rank ||
      dlcGetI64Array(op, "ends", ends, DLC_MAX_RANK) != s.rank)
    return kFailure;
  intptr_t nSteps = dlcGetI64Array(op, "steps", steps, DLC_MAX_RANK);
  for (int64_t d = 0; d < s.rank; ++d) {
    int64_t step = nSteps < 0 ? 1 : steps[d], first, count;
    if (s.dims[d] == DLC_DYNAMIC || step != 1)
      return kFailure;
    dlcSliceAxis(s.dims[d], starts[d], ends[d], step, &first, &count);
    if (first != 0 || count != s.dims[d])
      return kFailure;
  }
  return replaceBy(rw, op, x, state);
}

/*--- GELU written out: 0.5 * x * (1 + erf(x / sqrt 2)) -> gelu(x) ------------*/

static bool splatNear(MlirValue v, double want) {
  double got;
  return dlcGetSplat(v, &got) && fabs(got - want) <= 1e-6 * fabs(want);
}

/* The two operands of `v`'s defining `name` op, or false. */
static bool operandsOf(MlirValue v, const char *name, MlirValue *a, MlirValue *b) {
  if (mlirValueIsNull(v))
    return false;
  MlirOperation op = dlcDefiningOp(v, name);
  if (mlirOperationIsNull(op) || mlirOperationGetNumOperands(op) != 2)
    return false;
  *a = operand(op, 0), *b = operand(op, 1);
  return true;
}

/* x when `v` is x * k (either order) with k a splat near `want`. */
static MlirValue scaledBy(MlirValue v, double want) {
  MlirValue a, b;
  if (operandsOf(v, "dlg.mul", &a, &b)) {
    if (splatNear(b, want)) return a;
    if (splatNear(a, want)) return b;
  }
  return (MlirValue){NULL};
}

/* x when `v` is 1 + erf(x / sqrt 2), as exporters write it (x / 1.4142135
   or x * 0.70710677, the 1 on either side). */
static MlirValue onePlusErfOf(MlirValue v) {
  MlirValue a, b, u, p, q;
  if (!operandsOf(v, "dlg.add", &a, &b))
    return (MlirValue){NULL};
  MlirValue e = splatNear(a, 1.0) ? b : splatNear(b, 1.0) ? a : (MlirValue){NULL};
  MlirOperation erf = mlirValueIsNull(e) ? (MlirOperation){NULL} : dlcDefiningOp(e, "dlg.erf");
  if (mlirOperationIsNull(erf))
    return (MlirValue){NULL};
  u = operand(erf, 0);
  if (operandsOf(u, "dlg.div", &p, &q) && splatNear(q, M_SQRT2))
    return p;
  return scaledBy(u, M_SQRT1_2);
}

static bool same(MlirValue a, MlirValue b) {
  return !mlirValueIsNull(a) && !mlirValueIsNull(b) && mlirValueEqual(a, b);
}

/* Is {a, b} = {x, 1 + erf(x / sqrt 2)} for some x? Returns x. */
static MlirValue xTimesErfTerm(MlirValue a, MlirValue b) {
  if (same(onePlusErfOf(b), a)) return a;
  if (same(onePlusErfOf(a), b)) return b;
  return (MlirValue){NULL};
}

/* The three groupings: (x * t) * 0.5, (x * 0.5) * t, x * (t * 0.5). */
static MlirLogicalResult geluFromErf(MlirRewritePattern p, MlirOperation op,
                                     MlirPatternRewriter rw, void *state) {
  MlirValue a = operand(op, 0), b = operand(op, 1), x = {NULL}, m, n;
  for (int swap = 0; swap < 2 && mlirValueIsNull(x); ++swap) {
    MlirValue l = swap ? b : a, r = swap ? a : b;
    if (splatNear(r, 0.5) && operandsOf(l, "dlg.mul", &m, &n))
      x = xTimesErfTerm(m, n);                                    /* (x * t) * 0.5 */
    if (mlirValueIsNull(x) && same(onePlusErfOf(r), scaledBy(l, 0.5)))
      x = scaledBy(l, 0.5);                                       /* (x * 0.5) * t */
    if (mlirValueIsNull(x) && same(onePlusErfOf(scaledBy(r, 0.5)), l))
      x = l;                                                      /* x * (t * 0.5) */
  }
  if (mlirValueIsNull(x) || !sameType(x, result(op)))
    return kFailure;
  DlcBuilder bld = dlcBuilderForRewriter(asBase(rw), mlirOperationGetLocation(op));
  MlirValue g = dlcBuildValue(&bld, "dlg.gelu", DLC_VALUES(x), DLC_NO_ATTRS);
  return mlirValueIsNull(g) ? kFailure : replaceBy(rw, op, g, state);
}

/*--- The pass ---------------------------------------------------------------*/

typedef MlirLogicalResult (*MatchFn)(MlirRewritePattern, MlirOperation,
                                     MlirPatternRewriter, void *);

static const struct {
  const char *root;
  MatchFn fn;
} kPatterns[] = {
    {"dlg.add", addZero},           {"dlg.sub", subZero},
    {"dlg.mul", mulOne},            {"dlg.div", divOne},
    {"dlg.mul", geluFromErf},
    {"dlg.neg", negNeg},            {"dlg.relu", reluOfNonNegative},
    {"dlg.clamp", clampOfRelu},     {"dlg.transpose", transposeCompose},
    {"dlg.reshape", reshapeSimplify}, {"dlg.cast", castSimplify},
    {"dlg.concat", concatOfOne},    {"dlg.slice", wholeSlice},
};

static void *createState(MlirContext ctx, const DlcOptions *options) {
  SimplifyState *st = dlcXcalloc(1, sizeof *st);
  MlirRewritePatternSet set = mlirRewritePatternSetCreate(ctx);
  for (size_t i = 0; i < sizeof kPatterns / sizeof kPatterns[0]; ++i) {
    MlirRewritePatternCallbacks cb = {NULL, NULL, kPatterns[i].fn};
    mlirRewritePatternSetAdd(
        set, mlirOpRewritePatternCreate(
                 mlirStringRefCreateFromCString(kPatterns[i].root), 1, ctx, cb,
                 st, 0, NULL));
  }
  st->patterns = mlirFreezeRewritePattern(set);
  mlirRewritePatternSetDestroy(set);
  st->config = mlirGreedyRewriteDriverConfigCreate();
  mlirGreedyRewriteDriverConfigSetMaxIterations(
      st->config, dlcOptionsGetInt(options, "max-iterations"));
  mlirGreedyRewriteDriverConfigSetUseTopDownTraversal(
      st->config, dlcOptionsGetBool(options, "top-down"));
  return st;
}

static void destroyState(void *p) {
  SimplifyState *st = p;
  mlirFrozenRewritePatternSetDestroy(st->patterns);
  mlirGreedyRewriteDriverConfigDestroy(st->config);
  free(st);
}

static MlirLogicalResult run(MlirOperation op, void *p, DlcPass *pass) {
  SimplifyState *st = p;
  st->rewrites = 0;
  MlirLogicalResult r =
      mlirApplyPatternsAndFoldGreedilyWithOp(op, st->patterns, st->config);
  dlcPassAddStatistic(pass, "rewrites", st->rewrites);
  /* Not converging within max-iterations leaves valid IR: not an error. */
  (void)r;
  return kSuccess;
}

static const DlcOptionDesc kOptions[] = {
    {"max-iterations", "Greedy driver iterations before giving up (-1: no limit)",
     DLC_OPTION_INT, "10"},
    {"top-down", "Visit ops top-down (bottom-up when false)", DLC_OPTION_BOOL,
     "true"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"rewrites", "Number of simplifications applied"},
};

const DlcPassDescriptor dlcDlgSimplifyPass = {
    .argument = "dlg-simplify",
    .summary = "Algebraic simplification of dlg ops (x+0, x*1, relu(relu), "
               "transpose(transpose), reshape(reshape), exact cast(cast), ...)",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .createState = createState,
    .destroyState = destroyState,
    .run = run,
};

MlirPass dlcCreateDlgSimplifyPass(void) { return dlcPassCreate(&dlcDlgSimplifyPass); }
