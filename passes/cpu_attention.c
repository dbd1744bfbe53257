/* --dlc-cpu-attention: scaled-dot-product attention as one CPU kernel,
   flash-attention style (issue 15).

   dlg-fuse leaves attention as three kernels: a contraction Q.K^T with its
   scale and additive mask as epilogue, a softmax, and a contraction with V;
   the whole [.., s, s] score matrix goes through memory twice. This pass
   recognises exactly that chain of kernels and replaces it by a call to a
   private function of loops (written once as MLIR text, as the NMS loops
   of lowering/nms.c), inlined before bufferisation:

     K^T of every head, once, in [d, L] tiles (L = the f32 lanes: 16 on
     AVX-512, 8 on AVX2; vector.transpose), in parallel;
     per (batch*head, block of R query rows), in parallel:
       per block of BK = NB*L keys (64 on AVX-512, 16 on AVX2: keyVectors):
         per group of G query rows:
           S = Q[G rows] . K^T[:, BK keys]: G x NB vectors in registers, a
             GEMM micro-kernel (q broadcast from memory, K^T tile rows);
           * scale, + mask, keys past the end (or the causal bound) -> -inf;
           per row, online softmax with one max and one sum reduction per
           block (not per key): m' = max(m, max(S)), corr = exp(m - m'),
           P = exp(S - m') (NB vector exps), l = l * corr + sum(P);
           P stored to an L1 scratch [G, BK];
           acc = acc * corr + P . V[BK keys], in passes over CG vectors
             of dv at a time (pvChunks): G x CG accumulators, a GEMM
             micro-kernel (p broadcast from the scratch, V rows);
       out = acc / l.
   The score tile lives in registers; nothing of size [s, s] is allocated.

   What is matched (anything else keeps the three kernels, so a variant this
   pass does not know is never computed wrongly):
     - kernel 1: dlg.matmul (transpose_b or not, no transpose_a) of two
       views of kernel operands, then optionally dlg.mul / dlg.div by a splat
       constant, then optionally dlg.add of a view of a kernel operand
       (a mask input or a constant), nothing else;
     - kernel 2: dlg.softmax over the last dim of kernel 1's result alone;
     - kernel 3: dlg.matmul of kernel 2's result and a view of an operand;
     - a view is a kernel operand through dlg.reshape / dlg.transpose ops
       (strides of the operand's row-major layout), f32, static shapes, the
       head dim contiguous in Q, K and V, the key dim contiguous (or
       broadcast) in the mask; every intermediate used once.
   Each step that is not met leaves the chain alone; the reason is counted
   in a statistic (-mlir-pass-statistics).

   Causal masks: a constant mask that is 0 at key j <= i + c and one value
   <= -1e9 above (causalMask) is not read at all: a task's key loop ends at
   its last row's bound, a group skips the blocks above its diagonal, and
   the blocks the diagonal cuts compare j < i + c + 1.

   When: by default with 16 lanes (AVX-512), at every length: measured
   faster than the three kernels from s = 16 to 2048 at 1 and 2 threads
   (see the min-keys option); `min-keys` or the module's own
   dlc.attention_min_keys set a threshold, -1 never. With 8 lanes (AVX2)
   under a causal mask, and from 128 keys without one (below, where the
   three kernels' [s, s] scores stay in L1 and L2, unmeasured). Its tiles are sized for 16 ymm registers (keyVectors,
   pvChunks): with 16 lanes' tiles (a 4 x 4 score tile, 32 P.V
   accumulators) llc -mcpu=haswell spilled (595 stack references in the
   loop nest at d = 64) and the kernel ran 1.5x slower than three kernels
   at s = 128. In llc -mcpu=znver4 output
   both micro-kernels are GEMM-like: per 4 steps 64 FMAs among ~130
   instructions (the loads of K^T or V rows and the broadcasts of q or
   p); the exps and reductions are per row and block, not per key. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "schedule/cost_model.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Vector.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RANK = 8 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A rank-r tensor read from a kernel operand: element (i0..ir-1) is at
   flat offset sum(i_k * stride_k) of `outer` (row-major). */
typedef struct View {
  MlirValue outer;
  intptr_t rank;
  int64_t shape[MAX_RANK], stride[MAX_RANK];
} View;

static bool staticF32(MlirType t) {
  return mlirTypeIsARankedTensor(t) && mlirShapedTypeHasStaticShape(t) &&
         mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) && mlirShapedTypeGetRank(t) <= MAX_RANK;
}

static void rowMajor(View *v) {
  int64_t s = 1;
  for (intptr_t k = v->rank - 1; k >= 0; --k)
    v->stride[k] = s, s *= v->shape[k];
}

static bool isRowMajor(const View *v) {
  int64_t s = 1;
  for (intptr_t k = v->rank - 1; k >= 0; --k) {
    if (v->shape[k] != 1 && v->stride[k] != s)
      return false;
    s *= v->shape[k];
  }
  return true;
}

static void setShape(View *v, MlirType t) {
  v->rank = mlirShapedTypeGetRank(t);
  for (intptr_t k = 0; k < v->rank; ++k)
    v->shape[k] = mlirShapedTypeGetDimSize(t, k);
}

/* `x` (inside `kernel`'s body) as a view of a kernel operand: a block
   argument through reshapes (of a row-major view) and transposes. */
static bool viewOf(MlirValue x, MlirOperation kernel, View *out) {
  MlirOperation chain[16];
  int n = 0;
  while (!mlirValueIsABlockArgument(x)) {
    MlirOperation def = mlirOpResultGetOwner(x);
    if (n == 16 || !(dlcOpIs(def, "dlg.reshape") || dlcOpIs(def, "dlg.transpose")))
      return false;
    chain[n++] = def;
    x = mlirOperationGetOperand(def, 0);
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  if (!mlirBlockEqual(mlirBlockArgumentGetOwner(x), body) || !staticF32(mlirValueGetType(x)))
    return false;
  out->outer = mlirOperationGetOperand(kernel, mlirBlockArgumentGetArgNumber(x));
  setShape(out, mlirValueGetType(x));
  rowMajor(out);
  for (int i = n - 1; i >= 0; --i) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(chain[i], 0));
    if (!staticF32(t))
      return false;
    if (dlcOpIs(chain[i], "dlg.reshape")) {
      if (!isRowMajor(out))
        return false;
      setShape(out, t);
      rowMajor(out);
      continue;
    }
    int64_t perm[MAX_RANK];
    if (dlcGetI64Array(chain[i], "perm", perm, MAX_RANK) != out->rank)
      return false;
    View p = *out;
    for (intptr_t k = 0; k < out->rank; ++k)
      p.shape[k] = out->shape[perm[k]], p.stride[k] = out->stride[perm[k]];
    *out = p;
  }
  return true;
}

/* The single use of `v`, or a null op. */
static MlirOperation onlyUser(MlirValue v) { return dlcSoleUser(v, NULL); }

static MlirOperation yieldOf(MlirOperation kernel) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  return mlirBlockGetTerminator(body);
}

/* Everything the loops depend on. Logical dims: Q [B.., M, D], K [B.., N, D],
   V [B.., N, Dv], mask [B.., M, N] (stride 0 where broadcast), out
   [B.., M, Dv] row-major. */
typedef struct Attention {
  MlirOperation k1, k2, k3;
  View q, k, v, mask;
  bool hasMask, hasScale, divide;
  float scale;
  intptr_t nb; /* batch dims */
  int64_t M, N, D, Dv;
  bool causal;     /* the mask is a constant causal one, folded (no mask operand) */
  int64_t causalC; /* key j of query row i is kept iff j <= i + causalC */
  MlirType outType;
} Attention;

typedef enum {
  R_MATCHED,
  R_NOT_SOFTMAX,
  R_SCORES,
  R_OUTPUT,
  R_VIEWS,
  R_LAYOUT,
  R_COUNT
} Reason;

static const char *const kReasonStats[R_COUNT] = {
    "matched", "not-softmax-kernel", "scores-kernel-not-matched", "output-kernel-not-matched",
    "operands-not-views", "layout-not-supported"};

/* The mask `m` (a view of up to the scores' rank) aligned to the scores'
   [B.., M, N] dims, NumPy style: missing and size-1 dims read with stride 0. */
static bool alignMask(View *m, intptr_t rank, const int64_t *shape) {
  if (m->rank > rank)
    return false;
  View a = {.outer = m->outer, .rank = rank};
  intptr_t off = rank - m->rank;
  for (intptr_t k = 0; k < rank; ++k) {
    a.shape[k] = shape[k];
    if (k < off || m->shape[k - off] == 1) {
      a.stride[k] = 0;
      continue;
    }
    if (m->shape[k - off] != shape[k])
      return false;
    a.stride[k] = m->stride[k - off];
  }
  *m = a;
  return true;
}


/* A constant mask that is causal: the same [M, N] matrix for every head
   (batch strides 0), 0 at key j <= i + c and one value V <= -1e9 above
   (V = -inf, HF's finfo.min, or -1e9 as BERT-style code writes it), with
   0 <= c < N - 1 so that every row keeps a key and some key is cut. Folded
   into the loops: the masked keys' weight is exp(s + V - max), 0 in f32
   unless a masked score exceeds its row's unmasked maximum by more than
   |V| - 104 (1e9 for V = -1e9). Returns whether it is, and c. */
