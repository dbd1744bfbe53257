/* The vector tile of a transposing copy: a copy whose input's contiguous
   dim is not the innermost loop (the transposed B of the attention score
   GEMM, K^T packed from K[s][h*d]).

   The plain vector tile (schedule/script.h, dlcScriptVectorTile) tiles
   only the innermost loop, so such a copy reads a 1-D strided vector.
   MLIR lowers that read to a loop of dynamic-index insertelements into a
   vector<64xf32>, which LLVM compiles to a spill, a scalar store and a
   reload of the whole vector for every element: a store-forwarding stall
   per element. A square vw x vw tile instead reads vw contiguous vectors
   and transposes them in registers (the unit loops folded first, so the
   permutation patterns apply). Measured on the AVX-512 machine of issue
   15, loaded, 1 thread, best of 100: BERT's score GEMM with its K^T copy
   0.22-0.26 -> 0.15 ms (as fast as on a pre-transposed K), the K^T
   transpose alone 0.081-0.087 -> 0.018-0.019 ms. */

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

/* The same test for any number of operands: the loop that walks the
   contiguous dim of `o`'s operand 0 (a direct conv's copy back to NCHW,
   which also reads its epilogue's inputs), or -1. */
int dlcTransposedReadLoop(const DlcLinalgInfo *o, const int64_t *ext, int64_t vectorWidth);

/* Vector-tiles `o` (handle `h`, loop extents `ext`) with a t x vw block,
   t = the vector tile of loop `inner` (from dlcTransposeCopyLoop), every
   other loop by 1, and vectorises it. */
void dlcScriptTransposeTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                            int inner, int64_t vectorWidth);

/* A direct conv's copy back to NCHW (`o` reads Y3[.., ow, n], `inner` the
   loop of n, as dlcTransposedReadLoop): whole vw x vw blocks over the
   first floor(Wo / vw) * vw pixels of each row, then one narrower block
   for the rest (split off), so the output and the residual move as full
   vectors along ow; the 16 x 16 blocks (AVX-512) transposed by the
   unpack / shuffle sequence. A row narrower than a vector, or a channel
   panel no vector multiple, takes dlcScriptTransposeTile's blocks. */
void dlcScriptConvCopyBackTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                               int inner, int64_t vectorWidth);

#endif
