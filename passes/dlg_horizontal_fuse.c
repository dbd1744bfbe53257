/* --dlg-horizontal-fuse: sibling matmuls that read one input and constant
   weights become one matmul on the weights concatenated along N, whose
   result is sliced back (attention's Q, K and V projections: three GEMMs
   of N = h become one of N = 3h, which reads x once, packs one B and gives
   the parallel tiles three times the columns to share).

     y_i = matmul(x, W_i) [+ b_i]   for i = 1..n, W_i : [K, N_i] constants
   becomes
     y = matmul(x, concat(W_1..W_n)) [+ concat(b_1..b_n)]
     y_i = slice(y, columns off_i .. off_i + N_i)

   The weights are concatenated here, at compile time, into one new
   constant: with weights that are function arguments a concat would copy
   them on every call, which costs more than the GEMM saves, so those
   siblings are left alone. The biases are taken along only when every
   sibling's one user adds a constant vector of its N_i (then the add is the
   fused GEMM's epilogue, and the slices stay pure layout for the attention
   contractions to absorb). transpose_b siblings concatenate along the
   weights' rows instead; transpose_a ones are skipped. Values are copied
   exactly (no arithmetic), so numerics are unchanged.

   Not (yet) in lower-to-llvm's graph stage: measured on the AVX-512 machine
   of issue 15 (loaded), one 128x768x2304 GEMM + bias ran at 0.96x (1
   thread) / 1.04x (2) the three 128x768x768 ones, since B is packed on
   every call either way, and the BERT layer with the fused form ran at
   0.72-0.77x: its slices become three copy kernels the attention
   contractions do not absorb. Run it by name until they do. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "fold/host_tensor.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdlib.h>
#include <string.h>

enum { kMaxSiblings = 16 };
typedef struct {
  MlirOperation mm[kMaxSiblings];
  MlirOperation bias[kMaxSiblings]; /* the dlg.add of each, when all have one */
  int64_t n[kMaxSiblings];          /* N_i */
  int count;
  bool withBias;
} Group;


static MlirWalkResult collect(MlirOperation op, void *list) {
  if (dlcOpIs(op, "dlg.matmul"))
    dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

static bool staticShape(MlirValue v, DlcShape *s) {
  if (!dlcTypeGetShape(mlirValueGetType(v), s))
    return false;
  for (int64_t i = 0; i < s->rank; ++i)
    if (s->dims[i] == DLC_DYNAMIC)
      return false;
  return true;
}

/* Whether `op` can join a group: constant rank-2 float weights, static
   shapes, no transposed input. Writes its K and N. */
static bool candidate(MlirOperation op, int64_t *k, int64_t *n) {
  DlcShape b, y;
  MlirValue w = mlirOperationGetOperand(op, 1);
  if (dlcGetBool(op, "transpose_a", false) ||
      mlirOperationIsNull(dlcDefiningOp(w, "dlg.constant")) ||
      !mlirTypeIsAFloat(mlirShapedTypeGetElementType(mlirValueGetType(w))) ||
      !staticShape(w, &b) || b.rank != 2 ||
      !staticShape(mlirOperationGetResult(op, 0), &y))
    return false;
  bool tb = dlcGetBool(op, "transpose_b", false);
  *k = tb ? b.dims[1] : b.dims[0];
  *n = tb ? b.dims[0] : b.dims[1];
  return true;
}

/* The dlg.add that is `mm`'s only user and adds a constant [n] vector to
   it, or a null op. */
static MlirOperation biasOf(MlirOperation mm, int64_t n) {
  MlirValue y = mlirOperationGetResult(mm, 0);
  intptr_t k = 0;
  MlirOperation add = dlcSoleUser(y, &k);
  if (!dlcOpIs(add, "dlg.add"))
    return (MlirOperation){NULL};
  MlirValue other = mlirOperationGetOperand(add, 1 - k);
  DlcShape s;
  if (mlirOperationIsNull(dlcDefiningOp(other, "dlg.constant")) || !staticShape(other, &s) ||
      s.rank != 1 || s.dims[0] != n ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(add, 0)), mlirValueGetType(y)))
    return (MlirOperation){NULL};
  return add;
}