static bool causalMask(const Attention *at, int64_t *c) {
  intptr_t rk = at->nb + 2;
  for (intptr_t k = 0; k < at->nb; ++k)
    if (at->mask.stride[k] != 0)
      return false;
  MlirOperation def = dlcDefiningOp(at->mask.outer, "dlg.constant");
  if (mlirOperationIsNull(def))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, str("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseFPElements(a) ||
      !mlirTypeIsAF32(mlirShapedTypeGetElementType(mlirAttributeGetType(a))))
    return false;
  const int64_t M = at->M, N = at->N, sM = at->mask.stride[rk - 2], sN = at->mask.stride[rk - 1];
  if (mlirDenseElementsAttrIsSplat(a) || sN != 1 || M < 1 || N < 2)
    return false;
  /* row 0 fixes c: its zeros are keys 0..c */
  int64_t z = 0;
  while (z < N && mlirDenseElementsAttrGetFloatValue(a, (intptr_t)z) == 0.0f)
    ++z;
  if (z == 0 || z == N)
    return false;
  const float V = mlirDenseElementsAttrGetFloatValue(a, (intptr_t)z);
  if (!(V <= -1e9f))
    return false;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float x = mlirDenseElementsAttrGetFloatValue(a, (intptr_t)(i * sM + j));
      if (j <= i + z - 1 ? x != 0.0f : x != V)
        return false;
    }
  *c = z - 1;
  return true;
}

static Reason match(MlirOperation k2, Attention *at) {
  memset(at, 0, sizeof *at);
  at->k2 = k2;
  /* kernel 2: softmax over the last dim of its only operand, nothing else */
  MlirOperation y2 = yieldOf(k2);
  MlirValue sm = mlirOperationGetOperand(y2, 0);
  if (mlirOperationGetNumOperands(k2) != 1 || mlirValueIsABlockArgument(sm))
    return R_NOT_SOFTMAX;
  MlirOperation softmax = mlirOpResultGetOwner(sm);
  MlirType st = mlirValueGetType(sm);
  if (!dlcOpIs(softmax, "dlg.softmax") || !staticF32(st) || mlirShapedTypeGetRank(st) < 3 ||
      !mlirValueIsABlockArgument(mlirOperationGetOperand(softmax, 0)))
    return R_NOT_SOFTMAX;
  int64_t axis = dlcGetI64(softmax, "axis", -1), rank = mlirShapedTypeGetRank(st);
  if (axis != -1 && axis != rank - 1)
    return R_NOT_SOFTMAX;
  /* kernel 1: the scores */
  MlirValue scores = mlirOperationGetOperand(k2, 0);
  if (!mlirValueIsAOpResult(scores) || !dlcOpIs(mlirOpResultGetOwner(scores), "dlk.kernel") ||
      mlirOperationGetNumResults(mlirOpResultGetOwner(scores)) != 1 ||
      mlirOperationIsNull(onlyUser(scores)))
    return R_SCORES;
  at->k1 = mlirOpResultGetOwner(scores);
  MlirValue x = mlirOperationGetOperand(yieldOf(at->k1), 0);
  MlirValue maskValue = {NULL};
  if (mlirValueIsAOpResult(x) && dlcOpIs(mlirOpResultGetOwner(x), "dlg.add")) {
    MlirOperation add = mlirOpResultGetOwner(x);
    MlirValue a = mlirOperationGetOperand(add, 0), b = mlirOperationGetOperand(add, 1);
    /* the scores side is the one with the result's type coming from a matmul/mul/div */
    bool aScores = mlirValueIsAOpResult(a) &&
                   (dlcOpIs(mlirOpResultGetOwner(a), "dlg.matmul") ||
                    dlcOpIs(mlirOpResultGetOwner(a), "dlg.mul") ||
                    dlcOpIs(mlirOpResultGetOwner(a), "dlg.div"));
    x = aScores ? a : b;
    maskValue = aScores ? b : a;
    at->hasMask = true;
    if (mlirOperationIsNull(onlyUser(x)))
      return R_SCORES;
  }
  if (mlirValueIsAOpResult(x) && (dlcOpIs(mlirOpResultGetOwner(x), "dlg.mul") ||
                                  dlcOpIs(mlirOpResultGetOwner(x), "dlg.div"))) {
    MlirOperation op = mlirOpResultGetOwner(x);
    MlirValue a = mlirOperationGetOperand(op, 0), b = mlirOperationGetOperand(op, 1);
    double c;
    at->divide = dlcOpIs(op, "dlg.div");
    if (dlcGetSplat(b, &c))
      x = a;
    else if (!at->divide && dlcGetSplat(a, &c))
      x = b;
    else
      return R_SCORES;
    at->hasScale = true;
    at->scale = (float)c;
    if (mlirOperationIsNull(onlyUser(x)))
      return R_SCORES;
  }
  if (!mlirValueIsAOpResult(x) || !dlcOpIs(mlirOpResultGetOwner(x), "dlg.matmul"))
    return R_SCORES;
  MlirOperation mm1 = mlirOpResultGetOwner(x);
  if (dlcGetBool(mm1, "transpose_a", false) ||
      !mlirTypeEqual(mlirValueGetType(x), st))
    return R_SCORES;
  bool tb = dlcGetBool(mm1, "transpose_b", false);
  /* kernel 3: softmax(.) @ V, nothing after */
  MlirValue probs = mlirOperationGetResult(k2, 0);
  MlirOperation k3 = onlyUser(probs);
  if (!dlcOpIs(k3, "dlk.kernel") || mlirOperationGetNumResults(k3) != 1)
    return R_OUTPUT;
  at->k3 = k3;
  MlirValue o = mlirOperationGetOperand(yieldOf(k3), 0);
  if (!mlirValueIsAOpResult(o) || !dlcOpIs(mlirOpResultGetOwner(o), "dlg.matmul"))
    return R_OUTPUT;
  MlirOperation mm2 = mlirOpResultGetOwner(o);
  MlirValue pArg = mlirOperationGetOperand(mm2, 0);
  if (dlcGetBool(mm2, "transpose_a", false) || dlcGetBool(mm2, "transpose_b", false) ||
      !mlirValueIsABlockArgument(pArg) || mlirOperationIsNull(onlyUser(pArg)) ||
      !mlirValueEqual(mlirOperationGetOperand(k3, mlirBlockArgumentGetArgNumber(pArg)), probs) ||
      !staticF32(mlirValueGetType(o)))
    return R_OUTPUT;
  /* the operands as views */
  if (!viewOf(mlirOperationGetOperand(mm1, 0), at->k1, &at->q) ||
      !viewOf(mlirOperationGetOperand(mm1, 1), at->k1, &at->k) ||
      !viewOf(mlirOperationGetOperand(mm2, 1), k3, &at->v) ||
      (at->hasMask && !viewOf(maskValue, at->k1, &at->mask)))
    return R_VIEWS;
  if (!tb) { /* K^T [.., D, N] -> K [.., N, D] */
    intptr_t r = at->k.rank;
    if (r < 2)
      return R_LAYOUT;
    int64_t s = at->k.shape[r - 1], t = at->k.stride[r - 1];
    at->k.shape[r - 1] = at->k.shape[r - 2], at->k.stride[r - 1] = at->k.stride[r - 2];
    at->k.shape[r - 2] = s, at->k.stride[r - 2] = t;
  }
  /* shapes: equal batch dims (no broadcasting of Q, K, V) */
  if (at->q.rank != rank || at->k.rank != rank || at->v.rank != rank)
    return R_LAYOUT;
  at->nb = rank - 2;
  for (intptr_t i = 0; i < at->nb; ++i)
    if (at->k.shape[i] != at->q.shape[i] || at->v.shape[i] != at->q.shape[i])
      return R_LAYOUT;
  at->M = at->q.shape[rank - 2], at->D = at->q.shape[rank - 1];
  at->N = at->k.shape[rank - 2], at->Dv = at->v.shape[rank - 1];
  if (at->k.shape[rank - 1] != at->D || at->v.shape[rank - 2] != at->N)
    return R_LAYOUT;
  /* vectors run along the head dim: contiguous there, whole vectors of 4+ */
  if (at->q.stride[rank - 1] != 1 || at->k.stride[rank - 1] != 1 || at->v.stride[rank - 1] != 1 ||
      at->D % 4 || at->Dv % 4 || at->D > 256 || at->Dv > 256)
    return R_LAYOUT;
  if (at->hasMask) {
    int64_t sshape[MAX_RANK];
    for (intptr_t i = 0; i < rank; ++i)
      sshape[i] = mlirShapedTypeGetDimSize(st, i);
    if (!alignMask(&at->mask, rank, sshape) ||
        (at->mask.stride[rank - 1] != 1 && at->mask.stride[rank - 1] != 0))
      return R_LAYOUT;
    if (causalMask(at, &at->causalC))
      at->causal = true, at->hasMask = false;
  }
  at->outType = mlirValueGetType(o);
  return R_MATCHED;
}

/*--- The loops, as MLIR text ---------------------------------------------------*/

typedef struct Tiles {
  int64_t L;  /* keys per block = f32 lanes */
  int64_t R;  /* query rows per parallel task */
  int64_t G;  /* query rows sharing each tile load */
  int64_t NB; /* vectors of L keys per key block (a block: NB*L keys) */
  int64_t W;  /* vector width along D */
  int64_t Wv; /* vector width along Dv */
  int64_t CG; /* Dv chunks of Wv per pass of P.V over a key block */
} Tiles;

/* One step of a row's running vector max or sum over its key vectors u:
   %<acc>g_u = op(%<acc>g_{u-1}, %<x>g_u); the first copies %<x>g_0 (an
   add of zero, so every step is an SSA value of its own). */
static void chainStep(FILE *f, const char *acc, const char *op, const char *x, int64_t g,
                      int64_t u, int64_t L) {
  if (u == 0)
    fprintf(f, "        %%%s%" PRId64 "_0 = arith.addf %%%s%" PRId64 "_0, %%zv : vector<%" PRId64 "xf32>\n",
            acc, g, x, g, L);
  else
    fprintf(f, "        %%%s%" PRId64 "_%" PRId64 " = %s %%%s%" PRId64 "_%" PRId64 ", %%%s%" PRId64 "_%" PRId64 " : vector<%" PRId64 "xf32>\n",
            acc, g, u, op, acc, g, u - 1, x, g, u, L);
}

