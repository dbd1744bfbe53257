/* --dlg-conv-phase-split: a conv2d with a horizontal stride s > 1 on an
   input of few channels (an image stem: ResNet's 7x7 stride-2 conv on 3
   channels) becomes a horizontal-stride-1 conv on the input's s column
   phases, so the CPU's direct conv (schedule/conv_direct.h) takes it
   instead of im2col:

     x'[n][c*s + p][h][q]  = xpad[n][c][h][s*q + p]          (p < s)
     w'[o][c*s + p][kh][j] = w[o][c][kh][s*j + p], 0 where s*j + p >= kW
     y = conv2d(x', w', strides [sh, 1], padding [top, 0, bottom, 0])

   since x's column s*ow + kw with kw = s*j + p is x' phase p's column
   ow + j. x' is xpad (its left and right padding) reshaped to
   [N, C, H, Wq, s] and transposed to [N, C, s, H, Wq], Wq = Wo + ceil(kW/s)
   - 1 the columns the conv reads; w' likewise from w padded to
   s*ceil(kW/s) taps. All are dlg.pad / dlg.slice / dlg.reshape /
   dlg.transpose, so dlg-fold-constants folds w' into a constant and x'
   becomes one small copy kernel.

   Why only few channels: the im2col copy is C*kH*kW x Ho*Wo, for a stem
   as large as the conv's output and feeding a GEMM whose K (147) is too
   short to run near peak, while x' is just x. Measured on the AVX-512
   machine of issue 15 (1 thread, constant weights, interleaved best of
   100, loaded machine): ResNet's 3 -> 64 7x7 stride-2 stem 2.48-2.60 ms
   by im2col, 1.68-1.70 ms split (with the direct conv's channel block
   rule of cost_model.c; 3.4 ms before it). With many channels the split
   loses: a 3x3 stride-2 conv on 128 channels at 56x56 ran 2.2 ms split
   against 1.7 ms by im2col (kW = 3 in 2 x 2 taps wastes a quarter of the
   work), and a 1x1 stride-2 conv is unchanged.

   Only static f32 NCHW convs of one group, no dilation, kW >= s, and
   output channels a multiple of half the vector width (those the direct
   conv takes) are rewritten; every other conv2d is left as it is. A
   CPU-only step: lower-to-llvm runs it after the graph stage's folding
   and folds again. Results are the same sums in another order (the
   padded taps add exact zeros). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinTypes.h"

enum { kMaxChannels = 8 }; /* C * s at most: an image stem, not a hidden layer */

static MlirWalkResult collect(MlirOperation op, void *list) {
  if (dlcOpIs(op, "dlg.conv2d"))
    dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

static MlirType f32Tensor(MlirContext ctx, intptr_t rank, const int64_t *dims) {
  return mlirRankedTensorTypeGet(rank, dims, mlirF32TypeGet(ctx), (MlirAttribute){NULL});
}

/* The static f32 shape of `v` with `rank` dims, or false. */
static bool staticF32(MlirValue v, intptr_t rank, int64_t *dims) {
  MlirType t = mlirValueGetType(v);
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) != rank ||
      !mlirTypeIsAF32(mlirShapedTypeGetElementType(t)))
    return false;
  for (intptr_t i = 0; i < rank; ++i) {
    dims[i] = mlirShapedTypeGetDimSize(t, i);
    if (mlirShapedTypeIsDynamicSize(dims[i]) || dims[i] <= 0)
      return false;
  }
  return true;
}