static MlirValue biasValue(MlirOperation add, MlirOperation mm) {
  MlirValue a = mlirOperationGetOperand(add, 0);
  return mlirValueEqual(a, mlirOperationGetResult(mm, 0)) ? mlirOperationGetOperand(add, 1) : a;
}

/* Concatenates the constants `vs` along `axis` (rank 1 or 2) into a new
   constant at the builder; null when one cannot be read. */
static MlirValue concatConstants(DlcBuilder *b, const MlirValue *vs, int count, int axis,
                                 int64_t maxElements) {
  DlcHostTensor in[kMaxSiblings], out;
  int read = 0;
  bool ok = true;
  for (; read < count && ok; ++read)
    ok = dlcHostTensorReadConstant(vs[read], maxElements, &in[read]);
  if (!ok)
    --read; /* the failed read freed itself */
  DlcShape s = in[0].shape;
  if (ok) {
    s.dims[axis] = 0;
    for (int i = 0; i < count; ++i)
      s.dims[axis] += in[i].shape.dims[axis];
    ok = dlcHostTensorAlloc(&out, &s, in[0].elementType, maxElements);
  }
  MlirValue r = {NULL};
  if (ok) {
    /* rows x cols, where a row is the run of elements before `axis`'s next
       index: rank 1 and axis 0 of rank 2 are one row; axis 1 of rank 2 has
       K rows of N_i elements each. */
    int64_t rows = (s.rank == 2 && axis == 1) ? s.dims[0] : 1, off = 0;
    for (int i = 0; i < count; ++i) {
      int64_t cols = in[i].size / rows;
      for (int64_t r0 = 0; r0 < rows; ++r0)
        memcpy(out.f + r0 * (out.size / rows) + off, in[i].f + r0 * cols,
               sizeof(double) * (size_t)cols);
      off += cols;
    }
    r = dlcBuildConstant(b, &out, dlcTypeFromShape(&s, in[0].elementType), 65536);
    dlcHostTensorFree(&out);
  }
  for (int i = 0; i < read; ++i)
    dlcHostTensorFree(&in[i]);
  return r;
}

/* Builds the fused matmul (and bias) before the group's first member and
   replaces each member by its slice. False (nothing changed) when the
   constants cannot be read. */
