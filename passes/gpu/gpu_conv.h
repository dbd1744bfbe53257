/* The implicit-GEMM conv2d strategy (docs/gpu.md, "Convolutions as
   implicit GEMM"): a conv root [n, o, ho, wo | c, kh, kw] is a GEMM with
   M = o (out channels), N = the block's output pixels (ho x wo flattened;
   n tiled by one), K = c * kh * kw. The schedule stage tiles it into
   blocks of [1, BO, TH] (wo whole, so a block's pixels are contiguous in
   the flattened order) with the epilogue fused; after bufferisation
   dlc-gpu-conv replaces each block's conv by warp tiles that stage the
   weights [BO x 16] and the input gathered by the im2col index
   arithmetic [16 x pixels] in shared memory each k step, then run
   mma.sync (f16 / bf16) or exact f32 FFMA on them, the accumulators kept
   in registers and the bias / BN / ReLU / residual epilogue applied to
   them before the one store. No im2col buffer exists in global memory. */

#ifndef DLC_PASSES_GPU_CONV_H
#define DLC_PASSES_GPU_CONV_H

#include "gpu/gpu_contraction.h"
#include "schedule/driver.h"

/* [warp m, warp n (pixels), mma k (0: FFMA), stride h, w, dilation h, w,
   padded pixels a block] of a block forall that dlc-gpu-conv rewrites */
#define DLC_ATTR_CONV "dlc.conv"

enum { kGpuConvKTile = 16 };

/* A conv root, read from its maps. */
typedef struct {
  int64_t extent[7]; /* n, o, ho, wo, c, kh, kw */
  int64_t stride[2], dilation[2];
  bool f16;          /* f16 or bf16 operands: mma.sync m16n8k16 can apply */
} DlcGpuConv;

/* Whether `root` is a conv2d root (NCHW input read at (n, c, ho * s + kh
   * d, wo * s + kw * d), FCHW weights, NCHW output, multiply-add body). */
bool dlcGpuConvOf(const DlcLinalgInfo *root, DlcGpuConv *c);

/* Whether the group `ops` (n ops, the conv at `conv`) is what dlc-gpu-conv
   rewrites: the conv's init, the conv, at most one elementwise epilogue
   (no producer of its input or weights fused in). Else the direct strategy. */
bool dlcGpuConvGroupOk(const DlcLinalgInfo *ops, int n, int conv);

/* The cost model's schedule for a conv root, or checks a given one (false
   with a located error through `st`). `mmaOk`: the chip has tensor cores.
   `direct`: no implicit-GEMM tiling exists for this conv (out channels not
   a multiple of 16, or a block's pixels over 32 warps): the conv keeps the
   direct strategy, one output element a thread. */
bool dlcGpuConvSchedule(DlcScheduleState *st, MlirOperation func, const DlcGpuConv *c,
                        const DlcSchedule *given, bool mmaOk, DlcSchedule *out, bool *direct);

/* The block forall of the group (the epilogue fused), annotated with the
   block's threads and DLC_ATTR_CONV for dlc-gpu-conv. */
void dlcGpuConvEmit(DlcScript *s, DlcScheduleGroup *g, const DlcGpuConv *c);

#endif
