/* Shape rules of the dlg operators (see dlc-c/Shape.h for the contract). */

#include "dlc-c/Shape.h"
#include "shape/Checked.h"
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define IS_DYN(d) ((d) == DLC_DYNAMIC)

bool dlcShapeFail(DlcShapeError *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return false;
}

/* Writes a dim for messages: a number or `?`. */
static void formatDim(char *b, size_t n, int64_t d) {
  if (IS_DYN(d))
    snprintf(b, n, "?");
  else
    snprintf(b, n, "%lld", (long long)d);
}

/* A dim as a string; four rotating buffers so one message can show several. */
static const char *dimStr(int64_t d) {
  static _Thread_local char buf[4][24];
  static _Thread_local int next;
  char *b = buf[next++ & 3];
  formatDim(b, sizeof buf[0], d);
  return b;
}

/* A whole shape, e.g. [4, ?, 16]; two rotating buffers of its own. */
static const char *shapeStr(const DlcShape *s) {
  static _Thread_local char buf[2][160];
  static _Thread_local int next;
  char *b = buf[next++ & 1], dim[24];
  size_t n = snprintf(b, sizeof buf[0], "[");
  for (int64_t i = 0; i < s->rank && n < sizeof buf[0]; ++i) {
    formatDim(dim, sizeof dim, s->dims[i]);
    n += snprintf(b + n, sizeof buf[0] - n, "%s%s", i ? ", " : "", dim);
  }
  if (n < sizeof buf[0])
    snprintf(b + n, sizeof buf[0] - n, "]");
  return b;
}

bool dlcShapeMake(DlcShape *out, int64_t rank, const int64_t *dims) {
  if (rank < 0 || rank > DLC_MAX_RANK)
    return false;
  out->rank = rank;
  if (rank)
    memcpy(out->dims, dims, (size_t)rank * sizeof(int64_t));
  return true;
}

int64_t dlcShapeNumElements(const DlcShape *s) {
  int64_t n = 1;
  for (int64_t i = 0; i < s->rank; ++i)
    if (IS_DYN(s->dims[i]))
      return DLC_DYNAMIC;
  if (dlcProductOverflow(s->dims, s->rank, &n))
    return DLC_SHAPE_OVERFLOW;
  return n;
}

bool dlcShapeCheckBytes(const DlcShape *s, int64_t elementBytes, const char *what,
                        DlcShapeError *err) {
  int64_t n = 1, bytes;
  for (int64_t i = 0; i < s->rank; ++i)
    if (s->dims[i] == 0)
      return true; /* empty, whatever the other dims */
  for (int64_t i = 0; i < s->rank; ++i) {
    if (IS_DYN(s->dims[i]))
      continue; /* checked again once specialised to static sizes */
    if (dlcMulOverflow(n, s->dims[i], &n) || dlcMulOverflow(n, elementBytes, &bytes))
      return fail(err,
                  "%s %s of %lld-byte elements has more than %lld bytes (the "
                  "largest tensor dlc handles)",
                  what, shapeStr(s), (long long)elementBytes, (long long)INT64_MAX);
  }
  return true;
}

