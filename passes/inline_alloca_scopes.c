/* dlc-inline-alloca-scopes: each single-block memref.alloca_scope becomes
   its own ops between llvm.intr.stacksave and llvm.intr.stackrestore,
   which is what the LLVM conversion would make of it.

   Why here: convert-scf-to-openmp wraps a parallel loop's body that holds
   allocas in such a scope (as dlc-hoist-scratch does for the serial
   path), and convert-scf-to-cf then turns the loops inside into branches:
   a scope of many blocks, which its verifier refuses before the LLVM
   conversion is reached. Lowered while its body is one block, the scope's
   meaning (the allocas freed at its end, each iteration of the enclosing
   loop reusing the same stack) survives the branches. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/MemRef.h"

static void inlineScope(MlirOperation scope) {
  MlirRegion region = mlirOperationGetRegion(scope, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(body)))
    return; /* none or many blocks: the LLVM conversion's */
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(ret) ||
      mlirOperationGetNumOperands(ret) != mlirOperationGetNumResults(scope))
    return;
  MlirLocation loc = mlirOperationGetLocation(scope);
  MlirType ptr = mlirLLVMPointerTypeGet(mlirOperationGetContext(scope), 0);
  DlcBuilder b = dlcBuilderBefore(scope, loc);
  MlirOperation save = dlcBuildOpTyped(&b, "llvm.intr.stacksave", 0, NULL, 1, &ptr, DLC_NO_ATTRS);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, ret);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, scope);
    op = next;
  }
  dlcBuildOpTyped(&b, "llvm.intr.stackrestore", DLC_VALUES(mlirOperationGetResult(save, 0)), 0,
                  NULL, DLC_NO_ATTRS);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(scope); ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(scope, i),
                                  mlirOperationGetOperand(ret, i));
  mlirOperationDestroy(scope);
}

static MlirLogicalResult run(MlirOperation root, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  DlcOpList scopes = dlcOpListOfWalk(root, "memref.alloca_scope");
  for (intptr_t i = scopes.n - 1; i >= 0; --i) /* inner scopes first */
    inlineScope(scopes.ops[i]);
  dlcOpListFree(&scopes);
  return (MlirLogicalResult){1};
}

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__llvm__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
}

const DlcPassDescriptor dlcInlineAllocaScopesPass = {
    .argument = "dlc-inline-alloca-scopes",
    .summary = "Lower single-block memref.alloca_scope ops to stacksave/stackrestore around "
               "their ops, before convert-scf-to-cf splits their bodies into blocks",
    .anchor = "func.func",
    .getDependentDialects = dependentDialects,
    .run = run,
};
