/* --dlc-gpu-attention: scaled-dot-product attention as one GPU kernel
   (gpu_attention.h; docs/gpu.md, "Attention").

   Runs on dlg before fusion. Each match

     %s0 = dlg.matmul %q, %kt           (or %q, %k {transpose_b = true})
     %s1 = dlg.mul %s0, %scale          (or dlg.div; a constant splat)
     %s2 = dlg.add %s1, %mask           (optional, either operand order)
     %p  = dlg.softmax %s2 {axis = -1}
     %o  = dlg.matmul %p, %v

   becomes a call of a private function holding the fused kernel, on flat
   views of Q, K and V (read in place through the head-split transposes
   where a row is contiguous there; see View), and a reshape back. The
   function is written here, already tiled the way dlc-gpu-schedule tiles
   other kernels: an scf.forall mapped to blocks (batch*head, query block)
   around one mapped to threads (a query row each), on tensors. A thread
   keeps its q row, the running max m, the running sum l and the
   accumulator (a vector of dv) in registers and walks the keys BK at a
   time: BK scores (q . k_j * scale + mask), their max m', alpha =
   exp(m - m'), p_j = exp(s_j - m'), l = l * alpha + sum p_j, acc = acc *
   alpha + sum p_j v_j (FFMA); when BK does not divide sk the last step's
   keys past the end score -inf. At the end acc / l is the row. A block's
   threads read the same key row at the same time (one L1 line, broadcast
   to the warp).

   Because the function is ordinary tiled IR, the rest of the pipeline
   needs nothing new: dlc-gpu-schedule finds no top-level linalg op in it
   and leaves it alone, bufferisation and dlc-gpu-map turn the foralls
   into one gpu.launch, and the GPU checks' CPU emulation (the
   stop-after=schedule program, foralls as loops) runs this very code.

   Anything the kernel does not take (f16 / bf16, broadcast batch dims, d
   over 64, a mask that is not [.., sk], a non-constant scale) is left
   to the three-kernel path; a given schedule that does not fit is an
   error at the dlk.kernel that gave it. */

#include "gpu/gpu_attention.h"

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- The tiling ---------------------------------------------------------------------*/

static bool divides(int64_t a, int64_t b) { return a > 0 && b % a == 0; }

bool dlcGpuAttentionPlan(DlcGpuAttention *a) {
  if (a->bh > kGpuAttentionMaxGridY)
    return false; /* batch*head is the grid's y */
  int64_t best = 0, fewest = 0;
  for (int64_t q = 32; q <= 128; ++q)
    if (divides(q, a->s)) {
      if (a->bh * (a->s / q) >= kGpuAttentionSMs)
        best = q; /* the largest giving a block per SM */
      if (!fewest)
        fewest = q; /* the smallest: most blocks */
    }
  a->bq = best ? best : fewest;
  for (int64_t q = 129; !a->bq && q <= 1024; ++q)
    if (divides(q, a->s))
      a->bq = q;
  if (!a->bq && a->s < 32)
    a->bq = a->s;
  if (!a->bq)
    return false;
  /* keys a step: a divisor of sk from half the target up (no partial last
     step), else half the target (the clamped last step's selects and
     scalar mask loads cost registers) */
  int64_t target = a->d + a->dv > kGpuAttentionMaxD ? 16 : 32;
  a->bk = 0;
  for (int64_t k = target; !a->bk && k >= target / 2; --k)
    if (divides(k, a->sk))
      a->bk = k;
  if (!a->bk) /* measured by ptxas: d = 64 with a clamped step of 8 and a mask spills */
    a->bk = a->d + a->dv > kGpuAttentionMaxD ? target / 4 : target / 2;
  if (a->bk > a->sk)
    a->bk = a->sk;
  return true;
}

bool dlcGpuAttentionCheck(const DlcGpuAttention *a, char *why, size_t n) {
  if (a->bq < 1 || a->bq > 1024 || a->s % a->bq != 0)
    snprintf(why, n,
             "query rows a block (workgroup[1]) = %lld must divide the %lld query rows and be "
             "1 to 1024 (a thread a row)",
             (long long)a->bq, (long long)a->s);
  else if (a->bk < 1 || a->bk > kGpuAttentionMaxBK || a->bk > a->sk)
    snprintf(why, n,
             "keys a step (workgroup[2]) = %lld must be 1 to %d and at most the %lld keys (the "
             "step's scores live in registers)",
             (long long)a->bk, kGpuAttentionMaxBK, (long long)a->sk);
  else
    return true;
  return false;
}

/*--- Matching ------------------------------------------------------------------------*/

/* How the kernel reads an operand: as a flat tensor `src` of n elements,
   element [batch.., row, e] at sum(batch_i * stride_i) + row * stride[r-2]
   + e (the row's elements contiguous). `src` is the operand itself or
   what its dlg.transpose reads, so a head-split transpose of Q, K or V is
   read in place instead of copied. */
typedef struct {
  MlirValue src;
  int64_t n, stride[DLC_MAX_RANK];
} View;

