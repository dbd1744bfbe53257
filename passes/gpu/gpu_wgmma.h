/* The Hopper (sm_90a) contraction strategy: one warpgroup (128 threads,
   4 warps) a block computes a 64 x N tile with wgmma.mma_async m64nNk16,
   A and B read by the tensor cores from shared memory through matrix
   descriptors (docs/gpu.md, "Hopper: wgmma"). The schedule records it as
   `mma = [64, N, 16]`; the block tile and the thread tile (the
   warpgroup's) are both [.., 64, N]. */

#ifndef DLC_PASSES_GPU_WGMMA_H
#define DLC_PASSES_GPU_WGMMA_H

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "schedule/analysis.h"

enum {
  kWgmmaM = 64,        /* rows of a warpgroup's tile */
  kWgmmaK = 16,        /* k of one wgmma (f16 / bf16) */
  kWgmmaThreads = 128, /* a warpgroup: the block */
};

/* The k extent staged a pipeline stage: 64, 32 or 16 (the largest
   dividing K whose two stages fit the block's shared memory). */
int64_t dlcGpuWgmmaKTile(int64_t k, int64_t bn);

/* Shared memory of `stages` A [64 x bk] and B [bk x bn] f16 / bf16 tiles
   (no padding: the core-matrix layout the descriptors describe). */
int64_t dlcGpuWgmmaSmemBytes(int64_t bn, int64_t bk, int64_t stages);

/* The shared-memory layouts the wgmma descriptors describe, in bytes
   (docs/gpu.md, "Hopper: wgmma"). cp.async: the no-swizzle canonical
   layouts. TMA: A's [64][BK] box K-major, rows of 2 BK bytes swizzled
   over 2 BK bytes (128B, 64B or 32B swizzle for BK 64, 32, 16); B's
   [BK][64] boxes N-major (rows of 128 bytes, 128B swizzle), N / 64 of
   them a stage. test/GPU/tma-layout.test checks what the pass emits
   from these against the TMA and wgmma address functions. */
typedef struct {
  int64_t lboA, sboA, stepA; /* A's LBO, SBO; bytes its descriptor advances a k16 step */
  int64_t lboB, sboB, stepB; /* the same for B */
  int64_t stageA, stageB;    /* bytes a stage of A, of B */
  int64_t swizzleA, swizzleB; /* bytes of the swizzle span (0: none) */
} DlcWgmmaLayout;

enum {
  kWgmmaTmaCols = 64,     /* B's box: 64 columns, 128 bytes, the 128B swizzle span */
  kWgmmaTmaSlack = 1024,  /* shared bytes TMA's stages leave: 1024-byte alignment, mbarriers */
};

DlcWgmmaLayout dlcGpuWgmmaLayout(int64_t bn, int64_t bk, bool tma);

/* The descriptor's layout type (bits 62-63) of a swizzle span in bytes:
   128 -> 1, 64 -> 2, 32 -> 3, none -> 0 (PTX ISA, "Matrix Descriptor"). */
int64_t dlcGpuWgmmaSwizzleCode(int64_t bytes);

/* BK of the TMA pipeline: 64, 32 or 16, the largest dividing k whose
   `stages` stages fit the static shared memory with kWgmmaTmaSlack
   spare; 0 if none does. */
int64_t dlcGpuWgmmaTmaKTile(int64_t k, int64_t bn, int64_t stages);

/* The cost model: a GEMM root with f16 / bf16 operands, m a multiple of
   64, k of 16, whose grid of 64 x N tiles (N = 128, else 64, dividing n)
   has at least half a block per SM gets a wgmma schedule in `s`.
   False (s untouched) otherwise: mma.sync then. */
bool dlcGpuWgmmaSchedule(const DlcLinalgInfo *root, DlcSchedule *s);

/* Whether the GEMM root ops[root]'s A and B are read from memory (kernel
   arguments), not computed by an op of its group (a fused producer, e.g.
   a transpose): wgmma reads its operands from shared memory, which only
   the cp.async of a loaded tile fills. */
bool dlcGpuWgmmaOperandsLoaded(const DlcLinalgInfo *ops, int n, int root);

/* Whether a given `mma = [64, N, 16]` schedule suits `root` on a chip
   with (`chipHasWgmma`) or without wgmma; else the reason in `msg`. */
bool dlcGpuWgmmaCheck(const DlcLinalgInfo *root, const DlcSchedule *s, bool chipHasWgmma,
                      char *msg, size_t n);

/*--- The rewrite (dlc-gpu-mma, gpu_mma.c reads the tile) -------------------------------*/

/* A warp (or warpgroup) forall's body as dlc-gpu-schedule leaves it:
   fill, contraction, at most one elementwise epilogue. */
typedef struct {
  MlirOperation warp, fill, gemm, epilogue;
  MlirValue acc; /* the contraction's output buffer */
  int64_t mma[3], stages, wm, wn, k;
  bool tf32;
} DlcMmaTile;

/* gpu_mma.c's helpers the wgmma rewrite shares. */
bool dlcMmaEpilogueAt(DlcBuilder *b, const DlcMmaTile *t, MlirValue value, const MlirValue *idx);
MlirValue dlcMmaBlockTile(MlirValue v, MlirOperation warp);
MlirValue dlcMmaConvert(DlcBuilder *b, MlirValue v, MlirType to);

/* Rewrites the warpgroup's tile `t` (mma[0] == 64) to wgmma.mma_async
   with a TMA pipeline into shared memory (128B swizzle, mbarriers) where
   both operands are row-major host buffers and BK is 64, else a cp.async
   pipeline (no swizzle), and inlines the warpgroup forall (one trip)
   into the block. False after an error. */
bool dlcGpuWgmmaRewrite(const DlcMmaTile *t);

#endif
