/* The CPU cost model (cost_model.h). Sizes follow the BLIS blocking
   scheme scaled to a 32 KiB L1 / 512 KiB L2 core: Kc x Nc floats of B
   (<= 256 KiB) stay in L2 while Mc x Kc of A (<= 64 KiB) streams, and the
   MR x NR accumulators live in vector registers. */

#include "schedule/cost_model.h"

#include <string.h>

enum {
  kMaxMc = 64,        /* rows of A per parallel tile */
  kMaxNc = 256,       /* columns of B per parallel tile */
  kMaxKc = 256,       /* reduction block: Kc x Nc floats of B in L2 */
  kMinTiles = 4,      /* parallel GEMM tiles wanted, for two cores */
  kLoopChunks = 8,    /* parallel chunks of an elementwise/reduction kernel */
  kMinParallel = 1 << 14, /* elements below which threads cost more than they give */
};

int64_t dlcLargestDivisor(int64_t n, int64_t limit) {
  if (n <= 0 || limit <= 1)
    return 1;
  for (int64_t d = limit < n ? limit : n; d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

int64_t dlcVectorTile(int64_t extent, int64_t vw) {
  if (extent <= 0)
    return 1;
  for (int64_t mult = 4; mult >= 1; mult /= 2) /* whole vectors first */
    if (extent % (mult * vw) == 0)
      return mult * vw;
  return dlcLargestDivisor(extent, 4 * vw);
}

int64_t dlcGemmRegisterRows(int64_t mc, int64_t nr, int64_t vw) {
  int64_t regs = vw >= 16 ? 32 : 16;
  int64_t perRow = nr > vw ? (nr + vw - 1) / vw : 1;
  int64_t rows = (regs - perRow - 1) / perRow;
  if (rows > 8)
    rows = 8;
  return dlcLargestDivisor(mc, rows);
}

static void setParallel(DlcSchedule *s, int from, int to) {
  s->numParallel = 0;
  for (int d = from; d < to; ++d)
    s->parallel[s->numParallel++] = d;
}

void dlcScheduleGemm(const DlcLoopNest *l, int64_t vw, DlcSchedule *s) {
  int n = l->numLoops, p = 0;
  while (p < n && !l->reduction[p])
    ++p;
  int64_t M = l->extent[p - 2], N = l->extent[p - 1], K = l->extent[n - 1];
  int64_t batch = 1;
  memset(s, 0, sizeof *s);
  s->numTiles = n;
  for (int d = 0; d < p - 2; ++d) {
    s->tiles[d] = 1;
    batch *= l->extent[d];
  }
  int64_t nr = N % (2 * vw) == 0 ? 2 * vw : N % vw == 0 ? vw : dlcLargestDivisor(N, 2 * vw);
  int64_t mc = dlcLargestDivisor(M, kMaxMc);
  int64_t nc = nr * dlcLargestDivisor(N / nr, kMaxNc / nr > 0 ? kMaxNc / nr : 1);
  int64_t mr = dlcGemmRegisterRows(mc, nr, vw);
  /* Split further until both cores have work, register tiles permitting. */
  while (batch * (M / mc) * (N / nc) < kMinTiles) {
    if (nc % (2 * nr) == 0)
      nc /= 2;
    else if (mc % (2 * mr) == 0)
      mc /= 2;
    else
      break;
  }
  s->tiles[p - 2] = mc;
  s->tiles[p - 1] = nc;
  s->tiles[n - 1] = dlcLargestDivisor(K, kMaxKc);
  s->vectorWidth = nr;
  setParallel(s, 0, p);
}

void dlcScheduleLoops(const DlcLoopNest *l, int64_t vw, DlcSchedule *s) {
  int n = l->numLoops;
  memset(s, 0, sizeof *s);
  s->numTiles = n;
  s->vectorWidth = n > 0 ? dlcVectorTile(l->extent[n - 1], vw) : 1;
  int64_t work = 1;
  for (int d = 0; d < n; ++d)
    work *= l->extent[d] > 0 ? l->extent[d] : 1;
  if (work < kMinParallel)
    return;
  /* Chunk the outermost parallel loop that splits; the innermost loop is
     split only when it is the only one, in whole vector tiles. */
  for (int d = 0; d < n && !l->reduction[d]; ++d) {
    int64_t e = l->extent[d];
    if (e <= 1)
      continue;
    bool inner = d == n - 1;
    int64_t unit = inner ? s->vectorWidth : 1;
    int64_t chunks = dlcLargestDivisor(e / unit, kLoopChunks);
    if (chunks < 2)
      continue;
    s->tiles[d] = e / chunks;
    s->parallel[s->numParallel++] = d;
    return;
  }
}
