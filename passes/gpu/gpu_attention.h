/* Fused scaled-dot-product attention on the GPU (docs/gpu.md, "Attention").

   dlc-gpu-attention runs on dlg, before fusion, in --lower-to-nvvm. It
   recognises

     softmax(matmul(Q, K^T) * scale [+ mask], axis = -1) . V

   (Q [.., s, d], K^T given as [.., d, sk] or as K [.., sk, d] with
   transpose_b, V [.., sk, dv], the same batch dims, f32; scale a constant
   scalar, by mul or div; mask any f32 tensor whose last dim is sk and whose
   other dims are 1 or the scores'), and replaces it by a call of one
   kernel function: one block per (batch*head, BQ query rows), one thread
   per query row, key blocks of BK keys with the online softmax (running
   max, running sum, accumulator rescaled per key block) in registers. The
   scores never exist as a tensor, so they never go to global memory.

   The choice is recorded as the kernel's #dlk.schedule over the loops
   [batch*head, query, key, d]: workgroup = [1, BQ, BK, 0] (a block: one
   batch*head, BQ query rows, keys visited BK at a time, d whole),
   thread = [1, 1, 0, 0] (a thread: one query row). A dlk.kernel holding
   the pattern overrides it with its `schedule`. */

#ifndef DLC_PASSES_GPU_ATTENTION_H
#define DLC_PASSES_GPU_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the kernel computes and how it is tiled. */
typedef struct {
  int64_t bh, s, sk, d, dv; /* batch*head, query rows, keys, q/k width, v width */
  int64_t bq, bk;           /* query rows a block (= threads), keys a step */
} DlcGpuAttention;

/* Largest d (and dv) the one-thread-a-row kernel takes: q and the
   accumulator live in registers, d + dv + BK of them plus the loads in
   flight, under ptxas's 255 (d = dv = 64, BK = 16: 196 registers, no
   spills). Wider heads keep the three-kernel path. */
enum { kGpuAttentionMaxD = 64, kGpuAttentionMaxBK = 64, kGpuAttentionSMs = 132 };
/* batch*head is the grid's y dimension (query blocks its x). */
enum { kGpuAttentionMaxGridY = 65535 };

/* The cost model: BQ the largest divisor of s in [32, 128] giving a block
   per SM, else the smallest such divisor (most blocks), else the smallest
   divisor of s from 32 up to 1024, else s itself (s < 32: one block a
   batch*head); BK from a target of 32 keys (16 when d + dv > 64: register
   budget): the largest divisor of sk from half the target to the target,
   else half the target (a quarter when d + dv > 64), the last step
   clamped; at most sk. False when no BQ exists (s a prime over 1024) or
   batch*head exceeds the grid's y (65535). */
bool dlcGpuAttentionPlan(DlcGpuAttention *a);

/* Checks a given tiling; on failure writes why to `why` (false). */
bool dlcGpuAttentionCheck(const DlcGpuAttention *a, char *why, size_t n);

#endif