/* %<acc>g_u = the larger of %<acc>g_(u-1) and %<x>g_u, lane by lane, by a
   compare and a select (u = 0: %<x>g_0). Not arith.maximumf: its NaN
   propagation costs a compare and two blends more per vector on x86, and
   the softmax needs none of it (see reduceMax). */
static void maxStep(FILE *f, const char *acc, const char *x, int64_t g, int64_t u, int64_t L) {
  if (u == 0) {
    chainStep(f, acc, NULL, x, g, 0, L);
    return;
  }
  fprintf(f, "        %%%1$s%2$" PRId64 "_%3$" PRId64 "c = arith.cmpf ogt, %%%1$s%2$" PRId64 "_%4$" PRId64 ", %%%5$s%2$" PRId64 "_%3$" PRId64 " : vector<%6$" PRId64 "xf32>\n"
             "        %%%1$s%2$" PRId64 "_%3$" PRId64 " = arith.select %%%1$s%2$" PRId64 "_%3$" PRId64 "c, %%%1$s%2$" PRId64 "_%4$" PRId64 ", %%%5$s%2$" PRId64 "_%3$" PRId64 " : vector<%6$" PRId64 "xi1>, vector<%6$" PRId64 "xf32>\n",
          acc, g, u, u - 1, x, L);
}

/* %<out> = the largest lane of vector<L> %<in>: halves compared and
   selected down to one lane (log2 L steps of an extract, a compare and a
   select; vector.reduction <maximumf> takes twice the instructions). A
   NaN score may or may not win here; either way it reaches the output,
   as exp(s - m) of its own lane or of every lane is NaN. */
static void reduceMax(FILE *f, const char *out, const char *in, int64_t L) {
  char prev[48];
  snprintf(prev, sizeof prev, "%s", in);
  for (int64_t w = L / 2; w >= 1; w /= 2) {
    fprintf(f, "        %%%1$sh%2$" PRId64 "a = vector.extract_strided_slice %%%3$s {offsets = [0], sizes = [%2$" PRId64 "], strides = [1]} : vector<%4$" PRId64 "xf32> to vector<%2$" PRId64 "xf32>\n"
               "        %%%1$sh%2$" PRId64 "b = vector.extract_strided_slice %%%3$s {offsets = [%2$" PRId64 "], sizes = [%2$" PRId64 "], strides = [1]} : vector<%4$" PRId64 "xf32> to vector<%2$" PRId64 "xf32>\n"
               "        %%%1$sh%2$" PRId64 "c = arith.cmpf ogt, %%%1$sh%2$" PRId64 "a, %%%1$sh%2$" PRId64 "b : vector<%2$" PRId64 "xf32>\n"
               "        %%%1$sh%2$" PRId64 " = arith.select %%%1$sh%2$" PRId64 "c, %%%1$sh%2$" PRId64 "a, %%%1$sh%2$" PRId64 "b : vector<%2$" PRId64 "xi1>, vector<%2$" PRId64 "xf32>\n",
            out, w, prev, 2 * w);
    snprintf(prev, sizeof prev, "%sh%" PRId64, out, w);
  }
  fprintf(f, "        %%%s = vector.extract %%%s[0] : f32 from vector<1xf32>\n", out, prev);
}

/* Dv chunks per P.V pass: the most (a divisor of Dv / Wv) whose G x CG
   accumulators, CG V rows and one broadcast p fit the vector registers
   (dlcCpuVectorRegisters). With 8 lanes and d = 64 all 8 chunks of 4
   rows (32 accumulators) spilled; 2 chunks a pass run P.V four times over
   the P scratch, from L1. */
static int64_t pvChunks(const Tiles *t, int64_t dv, int64_t given) {
  const int64_t regs = dlcCpuVectorRegisters(t->L), nc = dv / t->Wv;
  if (given > 0) /* the option, where it divides the row's chunks */
    for (int64_t cg = given < nc ? given : nc; cg >= 1; --cg)
      if (nc % cg == 0)
        return cg;
  for (int64_t cg = nc; cg > 1; --cg)
    if (nc % cg == 0 && t->G * cg + cg + 1 <= regs)
      return cg;
  return 1;
}

/* Vectors of L keys per block by default: the most of 4, 2, 1 whose
   G x NB score tile, NB K^T rows and a broadcast q fit 3/4 of the vector
   registers (the rest hold the rows' running values): 4 with 16 lanes and
   G = 4; 2 with 8, where 4 (16 scores in 16 ymm) spilled and ran 1.15x
   slower (s = 128, 12 heads, d = 64, 1 thread). */
static int64_t keyVectors(int64_t L, int64_t G) {
  const int64_t regs = dlcCpuVectorRegisters(L);
  for (int64_t nb = 4; nb > 1; nb /= 2)
    if (G * nb + nb + 1 <= regs * 3 / 4)
      return nb;
  return 1;
}

static int64_t chunkWidth(int64_t d, int64_t lanes) {
  for (int64_t w = lanes; w >= 4; w /= 2)
    if (d % w == 0)
      return w;
  return 4;
}

static uint32_t f32Bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Prints a tensor/memref type body "AxBxf32". */
static void dims(FILE *f, MlirType t) {
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); ++i)
    fprintf(f, "%" PRId64 "x", mlirShapedTypeGetDimSize(t, i));
  fprintf(f, "f32");
}

static int64_t numel(MlirType t) {
  int64_t n = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); ++i)
    n *= mlirShapedTypeGetDimSize(t, i);
  return n;
}

/* %<name>f: the flat 1-D memref of tensor argument %<name>. */
static void flatten(FILE *f, const char *name, MlirType t) {
  intptr_t r = mlirShapedTypeGetRank(t);
  fprintf(f, "  %%%sm = bufferization.to_buffer %%%s read_only : tensor<", name, name);
  dims(f, t);
  fprintf(f, "> to memref<");
  dims(f, t);
  fprintf(f, ">\n");
  if (r == 1) {
    fprintf(f, "  %%%sf = memref.cast %%%sm : memref<%" PRId64 "xf32> to memref<%" PRId64 "xf32>\n",
            name, name, numel(t), numel(t));
    return;
  }
  fprintf(f, "  %%%sf = memref.collapse_shape %%%sm [[", name, name);
  for (intptr_t i = 0; i < r; ++i)
    fprintf(f, "%s%zd", i ? ", " : "", (ssize_t)i);
  fprintf(f, "]] : memref<");
  dims(f, t);
  fprintf(f, "> into memref<%" PRId64 "xf32>\n", numel(t));
}

/* %<dst> = %<base> + %<i> * stride (stride 0: %<base>). */
static void madd(FILE *f, const char *dst, const char *base, const char *i, int64_t stride) {
  if (stride == 0) {
    fprintf(f, "    %%%s = arith.addi %%%s, %%c0 : index\n", dst, base);
    return;
  }
  fprintf(f, "    %%k%s_%" PRId64 " = arith.constant %" PRId64 " : index\n", dst, stride, stride);
  fprintf(f, "    %%%s_m = arith.muli %%%s, %%k%s_%" PRId64 " : index\n", dst, i, dst, stride);
  fprintf(f, "    %%%s = arith.addi %%%s, %%%s_m : index\n", dst, base, dst);
}

/* %qo0_<nb>, %ko0_<nb>, %vo0_<nb>, %mo0_<nb>: the offsets of batch*head
   %bh in Q, K, V and the mask. */
static void emitBatchOffsets(FILE *f, const Attention *at) {
  /* batch offsets: index of batch dim k = (bh / inner_k) % size_k */
  fprintf(f, "    %%qo0_0 = arith.addi %%c0, %%c0 : index\n"
             "    %%ko0_0 = arith.addi %%c0, %%c0 : index\n"
             "    %%vo0_0 = arith.addi %%c0, %%c0 : index\n"
             "    %%mo0_0 = arith.addi %%c0, %%c0 : index\n");
  int64_t inner = 1;
  for (intptr_t k = at->nb - 1, n = 0; k >= 0; --k, ++n) {
    fprintf(f,
            "    %%bin%zd = arith.constant %" PRId64 " : index\n"
            "    %%bsz%zd = arith.constant %" PRId64 " : index\n"
            "    %%bdv%zd = arith.divui %%bh, %%bin%zd : index\n"
            "    %%b%zd = arith.remui %%bdv%zd, %%bsz%zd : index\n",
            (ssize_t)n, inner, (ssize_t)n, at->q.shape[k], (ssize_t)n, (ssize_t)n, (ssize_t)n,
            (ssize_t)n, (ssize_t)n);
    inner *= at->q.shape[k];
    const char *pre[4] = {"qo0", "ko0", "vo0", "mo0"};
    int64_t strides[4] = {at->q.stride[k], at->k.stride[k], at->v.stride[k],
                          at->hasMask ? at->mask.stride[k] : 0};
    for (int w = 0; w < 4; ++w) {
      char dst[32], src[32], idx[16];
      snprintf(dst, sizeof dst, "%s_%zd", pre[w], (ssize_t)n + 1);
      snprintf(src, sizeof src, "%s_%zd", pre[w], (ssize_t)n);
      snprintf(idx, sizeof idx, "b%zd", (ssize_t)n);
      madd(f, dst, src, idx, strides[w]);
    }
  }
}

/* "vector<Nxf32>" types, `n` of them, comma separated. */
static void vecTypes(FILE *f, int64_t n, int64_t w) {
  for (int64_t i = 0; i < n; ++i)
    fprintf(f, "%svector<%" PRId64 "xf32>", i ? ", " : "", w);
}

