/* --dlc-copy-to-linalg: memref.copy between strided buffers becomes
   linalg.copy.

   Bufferization writes copies as memref.copy; with a non-contiguous side
   (a subview of a padded buffer) the LLVM lowering calls the runtime's
   element-by-element memrefCopy. As linalg.copy it becomes a loop nest that
   LLVM vectorises like any other. Contiguous copies stay (they become
   memcpy). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "lowering/emit.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MemRef.h"



static bool isIdentityLayout(MlirType t) {
  MlirAttribute layout = mlirMemRefTypeGetLayout(t);
  return mlirAttributeIsNull(layout) ||
         (mlirAttributeIsAAffineMap(layout) &&
          mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout)));
}

static MlirWalkResult collect(MlirOperation op, void *list) {
  if (dlcOpIs(op, "memref.copy")) {
    MlirType a = mlirValueGetType(mlirOperationGetOperand(op, 0));
    MlirType b = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (mlirTypeIsAMemRef(a) && mlirTypeIsAMemRef(b) &&
        (!isIdentityLayout(a) || !isIdentityLayout(b)))
      dlcOpListPush(list, op);
  }
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  DlcOpList copies = {NULL, 0, 0};
  mlirOperationWalk(module, collect, &copies, MlirWalkPreOrder);
  for (intptr_t i = 0; i < copies.n; ++i) {
    MlirOperation op = copies.ops[i];
    MlirContext ctx = mlirOperationGetContext(op);
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    int32_t seg[2] = {1, 1};
    MlirValue operands[2] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1)};
    MlirNamedAttribute segments =
        dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
    dlcEmitNamedLinalg(&b, "linalg.copy", 2, operands, (MlirType){NULL}, 1, &segments);
    mlirOperationDestroy(op);
  }
  dlcPassAddStatistic(pass, "rewritten", (uint64_t)copies.n);
  dlcOpListFree(&copies);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStatistics[] = {
    {"rewritten", "Number of strided memref.copy ops turned into linalg.copy"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__linalg__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
}

const DlcPassDescriptor dlcCopyToLinalgPass = {
    .argument = "dlc-copy-to-linalg",
    .summary = "Turn memref.copy between strided buffers into linalg.copy (vectorisable "
               "loops instead of the runtime's element-wise copy)",
    .anchor = "builtin.module",
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
