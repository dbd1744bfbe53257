/* Views of a memref: ops whose result aliases their first operand's
   buffer (subviews, casts, reshapes), and the buffer a chain of them is
   of. Shared by the passes that ask what a load or store really touches
   (dlc-streaming-stores, dlc-gpu-rows), and the subviews of the loop
   nests that packed-panel GEMMs and direct convs become
   (dlc-gemm-fuse-packing, dlc-gemm-prefetch-panels,
   dlc-conv-prefetch-weights). */

#ifndef DLC_PASSES_SUPPORT_MEMREF_VIEWS_H
#define DLC_PASSES_SUPPORT_MEMREF_VIEWS_H

#include "dlc-c/Builder.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "support/index_ops.h"

#include <stdbool.h>
#include <stddef.h>

static inline bool dlcIsMemrefView(MlirOperation op) {
  static const char *const kViews[] = {"memref.subview", "memref.cast", "memref.reinterpret_cast",
                                       "memref.collapse_shape", "memref.expand_shape"};
  return DLC_OP_IS_ANY(op, kViews);
}

/* Whether memref type `t` has the identity layout (none, or an identity
   map): dense rows in order, so its size and offsets follow from its shape. */
static inline bool dlcMemRefIsIdentityLayout(MlirType t) {
  MlirAttribute layout = mlirMemRefTypeGetLayout(t);
  return mlirAttributeIsNull(layout) ||
         (mlirAttributeIsAAffineMap(layout) &&
          mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout)));
}

/* The buffer `m` is a view of, through at most 32 views. */
static inline MlirValue dlcMemrefRoot(MlirValue m) {
  for (int guard = 0; guard < 32 && mlirValueIsAOpResult(m); ++guard) {
    MlirOperation d = mlirOpResultGetOwner(m);
    if (!dlcIsMemrefView(d))
      break;
    m = mlirOperationGetOperand(d, 0);
  }
  return m;
}

/* A memref.subview of rank `rank` with unit strides and a
   dynamic offset exactly in the dims of `dyn` (a bit mask), the others 0;
   writes its static sizes (false if any is not positive). Its dynamic
   offsets are then operands 1, 2, ... */
static inline bool dlcSubviewN(MlirOperation sv, intptr_t rank, unsigned dyn, int64_t *sizes) {
  if (!dlcOpIs(sv, "memref.subview") ||
      mlirOperationGetNumOperands(sv) != 1 + __builtin_popcount(dyn) ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(sv, 0))) != rank)
    return false;
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t off = dlcI64ArrayAt(sv, "static_offsets", i);
    bool isDyn = (dyn >> i) & 1;
    if (isDyn != mlirShapedTypeIsDynamicStrideOrOffset(off) || (!isDyn && off != 0) ||
        dlcI64ArrayAt(sv, "static_strides", i) != 1)
      return false;
    sizes[i] = dlcI64ArrayAt(sv, "static_sizes", i);
    if (sizes[i] <= 0)
      return false;
  }
  return true;
}

/* The rank-3 ones of the packed-panel GEMM's loop nests. */
static inline bool dlcSubview3(MlirOperation sv, unsigned dyn, int64_t sizes[3]) {
  return dlcSubviewN(sv, 3, dyn, sizes);
}

#endif