typedef struct {
  MlirOperation mm1, scaleOp, scaleConst, addOp, softmax, mm2;
  View qv, kv, vv;
  MlirValue q, b, v, mask;
  bool transB, divide;
  double scale;
  DlcShape scores, qs, vs, ms;
  DlcGpuAttention k;
} Match;

static bool f32Shape(MlirValue v, DlcShape *s) {
  MlirType t = mlirValueGetType(v);
  if (!mlirTypeIsARankedTensor(t) || !mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) ||
      !dlcTypeGetShape(t, s))
    return false;
  for (int64_t i = 0; i < s->rank; ++i)
    if (s->dims[i] < 0)
      return false;
  return true;
}

static bool oneUse(MlirValue v) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(u) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(u));
}

static MlirValue res(MlirOperation op) { return mlirOperationGetResult(op, 0); }
static MlirValue arg(MlirOperation op, intptr_t i) { return mlirOperationGetOperand(op, i); }

/* A dlg.constant holding one repeated value. */
static bool splat(MlirValue v, double *out) { return dlcGetSplat(v, out); }

/* Whether `s` has batch dims `batch` (rank r - 2) and then rows x cols. */
static bool shaped(const DlcShape *s, const DlcShape *batch, int64_t rows, int64_t cols) {
  if (s->rank != batch->rank)
    return false;
  for (int64_t i = 0; i + 2 < s->rank; ++i)
    if (s->dims[i] != batch->dims[i])
      return false;
  return s->dims[s->rank - 2] == rows && s->dims[s->rank - 1] == cols;
}

/* The mask: f32, last dim sk, every other dim 1 or the scores' (aligned
   from the right). */
static bool maskOk(Match *m) {
  if (!f32Shape(m->mask, &m->ms) || m->ms.rank < 1 || m->ms.rank > m->scores.rank)
    return false;
  int64_t off = m->scores.rank - m->ms.rank;
  for (int64_t t = 0; t < m->ms.rank; ++t) {
    int64_t want = m->scores.dims[t + off];
    if (t + 1 == m->ms.rank ? m->ms.dims[t] != want
                            : m->ms.dims[t] != 1 && m->ms.dims[t] != want)
      return false;
  }
  return true;
}

static void rowMajor(const DlcShape *s, int64_t *stride, int64_t *n) {
  *n = 1;
  for (int64_t i = s->rank - 1; i >= 0; --i) {
    stride[i] = *n;
    *n *= s->dims[i];
  }
}

/* The view of operand `o` (rank r) whose dim `dDim` is the contiguous one
   and `rowDim` the row: through a dlg.transpose when its input has that
   dim innermost, else `o` itself when it does; false otherwise. */
static bool viewOf(MlirValue o, int64_t r, int64_t dDim, int64_t rowDim, View *v) {
  int64_t ys[DLC_MAX_RANK], perm[DLC_MAX_RANK], os[DLC_MAX_RANK], n;
  DlcShape sh;
  MlirOperation t = dlcDefiningOp(o, "dlg.transpose");
  if (!mlirOperationIsNull(t) && f32Shape(arg(t, 0), &sh) && sh.rank == r &&
      dlcGetI64Array(t, "perm", perm, DLC_MAX_RANK) == r) {
    rowMajor(&sh, ys, &n);
    for (int64_t i = 0; i < r; ++i)
      os[i] = ys[perm[i]];
    if (os[dDim] == 1) {
      *v = (View){.src = arg(t, 0), .n = n};
      for (int64_t i = 0; i + 2 < r; ++i)
        v->stride[i] = os[i];
      v->stride[r - 2] = os[rowDim];
      return true;
    }
  }
  if (!f32Shape(o, &sh))
    return false;
  rowMajor(&sh, os, &n);
  if (os[dDim] != 1)
    return false;
  *v = (View){.src = o, .n = n};
  for (int64_t i = 0; i + 2 < r; ++i)
    v->stride[i] = os[i];
  v->stride[r - 2] = os[rowDim];
  return true;
}