/* The loop over key blocks of one (head, block of R query rows) task: per
   block of BK = NB*L keys and group of G rows,
     S = Q[G rows] . K^T[:, BK keys]     G x NB vectors, a GEMM micro-kernel
                                         (q broadcast from memory, K^T rows);
     scale, mask, keys past the end (or the causal bound) -> -inf;
     one max and one sum reduction per row per block; exp over the vectors;
     P (G x BK) stored to an L1 scratch row by row;
     acc = acc * corr + P . V[BK keys]   G x Dv/Wv vectors, a GEMM
                                         micro-kernel (p broadcast from P).
   Causal (a constant mask: 0 at key j <= i + c, large negative above):
   blocks wholly above a group's diagonal are skipped, the mask is the
   compare j <= i + c on the blocks it cuts, and never read. */
static void pvPass(FILE *f, const Tiles *tl, const Attention *at, int64_t c0, int64_t c1,
                   ssize_t nbb, int64_t vElems);

static void emitKeyBlocks(FILE *f, const Attention *at, const Tiles *tl, int64_t qElems,
                          int64_t vElems, int64_t mElems, int64_t ktElems) {
  const int64_t L = tl->L, R = tl->R, G = tl->G, Wv = tl->Wv, NB = tl->NB, BK = NB * L;
  const int64_t D = at->D, Dv = at->Dv;
  const intptr_t rk = at->nb + 2;
  const ssize_t nbb = (ssize_t)at->nb;
  const int64_t mSN = at->hasMask ? at->mask.stride[rk - 1] : 0;
  const int64_t U = 4; /* D % 4 == 0 (match); the d loop is unrolled by 4 */
  /* Key blocks this task needs: all, or (causal) up to the last row's bound. */
  if (at->causal)
    fprintf(f, "    %%lastrow = arith.addi %%i0, %%rows : index\n"
               "    %%kendk = arith.addi %%lastrow, %%cC0 : index\n" /* keys < i_last + c + 1 */
               "    %%kendc = arith.minui %%kendk, %%cN : index\n"
               "    %%kendb = arith.addi %%kendc, %%cBKm1 : index\n"
               "    %%kend = arith.divui %%kendb, %%cBK : index\n");
  fprintf(f, "    scf.for %%kb = %%c0 to %s step %%c1 {\n"
             "      %%j0 = arith.muli %%kb, %%cBK : index\n"
             "      %%nrem = arith.subi %%cN, %%j0 : index\n"
             "      %%nk = arith.minui %%nrem, %%cBK : index\n"
             "      %%full = arith.cmpi eq, %%nk, %%cBK : index\n"
             "      %%sb0 = arith.muli %%kb, %%cNBk : index\n"
             "      %%kbg = arith.muli %%bh, %%cNSB : index\n"
             "      %%kbi = arith.addi %%kbg, %%sb0 : index\n"
             "      %%ktb = arith.muli %%kbi, %%cDL : index\n",
          at->causal ? "%kend" : "%cNKB");
  for (int64_t u = 0; u < NB; ++u)
    fprintf(f, "      %%cuL%1$" PRId64 " = arith.constant %2$" PRId64 " : index\n"
               "      %%ju%1$" PRId64 " = arith.addi %%j0, %%cuL%1$" PRId64 " : index\n"
               "      %%juv%1$" PRId64 " = vector.broadcast %%ju%1$" PRId64 " : index to vector<%3$" PRId64 "xindex>\n"
               "      %%jv%1$" PRId64 " = arith.addi %%juv%1$" PRId64 ", %%iota : vector<%3$" PRId64 "xindex>\n"
               "      %%valid%1$" PRId64 " = arith.cmpi ult, %%jv%1$" PRId64 ", %%cNv : vector<%3$" PRId64 "xindex>\n",
            u, u * L, L);
  fprintf(f, "      scf.for %%g = %%c0 to %%cNG step %%c1 {\n"
             "        %%r0 = arith.muli %%g, %%cG : index\n"
             "        %%live0 = arith.cmpi ult, %%r0, %%rows : index\n");
  if (at->causal) /* the group's last row sees keys < i0 + r0 + G + c */
    fprintf(f, "        %%gi = arith.addi %%i0, %%r0 : index\n"
               "        %%gend = arith.addi %%gi, %%cGC : index\n"
               "        %%seen = arith.cmpi ult, %%j0, %%gend : index\n"
               "        %%live = arith.andi %%live0, %%seen : i1\n");
  fprintf(f, "        scf.if %s {\n", at->causal ? "%live" : "%live0");
  for (int64_t g = 0; g < G; ++g) {
    fprintf(f, "        %%cg%1$" PRId64 " = arith.constant %1$" PRId64 " : index\n"
               "        %%r%1$" PRId64 "_ = arith.addi %%r0, %%cg%1$" PRId64 " : index\n"
               "        %%qi%1$" PRId64 "a = arith.addi %%i0, %%r%1$" PRId64 "_ : index\n"
               "        %%qi%1$" PRId64 " = arith.minui %%qi%1$" PRId64 "a, %%cM1 : index\n"
               "        %%qr%1$" PRId64 "m = arith.muli %%qi%1$" PRId64 ", %%kqSM : index\n"
               "        %%qr%1$" PRId64 " = arith.addi %%qr%1$" PRId64 "m, %%qo0_%2$zd : index\n",
            g, nbb);
  }
  /* S = Q . K^T: G x NB accumulators over d */
  fprintf(f, "        %%sc:%" PRId64 " = scf.for %%dd = %%c0 to %%cD step %%cU iter_args(", G * NB);
  for (int64_t i = 0; i < G * NB; ++i)
    fprintf(f, "%s%%x%" PRId64 " = %%zv", i ? ", " : "", i);
  fprintf(f, ") -> (");
  vecTypes(f, G * NB, L);
  fprintf(f, ") {\n"
             "          %%ddL = arith.muli %%dd, %%cL : index\n"
             "          %%kd = arith.addi %%ktb, %%ddL : index\n");
  for (int64_t e = 0; e < U; ++e) {
    for (int64_t u = 0; u < NB; ++u)
      fprintf(f, "          %%kof%1$" PRId64 "_%2$" PRId64 " = arith.constant %3$" PRId64 " : index\n"
                 "          %%ka%1$" PRId64 "_%2$" PRId64 " = arith.addi %%kd, %%kof%1$" PRId64 "_%2$" PRId64 " : index\n"
                 "          %%kv%1$" PRId64 "_%2$" PRId64 " = vector.load %%ktall[%%ka%1$" PRId64 "_%2$" PRId64 "] : memref<%4$" PRId64 "xf32>, vector<%5$" PRId64 "xf32>\n",
              e, u, u * D * L + e * L, ktElems, L);
    fprintf(f, "          %%ce%1$" PRId64 " = arith.constant %1$" PRId64 " : index\n"
               "          %%de%1$" PRId64 " = arith.addi %%dd, %%ce%1$" PRId64 " : index\n", e);
    for (int64_t g = 0; g < G; ++g) {
      fprintf(f, "          %%qa%1$" PRId64 "_%2$" PRId64 " = arith.addi %%qr%1$" PRId64 ", %%de%2$" PRId64 " : index\n"
                 "          %%qs%1$" PRId64 "_%2$" PRId64 " = memref.load %%qf[%%qa%1$" PRId64 "_%2$" PRId64 "] : memref<%3$" PRId64 "xf32>\n"
                 "          %%qb%1$" PRId64 "_%2$" PRId64 " = vector.broadcast %%qs%1$" PRId64 "_%2$" PRId64 " : f32 to vector<%4$" PRId64 "xf32>\n",
              g, e, qElems, L);
      for (int64_t u = 0; u < NB; ++u) {
        char prev[32];
        if (e == 0)
          snprintf(prev, sizeof prev, "x%" PRId64, g * NB + u);
        else
          snprintf(prev, sizeof prev, "y%" PRId64 "_%" PRId64 "_%" PRId64, e - 1, g, u);
        fprintf(f, "          %%y%1$" PRId64 "_%2$" PRId64 "_%3$" PRId64 " = vector.fma %%qb%2$" PRId64 "_%1$" PRId64 ", %%kv%1$" PRId64 "_%3$" PRId64 ", %%%4$s : vector<%5$" PRId64 "xf32>\n",
                e, g, u, prev, L);
      }
    }
  }
  fprintf(f, "          scf.yield ");
  for (int64_t g = 0; g < G; ++g)
    for (int64_t u = 0; u < NB; ++u)
      fprintf(f, "%s%%y%" PRId64 "_%" PRId64 "_%" PRId64, g || u ? ", " : "", U - 1, g, u);
  fprintf(f, " : ");
  vecTypes(f, G * NB, L);
  fprintf(f, "\n        }\n");
  /* softmax on the tile, row by row */
  for (int64_t g = 0; g < G; ++g) {
    if (at->causal) /* key j of row i is kept iff j < i + c + 1 */
      fprintf(f, "        %%lim%1$" PRId64 "k = arith.addi %%qi%1$" PRId64 "a, %%cC1 : index\n"
                 "        %%lim%1$" PRId64 " = arith.minui %%lim%1$" PRId64 "k, %%cN : index\n"
                 "        %%limv%1$" PRId64 " = vector.broadcast %%lim%1$" PRId64 " : index to vector<%2$" PRId64 "xindex>\n",
              g, L);
    if (at->hasMask)
      fprintf(f, "        %%mr%1$" PRId64 "m = arith.muli %%qi%1$" PRId64 ", %%kmSM : index\n"
                 "        %%mr%1$" PRId64 "b = arith.addi %%mr%1$" PRId64 "m, %%mo0_%2$zd : index\n",
              g, nbb);
    for (int64_t u = 0; u < NB; ++u) {
      fprintf(f, "        %%ss%1$" PRId64 "_%2$" PRId64 " = arith.%3$s %%sc#%4$" PRId64 ", %%scalev : vector<%5$" PRId64 "xf32>\n",
              g, u, at->divide ? "divf" : "mulf", g * NB + u, L);
      const char *cur = "ss";
      if (at->hasMask) {
        if (mSN == 1)
          fprintf(f, "        %%mr%1$" PRId64 "_%2$" PRId64 " = arith.addi %%mr%1$" PRId64 "b, %%ju%2$" PRId64 " : index\n"
                     "        %%mk%1$" PRId64 "_%2$" PRId64 " = vector.transfer_read %%maskf[%%mr%1$" PRId64 "_%2$" PRId64 "], %%zf : memref<%3$" PRId64 "xf32>, vector<%4$" PRId64 "xf32>\n",
                  g, u, mElems, L);
        else
          fprintf(f, "        %%mk%1$" PRId64 "_%2$" PRId64 "s = memref.load %%maskf[%%mr%1$" PRId64 "b] : memref<%3$" PRId64 "xf32>\n"
                     "        %%mk%1$" PRId64 "_%2$" PRId64 " = vector.broadcast %%mk%1$" PRId64 "_%2$" PRId64 "s : f32 to vector<%4$" PRId64 "xf32>\n",
                  g, u, mElems, L);
        fprintf(f, "        %%sm%1$" PRId64 "_%2$" PRId64 " = arith.addf %%ss%1$" PRId64 "_%2$" PRId64 ", %%mk%1$" PRId64 "_%2$" PRId64 " : vector<%3$" PRId64 "xf32>\n",
                g, u, L);
        cur = "sm";
      }
      if (at->causal)
        fprintf(f, "        %%ok%1$" PRId64 "_%2$" PRId64 " = arith.cmpi ult, %%jv%2$" PRId64 ", %%limv%1$" PRId64 " : vector<%3$" PRId64 "xindex>\n",
                g, u, L);
      char okName[32];
      if (at->causal)
        snprintf(okName, sizeof okName, "ok%" PRId64 "_%" PRId64, g, u);
      else
        snprintf(okName, sizeof okName, "valid%" PRId64, u);
      fprintf(f, "        %%s%1$" PRId64 "_%2$" PRId64 " = arith.select %%%5$s, %%%3$s%1$" PRId64 "_%2$" PRId64 ", %%ninfv : vector<%4$" PRId64 "xi1>, vector<%4$" PRId64 "xf32>\n",
              g, u, cur, L, okName);
      maxStep(f, "vm", "s", g, u, L);
    }
    char bm[32], vm[32];
    snprintf(bm, sizeof bm, "bm%" PRId64, g);
    snprintf(vm, sizeof vm, "vm%" PRId64 "_%" PRId64, g, NB - 1);
    reduceMax(f, bm, vm, L);
    fprintf(f,
            "        %%mold%1$" PRId64 " = memref.load %%ms[%%r%1$" PRId64 "_] : memref<%3$" PRId64 "xf32>\n"
            "        %%mnew%1$" PRId64 " = arith.maximumf %%mold%1$" PRId64 ", %%bm%1$" PRId64 " : f32\n"
            /* a row with no key yet: exp(-inf - 0) = 0, not exp(NaN) */
            "        %%isinf%1$" PRId64 " = arith.cmpf oeq, %%mnew%1$" PRId64 ", %%ninf : f32\n"
            "        %%msafe%1$" PRId64 " = arith.select %%isinf%1$" PRId64 ", %%zf, %%mnew%1$" PRId64 " : f32\n"
            "        %%dm%1$" PRId64 " = arith.subf %%mold%1$" PRId64 ", %%msafe%1$" PRId64 " : f32\n"
            "        %%corr%1$" PRId64 " = math.exp %%dm%1$" PRId64 " : f32\n"
            "        %%msv%1$" PRId64 " = vector.broadcast %%msafe%1$" PRId64 " : f32 to vector<%2$" PRId64 "xf32>\n"
            "        %%pb%1$" PRId64 " = arith.muli %%cg%1$" PRId64 ", %%cBK : index\n",
            g, L, R);
    for (int64_t u = 0; u < NB; ++u) {
      fprintf(f, "        %%sd%1$" PRId64 "_%2$" PRId64 " = arith.subf %%s%1$" PRId64 "_%2$" PRId64 ", %%msv%1$" PRId64 " : vector<%3$" PRId64 "xf32>\n"
                 "        %%p%1$" PRId64 "_%2$" PRId64 " = math.exp %%sd%1$" PRId64 "_%2$" PRId64 " : vector<%3$" PRId64 "xf32>\n"
                 "        %%pa%1$" PRId64 "_%2$" PRId64 " = arith.addi %%pb%1$" PRId64 ", %%cuL%2$" PRId64 " : index\n"
                 "        vector.store %%p%1$" PRId64 "_%2$" PRId64 ", %%pt[%%pa%1$" PRId64 "_%2$" PRId64 "] : memref<%4$" PRId64 "xf32>, vector<%3$" PRId64 "xf32>\n",
              g, u, L, G * BK);
      chainStep(f, "vs", "arith.addf", "p", g, u, L);
    }
    fprintf(f,
            "        %%lold%1$" PRId64 " = memref.load %%ls[%%r%1$" PRId64 "_] : memref<%2$" PRId64 "xf32>\n"
            "        %%psum%1$" PRId64 " = vector.reduction <add>, %%vs%1$" PRId64 "_%3$" PRId64 " fastmath<reassoc> : vector<%4$" PRId64 "xf32> into f32\n"
            "        %%l1%1$" PRId64 " = arith.mulf %%lold%1$" PRId64 ", %%corr%1$" PRId64 " : f32\n"
            "        %%lnew%1$" PRId64 " = arith.addf %%l1%1$" PRId64 ", %%psum%1$" PRId64 " : f32\n"
            "        memref.store %%mnew%1$" PRId64 ", %%ms[%%r%1$" PRId64 "_] : memref<%2$" PRId64 "xf32>\n"
            "        memref.store %%lnew%1$" PRId64 ", %%ls[%%r%1$" PRId64 "_] : memref<%2$" PRId64 "xf32>\n"
            "        %%corrv%1$" PRId64 " = vector.broadcast %%corr%1$" PRId64 " : f32 to vector<%5$" PRId64 "xf32>\n"
            "        %%ab%1$" PRId64 " = arith.muli %%r%1$" PRId64 "_, %%kDv2 : index\n",
            g, R, NB - 1, L, Wv);
    for (int64_t c = 0; c < Dv; c += Wv)
      fprintf(f, "        %%aa%1$" PRId64 "_%2$" PRId64 " = arith.addi %%ab%1$" PRId64 ", %%cv%2$" PRId64 " : index\n",
              g, c);
  }
  /* acc += P . V over the block's keys, CG chunks of Dv a pass (the G x CG
     accumulators, CG V loads and a broadcast in registers): whole blocks 4
     keys a step, the last (partial) block one key a step (V rows past N
     are not read) */
  for (int64_t c0 = 0; c0 < Dv; c0 += tl->CG * Wv)
    pvPass(f, tl, at, c0, c0 + tl->CG * Wv, nbb, vElems);
  fprintf(f, "        }\n      }\n    }\n");
}