static MlirValue typed(DlcBuilder *b, const char *name, MlirValue x, MlirType t, intptr_t nAttrs,
                       const MlirNamedAttribute *attrs) {
  MlirOperation op = dlcBuildOpTyped(b, name, 1, &x, 1, &t, nAttrs, attrs);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* v [A, B, R, cols] (cols = s * q, after padding `left`/`right` columns,
   or cropping to `keep` when right < 0) -> [A, B*s, R, q]: the s column
   phases as channels, p-th phase of channel b at b*s + p. */
static MlirValue phases(DlcBuilder *b, MlirValue v, const int64_t *d, int64_t left, int64_t right,
                        int64_t s) {
  MlirContext ctx = b->context;
  int64_t w = d[3];
  if (right < 0) { /* columns past the last one read: cropped */
    int64_t starts[4] = {0, 0, 0, 0}, ends[4] = {d[0], d[1], d[2], w + right},
            steps[4] = {1, 1, 1, 1};
    int64_t cd[4] = {d[0], d[1], d[2], w + right};
    v = typed(b, "dlg.slice", v, f32Tensor(ctx, 4, cd),
              DLC_ATTRS(dlcNamedI64Array(ctx, "starts", 4, starts),
                        dlcNamedI64Array(ctx, "ends", 4, ends),
                        dlcNamedI64Array(ctx, "steps", 4, steps)));
    w += right, right = 0;
  }
  if (left > 0 || right > 0) {
    int64_t pads[8] = {0, 0, 0, left, 0, 0, 0, right};
    int64_t pd[4] = {d[0], d[1], d[2], w + left + right};
    v = typed(b, "dlg.pad", v, f32Tensor(ctx, 4, pd),
              DLC_ATTRS(dlcNamedI64Array(ctx, "pads", 8, pads), dlcNamedF64(ctx, "value", 0.0)));
    w += left + right;
  }
  int64_t q = w / s;
  int64_t d5[5] = {d[0], d[1], d[2], q, s}, t5[5] = {d[0], d[1], s, d[2], q};
  int64_t d4[4] = {d[0], d[1] * s, d[2], q}, perm[5] = {0, 1, 4, 2, 3};
  v = typed(b, "dlg.reshape", v, f32Tensor(ctx, 5, d5), DLC_NO_ATTRS);
  v = typed(b, "dlg.transpose", v, f32Tensor(ctx, 5, t5),
            DLC_ATTRS(dlcNamedI64Array(ctx, "perm", 5, perm)));
  return typed(b, "dlg.reshape", v, f32Tensor(ctx, 4, d4), DLC_NO_ATTRS);
}

static bool splitOne(MlirOperation conv, int64_t vectorWidth) {
  MlirContext ctx = mlirOperationGetContext(conv);
  MlirOperation parent = mlirOperationGetParentOperation(conv);
  if (!mlirOperationIsNull(parent) && dlcOpIs(parent, "dlk.kernel"))
    return false; /* a kernel the user formed keeps its ops */
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  dlcGetI64Array(conv, "strides", st, 2);
  dlcGetI64Array(conv, "dilations", dl, 2);
  dlcGetI64Array(conv, "padding", pad, 4);
  int64_t x[4], w[4], y[4], s = st[1];
  MlirValue xv = mlirOperationGetOperand(conv, 0), wv = mlirOperationGetOperand(conv, 1);
  if (s < 2 || dl[0] != 1 || dl[1] != 1 || dlcGetI64(conv, "groups", 1) != 1 ||
      !staticF32(xv, 4, x) || !staticF32(wv, 4, w) ||
      !staticF32(mlirOperationGetResult(conv, 0), 4, y))
    return false;
  int64_t kw = w[3], taps = (kw + s - 1) / s, half = vectorWidth / 2;
  if (kw < s || x[1] * s > kMaxChannels || half < 1 || y[1] % half != 0 || w[1] != x[1])
    return false;
  /* x' holds the Wq = Wo + taps - 1 columns of each phase the conv reads */
  int64_t wq = y[3] + taps - 1, right = s * wq - pad[1] - x[3];
  DlcBuilder b = dlcBuilderBefore(conv, mlirOperationGetLocation(conv));
  MlirValue xq = phases(&b, xv, x, pad[1], right, s);
  MlirValue wq4 = phases(&b, wv, w, 0, s * taps - kw, s);
  if (mlirValueIsNull(xq) || mlirValueIsNull(wq4))
    return false;
  MlirValue ops[3] = {xq, wq4};
  intptr_t n = mlirOperationGetNumOperands(conv);
  if (n > 2)
    ops[2] = mlirOperationGetOperand(conv, 2);
  int64_t strides[2] = {st[0], 1}, padding[4] = {pad[0], 0, pad[2], 0};
  MlirType yt = mlirValueGetType(mlirOperationGetResult(conv, 0));
  MlirOperation z = dlcBuildOpTyped(&b, "dlg.conv2d", n, ops, 1, &yt,
                                    DLC_ATTRS(dlcNamedI64Array(ctx, "strides", 2, strides),
                                              dlcNamedI64Array(ctx, "padding", 4, padding)));
  if (mlirOperationIsNull(z))
    return false;
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(conv, 0), mlirOperationGetResult(z, 0));
  mlirOperationDestroy(conv);
  return true;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int64_t vw = dlcOptionsGetInt(dlcPassGetOptions(pass), "vector-width");
  DlcOpList convs = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &convs, MlirWalkPreOrder);
  uint64_t split = 0;
  for (intptr_t i = 0; i < convs.n; ++i)
    split += splitOne(convs.ops[i], vw);
  dlcOpListFree(&convs);
  dlcPassAddStatistic(pass, "split", split);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"vector-width",
     "f32 lanes of the target's vectors: only convs whose output channels the direct conv's "
     "panels (down to half a vector) divide are split",
     DLC_OPTION_INT, "16"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"split", "Number of strided conv2d ops rewritten on their input's column phases"},
};

const DlcPassDescriptor dlcDlgConvPhaseSplitPass = {
    .argument = "dlg-conv-phase-split",
    .summary = "Rewrite a horizontally strided conv2d on few input channels (an image stem) as a "
               "stride-1 conv on the input's column phases, for the CPU's direct conv",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
