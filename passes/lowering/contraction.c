/* matmul and conv2d: generics with reduction loops accumulating into a
   zero- (or bias-) initialised output. Where the strategy's packing policy
   (schedule/gemm_packing.h) says so, a GEMM reads B from NR-column panels
   Bp[N / NR][K][NR], packed by a named linalg.transpose that the schedule
   fuses into each output tile, and runs over loops (panel, m, n, k) into
   C3[N / NR][M][NR], which a transposing copy turns back into C
   (elementwise fusion merges that copy with the epilogue); a conv2d
   becomes such a GEMM through im2col. */

#include "lowering/lower.h"
#include "schedule/conv_direct.h"
#include "schedule/cost_model.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

static bool macBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  MlirType t = mlirValueGetType(a[2]);
  MlirValue p = dlcConvertScalar(b, a[0], t), q = dlcConvertScalar(b, a[1], t);
  y[0] = dlcArith(b, "arith.addf", "arith.addi", a[2],
                  dlcArith(b, "arith.mulf", "arith.muli", p, q));
  return true;
}

/* The depthwise conv's multiply-add on f32, marked contractible: its
   vectorised rows are elementwise multiplies and adds (no vector.contract
   to become FMAs), which LLVM fuses into one vfmadd only with `contract`
   on both. */
static bool fusedMacBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  MlirType t = mlirValueGetType(a[2]);
  if (!mlirTypeIsAF32(t) || !mlirTypeIsAF32(mlirValueGetType(a[0])) ||
      !mlirTypeIsAF32(mlirValueGetType(a[1])))
    return macBody(b, a, y, u);
  MlirNamedAttribute fm = mlirNamedAttributeGet(
      mlirIdentifierGet(b->context, mlirStringRefCreateFromCString("fastmath")),
      mlirAttributeParseGet(b->context,
                            mlirStringRefCreateFromCString("#arith.fastmath<contract>")));
  MlirOperation m = dlcBuildOpTyped(b, "arith.mulf", DLC_VALUES(a[0], a[1]), 1, &t, DLC_ATTRS(fm));
  if (mlirOperationIsNull(m))
    return false;
  MlirOperation r = dlcBuildOpTyped(b, "arith.addf", DLC_VALUES(a[2], mlirOperationGetResult(m, 0)),
                                    1, &t, DLC_ATTRS(fm));
  if (mlirOperationIsNull(r))
    return false;
  y[0] = mlirOperationGetResult(r, 0);
  return true;
}

/* The #dlk.schedule given to `op`'s dlk.kernel, if any. */
static bool givenSchedule(MlirOperation op, DlcSchedule *s) {
  MlirOperation k = mlirOperationGetParentOperation(op);
  if (mlirOperationIsNull(k) || !dlcOpIs(k, "dlk.kernel"))
    return false;
  MlirAttribute a =
      mlirOperationGetAttributeByName(k, mlirStringRefCreateFromCString("schedule"));
  return !mlirAttributeIsNull(a) && dlcScheduleRead(a, s);
}

/* A kernel whose given #dlk.schedule names the plain GEMM's loops
   [M, N, K] keeps them. */
static bool scheduledPlain(MlirOperation op, intptr_t rank) {
  DlcSchedule s;
  return givenSchedule(op, &s) && s.numTiles == rank + 1;
}

/* The panel width for `n` columns: the cost model's `panel`, unless a
   given schedule's register tile is NR wide, whole vectors dividing N,
   and does not divide `panel` (32-wide tiles where the model packs 48):
   the panels are then NR wide, so the schedule written for them fits. */
static int64_t scheduledPanel(MlirOperation op, int64_t panel, int64_t n, int64_t vw) {
  DlcSchedule s;
  if (panel <= 0 || !givenSchedule(op, &s))
    return panel;
  int64_t nr = s.registerTile[1];
  return nr > 0 && vw > 0 && nr % vw == 0 && n % nr == 0 && panel % nr != 0 ? nr : panel;
}

static bool usedOnlyBy(MlirValue v, MlirOperation user) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(u) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)) &&
         mlirOperationEqual(mlirOpOperandGetOwner(u), user);
}

/* The kernel operand behind `v`, a block argument of `op`'s dlk.kernel
   (null when `v` is not one). */
