/* The GPU cost model (gpu_cost_model.h). */

#include "gpu/gpu_cost_model.h"

#include <string.h>

/* Blocks wanted: two per SM keeps every SM busy while another block of
   the same SM waits on memory. */
enum { kWantBlocks = 2 * kGpuSMs };

static int64_t blocksOf(const DlcLoopNest *l, const DlcSchedule *s) {
  int64_t b = 1;
  for (int d = 0; d < l->numLoops; ++d)
    if (s->workgroup[d] > 0)
      b *= l->extent[d] / s->workgroup[d];
  return b;
}

/* Threads along the innermost tiled loop `x` (each `vx` elements wide)
   and the next one `y`, at most `limit` in all; `z` gets a block tile of
   one. Loops < 0 are absent. */
static void spread(const DlcLoopNest *l, int x, int y, int z, int64_t vx, int64_t limit,
                   DlcSchedule *s) {
  int64_t tx = dlcLargestDivisor(l->extent[x] / vx, limit);
  s->thread[x] = vx;
  s->workgroup[x] = tx * vx;
  if (y >= 0) {
    int64_t ty = dlcLargestDivisor(l->extent[y], limit / tx);
    s->thread[y] = 1;
    s->workgroup[y] = ty;
  }
  if (z >= 0)
    s->workgroup[z] = 1;
}

/* Halves the threads of a block (from 256 down to 32) while the grid has
   fewer than kWantBlocks blocks. */
static void spreadForSMs(const DlcLoopNest *l, int x, int y, int z, int64_t vx, DlcSchedule *s) {
  for (int64_t limit = 256; limit >= 32; limit /= 2) {
    spread(l, x, y, z, vx, limit, s);
    if (blocksOf(l, s) >= kWantBlocks)
      return;
  }
}

/* Lanes a row's innermost loop is spread over (gpu.shuffle combines their
   partial reductions, passes/gpu/gpu_reduction.c): a warp (32) when the
   row is long enough that each lane still reads at least one chunk of the
   per-thread vector tile (four 128-bit vectors), fewer for shorter rows,
   none (1) under 4 lanes, when the innermost loop is itself a row (the
   row's loops are elsewhere) or when the group does not vectorise. A
   block a row (up to 1024 lanes, warps combined through shared memory)
   when a warp a row would leave under four warps per SM and the row has
   a chunk for every lane. The lane count divides the extent, so the
   schedule's thread tile (extent / lanes) is exact. */
int64_t dlcGpuRowLanes(const DlcLoopNest *l, const bool *rowDims, int elementBits) {
  int n = l->numLoops;
  /* 128-bit elements stand for ops that do not vectorise: the lane
     rewrite reads the vectorised partial sums */
  if (n < 1 || (rowDims[n - 1] && !l->reduction[n - 1]) || elementBits > 64)
    return 1;
  int64_t k = l->extent[n - 1];
  int64_t chunk = 4 * (128 / (elementBits > 0 && elementBits <= 128 ? elementBits : 32));
  int64_t lanes = kGpuWarp;
  while (lanes > 1 && (k % lanes != 0 || k < lanes * chunk))
    lanes /= 2;
  if (lanes < 4)
    return 1;
  int64_t rows = 1;
  for (int d = 0; d < n; ++d)
    if (rowDims[d] && !l->reduction[d])
      rows *= l->extent[d];
  while (lanes == kGpuWarp * (lanes / kGpuWarp) && lanes < kGpuMaxThreads &&
         rows * (lanes / kGpuWarp) < 4 * kGpuSMs && k % (2 * lanes) == 0 &&
         k >= 2 * lanes * chunk)
    lanes *= 2;
  return lanes;
}

