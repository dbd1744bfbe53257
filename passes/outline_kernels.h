/* Kernel outlining (outline_kernels.c), shared by its pass and by
   --dlk-to-linalg, which runs it after lowering. */

#ifndef DLC_PASSES_OUTLINE_KERNELS_H
#define DLC_PASSES_OUTLINE_KERNELS_H

#include "mlir-c/IR.h"

/* Outlines every dlk.kernel of every func.func of `module` into a private
   function @<func>_kernel<i> (i-th kernel of the function in post-order),
   called in its place. */
void dlcOutlineKernels(MlirOperation module);

#endif