/* The chain below the softmax: [add mask] <- [mul/div scale] <- matmul. */
static bool matchScores(Match *m, MlirValue x) {
  MlirOperation add = dlcDefiningOp(x, "dlg.add");
  if (!mlirOperationIsNull(add) && oneUse(x)) {
    for (int side = 0; side < 2; ++side) {
      MlirValue s = arg(add, side);
      MlirOperation d = mlirOpResultGetOwner(s);
      if (!mlirValueIsAOpResult(s) ||
          !(dlcOpIs(d, "dlg.mul") || dlcOpIs(d, "dlg.div") || dlcOpIs(d, "dlg.matmul")))
        continue;
      m->addOp = add;
      m->mask = arg(add, 1 - side);
      x = s;
      break;
    }
    if (mlirOperationIsNull(m->addOp))
      return false;
  }
  MlirOperation mul = dlcDefiningOp(x, "dlg.mul"), div = dlcDefiningOp(x, "dlg.div");
  m->scale = 1.0;
  if (!mlirOperationIsNull(mul) && oneUse(x)) {
    int side = splat(arg(mul, 1), &m->scale) ? 0 : splat(arg(mul, 0), &m->scale) ? 1 : -1;
    if (side < 0)
      return false;
    m->scaleOp = mul;
    m->scaleConst = mlirOpResultGetOwner(arg(mul, 1 - side));
    x = arg(mul, side);
  } else if (!mlirOperationIsNull(div) && oneUse(x)) {
    if (!splat(arg(div, 1), &m->scale))
      return false;
    m->scaleOp = div;
    m->scaleConst = mlirOpResultGetOwner(arg(div, 1));
    m->divide = true;
    x = arg(div, 0);
  }
  m->mm1 = dlcDefiningOp(x, "dlg.matmul");
  if (mlirOperationIsNull(m->mm1) || !oneUse(x) || dlcGetBool(m->mm1, "transpose_a", false))
    return false;
  m->q = arg(m->mm1, 0);
  m->b = arg(m->mm1, 1);
  m->transB = dlcGetBool(m->mm1, "transpose_b", false);
  /* the scale and the mask must not change the scores' shape */
  DlcShape s1;
  return f32Shape(res(m->mm1), &s1) && s1.rank == m->scores.rank &&
         !memcmp(s1.dims, m->scores.dims, sizeof(int64_t) * (size_t)s1.rank);
}

static bool matchAt(MlirOperation softmax, Match *m) {
  *m = (Match){.softmax = softmax};
  MlirValue x = arg(softmax, 0);
  if (!f32Shape(x, &m->scores) || m->scores.rank < 2 || m->scores.rank > 6)
    return false;
  int64_t r = m->scores.rank, axis = dlcGetI64(softmax, "axis", -1);
  if (axis != -1 && axis != r - 1)
    return false;
  MlirValue p = res(softmax);
  if (!oneUse(p))
    return false;
  m->mm2 = mlirOpOperandGetOwner(mlirValueGetFirstUse(p));
  if (!dlcOpIs(m->mm2, "dlg.matmul") || !mlirValueEqual(arg(m->mm2, 0), p) ||
      dlcGetBool(m->mm2, "transpose_a", false) || dlcGetBool(m->mm2, "transpose_b", false))
    return false;
  m->v = arg(m->mm2, 1);
  if (!matchScores(m, x))
    return false;
  int64_t s = m->scores.dims[r - 2], sk = m->scores.dims[r - 1];
  DlcShape bs;
  if (!f32Shape(m->q, &m->qs) || !f32Shape(m->b, &bs) || !f32Shape(m->v, &m->vs) ||
      m->qs.rank != r)
    return false;
  int64_t d = m->qs.dims[r - 1], dv = m->vs.dims[r - 1];
  if (!shaped(&m->qs, &m->scores, s, d) ||
      !(m->transB ? shaped(&bs, &m->scores, sk, d) : shaped(&bs, &m->scores, d, sk)) ||
      !shaped(&m->vs, &m->scores, sk, dv) || d > kGpuAttentionMaxD || dv > kGpuAttentionMaxD)
    return false;
  if (!mlirValueIsNull(m->mask) && !maskOk(m))
    return false;
  int64_t bh = 1;
  for (int64_t i = 0; i + 2 < r; ++i)
    bh *= m->scores.dims[i];
  m->k = (DlcGpuAttention){.bh = bh, .s = s, .sk = sk, .d = d, .dv = dv};
  return true;
}

/*--- The kernel function, as text --------------------------------------------------------*/

typedef struct {
  char *p;
  size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (b->p && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    b->cap = (b->cap + (size_t)k + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p)
      abort();
  }
}

static void tensorType(Buf *b, const DlcShape *s) {
  put(b, "tensor<");
  for (int64_t i = 0; i < s->rank; ++i)
    put(b, "%lldx", (long long)s->dims[i]);
  put(b, "f32>");
}

/* Indices of the mask's leading dims for block %b and row %row, as SSA
   names %mi<t> (the key dim is the caller's). */
static void maskIndices(Buf *b, const Match *m) {
  int64_t r = m->scores.rank, nb = r - 2, off = r - m->ms.rank;
  for (int64_t t = 0; t + 1 < m->ms.rank; ++t) {
    int64_t a = t + off;
    if (m->ms.dims[t] == 1)
      put(b, "      %%mi%lld = arith.constant 0 : index\n", (long long)t);
    else if (a == nb)
      put(b, "      %%mi%lld = arith.addi %%row, %%c0 : index\n", (long long)t);
    else { /* a batch dim of the flattened batch*head index */
      int64_t stride = 1;
      for (int64_t i = a + 1; i < nb; ++i)
        stride *= m->scores.dims[i];
      put(b,
          "      %%ms%lld = arith.constant %lld : index\n"
          "      %%mn%lld = arith.constant %lld : index\n"
          "      %%mq%lld = arith.divui %%b, %%ms%lld : index\n"
          "      %%mi%lld = arith.remui %%mq%lld, %%mn%lld : index\n",
          (long long)t, (long long)stride, (long long)t, (long long)m->scores.dims[a],
          (long long)t, (long long)t, (long long)t, (long long)t, (long long)t);
    }
  }
}

