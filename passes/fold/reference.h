/* C reference kernels of dlg ops over host tensors, for constant folding.

   They favour obvious correctness over speed: one loop per output element
   with explicit index arithmetic, floats computed in double and rounded to
   the result's element type once. An op is evaluated only where its
   meaning is fully defined; integer division by zero, float -> int casts of
   NaN or out-of-range values and out-of-range gather indices are left to
   run time (where they are the program's bug) rather than folded into an
   arbitrary constant. */
#ifndef DLC_PASSES_FOLD_REFERENCE_H
#define DLC_PASSES_FOLD_REFERENCE_H

#include "fold/host_tensor.h"

/* Whether dlcReferenceEvaluate knows the op (by name, e.g. "dlg.add"). */
bool dlcReferenceSupports(MlirOperation op);

/* Evaluates `op` (one result, of static type) on its operands' values.
   False, with `result` left empty, when the op, its types or its values
   cannot be folded exactly, or the result exceeds `maxElements`. */
bool dlcReferenceEvaluate(MlirOperation op, const DlcHostTensor *operands,
                          intptr_t numOperands, int64_t maxElements,
                          DlcHostTensor *result);

#endif /* DLC_PASSES_FOLD_REFERENCE_H */
