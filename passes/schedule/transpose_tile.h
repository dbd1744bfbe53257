/* The vector tile of a transposing copy: a copy whose input's contiguous
   dim is not the innermost loop (the transposed B of the attention score
   GEMM, K^T packed from K[s][h*d]).

   The plain vector tile (schedule/script.h, dlcScriptVectorTile) tiles
   only the innermost loop, so such a copy reads a 1-D strided vector.
   MLIR lowers that read to a loop of dynamic-index insertelements into a
   vector<64xf32>, which LLVM compiles to a spill, a scalar store and a
   reload of the whole vector for every element: a store-forwarding stall
   per element (the attention score GEMM ran at 20-30 GFLOP/s against 130
   for P x V, 1.1 ms of its 1.3 ms in this copy). A square vw x vw tile
   instead reads vw contiguous vectors and transposes them in registers. */

#ifndef DLC_PASSES_SCHEDULE_TRANSPOSE_TILE_H
#define DLC_PASSES_SCHEDULE_TRANSPOSE_TILE_H

#include "schedule/analysis.h"
#include "schedule/script.h"

#include <stdbool.h>
#include <stdint.h>

/* The loop that walks the contiguous dim of `o`'s input, when `o` is a
   vectorisable one-input copy with only parallel loops whose input's last
   index is a loop other than the innermost one, both with extents (in
   `ext`) that a vector tile divides; -1 otherwise. */
int dlcTransposeCopyLoop(const DlcLinalgInfo *o, const int64_t *ext, int64_t vectorWidth);

/* Vector-tiles `o` (handle `h`, loop extents `ext`) with a t x vw block,
   t = the vector tile of loop `inner` (from dlcTransposeCopyLoop), every
   other loop by 1, and vectorises it. */
void dlcScriptTransposeTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                            int inner, int64_t vectorWidth);

#endif
