/* Linalg as the schedule reads it (normalize.c): named transposes become
   linalg.generic (the schedule reads, tiles and fuses generics), and a
   contraction with several reduction loops (a reshape that split K,
   propagated into it by linalg-fuse-elementwise-ops) gets one, so the
   GEMM schedule tiles it with a single K loop and its register tiles
   vectorise. */

#ifndef DLC_PASSES_SCHEDULE_NORMALIZE_H
#define DLC_PASSES_SCHEDULE_NORMALIZE_H

#include "mlir-c/IR.h"

/* Rewrites the ops under `func`; returns how many. */
int dlcNormalizeForSchedule(MlirOperation func);

#endif
