/* dlc-distinct-results: a public function returns each tensor once.

   The runtime's calling convention gives every result its own caller
   buffer (buffer-results-to-out-params). A function that returns the same
   value twice (`return %0, %0`) has two results but one buffer, and MLIR
   22's buffer-results-to-out-params crashes on it. So, still on tensors,
   each repeated result becomes a copy of the value
   (`bufferization.alloc_tensor() copy(%v)`), which bufferises to its own
   buffer: both caller buffers then hold the value, as the user asked.
   Function arguments returned twice take the same path, so every result
   is written by the function, never aliased. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Bufferization.h"

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__bufferization__(), registry);
}

/* Replaces operand i of `ret` by a copy when an earlier operand is the
   same tensor value. */
static MlirLogicalResult copyRepeats(MlirOperation ret) {
  MlirContext ctx = mlirOperationGetContext(ret);
  MlirAttribute segments = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(
                                                          "array<i32: 0, 1, 0>"));
  intptr_t n = mlirOperationGetNumOperands(ret);
  for (intptr_t i = 1; i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(v)))
      continue;
    bool repeated = false;
    for (intptr_t j = 0; j < i && !repeated; ++j)
      repeated = mlirValueEqual(mlirOperationGetOperand(ret, j), v);
    if (!repeated)
      continue;
    DlcBuilder b = dlcBuilderBefore(ret, mlirOperationGetLocation(ret));
    MlirType t = mlirValueGetType(v);
    MlirOperation copy = dlcBuildOpTyped(&b, "bufferization.alloc_tensor", DLC_VALUES(v), 1, &t,
                                         DLC_ATTRS(dlcNamed(ctx, "operandSegmentSizes", segments)));
    if (mlirOperationIsNull(copy))
      return (MlirLogicalResult){0};
    mlirOperationSetOperand(ret, i, mlirOperationGetResult(copy, 0));
  }
  return (MlirLogicalResult){1};
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  MlirAttribute vis =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_visibility"));
  if (!mlirAttributeIsNull(vis)) /* private: its results are not the caller's buffers */
    return (MlirLogicalResult){1};
  MlirRegion body = mlirOperationGetRegion(func, 0);
  for (MlirBlock b = mlirRegionGetFirstBlock(body); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b)) {
    MlirOperation last = mlirBlockGetTerminator(b);
    if (dlcOpIs(last, "func.return") && mlirLogicalResultIsFailure(copyRepeats(last)))
      return (MlirLogicalResult){0};
  }
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcDistinctResultsPass = {
    .argument = "dlc-distinct-results",
    .summary = "Give a tensor that a public function returns more than once a copy per "
               "extra result, so each result bufferizes to its own caller buffer",
    .anchor = "func.func",
    .getDependentDialects = dependentDialects,
    .run = run,
};
