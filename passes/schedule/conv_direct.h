/* Direct convolution on the CPU: the strategy that lowers a stride-1
   conv2d (any kernel size, 1x1 included) without a materialised im2col,
   and the loop nest's recognition and register tile.

   The lowering (passes/lowering/contraction.c) packs W into output-channel
   panels Wp [O/NR][C][kH][kW][NR] and accumulates, over loops
       (image, panel, oh, ow, n | c, kh, kw)
   Y3[image][panel][oh][ow][n] += x[image][c][oh*s + kh*d][ow + kw*d] * Wp[panel][c][kh][kw][n],
   i.e. for each kernel tap one GEMM step whose A operand is read in place
   from the (padded) input: a row of MR output pixels of x (contiguous, as
   the horizontal stride is 1) times a row of NR output channels of Wp.
   Y3 is the blocked layout NCHW[NR]c; the copy back to NCHW runs in the
   same parallel tile, with the epilogue (bias, batch norm, activation,
   residual) that elementwise fusion merges into it.

   Keeping Y3 blocked between convs (an NCHW[NR]c layout pass, issue 15)
   was measured first and not built: its ceiling is small and at two
   threads there is none. A build whose copy back kept Y3's order (wrong
   values, same work otherwise) ran, interleaved best of 60-300 on thread
   CPU time, loaded machine: the ResNet basic block 1.05x and ResNet-50
   1.06-1.07x faster at 1 thread, but 0.98-0.99x and 0.97-0.99x at 2
   (wall time). A layout pass could only drop the copies between convs,
   not those at the model's edges or before stride-2 (im2col) convs.
   Per conv (conv + bias + relu, constant weights, 1 thread) that build
   ran 0.97-1.01x on 3x3 convs and 1.01-1.13x on 1x1 convs, most where
   the output is large for the work (64 -> 256 at 56x56: 1.13x), and with
   a residual add in the epilogue 1.26x there and 1.16x for 128 -> 512 at
   28x28. In that
   build the epilogue no longer fused into the conv's tile: it ran as a
   second pass streaming whole contiguous rows. So what the figures point
   at is the fused copy back's memory traffic (each tile reads the residual
   and writes the output in 16 x 14 transposed blocks over P x NR channel
   planes, while the 1x1 convs have little arithmetic to hide it behind),
   not a second layout. A consumer conv reading a blocked x would save
   nothing by itself: it reads x by scalar broadcasts and copies its
   padded rows either way.

   That copy back was then made cheap in place (transpose_tile.h,
   dlcScriptConvCopyBackTile). perf annotate of 1x1 64 -> 256 at 56x56 +
   bias + residual + relu (AOT, 1 thread) put 38% of the kernel in it: its
   14 x 16 blocks (Wo = 56 = 4 x 14) were each one 224-lane shuffle that
   LLVM compiled to ~100 vpermt2ps with their index vectors reloaded and
   spilled, and 14-float rows written (and the residual read) in three
   pieces: 668 instructions per block, 3.0 per output float. Rows now go
   in whole 16 x 16 blocks (the unpack / shuffle transpose, 64 shuffles,
   full-vector stores and residual loads) with the rest of the row split
   off as one narrower block: 0.95 instructions per float at Wo = 56, the
   copy back 24% of the kernel, its hottest instructions the residual's
   loads (memory speed, ~40 GB/s). Measured, loaded machine, one process,
   interleaved best of 40-60 against the old blocks (bit-identical
   results): that conv 1.16-1.30x at 1 thread and 1.18x at 2, batch 2
   1.22-1.25x, 128 -> 512 at 28x28 + residual (16 + 12 pixels a row)
   1.02-1.08x, 256 -> 64 at 56x56 + bias + relu 1.06x, 3x3 convs within
   noise (0.99-1.01x). Rows narrower than a vector (Wo = 14, 7) keep their
   blocks: lowering those transposes by one shuffle (shuffle_1d) ran
   256 -> 1024 at 14x14 1.05-1.09x faster but ResNet-50 0.98x at 1 and 2
   threads, so it is not done. What is left there is the narrow rows
   themselves; a copy back over a tile's flattened (oh, ow) pixels, which
   are contiguous per channel, would give them whole blocks too.

   The schedule tiles (image, panel, oh) across threads, then each output
   row into MR x NR register tiles (MR pixels of ow by NR channels, NR/vw
   vectors) and the three reduction loops by (cStep, 1, 1); the unit loops
   fold away so the tile vectorises to outer products, and the
   accumulators stay in registers across all of c, kh, kw. */

#ifndef DLC_PASSES_SCHEDULE_CONV_DIRECT_H
#define DLC_PASSES_SCHEDULE_CONV_DIRECT_H

#include "schedule/analysis.h"
#include "schedule/cost_model.h"
#include "schedule/gemm_packing.h"

#include "dlc-c/Shape.h"

/* Loops of the direct conv's root. */
enum { DLC_CONV_IMAGE, DLC_CONV_PANEL, DLC_CONV_OH, DLC_CONV_OW, DLC_CONV_N, DLC_CONV_C,
       DLC_CONV_KH, DLC_CONV_KW, DLC_CONV_LOOPS };

/* The output-channel panel width NR of a direct conv2d (input x, weight w,
   output y, static f32 NCHW when `f32`, `strides` [sh, sw]), 0 when the
   conv takes another path: grouped convs, a horizontal stride other than
   1, or output channels no vector multiple (down to half a vector)
   divides. */
int64_t dlcConvDirectPanel(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                           const DlcShape *y, int64_t groups, bool f32, const int64_t *strides);

/* Whether `info` is the direct conv's root generic: the loops above, x read
   at (image, c, oh*s + kh*d, ow + kw*d), Wp at (panel, c, kh, kw, n), Y3 at
   the five parallel loops in order, and a multiply-add body. */
bool dlcIsDirectConvRoot(const DlcLinalgInfo *info);

/* The cost model's schedule for a direct conv root: tiles over
   (image, panel, oh) in parallel, the register tile [MR, NR] with MR
   dividing Wo. */
void dlcScheduleDirectConv(const DlcLoopNest *root, const DlcCpuTarget *t, DlcSchedule *out);

/* Depthwise conv2d (groups = C = O), loops (image, c, oh, ow | kh, kw):
   each output row in whole vectors (up to four of them per accumulator)
   and power-of-two pieces of what is left, each a row of x read in place
   (the horizontal stride is 1) times the broadcast tap weight, one FMA per
   tap, the taps unrolled with the accumulators in registers. */
enum { DLC_DW_IMAGE, DLC_DW_C, DLC_DW_OH, DLC_DW_OW, DLC_DW_KH, DLC_DW_KW, DLC_DW_LOOPS };

/* Whether a conv2d takes the depthwise path: static f32 NCHW, one channel
   per group, horizontal stride 1, on a target that packs (the CPU). */
bool dlcConvDepthwise(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                      const DlcShape *y, int64_t groups, bool f32, const int64_t *strides);

/* Whether `info` is the depthwise conv's root generic: the loops above, x
   read at (image, c, oh*s + kh*d, ow + kw*d), w at (c, 0, kh, kw), the
   output at the four parallel loops in order, and a multiply-add body. */
bool dlcIsDepthwiseConvRoot(const DlcLinalgInfo *info);

/* The cost model's schedule for a depthwise root: parallel tiles over
   (image, c), each as many whole output planes as fit half of L1. */
void dlcScheduleDepthwiseConv(const DlcLoopNest *root, const DlcCpuTarget *t, DlcSchedule *out);

#endif
