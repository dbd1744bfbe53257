/* The tensor-core contraction strategy (docs/gpu.md, "Contractions"):
   a GEMM kernel whose operands are f16 or bf16 (or f32 with allow-tf32)
   is tiled into blocks and, inside a block, one tile per warp; after
   bufferisation dlc-gpu-mma replaces each warp's contraction by
   nvgpu.mma.sync instructions whose accumulators stay in registers, the
   epilogue (bias, activation, residual) applied to them in registers. */

#ifndef DLC_PASSES_GPU_CONTRACTION_H
#define DLC_PASSES_GPU_CONTRACTION_H

#include "dlc-c/Dialects.h"
#include "schedule/analysis.h"

enum {
  kGpuWarpSize = 32,
  kGpuSmemBytes = 48 * 1024, /* static shared memory a block may declare */
  kGpuSmemPadBytes = 16,     /* per row of a staged tile: conflict-free ldmatrix */
};

/* The k extent of the tiles staged in shared memory a pipeline stage:
   two mma k steps when K allows, else one. */
int64_t dlcGpuMmaKTile(int64_t k, int64_t mmaK);

/* Shared memory of `stages` A [bm x bk] and B [bk x bn] tiles, each row
   padded by kGpuSmemPadBytes. */
int64_t dlcGpuMmaSmemBytes(int64_t bm, int64_t bn, int64_t bk, int64_t stages, int64_t eltBytes);

/* A contraction body out + a * b (the inputs perhaps extended first). */
bool dlcGpuMultiplyAdds(MlirOperation op);

/* dlc-gpu-schedule's options for contractions. */
typedef struct {
  bool allowTf32;   /* f32 on TF32 tensor cores */
  bool tensorCores; /* the chip has mma.sync and cp.async (sm_80+) */
  bool wgmma;       /* the chip has wgmma.mma_async (sm_90a; gpu_wgmma.h) */
} DlcGpuMmaOptions;

/* The mma.sync shape for `root` (a GEMM root) from its element types:
   [16, 8, 16] for f16 x f16 and bf16 x bf16, [16, 8, 8] (TF32) for f32 x f32
   when `allowTf32`. False, with `why` set, when the root cannot use tensor
   cores (its types, maps or extents); `why` is NULL for f32 without
   allow-tf32 (exact FFMA, by choice). */
bool dlcGpuMmaFor(const DlcLinalgInfo *root, bool allowTf32, int64_t mma[3], const char **why);

/* Whether a given `mma` shape suits `root`; else an error message in
   `msg` (`n` bytes). */
bool dlcGpuMmaCheck(const DlcLinalgInfo *root, bool allowTf32, const DlcSchedule *s, char *msg,
                    size_t n);

/* The cost model's tensor-core schedule: block tile, warp tile (`thread`),
   `mma`, over the root's loops. */
void dlcGpuMmaSchedule(const DlcLoopNest *l, const int64_t mma[3], DlcSchedule *s);

/* Threads of a block of a tensor-core schedule: 32 per warp along n in
   x, the warps along m in y. */
bool dlcGpuMmaBlockDims(const DlcLoopNest *l, const DlcSchedule *s, int64_t dims[3]);

#endif