void dlcGpuSchedule(const DlcLoopNest *l, DlcGpuStrategy strategy, const bool *rowDims,
                    int elementBits, DlcSchedule *s) {
  memset(s, 0, sizeof *s);
  int n = l->numLoops;
  s->numWorkgroup = s->numThread = n;
  s->stages = 1;
  s->vectorWidth = 1;
  if (n == 0)
    return;
  int64_t v = 128 / (elementBits > 0 && elementBits <= 128 ? elementBits : 32);
  while (v > 1 && l->extent[n - 1] % v != 0)
    v /= 2;
  if (strategy == DLC_GPU_ELEMENTWISE) {
    s->vectorWidth = v;
    spreadForSMs(l, n - 1, n >= 2 ? n - 2 : -1, n >= 3 ? n - 3 : -1, v, s);
    return;
  }
  if (strategy == DLC_GPU_ROWS) {
    int rows[3] = {-1, -1, -1}, found = 0;
    for (int d = n - 1; d >= 0 && found < 3; --d)
      if (rowDims[d] && !l->reduction[d])
        rows[found++] = d;
    s->vectorWidth = v;
    if (found == 0) { /* no parallel loop: the fallback launch runs it */
      s->numWorkgroup = s->numThread = 0;
      return;
    }
    int64_t lanes = dlcGpuRowLanes(l, rowDims, elementBits);
    if (lanes > 1) { /* lanes on x: rows on y (and a block tile of one on z) */
      for (int64_t limit = 256; limit >= 32; limit /= 2) {
        spread(l, rows[0], rows[1], rows[2], 1, limit > lanes ? limit / lanes : 1, s);
        if (blocksOf(l, s) >= kWantBlocks)
          break;
      }
      s->thread[n - 1] = l->extent[n - 1] / lanes;
      return;
    }
    for (int64_t limit = 128; limit >= 32; limit /= 2) {
      spread(l, rows[0], rows[1], rows[2], 1, limit, s);
      if (blocksOf(l, s) >= kWantBlocks)
        break;
    }
    return;
  }
  /* GEMM over [batch..., m, n, reduction...] */
  int p = 0;
  while (p < n && !l->reduction[p])
    ++p;
  int M = p - 2, N = p - 1;
  static const int64_t kTiles[][2] = {{64, 64}, {64, 32}, {32, 64}, {32, 32},
                                      {32, 16}, {16, 16}, {16, 8},  {8, 8}};
  /* The largest tile whose grid covers the SMs with two warps or more a
     block; else the one with most blocks among those with two warps
     (a 4 x 4 tile per thread: Wm x Wn / 16 threads). */
  int best = -1;
  int64_t bestBlocks = 0;
  for (size_t i = 0; i < sizeof kTiles / sizeof kTiles[0]; ++i) {
    memset(s->workgroup, 0, sizeof s->workgroup);
    s->workgroup[M] = dlcLargestDivisor(l->extent[M], kTiles[i][0]);
    s->workgroup[N] = dlcLargestDivisor(l->extent[N], kTiles[i][1]);
    if (p >= 3)
      s->workgroup[p - 3] = 1;
    int64_t threads = (s->workgroup[M] / dlcLargestDivisor(s->workgroup[M], 4)) *
                      (s->workgroup[N] / dlcLargestDivisor(s->workgroup[N], 4));
    int64_t blocks = blocksOf(l, s);
    if (best < 0 || (threads >= 64 && blocks > bestBlocks)) {
      best = (int)i;
      bestBlocks = blocks;
    }
    if (threads >= 64 && blocks >= kGpuSMs)
      break;
  }
  memset(s->workgroup, 0, sizeof s->workgroup);
  s->workgroup[M] = dlcLargestDivisor(l->extent[M], kTiles[best][0]);
  s->workgroup[N] = dlcLargestDivisor(l->extent[N], kTiles[best][1]);
  if (p >= 3)
    s->workgroup[p - 3] = 1;
  memset(s->thread, 0, sizeof s->thread);
  s->thread[M] = dlcLargestDivisor(s->workgroup[M], 4);
  s->thread[N] = dlcLargestDivisor(s->workgroup[N], 4);
  /* the thread's accesses along n: the widest power of two dividing Tn */
  s->vectorWidth = 1;
  while (s->thread[N] % (2 * s->vectorWidth) == 0)
    s->vectorWidth *= 2;
}

bool dlcGpuBlockDims(const DlcLoopNest *l, const DlcSchedule *s, int64_t dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  int k = 0;
  int64_t total = 1;
  for (int d = l->numLoops - 1; d >= 0; --d) {
    if (d >= s->numThread || s->thread[d] == 0)
      continue;
    int64_t tile = d < s->numWorkgroup && s->workgroup[d] ? s->workgroup[d] : l->extent[d];
    if (k == 3 || tile % s->thread[d] != 0)
      return false;
    dims[k] = tile / s->thread[d];
    total *= dims[k++];
  }
  return total <= kGpuMaxThreads;
}
