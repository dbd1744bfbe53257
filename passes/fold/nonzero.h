/* The C reference kernel of dlg.non_zero, for constant folding
   (--dlg-fold-constants): the same row-major scan as its lowering
   (lowering/nonzero.c). */
#ifndef DLC_PASSES_FOLD_NONZERO_H
#define DLC_PASSES_FOLD_NONZERO_H

#include "fold/host_tensor.h"

/* Evaluates `op` (a dlg.non_zero of a static type) on `x` into out[0] (the
   padded [rank, elements] i64 indices) and out[1] (the 0-d i64 count).
   False, with `out` left empty, when a result exceeds `maxElements` or the
   types are not static. */
bool dlcReferenceNonZero(MlirOperation op, const DlcHostTensor *x, int64_t maxElements,
                         DlcHostTensor out[2]);

#endif /* DLC_PASSES_FOLD_NONZERO_H */
