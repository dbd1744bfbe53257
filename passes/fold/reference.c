/* C reference kernels of dlg ops, for --dlg-fold-constants.

   An op is evaluated by its family (dlcDlgOpGetFamily): the unary and binary
   families by a row of scalar semantics (kElementwise, floatOp, intOp), the
   comparisons by their predicate, every other op by its row of kKernels.
   One file of some 580 lines: every kernel uses the index arithmetic and the
   NaN-aware min/max at the top; the data-movement kernels (transpose ...
   gather) are the part to move to a file of their own as the file grows. */

#include "fold/reference.h"

#include "dlc-c/Builder.h"
#include "dlc-c/DlgFamily.h"
#include "lowering/emit.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <string.h>

/* Multiply-accumulates of one folded matmul; larger ones run at run time. */
#define MAX_MATMUL_MACS ((int64_t)1 << 28)

/*--- Index arithmetic ---------------------------------------------------------*/

static void rowMajorStrides(const DlcShape *s, int64_t *st) {
  int64_t acc = 1;
  for (int64_t d = s->rank - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s->dims[d];
  }
}

/* Strides of `in` read at the multi-index of an `out` it broadcasts to:
   0 along the dims it lacks or has as 1. */
static void broadcastStrides(const DlcShape *in, const DlcShape *out,
                             int64_t *st) {
  int64_t own[DLC_MAX_RANK];
  rowMajorStrides(in, own);
  for (int64_t d = 0; d < out->rank; ++d) {
    int64_t id = d - (out->rank - in->rank);
    st[d] = id < 0 || in->dims[id] == 1 ? 0 : own[id];
  }
}