static bool fuseGroup(Group *g, int64_t maxElements) {
  MlirOperation first = g->mm[0];
  MlirLocation loc = mlirOperationGetLocation(first);
  MlirContext ctx = mlirOperationGetContext(first);
  bool tb = dlcGetBool(first, "transpose_b", false);
  DlcBuilder b = dlcBuilderBefore(first, loc);
  MlirValue ws[kMaxSiblings], bs[kMaxSiblings];
  for (int i = 0; i < g->count; ++i) {
    ws[i] = mlirOperationGetOperand(g->mm[i], 1);
    if (g->withBias)
      bs[i] = biasValue(g->bias[i], g->mm[i]);
  }
  MlirValue w = concatConstants(&b, ws, g->count, tb ? 0 : 1, maxElements);
  if (mlirValueIsNull(w))
    return false;
  MlirValue bias = {NULL};
  if (g->withBias) {
    bias = concatConstants(&b, bs, g->count, 0, maxElements);
    if (mlirValueIsNull(bias)) {
      mlirOperationDestroy(mlirOpResultGetOwner(w));
      return false;
    }
  }
  MlirOperation mm = dlcBuildOpLike(&b, first, 2,
                                    (MlirValue[]){mlirOperationGetOperand(first, 0), w});
  MlirValue y = mlirOperationGetResult(mm, 0);
  if (g->withBias)
    y = dlcBuildValue(&b, "dlg.add", DLC_VALUES(y, bias), DLC_NO_ATTRS);
  DlcShape ys;
  dlcTypeGetShape(mlirValueGetType(y), &ys);
  int64_t starts[DLC_MAX_RANK] = {0}, ends[DLC_MAX_RANK], off = 0;
  for (int64_t d = 0; d < ys.rank; ++d)
    ends[d] = ys.dims[d];
  for (int i = 0; i < g->count; ++i) {
    starts[ys.rank - 1] = off;
    ends[ys.rank - 1] = off + g->n[i];
    off += g->n[i];
    MlirValue s = dlcBuildValue(&b, "dlg.slice", DLC_VALUES(y),
                                DLC_ATTRS(dlcNamedI64Array(ctx, "starts", ys.rank, starts),
                                          dlcNamedI64Array(ctx, "ends", ys.rank, ends)));
    MlirOperation old = g->withBias ? g->bias[i] : g->mm[i];
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(old, 0), s);
  }
  /* Erased last: the builder inserts before the first of them. */
  for (int i = 0; i < g->count; ++i) {
    if (g->withBias)
      mlirOperationDestroy(g->bias[i]);
    mlirOperationDestroy(g->mm[i]);
  }
  return true;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int64_t maxElements = dlcOptionsGetInt(dlcPassGetOptions(pass), "max-elements");
  DlcOpList ops = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &ops, MlirWalkPreOrder);
  bool *taken = calloc((size_t)ops.n + 1, sizeof *taken);
  uint64_t fused = 0, groups = 0;
  for (intptr_t i = 0; i < ops.n; ++i) {
    int64_t k0, n0, k, n;
    if (taken[i] || !candidate(ops.ops[i], &k0, &n0))
      continue;
    MlirOperation a = ops.ops[i];
    MlirValue x = mlirOperationGetOperand(a, 0);
    MlirType wt = mlirValueGetType(mlirOperationGetOperand(a, 1));
    MlirType yt = mlirValueGetType(mlirOperationGetResult(a, 0));
    bool tb = dlcGetBool(a, "transpose_b", false);
    Group g = {.mm = {a}, .n = {n0}, .count = 1};
    int64_t elements = k0 * n0;
    intptr_t members[kMaxSiblings] = {i};
    for (intptr_t j = i + 1; j < ops.n && g.count < kMaxSiblings; ++j) {
      MlirOperation c = ops.ops[j];
      if (taken[j] || !candidate(c, &k, &n) || k != k0 ||
          !mlirValueEqual(mlirOperationGetOperand(c, 0), x) ||
          dlcGetBool(c, "transpose_b", false) != tb ||
          !mlirBlockEqual(mlirOperationGetBlock(c), mlirOperationGetBlock(a)) ||
          !mlirTypeEqual(mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(c, 1))),
                         mlirShapedTypeGetElementType(wt)) ||
          elements + k * n > maxElements)
        continue;
      /* Same leading (batch, M) dims: only the last one differs. */
      DlcShape s0, s1;
      dlcTypeGetShape(yt, &s0);
      dlcTypeGetShape(mlirValueGetType(mlirOperationGetResult(c, 0)), &s1);
      if (s0.rank != s1.rank ||
          memcmp(s0.dims, s1.dims, sizeof(int64_t) * (size_t)(s0.rank - 1)) != 0)
        continue;
      members[g.count] = j;
      g.n[g.count] = n;
      g.mm[g.count++] = c;
      elements += k * n;
    }
    if (g.count < 2)
      continue;
    g.withBias = true;
    for (int m = 0; m < g.count && g.withBias; ++m) {
      g.bias[m] = biasOf(g.mm[m], g.n[m]);
      g.withBias = !mlirOperationIsNull(g.bias[m]);
    }
    if (!fuseGroup(&g, maxElements))
      continue;
    for (int m = 0; m < g.count; ++m)
      taken[members[m]] = true;
    fused += (uint64_t)g.count;
    ++groups;
  }
  free(taken);
  dlcOpListFree(&ops);
  dlcPassAddStatistic(pass, "fused-matmuls", fused);
  dlcPassAddStatistic(pass, "groups", groups);
  dlcPassAddStatistic(pass, "erased-constants", dlcEraseDeadConstants(func));
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"max-elements", "Largest concatenated weight built, in elements", DLC_OPTION_INT,
     "4194304"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"fused-matmuls", "Number of matmuls merged into a wider one"},
    {"groups", "Number of fused matmuls built"},
    {"erased-constants", "Number of constants erased for having no users"},
};

const DlcPassDescriptor dlcDlgHorizontalFusePass = {
    .argument = "dlg-horizontal-fuse",
    .summary = "Merge sibling matmuls of one input and constant weights (QKV "
               "projections) into one matmul on concatenated weights",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