static MlirValue kernelOperand(MlirOperation op, MlirValue v) {
  MlirOperation k = mlirOperationGetParentOperation(op);
  if (!dlcOpIs(k, "dlk.kernel") || !mlirValueIsABlockArgument(v))
    return (MlirValue){NULL};
  intptr_t i = mlirBlockArgumentGetArgNumber(v);
  return i < mlirOperationGetNumOperands(k) ? mlirOperationGetOperand(k, i) : (MlirValue){NULL};
}

static bool isConstant(MlirValue v) {
  return !mlirValueIsNull(v) && (!mlirOperationIsNull(dlcDefiningOp(v, "dlg.constant")) ||
                                 !mlirOperationIsNull(dlcDefiningOp(v, "arith.constant")));
}

/* Whether B (`w`) is a constant weight that only this matmul reads: a
   kernel argument read by `op` alone whose dlk.kernel operand is a
   constant with no other user. dlc-prepack-weights packs exactly those at
   compile time (passes/prepack_weights.c). */
static bool constantWeight(MlirOperation op, MlirValue w) {
  MlirValue v = kernelOperand(op, w);
  return isConstant(v) && usedOnlyBy(w, op) &&
         usedOnlyBy(v, mlirOperationGetParentOperation(op));
}

static bool addBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  y[0] = dlcArith(b, "arith.addf", NULL, a[0], a[1]);
  return true;
}

static MlirType tensorOf(intptr_t rank, const int64_t *dims, MlirType elt) {
  return mlirRankedTensorTypeGet(rank, dims, elt, mlirAttributeGetNull());
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
  g.outs[0] = dlcEmitFilled(b, tensorOf(nb + 3, dims, et), 0.0, NULL, NULL);
  MlirOperation r = dlcEmitGeneric(b, &g, macBody, NULL);
  if (mlirOperationIsNull(r))
    return dlcLowerNull();
  /* C3 -> [batch..., M, N/NR, NR] (outT: [batch..., N/NR, NR, M]), plus the bias */
  int64_t nr = dims[nb + 2];
  bool withBias = !mlirValueIsNull(bias);
  DlcGeneric u = {.nLoops = nb + 3, .nIns = withBias ? 2 : 1, .nOuts = 1};
  u.ins[0] = dlcLowerOut(r);
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
  u.outs[0] = dlcEmitEmpty(b, tensorOf(nb + 3, dims, et), NULL, NULL);
  return dlcLowerOut(dlcEmitGeneric(b, &u, withBias ? addBody : dlcCopyBody, NULL));
}

/* `v`'s leading corner of type `type` (offsets 0, strides 1): a padded
   tensor sliced back. */
static MlirValue leadingSlice(DlcBuilder *b, MlirValue v, MlirType type) {
  int64_t offsets[DLC_MAX_LOOPS] = {0}, strides[DLC_MAX_LOOPS];
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(type); ++i)
    strides[i] = 1;
  return dlcEmitExtractSlice(b, v, type, offsets, strides);
}

/* `v` with dim `dim` padded at its high end with zeros to `size` (columns
   of B or output channels of W that whole panels or vectors need). */
static MlirValue padDimHigh(DlcBuilder *b, MlirValue v, intptr_t dim, int64_t size) {
  int64_t low[DLC_MAX_LOOPS] = {0}, high[DLC_MAX_LOOPS] = {0};
  high[dim] = size - mlirShapedTypeGetDimSize(mlirValueGetType(v), dim);
  return dlcEmitPad(b, v, low, high, 0.0);
}

/* A [M, K] read through a copy whose rows are `pad` elements longer
   (dlcGemmRowPadding): a tensor.pad, sliced back to [M, K]. Outside the
   GEMM's group (the schedule groups linalg ops only), it is one copy per
   call, not per tile. */
static MlirValue padRows(DlcBuilder *b, MlirValue a, int64_t pad) {
  if (pad <= 0)
    return a;
  int64_t low[2] = {0, 0}, high[2] = {0, pad};
  return leadingSlice(b, dlcEmitPadPoison(b, a, low, high), mlirValueGetType(a));
}

/* C [m, n] = A x B on f32 operands, B packed into `panel`-column panels,
   A's rows `pad` elements longer. An n that is no multiple of the panel
   (dlcGemmPackedPanel) pads B's columns with zeros to whole panels: the
   padded columns of C are computed and sliced off. (A constant B's pad is
   evaluated with its packing, dlc-prepack-weights.) */
