/* Builds a small graph through the dlc C API (matmul + add + rms_norm, with
   a redundant multiply by one), verifies it, runs dlg-simplify, prints it,
   and checks that a malformed op is reported rather than built. */
// RUN: %cc %s -o %t %ldlc && %t 2>&1 | FileCheck %s

#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Dlg.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>

static void printToStdout(MlirStringRef s, void *u) { fwrite(s.data, 1, s.length, stdout); }

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *u) {
  printf("diagnostic: ");
  mlirDiagnosticPrint(d, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirType tensor(MlirContext ctx, intptr_t rank, const int64_t *dims) {
  return mlirRankedTensorTypeGet(rank, dims, mlirF32TypeGet(ctx), mlirAttributeGetNull());
}

/* func.func @name(args) -> results, with an empty entry block. */
static MlirOperation makeFunc(MlirContext ctx, MlirLocation loc, const char *name,
                              intptr_t nArgs, const MlirType *args,
                              intptr_t nResults, const MlirType *results,
                              MlirBlock *entry) {
  MlirLocation locs[8];
  for (intptr_t i = 0; i < nArgs; ++i)
    locs[i] = loc;
  *entry = mlirBlockCreate(nArgs, args, locs);
  MlirRegion body = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(body, *entry);
  MlirType fnType = mlirFunctionTypeGet(ctx, nArgs, args, nResults, results);
  MlirNamedAttribute attrs[] = {
      dlcNamed(ctx, "sym_name", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(name))),
      dlcNamed(ctx, "function_type", mlirTypeAttrGet(fnType))};
  MlirOperationState st = mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), loc);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &body);
  return mlirOperationCreate(&st);
}

int main(void) {
  MlirContext ctx = dlcContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  MlirLocation loc = mlirLocationFileLineColGet(ctx, mlirStringRefCreateFromCString("graph.c"), 1, 1);
  MlirModule module = mlirModuleCreateEmpty(loc);

  const int64_t xs[] = {4, 16}, ws[] = {16, 8}, bs[] = {8}, ys[] = {4, 8};
  MlirType args[] = {tensor(ctx, 2, xs), tensor(ctx, 2, ws), tensor(ctx, 1, bs), tensor(ctx, 1, bs)};
  MlirType result = tensor(ctx, 2, ys);
  MlirBlock entry;
  MlirOperation func = makeFunc(ctx, loc, "layer", 4, args, 1, &result, &entry);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), func);

  DlcBuilder b = dlcBuilderAtEnd(entry, loc);
  MlirValue x = mlirBlockGetArgument(entry, 0), w = mlirBlockGetArgument(entry, 1);
  MlirValue bias = mlirBlockGetArgument(entry, 2), gamma = mlirBlockGetArgument(entry, 3);
  MlirValue mm = dlcDlgBuildMatmul(&b, x, w, false, false);
  MlirValue sum = dlcDlgBuildAdd(&b, mm, bias);
  MlirValue one = dlcDlgBuildConstant(&b, mlirDenseElementsAttrFloatSplatGet(tensor(ctx, 0, NULL), 1.0f));
  MlirValue scaled = dlcDlgBuildMul(&b, sum, one);
  MlirValue normed = dlcDlgBuildRmsNorm(&b, scaled, gamma, -1, 1e-5);
  dlcBuildOpTyped(&b, "func.return", DLC_VALUES(normed), 0, NULL, DLC_NO_ATTRS);

  DlcShape s;
  dlcValueGetShape(sum, &s);
  printf("add result rank %lld: %lld x %lld\n", (long long)s.rank,
         (long long)s.dims[0], (long long)s.dims[1]);
  // CHECK: add result rank 2: 4 x 8

  MlirOperation m = mlirModuleGetOperation(module);
  printf("verified: %d\n", mlirOperationVerify(m));
  // CHECK: verified: 1

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager fpm =
      mlirPassManagerGetNestedUnder(pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(fpm, dlcCreateDlgSimplifyPass());
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, m)))
    printf("simplify failed\n");
  mlirPassManagerDestroy(pm);
  mlirOperationPrint(m, printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: func.func @layer
  // CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %[[MM:.*]] = dlg.matmul %[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %[[S:.*]] = dlg.add %[[MM]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: %[[N:.*]] = dlg.rms_norm %[[S]] gamma %[[G]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: return %[[N]]

  /* The same through a textual pipeline. */
  printf("pipeline: %d\n", mlirLogicalResultIsSuccess(
      dlcRunPipeline(m, "builtin.module(func.func(dlg-simplify{max-iterations=4}))")));
  // CHECK: pipeline: 1
  printf("bad pipeline: %d\n", mlirLogicalResultIsSuccess(dlcRunPipeline(m, "builtin.module(no-such-pass)")));
  // CHECK: diagnostic: invalid pass pipeline 'builtin.module(no-such-pass)'
  // CHECK: bad pipeline: 0

  /* A malformed op: the shape rule's message, at the builder's location. */
  MlirValue bad = dlcDlgBuildMatmul(&b, w, w, false, false);
  printf("bad matmul is null: %d\n", mlirValueIsNull(bad));
  // CHECK: diagnostic: 'dlg.matmul' op contracting dimensions differ: a has 8 (dim 1), b has 16 (dim 0)
  // CHECK: bad matmul is null: 1
  MlirValue chained = dlcDlgBuildRelu(&b, bad);
  printf("chained is null: %d\n", mlirValueIsNull(chained));
  // CHECK: chained is null: 1

  /* Shape rules are plain C. */
  DlcShape a = {3, {DLC_DYNAMIC, 1, 16}}, c = {2, {5, 1}}, r;
  DlcShapeError err;
  printf("broadcast ok: %d rank %lld dims %lld %lld %lld\n", dlcShapeBroadcast(&a, &c, &r, &err),
         (long long)r.rank, (long long)(r.dims[0] == DLC_DYNAMIC ? -1 : r.dims[0]),
         (long long)r.dims[1], (long long)r.dims[2]);
  // CHECK: broadcast ok: 1 rank 3 dims -1 5 16
  const int64_t perm[] = {0, 0, 1};
  printf("transpose ok: %d: %s\n", dlcShapeTranspose(&a, perm, 3, &r, &err), err.message);
  // CHECK: transpose ok: 0: 'perm' is not a permutation: 0 appears twice

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
