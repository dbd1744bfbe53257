/* --dlg-fold-batch-norm: an inference batch_norm over the channels of a
   conv2d whose weight (and bias, if any) are constant becomes part of the
   conv:

     s[o]  = scale[o] / sqrt(var[o] + epsilon)
     W'[o] = W[o] * s[o]
     b'[o] = (b[o] - mean[o]) * s[o] + bias[o]      (b = 0 without a bias)

   computed in double and rounded once to the element type. The conv must
   have the batch_norm as its only user (another user needs the unscaled
   output) and the batch_norm must normalize axis 1, the conv's output
   channels. Weights shared with other convs are copied, not changed. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "fold/host_tensor.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>

/* Parameters of up to 2^26 elements are read (a 256 MB conv weight). */
#define MAX_ELEMENTS ((int64_t)1 << 26)

static MlirWalkResult collect(MlirOperation op, void *list) {
  if (dlcOpIs(op, "dlg.batch_norm"))
    dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

/* Reads operand `i` of `op` when a constant defines it. */
static bool readConstant(MlirOperation op, intptr_t i, DlcHostTensor *out) {
  return dlcHostTensorReadConstant(mlirOperationGetOperand(op, i), MAX_ELEMENTS, out);
}

enum { X, SCALE, BIAS, MEAN, VAR, NUM_BN };

static bool foldOne(MlirOperation bn, int64_t resourceBytes) {
  MlirValue y = mlirOperationGetOperand(bn, X);
  MlirOperation conv = dlcDefiningOp(y, "dlg.conv2d");
  int64_t axis = dlcGetI64(bn, "axis", 1);
  if (mlirOperationIsNull(conv) || mlirOperationIsNull(dlcSoleUser(y, NULL)) || (axis != 1 && axis != -3) ||
      mlirOperationGetNumOperands(bn) != NUM_BN)
    return false;
  bool hasBias = mlirOperationGetNumOperands(conv) == 3;
  DlcHostTensor p[NUM_BN], w, cb;
  int got = SCALE;
  bool ok = true;
  for (; got < NUM_BN && ok; ++got)
    ok = readConstant(bn, got, &p[got]);
  if (!ok)
    --got;
  bool haveW = ok && readConstant(conv, 1, &w);
  bool haveB = haveW && hasBias && readConstant(conv, 2, &cb);
  ok = haveW && (!hasBias || haveB) && w.isFloat && w.shape.rank == 4;
  int64_t channels = ok ? w.shape.dims[0] : 0;
  for (int i = SCALE; ok && i < NUM_BN; ++i)
    ok = p[i].isFloat && p[i].size == channels;
  if (ok) {
    double eps = dlcGetF64(bn, "epsilon", 1e-5);
    DlcShape biasShape = {1, {channels}};
    DlcHostTensor nb;
    ok = dlcHostTensorAlloc(&nb, &biasShape, w.elementType, MAX_ELEMENTS);
    int64_t per = channels ? w.size / channels : 0;
    for (int64_t o = 0; ok && o < channels; ++o) {
      double s = p[SCALE].f[o] / sqrt(p[VAR].f[o] + eps);
      for (int64_t k = 0; k < per; ++k)
        dlcHostTensorSet(&w, o * per + k, w.f[o * per + k] * s);
      double b0 = hasBias ? cb.f[o] : 0.0;
      dlcHostTensorSet(&nb, o, (b0 - p[MEAN].f[o]) * s + p[BIAS].f[o]);
    }
    if (ok) {
      DlcBuilder b = dlcBuilderBefore(conv, mlirOperationGetLocation(bn));
      MlirValue wv = mlirOperationGetOperand(conv, 1);
      MlirValue nw = dlcBuildConstant(&b, &w, mlirValueGetType(wv), resourceBytes);
      MlirType bt = mlirRankedTensorTypeGet(1, &channels, w.elementType,
                                            (MlirAttribute){NULL});
      MlirValue nbv = dlcBuildConstant(&b, &nb, bt, resourceBytes);
      b.loc = mlirOperationGetLocation(conv);
      MlirOperation z = dlcBuildOpLike(
          &b, conv, DLC_VALUES(mlirOperationGetOperand(conv, 0), nw, nbv));
      MlirValue y = mlirOperationGetResult(bn, 0);
      ok = !mlirOperationIsNull(z) &&
           mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(z, 0)), mlirValueGetType(y));
      if (ok) {
        mlirValueReplaceAllUsesOfWith(y, mlirOperationGetResult(z, 0));
        mlirOperationDestroy(bn);
        mlirOperationDestroy(conv);
      } else if (!mlirOperationIsNull(z)) {
        mlirOperationDestroy(z);
      }
      dlcHostTensorFree(&nb);
    }
  }
  for (int i = SCALE; i < got; ++i)
    dlcHostTensorFree(&p[i]);
  if (haveW)
    dlcHostTensorFree(&w);
  if (haveB)
    dlcHostTensorFree(&cb);
  return ok;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int64_t resourceBytes =
      dlcOptionsGetInt(dlcPassGetOptions(pass), "resource-bytes");
  DlcOpList bns = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &bns, MlirWalkPreOrder);
  uint64_t folded = 0;
  for (intptr_t i = 0; i < bns.n; ++i)
    folded += foldOne(bns.ops[i], resourceBytes);
  if (folded)
    dlcEraseDeadConstants(func);
  dlcOpListFree(&bns);
  dlcPassAddStatistic(pass, "folded", folded);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"resource-bytes",
     "Folded weights larger than this many bytes become dense_resource blobs",
     DLC_OPTION_INT, "65536"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"folded", "Number of batch_norm ops folded into convolutions"},
};

const DlcPassDescriptor dlcDlgFoldBatchNormPass = {
    .argument = "dlg-fold-batch-norm",
    .summary = "Fold an inference batch_norm into the preceding conv2d's "
               "constant weights and bias",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
