/* Index arithmetic for passes that rewrite loops after bufferization
   (dlc-gemm-fuse-packing, dlc-gemm-pack-a): constants and binary arith
   ops on `index` values, built at a DlcBuilder's insertion point. */

#ifndef DLC_PASSES_SUPPORT_INDEX_OPS_H
#define DLC_PASSES_SUPPORT_INDEX_OPS_H

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>

/* arith.constant `v` : index */
static inline MlirValue dlcIndexConst(DlcBuilder *b, int64_t v) {
  MlirType t = mlirIndexTypeGet(b->context);
  return dlcBuildValue(b, "arith.constant", 0, NULL,
                       DLC_ATTRS(dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v))));
}

/* `op` (arith.addi, arith.muli, arith.divui ...) of x and y */
static inline MlirValue dlcIndexOp(DlcBuilder *b, const char *op, MlirValue x, MlirValue y) {
  return dlcBuildValue(b, op, DLC_VALUES(x, y), DLC_NO_ATTRS);
}

#endif