bool dlcShapeEqual(const DlcShape *a, const DlcShape *b) {
  if (a->rank != b->rank)
    return false;
  for (int64_t i = 0; i < a->rank; ++i)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

bool dlcNormalizeAxis(int64_t axis, int64_t rank, int64_t *out) {
  if (axis < -rank || axis >= rank)
    return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

static bool axisOrFail(int64_t axis, int64_t rank, const char *attr,
                       int64_t *out, DlcShapeError *err) {
  if (dlcNormalizeAxis(axis, rank, out))
    return true;
  return fail(err, "%s %lld is out of range for rank %lld (expected [%lld, %lld])",
              attr, (long long)axis, (long long)rank, (long long)-rank,
              (long long)(rank - 1));
}

/* Broadcasts one pair of aligned dims; false when they are incompatible. */
static bool broadcastDim(int64_t a, int64_t b, int64_t *out) {
  if (a == 1) { *out = b; return true; }
  if (b == 1) { *out = a; return true; }
  if (IS_DYN(a)) { *out = b; return true; } /* b is ? or a static size */
  if (IS_DYN(b)) { *out = a; return true; }
  if (a != b)
    return false;
  *out = a;
  return true;
}

/* Broadcasts `s` into `acc` (NumPy rules, aligned at the trailing dim).
   `accName` and `sName` name the operands for the message. */
static bool broadcastInto(DlcShape *acc, const char *accName,
                          const DlcShape *s, const char *sName,
                          DlcShapeError *err) {
  int64_t rank = acc->rank > s->rank ? acc->rank : s->rank;
  DlcShape r;
  r.rank = rank;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = i - (rank - acc->rank), is = i - (rank - s->rank);
    int64_t da = ia >= 0 ? acc->dims[ia] : 1;
    int64_t ds = is >= 0 ? s->dims[is] : 1;
    if (!broadcastDim(da, ds, &r.dims[i]))
      return fail(err,
                  "operands are not broadcast-compatible: %s has %s (dim %lld) "
                  "and %s has %s (dim %lld), shapes %s and %s",
                  accName, dimStr(da), (long long)ia, sName, dimStr(ds),
                  (long long)is, shapeStr(acc), shapeStr(s));
  }
  *acc = r;
  return true;
}

bool dlcShapeBroadcast(const DlcShape *lhs, const DlcShape *rhs, DlcShape *out,
                       DlcShapeError *err) {
  DlcShape acc = *lhs;
  if (!broadcastInto(&acc, "lhs", rhs, "rhs", err))
    return false;
  *out = acc;
  return true;
}

bool dlcShapeWhere(const DlcShape *cond, const DlcShape *lhs,
                   const DlcShape *rhs, DlcShape *out, DlcShapeError *err) {
  DlcShape acc = *cond;
  if (!broadcastInto(&acc, "cond", lhs, "lhs", err))
    return false;
  /* Name the pair precisely when rhs clashes with lhs rather than cond. */
  DlcShape lr = *lhs;
  if (!broadcastInto(&lr, "lhs", rhs, "rhs", err))
    return false;
  if (!broadcastInto(&acc, "cond", rhs, "rhs", err))
    return false;
  *out = acc;
  return true;
}

bool dlcShapeMatmul(const DlcShape *a, const DlcShape *b, bool transposeA,
                    bool transposeB, DlcShape *out, DlcShapeError *err) {
  if (a->rank < 2)
    return fail(err, "operand a must have rank >= 2, got rank %lld",
                (long long)a->rank);
  if (b->rank < 2)
    return fail(err, "operand b must have rank >= 2, got rank %lld",
                (long long)b->rank);
  int64_t am = a->rank - (transposeA ? 1 : 2), ak = a->rank - (transposeA ? 2 : 1);
  int64_t bk = b->rank - (transposeB ? 1 : 2), bn = b->rank - (transposeB ? 2 : 1);
  int64_t ka = a->dims[ak], kb = b->dims[bk];
  if (!IS_DYN(ka) && !IS_DYN(kb) && ka != kb)
    return fail(err,
                "contracting dimensions differ: a has %lld (dim %lld), b has "
                "%lld (dim %lld)",
                (long long)ka, (long long)ak, (long long)kb, (long long)bk);
  DlcShape ba = {a->rank - 2, {0}}, bb = {b->rank - 2, {0}};
  memcpy(ba.dims, a->dims, (size_t)ba.rank * sizeof(int64_t));
  memcpy(bb.dims, b->dims, (size_t)bb.rank * sizeof(int64_t));
  if (!broadcastInto(&ba, "a", &bb, "b", err)) {
    char inner[sizeof err->message];
    memcpy(inner, err->message, sizeof inner);
    return fail(err, "batch dimensions: %s", inner);
  }
  if (ba.rank + 2 > DLC_MAX_RANK)
    return fail(err, "result rank exceeds %d", DLC_MAX_RANK);
  *out = ba;
  out->dims[out->rank++] = a->dims[am];
  out->dims[out->rank++] = b->dims[bn];
  return true;
}

/* Checks an integer-array attribute's length and lower bound. */
static bool checkArray(const char *name, const int64_t *v, intptr_t n,
                       intptr_t want, int64_t min, DlcShapeError *err) {
  if (n != want)
    return fail(err, "'%s' must have %lld values, got %lld", name,
                (long long)want, (long long)n);
  for (intptr_t i = 0; i < n; ++i)
    if (v[i] < min)
      return fail(err, "'%s' value %lld at index %lld must be >= %lld", name,
                  (long long)v[i], (long long)i, (long long)min);
  return true;
}

/* Output size of one sliding-window dim; DLC_DYNAMIC propagates. */
static bool windowDim(int64_t in, int64_t padSum, int64_t kernelExtent,
                      int64_t stride, bool ceilMode, const char *what,
                      int64_t dimIndex, int64_t *out, DlcShapeError *err) {
  if (IS_DYN(in)) {
    *out = DLC_DYNAMIC;
    return true;
  }
  int64_t span;
  if (dlcAddOverflow(in, padSum, &span) || dlcSubOverflow(span, kernelExtent, &span))
    return fail(err, "%s: dim %lld (%lld) plus padding exceeds the largest size (%lld)",
                what, (long long)dimIndex, (long long)in, (long long)INT64_MAX);
  if (span < 0)
    return fail(err,
                "%s extent %lld exceeds the padded input: dim %lld is %lld "
                "with padding %lld",
                what, (long long)kernelExtent, (long long)dimIndex,
                (long long)in, (long long)padSum);
  /* ceil(span / stride) without span + stride - 1, which can overflow;
     the + 1 overflows too when span is the largest size and stride 1 */
  if (dlcAddOverflow(span / stride + (ceilMode && span % stride != 0), 1, out))
    return fail(err, "%s: dim %lld (%lld) gives an output larger than the largest size (%lld)",
                what, (long long)dimIndex, (long long)in, (long long)INT64_MAX);
  return true;
}

bool dlcShapeConv2d(const DlcShape *input, const DlcShape *weight,
                    const DlcShape *bias, const int64_t *strides,
                    intptr_t numStrides, const int64_t *padding,
                    intptr_t numPadding, const int64_t *dilations,
                    intptr_t numDilations, int64_t groups, DlcShape *out,
                    DlcShapeError *err) {
  if (input->rank != 4)
    return fail(err, "input must have rank 4 (N, C, H, W), got rank %lld",
                (long long)input->rank);
  if (weight->rank != 4)
    return fail(err, "weight must have rank 4 (O, C/groups, kH, kW), got rank %lld",
                (long long)weight->rank);
  if (!checkArray("strides", strides, numStrides, 2, 1, err) ||
      !checkArray("padding", padding, numPadding, 4, 0, err) ||
      !checkArray("dilations", dilations, numDilations, 2, 1, err))
    return false;
  if (groups < 1)
    return fail(err, "'groups' must be >= 1, got %lld", (long long)groups);
  int64_t c = input->dims[1], o = weight->dims[0], wc = weight->dims[1];
  if (!IS_DYN(c) && c % groups != 0)
    return fail(err, "input channels %lld (dim 1) are not divisible by groups %lld",
                (long long)c, (long long)groups);
  if (!IS_DYN(o) && o % groups != 0)
    return fail(err, "weight output channels %lld (dim 0) are not divisible by groups %lld",
                (long long)o, (long long)groups);
  if (!IS_DYN(c) && !IS_DYN(wc) && wc != c / groups)
    return fail(err,
                "channel mismatch: input has %lld channels (dim 1) and groups "
                "%lld, so weight dim 1 must be %lld, got %lld",
                (long long)c, (long long)groups, (long long)(c / groups),
                (long long)wc);
  if (bias) {
    if (bias->rank != 1)
      return fail(err, "bias must have rank 1, got rank %lld", (long long)bias->rank);
    if (!IS_DYN(bias->dims[0]) && !IS_DYN(o) && bias->dims[0] != o)
      return fail(err, "bias has %lld values (dim 0), weight has %lld output channels (dim 0)",
                  (long long)bias->dims[0], (long long)o);
  }
  out->rank = 4;
  out->dims[0] = input->dims[0];
  out->dims[1] = IS_DYN(o) && bias ? bias->dims[0] : o;
  for (int i = 0; i < 2; ++i) {
    int64_t k = weight->dims[2 + i];
    if (IS_DYN(k)) {
      out->dims[2 + i] = DLC_DYNAMIC;
      continue;
    }
    int64_t extent, padSum;
    if (dlcMulOverflow(dilations[i], k - 1, &extent) || dlcAddOverflow(extent, 1, &extent))
      return fail(err, "dilated kernel extent of dim %d overflows: dilation %lld x (kernel %lld - 1) + 1",
                  2 + i, (long long)dilations[i], (long long)k);
    if (dlcAddOverflow(padding[i], padding[2 + i], &padSum))
      return fail(err, "padding of dim %d overflows: %lld + %lld", 2 + i,
                  (long long)padding[i], (long long)padding[2 + i]);
    if (!windowDim(input->dims[2 + i], padSum, extent,
                   strides[i], false, "dilated kernel", 2 + i, &out->dims[2 + i],
                   err))
      return false;
  }
  return true;
}

bool dlcShapePool2d(const DlcShape *input, const int64_t *kernel,
                    intptr_t numKernel, const int64_t *strides,
                    intptr_t numStrides, const int64_t *padding,
                    intptr_t numPadding, bool ceilMode, DlcShape *out,
                    DlcShapeError *err) {
  if (input->rank != 4)
    return fail(err, "input must have rank 4 (N, C, H, W), got rank %lld",
                (long long)input->rank);
  if (!checkArray("kernel", kernel, numKernel, 2, 1, err) ||
      !checkArray("strides", strides, numStrides, 2, 1, err) ||
      !checkArray("padding", padding, numPadding, 4, 0, err))
    return false;
  for (int i = 0; i < 4; ++i)
    if (padding[i] >= kernel[i % 2])
      return fail(err, "padding %lld at index %d must be smaller than the kernel size %lld",
                  (long long)padding[i], i, (long long)kernel[i % 2]);
  out->rank = 4;
  out->dims[0] = input->dims[0];
  out->dims[1] = input->dims[1];
  for (int i = 0; i < 2; ++i) {
    int64_t padSum;
    if (dlcAddOverflow(padding[i], padding[2 + i], &padSum))
      return fail(err, "padding of dim %d overflows: %lld + %lld", 2 + i,
                  (long long)padding[i], (long long)padding[2 + i]);
    if (!windowDim(input->dims[2 + i], padSum, kernel[i], strides[i], ceilMode,
                   "kernel", 2 + i, &out->dims[2 + i], err))
      return false;
  }
  return true;
}

bool dlcShapeBatchNorm(const DlcShape *x, const DlcShape *scale,
                       const DlcShape *bias, const DlcShape *mean,
                       const DlcShape *var, int64_t axis, DlcShape *out,
                       DlcShapeError *err) {
  int64_t ax;
  if (!axisOrFail(axis, x->rank, "axis", &ax, err))
    return false;
  int64_t c = x->dims[ax];
  const DlcShape *params[4] = {scale, bias, mean, var};
  static const char *const names[4] = {"scale", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    if (params[i]->rank != 1)
      return fail(err, "%s must have rank 1, got rank %lld", names[i],
                  (long long)params[i]->rank);
    int64_t p = params[i]->dims[0];
    if (!IS_DYN(p) && !IS_DYN(c) && p != c)
      return fail(err, "%s has %lld values (dim 0), x has %lld channels (dim %lld)",
                  names[i], (long long)p, (long long)c, (long long)ax);
  }
  *out = *x;
  return true;
}

/* A normalization parameter must have the shape of x's dims [ax, rank). */
static bool checkNormParam(const DlcShape *x, int64_t ax, const DlcShape *p,
                           const char *name, DlcShapeError *err) {
  int64_t want = x->rank - ax;
  if (p->rank != want)
    return fail(err, "%s must have rank %lld (the normalized dims of x, %lld..%lld), got rank %lld",
                name, (long long)want, (long long)ax, (long long)(x->rank - 1),
                (long long)p->rank);
  for (int64_t i = 0; i < want; ++i) {
    int64_t a = p->dims[i], b = x->dims[ax + i];
    if (!IS_DYN(a) && !IS_DYN(b) && a != b)
      return fail(err, "%s has %lld (dim %lld), x has %lld (dim %lld)", name,
                  (long long)a, (long long)i, (long long)b, (long long)(ax + i));
  }
  return true;
}

bool dlcShapeNorm(const DlcShape *x, const DlcShape *gamma,
                  const DlcShape *beta, int64_t axis, DlcShape *out,
                  DlcShapeError *err) {
  int64_t ax;
  if (!axisOrFail(axis, x->rank, "axis", &ax, err))
    return false;
  if (gamma && !checkNormParam(x, ax, gamma, "gamma", err))
    return false;
  if (beta && !checkNormParam(x, ax, beta, "beta", err))
    return false;
  *out = *x;
  return true;
}

bool dlcShapeSoftmax(const DlcShape *x, int64_t axis, DlcShape *out,
                     DlcShapeError *err) {
  int64_t ax;
  if (!axisOrFail(axis, x->rank, "axis", &ax, err))
    return false;
  *out = *x;
  return true;
}

bool dlcShapeReduce(const DlcShape *x, const int64_t *axes, intptr_t numAxes,
                    bool keepDims, DlcShape *out, DlcShapeError *err) {
  bool reduced[DLC_MAX_RANK] = {false};
  for (intptr_t i = 0; i < numAxes; ++i) {
    int64_t ax;
    if (!axisOrFail(axes[i], x->rank, "axes value", &ax, err))
      return false;
    if (reduced[ax])
      return fail(err, "axes value %lld repeats dim %lld", (long long)axes[i],
                  (long long)ax);
    reduced[ax] = true;
  }
  out->rank = 0;
  for (int64_t d = 0; d < x->rank; ++d) {
    bool r = numAxes == 0 || reduced[d];
    if (!r)
      out->dims[out->rank++] = x->dims[d];
    else if (keepDims)
      out->dims[out->rank++] = 1;
  }
  return true;
}

bool dlcShapeTranspose(const DlcShape *x, const int64_t *perm,
                       intptr_t numPerm, DlcShape *out, DlcShapeError *err) {
  if (numPerm != x->rank)
    return fail(err, "'perm' must have %lld values (the rank of x), got %lld",
                (long long)x->rank, (long long)numPerm);
  bool seen[DLC_MAX_RANK] = {false};
  for (intptr_t i = 0; i < numPerm; ++i) {
    if (perm[i] < 0 || perm[i] >= x->rank)
      return fail(err, "'perm' value %lld at index %lld is out of range [0, %lld)",
                  (long long)perm[i], (long long)i, (long long)x->rank);
    if (seen[perm[i]])
      return fail(err, "'perm' is not a permutation: %lld appears twice",
                  (long long)perm[i]);
    seen[perm[i]] = true;
  }
  out->rank = x->rank;
  for (intptr_t i = 0; i < numPerm; ++i)
    out->dims[i] = x->dims[perm[i]];
  return true;
}

bool dlcShapeReshape(const DlcShape *x, const DlcShape *target,
                     DlcShapeError *err) {
  int64_t a = dlcShapeNumElements(x), b = dlcShapeNumElements(target);
  if (a == DLC_SHAPE_OVERFLOW || b == DLC_SHAPE_OVERFLOW)
    return fail(err, "element count of %s %s exceeds %lld", a == DLC_SHAPE_OVERFLOW ? "x" : "result",
                shapeStr(a == DLC_SHAPE_OVERFLOW ? x : target), (long long)INT64_MAX);
  if (!IS_DYN(a) && !IS_DYN(b) && a != b)
    return fail(err, "element count differs: x %s has %lld, result %s has %lld",
                shapeStr(x), (long long)a, shapeStr(target), (long long)b);
  return true;
}

bool dlcShapeConcat(const DlcShape *const *xs, intptr_t numXs, int64_t axis,
                    DlcShape *out, DlcShapeError *err) {
  if (numXs < 1)
    return fail(err, "needs at least one operand");
  const DlcShape *first = xs[0];
  int64_t ax;
  if (!axisOrFail(axis, first->rank, "axis", &ax, err))
    return false;
  *out = *first;
  for (intptr_t i = 1; i < numXs; ++i) {
    const DlcShape *s = xs[i];
    if (s->rank != first->rank)
      return fail(err, "operand %lld has rank %lld, operand 0 has rank %lld",
                  (long long)i, (long long)s->rank, (long long)first->rank);
    for (int64_t d = 0; d < s->rank; ++d) {
      if (d == ax) {
        if (IS_DYN(out->dims[d]) || IS_DYN(s->dims[d]))
          out->dims[d] = DLC_DYNAMIC;
        else if (dlcAddOverflow(out->dims[d], s->dims[d], &out->dims[d]))
          return fail(err, "concatenated dim %lld exceeds %lld at operand %lld",
                      (long long)d, (long long)INT64_MAX, (long long)i);
        continue;
      }
      int64_t a = out->dims[d], b = s->dims[d];
      if (!IS_DYN(a) && !IS_DYN(b) && a != b)
        return fail(err, "operand %lld has %lld (dim %lld), operand 0 has %lld",
                    (long long)i, (long long)b, (long long)d, (long long)a);
      if (IS_DYN(a))
        out->dims[d] = b;
    }
  }
  return true;
}

void dlcSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step,
                  int64_t *first, int64_t *count) {
  if (dim == 0) { /* nothing to take: the clamps below assume dim >= 1 (fuzzer) */
    *first = 0;
    *count = 0;
    return;
  }
  if (start < 0)
    start += dim;
  if (end < 0 && end != INT64_MIN)
    end += dim;
  int64_t n;
  if (step > 0) {
    start = start < 0 ? 0 : start > dim ? dim : start;
    end = end < 0 ? 0 : end > dim ? dim : end;
    n = end > start ? (end - start - 1) / step + 1 : 0; /* no end + step overflow */
  } else {
    start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
    end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
    /* -step overflows for INT64_MIN, whose slice takes one element */
    n = start <= end ? 0 : step == INT64_MIN ? 1 : (start - end - 1) / -step + 1;
  }
  *first = start;
  *count = n;
}