/* %<name>base: where operand view `v` starts for block %b (the flattened
   batch*head index split into the scores' batch dims), and %<name>rs its
   row stride. */
static void viewBase(Buf *b, const Match *m, const char *name, const View *v) {
  int64_t nb = m->scores.rank - 2;
  put(b, "      %%%srs = arith.constant %lld : index\n", name, (long long)v->stride[nb]);
  put(b, "      %%%sb0 = arith.constant 0 : index\n", name);
  for (int64_t i = 0; i < nb; ++i) {
    int64_t div = 1;
    for (int64_t j = i + 1; j < nb; ++j)
      div *= m->scores.dims[j];
    long long ii = (long long)i;
    const char *c = name;
    put(b, "      %%%sd%lld = arith.constant %lld : index\n", c, ii, (long long)div);
    put(b, "      %%%se%lld = arith.constant %lld : index\n", c, ii, (long long)m->scores.dims[i]);
    put(b, "      %%%ss%lld = arith.constant %lld : index\n", c, ii, (long long)v->stride[i]);
    put(b, "      %%%sq%lld = arith.divui %%b, %%%sd%lld : index\n", c, ii, c, ii);
    put(b, "      %%%si%lld = arith.remui %%%sq%lld, %%%se%lld : index\n", c, ii, c, ii, c, ii);
    put(b, "      %%%so%lld = arith.muli %%%si%lld, %%%ss%lld : index\n", c, ii, c, ii, c, ii);
    put(b, "      %%%sb%lld = arith.addi %%%sb%lld, %%%so%lld : index\n", c, ii + 1, c, ii, c, ii);
  }
  put(b, "      %%%sbase = arith.addi %%%sb%lld, %%c0 : index\n", name, name, (long long)nb);
}

/* One step over n keys from index %<kb>, state %<m>, %<l>, %<acc> in;
   the new state is %<p>x<n-1> (max), %<p>l<n> (sum), %<p>a<n> (accumulator).
   With `clamp` (n does not divide sk) the last step's keys past the end
   read the last key and score -inf: p = 0, no change to the state. */