/* Advances a row-major multi-index over `s`; false past the last one. */
static bool nextIndex(int64_t *idx, const DlcShape *s) {
  for (int64_t d = s->rank - 1; d >= 0; --d) {
    if (++idx[d] < s->dims[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

static int64_t offsetOf(const int64_t *idx, const int64_t *st, int64_t rank) {
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d)
    off += idx[d] * st[d];
  return off;
}

/*--- Scalar semantics (those of the dlk-to-linalg lowering) -------------------*/

/* arith.maximumf / minimumf: NaN wins, -0 < +0. */
static double maxNaN(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}
static double minNaN(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static bool isGeluTanh(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("approximate"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  return s.length == 4 && memcmp(s.data, "tanh", 4) == 0;
}

/* The scalar semantics of the unary and binary families, one row each: an op
   of those families is folded once it has its row here and its case in
   floatOp (and intOp where integers are defined). */
typedef enum Elementwise {
  E_ADD, E_SUB, E_MUL, E_DIV, E_MAX, E_MIN, E_POW, E_FMOD,    /* binary */
  E_NEG, E_ABS, E_RELU, E_CLAMP,                               /* any type */
  E_EXP, E_LOG, E_SQRT, E_RSQRT, E_TANH, E_ERF, E_SIGMOID, E_SILU,
  E_GELU,                                                      /* float only */
  E_SIN, E_COS, E_TAN, E_ASIN, E_ACOS, E_ATAN, E_SINH, E_COSH, E_ASINH, E_ACOSH, E_ATANH,
  E_COUNT
} Elementwise;

static const char *const kElementwise[E_COUNT] = {
    "dlg.add", "dlg.sub", "dlg.mul", "dlg.div", "dlg.max", "dlg.min",
    "dlg.pow", "dlg.fmod", "dlg.neg", "dlg.abs", "dlg.relu", "dlg.clamp", "dlg.exp",
    "dlg.log", "dlg.sqrt", "dlg.rsqrt", "dlg.tanh", "dlg.erf", "dlg.sigmoid",
    "dlg.silu", "dlg.gelu", "dlg.sin", "dlg.cos", "dlg.tan", "dlg.asin", "dlg.acos",
    "dlg.atan", "dlg.sinh", "dlg.cosh", "dlg.asinh", "dlg.acosh", "dlg.atanh"};

static int elementwiseKind(MlirOperation op) {
  for (int k = 0; k < E_COUNT; ++k)
    if (dlcOpIs(op, kElementwise[k]))
      return k;
  return -1;
}

static double floatOp(int k, double a, double b, MlirOperation op) {
  switch (k) {
  case E_ADD: return a + b;
  case E_SUB: return a - b;
  case E_MUL: return a * b;
  case E_DIV: return a / b;
  case E_MAX: return maxNaN(a, b);
  case E_MIN: return minNaN(a, b);
  case E_POW: return pow(a, b);
  case E_FMOD: return fmod(a, b); /* exact: representable in the operands' type */
  case E_NEG: return -a;
  case E_ABS: return fabs(a);
  case E_RELU: return maxNaN(a, 0.0);
  case E_CLAMP:
    return minNaN(maxNaN(a, dlcGetF64(op, "min", -INFINITY)),
                  dlcGetF64(op, "max", INFINITY));
  case E_EXP: return exp(a);
  case E_LOG: return log(a);
  case E_SQRT: return sqrt(a);
  case E_RSQRT: return 1.0 / sqrt(a);
  case E_TANH: return tanh(a);
  case E_ERF: return erf(a);
  case E_SIGMOID: return sigmoid(a);
  case E_SILU: return a * sigmoid(a);
  case E_SIN: return sin(a);
  case E_COS: return cos(a);
  case E_TAN: return tan(a);
  case E_ASIN: return asin(a);
  case E_ACOS: return acos(a);
  case E_ATAN: return atan(a);
  case E_SINH: return sinh(a);
  case E_COSH: return cosh(a);
  case E_ASINH: return asinh(a);
  case E_ACOSH: return acosh(a);
  case E_ATANH: return atanh(a);
  default: /* E_GELU */
    if (isGeluTanh(op))
      return 0.5 * a *
             (1.0 + tanh(sqrt(2.0 / M_PI) * (a + 0.044715 * a * a * a)));
    return 0.5 * a * (1.0 + erf(a / sqrt(2.0)));
  }
}

/* Integer semantics of arith on `bits`-wide values (wrapping; the caller
   wraps the result). False where the result is undefined or not exact. */
static bool intOp(int k, int64_t a, int64_t b, unsigned bits,
                  MlirOperation op, int64_t *r) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int64_t lowest = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  switch (k) {
  case E_ADD: *r = (int64_t)(ua + ub); return true;
  case E_SUB: *r = (int64_t)(ua - ub); return true;
  case E_MUL: *r = (int64_t)(ua * ub); return true;
  case E_DIV:
    if (b == 0 || (a == lowest && b == -1))
      return false;
    *r = a / b;
    return true;
  case E_FMOD:
    if (b == 0)
      return false;
    *r = b == -1 ? 0 : a % b; /* INT64_MIN % -1 traps in C */
    return true;
  case E_MAX: *r = a > b ? a : b; return true;
  case E_MIN: *r = a < b ? a : b; return true;
  case E_POW: {
    if (b < 0)
      return false;
    uint64_t acc = 1, base = ua;
    for (uint64_t e = ub; e; e >>= 1, base *= base)
      if (e & 1)
        acc *= base;
    *r = (int64_t)acc;
    return true;
  }
  case E_NEG: *r = (int64_t)(0 - ua); return true;
  case E_ABS: *r = a < 0 ? (int64_t)(0 - ua) : a; return true;
  case E_RELU: *r = a > 0 ? a : 0; return true;
  case E_CLAMP: {
    double lo = ceil(dlcGetF64(op, "min", -INFINITY));
    double hi = floor(dlcGetF64(op, "max", INFINITY));
    *r = a;
    if ((double)*r < lo)
      *r = (int64_t)lo;
    if ((double)*r > hi)
      *r = (int64_t)hi;
    return true;
  }
  default:
    return false; /* transcendental ops are float-only */
  }
}

/*--- Kernels ------------------------------------------------------------------*/

static bool evalElementwise(int k, MlirOperation op, const DlcHostTensor *in,
                            intptr_t n, DlcHostTensor *out) {
  int64_t st[2][DLC_MAX_RANK], idx[DLC_MAX_RANK] = {0};
  for (intptr_t j = 0; j < n; ++j) {
    if (in[j].isFloat != out->isFloat)
      return false;
    broadcastStrides(&in[j].shape, &out->shape, st[j]);
  }
  if (!out->isFloat && out->bits == 1)
    return false; /* no arithmetic on masks */
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape)) {
    int64_t a = offsetOf(idx, st[0], out->shape.rank);
    int64_t b = n > 1 ? offsetOf(idx, st[1], out->shape.rank) : a;
    if (out->isFloat) {
      dlcHostTensorSet(out, e, floatOp(k, in[0].f[a], n > 1 ? in[1].f[b] : 0.0, op));
    } else {
      int64_t r;
      if (!intOp(k, in[0].i[a], n > 1 ? in[1].i[b] : 0, out->bits, op, &r))
        return false;
      dlcHostTensorSetInt(out, e, r);
    }
  }
  return true;
}

static bool evalWhere(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                      DlcHostTensor *out) {
  int64_t st[3][DLC_MAX_RANK], idx[DLC_MAX_RANK] = {0};
  for (int j = 0; j < 3; ++j)
    broadcastStrides(&in[j].shape, &out->shape, st[j]);
  if (in[0].isFloat || in[1].isFloat != out->isFloat || in[2].isFloat != out->isFloat)
    return false;
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape)) {
    int64_t r = out->shape.rank;
    const DlcHostTensor *pick = in[0].i[offsetOf(idx, st[0], r)] ? &in[1] : &in[2];
    int64_t off = offsetOf(idx, st[pick == &in[1] ? 1 : 2], r);
    if (out->isFloat)
      out->f[e] = pick->f[off];
    else
      out->i[e] = pick->i[off];
  }
  return true;
}