static MlirValue emitPackedMatmul(DlcBuilder *b, MlirValue a, MlirValue w, bool ta, bool tb,
                                  int64_t panel, int64_t pad, MlirType ct) {
  a = padRows(b, a, pad);
  intptr_t nDim = tb ? 0 : 1;
  int64_t n = mlirShapedTypeGetDimSize(mlirValueGetType(w), nDim);
  int64_t padded = n % panel ? dlcGemmPaddedN(n, panel) : n;
  if (padded > n)
    w = padDimHigh(b, w, nDim, padded);
  /* B [K, N] -> [K, N/NR, NR] -> [N/NR, K, NR]; transposed, [N, K] -> [N/NR, NR, K]. */
  int64_t perm[3] = {1, 0, 2}, permT[3] = {0, 2, 1};
  MlirValue bp = dlcEmitTranspose(b, dlcEmitSplitDim(b, w, tb ? 0 : 1, panel), tb ? permT : perm);
  MlirValue c = emitPanelGemm(b, a, ta, bp, dlcLowerNull(), false);
  if (mlirValueIsNull(c))
    return c;
  c = dlcEmitMergeDims(b, c, 1, 2);
  return padded == n ? c : leadingSlice(b, c, ct);
}

/* The padded N of a matmul on the plain loops (see lowerMatmul), 0 for
   none: static shapes, a CPU policy (the GPU tiles its own way), N no
   multiple of the vector, and whole vectors take fewer steps along a row
   than the partial vectors of N's largest divisor do (a classifier's 10
   columns: two 5-lane vectors, as many as padded; 17 columns: 17 one-lane
   steps against 3, 33 x 65 by 65 x 17 at 0.3x OpenBLAS). A B that is no
   constant is copied on every call, which only pays where its vectors
   would otherwise be under half full (N = 127: one lane; 5003 floats a
   row, 1 x 768 by 768 x 5003: 0.7 -> 2.0 GFLOP/s with the copy) or the
   copy serves a vector's worth of rows (8 x 768 by 768 x 100, 5 lanes:
   23.7 -> 37.4 GFLOP/s, AVX2). A classifier's 1 x 2048 by 2048 x 1000
   keeps its 10-lane vectors with AVX-512 rather than copy 8 MB a call. */
static int64_t plainPaddedN(const DlcGemmPacking *p, const DlcShape *sa, const DlcShape *sb,
                            const DlcShape *so, bool ta, bool tb, bool constantB) {
  int64_t vw = p->vectorWidth;
  if (!p->pack || vw <= 1)
    return 0;
  for (intptr_t i = 0; i < so->rank; ++i)
    if (so->dims[i] == DLC_DYNAMIC)
      return 0;
  for (intptr_t i = 0; i < sa->rank; ++i)
    if (sa->dims[i] == DLC_DYNAMIC)
      return 0;
  int64_t n = sb->dims[sb->rank - (tb ? 2 : 1)], m = so->dims[so->rank - 2];
  /* dot products (a transposed B kept as it is: no constant that
     lowerMatmul transposes at compile time) vectorise along K, not N */
  if (tb && !ta && !(constantB && sb->rank == 2) &&
      dlcDotGemmFits(m, sa->dims[sa->rank - 1], vw))
    return 0;
  /* few rows read B once: reading it in place beats a padded copy */
  if (!constantB && dlcGemmSplitsRaggedN(m, n, vw))
    return 0;
  int64_t padded = (n + vw - 1) / vw * vw, lanes = dlcLargestDivisor(n, vw);
  /* fewer vector steps a row than the unpadded partial vectors take */
  if (n % vw == 0 || padded / vw >= n / lanes)
    return 0;
  return constantB || 2 * lanes < vw || m >= vw ? padded : 0;
}

