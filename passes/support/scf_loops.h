/* scf.for facts for the passes that match loop nests after bufferization
   (dlc-gemm-fuse-packing, dlc-gemm-fuse-unpack, dlc-gemm-prefetch-panels,
   dlc-gpu-rows): a loop's
   induction variable, its constant bounds, and op ancestry. */
#ifndef DLC_PASSES_SUPPORT_SCF_LOOPS_H
#define DLC_PASSES_SUPPORT_SCF_LOOPS_H

#include "dlc-c/Builder.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/* The induction variable of an scf.for (its body's first argument). */
static inline MlirValue dlcForInductionVar(MlirOperation loop) {
  return mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), 0);
}

/* The scf.for whose induction variable `v` is (null otherwise). */
static inline MlirOperation dlcForOfInductionVar(MlirValue v) {
  if (!mlirValueIsABlockArgument(v) || mlirBlockArgumentGetArgNumber(v) != 0)
    return (MlirOperation){NULL};
  MlirOperation op = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  return dlcOpIs(op, "scf.for") ? op : (MlirOperation){NULL};
}

/* lb, ub and step of an scf.for whose three are constants, step > 0. */
static inline bool dlcForConstantBounds(MlirOperation loop, int64_t b[3]) {
  if (!dlcOpIs(loop, "scf.for"))
    return false;
  for (int i = 0; i < 3; ++i)
    if (!dlcConstantInt(mlirOperationGetOperand(loop, i), &b[i]))
      return false;
  return b[2] > 0;
}

/* The iterations of a loop with bounds `b` (lb, ub, step > 0, from
   dlcForConstantBounds). */
static inline int64_t dlcTripCount(const int64_t b[3]) { return (b[1] - b[0] + b[2] - 1) / b[2]; }

/* Whether `a` is `op` or holds it. */
static inline bool dlcOpIsAncestor(MlirOperation a, MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirOperationEqual(a, op))
      return true;
  return false;
}

/* Whether `v` is defined outside `op` (neither by it nor in its regions):
   an invariant of a loop `op`. */
static inline bool dlcDefinedOutside(MlirValue v, MlirOperation op) {
  MlirOperation owner = mlirValueIsAOpResult(v)
                            ? mlirOpResultGetOwner(v)
                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  return !dlcOpIsAncestor(op, owner);
}

#endif
