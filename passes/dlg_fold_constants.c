/* --dlg-fold-constants: evaluates every dlg op whose operands are all
   dlg.constant with the C reference kernels (fold/reference.c) and puts
   the value in its place as a new dlg.constant.

   One forward sweep over the function folds whole chains, since each new
   constant is in place before its users are visited. Results above
   `resource-bytes` become dense_resource blobs (owned by the context, as
   the importer's weights are), so folding a weight transpose does not
   turn megabytes of data into attribute text. Constants left without
   users are erased. Ops the kernels cannot evaluate exactly (see
   fold/reference.h) stay for run time. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "fold/nms.h"
#include "fold/nonzero.h"
#include "fold/reference.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdlib.h>

static MlirWalkResult collect(MlirOperation op, void *list) {
  dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

static bool allOperandsConstant(MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < n; ++i)
    if (mlirOperationIsNull(dlcDefiningOp(mlirOperationGetOperand(op, i), "dlg.constant")))
      return false;
  return n > 0;
}

/* The ops of two results (a padded result and its count) and their
   kernels (fold/nms.h, fold/nonzero.h); every other op has one result and
   goes through dlcReferenceEvaluate. */
typedef bool (*TwoResultKernel)(MlirOperation op, const DlcHostTensor *in, int64_t maxElements,
                                DlcHostTensor out[2]);

static bool nms(MlirOperation op, const DlcHostTensor *in, int64_t maxElements,
                DlcHostTensor out[2]) {
  return dlcReferenceNonMaxSuppression(op, &in[0], &in[1], maxElements, out);
}

static bool nonZero(MlirOperation op, const DlcHostTensor *in, int64_t maxElements,
                    DlcHostTensor out[2]) {
  return dlcReferenceNonZero(op, &in[0], maxElements, out);
}

static const struct {
  const char *name;
  TwoResultKernel kernel;
} kTwoResults[] = {
    {"dlg.non_max_suppression", nms},
    {"dlg.non_zero", nonZero},
};

static TwoResultKernel twoResultKernel(MlirOperation op) {
  for (size_t i = 0; i < sizeof kTwoResults / sizeof kTwoResults[0]; ++i)
    if (dlcOpIs(op, kTwoResults[i].name))
      return kTwoResults[i].kernel;
  return NULL;
}

/* Folds `op` into new constants; false when `op` stays. */
static bool foldOne(MlirOperation op, int64_t maxElements, int64_t resourceBytes) {
  intptr_t n = mlirOperationGetNumOperands(op);
  DlcHostTensor *in = dlcXcalloc((size_t)n, sizeof *in), out[2];
  TwoResultKernel two = twoResultKernel(op);
  bool ok = true;
  intptr_t read = 0;
  for (; read < n && ok; ++read)
    ok = dlcHostTensorReadConstant(mlirOperationGetOperand(op, read), maxElements, &in[read]);
  if (!ok)
    --read; /* the failed read freed itself */
  ok = ok && (two ? two(op, in, maxElements, out)
                  : dlcReferenceEvaluate(op, in, n, maxElements, &out[0]));
  for (intptr_t i = 0; i < read; ++i)
    dlcHostTensorFree(&in[i]);
  free(in);
  if (!ok)
    return false;
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue res = mlirOperationGetResult(op, r);
    MlirValue c = dlcBuildConstant(&b, &out[r], mlirValueGetType(res), resourceBytes);
    dlcHostTensorFree(&out[r]);
    mlirValueReplaceAllUsesOfWith(res, c);
  }
  mlirOperationDestroy(op);
  return true;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  int64_t maxElements = dlcOptionsGetInt(o, "max-elements");
  int64_t resourceBytes = dlcOptionsGetInt(o, "resource-bytes");
  DlcOpList ops = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &ops, MlirWalkPreOrder);
  uint64_t folded = 0;
  for (intptr_t i = 0; i < ops.n; ++i)
    folded += (dlcReferenceSupports(ops.ops[i]) || twoResultKernel(ops.ops[i])) &&
              allOperandsConstant(ops.ops[i]) &&
              foldOne(ops.ops[i], maxElements, resourceBytes);
  dlcOpListFree(&ops);
  dlcPassAddStatistic(pass, "folded", folded);
  dlcPassAddStatistic(pass, "erased-constants", dlcEraseDeadConstants(func));
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"max-elements", "Largest tensor (operand or result) folded, in elements",
     DLC_OPTION_INT, "4194304"},
    {"resource-bytes",
     "Results larger than this many bytes become dense_resource blobs",
     DLC_OPTION_INT, "65536"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"folded", "Number of ops replaced by constants"},
    {"erased-constants", "Number of constants erased for having no users"},
};

const DlcPassDescriptor dlcDlgFoldConstantsPass = {
    .argument = "dlg-fold-constants",
    .summary = "Evaluate dlg ops whose operands are all constant (C reference "
               "kernels) and replace them by dlg.constant",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
