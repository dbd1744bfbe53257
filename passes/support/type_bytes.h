/* The bytes of a static shaped type's data, shared by the passes that size
   buffers (dlc-memory-plan) or decide by size (dlc-copy-to-linalg). */

#ifndef DLC_PASSES_SUPPORT_TYPE_BYTES_H
#define DLC_PASSES_SUPPORT_TYPE_BYTES_H

#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdint.h>

/* Bytes of a static memref or tensor of int, float or index elements
   (saturating), -1 else. */
static inline int64_t dlcStaticTypeBytes(MlirType t) {
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t n = mlirTypeIsAFloat(e)     ? mlirFloatTypeGetWidth(e) / 8
              : mlirTypeIsAInteger(e) ? (mlirIntegerTypeGetWidth(e) + 7) / 8
              : mlirTypeIsAIndex(e)   ? 8
                                      : -1;
  if (n < 0 || !mlirShapedTypeHasStaticShape(t))
    return -1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); ++i)
    n = dlcMulSaturate(n, mlirShapedTypeGetDimSize(t, i)); /* the verifier bounds real types */
  return n;
}

#endif