static MlirValue lowerMatmul(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirContext ctx = b->context;
  MlirValue a = mlirOperationGetOperand(op, 0), w = mlirOperationGetOperand(op, 1);
  DlcShape sa = dlcLowerShape(a), sb = dlcLowerShape(w);
  DlcShape so = dlcLowerShape(mlirOperationGetResult(op, 0));
  bool ta = dlcGetBool(op, "transpose_a", false), tb = dlcGetBool(op, "transpose_b", false);
  int64_t panel = scheduledPanel(
      op, dlcGemmPackedPanel(&p->packing, &sa, &sb, &so, tb, constantWeight(op, w)),
      sb.dims[sb.rank - (tb ? 2 : 1)], p->packing.vectorWidth);
  if (panel > 0 && mlirTypeIsAF32(dlcElementType(w)) && mlirTypeIsAF32(dlcElementType(a)) &&
      !scheduledPlain(op, so.rank))
    return emitPackedMatmul(b, a, w, ta, tb, panel,
                            dlcGemmRowPadding(&p->packing, &sa, ta,
                                              isConstant(a) || isConstant(kernelOperand(op, a))),
                            dlcLowerResultType(op));
  /* N no multiple of the vector (a vocabulary of 5003 or 50257, a ragged
     head): B's columns zero-padded to whole vectors where that pays
     (plainPaddedN), the padded columns of C sliced off. The register tile
     took N's largest divisor up to a vector as its lanes, one lane at
     N = 127 or 5003 (0.07-0.2x OpenBLAS). A constant B's pad is evaluated
     at compile time (dlc-prepack-weights). */
  MlirType resultType = dlcLowerResultType(op);
  DlcSchedule given;
  bool constantB = constantWeight(op, w); /* w itself, before a pad views it */
  int64_t nPad = mlirTypeIsAF32(dlcElementType(w)) && mlirTypeIsAF32(dlcElementType(a)) &&
                         !givenSchedule(op, &given)
                     ? plainPaddedN(&p->packing, &sa, &sb, &so, ta, tb, constantB)
                     : 0;
  if (nPad > 0) {
    int64_t dims[DLC_MAX_LOOPS];
    intptr_t nDim = sb.rank - (tb ? 2 : 1);
    w = padDimHigh(b, w, nDim, nPad);
    sb.dims[nDim] = nPad;
    for (intptr_t i = 0; i < so.rank; ++i)
      dims[i] = i == so.rank - 1 ? nPad : so.dims[i];
    resultType = tensorOf(so.rank, dims, mlirShapedTypeGetElementType(resultType));
  }
  /* A constant B that these loops would read transposed (a classifier's
     1000 x K weight: 1000 columns are no whole number of panels) becomes
     K x N through a transpose that dlc-prepack-weights evaluates at compile
     time: the k loop then reads rows of B in place of gathering one float
     from each of NR rows 4*K bytes apart per step: 1 x 2048 by 1000 x 2048
     with its bias, B in cache, 0.66-0.68 -> 0.44-0.48 ms (1 thread,
     interleaved, Sapphire Rapids-class Xeon). Bit for bit the same sums. */
  if (tb && p->packing.pack && sb.rank == 2 && sb.dims[0] != DLC_DYNAMIC &&
      sb.dims[1] != DLC_DYNAMIC && constantB) {
    static const int64_t kSwap[2] = {1, 0};
    w = dlcEmitTranspose(b, w, kSwap);
    sb = (DlcShape){2, {sb.dims[1], sb.dims[0]}};
    tb = false;
  }
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
  DlcDimSources dims = dlcDimsNone();
  /* dynamic dims: M from a, N from b, a batch dim from the operand where
     it is dynamic (the other one's is then broadcast or absent) */
  dims.of[m] = a, dims.idx[m] = ta ? sa.rank - 1 : sa.rank - 2;
  dims.of[n] = w, dims.idx[n] = tb ? sb.rank - 2 : sb.rank - 1;
  for (intptr_t i = 0; i < nb; ++i) {
    intptr_t ja = i - (nb - (sa.rank - 2)), jb = i - (nb - (sb.rank - 2));
    if (ja >= 0 && sa.dims[ja] == DLC_DYNAMIC)
      dims.of[i] = a, dims.idx[i] = ja;
    else if (jb >= 0 && sb.dims[jb] == DLC_DYNAMIC)
      dims.of[i] = w, dims.idx[i] = jb;
  }
  g.outs[0] = dlcFilledFrom(b, resultType, 0.0, &dims);
  if (mlirValueIsNull(g.outs[0]))
    return dlcLowerFail(
        op, "cannot lower: a dynamic batch dimension of the result is static in both operands");
  MlirValue c = dlcLowerOut(dlcEmitGeneric(b, &g, macBody, NULL));
  return nPad == 0 || mlirValueIsNull(c) ? c : leadingSlice(b, c, dlcLowerResultType(op));
}

static bool copyBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  y[0] = dlcConvertScalar(b, a[0], mlirValueGetType(a[1]));
  return true;
}