static void keyBlock(Buf *b, const Match *m, int64_t n, bool clamp, const char *p, const char *kb,
                     const char *mi, const char *li, const char *acc) {
  const DlcGpuAttention *k = &m->k;
  long long d = k->d, dv = k->dv;
  const char *in = "        ";
  for (int64_t j = 0; j < n; ++j) {
    long long jj = (long long)j;
    put(b, "%s%%%sc%lld = arith.constant %lld : index\n", in, p, jj, jj);
    put(b, "%s%%%s%s%lld = arith.addi %%%s, %%%sc%lld : index\n", in, p, clamp ? "r" : "k", jj, kb,
        p, jj);
    if (clamp)
      put(b,
          "%s%%%sk%lld = arith.minui %%%sr%lld, %%cskm1 : index\n"
          "%s%%%sok%lld = arith.cmpi ult, %%%sr%lld, %%csk : index\n",
          in, p, jj, p, jj, in, p, jj, p, jj);
    put(b,
        "%s%%%sko%lld = arith.muli %%%sk%lld, %%krs : index\n"
        "%s%%%skq%lld = arith.addi %%kbase, %%%sko%lld : index\n"
        "%s%%%skv%lld = vector.transfer_read %%k[%%%skq%lld], %%pad {in_bounds = [true]} "
        ": tensor<%lldxf32>, vector<%lldxf32>\n",
        in, p, jj, p, jj, in, p, jj, p, jj, in, p, jj, p, jj, (long long)m->kv.n, d);
    put(b, "%s%%%spr%lld = arith.mulf %%qv, %%%skv%lld fastmath<contract> : vector<%lldxf32>\n", in,
        p, jj, p, jj, d);
    put(b,
        "%s%%%sd%lld = vector.reduction <add>, %%%spr%lld fastmath<contract> : vector<%lldxf32> "
        "into f32\n",
        in, p, jj, p, jj, d);
    put(b, "%s%%%ss%lld = arith.%s %%%sd%lld, %%scale : f32\n", in, p, jj,
        m->divide ? "divf" : "mulf", p, jj);
  }
  const char *score = "s";
  if (!mlirValueIsNull(m->mask)) {
    if (!clamp) { /* the step's mask row segment in one read */
      put(b, "%s%%%smv = vector.transfer_read %%mask[", in, p);
      for (int64_t t = 0; t + 1 < m->ms.rank; ++t)
        put(b, "%%mi%lld, ", (long long)t);
      put(b, "%%%s], %%pad {in_bounds = [true]} : ", kb);
      tensorType(b, &m->ms);
      put(b, ", vector<%lldxf32>\n", (long long)n);
    }
    for (int64_t j = 0; j < n; ++j) {
      long long jj = (long long)j;
      if (clamp) {
        put(b, "%s%%%sme%lld = tensor.extract %%mask[", in, p, jj);
        for (int64_t t = 0; t + 1 < m->ms.rank; ++t)
          put(b, "%%mi%lld, ", (long long)t);
        put(b, "%%%sk%lld] : ", p, jj);
        tensorType(b, &m->ms);
        put(b, "\n");
      } else
        put(b, "%s%%%sme%lld = vector.extract %%%smv[%lld] : f32 from vector<%lldxf32>\n", in, p,
            jj, p, jj, (long long)n);
      put(b, "%s%%%st%lld = arith.addf %%%ss%lld, %%%sme%lld : f32\n", in, p, jj, p, jj, p, jj);
    }
    score = "t";
  }
  if (clamp) {
    for (int64_t j = 0; j < n; ++j)
      put(b, "%s%%%su%lld = arith.select %%%sok%lld, %%%s%s%lld, %%ninf : f32\n", in, p,
          (long long)j, p, (long long)j, p, score, (long long)j);
    score = "u";
  }
  /* the step's max (NaN-propagating, as the softmax's), then the rescale */
  for (int64_t j = 0; j < n; ++j) {
    char prev[40];
    snprintf(prev, sizeof prev, j ? "%sx%lld" : "%s", j ? p : mi, (long long)(j - 1));
    put(b, "%s%%%sx%lld = arith.maximumf %%%s, %%%s%s%lld : f32\n", in, p, (long long)j, prev, p,
        score, (long long)j);
  }
  char mx[40];
  snprintf(mx, sizeof mx, "%sx%lld", p, (long long)(n - 1));
  put(b, "%s%%%sdm = arith.subf %%%s, %%%s : f32\n%s%%%sal = math.exp %%%sdm : f32\n", in, p,
      mi, mx, in, p, p);
  put(b, "%s%%%sl0 = arith.mulf %%%s, %%%sal : f32\n", in, p, li, p);
  put(b, "%s%%%salv = vector.broadcast %%%sal : f32 to vector<%lldxf32>\n", in, p, p, dv);
  put(b, "%s%%%sa0 = arith.mulf %%%s, %%%salv : vector<%lldxf32>\n", in, p, acc, p, dv);
  for (int64_t j = 0; j < n; ++j) {
    long long jj = (long long)j;
    put(b, "%s%%%se%lld = arith.subf %%%s%s%lld, %%%s : f32\n", in, p, jj, p, score, jj, mx);
    put(b, "%s%%%sp%lld = math.exp %%%se%lld : f32\n", in, p, jj, p, jj);
    put(b, "%s%%%sl%lld = arith.addf %%%sl%lld, %%%sp%lld : f32\n", in, p, jj + 1, p, jj, p, jj);
    put(b,
        "%s%%%svo%lld = arith.muli %%%sk%lld, %%vrs : index\n"
        "%s%%%svq%lld = arith.addi %%vbase, %%%svo%lld : index\n"
        "%s%%%svv%lld = vector.transfer_read %%v[%%%svq%lld], %%pad {in_bounds = [true]} "
        ": tensor<%lldxf32>, vector<%lldxf32>\n",
        in, p, jj, p, jj, in, p, jj, p, jj, in, p, jj, p, jj, (long long)m->vv.n, dv);
    put(b, "%s%%%spv%lld = vector.broadcast %%%sp%lld : f32 to vector<%lldxf32>\n", in, p, jj, p,
        jj, dv);
    put(b, "%s%%%sa%lld = vector.fma %%%spv%lld, %%%svv%lld, %%%sa%lld : vector<%lldxf32>\n", in,
        p, jj + 1, p, jj, p, jj, p, jj, dv);
  }
}

/* The bits of the f32 nearest `x` (the scale as the model's f32 constant,
   printed exactly, whatever its value). */