bool dlcShapeSlice(const DlcShape *x, const int64_t *starts,
                   intptr_t numStarts, const int64_t *ends, intptr_t numEnds,
                   const int64_t *steps, intptr_t numSteps, DlcShape *out,
                   DlcShapeError *err) {
  if (numStarts != x->rank)
    return fail(err, "'starts' must have %lld values (the rank of x), got %lld",
                (long long)x->rank, (long long)numStarts);
  if (numEnds != x->rank)
    return fail(err, "'ends' must have %lld values (the rank of x), got %lld",
                (long long)x->rank, (long long)numEnds);
  if (steps && numSteps != x->rank)
    return fail(err, "'steps' must have %lld values (the rank of x), got %lld",
                (long long)x->rank, (long long)numSteps);
  out->rank = x->rank;
  for (int64_t d = 0; d < x->rank; ++d) {
    int64_t step = steps ? steps[d] : 1;
    if (step == 0)
      return fail(err, "'steps' value at index %lld must not be 0", (long long)d);
    if (IS_DYN(x->dims[d])) {
      out->dims[d] = DLC_DYNAMIC;
      continue;
    }
    int64_t firstIdx;
    dlcSliceAxis(x->dims[d], starts[d], ends[d], step, &firstIdx, &out->dims[d]);
  }
  return true;
}

