/* --dlk-outline-kernels: every dlk.kernel becomes a private function of its
   own, called in its place. Kernel boundaries then survive the elementwise
   fusion that follows lowering (it works within a function), so an
   expensive producer is never recomputed inside a consumer that dlg-fuse
   kept apart. The function carries the kernel's kind and schedule
   (attr_names.h) for the schedulers and the profiler, which name kernels
   @<func>_kernel<i> by their order here.

   --dlk-to-linalg runs this after lowering (so the pipelines are one pass
   shorter to read); on its own it outlines kernels whatever their body
   holds, lowered or not. */

#include "outline_kernels.h"

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* func.return in place of the kernel body's dlk.yield. */
static void yieldToReturn(MlirBlock body, MlirLocation loc) {
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirOperationState rs = mlirOperationStateGet(str("func.return"), loc);
  intptr_t nY = mlirOperationGetNumOperands(yield);
  MlirValue *ys = dlcXmalloc(sizeof(MlirValue) * (size_t)(nY + 1));
  for (intptr_t i = 0; i < nY; ++i)
    ys[i] = mlirOperationGetOperand(yield, i);
  mlirOperationStateAddOperands(&rs, nY, ys);
  mlirBlockInsertOwnedOperationBefore(body, yield, mlirOperationCreate(&rs));
  mlirOperationDestroy(yield);
  free(ys);
}

static void outlineKernel(MlirOperation k, MlirOperation parentFunc, int64_t id) {
  MlirContext ctx = mlirOperationGetContext(k);
  MlirLocation loc = mlirOperationGetLocation(k);
  MlirStringRef parent = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(parentFunc, str("sym_name")));
  char name[256];
  snprintf(name, sizeof name, "%.*s_kernel%lld", (int)parent.length, parent.data, (long long)id);

  intptr_t nIn = mlirOperationGetNumOperands(k), nOut = mlirOperationGetNumResults(k);
  MlirType *types = dlcXmalloc(sizeof(MlirType) * (size_t)(nIn + nOut + 1));
  for (intptr_t i = 0; i < nIn; ++i)
    types[i] = mlirValueGetType(mlirOperationGetOperand(k, i));
  for (intptr_t i = 0; i < nOut; ++i)
    types[nIn + i] = mlirValueGetType(mlirOperationGetResult(k, i));
  MlirType fnType = mlirFunctionTypeGet(ctx, nIn, types, nOut, types + nIn);

  yieldToReturn(mlirRegionGetFirstBlock(mlirOperationGetRegion(k, 0)), loc);
  MlirRegion region = mlirRegionCreate();
  mlirRegionTakeBody(region, mlirOperationGetRegion(k, 0));
  MlirAttribute kind = mlirOperationGetAttributeByName(k, str("kind"));
  MlirAttribute sched = mlirOperationGetAttributeByName(k, str("schedule"));
  MlirNamedAttribute attrs[5];
  int na = 0;
  attrs[na++] = dlcNamed(ctx, "sym_name", mlirStringAttrGet(ctx, str(name)));
  attrs[na++] = dlcNamed(ctx, "function_type", mlirTypeAttrGet(fnType));
  attrs[na++] = dlcNamed(ctx, "sym_visibility", mlirStringAttrGet(ctx, str("private")));
  if (!mlirAttributeIsNull(kind))
    attrs[na++] = dlcNamed(ctx, DLC_ATTR_KERNEL_KIND, kind);
  if (!mlirAttributeIsNull(sched))
    attrs[na++] = dlcNamed(ctx, DLC_ATTR_SCHEDULE, sched);
  MlirOperationState fs = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&fs, na, attrs);
  mlirOperationStateAddOwnedRegions(&fs, 1, &region);
  MlirOperation fn = mlirOperationCreate(&fs);
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(parentFunc), parentFunc, fn);

  MlirOperationState cs = mlirOperationStateGet(str("func.call"), loc);
  MlirValue *args = dlcXmalloc(sizeof(MlirValue) * (size_t)(nIn + 1));
  for (intptr_t i = 0; i < nIn; ++i)
    args[i] = mlirOperationGetOperand(k, i);
  mlirOperationStateAddOperands(&cs, nIn, args);
  mlirOperationStateAddResults(&cs, nOut, types + nIn);
  MlirNamedAttribute callee = dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  mlirOperationStateAddAttributes(&cs, 1, &callee);
  MlirOperation call = mlirOperationCreate(&cs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(k), k, call);
  for (intptr_t i = 0; i < nOut; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(k, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(k);
  free(args);
  free(types);
}

static MlirWalkResult collectKernel(MlirOperation op, void *user) {
  if (dlcOpIs(op, "dlk.kernel"))
    dlcOpListPush(user, op);
  return MlirWalkResultAdvance;
}

void dlcOutlineKernels(MlirOperation module) {
  DlcOpList funcs = dlcOpListOfModule(module, "func.func");
  for (intptr_t f = 0; f < funcs.n; ++f) {
    DlcOpList kernels = {0};
    mlirOperationWalk(funcs.ops[f], collectKernel, &kernels, MlirWalkPostOrder);
    for (intptr_t i = 0; i < kernels.n; ++i)
      outlineKernel(kernels.ops[i], funcs.ops[f], i);
    dlcOpListFree(&kernels);
  }
  dlcOpListFree(&funcs);
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  dlcOutlineKernels(module);
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcDlkOutlineKernelsPass = {
    .argument = "dlk-outline-kernels",
    .summary = "Outline each dlk.kernel into a private function called in its place",
    .anchor = "builtin.module",
    .run = run,
};