/* (oh * stride + kh * dilation, ow * stride + kw * dilation) */
static void windowExprs(MlirContext ctx, intptr_t oh, intptr_t ow, intptr_t kh, intptr_t kw,
                        const int64_t *st, const int64_t *dl, MlirAffineExpr *out) {
  out[0] = mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, oh), dlcConst(ctx, st[0])),
                                mlirAffineMulExprGet(dlcDim(ctx, kh), dlcConst(ctx, dl[0])));
  out[1] = mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, ow), dlcConst(ctx, st[1])),
                                mlirAffineMulExprGet(dlcDim(ctx, kw), dlcConst(ctx, dl[1])));
}

/* W [O, ...] and the bias [O] padded with zero output channels to oPad
   (none when oPad is 0). */
static void padOutputChannels(DlcBuilder *b, MlirValue *w, MlirValue *bias, int64_t oPad) {
  if (oPad <= mlirShapedTypeGetDimSize(mlirValueGetType(*w), 0))
    return;
  *w = padDimHigh(b, *w, 0, oPad);
  if (!mlirValueIsNull(*bias))
    *bias = padDimHigh(b, *bias, 0, oPad);
}

/* The conv's result [N, O, Ho, Wo] from `y` (its elements in that order),
   whose channels were padded to oPad: reshaped, and sliced to O. */
static MlirValue reshapeSliced(DlcBuilder *b, MlirValue y, MlirOperation op, int64_t oPad) {
  MlirType rt = dlcLowerResultType(op);
  if (oPad <= mlirShapedTypeGetDimSize(rt, 1))
    return dlcEmitReshape(b, y, rt);
  int64_t dims[4];
  for (intptr_t i = 0; i < 4; ++i)
    dims[i] = i == 1 ? oPad : mlirShapedTypeGetDimSize(rt, i);
  y = dlcEmitReshape(b, y, tensorOf(4, dims, mlirShapedTypeGetElementType(rt)));
  return leadingSlice(b, y, rt);
}

/* conv2d as a GEMM (im2col): W [O, C*kH*kW] x col [C*kH*kW, Ho*Wo], where
   col copies the input window of each output pixel, then the packed GEMM
   above; the epilogue (bias, batch_norm, activation) fuses into its copy
   back to C. col costs C*kH*kW*Ho*Wo moves against O times as many
   multiply-adds. The copy is a generic with the convolution's index map:
   it reads the input rows contiguously (for stride 1), which LLVM
   vectorises. `mode`: see DlcConvGemm. */
static MlirValue lowerConvAsGemm(DlcBuilder *b, MlirOperation op, MlirValue xpad,
                                 const int64_t *st, const int64_t *dl, DlcConvGemm mode,
                                 int64_t panel, const DlcGemmPacking *packing, int64_t oPad) {
  MlirContext ctx = b->context;
  MlirValue w = mlirOperationGetOperand(op, 1);
  DlcShape sw = dlcLowerShape(w), so = dlcLowerShape(mlirOperationGetResult(op, 0));
  MlirValue bias =
      mlirOperationGetNumOperands(op) > 2 ? mlirOperationGetOperand(op, 2) : dlcLowerNull();
  padOutputChannels(b, &w, &bias, oPad);
  int64_t images = so.dims[0], c = sw.dims[1], kh = sw.dims[2], kw = sw.dims[3];
  int64_t oh = so.dims[2], ow = so.dims[3];
  MlirType et = dlcElementType(xpad);
  enum { I, C, KH, KW, OH, OW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 1, .nOuts = 1};
  MlirAffineExpr xe[4] = {dlcDim(ctx, I), dlcDim(ctx, C)};
  windowExprs(ctx, OH, OW, KH, KW, st, dl, xe + 2);
  g.ins[0] = xpad;
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapIdentity(ctx, LOOPS);
  int64_t colDims[6] = {images, c, kh, kw, oh, ow};
  g.outs[0] = dlcEmitEmpty(b, tensorOf(6, colDims, et), NULL, NULL);
  MlirValue col = dlcLowerOut(dlcEmitGeneric(b, &g, dlcCopyBody, NULL));
  if (mlirValueIsNull(col))
    return dlcLowerNull();
  col = dlcEmitMergeDims(b, dlcEmitMergeDims(b, col, 4, 2), 1, 3); /* [N, K, Ho*Wo] */
  MlirValue y;
  if (mode == DLC_CONV_PIXEL_PANELS) {
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
    MlirValue a = dlcEmitTranspose(b, dlcEmitReshape(b, col, tensorOf(2, colDims2, et)), perm2);
    DlcShape sa = {2, {colDims2[1], colDims2[0]}};
    a = padRows(b, a, dlcGemmRowPadding(packing, &sa, false, false));
    y = emitPanelGemm(b, a, false, bp, bias, true); /* [O/NR, NR, Ho*Wo] */
  }
  return mlirValueIsNull(y) ? y : reshapeSliced(b, y, op, oPad);
}