static unsigned f32Bits(double x) {
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The whole function @name(q, k, v[, mask]) -> [bh, s, dv]. */
static char *kernelText(const Match *m, const char *name) {
  const DlcGpuAttention *k = &m->k;
  long long bh = k->bh, s = k->s, sk = k->sk, d = k->d, dv = k->dv, bq = k->bq, bkk = k->bk;
  long long end = (long long)((k->sk + k->bk - 1) / k->bk) * bkk; /* whole steps */
  Buf b = {0};
  put(&b,
      "func.func private @%s(%%q: tensor<%lldxf32>, %%k: tensor<%lldxf32>, %%v: tensor<%lldxf32>",
      name, (long long)m->qv.n, (long long)m->kv.n, (long long)m->vv.n);
  if (!mlirValueIsNull(m->mask)) {
    put(&b, ", %%mask: ");
    tensorType(&b, &m->ms);
  }
  put(&b,
      ") -> tensor<%lldx%lldx%lldxf32> attributes {dlc.attention = array<i64: %lld, %lld>, "
      "dlk.schedule = #dlk.schedule<workgroup = [1, %lld, %lld, 0], thread = [1, 1, 0, 0]>} {\n",
      bh, s, dv, bq, bkk, bq, bkk);
  put(&b,
      "  %%c0 = arith.constant 0 : index\n"
      "  %%cbq = arith.constant %lld : index\n"
      "  %%cbk = arith.constant %lld : index\n"
      "  %%cend = arith.constant %lld : index\n"
      "  %%csk = arith.constant %lld : index\n"
      "  %%cskm1 = arith.constant %lld : index\n"
      "  %%pad = arith.constant 0.0 : f32\n"
      "  %%czero = arith.constant 0.0 : f32\n"
      "  %%ninf = arith.constant 0xFF800000 : f32\n"
      "  %%scale = arith.constant 0x%08X : f32\n"
      "  %%zacc = arith.constant dense<0.0> : vector<%lldxf32>\n"
      "  %%e = tensor.empty() : tensor<%lldx%lldx%lldxf32>\n",
      bq, bkk, end, sk, sk - 1, f32Bits(m->scale), dv, bh, s, dv);
  put(&b,
      "  %%r = scf.forall (%%b, %%qb) in (%lld, %lld) shared_outs(%%o = %%e) -> "
      "(tensor<%lldx%lldx%lldxf32>) {\n"
      "    %%row0 = arith.muli %%qb, %%cbq : index\n"
      "    %%tile = tensor.extract_slice %%o[%%b, %%row0, 0] [1, %lld, %lld] [1, 1, 1] : "
      "tensor<%lldx%lldx%lldxf32> to tensor<1x%lldx%lldxf32>\n"
      "    %%t = scf.forall (%%i) in (%lld) shared_outs(%%ot = %%tile) -> (tensor<1x%lldx%lldxf32>) {\n"
      "      %%row = arith.addi %%row0, %%i : index\n",
      bh, s / bq, bh, s, dv, bq, dv, bh, s, dv, bq, dv, bq, bq, dv);
  viewBase(&b, m, "q", &m->qv);
  viewBase(&b, m, "k", &m->kv);
  viewBase(&b, m, "v", &m->vv);
  put(&b,
      "      %%qro = arith.muli %%row, %%qrs : index\n"
      "      %%qoff = arith.addi %%qbase, %%qro : index\n"
      "      %%qv = vector.transfer_read %%q[%%qoff], %%pad {in_bounds = [true]} : "
      "tensor<%lldxf32>, vector<%lldxf32>\n",
      (long long)m->qv.n, d);
  if (!mlirValueIsNull(m->mask))
    maskIndices(&b, m);
  put(&b,
      "      %%st:3 = scf.for %%kb = %%c0 to %%cend step %%cbk iter_args(%%m = %%ninf, %%l = "
      "%%czero, %%acc = %%zacc) -> (f32, f32, vector<%lldxf32>) {\n",
      dv);
  keyBlock(&b, m, k->bk, k->sk % k->bk != 0, "f", "kb", "m", "l", "acc");
  put(&b, "        scf.yield %%fx%lld, %%fl%lld, %%fa%lld : f32, f32, vector<%lldxf32>\n      }\n",
      bkk - 1, bkk, bkk, dv);
  const char *lF = "st#1", *aF = "st#2";
  put(&b,
      "      %%lv = vector.broadcast %%%s : f32 to vector<%lldxf32>\n"
      "      %%out = arith.divf %%%s, %%lv : vector<%lldxf32>\n"
      "      %%os = tensor.extract_slice %%ot[0, %%i, 0] [1, 1, %lld] [1, 1, 1] : "
      "tensor<1x%lldx%lldxf32> to tensor<1x1x%lldxf32>\n"
      "      %%w = vector.transfer_write %%out, %%os[%%c0, %%c0, %%c0] {in_bounds = [true]} : "
      "vector<%lldxf32>, tensor<1x1x%lldxf32>\n"
      "      scf.forall.in_parallel {\n"
      "        tensor.parallel_insert_slice %%w into %%ot[0, %%i, 0] [1, 1, %lld] [1, 1, 1] : "
      "tensor<1x1x%lldxf32> into tensor<1x%lldx%lldxf32>\n"
      "      }\n"
      "    } {mapping = [#gpu.thread<x>]}\n"
      "    scf.forall.in_parallel {\n"
      "      tensor.parallel_insert_slice %%t into %%o[%%b, %%row0, 0] [1, %lld, %lld] [1, 1, 1] : "
      "tensor<1x%lldx%lldxf32> into tensor<%lldx%lldx%lldxf32>\n"
      "    }\n"
      "  } {dlc.block_dims = array<i64: %lld, 1, 1>, mapping = [#gpu.block<y>, #gpu.block<x>]}\n"
      "  return %%r : tensor<%lldx%lldx%lldxf32>\n}\n",
      lF, dv, aF, dv, dv, bq, dv, dv, dv, dv, dv, dv, bq, dv, bq, dv, bq, dv, bh, s, dv, bq, bh,
      s, dv);
  return b.p;
}

/*--- The rewrite ---------------------------------------------------------------------------*/

/* A symbol name no op of the module has yet. */
static void freshName(MlirOperation module, char *out, size_t n) {
  static const char *const kBase = "dlc_attention";
  for (int i = 0;; ++i) {
    snprintf(out, n, "%s_%d", kBase, i);
    bool taken = false;
    MlirBlock mb = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    for (MlirOperation f = mlirBlockGetFirstOperation(mb); !mlirOperationIsNull(f) && !taken;
         f = mlirOperationGetNextInBlock(f)) {
      MlirAttribute a = mlirOperationGetAttributeByName(f, str("sym_name"));
      taken = !mlirAttributeIsNull(a) && mlirAttributeIsAString(a) &&
              mlirStringRefEqual(mlirStringAttrGetValue(a), str(out));
    }
    if (!taken)
      return;
  }
}

/* A flat [n] view of `v` for the kernel (free: dlg-simplify folds it into
   the reshape that split the heads). */
static MlirValue flat(DlcBuilder *b, MlirValue v, int64_t n) {
  DlcShape s = {.rank = 1, .dims = {n}};
  MlirType t = dlcTypeFromShape(&s, mlirF32TypeGet(b->context));
  if (mlirTypeEqual(t, mlirValueGetType(v)))
    return v;
  return res(dlcBuildOpTyped(b, "dlg.reshape", DLC_VALUES(v), 1, &t, DLC_NO_ATTRS));
}

static void eraseIfDead(MlirValue v) {
  if (mlirValueIsAOpResult(v) && mlirOpOperandIsNull(mlirValueGetFirstUse(v)) &&
      mlirOperationGetNumResults(mlirOpResultGetOwner(v)) == 1)
    mlirOperationDestroy(mlirOpResultGetOwner(v));
}

static bool rewrite(MlirOperation module, Match *m) {
  MlirContext ctx = mlirOperationGetContext(module);
  const DlcGpuAttention *k = &m->k;
  int64_t r = m->scores.rank;
  DlcBuilder b = dlcBuilderBefore(m->mm2, mlirOperationGetLocation(m->softmax));
  /* Q, K, V read in place (through a head-split transpose) where the row's
     elements are contiguous; K^T whose d is not contiguous anywhere is
     transposed to [.., sk, d] first */
  bool qOk = viewOf(m->q, r, r - 1, r - 2, &m->qv), vOk = viewOf(m->v, r, r - 1, r - 2, &m->vv);
  bool kOk = m->transB ? viewOf(m->b, r, r - 1, r - 2, &m->kv) : viewOf(m->b, r, r - 2, r - 1, &m->kv);
  if (!kOk) {
    int64_t perm[DLC_MAX_RANK];
    for (int64_t i = 0; i < r; ++i)
      perm[i] = i;
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    MlirValue kt = dlcBuildValue(&b, "dlg.transpose", DLC_VALUES(m->b),
                                 DLC_ATTRS(dlcNamedI64Array(ctx, "perm", r, perm)));
    kOk = !mlirValueIsNull(kt) && viewOf(kt, r, r - 1, r - 2, &m->kv);
  }
  if (!qOk || !kOk || !vOk) { /* row-major operands always have a view */
    mlirEmitError(mlirOperationGetLocation(m->softmax),
                  "dlc-gpu-attention: internal error: no contiguous view of Q, K or V");
    return false;
  }
  char name[64];
  freshName(module, name, sizeof name);
  char *text = kernelText(m, name);
  MlirOperation fn = mlirOperationCreateParse(ctx, str(text), str("dlc-gpu-attention"));
  free(text);
  if (mlirOperationIsNull(fn)) {
    mlirEmitError(mlirOperationGetLocation(m->softmax),
                  "dlc-gpu-attention: internal error: the fused kernel did not parse");
    return false;
  }
  MlirBlock mb = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  mlirBlockAppendOwnedOperation(mb, fn);

  MlirValue ops[4] = {flat(&b, m->qv.src, m->qv.n), flat(&b, m->kv.src, m->kv.n),
                      flat(&b, m->vv.src, m->vv.n), m->mask};
  intptr_t nOps = mlirValueIsNull(m->mask) ? 3 : 4;
  DlcShape os = {.rank = 3, .dims = {k->bh, k->s, k->dv}};
  MlirType ot = dlcTypeFromShape(&os, mlirF32TypeGet(ctx));
  MlirOperation call =
      dlcBuildOpTyped(&b, "func.call", nOps, ops, 1, &ot,
                      DLC_ATTRS(dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)))));
  MlirValue out = res(call);
  MlirType want = mlirValueGetType(res(m->mm2));
  if (!mlirTypeEqual(want, ot))
    out = res(dlcBuildOpTyped(&b, "dlg.reshape", DLC_VALUES(out), 1, &want, DLC_NO_ATTRS));
  mlirValueReplaceAllUsesOfWith(res(m->mm2), out);
  MlirOperation dead[] = {m->mm2, m->softmax, m->addOp, m->scaleOp, m->mm1};
  for (size_t i = 0; i < sizeof dead / sizeof dead[0]; ++i)
    if (!mlirOperationIsNull(dead[i]))
      mlirOperationDestroy(dead[i]);
  /* the scale constant and the transposes read around, when nothing else
     reads them (they would be kernels computing nothing used) */
  if (!mlirOperationIsNull(m->scaleConst))
    eraseIfDead(res(m->scaleConst));
  MlirValue around[] = {m->q, m->b, m->v};
  for (size_t i = 0; i < 3; ++i)
    if (!mlirOperationIsNull(dlcDefiningOp(around[i], "dlg.transpose")))
      eraseIfDead(around[i]);
  return true;
}