/* NumPy astype: float -> int truncates toward zero, nonzero -> true. */
static bool evalCast(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                     DlcHostTensor *out) {
  bool toMask = !out->isFloat && out->bits == 1;
  for (int64_t e = 0; e < out->size; ++e) {
    if (toMask) {
      out->i[e] = in->isFloat ? in->f[e] != 0.0 : in->i[e] != 0;
    } else if (out->isFloat) {
      if (in->isFloat)
        dlcHostTensorSet(out, e, in->f[e]);
      else
        dlcHostTensorSetInt(out, e, in->i[e]);
    } else if (in->isFloat) {
      double t = trunc(in->f[e]);
      double limit = ldexp(1.0, (int)out->bits - 1);
      if (!(t >= -limit && t < limit))
        return false; /* NaN or out of range: poison in arith */
      out->i[e] = (int64_t)t;
    } else {
      dlcHostTensorSetInt(out, e, in->i[e]);
    }
  }
  return true;
}

static void copyElement(const DlcHostTensor *from, int64_t a, DlcHostTensor *to,
                        int64_t b) {
  if (to->isFloat)
    to->f[b] = from->f[a];
  else
    to->i[b] = from->i[a];
}

static bool evalTranspose(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                          DlcHostTensor *out) {
  int64_t perm[DLC_MAX_RANK], inSt[DLC_MAX_RANK], st[DLC_MAX_RANK];
  int64_t idx[DLC_MAX_RANK] = {0};
  if (dlcGetI64Array(op, "perm", perm, DLC_MAX_RANK) != in->shape.rank)
    return false;
  rowMajorStrides(&in->shape, inSt);
  for (int64_t d = 0; d < out->shape.rank; ++d)
    st[d] = inSt[perm[d]];
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape))
    copyElement(in, offsetOf(idx, st, out->shape.rank), out, e);
  return true;
}

static bool evalConcat(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                       DlcHostTensor *out) {
  int64_t axis, outSt[DLC_MAX_RANK];
  if (!dlcNormalizeAxis(dlcGetI64(op, "axis", 0), out->shape.rank, &axis))
    return false;
  rowMajorStrides(&out->shape, outSt);
  int64_t base = 0;
  for (intptr_t j = 0; j < n; ++j) {
    int64_t idx[DLC_MAX_RANK] = {0};
    for (int64_t e = 0; e < in[j].size; ++e, nextIndex(idx, &in[j].shape))
      copyElement(&in[j], e, out,
                  offsetOf(idx, outSt, out->shape.rank) + base * outSt[axis]);
    base += in[j].shape.dims[axis];
  }
  return true;
}

static bool evalSlice(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                      DlcHostTensor *out) {
  int64_t r = in->shape.rank, starts[DLC_MAX_RANK], ends[DLC_MAX_RANK],
          steps[DLC_MAX_RANK], inSt[DLC_MAX_RANK], first[DLC_MAX_RANK],
          st[DLC_MAX_RANK], count, idx[DLC_MAX_RANK] = {0};
  if (dlcGetI64Array(op, "starts", starts, DLC_MAX_RANK) != r ||
      dlcGetI64Array(op, "ends", ends, DLC_MAX_RANK) != r)
    return false;
  if (dlcGetI64Array(op, "steps", steps, DLC_MAX_RANK) != r)
    for (int64_t d = 0; d < r; ++d)
      steps[d] = 1;
  rowMajorStrides(&in->shape, inSt);
  int64_t base = 0;
  for (int64_t d = 0; d < r; ++d) {
    dlcSliceAxis(in->shape.dims[d], starts[d], ends[d], steps[d], &first[d], &count);
    base += first[d] * inSt[d];
    st[d] = steps[d] * inSt[d];
  }
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape))
    copyElement(in, base + offsetOf(idx, st, r), out, e);
  return true;
}

