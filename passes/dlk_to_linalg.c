/* --dlk-to-linalg: every dlg op, inside dlk.kernels and outside, lowered on
   tensors to linalg / tensor / arith / math, then (option `outline`) each
   kernel outlined into a function of its own (outline_kernels.c), which
   carries the kernel's kind and #dlk.schedule.

   The lowerings live by op family in lowering/ (lower.h), each family a
   table of {op name, lower function} rows; this driver dispatches through
   their concatenation. The GEMM packing policy is the strategy's
   (schedule/gemm_packing.h), chosen here from the pass options. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "lowering/lower.h"
#include "outline_kernels.h"
#include "support/op_list.h"

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/UB.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const DlcLowering *rows;
  const size_t *count;
} kFamilies[] = {
    {dlcElementwiseLowerings, &dlcElementwiseLoweringCount},
    {dlcReductionLowerings, &dlcReductionLoweringCount},
    {dlcNormLowerings, &dlcNormLoweringCount},
    {dlcContractionLowerings, &dlcContractionLoweringCount},
    {dlcPoolLowerings, &dlcPoolLoweringCount},
    {dlcDataLowerings, &dlcDataLoweringCount},
};

static DlcLowerFn lookup(MlirStringRef name) {
  for (size_t f = 0; f < sizeof kFamilies / sizeof kFamilies[0]; ++f)
    for (size_t i = 0; i < *kFamilies[f].count; ++i) {
      const char *op = kFamilies[f].rows[i].op;
      if (name.length == strlen(op) && memcmp(name.data, op, name.length) == 0)
        return kFamilies[f].rows[i].lower;
    }
  return NULL;
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  MlirStringRef d = mlirIdentifierStr(mlirOperationGetName(op));
  if (d.length > 4 && memcmp(d.data, "dlg.", 4) == 0)
    dlcOpListPush(user, op);
  return MlirWalkResultAdvance;
}

/* Lowers every dlg op of the module, in post-order (operands first). */
static bool lowerAll(MlirOperation module, const DlcLowerPolicy *policy, bool controlFlow,
                     bool hostLoops) {
  DlcOpList l = {0};
  mlirOperationWalk(module, collect, &l, MlirWalkPostOrder);
  bool ok = true;
  for (intptr_t i = 0; i < l.n; ++i) {
    MlirOperation op = l.ops[i];
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (!controlFlow && (dlcOpIs(op, "dlg.if") || dlcOpIs(op, "dlg.while"))) {
      char msg[160];
      snprintf(msg, sizeof msg, "dlk-to-linalg: '%.*s' (control flow decided at run time) is not "
               "supported by this pipeline (control-flow=false)",
               (int)name.length, name.data);
      dlcLowerFail(op, msg);
      ok = false;
      break;
    }
    int selection = dlcLowerSelection(op, hostLoops); /* two results, host loops */
    if (selection >= 0) {
      if (!selection) {
        ok = false;
        break;
      }
      continue;
    }
    int control = dlcLowerControl(op); /* dlg.if, dlg.while: several results */
    if (control >= 0) {
      if (!control) {
        ok = false;
        break;
      }
      continue;
    }
    DlcLowerFn lower = lookup(name);
    if (!lower) {
      char msg[160];
      snprintf(msg, sizeof msg, "dlk-to-linalg has no lowering for '%.*s'", (int)name.length,
               name.data);
      dlcLowerFail(op, msg);
      ok = false;
      break;
    }
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    MlirValue v = lower(&b, op, policy);
    if (mlirValueIsNull(v)) {
      ok = false;
      break;
    }
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), v);
    mlirOperationDestroy(op);
  }
  dlcOpListFree(&l);
  return ok;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  /* `pack`: panel packing is a CPU cache layout; the GPU pipeline turns it
     off and keeps plain [M, N, K] contractions for its own strategy. */
  DlcLowerPolicy policy = {dlcOptionsGetBool(o, "pack")
                               ? dlcGemmPackingCpu(dlcOptionsGetInt(o, "vector-width"),
                                                   dlcOptionsGetInt(o, "pack-a-bytes"))
                               : dlcGemmPackingNone()};
  bool ok = lowerAll(module, &policy, dlcOptionsGetBool(o, "control-flow"),
                     dlcOptionsGetBool(o, "host-loops"));
  if (ok && dlcOptionsGetBool(o, "outline"))
    dlcOutlineKernels(module);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry registry) {
  MlirDialectHandle handles[] = {mlirGetDialectHandle__linalg__(), mlirGetDialectHandle__tensor__(),
                                 mlirGetDialectHandle__arith__(), mlirGetDialectHandle__math__(),
                                 mlirGetDialectHandle__scf__(), mlirGetDialectHandle__ub__()};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i)
    mlirDialectHandleInsertDialect(handles[i], registry);
}

/* The vector width picks the GEMM panel width (the cost model's register
   tile width): 8 lanes, AVX2's, unless the pipeline says otherwise. */
static const DlcOptionDesc kOptions[] = {
    {"vector-width", "f32 lanes per vector of the target (GEMM panel width)", DLC_OPTION_INT, "8"},
    {"pack", "GEMMs and conv2d read B from packed panels (the CPU layout); false keeps "
             "plain contractions (the GPU pipeline)", DLC_OPTION_BOOL, "true"},
    {"pack-a-bytes", "GEMMs whose A is larger than this (bytes) get no row padding: "
                     "dlc-gemm-pack-a packs their A later (0: it does not run)",
     DLC_OPTION_INT, "0"},
    {"control-flow", "lower dlg.if / dlg.while to scf.if / scf.while (false: refuse them, for "
                     "pipelines whose later stages cannot take host-side control flow)",
     DLC_OPTION_BOOL, "true"},
    {"host-loops", "lower ops whose loops run on the host over tensor elements "
                   "(non_max_suppression; false: refuse them, for the GPU pipeline, whose host "
                   "cannot read device memory element by element)",
     DLC_OPTION_BOOL, "true"},
    {"outline", "outline each dlk.kernel into a function afterwards (dlk-outline-kernels)",
     DLC_OPTION_BOOL, "true"},
};

const DlcPassDescriptor dlcDlkToLinalgPass = {
    .argument = "dlk-to-linalg",
    .summary = "Lower dlk kernels and dlg ops to linalg/tensor/arith/math on tensors",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