/* One pass of P.V over the key block for the Dv columns [c0, c1): the
   running accumulators scaled by the row's correction, the key loop, and
   the results stored back. */
static void pvPass(FILE *f, const Tiles *tl, const Attention *at, int64_t c0, int64_t c1,
                   ssize_t nbb, int64_t vElems) {
  const int64_t R = tl->R, G = tl->G, Wv = tl->Wv, BK = tl->NB * tl->L, Dv = at->Dv;
  const int64_t NC = (c1 - c0) / Wv;
  for (int64_t g = 0; g < G; ++g)
    for (int64_t c = c0; c < c1; c += Wv)
      fprintf(f, "        %%a%1$" PRId64 "_%2$" PRId64 "l = vector.load %%acc[%%aa%1$" PRId64 "_%2$" PRId64 "] : memref<%3$" PRId64 "xf32>, vector<%4$" PRId64 "xf32>\n"
                 "        %%a%1$" PRId64 "_%2$" PRId64 " = arith.mulf %%a%1$" PRId64 "_%2$" PRId64 "l, %%corrv%1$" PRId64 " : vector<%4$" PRId64 "xf32>\n",
              g, c, R * Dv, Wv);
  fprintf(f, "        %%res%" PRId64 ":%" PRId64 " = scf.if %%full -> (", c0, G * NC);
  vecTypes(f, G * NC, Wv);
  fprintf(f, ") {\n");
  for (int pass = 0; pass < 2; ++pass) {
    const int64_t step = pass == 0 ? 4 : 1;
    if (pass == 1)
      fprintf(f, "        } else {\n");
    fprintf(f, "          %%pv%d:%" PRId64 " = scf.for %%t = %%c0 to %s step %s iter_args(", pass,
            G * NC, pass == 0 ? "%cBK" : "%nk", pass == 0 ? "%cU" : "%c1");
    for (int64_t g = 0; g < G; ++g)
      for (int64_t c = c0; c < c1; c += Wv)
        fprintf(f, "%s%%z%" PRId64 "_%" PRId64 " = %%a%" PRId64 "_%" PRId64, g || c > c0 ? ", " : "", g, c,
                g, c);
    fprintf(f, ") -> (");
    vecTypes(f, G * NC, Wv);
    fprintf(f, ") {\n");
    for (int64_t e = 0; e < step; ++e) {
      fprintf(f, "            %%te%1$" PRId64 "c = arith.constant %1$" PRId64 " : index\n"
                 "            %%te%1$" PRId64 " = arith.addi %%t, %%te%1$" PRId64 "c : index\n"
                 "            %%tj%1$" PRId64 " = arith.addi %%j0, %%te%1$" PRId64 " : index\n"
                 "            %%trm%1$" PRId64 " = arith.muli %%tj%1$" PRId64 ", %%kvSN : index\n"
                 "            %%tr%1$" PRId64 " = arith.addi %%trm%1$" PRId64 ", %%vo0_%2$zd : index\n",
              e, nbb);
      for (int64_t c = c0; c < c1; c += Wv)
        fprintf(f, "            %%tva%1$" PRId64 "_%2$" PRId64 " = arith.addi %%tr%1$" PRId64 ", %%cv%2$" PRId64 " : index\n"
                   "            %%tvv%1$" PRId64 "_%2$" PRId64 " = vector.load %%vf[%%tva%1$" PRId64 "_%2$" PRId64 "] : memref<%3$" PRId64 "xf32>, vector<%4$" PRId64 "xf32>\n",
                e, c, vElems, Wv);
      for (int64_t g = 0; g < G; ++g) {
        fprintf(f, "            %%tpa%1$" PRId64 "_%2$" PRId64 " = arith.addi %%pb%2$" PRId64 ", %%te%1$" PRId64 " : index\n"
                   "            %%tps%1$" PRId64 "_%2$" PRId64 " = memref.load %%pt[%%tpa%1$" PRId64 "_%2$" PRId64 "] : memref<%3$" PRId64 "xf32>\n"
                   "            %%tpb%1$" PRId64 "_%2$" PRId64 " = vector.broadcast %%tps%1$" PRId64 "_%2$" PRId64 " : f32 to vector<%4$" PRId64 "xf32>\n",
                e, g, G * BK, Wv);
        for (int64_t c = c0; c < c1; c += Wv) {
          char prev[32];
          if (e == 0)
            snprintf(prev, sizeof prev, "z%" PRId64 "_%" PRId64, g, c);
          else
            snprintf(prev, sizeof prev, "w%" PRId64 "_%" PRId64 "_%" PRId64, e - 1, g, c);
          fprintf(f, "            %%w%1$" PRId64 "_%2$" PRId64 "_%3$" PRId64 " = vector.fma %%tpb%1$" PRId64 "_%2$" PRId64 ", %%tvv%1$" PRId64 "_%3$" PRId64 ", %%%4$s : vector<%5$" PRId64 "xf32>\n",
                  e, g, c, prev, Wv);
        }
      }
    }
    fprintf(f, "            scf.yield ");
    for (int64_t g = 0; g < G; ++g)
      for (int64_t c = c0; c < c1; c += Wv)
        fprintf(f, "%s%%w%" PRId64 "_%" PRId64 "_%" PRId64, g || c > c0 ? ", " : "", step - 1, g, c);
    fprintf(f, " : ");
    vecTypes(f, G * NC, Wv);
    fprintf(f, "\n          }\n          scf.yield ");
    for (int64_t i = 0; i < G * NC; ++i)
      fprintf(f, "%s%%pv%d#%" PRId64, i ? ", " : "", pass, i);
    fprintf(f, " : ");
    vecTypes(f, G * NC, Wv);
    fprintf(f, "\n");
  }
  fprintf(f, "        }\n");
  for (int64_t g = 0; g < G; ++g)
    for (int64_t c = c0, n = 0; c < c1; c += Wv, ++n)
      fprintf(f, "        vector.store %%res%" PRId64 "#%" PRId64 ", %%acc[%%aa%" PRId64 "_%" PRId64 "] : memref<%" PRId64 "xf32>, vector<%" PRId64 "xf32>\n",
              c0, g * NC + n, g, c, R * Dv, Wv);
}

