/* Index arithmetic for passes that rewrite loops after bufferization
   (dlc-gemm-fuse-packing, dlc-gemm-prefetch-panels, dlc-gemm-pack-a): constants and binary arith
   ops on `index` values, built at a DlcBuilder's insertion point, and the
   static indices such ops carry (a subview's offsets, a permutation). */

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

/* arith.cmpi `predicate` (arith's numbering: 0 eq, 6 ult ...) of index
   values x and y: an i1 */
static inline MlirValue dlcIndexCmp(DlcBuilder *b, int64_t predicate, MlirValue x, MlirValue y) {
  MlirType i1 = mlirIntegerTypeGet(b->context, 1);
  MlirAttribute pred = mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), predicate);
  return mlirOperationGetResult(dlcBuildOpTyped(b, "arith.cmpi", DLC_VALUES(x, y), 1, &i1,
                                                DLC_ATTRS(dlcNamed(b->context, "predicate", pred))),
                                0);
}
enum { DLC_CMPI_EQ = 0, DLC_CMPI_ULT = 6 };

/* arith.select c ? t : f of index values */
static inline MlirValue dlcIndexSelect(DlcBuilder *b, MlirValue c, MlirValue t, MlirValue f) {
  MlirType index = mlirIndexTypeGet(b->context);
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "arith.select", DLC_VALUES(c, t, f), 1, &index, DLC_NO_ATTRS), 0);
}

/* Element `i` of `op`'s dense i64 array attribute `name` (static_offsets,
   static_sizes, permutation ...); the op must have it. */
static inline int64_t dlcI64ArrayAt(MlirOperation op, const char *name, intptr_t i) {
  return mlirDenseI64ArrayGetElement(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)), i);
}

#endif