bool dlcShapeGather(const DlcShape *data, const DlcShape *indices,
                    int64_t axis, DlcShape *out, DlcShapeError *err) {
  if (data->rank < 1)
    return fail(err, "data must have rank >= 1");
  int64_t ax;
  if (!axisOrFail(axis, data->rank, "axis", &ax, err))
    return false;
  int64_t rank = data->rank - 1 + indices->rank;
  if (rank > DLC_MAX_RANK)
    return fail(err, "result rank %lld exceeds %d", (long long)rank, DLC_MAX_RANK);
  out->rank = 0;
  for (int64_t d = 0; d < ax; ++d)
    out->dims[out->rank++] = data->dims[d];
  for (int64_t d = 0; d < indices->rank; ++d)
    out->dims[out->rank++] = indices->dims[d];
  for (int64_t d = ax + 1; d < data->rank; ++d)
    out->dims[out->rank++] = data->dims[d];
  return true;
}

bool dlcShapePad(const DlcShape *x, const int64_t *pads, intptr_t numPads,
                 DlcShape *out, DlcShapeError *err) {
  if (numPads != 2 * x->rank)
    return fail(err, "'pads' must have %lld values (2 x rank: all begins, then all ends), got %lld",
                (long long)(2 * x->rank), (long long)numPads);
  for (intptr_t i = 0; i < numPads; ++i)
    if (pads[i] < 0)
      return fail(err, "'pads' value %lld at index %lld is negative (crop with dlg.slice)",
                  (long long)pads[i], (long long)i);
  out->rank = x->rank;
  for (int64_t d = 0; d < x->rank; ++d) {
    if (IS_DYN(x->dims[d])) {
      out->dims[d] = DLC_DYNAMIC;
      continue;
    }
    if (dlcAddOverflow(x->dims[d], pads[d], &out->dims[d]) ||
        dlcAddOverflow(out->dims[d], pads[x->rank + d], &out->dims[d]))
      return fail(err, "padded dim %lld exceeds %lld: %lld + %lld + %lld", (long long)d,
                  (long long)INT64_MAX, (long long)x->dims[d], (long long)pads[d],
                  (long long)pads[x->rank + d]);
  }
  return true;
}