static bool evalPad(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                    DlcHostTensor *out) {
  int64_t r = in->shape.rank, pads[2 * DLC_MAX_RANK], outSt[DLC_MAX_RANK];
  int64_t idx[DLC_MAX_RANK] = {0};
  if (dlcGetI64Array(op, "pads", pads, 2 * DLC_MAX_RANK) != 2 * r)
    return false;
  double value = dlcGetF64(op, "value", 0.0);
  for (int64_t e = 0; e < out->size; ++e)
    dlcHostTensorSet(out, e, value);
  rowMajorStrides(&out->shape, outSt);
  int64_t base = 0;
  for (int64_t d = 0; d < r; ++d)
    base += pads[d] * outSt[d];
  for (int64_t e = 0; e < in->size; ++e, nextIndex(idx, &in->shape))
    copyElement(in, e, out, base + offsetOf(idx, outSt, r));
  return true;
}

static bool evalGather(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                       DlcHostTensor *out) {
  const DlcHostTensor *data = &in[0], *indices = &in[1];
  int64_t axis, dataSt[DLC_MAX_RANK], idx[DLC_MAX_RANK] = {0};
  int64_t ir = indices->shape.rank;
  if (indices->isFloat ||
      !dlcNormalizeAxis(dlcGetI64(op, "axis", 0), data->shape.rank, &axis))
    return false;
  rowMajorStrides(&data->shape, dataSt);
  int64_t dim = data->shape.dims[axis];
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape)) {
    int64_t at = 0, pos = 0;
    for (int64_t d = 0; d < ir; ++d)
      at = at * indices->shape.dims[d] + idx[axis + d];
    int64_t v = indices->i[at];
    if (v < 0)
      v += dim;
    if (v < 0 || v >= dim)
      return false;
    for (int64_t d = 0; d < data->shape.rank; ++d)
      pos += (d < axis ? idx[d] : d == axis ? v : idx[d + ir - 1]) * dataSt[d];
    copyElement(data, pos, out, e);
  }
  return true;
}

static bool evalReduce(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                       DlcHostTensor *out) {
  int64_t r = in->shape.rank, axes[DLC_MAX_RANK], outSt[DLC_MAX_RANK];
  int64_t idx[DLC_MAX_RANK] = {0}, st[DLC_MAX_RANK];
  bool reduced[DLC_MAX_RANK] = {false};
  intptr_t na = dlcGetI64Array(op, "axes", axes, DLC_MAX_RANK);
  for (intptr_t j = 0; j < na; ++j) {
    int64_t a;
    if (!dlcNormalizeAxis(axes[j], r, &a))
      return false;
    reduced[a] = true;
  }
  if (na <= 0)
    for (int64_t d = 0; d < r; ++d)
      reduced[d] = true;
  bool keep = dlcGetBool(op, "keepdims", false), mean = dlcOpIs(op, "dlg.reduce_mean");
  bool isMax = dlcOpIs(op, "dlg.reduce_max"), isMin = dlcOpIs(op, "dlg.reduce_min");
  if (mean && !in->isFloat)
    return false;
  rowMajorStrides(&out->shape, outSt);
  for (int64_t d = 0, o = 0; d < r; ++d) {
    st[d] = reduced[d] ? 0 : outSt[o];
    o += !reduced[d] || keep;
  }
  for (int64_t e = 0; e < out->size; ++e) {
    if (in->isFloat)
      out->f[e] = isMax ? -INFINITY : isMin ? INFINITY : 0.0;
    else
      out->i[e] = isMax ? INT64_MIN : isMin ? INT64_MAX : 0;
  }
  for (int64_t e = 0; e < in->size; ++e, nextIndex(idx, &in->shape)) {
    int64_t o = offsetOf(idx, st, r);
    if (in->isFloat)
      out->f[o] = isMax   ? maxNaN(out->f[o], in->f[e])
                  : isMin ? minNaN(out->f[o], in->f[e])
                          : out->f[o] + in->f[e];
    else
      out->i[o] = isMax   ? (in->i[e] > out->i[o] ? in->i[e] : out->i[o])
                  : isMin ? (in->i[e] < out->i[o] ? in->i[e] : out->i[o])
                          : (int64_t)((uint64_t)out->i[o] + (uint64_t)in->i[e]);
  }
  int64_t count = out->size ? in->size / out->size : 0;
  for (int64_t e = 0; e < out->size; ++e) {
    if (in->isFloat)
      dlcHostTensorSet(out, e, mean ? out->f[e] / (double)count : out->f[e]);
    else
      dlcHostTensorSetInt(out, e, out->i[e]);
  }
  return true;
}

