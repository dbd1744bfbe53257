/* --dlc-static-buffers: after bufferization, the temporaries of a function
   with static shapes stop costing a malloc (and its page faults) per call.

   Copy elision. When a result is a reshape of what the kernels wrote,
   bufferization computes it into a temporary and copies that into the
   caller's out-parameter (`memref.copy view(%tmp), %out`). If nothing else
   touches %out and nothing writes %tmp after the copy, the kernels write
   into %out directly: %tmp becomes the inverse view of %out.

   The other static temporaries go to the workspace arena afterwards
   (--dlc-memory-plan). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/memref_views.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/MemRef.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool isStaticAlloc(MlirOperation op) {
  if (!dlcOpIs(op, "memref.alloc") || mlirOperationGetNumOperands(op) != 0)
    return false;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirShapedTypeHasStaticShape(t) && dlcMemRefIsIdentityLayout(t);
}

/* The ancestor of `op` in `block` (null if none). */
static MlirOperation ancestorIn(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

static bool isBefore(MlirOperation a, MlirOperation b) {
  for (MlirOperation o = mlirOperationGetNextInBlock(a); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (mlirOperationEqual(o, b))
      return true;
  return false;
}

static void eraseDeallocs(MlirValue buffer) {
  DlcOpList deallocs = {NULL, 0, 0};
  for (MlirOpOperand u = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    if (dlcOpIs(mlirOpOperandGetOwner(u), "memref.dealloc"))
      dlcOpListPush(&deallocs, mlirOpOperandGetOwner(u));
  for (intptr_t i = 0; i < deallocs.n; ++i)
    mlirOperationDestroy(deallocs.ops[i]);
  dlcOpListFree(&deallocs);
}

/*--- Copy elision ---------------------------------------------------------------*/

/* `copy` is memref.copy %src, %out at the top of a function, %out an entry
   argument used by nothing else, %src a static temporary or a reshape of
   one whose users (deallocs aside) all come before the copy. */
static bool elideIntoOutParam(MlirOperation copy) {
  MlirBlock block = mlirOperationGetBlock(copy);
  MlirValue src = mlirOperationGetOperand(copy, 0), out = mlirOperationGetOperand(copy, 1);
  if (!mlirValueIsABlockArgument(out) || !mlirBlockEqual(mlirBlockArgumentGetOwner(out), block))
    return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(out); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    if (!mlirOperationEqual(mlirOpOperandGetOwner(u), copy))
      return false;
  if (!dlcMemRefIsIdentityLayout(mlirValueGetType(out)))
    return false;
  MlirOperation view = {NULL}, alloc = mlirOpResultGetOwner(src);
  if (!mlirValueIsAOpResult(src))
    return false;
  if (dlcOpIs(alloc, "memref.collapse_shape") || dlcOpIs(alloc, "memref.expand_shape")) {
    view = alloc;
    if (!mlirValueIsAOpResult(mlirOperationGetOperand(view, 0)))
      return false;
    alloc = mlirOpResultGetOwner(mlirOperationGetOperand(view, 0));
    if (!mlirOpOperandIsNull(mlirOpOperandGetNextUse(mlirValueGetFirstUse(src))))
      return false; /* the view has users besides the copy */
  }
  if (!isStaticAlloc(alloc) || !mlirBlockEqual(mlirOperationGetBlock(alloc), block))
    return false;
  MlirValue tmp = mlirOperationGetResult(alloc, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(tmp); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (dlcOpIs(user, "memref.dealloc") || (!mlirOperationIsNull(view) && mlirOperationEqual(user, view)))
      continue;
    MlirOperation top = ancestorIn(user, block);
    if (mlirOperationIsNull(top) || !isBefore(top, copy))
      return false;
  }
  MlirValue replacement = out;
  if (!mlirOperationIsNull(view)) { /* the inverse reshape of %out, where %tmp was */
    DlcBuilder b = dlcBuilderBefore(alloc, mlirOperationGetLocation(alloc));
    MlirContext ctx = mlirOperationGetContext(copy);
    MlirType t = mlirValueGetType(tmp);
    bool collapse = dlcOpIs(view, "memref.expand_shape");
    MlirAttribute reassoc = mlirOperationGetAttributeByName(view, str("reassociation"));
    intptr_t rank = mlirShapedTypeGetRank(t);
    int64_t dims[16];
    if (rank > 16)
      return false;
    for (intptr_t i = 0; i < rank; ++i)
      dims[i] = mlirShapedTypeGetDimSize(t, i);
    MlirOperation inverse =
        collapse ? dlcBuildOpTyped(&b, "memref.collapse_shape", 1, &out, 1, &t,
                                   DLC_ATTRS(dlcNamed(ctx, "reassociation", reassoc)))
                 : dlcBuildOpTyped(&b, "memref.expand_shape", 1, &out, 1, &t,
                                   DLC_ATTRS(dlcNamed(ctx, "reassociation", reassoc),
                                             dlcNamedI64Array(ctx, "static_output_shape", rank, dims)));
    if (mlirOperationIsNull(inverse))
      return false;
    replacement = mlirOperationGetResult(inverse, 0);
  }
  mlirOperationDestroy(copy);
  if (!mlirOperationIsNull(view))
    mlirOperationDestroy(view);
  eraseDeallocs(tmp);
  mlirValueReplaceAllUsesOfWith(tmp, replacement);
  mlirOperationDestroy(alloc);
  return true;
}

/*--- The pass ----------------------------------------------------------------------*/

static bool atFunctionTop(MlirOperation op) {
  MlirOperation parent = mlirOperationGetParentOperation(op);
  return !mlirOperationIsNull(parent) && dlcOpIs(parent, "func.func");
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  uint64_t elided = 0;
  DlcOpList copies = dlcOpListOfWalk(module, "memref.copy");
  for (intptr_t i = 0; i < copies.n; ++i)
    elided += atFunctionTop(copies.ops[i]) && elideIntoOutParam(copies.ops[i]);
  dlcOpListFree(&copies);
  dlcPassAddStatistic(pass, "elided-copies", elided);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStatistics[] = {
    {"elided-copies", "Copies into out-parameters removed by computing there directly"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
}

const DlcPassDescriptor dlcStaticBuffersPass = {
    .argument = "dlc-static-buffers",
    .summary = "Compute results in their out-parameters instead of copying them there",
    .anchor = "builtin.module",
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
