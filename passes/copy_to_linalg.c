/* --dlc-copy-to-linalg: memref.copy between strided buffers becomes
   linalg.copy.

   Bufferization writes copies as memref.copy; with a non-contiguous side
   (a subview of a padded buffer) the LLVM lowering calls the runtime's
   element-by-element memrefCopy. As linalg.copy it becomes a loop nest that
   LLVM vectorises like any other. Contiguous copies stay (they become
   memcpy).

   A bufferized tensor.pad fills its whole buffer, then copies the source
   into a subview of it. When that subview is the only way the buffer is
   read (its other users are the fill and the dealloc), the padding is never
   read and the fill is dead: it goes too. dlk-to-linalg pads B of a GEMM
   that way only to change its row stride. Such a buffer, statically sized,
   becomes a private module global rather than a malloc per call: megabytes
   freshly mapped by the allocator on every call cost more page faults than
   the copy itself. (A program's entry runs one call at a time, see
   dlc-c/Compile.h.) */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MemRef.h"

#include <stdio.h>


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

/* Erases the fill of `alloc` when only the subview `view`, wholly
   overwritten by the copy, can read it. */
static bool eraseDeadPaddingFill(MlirValue alloc, MlirValue view) {
  MlirOperation fill = {NULL};
  if (mlirValueIsNull(alloc))
    return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(alloc); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (dlcOpIs(user, "memref.dealloc"))
      continue;
    if (dlcOpIs(user, "memref.subview") &&
        mlirValueEqual(mlirOperationGetResult(user, 0), view))
      continue;
    if (dlcOpIs(user, "linalg.map") && mlirOperationGetNumOperands(user) == 1 &&
        mlirOperationIsNull(fill)) {
      fill = user;
      continue;
    }
    return false;
  }
  if (mlirOperationIsNull(fill))
    return false;
  mlirOperationDestroy(fill);
  return true;
}

/* Replaces the static `alloc` (its users: subviews and deallocs) by a
   private uninitialised global of its type. */
static void allocToGlobal(MlirOperation module, MlirOperation alloc, int index) {
  MlirContext ctx = mlirOperationGetContext(alloc);
  MlirType t = mlirValueGetType(mlirOperationGetResult(alloc, 0));
  char name[64];
  snprintf(name, sizeof name, "__dlc_scratch_%d", index);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  DlcBuilder top = dlcBuilderBefore(mlirBlockGetFirstOperation(body), mlirOperationGetLocation(alloc));
  dlcBuildOpTyped(&top, "memref.global", 0, NULL, 0, NULL,
                  DLC_ATTRS(dlcNamedString(ctx, "sym_name", name),
                            dlcNamedString(ctx, "sym_visibility", "private"),
                            dlcNamed(ctx, "type", mlirTypeAttrGet(t)),
                            dlcNamed(ctx, "initial_value", mlirUnitAttrGet(ctx)),
                            dlcNamedI64(ctx, "alignment", 64)));
  DlcBuilder b = dlcBuilderBefore(alloc, mlirOperationGetLocation(alloc));
  MlirOperation get = dlcBuildOpTyped(
      &b, "memref.get_global", 0, NULL, 1, &t,
      DLC_ATTRS(dlcNamed(ctx, "name", mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(name)))));
  DlcOpList deallocs = {NULL, 0, 0};
  MlirValue old = mlirOperationGetResult(alloc, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(old); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    if (dlcOpIs(mlirOpOperandGetOwner(u), "memref.dealloc"))
      dlcOpListPush(&deallocs, mlirOpOperandGetOwner(u));
  for (intptr_t i = 0; i < deallocs.n; ++i)
    mlirOperationDestroy(deallocs.ops[i]);
  dlcOpListFree(&deallocs);
  mlirValueReplaceAllUsesOfWith(old, mlirOperationGetResult(get, 0));
  mlirOperationDestroy(alloc);
}

static bool isStaticAlloc(MlirOperation alloc) {
  return dlcOpIs(alloc, "memref.alloc") && mlirOperationGetNumOperands(alloc) == 0 &&
         mlirShapedTypeHasStaticShape(mlirValueGetType(mlirOperationGetResult(alloc, 0)));
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  DlcOpList copies = {NULL, 0, 0};
  uint64_t fills = 0, globals = 0;
  mlirOperationWalk(module, collect, &copies, MlirWalkPreOrder);
  for (intptr_t i = 0; i < copies.n; ++i) {
    MlirOperation op = copies.ops[i];
    MlirContext ctx = mlirOperationGetContext(op);
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    int32_t seg[2] = {1, 1};
    MlirValue operands[2] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1)};
    MlirNamedAttribute segments =
        dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
    MlirRegion region = mlirRegionCreate(); /* filled with the named op's body below */
    MlirOperationState st =
        mlirOperationStateGet(mlirStringRefCreateFromCString("linalg.copy"), b.loc);
    mlirOperationStateAddOperands(&st, 2, operands);
    mlirOperationStateAddAttributes(&st, 1, &segments);
    mlirOperationStateAddOwnedRegions(&st, 1, &region);
    MlirOperation copy = dlcBuilderInsert(&b, mlirOperationCreate(&st));
    mlirLinalgFillBuiltinNamedOpRegion(copy);
    mlirOperationDestroy(op);
    MlirOperation sub = dlcDefiningOp(operands[1], "memref.subview");
    MlirOperation alloc = mlirOperationIsNull(sub)
                              ? sub
                              : dlcDefiningOp(mlirOperationGetOperand(sub, 0), "memref.alloc");
    if (!mlirOperationIsNull(alloc) &&
        eraseDeadPaddingFill(mlirOperationGetResult(alloc, 0), operands[1])) {
      ++fills;
      if (isStaticAlloc(alloc))
        allocToGlobal(module, alloc, (int)globals++);
    }
  }
  dlcPassAddStatistic(pass, "dead-fills", fills);
  dlcPassAddStatistic(pass, "scratch-globals", globals);
  dlcPassAddStatistic(pass, "rewritten", (uint64_t)copies.n);
  dlcOpListFree(&copies);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStatistics[] = {
    {"rewritten", "Number of strided memref.copy ops turned into linalg.copy"},
    {"dead-fills", "Number of padding fills erased because nothing reads them"},
    {"scratch-globals", "Number of padded copies placed in module globals"},
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