static bool evalMatmul(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                       DlcHostTensor *out) {
  const DlcHostTensor *a = &in[0], *b = &in[1];
  int64_t ra = a->shape.rank, rb = b->shape.rank, ro = out->shape.rank;
  if (ra < 2 || rb < 2 || a->isFloat != out->isFloat || b->isFloat != out->isFloat)
    return false;
  bool ta = dlcGetBool(op, "transpose_a", false), tb = dlcGetBool(op, "transpose_b", false);
  int64_t aSt[DLC_MAX_RANK], bSt[DLC_MAX_RANK], aB[DLC_MAX_RANK], bB[DLC_MAX_RANK];
  rowMajorStrides(&a->shape, aSt);
  rowMajorStrides(&b->shape, bSt);
  int64_t M = out->shape.dims[ro - 2], N = out->shape.dims[ro - 1];
  int64_t K = a->shape.dims[ta ? ra - 2 : ra - 1];
  int64_t sam = aSt[ta ? ra - 1 : ra - 2], sak = aSt[ta ? ra - 2 : ra - 1];
  int64_t sbk = bSt[tb ? rb - 1 : rb - 2], sbn = bSt[tb ? rb - 2 : rb - 1];
  if (out->size * K > MAX_MATMUL_MACS)
    return false;
  if (out->size == 0)
    return true;
  /* Batch dims: broadcast strides over the output's leading dims. */
  DlcShape batch = out->shape, aBatch = a->shape, bBatch = b->shape;
  batch.rank -= 2, aBatch.rank -= 2, bBatch.rank -= 2;
  broadcastStrides(&aBatch, &batch, aB);
  broadcastStrides(&bBatch, &batch, bB);
  for (int64_t d = 0; d < batch.rank; ++d) { /* rescale to element strides */
    int64_t id = d - (batch.rank - aBatch.rank), jd = d - (batch.rank - bBatch.rank);
    aB[d] = aB[d] ? aSt[id] : 0;
    bB[d] = bB[d] ? bSt[jd] : 0;
  }
  int64_t idx[DLC_MAX_RANK] = {0}, e = 0;
  do {
    int64_t ao = offsetOf(idx, aB, batch.rank), bo = offsetOf(idx, bB, batch.rank);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n, ++e) {
        const int64_t pa = ao + m * sam, pb = bo + n * sbn;
        if (out->isFloat) {
          double acc = 0.0;
          for (int64_t k = 0; k < K; ++k)
            acc += a->f[pa + k * sak] * b->f[pb + k * sbk];
          dlcHostTensorSet(out, e, acc);
        } else {
          uint64_t acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += (uint64_t)a->i[pa + k * sak] * (uint64_t)b->i[pb + k * sbk];
          dlcHostTensorSetInt(out, e, (int64_t)acc);
        }
      }
  } while (batch.rank > 0 && nextIndex(idx, &batch));
  return true;
}

/*--- Dispatch -----------------------------------------------------------------*/

/* Comparisons of either kind into an i1 mask; NaN is unordered. */
static int compareKind(MlirOperation op) {
  return dlcCompareKind(mlirIdentifierStr(mlirOperationGetName(op)));
}

