/* The CPU cost model: picks a #dlk.schedule for a kernel from its loop
   extents and the target's vector width (docs/schedules.md).

   Two schedule shapes cover the kernels dlk-to-linalg produces:

   GEMM   a root with loops [batch..., m, n, reduction..., k]:
          tile = [1.., Mc, Nc, 0.., Kc], parallel = the batch, m and n loops,
          vector = the target's width, register = [MR, NR]. The Mc x Nc
          tiles run in parallel; Kc blocks the reduction so a Kc x Nc panel
          of B stays in L2; each MR x NR register tile accumulates in
          registers over its Kc block.
   LOOPS  anything else: one parallel loop is split into a few chunks for
          the threads, and the innermost loop is vectorised by `vector`.

   Every size is chosen to divide its extent, so every tile is static and
   vectorises; a prime extent degrades to scalar code, never to a wrong
   answer. */

#ifndef DLC_PASSES_SCHEDULE_COST_MODEL_H
#define DLC_PASSES_SCHEDULE_COST_MODEL_H

#include "dlc-c/Dialects.h"

#include <stdbool.h>
#include <stdint.h>

/* What the model knows of the CPU: vector lanes and registers, the data
   caches that size the GEMM blocks, and the last-level cache beyond which
   an output goes to memory anyway (dlc-streaming-stores). */
typedef struct DlcCpuTarget {
  int64_t vectorWidth; /* f32 lanes: 8 with AVX2, 16 with AVX-512 */
  int64_t vectorRegs;  /* 16 with AVX2, 32 with AVX-512 */
  int64_t l1Bytes, l1Ways, l2Bytes, l2Ways; /* per core */
  int64_t l3Bytes;                  /* the last level, shared */
} DlcCpuTarget;

/* The target named `name`: "avx2" or "avx512" (fixed cache models, so
   schedules do not depend on the machine that compiles them) or "host"
   (this CPU's ISA, its L1 and L2 sizes from sysconf, its L3 from sysfs).
   A `vectorWidth` > 0 names the ISA by its lanes instead (8: avx2, 16:
   avx512). */
DlcCpuTarget dlcCpuTargetGet(MlirStringRef name, int64_t vectorWidth);

/* Lines of a cache (`cacheBytes`, `ways`-way, 64-byte lines) that rows
   `rowBytes` apart can hold at once: the ways of the sets their first
   lines map to. Rows whose stride is a multiple of the way size (4 KiB in
   a 32 KiB 8-way L1, 64 KiB in a 512 KiB 8-way L2) all share one set.
   INT64_MAX where the stride is unknown (<= 0) or not whole lines (the
   rows then spread over the sets). */
int64_t dlcCacheLinesForRows(int64_t cacheBytes, int64_t ways, int64_t rowBytes);

typedef struct DlcLoopNest {
  int numLoops;
  int64_t extent[DLC_SCHEDULE_MAX_LOOPS]; /* < 0: dynamic */
  bool reduction[DLC_SCHEDULE_MAX_LOOPS];
  /* a GEMM loop over panels of B's columns (B and C read it, A does not):
     N split into [N / NR][NR] by packing */
  bool panel[DLC_SCHEDULE_MAX_LOOPS];
  /* a GEMM loop that A and the output read and B does not: rows of M split
     off by a reshape (a conv's output pixels as (oh, ow)), not a batch */
  bool rows[DLC_SCHEDULE_MAX_LOOPS];
  /* a GEMM's: bytes between A's rows (0: unknown) */
  int64_t aRowBytes;
} DlcLoopNest;

/* Whether the nest has a loop over B's column panels: a GEMM on packed B. */
bool dlcLoopNestHasPanel(const DlcLoopNest *l);

/* Largest divisor of `n` that is <= `limit` (1 when n <= 0). */
int64_t dlcLargestDivisor(int64_t n, int64_t limit);

/* The vector tile for an innermost loop of `extent`: up to four vectors. */
int64_t dlcVectorTile(int64_t extent, int64_t vectorWidth);

void dlcScheduleGemm(const DlcLoopNest *root, const DlcCpuTarget *t, DlcSchedule *out);

/* Whether a GEMM of `m` rows by `n` columns (not packed into panels)
   reads B in place with its N tiles split into whole vectors and one
   partial vector: fewer than 8 rows and an N longer than a vector that no
   vector divides. dlk-to-linalg pads no columns of a B that is not a
   constant for it. */
bool dlcGemmSplitsRaggedN(int64_t m, int64_t n, int64_t vectorWidth);
void dlcScheduleLoops(const DlcLoopNest *sink, int64_t vectorWidth, DlcSchedule *out);

/* The schedule of a GEMM whose inputs are both contiguous along K
   (dlcIsDotGemmRoot: loops [batch.., m, n, k]) as dot products, when its
   few rows make that pay; false otherwise (the GEMM schedule applies).
   Register tile [MR, NR]: MR rows of A by NR rows of B, one vector of
   partial sums each, along K in `vectorWidth` lanes. */
bool dlcScheduleDot(const DlcLoopNest *root, const DlcCpuTarget *t, DlcSchedule *out);