static char *functionText(const char *name, const Attention *at, const Tiles *tl,
                          MlirType qt, MlirType kt, MlirType vt, MlirType mt) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  const int64_t L = tl->L, R = tl->R, G = tl->G, W = tl->W, Wv = tl->Wv;
  const int64_t M = at->M, N = at->N, D = at->D, Dv = at->Dv;
  int64_t BH = 1;
  for (intptr_t i = 0; i < at->nb; ++i)
    BH *= at->q.shape[i];
  const int64_t NB = tl->NB, BK = NB * L;
  const int64_t NQB = (M + R - 1) / R, NKB = (N + BK - 1) / BK, NG = R / G, NSB = NKB * NB;
  const int64_t ktElems = BH * NSB * D * L;
  const intptr_t rk = at->nb + 2;
  const ssize_t nbb = (ssize_t)at->nb;
  const int64_t qSM = at->q.stride[rk - 2], kSN = at->k.stride[rk - 2], vSN = at->v.stride[rk - 2];
  const int64_t mSM = at->hasMask ? at->mask.stride[rk - 2] : 0;

  fprintf(f, "func.func private @%s(%%q: tensor<", name);
  dims(f, qt);
  fprintf(f, ">, %%k: tensor<");
  dims(f, kt);
  fprintf(f, ">, %%v: tensor<");
  dims(f, vt);
  if (at->hasMask) {
    fprintf(f, ">, %%mask: tensor<");
    dims(f, mt);
  }
  fprintf(f, ">) -> tensor<");
  dims(f, at->outType);
  /* The tiles it was built with, printed for the reader and the tests. */
  fprintf(f, "> attributes {dlc.attention_loops = {keys = %" PRId64 " : i64, rows = %" PRId64
             " : i64, group = %" PRId64 " : i64, head_vector = %" PRId64
             " : i64, value_vectors = %" PRId64 " : i64}} {\n",
          BK, R, G, W, tl->CG);
  flatten(f, "q", qt);
  flatten(f, "k", kt);
  flatten(f, "v", vt);
  if (at->hasMask)
    flatten(f, "mask", mt);
  fprintf(f, "  %%om = memref.alloc() {alignment = 64 : i64} : memref<");
  dims(f, at->outType);
  fprintf(f, ">\n");
  fprintf(f, "  %%of = memref.collapse_shape %%om [[");
  for (intptr_t i = 0; i < rk; ++i)
    fprintf(f, "%s%zd", i ? ", " : "", (ssize_t)i);
  fprintf(f, "]] : memref<");
  dims(f, at->outType);
  fprintf(f, "> into memref<%" PRId64 "xf32>\n", numel(at->outType));
  fprintf(f,
          "  %%c0 = arith.constant 0 : index\n"
          "  %%c1 = arith.constant 1 : index\n"
          "  %%cG = arith.constant %" PRId64 " : index\n"
          "  %%cR = arith.constant %" PRId64 " : index\n"
          "  %%cL = arith.constant %" PRId64 " : index\n"
          "  %%cM = arith.constant %" PRId64 " : index\n"
          "  %%cM1 = arith.constant %" PRId64 " : index\n"
          "  %%cN = arith.constant %" PRId64 " : index\n"
          "  %%cN1 = arith.constant %" PRId64 " : index\n"
          "  %%cNKB = arith.constant %" PRId64 " : index\n"
          "  %%cNG = arith.constant %" PRId64 " : index\n"
          "  %%ninf = arith.constant 0xFF800000 : f32\n"
          "  %%zf = arith.constant 0.0 : f32\n"
          "  %%onef = arith.constant 1.0 : f32\n"
          "  %%nanf = arith.constant 0x7FC00000 : f32\n"
          "  %%scale = arith.constant 0x%08" PRIX32 " : f32\n"
          "  %%scalev = vector.broadcast %%scale : f32 to vector<%" PRId64 "xf32>\n"
          "  %%ninfv = arith.constant dense<0xFF800000> : vector<%" PRId64 "xf32>\n"
          "  %%zv = arith.constant dense<0.0> : vector<%" PRId64 "xf32>\n"
          "  %%zvv = arith.constant dense<0.0> : vector<%" PRId64 "xf32>\n"
          "  %%ztile = arith.constant dense<0.0> : vector<%" PRId64 "x%" PRId64 "xf32>\n"
          "  %%iota = vector.step : vector<%" PRId64 "xindex>\n",
          G, R, L, M, M - 1, N, N - 1, NKB, NG, f32Bits(at->hasScale ? at->scale : 1.0f), L, L,
          L, Wv, L, W, L);
  /* (the d loop of the score tile is unrolled by U = 4; D % 4 == 0) */
  fprintf(f, "  %%cBK = arith.constant %" PRId64 " : index\n"
             "  %%cNSB = arith.constant %" PRId64 " : index\n"
             "  %%cNBk = arith.constant %" PRId64 " : index\n"
             "  %%cD = arith.constant %" PRId64 " : index\n"
             "  %%cU = arith.constant %" PRId64 " : index\n"
             "  %%kqSM = arith.constant %" PRId64 " : index\n"
             "  %%kvSN = arith.constant %" PRId64 " : index\n"
             "  %%kDv2 = arith.constant %" PRId64 " : index\n"
             "  %%cNv = vector.broadcast %%cN : index to vector<%" PRId64 "xindex>\n",
          BK, NKB * NB, NB, D, (int64_t)4, qSM, vSN, Dv, L);
  if (at->hasMask)
    fprintf(f, "  %%kmSM = arith.constant %" PRId64 " : index\n", mSM);
  for (int64_t c = 0; c < Dv; c += Wv)
    fprintf(f, "  %%cv%" PRId64 " = arith.constant %" PRId64 " : index\n", c, c);
  if (at->causal)
    fprintf(f, "  %%cC0 = arith.constant %" PRId64 " : index\n"
               "  %%cC1 = arith.constant %" PRId64 " : index\n"
               "  %%cGC = arith.constant %" PRId64 " : index\n"
               "  %%cBKm1 = arith.constant %" PRId64 " : index\n",
            at->causalC, at->causalC + 1, G + at->causalC, BK - 1);
  /* K^T of every head, in [D, L] tiles per L keys: a key block's NB tiles
     are consecutive. Keys past N repeat key N-1 (their scores are masked). */
  fprintf(f, "  %%ktall = memref.alloc() {alignment = 64 : i64} : memref<%" PRId64 "xf32>\n"
             "  %%cDL = arith.constant %" PRId64 " : index\n", ktElems, D * L);
  fprintf(f, "  scf.forall (%%bh, %%kb) in (%" PRId64 ", %" PRId64 ") {\n", BH, NSB);
  emitBatchOffsets(f, at);
  fprintf(f, "      %%j0 = arith.muli %%kb, %%cL : index\n"
             "      %%kbg = arith.muli %%bh, %%cNSB : index\n"
             "      %%kbi = arith.addi %%kbg, %%kb : index\n"
             "      %%ktb = arith.muli %%kbi, %%cDL : index\n");
  /* K^T tiles: K read once, each block of L keys transposed to [D, L] */
  fprintf(f, "      %%kkSN = arith.constant %" PRId64 " : index\n", kSN);
  for (int64_t t = 0; t < L; ++t)
    fprintf(f, "      %%ct%" PRId64 " = arith.constant %" PRId64 " : index\n"
               "      %%jt%" PRId64 "a = arith.addi %%j0, %%ct%" PRId64 " : index\n"
               "      %%jt%" PRId64 " = arith.minui %%jt%" PRId64 "a, %%cN1 : index\n"
               "      %%kr%" PRId64 "m = arith.muli %%jt%" PRId64 ", %%kkSN : index\n"
               "      %%kr%" PRId64 " = arith.addi %%kr%" PRId64 "m, %%ko0_%zd : index\n",
            t, t, t, t, t, t, t, t, t, t, nbb);
  for (int64_t c0 = 0; c0 < D; c0 += W) {
    fprintf(f, "      %%cc%" PRId64 " = arith.constant %" PRId64 " : index\n", c0, c0);
    const char *prev = "ztile";
    char cur[48], prevBuf[48];
    for (int64_t t = 0; t < L; ++t) {
      fprintf(f, "      %%ka%" PRId64 "_%" PRId64 " = arith.addi %%kr%" PRId64 ", %%cc%" PRId64 " : index\n"
                 "      %%kv%" PRId64 "_%" PRId64 " = vector.load %%kf[%%ka%" PRId64 "_%" PRId64 "] : memref<%" PRId64 "xf32>, vector<%" PRId64 "xf32>\n",
              c0, t, t, c0, c0, t, c0, t, numel(kt), W);
      snprintf(cur, sizeof cur, "tile%" PRId64 "_%" PRId64, c0, t);
      fprintf(f, "      %%%s = vector.insert %%kv%" PRId64 "_%" PRId64 ", %%%s [%" PRId64 "] : vector<%" PRId64 "xf32> into vector<%" PRId64 "x%" PRId64 "xf32>\n",
              cur, c0, t, prev, t, W, L, W);
      snprintf(prevBuf, sizeof prevBuf, "%s", cur);
      prev = prevBuf;
    }
    fprintf(f, "      %%tt%" PRId64 " = vector.transpose %%%s, [1, 0] : vector<%" PRId64 "x%" PRId64 "xf32> to vector<%" PRId64 "x%" PRId64 "xf32>\n",
            c0, prev, L, W, W, L);
    for (int64_t u = 0; u < W; ++u)
      fprintf(f, "      %%te%" PRId64 " = vector.extract %%tt%" PRId64 "[%" PRId64 "] : vector<%" PRId64 "xf32> from vector<%" PRId64 "x%" PRId64 "xf32>\n"
                 "      %%cte%" PRId64 " = arith.constant %" PRId64 " : index\n"
                 "      %%ctx%" PRId64 " = arith.addi %%ktb, %%cte%" PRId64 " : index\n"
                 "      vector.store %%te%" PRId64 ", %%ktall[%%ctx%" PRId64 "] : memref<%" PRId64 "xf32>, vector<%" PRId64 "xf32>\n",
              c0 + u, c0, u, L, W, L, c0 + u, (c0 + u) * L, c0 + u, c0 + u, c0 + u, c0 + u, ktElems, L);
  }
  fprintf(f, "  }\n");
  fprintf(f, "  scf.forall (%%bh, %%qb) in (%" PRId64 ", %" PRId64 ") {\n", BH, NQB);
  fprintf(f,
          "    %%acc = memref.alloc() {alignment = 64 : i64} : memref<%" PRId64 "xf32>\n"
          "    %%pt = memref.alloc() {alignment = 64 : i64} : memref<%" PRId64 "xf32>\n"
          "    %%ms = memref.alloc() : memref<%" PRId64 "xf32>\n"
          "    %%ls = memref.alloc() : memref<%" PRId64 "xf32>\n"
                    "    %%i0 = arith.muli %%qb, %%cR : index\n"
          "    %%rem = arith.subi %%cM, %%i0 : index\n"
          "    %%rows = arith.minui %%rem, %%cR : index\n",
          R * Dv, G * BK, R, R);
  emitBatchOffsets(f, at);
  fprintf(f, "    %%kMDv = arith.constant %" PRId64 " : index\n"
             "    %%oo0 = arith.muli %%bh, %%kMDv : index\n", M * Dv);
  /* init */
  fprintf(f, "    scf.for %%r = %%c0 to %%cR step %%c1 {\n"
             "      memref.store %%ninf, %%ms[%%r] : memref<%" PRId64 "xf32>\n"
             "      memref.store %%zf, %%ls[%%r] : memref<%" PRId64 "xf32>\n"
             "      %%kDv = arith.constant %" PRId64 " : index\n"
             "      %%ab = arith.muli %%r, %%kDv : index\n",
          R, R, Dv);
  for (int64_t c = 0; c < Dv; c += Wv)
    fprintf(f, "      %%ci%" PRId64 " = arith.constant %" PRId64 " : index\n"
               "      %%ai%" PRId64 " = arith.addi %%ab, %%ci%" PRId64 " : index\n"
               "      vector.store %%zvv, %%acc[%%ai%" PRId64 "] : memref<%" PRId64 "xf32>, vector<%" PRId64 "xf32>\n",
            c, c, c, c, c, R * Dv, Wv);
  fprintf(f, "    }\n");
  emitKeyBlocks(f, at, tl, numel(qt), numel(vt), at->hasMask ? numel(mt) : 0, ktElems);
  /* out = acc / l for the block's rows */
  fprintf(f, "    scf.for %%r = %%c0 to %%rows step %%c1 {\n"
             "      %%l = memref.load %%ls[%%r] : memref<%" PRId64 "xf32>\n"
             "      %%invl = arith.divf %%onef, %%l : f32\n"
             /* a row whose scores are all -inf: softmax is NaN (0/0), as the
                three kernels give, not the clamped exp's average of V */
             "      %%mfin = memref.load %%ms[%%r] : memref<%" PRId64 "xf32>\n"
             "      %%allninf = arith.cmpf oeq, %%mfin, %%ninf : f32\n"
             "      %%inv = arith.select %%allninf, %%nanf, %%invl : f32\n"
             "      %%invv = vector.broadcast %%inv : f32 to vector<%" PRId64 "xf32>\n"
             "      %%kDv3 = arith.constant %" PRId64 " : index\n"
             "      %%ab = arith.muli %%r, %%kDv3 : index\n"
             "      %%i = arith.addi %%i0, %%r : index\n"
             "      %%orow = arith.muli %%i, %%kDv3 : index\n"
             "      %%ob = arith.addi %%oo0, %%orow : index\n",
          R, R, Wv, Dv);
  for (int64_t c = 0; c < Dv; c += Wv)
    fprintf(f, "      %%kc%1$" PRId64 "f = arith.constant %1$" PRId64 " : index\n"
               "      %%fa%1$" PRId64 " = arith.addi %%ab, %%kc%1$" PRId64 "f : index\n"
               "      %%fv%1$" PRId64 " = vector.load %%acc[%%fa%1$" PRId64 "] : memref<%2$" PRId64 "xf32>, vector<%3$" PRId64 "xf32>\n"
               "      %%fo%1$" PRId64 " = arith.mulf %%fv%1$" PRId64 ", %%invv : vector<%3$" PRId64 "xf32>\n"
               "      %%fi%1$" PRId64 " = arith.addi %%ob, %%kc%1$" PRId64 "f : index\n"
               "      vector.store %%fo%1$" PRId64 ", %%of[%%fi%1$" PRId64 "] : memref<%4$" PRId64 "xf32>, vector<%3$" PRId64 "xf32>\n",
            c, R * Dv, Wv, numel(at->outType));
  fprintf(f, "    }\n  }\n");
  fprintf(f, "  %%ot = bufferization.to_tensor %%om restrict writable : memref<");
  dims(f, at->outType);
  fprintf(f, "> to tensor<");
  dims(f, at->outType);
  fprintf(f, ">\n  return %%ot : tensor<");
  dims(f, at->outType);
  fprintf(f, ">\n}\n");
  if (fclose(f))
    return NULL;
  return text;
}

