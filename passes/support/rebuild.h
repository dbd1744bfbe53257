/* An op rebuilt with other operands or more results: the C API cannot
   change an op's result list in place, so the passes that need that
   (dlk-to-linalg's control flow to scf, dlg-runtime-checks' status
   results) create a new op that takes over the old one's regions. */

#ifndef DLC_PASSES_SUPPORT_REBUILD_H
#define DLC_PASSES_SUPPORT_REBUILD_H

#include "mlir-c/IR.h"
#include "shape/Checked.h"

#include <stdbool.h>
#include <stdlib.h>

enum { DLC_REBUILD_MAX_REGIONS = 2 };

/* An op named `name` on `operands`, with result types `types`, `op`'s
   attributes when `keepAttrs`, and `op`'s regions (at most
   DLC_REBUILD_MAX_REGIONS) moved into it; inserted before `op`, whose
   results keep their uses. `op` stays, its regions empty, for the caller
   to erase. */
static inline MlirOperation dlcCreateTakingRegions(MlirOperation op, MlirStringRef name,
                                                   intptr_t nOperands, const MlirValue *operands,
                                                   intptr_t nResults, const MlirType *types,
                                                   bool keepAttrs) {
  intptr_t nReg = mlirOperationGetNumRegions(op);
  intptr_t nAttrs = keepAttrs ? mlirOperationGetNumAttributes(op) : 0;
  MlirNamedAttribute *attrs = dlcXmalloc(sizeof *attrs * (size_t)(nAttrs + 1));
  for (intptr_t i = 0; i < nAttrs; ++i)
    attrs[i] = mlirOperationGetAttribute(op, i);
  MlirRegion regions[DLC_REBUILD_MAX_REGIONS];
  for (intptr_t r = 0; r < nReg; ++r) {
    regions[r] = mlirRegionCreate();
    mlirRegionTakeBody(regions[r], mlirOperationGetRegion(op, r));
  }
  MlirOperationState st = mlirOperationStateGet(name, mlirOperationGetLocation(op));
  mlirOperationStateAddOperands(&st, nOperands, operands);
  mlirOperationStateAddResults(&st, nResults, types);
  mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  mlirOperationStateAddOwnedRegions(&st, nReg, regions);
  MlirOperation out = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, out);
  free(attrs);
  return out;
}

/* The same with `op`'s result types followed by the `nExtra` of `extra`;
   `op`'s results' uses move to the new op's first results. */
static inline MlirOperation dlcRebuildTakingRegions(MlirOperation op, MlirStringRef name,
                                                    intptr_t nOperands, const MlirValue *operands,
                                                    intptr_t nExtra, const MlirType *extra,
                                                    bool keepAttrs) {
  intptr_t nRes = mlirOperationGetNumResults(op);
  MlirType *types = dlcXmalloc(sizeof *types * (size_t)(nRes + nExtra + 1));
  for (intptr_t i = 0; i < nRes; ++i)
    types[i] = mlirValueGetType(mlirOperationGetResult(op, i));
  for (intptr_t i = 0; i < nExtra; ++i)
    types[nRes + i] = extra[i];
  MlirOperation out =
      dlcCreateTakingRegions(op, name, nOperands, operands, nRes + nExtra, types, keepAttrs);
  for (intptr_t i = 0; i < nRes; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), mlirOperationGetResult(out, i));
  free(types);
  return out;
}

#endif