/* conv2d without im2col (schedule/conv_direct.h): W packed into
   output-channel panels Wp [O/NR, C, kH, kW, NR], the taps accumulated
   into Y3 [N, O/NR, Ho, Wo, NR] reading x in place, then the copy back to
   [N, O/NR, NR, Ho, Wo] = NCHW (plus the bias), into which elementwise
   fusion merges the epilogue. */
static MlirValue lowerConvDirect(DlcBuilder *b, MlirOperation op, MlirValue xpad,
                                 const int64_t *st, const int64_t *dl, int64_t nr, int64_t oPad) {
  MlirContext ctx = b->context;
  MlirValue w = mlirOperationGetOperand(op, 1);
  DlcShape sw = dlcLowerShape(w), so = dlcLowerShape(mlirOperationGetResult(op, 0));
  int64_t images = so.dims[0], o = sw.dims[0], oh = so.dims[2], ow = so.dims[3];
  MlirValue bias =
      mlirOperationGetNumOperands(op) > 2 ? mlirOperationGetOperand(op, 2) : dlcLowerNull();
  padOutputChannels(b, &w, &bias, oPad); /* zero channels, sliced off after the copy back */
  if (oPad > o)
    o = oPad;
  MlirType et = dlcElementType(xpad);
  int64_t perm[5] = {0, 2, 3, 4, 1}; /* [O/NR, NR, C, kH, kW] -> [O/NR, C, kH, kW, NR] */
  MlirValue wp = dlcEmitTranspose(b, dlcEmitSplitDim(b, w, 0, nr), perm);
  enum { I = DLC_CONV_IMAGE, P = DLC_CONV_PANEL, OH = DLC_CONV_OH, OW = DLC_CONV_OW,
         N = DLC_CONV_N, C = DLC_CONV_C, KH = DLC_CONV_KH, KW = DLC_CONV_KW,
         LOOPS = DLC_CONV_LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 2, .nOuts = 1};
  g.reduction[C] = g.reduction[KH] = g.reduction[KW] = true;
  MlirAffineExpr xe[4] = {dlcDim(ctx, I), dlcDim(ctx, C)};
  windowExprs(ctx, OH, OW, KH, KW, st, dl, xe + 2);
  MlirAffineExpr we[5] = {dlcDim(ctx, P), dlcDim(ctx, C), dlcDim(ctx, KH), dlcDim(ctx, KW),
                          dlcDim(ctx, N)};
  g.ins[0] = xpad, g.ins[1] = wp;
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapGet(ctx, LOOPS, 5, we);
  g.maps[2] = dlcMapGet(ctx, LOOPS, 5,
                        (MlirAffineExpr[]){dlcDim(ctx, I), dlcDim(ctx, P), dlcDim(ctx, OH),
                                           dlcDim(ctx, OW), dlcDim(ctx, N)});
  int64_t y3[5] = {images, o / nr, oh, ow, nr};
  g.outs[0] = dlcEmitFilled(b, tensorOf(5, y3, et), 0.0, NULL, NULL);
  MlirOperation r = dlcEmitGeneric(b, &g, macBody, NULL);
  if (mlirOperationIsNull(r))
    return dlcLowerNull();
  /* loops (image, panel, n, oh, ow): NCHW order, Y3 read transposed */
  bool withBias = !mlirValueIsNull(bias);
  DlcGeneric u = {.nLoops = 5, .nIns = withBias ? 2 : 1, .nOuts = 1};
  u.ins[0] = dlcLowerOut(r);
  u.maps[0] = dlcMapGet(ctx, 5, 5,
                        (MlirAffineExpr[]){dlcDim(ctx, 0), dlcDim(ctx, 1), dlcDim(ctx, 3),
                                           dlcDim(ctx, 4), dlcDim(ctx, 2)});
  if (withBias) { /* bias [O] as [O/NR, NR] */
    u.ins[1] = dlcEmitSplitDim(b, bias, 0, nr);
    u.maps[1] = dlcMapGet(ctx, 5, 2, (MlirAffineExpr[]){dlcDim(ctx, 1), dlcDim(ctx, 2)});
  }
  u.maps[u.nIns] = dlcMapIdentity(ctx, 5);
  int64_t y5[5] = {images, o / nr, nr, oh, ow};
  u.outs[0] = dlcEmitEmpty(b, tensorOf(5, y5, et), NULL, NULL);
  MlirValue y = dlcLowerOut(dlcEmitGeneric(b, &u, withBias ? addBody : dlcCopyBody, NULL));
  return mlirValueIsNull(y) ? y : reshapeSliced(b, y, op, oPad);
}