/*--- The pass ------------------------------------------------------------------*/

static const DlcOptionDesc kOptions[] = {
    {"vector-width", "f32 lanes per vector (keys per block); 0: 16 with AVX-512, else 8",
     DLC_OPTION_INT, "0"},
    {"rows", "query rows per parallel task (a multiple of `group`)", DLC_OPTION_INT, "64"},
    /* 4 also at dv = 128 (32 P.V accumulators of 16): there 2 was measured
       1.3x slower, 1 2.2x (s = 128, 256, 6 heads, 1 thread) */
    {"group", "query rows that share each load of a K or V tile", DLC_OPTION_INT, "4"},
    {"keys", "keys per block (a multiple of vector-width, at most 8 vectors); 0: 4 vectors "
             "with 16 lanes, 2 with fewer (keyVectors)",
     DLC_OPTION_INT, "0"},
    {"value-chunks", "vectors of a V row per pass of P.V; 0: as many as the registers hold "
                     "(pvChunks)",
     DLC_OPTION_INT, "0"},
    /* On by default with 16 lanes (AVX-512): interleaved best-of-N, loaded
       2-core AVX-512 EPYC, 12 heads, d = 64, one kernel against the three:
       1 thread s = 16 1.06x, 64 1.08x, 128 1.07x, 512 1.42x, 2048 1.3-2.9x;
       2 threads s = 128 1.05x, 512 3.4x, 2048 1.8x (bench/run.py --only
       attention). With 8 lanes, AVX2 code on the same machine (bench/run.py
       --isa avx2 --only attention, loaded), one kernel against three:
       s = 128 / 512 / 2048 0.94x / 1.10x / 1.06x at 1 thread, 1.03x /
       1.08x / 1.33x at 2; under a causal mask s = 128 / 512 1.83x / 2.29x
       at 1 thread, 1.80x / 2.14x at 2. That had AVX2 fuse only from 512
       keys. On an AVX2 machine (AMD EPYC Zen 3, loaded, three runs of
       bench/run.py --only attention): s = 128 1.06x, 1.12x, 1.06x at 1
       thread, 1.09x, 1.05x, 1.04x at 2; s = 512 1.20x and 1.35x (1 and 2
       threads), 2048 1.42x and 1.37x. So with 8 lanes causal chains are fused at any length,
       others from 128 keys (shorter ones unmeasured there). */
    {"min-keys", "fuse when the key length is at least this; -1: never (three kernels); "
                 "-2: 0 with 16 lanes; with fewer, causal chains and others of 128 keys or more. "
                 "A module attribute dlc.attention_min_keys overrides it",
     DLC_OPTION_INT, "-2"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"matched", "attention chains computed as one kernel"},
    {"not-softmax-kernel", "softmax kernels not of the matched form"},
    {"scores-kernel-not-matched", "softmax inputs not a Q.K^T (scale, mask) kernel"},
    {"output-kernel-not-matched", "softmax results not read by a plain P.V kernel"},
    {"operands-not-views", "Q, K, V or mask not a reshape/transpose of a kernel operand"},
    {"layout-not-supported", "shapes or strides the loops do not handle"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__bufferization__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__vector__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__scf__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__math__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
}

typedef struct Found {
  MlirOperation *ops;
  int n, cap;
} Found;

static MlirWalkResult collectSoftmaxKernels(MlirOperation op, void *user) {
  Found *fd = user;
  if (dlcOpIs(op, "dlk.kernel") && fd->n < fd->cap)
    fd->ops[fd->n++] = op;
  return MlirWalkResultAdvance;
}

static int64_t hostLanes(int64_t given) {
  if (given > 0)
    return given;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return 16;
#endif
  return 8;
}

/* What `--profile` prints for the call (passes/profile.c): the kernel it
   replaced three of is one row, "attention", with the two GEMMs' flops
   (a causal mask skips about half of them, which the figure ignores). */
static void profileAs(MlirOperation call, const Attention *at) {
  MlirContext ctx = mlirOperationGetContext(call);
  int64_t bh = 1;
  for (intptr_t i = 0; i < at->nb; ++i)
    bh *= at->q.shape[i];
  char root[160];
  snprintf(root, sizeof root, "attention %lldx%lldx%lld keys %lld dv %lld%s", (long long)bh,
           (long long)at->M, (long long)at->D, (long long)at->N, (long long)at->Dv,
           at->causal ? " causal" : "");
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  mlirOperationSetDiscardableAttributeByName(call, str("dlc.profile_root"),
                                             mlirStringAttrGet(ctx, str(root)));
  mlirOperationSetDiscardableAttributeByName(
      call, str("dlc.profile_flops"),
      mlirIntegerAttrGet(i64, 2 * bh * at->M * at->N * (at->D + at->Dv)));
}

static MlirLogicalResult rewrite(MlirOperation module, const Attention *at, const Tiles *tl,
                                 int serial) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirValue ops[4] = {at->q.outer, at->k.outer, at->v.outer, at->mask.outer};
  int nops = at->hasMask ? 4 : 3;
  char name[64];
  snprintf(name, sizeof name, "dlc_attention_%d", serial);
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  while (!mlirOperationIsNull(mlirSymbolTableLookup(table, str(name))))
    snprintf(name, sizeof name, "dlc_attention_%d", ++serial);
  char *text = functionText(name, at, tl, mlirValueGetType(ops[0]), mlirValueGetType(ops[1]),
                            mlirValueGetType(ops[2]),
                            at->hasMask ? mlirValueGetType(ops[3]) : (MlirType){NULL});
  MlirOperation fn = text ? mlirOperationCreateParse(ctx, str(text), str("dlc-attention"))
                          : (MlirOperation){NULL};
  free(text);
  if (mlirOperationIsNull(fn)) {
    mlirSymbolTableDestroy(table);
    mlirEmitError(mlirOperationGetLocation(at->k2),
                  "dlc-cpu-attention: internal error: the attention loops did not parse");
    return (MlirLogicalResult){0};
  }
  mlirSymbolTableInsert(table, fn);
  mlirSymbolTableDestroy(table);
  DlcBuilder b = dlcBuilderBefore(at->k3, mlirOperationGetLocation(at->k3));
  MlirNamedAttribute callee = dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  MlirType rt = at->outType;
  MlirOperation call = dlcBuildOpTyped(&b, "func.call", nops, ops, 1, &rt, 1, &callee);
  if (mlirOperationIsNull(call))
    return (MlirLogicalResult){0};
  profileAs(call, at);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(at->k3, 0),
                                mlirOperationGetResult(call, 0));
  mlirOperationDestroy(at->k3);
  mlirOperationDestroy(at->k2);
  mlirOperationDestroy(at->k1);
  return (MlirLogicalResult){1};
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  Tiles tl = {.L = hostLanes(dlcOptionsGetInt(o, "vector-width")),
              .R = dlcOptionsGetInt(o, "rows"),
              .G = dlcOptionsGetInt(o, "group")};
  int64_t keys = dlcOptionsGetInt(o, "keys");
  const int64_t valueChunks = dlcOptionsGetInt(o, "value-chunks");
  int64_t minKeys = dlcOptionsGetInt(o, "min-keys");
  /* A module may set its own threshold (benchmarks compare both paths). */
  MlirAttribute own = mlirOperationGetAttributeByName(module, str("dlc.attention_min_keys"));
  if (!mlirAttributeIsNull(own)) {
    if (!mlirAttributeIsAInteger(own)) {
      mlirEmitError(mlirOperationGetLocation(module),
                    "dlc-cpu-attention: dlc.attention_min_keys must be an integer");
      return (MlirLogicalResult){0};
    }
    minKeys = mlirIntegerAttrGetValueInt(own);
  }
  if (tl.L != 4 && tl.L != 8 && tl.L != 16) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-cpu-attention: vector-width must be 4, 8 or 16");
    return (MlirLogicalResult){0};
  }
  if (tl.G < 1 || tl.G > 8 || tl.R < tl.G || tl.R % tl.G || tl.R > 1024) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-cpu-attention: group must be 1..8 and rows a multiple of group, at most "
                  "1024");
    return (MlirLogicalResult){0};
  }
  /* The default (-2): every chain with 16 lanes; with fewer, the causal
     ones and those of kNarrowMinKeys keys or more (see the min-keys option
     for the figures). */
  enum { kNarrowMinKeys = 128 };
  bool narrow = minKeys == -2 && tl.L != 16;
  if (minKeys == -2)
    minKeys = 0;
  if (keys == 0)
    keys = keyVectors(tl.L, tl.G) * tl.L;
  if (valueChunks < 0) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-cpu-attention: value-chunks must be 0 (by the registers) or positive");
    return (MlirLogicalResult){0};
  }
  if (keys < tl.L || keys % tl.L || keys / tl.L > 8) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-cpu-attention: keys must be a multiple of vector-width, at most 8 vectors");
    return (MlirLogicalResult){0};
  }
  tl.NB = keys / tl.L;
  Found fd = {.cap = 4096};
  fd.ops = malloc(sizeof *fd.ops * (size_t)fd.cap);
  if (!fd.ops)
    return (MlirLogicalResult){0};
  mlirOperationWalk(module, collectSoftmaxKernels, &fd, MlirWalkPreOrder);
  int serial = 0;
  MlirLogicalResult ok = {1};
  /* Kernels erased by a rewrite are kernel 1 and 3 of that chain, never a
     softmax kernel visited later: mark them so the loop skips them. */
  for (int i = 0; i < fd.n && mlirLogicalResultIsSuccess(ok); ++i) {
    if (mlirOperationIsNull(fd.ops[i]))
      continue;
    Attention at;
    Reason r = match(fd.ops[i], &at);
    if (r == R_NOT_SOFTMAX)
      continue;
    if (r == R_MATCHED &&
        (minKeys < 0 || at.N < minKeys || (narrow && !at.causal && at.N < kNarrowMinKeys)))
      continue;
    dlcPassAddStatistic(pass, kReasonStats[r], 1);
    if (r != R_MATCHED)
      continue;
    /* Short key lengths: no block longer than the keys rounded up to L. */
    Tiles t = tl;
    if (t.NB * t.L > at.N)
      t.NB = (at.N + t.L - 1) / t.L;
    t.W = chunkWidth(at.D, tl.L);
    t.Wv = chunkWidth(at.Dv, tl.L);
    t.CG = pvChunks(&t, at.Dv, valueChunks);
    for (int j = 0; j < fd.n; ++j)
      if (mlirOperationEqual(fd.ops[j], at.k1) || mlirOperationEqual(fd.ops[j], at.k3))
        fd.ops[j] = (MlirOperation){NULL};
    ok = rewrite(module, &at, &t, serial++);
  }
  free(fd.ops);
  return ok;
}

const DlcPassDescriptor dlcCpuAttentionPass = {
    .argument = "dlc-cpu-attention",
    .summary = "Compute each scaled-dot-product attention (Q.K^T, scale, mask, softmax, "
               "P.V kernels) as one flash-attention loop nest with online softmax",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