/*--- A dlk.kernel holding the pattern: its schedule, then inlined ----------------------------*/

/* Reads a given schedule into the tiling; false with an error at the kernel. */
static bool applyGiven(MlirOperation kernel, Match *m) {
  MlirAttribute a = mlirOperationGetAttributeByName(kernel, str("schedule"));
  DlcSchedule s;
  if (mlirAttributeIsNull(a) || !dlcScheduleRead(a, &s))
    return true;
  if (s.numWorkgroup == 0 && s.numThread == 0 && s.stages <= 1 && !s.mma[0])
    return true; /* CPU fields only */
  char why[320] = "";
  if (s.mma[0])
    snprintf(why, sizeof why,
             "mma is not supported: the fused kernel runs exact f32 FFMA (no tensor cores)");
  else if (s.stages > 1)
    snprintf(why, sizeof why, "stages = %lld: the fused kernel has no cp.async pipeline (1 only)",
             (long long)s.stages);
  else if (s.numWorkgroup != 4)
    snprintf(why, sizeof why,
             "workgroup must have 4 entries over [batch*head, query, key, d], e.g. [1, 32, 32, "
             "0]; it has %lld",
             (long long)s.numWorkgroup);
  else if (s.workgroup[0] != 1 || s.workgroup[3] != 0)
    snprintf(why, sizeof why,
             "workgroup = [%lld, _, _, %lld]: a block takes one batch*head (1) and the whole "
             "d (0)",
             (long long)s.workgroup[0], (long long)s.workgroup[3]);
  else if (s.numThread != 0 &&
           (s.numThread != 4 || s.thread[0] != 1 || s.thread[1] != 1 || s.thread[2] != 0 ||
            s.thread[3] != 0))
    snprintf(why, sizeof why,
             "thread must be [1, 1, 0, 0] (a thread a query row, every key, the whole d)");
  else {
    m->k.bq = s.workgroup[1];
    m->k.bk = s.workgroup[2];
    if (dlcGpuAttentionCheck(&m->k, why, sizeof why))
      return true;
  }
  char msg[400];
  snprintf(msg, sizeof msg, "dlc-gpu-attention: #dlk.schedule of the attention kernel: %s", why);
  mlirEmitError(mlirOperationGetLocation(kernel), msg);
  return false;
}

