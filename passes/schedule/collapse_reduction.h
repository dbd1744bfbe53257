/* Contractions with several reduction loops (a reshape that split K,
   propagated into the contraction by linalg-fuse-elementwise-ops) are
   rewritten to one reduction loop, so the GEMM schedule tiles them with a
   single K loop and their register tiles vectorise (collapse_reduction.c). */

#ifndef DLC_PASSES_SCHEDULE_COLLAPSE_REDUCTION_H
#define DLC_PASSES_SCHEDULE_COLLAPSE_REDUCTION_H

#include "mlir-c/IR.h"

/* Rewrites every such linalg.generic under `func`; returns how many. */
int dlcCollapseContractionReductions(MlirOperation func);

#endif
