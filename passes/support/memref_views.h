/* Views of a memref: ops whose result aliases their first operand's
   buffer (subviews, casts, reshapes), and the buffer a chain of them is
   of. Shared by the passes that ask what a load or store really touches
   (dlc-streaming-stores, dlc-gpu-rows). */

#ifndef DLC_PASSES_SUPPORT_MEMREF_VIEWS_H
#define DLC_PASSES_SUPPORT_MEMREF_VIEWS_H

#include "dlc-c/Builder.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

static inline bool dlcIsMemrefView(MlirOperation op) {
  static const char *const kViews[] = {"memref.subview", "memref.cast", "memref.reinterpret_cast",
                                       "memref.collapse_shape", "memref.expand_shape"};
  for (size_t k = 0; k < sizeof kViews / sizeof kViews[0]; ++k)
    if (dlcOpIs(op, kViews[k]))
      return true;
  return false;
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

#endif