static bool evalCompare(int k, const DlcHostTensor *in, DlcHostTensor *out) {
  int64_t st[2][DLC_MAX_RANK], idx[DLC_MAX_RANK] = {0};
  if (in[0].isFloat != in[1].isFloat)
    return false;
  for (int j = 0; j < 2; ++j)
    broadcastStrides(&in[j].shape, &out->shape, st[j]);
  for (int64_t e = 0; e < out->size; ++e, nextIndex(idx, &out->shape)) {
    int64_t a = offsetOf(idx, st[0], out->shape.rank), b = offsetOf(idx, st[1], out->shape.rank);
    double x = dlcHostTensorGet(&in[0], a), y = dlcHostTensorGet(&in[1], b);
    int64_t xi = in[0].isFloat ? 0 : in[0].i[a], yi = in[1].isFloat ? 0 : in[1].i[b];
    bool f = in[0].isFloat;
    bool r = k == DLC_CMP_EQ ? (f ? x == y : xi == yi)
           : k == DLC_CMP_NE ? (f ? x != y : xi != yi)
           : k == DLC_CMP_LT ? (f ? x < y : xi < yi)
           : k == DLC_CMP_LE ? (f ? x <= y : xi <= yi)
           : k == DLC_CMP_GT ? (f ? x > y : xi > yi)
                             : (f ? x >= y : xi >= yi);
    out->i[e] = r;
  }
  return true;
}

/* The kernels of the other ops, one row each; `arity` < 0 takes any number
   of operands. */
typedef bool (*Kernel)(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                       DlcHostTensor *out);

static bool evalReshape(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                        DlcHostTensor *out) {
  for (int64_t e = 0; e < out->size; ++e)
    copyElement(in, e, out, e);
  return true;
}

static const struct {
  const char *name;
  intptr_t arity;
  Kernel eval;
} kKernels[] = {
    {"dlg.where", 3, evalWhere},          {"dlg.cast", 1, evalCast},
    {"dlg.transpose", 1, evalTranspose},  {"dlg.reshape", 1, evalReshape},
    {"dlg.concat", -1, evalConcat},       {"dlg.slice", 1, evalSlice},
    {"dlg.pad", 1, evalPad},              {"dlg.gather", 2, evalGather},
    {"dlg.reduce_sum", 1, evalReduce},    {"dlg.reduce_mean", 1, evalReduce},
    {"dlg.reduce_max", 1, evalReduce},    {"dlg.reduce_min", 1, evalReduce},
    {"dlg.matmul", 2, evalMatmul},
};

static int kernelOf(MlirOperation op) {
  for (int k = 0; k < (int)(sizeof kKernels / sizeof kKernels[0]); ++k)
    if (dlcOpIs(op, kKernels[k].name))
      return k;
  return -1;
}

/* The elementwise families are evaluated by their scalar semantics
   (floatOp / intOp, compare), their arity given by the family; every other
   op by its row of kKernels. */
bool dlcReferenceSupports(MlirOperation op) {
  switch (dlcDlgOpGetFamily(op)) {
  case DLC_OP_FAMILY_UNARY:
  case DLC_OP_FAMILY_BINARY:
    return elementwiseKind(op) >= 0;
  case DLC_OP_FAMILY_COMPARE:
    return compareKind(op) >= 0;
  default:
    return kernelOf(op) >= 0;
  }
}

static bool dispatch(MlirOperation op, const DlcHostTensor *in, intptr_t n,
                     DlcHostTensor *out) {
  DlcOpFamily family = dlcDlgOpGetFamily(op);
  int k;
  switch (family) {
  case DLC_OP_FAMILY_UNARY:
  case DLC_OP_FAMILY_BINARY:
    k = elementwiseKind(op);
    return k >= 0 && n == (family == DLC_OP_FAMILY_BINARY ? 2 : 1) &&
           evalElementwise(k, op, in, n, out);
  case DLC_OP_FAMILY_COMPARE:
    k = compareKind(op);
    return k >= 0 && n == 2 && !out->isFloat && out->bits == 1 && evalCompare(k, in, out);
  default:
    k = kernelOf(op);
    return k >= 0 && (kKernels[k].arity < 0 || kKernels[k].arity == n) &&
           kKernels[k].eval(op, in, n, out);
  }
}

bool dlcReferenceEvaluate(MlirOperation op, const DlcHostTensor *operands,
                          intptr_t numOperands, int64_t maxElements,
                          DlcHostTensor *result) {
  memset(result, 0, sizeof *result);
  if (mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  DlcShape shape;
  if (!dlcTypeGetShape(type, &shape) ||
      !dlcHostTensorAlloc(result, &shape, mlirShapedTypeGetElementType(type),
                          maxElements))
    return false;
  if (dispatch(op, operands, numOperands, result))
    return true;
  dlcHostTensorFree(result);
  return false;
}