/* Moves the kernel's body before it (block arguments become its operands,
   its results the yielded values) and erases it; dlg-fuse forms the
   kernels of what is left again. */
static void inlineKernel(MlirOperation kernel) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(body); ++i)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, i), arg(kernel, i));
  MlirOperation op = mlirBlockGetFirstOperation(body);
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (dlcOpIs(op, "dlk.yield")) {
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(kernel, i), arg(op, i));
      break;
    }
    mlirOperationMoveBefore(op, kernel);
    op = next;
  }
  mlirOperationDestroy(kernel);
}

static MlirWalkResult collectSoftmax(MlirOperation op, void *u) {
  if (dlcOpIs(op, "dlg.softmax"))
    dlcOpListPush(u, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  DlcOpList all = {0};
  mlirOperationWalk(module, collectSoftmax, &all, MlirWalkPreOrder);
  bool ok = true;
  uint64_t fused = 0;
  for (intptr_t i = 0; i < all.n && ok; ++i) {
    Match m;
    if (!matchAt(all.ops[i], &m))
      continue;
    MlirOperation parent = mlirOperationGetParentOperation(all.ops[i]);
    bool inKernel = dlcOpIs(parent, "dlk.kernel");
    if (!inKernel && !dlcOpIs(parent, "func.func"))
      continue;
    if (!dlcGpuAttentionPlan(&m.k))
      continue; /* s a prime over 1024: no block of whole query rows */
    if (inKernel) {
      if (!applyGiven(parent, &m)) {
        ok = false;
        break;
      }
      inlineKernel(parent);
      /* the kernel's block arguments are gone: read the operands again */
      int64_t bq = m.k.bq, bk = m.k.bk;
      if (!matchAt(all.ops[i], &m))
        continue;
      m.k.bq = bq;
      m.k.bk = bk;
    }
    ok = rewrite(module, &m);
    fused += ok;
  }
  dlcOpListFree(&all);
  dlcPassAddStatistic(pass, "fused", fused);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {mlirGetDialectHandle__gpu__(), mlirGetDialectHandle__scf__(),
                            mlirGetDialectHandle__tensor__(), mlirGetDialectHandle__func__(),
                            mlirGetDialectHandle__arith__(),  mlirGetDialectHandle__math__(),
                            mlirGetDialectHandle__vector__()};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcStatisticDesc kStats[] = {
    {"fused", "attention subgraphs replaced by one fused kernel"}};

const DlcPassDescriptor dlcGpuAttentionPass = {
    .argument = "dlc-gpu-attention",
    .summary = "Replace softmax(Q K^T * scale [+ mask]) V by one GPU kernel per (batch*head, "
               "query block) with the online softmax over key blocks in registers (scores never "
               "in global memory)",
    .anchor = "builtin.module",
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