/* Output channels padded with zeros, 0 for none: where O takes neither
   the direct conv nor a GEMM, being no multiple of a panel (a segmentation
   head's 21 classes, YOLO's 255), it is padded to whole ones (the direct
   conv's half vector, else the GEMM's channel panels) where that adds at
   most a quarter and the padded conv takes the direct conv (`nr` its
   panel) or a GEMM (`panel`, `mode`). Measured on Zen 3 (AVX2, 1 thread):
   64 -> 21 channels 3x3 at 56x56 went through im2col, 2.5 ms against
   1.5-1.7 direct on 24; 1024 -> 255 1x1 at 13x13 (YOLOv3's head) ran plain
   loops, 46.9 ms against 1.2 for 256 channels. */
static int64_t convPaddedChannels(const DlcGemmPacking *p, const DlcShape *sx,
                                  const DlcShape *sw, const DlcShape *so, int64_t groups,
                                  bool f32, const int64_t *st, int64_t *nr, int64_t *panel,
                                  DlcConvGemm *mode) {
  int64_t vw = p->vectorWidth, o = sw->dims[0];
  *nr = *panel = 0;
  if (vw < 2 || sw->rank != 4 || so->rank != 4 || o == DLC_DYNAMIC)
    return 0;
  const int64_t units[] = {vw / 2, 2 * vw};
  for (int gemm = 0; gemm < 2; ++gemm) /* the direct conv first, as unpadded */
    for (size_t i = 0; i < sizeof units / sizeof *units; ++i) {
      int64_t oPad = (o + units[i] - 1) / units[i] * units[i];
      if (oPad == o || (oPad - o) * 4 > o)
        continue;
      DlcShape w2 = *sw, y2 = *so;
      w2.dims[0] = y2.dims[1] = oPad;
      if (!gemm && (*nr = dlcConvDirectPanel(p, sx, &w2, &y2, groups, f32, st)) > 0)
        return oPad;
      if (gemm && (*panel = dlcConvAsGemm(p, sx, &w2, &y2, groups, f32, mode)) > 0)
        return oPad;
    }
  return 0;
}

