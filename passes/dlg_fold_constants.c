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
#include "fold/reference.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinTypes.h"

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

static MlirAttribute constantValue(MlirValue v) {
  return mlirOperationGetAttributeByName(
      mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("value"));
}

/* Folds `op` into a new constant, returned; null when `op` stays. */
static MlirOperation foldOne(MlirOperation op, int64_t maxElements,
                             int64_t resourceBytes) {
  intptr_t n = mlirOperationGetNumOperands(op);
  DlcHostTensor *in = calloc((size_t)n, sizeof *in), out;
  bool ok = true;
  intptr_t read = 0;
  for (; read < n && ok; ++read) {
    MlirValue v = mlirOperationGetOperand(op, read);
    ok = dlcHostTensorRead(constantValue(v), mlirValueGetType(v), maxElements,
                           &in[read]);
  }
  if (!ok)
    --read; /* the failed read freed itself */
  ok = ok && dlcReferenceEvaluate(op, in, n, maxElements, &out);
  for (intptr_t i = 0; i < read; ++i)
    dlcHostTensorFree(&in[i]);
  free(in);
  if (!ok)
    return (MlirOperation){NULL};
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(res);
  MlirAttribute value = dlcHostTensorToAttr(&out, type, resourceBytes, "dlc_folded");
  dlcHostTensorFree(&out);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirOperation c = dlcBuildOpTyped(&b, "dlg.constant", 0, NULL, 1, &type,
                                    DLC_ATTRS(dlcNamed(b.context, "value", value)));
  mlirValueReplaceAllUsesOfWith(res, mlirOperationGetResult(c, 0));
  mlirOperationDestroy(op);
  return c;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  int64_t maxElements = dlcOptionsGetInt(o, "max-elements");
  int64_t resourceBytes = dlcOptionsGetInt(o, "resource-bytes");
  DlcOpList ops = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &ops, MlirWalkPreOrder);
  uint64_t folded = 0, erased = 0;
  for (intptr_t i = 0; i < ops.n; ++i) {
    MlirOperation op = ops.ops[i];
    if (!dlcReferenceSupports(op) || !allOperandsConstant(op))
      continue;
    MlirOperation c = foldOne(op, maxElements, resourceBytes);
    if (mlirOperationIsNull(c))
      continue;
    ops.ops[i] = c; /* swept below once its own users are folded */
    ++folded;
  }
  for (intptr_t i = 0; i < ops.n; ++i) {
    MlirOperation op = ops.ops[i];
    if (dlcOpIs(op, "dlg.constant") &&
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0)))) {
      mlirOperationDestroy(op);
      ++erased;
    }
  }
  dlcOpListFree(&ops);
  dlcPassAddStatistic(pass, "folded", folded);
  dlcPassAddStatistic(pass, "erased-constants", erased);
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