/* Whether such a GEMM of `m` rows and dot products `k` long runs as dot
   products (dlcScheduleDot), for the lowering: it pads no columns for them. */
bool dlcDotGemmFits(int64_t m, int64_t k, int64_t vectorWidth);

/* The dot tile's [MR, NR] for `mc` rows and `nc` columns (a given
   schedule's tiles, where it names no register tile). */
void dlcDotRegisterTile(const DlcCpuTarget *t, int64_t mc, int64_t nc, int64_t out[2]);
/* For a loops kernel that reads its input rows twice (a norm or softmax: a
   row reduction, then the row again scaled by its result), the parallel
   tile along the rows shrunk so that its rows fit half of L1, so the second
   read hits L1 instead of L2: RMSNorm [32, 4096] on Zen 5 (16 KiB rows)
   ran 10.1 -> 8.7 us with one row per tile rather than four. */
void dlcScheduleRowsInL1(const DlcLoopNest *sink, const DlcCpuTarget *t, int64_t elementBytes,
                         DlcSchedule *s);

/* The width NR of the column panels dlk-to-linalg packs B into for a GEMM
   with N columns: the register tile's width for large M, so each k step
   reads whole panel rows (16 with AVX2, 32 with AVX-512, 48 with AVX-512
   where 48 divides N). 0 when N is not a multiple of a vector (no
   packing). */
int64_t dlcGemmPanelWidth(int64_t vectorWidth, int64_t n);

/* Whether panels NR wide are the three-vector panels (48 floats with
   AVX-512), whose register tiles dlc-split-register-tiles gives LLVM one
   accumulator per register. */
bool dlcGemmWidePanel(int64_t nr, int64_t vectorWidth);

/* The most rows of A, `rowBytes` apart, a register tile can read without
   them evicting each other from L1: rows a multiple of the L1 way size
   apart (4 KiB: K = 1024, 2048 ...) all map to one set. */
int64_t dlcGemmMaxRows(const DlcCpuTarget *t, int64_t rowBytes);

/* The MR x NR register tile for GEMM tiles of m x n (MR <= m, NR one, two
   or four whole vectors dividing n, or three where n is the wide panel) whose accumulators, NR/vw vectors of
   B and one broadcast of A fit the vector registers (16 with AVX2, 32
   with AVX-512) and keep the FMA pipes busiest: enough accumulators to
   cover the FMA latency, no more loads than FMAs per k step; of tiles as
   fast, one whose MR divides m. When MR does not divide m the schedule
   splits off the remaining rows, which get a register tile of their own. */
void dlcGemmRegisterTile(int64_t m, int64_t n, int64_t vectorWidth, int64_t out[2]);
/* The same with MR at most `maxRows` (dlcGemmMaxRows). */
void dlcGemmRegisterTileRows(int64_t m, int64_t n, int64_t vectorWidth, int64_t maxRows,
                             int64_t out[2]);

/* The rows at the end of an mc-row block that the block's MR x NR
   register tiles leave to a tile of their own (0: none, MR divides mc),
   and that tile's rows (*tileRows, dividing the count; with no tail, the
   rows of every tile: MR, or mc where smaller). The mc % MR rows
   left over, or, where they are too few to cover the FMA latency and the
   model says so, those and the last full tile as two tiles of half. */
int64_t dlcGemmTailRows(int64_t mc, int64_t mr, int64_t nr, int64_t vectorWidth,
                        int64_t *tileRows);

/* The size of A [M, K] (bytes) above which a packed-panel GEMM reads A's
   Mc x Kc blocks from packed copies (dlc-gemm-pack-a): A of at least
   twice L2 with AVX-512, so each block's first pass comes from L3; with
   AVX2 (6-row panels) more than four times L2, below which the copy was
   measured not to repay itself. */
int64_t dlcGemmPackAMinBytes(const DlcCpuTarget *t);

/* The run of B (bytes: a Kc row of a parallel tile's panels) from which
   dlc-gemm-fuse-packing keeps a GEMM's packing copy rather than fuse it
   into the first row block; 0: fuse at any run. */
int64_t dlcGemmFusePackingMaxRunBytes(const DlcCpuTarget *t);

/* The rows of B a fused first row block prefetches ahead of the one it
   reads (dlc-gemm-fuse-packing's prefetch-rows-ahead). */
int64_t dlcGemmFusePackingRowsAhead(const DlcCpuTarget *t);

/* Vector registers of a target with `vectorWidth` f32 lanes: 32 zmm with
   AVX-512 (16 lanes), 16 ymm or xmm below. */
int64_t dlcCpuVectorRegisters(int64_t vectorWidth);

/* The direct conv's register tile for output rows of `wo` pixels by an
   `nr`-channel panel with `vectorWidth` f32 lanes: MR, the divisor of Wo
   with the best FMA throughput per k step whose accumulators fit the
   registers. Its throughput is *acc FMAs per *halfCycles half cycles
   (either may be NULL). */
int64_t dlcConvRegisterRows(int64_t wo, int64_t nr, int64_t vectorWidth, int64_t *acc,
                            int64_t *halfCycles);

#endif
