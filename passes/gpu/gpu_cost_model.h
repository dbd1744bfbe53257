/* The GPU cost model: picks the GPU fields of a #dlk.schedule (workgroup
   and thread tiles, vector width) for a kernel from its loop extents, for
   an H100 (sm_90: 132 SMs, 1024 threads a block, 128-bit global accesses).

   Three strategies (docs/gpu.md):

   ELEMENTWISE  every loop parallel: each thread writes `vector` contiguous
                elements of the innermost loop (128-bit accesses when it
                divides), threads along the innermost loops, up to 256 a
                block, fewer when that leaves under two blocks per SM.
   ROWS         the sink reduces its trailing loops, or reads values that a
                producer of the group reduced (softmax, norms): a row's
                innermost loop spread over `lanes` threads of one warp
                (dlcGpuRowLanes; recorded as that loop's thread tile,
                extent / lanes), the partial reductions combined by warp
                shuffles; short rows (or a row loop innermost) keep one
                thread per row, the row's loops whole in the thread.
   GEMM         a contraction [batch..., m, n, k]: an Wm x Wn block tile
                (64 x 64 down to 16 x 16, so that the grid covers the SMs),
                a 4 x 4 register tile per thread accumulated over k with
                FFMA (exact f32).

   Every tile divides its extent, so every tile is static. */

#ifndef DLC_PASSES_GPU_COST_MODEL_H
#define DLC_PASSES_GPU_COST_MODEL_H

#include "dlc-c/Dialects.h"
#include "schedule/cost_model.h"

enum { kGpuSMs = 132, kGpuMaxThreads = 1024, kGpuWarp = 32 };

typedef enum { DLC_GPU_ELEMENTWISE, DLC_GPU_ROWS, DLC_GPU_GEMM } DlcGpuStrategy;

/* Fills out->workgroup/thread/vectorWidth for `nest` (the sink's loops, or
   the root's for a GEMM). `rowDims[d]` marks the loops a ROWS strategy
   spreads over threads; `elementBits` is the sink's element width. */
void dlcGpuSchedule(const DlcLoopNest *nest, DlcGpuStrategy strategy, const bool *rowDims,
                    int elementBits, DlcSchedule *out);

/* Lanes per row for a ROWS kernel over `nest` (1: one thread per row). */
int64_t dlcGpuRowLanes(const DlcLoopNest *nest, const bool *rowDims, int elementBits);

/* Threads per block in x, y, z of a schedule over `nest`: the thread-tiled
   loops, innermost first. False when the tiles do not fit the nest. */
bool dlcGpuBlockDims(const DlcLoopNest *nest, const DlcSchedule *s, int64_t dims[3]);

#endif