static MlirValue lowerConv(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0), w = mlirOperationGetOperand(op, 1);
  DlcShape sx = dlcLowerShape(x), sw = dlcLowerShape(w);
  DlcShape so = dlcLowerShape(mlirOperationGetResult(op, 0));
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  dlcGetI64Array(op, "strides", st, 2);
  dlcGetI64Array(op, "dilations", dl, 2);
  dlcGetI64Array(op, "padding", pad, 4);
  int64_t groups = dlcGetI64(op, "groups", 1);
  int64_t low[4] = {0, 0, pad[0], pad[1]}, high[4] = {0, 0, pad[2], pad[3]};
  x = dlcEmitPad(b, x, low, high, 0.0);
  DlcConvGemm mode;
  bool f32 = mlirTypeIsAF32(dlcElementType(mlirOperationGetOperand(op, 0))) &&
             mlirTypeIsAF32(dlcElementType(w));
  bool depthwise = dlcConvDepthwise(&p->packing, &sx, &sw, &so, groups, f32, st);
  int64_t nr = dlcConvDirectPanel(&p->packing, &sx, &sw, &so, groups, f32, st);
  if (nr > 0)
    return lowerConvDirect(b, op, x, st, dl, nr, 0);
  /* a direct conv on padded channels before im2col on unpadded ones */
  DlcSchedule given;
  DlcConvGemm padMode;
  int64_t padPanel, oPad = givenSchedule(op, &given)
                               ? 0
                               : convPaddedChannels(&p->packing, &sx, &sw, &so, groups, f32, st,
                                                    &nr, &padPanel, &padMode);
  if (oPad > 0 && nr > 0)
    return lowerConvDirect(b, op, x, st, dl, nr, oPad);
  int64_t panel = dlcConvAsGemm(&p->packing, &sx, &sw, &so, groups, f32, &mode);
  if (panel > 0)
    return lowerConvAsGemm(b, op, x, st, dl, mode, panel, &p->packing, 0);
  if (oPad > 0)
    return lowerConvAsGemm(b, op, x, st, dl, padMode, padPanel, &p->packing, oPad);
  /* loops: n o oh ow | c kh kw */
  enum { N, O, OH, OW, C, KH, KW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 2, .nOuts = 1};
  g.reduction[C] = g.reduction[KH] = g.reduction[KW] = true;
  MlirAffineExpr ch = dlcDim(ctx, C);
  if (depthwise) { /* loops n c oh ow | kh kw (conv_direct.h), w read at (c, 0, kh, kw) */
    enum { DN = DLC_DW_IMAGE, DC = DLC_DW_C, DOH = DLC_DW_OH, DOW = DLC_DW_OW, DKH = DLC_DW_KH,
           DKW = DLC_DW_KW };
    g.nLoops = DLC_DW_LOOPS;
    memset(g.reduction, 0, sizeof g.reduction);
    g.reduction[DKH] = g.reduction[DKW] = true;
    MlirAffineExpr dx[4] = {dlcDim(ctx, DN), dlcDim(ctx, DC)};
    windowExprs(ctx, DOH, DOW, DKH, DKW, st, dl, dx + 2);
    MlirAffineExpr dw[4] = {dlcDim(ctx, DC), dlcConst(ctx, 0), dlcDim(ctx, DKH), dlcDim(ctx, DKW)};
    MlirAffineExpr dy[4] = {dlcDim(ctx, DN), dlcDim(ctx, DC), dlcDim(ctx, DOH), dlcDim(ctx, DOW)};
    g.maps[0] = dlcMapGet(ctx, g.nLoops, 4, dx);
    g.maps[1] = dlcMapGet(ctx, g.nLoops, 4, dw);
    g.maps[2] = dlcMapGet(ctx, g.nLoops, 4, dy);
  } else if (groups > 1) {
    int64_t og = sw.dims[0] / groups, cg = sw.dims[1];
    MlirAffineExpr grp = mlirAffineFloorDivExprGet(dlcDim(ctx, O), dlcConst(ctx, og));
    ch = mlirAffineAddExprGet(mlirAffineMulExprGet(grp, dlcConst(ctx, cg)), ch);
  }
  MlirAffineExpr xe[4] = {dlcDim(ctx, N), ch};
  windowExprs(ctx, OH, OW, KH, KW, st, dl, xe + 2);
  MlirAffineExpr we[4] = {dlcDim(ctx, O), dlcDim(ctx, C), dlcDim(ctx, KH), dlcDim(ctx, KW)};
  MlirAffineExpr oe[4] = {dlcDim(ctx, N), dlcDim(ctx, O), dlcDim(ctx, OH), dlcDim(ctx, OW)};
  g.ins[0] = x, g.ins[1] = w;
  if (!depthwise) {
    g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
    g.maps[1] = dlcMapGet(ctx, LOOPS, 4, we);
    g.maps[2] = dlcMapGet(ctx, LOOPS, 4, oe);
  }
  MlirType rt = dlcLowerResultType(op);
  DlcDimSources dims = dlcDimsNone(); /* batch from x, output channels from w */
  dims.of[0] = x, dims.of[1] = w;
  if (mlirOperationGetNumOperands(op) > 2) { /* start from the broadcast bias */
    MlirValue bias = mlirOperationGetOperand(op, 2);
    DlcGeneric bg = {.nLoops = 4, .nIns = 1, .nOuts = 1};
    bg.ins[0] = bias;
    MlirAffineExpr be = dlcDim(ctx, 1);
    bg.maps[0] = dlcMapGet(ctx, 4, 1, &be);
    bg.maps[1] = dlcMapIdentity(ctx, 4);
    bg.outs[0] = dlcEmptyFrom(b, rt, &dims);
    g.outs[0] = dlcLowerOut(dlcEmitGeneric(b, &bg, copyBody, NULL));
  } else {
    g.outs[0] = dlcFilledFrom(b, rt, 0.0, &dims);
  }
  if (mlirValueIsNull(g.outs[0]) || so.rank != 4)
    return dlcLowerFail(op, "cannot lower conv2d with dynamic spatial or channel dimensions");
  return dlcLowerOut(dlcEmitGeneric(b, &g, depthwise ? fusedMacBody : macBody, NULL));
}

DLC_LOWERINGS(Contraction, {"dlg.matmul", lowerMatmul}, {"dlg.conv2d", lowerConv});
