/* The CPU cost model (cost_model.h, docs/schedules.md). Sizes follow the
   BLIS blocking scheme scaled to a 32 KiB L1 / 512 KiB L2 core: the packed
   Kc x Nc block of B stays in L2 (with the Mc x Kc block of A and the
   Mc x Nc block of C, panelsNc) while Mc x Kc of A streams through it, a Kc x NR panel of B sits in L1, and the MR x NR
   accumulators live in vector registers. Kc = 384 rather than 256 where K
   allows (BERT's 768 and 3072) measured 1-3% faster: fewer passes over the
   accumulators and fewer packing calls outweigh the L2 spill of A. */

#include "schedule/cost_model.h"
#include "schedule/conv_direct.h"
#include "shape/Checked.h"

#include "dlc-c/Passes.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

enum {
  kMinTiles = 4,      /* parallel GEMM tiles wanted, for two cores */
  kLoopChunks = 8,    /* parallel chunks of an elementwise/reduction kernel */
  kMinParallel = 1 << 14, /* elements below which threads cost more than they give */
};

bool dlcLoopNestHasPanel(const DlcLoopNest *l) {
  for (int d = 0; d < l->numLoops; ++d)
    if (l->panel[d])
      return true;
  return false;
}

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

/* The ISAs' cache models: AVX2 as the Haswell..Zen 3 cores the AVX2 path
   was tuned on (an 8 MiB L3, a Zen 1/2 core complex's), AVX-512 as
   Skylake-SP / Zen 4 (32 KiB 8-way L1, 1 MiB L2, a 32 MiB L3). */
static const DlcCpuTarget kAvx2 = {8, 16, 32 << 10, 8, 512 << 10, 8, 8 << 20};
static const DlcCpuTarget kAvx512 = {16, 32, 32 << 10, 8, 1 << 20, 16, 32 << 20};

static bool named(MlirStringRef s, const char *name) {
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

/* The size of the level-3 cache that this core shares, from sysfs (as
   lscpu reads it), or 0 where sysfs does not say. Not sysconf's: glibc
   gives a whole AMD package's L3 there (256 MiB on an 8-CCD EPYC whose
   core complex has 32 MiB), which kept a 64 MiB output out of
   dlc-streaming-stores where it goes to memory anyway. */
static long sysfsL3Bytes(void) {
  for (int i = 0; i < 8; ++i) {
    char path[96], buf[32] = "";
    int level = 0;
    long size = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE *f = fopen(path, "r");
    if (!f)
      return 0;
    bool ok = fscanf(f, "%d", &level) == 1;
    fclose(f);
    if (!ok || level != 3)
      continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r")))
      return 0;
    ok = fscanf(f, "%ld%31s", &size, buf) >= 1;
    fclose(f);
    if (!ok || size <= 0)
      return 0;
    return buf[0] == 'M' ? size << 20 : buf[0] == 'K' ? size << 10 : size;
  }
  return 0;
}

/* The host's L3, read once a process: every pass that takes the host
   target asks (dlc-streaming-stores once a function), and the sizes do
   not change while it runs. */
static once_flag hostL3Once = ONCE_FLAG_INIT;
static long hostL3Bytes;

static void readHostL3(void) {
  long l3 = sysfsL3Bytes();
  hostL3Bytes = l3 >= (1 << 20) ? l3 : sysconf(_SC_LEVEL3_CACHE_SIZE);
}

DlcCpuTarget dlcCpuTargetGet(MlirStringRef name, int64_t vw) {
  if (vw > 0 || !named(name, "host")) {
    if (vw <= 0)
      vw = dlcTargetVectorWidth(name);
    DlcCpuTarget t = vw >= 16 ? kAvx512 : kAvx2;
    t.vectorWidth = vw;
    return t;
  }
  DlcCpuTarget t = dlcTargetVectorWidth(name) >= 16 ? kAvx512 : kAvx2;
  t.vectorWidth = dlcTargetVectorWidth(name);
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l2Ways = sysconf(_SC_LEVEL2_CACHE_ASSOC);
  if (l1 >= (16 << 10) && ways >= 2 && l2 >= (256 << 10)) { /* 0 or -1 where unknown */
    t.l1Bytes = l1, t.l1Ways = ways, t.l2Bytes = l2;
    if (l2Ways >= 2)
      t.l2Ways = l2Ways;
  }
  call_once(&hostL3Once, readHostL3);
  if (hostL3Bytes >= (1 << 20))
    t.l3Bytes = hostL3Bytes;
  return t;
}

/* BLIS blocking from the caches: a Kc x NR panel of packed B fills up to
   3/4 of L1 (the rest for A's rows and C), the Kc x Nc packed block 3/4
   of L2 and Mc x Kc of A 3/8 of it, with NR two vectors. For the AVX2 model (32 KiB, 512 KiB,
   NR = 16) that gives Kc 384, Nc 256, Mc 128, the sizes measured best there. */
static int64_t maxKc(const DlcCpuTarget *t) { return t->l1Bytes * 3 / 4 / (2 * t->vectorWidth * 4); }
static int64_t maxNc(const DlcCpuTarget *t, int64_t kc) { return t->l2Bytes * 3 / 4 / (kc * 4); }
static int64_t maxMc(const DlcCpuTarget *t, int64_t kc) { return t->l2Bytes * 3 / 8 / (kc * 4); }

/* Nc for the packed-panel GEMM: each Mc block's pass over the tile's
   panels touches the Kc x Nc block of B, its Mc x Kc block of A and an
   Mc x Nc block of C, and B must still be in L2 when the next Mc block
   comes back to it, so all three share the 3/4 of L2. Counting B alone
   (Nc 512 at 2048^3, Kc = Mc = 256: 1.25 MiB with A and C in a 1 MiB L2)
   ran 5-8% slower on Zen 5 than Nc 256, which fits. */
static int64_t panelsNc(const DlcCpuTarget *t, int64_t kc, int64_t mc) {
  int64_t budget = t->l2Bytes * 3 / 4 / 4 - mc * kc; /* in floats */
  return budget > 0 ? budget / (kc + mc) : 0;
}

/* Cycles per k step of an MR x NR register tile, in half cycles, on a
   core with two FMA and two load pipes and an FMA latency of kFmaLatency:
   the FMAs (one per accumulator), the loads (MR broadcasts of A and NR/vw
   vectors of B), or the latency of each accumulator's dependency chain.

   The loads cost more than this counts. Measured in C on a Sapphire
   Rapids-class Xeon (AVX-512, everything in L1, FMA peak 249 GFLOP/s):
   8 x 32 ran 200-206 GFLOP/s, and 235-240 with its A broadcasts taken
   from registers; tiles with fewer loads per FMA ran faster: 12 x 32 210,
   14 x 32 221, 6 x 64 228, 9 x 48 231. This model ranks them all equal;
   the three-vector panel is chosen by name instead (dlcGemmWidePanel,
   with the figures of the GEMMs it made faster). 6 x 64 in the
   fused-packing GEMM ran out of registers next to the prefetch index
   arithmetic and measured no faster than 8 x 32 (128x768x768). */
enum { kFmaLatency = 5 };

static int64_t halfCyclesPerStep(int64_t acc, int64_t loads) {
  int64_t t = acc > loads ? acc : loads;
  return t > 2 * kFmaLatency ? t : 2 * kFmaLatency;
}

int64_t dlcCpuVectorRegisters(int64_t vectorWidth) { return vectorWidth >= 16 ? 32 : 16; }

/* `whole`: among tiles of equal throughput, prefer an MR that divides m.
   The rows left over otherwise run a register tile of their own, with its
   own loop and C loads and stores per Kc block; measured on Zen 5 at 2048^3
   (Mc 256), 8 x 32 tiles ran 5-10% faster than 10 x 32 ones, which leave
   a 6-row tile in every Mc block. */
static void registerTile(int64_t m, int64_t n, int64_t vw, int64_t maxRows, bool preferWhole,
                         int64_t out[2]) {
  int64_t regs = dlcCpuVectorRegisters(vw);
  int64_t bestAcc = 0, bestLoads = 1, bestTime = 1;
  bool bestWhole = false;
  /* A row narrower than a vector, or not a whole number of them (a
     classifier's 10 classes), is one partial vector of its largest
     divisor's lanes: it still takes rows, since one accumulator alone is
     one FMA each latency (MLP's 32x512 * 512x10 ran at 5 GFLOP/s). Less
     than half a vector (134 = 2 x 67 keys: 2 lanes) keeps one row: its
     MR-row outer products would read A's columns through transposes for
     a few lanes each. */
  int64_t lanes = n % vw == 0 ? vw : dlcLargestDivisor(n, vw);
  out[0] = 1;
  out[1] = lanes;
  int64_t maxVectors = lanes == vw ? 4 : 2 * lanes >= vw ? 1 : 0;
  for (int64_t nv = 1; nv <= maxVectors; ++nv) {
    /* three vectors only as the wide panel itself (dlcGemmWidePanel) */
    if (n % (nv * lanes) || (nv == 3 && !(lanes == vw && dlcGemmWidePanel(n, vw))))
      continue;
    for (int64_t mr = 1; mr <= 16 && mr <= m && mr <= maxRows && mr * nv + nv + 1 <= regs; ++mr) {
      int64_t acc = mr * nv, loads = mr + nv, time = halfCyclesPerStep(acc, loads);
      bool whole = preferWhole && m % mr == 0;
      /* the best FMA throughput (acc / time), then a tile that divides m,
         then the larger tile, then fewer loads */
      int64_t lhs = acc * bestTime, rhs = bestAcc * time;
      if (lhs > rhs ||
          (lhs == rhs && (whole > bestWhole ||
                          (whole == bestWhole && (acc > bestAcc ||
                                                  (acc == bestAcc && loads < bestLoads)))))) {
        bestAcc = acc, bestLoads = loads, bestTime = time, bestWhole = whole;
        out[0] = mr, out[1] = nv * lanes;
      }
    }
  }
}

void dlcGemmRegisterTile(int64_t m, int64_t n, int64_t vw, int64_t out[2]) {
  registerTile(m, n, vw, m, true, out);
}

void dlcGemmRegisterTileRows(int64_t m, int64_t n, int64_t vw, int64_t maxRows, int64_t out[2]) {
  registerTile(m, n, vw, maxRows, true, out);
}

/* A remainder with fewer accumulators than the FMA latency runs each one
   FMA per latency, under half the pipes' rate: AVX2's 6 x 16 tiles leave
   2 rows of an Mc of 128 (21 x 6 + 2), 4 accumulators, and the model
   gives the last 8 rows 22 half cycles per k step as 6 + 2 and 20 as
   4 + 4. Measured on AMD EPYC Zen 3 (AOT libraries interleaved in one
   process, 24 rounds, median GFLOP/s, 1 thread), 126 + 2 -> 120 + 2 x 4:
   128x3072x768 77.0 -> 79.2 (73.4 -> 77.9 in 12 rounds), 128x768x3072
   74.9 -> 77.1 (74.7 -> 75.9), 128x768x768 88.7 -> 88.9, 1024^3 (A
   packed) 78.3 -> 78.7. Larger remainders (4 x 16 beside 6 x 16: 8
   accumulators, which Zen 3's and Sapphire Rapids' FMA latency of 4
   keeps busy) stay as they are, though the model would merge them. */
int64_t dlcGemmTailRows(int64_t mc, int64_t mr, int64_t nr, int64_t vw, int64_t *tileRows) {
  int64_t rem = mr > 0 ? mc % mr : 0;
  *tileRows = mr < mc ? mr : mc;
  if (rem == 0 || mc < mr)
    return 0;
  *tileRows = dlcLargestDivisor(rem, mr);
  int64_t nv = nr % vw == 0 ? nr / vw : 0, merged = mr + rem;
  if (nv == 0 || merged % 2 || mc < merged || *tileRows * nv >= kFmaLatency)
    return rem;
  int64_t half = merged / 2;
  int64_t split = halfCyclesPerStep(mr * nv, mr + nv) +
                  rem / *tileRows * halfCyclesPerStep(*tileRows * nv, *tileRows + nv);
  if (2 * halfCyclesPerStep(half * nv, half + nv) >= split)
    return rem;
  *tileRows = half;
  return merged;
}

/* Three vectors, with AVX-512's 32 registers: 8 x 48 register tiles (24
   accumulators, 3 vectors of B, a broadcast) read 11 vectors per 24 FMAs
   where 8 x 32 ones read 10 per 16, and the tile is bound by its loads
   (halfCyclesPerStep). Measured interleaved in one process against 8 x 32
   on the Sapphire Rapids-class Xeon, weights as arguments, 1 thread,
   median of 16-20 rounds (loaded host): 128x768x768 189.7 against 185.0
   GFLOP/s, 128x3072x768 187.5 against 180.7, 128x768x3072 169.7 against
   164.0; the BERT-base layer (weights as arguments) 11.09 -> 10.84 and
   11.17 -> 10.86 ms at 1 thread (ahead in 12 and 15 of 16 rounds), 5.85
   -> 5.74 at 2 (13 of 16), outputs bit for bit the same. LLVM cannot hold a 48-lane vector in registers; the GEMM passes
   see the tile whole and dlc-split-register-tiles hands it to LLVM as
   one accumulator per register. 9 x 48 (27 accumulators, a 2-row
   remainder at M = 128) ran 2-5% slower than 8 x 48. */
bool dlcGemmWidePanel(int64_t nr, int64_t vw) { return vw >= 16 && nr == 3 * vw; }

/* The panel width is the widest register tile's NR, whatever M is; three
   vectors where they divide N (dlcGemmWidePanel). */
int64_t dlcGemmPanelWidth(int64_t vw, int64_t n) {
  enum { kAvx2Panel = 16 };
  if (dlcGemmWidePanel(3 * vw, vw) && n % (3 * vw) == 0 && n > 3 * vw)
    return 3 * vw;
  int64_t reg[2];
  registerTile(128, n, vw, 128, false, reg);
  if (reg[1] >= kAvx2Panel && n > reg[1])
    return reg[1];
  return n % kAvx2Panel == 0 && n > kAvx2Panel ? kAvx2Panel : 0;
}

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t r = a % b;
    a = b, b = r;
  }
  return a;
}

int64_t dlcCacheLinesForRows(int64_t cacheBytes, int64_t ways, int64_t rowBytes) {
  enum { kLine = 64 };
  int64_t sets = ways > 0 ? cacheBytes / (kLine * ways) : 0;
  if (rowBytes <= 0 || rowBytes % kLine || sets <= 0)
    return INT64_MAX;
  int64_t step = rowBytes / kLine % sets;
  return ways * (sets / gcd(step ? step : sets, sets));
}

/* The L1 sets that rows of A `rowBytes` apart map to: rows whose stride is
   a multiple of the line cycle through sets / gcd(step, sets) sets (one
   when the stride is a multiple of the L1 way size, 4 KiB: K = 1024,
   2048 ...); 0 when the stride is unknown or not line-aligned, so the rows
   spread over the sets. */
static int64_t aRowSets(const DlcCpuTarget *t, int64_t rowBytes) {
  int64_t lines = dlcCacheLinesForRows(t->l1Bytes, t->l1Ways, rowBytes);
  return lines == INT64_MAX ? 0 : lines / t->l1Ways;
}

/* The register tile reads one element of each of its MR rows of A per k
   step, and each line again for the next 15 steps. Rows whose stride maps
   them onto few L1 sets evict each other every step once a set holds more
   of them than its ways less two (kept for the B and C lines passing
   through). Measured on a 12-way Zen 5 L1 at 1024^3 (rows 4 KiB apart, one
   set): 14 x 32 tiles ran at 0.69x the speed of 10 x 32 ones. */
int64_t dlcGemmMaxRows(const DlcCpuTarget *t, int64_t rowBytes) {
  enum { kUnlimited = 1 << 30 };
  int64_t distinct = aRowSets(t, rowBytes);
  return distinct > 0 ? distinct * (t->l1Ways - 2) : kUnlimited;
}

/* A block of `extent` up to `limit`: its largest divisor that is a multiple
   of `align`, unless that is under a quarter of `limit` (a prime extent gave
   blocks of one); then ceil(extent / limit) equal blocks rounded up to a
   multiple of `unit`, the last one shorter, which the schedule splits off
   (emitGemmGroup) or leaves a dynamic slice. */
static int64_t evenBlock(int64_t extent, int64_t limit, int64_t align, int64_t unit) {
  int64_t d = 1;
  for (int64_t c = limit < extent ? limit : extent; c > 1 && d == 1; --c)
    if (extent % c == 0 && c % align == 0)
      d = c;
  if (d == extent || 4 * d >= limit)
    return d;
  int64_t blocks = (extent + limit - 1) / limit;
  int64_t size = ((extent + blocks - 1) / blocks + unit - 1) / unit * unit;
  return size < extent ? size : extent;
}

/* Kc for K (evenBlock): a prime K had Kc = 1; the equal blocks are rounded
   up to `align` and the k loop's unroll by four. `align` is 8 where
   dlc-gemm-pack-a packs A (its copy moves 8-column tiles): 1000^3 had Kc
   250 and so read its 4 MB A in place, 0.89x OpenBLAS at 1 thread (Zen 3),
   against 0.93x with Kc 200 and A packed. */
static int64_t kBlock(int64_t k, int64_t limit, int64_t align) {
  return evenBlock(k, limit, align, align > 4 ? align : 4);
}

/* Kc of a packed-panel GEMM with MR x NR register tiles: the Kc x NR panel
   of B, contiguous, takes Kc x NR x 4 / (sets x 64) ways of every L1 set,
   and the tile's MR rows of A take ceil(MR / their sets) lines of theirs
   (aRowSets), which the panel must leave them, so that B's lines evict
   neither each other nor A's between two passes of the register tile.
   Capped by maxKc, at least a quarter of the ways for B (a shorter Kc
   loop pays its C loads and stores, and the packing, more often: Kc 64 ran
   3% slower than 128 at 1024^3). At 1024^3, 2048^3 and 128x3072x768
   (8 rows of A on one set of the 12-way, 64-set Zen 5 L1, whose Kc = 256
   panel takes 8 ways) that is Kc 128. Measured at 1 thread in one
   process, both Kc interleaved, order alternated by round, one output
   buffer (the variant timed later in a round ran up to 4% faster, which
   biased earlier runs), rounds of best of 3-20, loaded machine: 1024^3
   180.1 -> 185.0 GFLOP/s median, ahead in 13 of 16 rounds (another run of
   12 rounds: within noise); 2048^3 184.6 -> 187.0; 128x3072x768 186.7 ->
   190.0, ahead in 9 of 12. Rows spread over 4 or more sets (K = 256,
   768) keep maxKc; so do 512^3's (2 sets, 4 lines: Kc 256 fits). */
static int64_t panelKc(const DlcCpuTarget *t, int64_t k, int64_t nr, int64_t mr,
                       int64_t rowBytes, int64_t align) {
  enum { kLine = 64 };
  int64_t sets = t->l1Bytes / (kLine * t->l1Ways), distinct = aRowSets(t, rowBytes);
  int64_t aLines = distinct > 0 ? (mr + distinct - 1) / distinct : 1;
  int64_t bWays = t->l1Ways - aLines;
  if (bWays < t->l1Ways / 4)
    bWays = t->l1Ways / 4;
  int64_t limit = bWays * sets * kLine / (nr * 4);
  if (limit > maxKc(t))
    limit = maxKc(t);
  return kBlock(k, limit, align);
}

/* A of at least twice L2 (the threshold reads "larger than": 4 bytes
   less). More than twice L2 was the bar while 1024^3 (A 4 MiB, 2 MiB L2,
   exactly twice) ran 178 GFLOP/s with A in place and 170 packed. With
   split M in smaller blocks (splitMc), packed A won there: AOT libraries
   interleaved in one process, both orders, 30 rounds of best of 2
   (Sapphire Rapids-class Xeon, loaded machine), 1 thread 124.1 -> 135.7
   and 124.5 -> 131.0 GFLOP/s median; with dlc-gemm-fuse-unpack on (now
   off by default) 143.5 -> 151.7 and 147.9 -> 156.1 (ahead in 26 and 28
   of 30 rounds), 2 threads 287 -> 305 and 281 -> 306 (27 and 30 of 30).
   2048^3 (16 MiB) gained before
   (gemm_pack_a.c). A between L2 and twice L2 is unmeasured and keeps its
   place (BERT's 128x3072 A, 1.5 MiB, on a 1 MiB L2).
   With AVX2 (6-row panels), A of more than four times L2: AOT libraries
   interleaved in one process, median of 12-20 rounds, AMD EPYC Zen 3 (512
   KiB L2), 1 thread, GFLOP/s in place -> packed: 1024^3 (4 MiB) 74.9 ->
   79.8 and 76.6 -> 80.2 (2 threads 131.8 -> 149.2), 768x1024x1024 (3 MiB)
   76.3 -> 80.0, 2048^3 80.3 -> 80.5 (2 threads 133.2 -> 147.4); but
   1024x512x1024 (2 MiB) 81.3 -> 78.5, 512^3 (1 MiB) 81.6 -> 75.0, and
   BERT's 128x3072x768 (1.5 MiB) 78.3 -> 79.2, within noise. */
int64_t dlcGemmPackAMinBytes(const DlcCpuTarget *t) {
  return t->vectorWidth >= 16 ? 2 * t->l2Bytes - 4 : 4 * t->l2Bytes;
}

/* Fused packing (gemm_fuse_packing.c) has each panel's first row block
   read its Kc rows of B, NR floats each, N floats apart: short reads that
   only software prefetch covers, the same whatever the tile's width. The
   copy it replaces reads each Kc row of the parallel tile's P panels as
   one run of P x NR floats, which the hardware prefetchers stream better
   the longer it is. AOT libraries interleaved in one process, positions
   rotated, 16-24 rounds of best of 10, B rotated over 16-24 copies so it
   comes from memory (Sapphire Rapids-class Xeon, 1 thread, loaded
   machine), median GFLOP/s fused -> copy, by the run P x NR x 4:
     768 B (128x768x768)             122.2 -> 116.7
     1 KiB (128x768x1024)            157.0 -> 148.6
     1.5 KiB (128x768x1536)          148.1 -> 140.8
     1.5 KiB (128x768x2304)          139.9 -> 138.4
     2 KiB (128x768x4096)            134.8 -> 134.2
     2 KiB (256x768x3072)            118.9 -> 125.0 (copy ahead 16 of 16)
     3 KiB (128x768x3072)            133.7 -> 142.2 (20 of 20; B in cache
                                     139.8 -> 144.1; 2 threads 249.6 ->
                                     259.4, B in cache 269.7 -> 292.1)
     4 KiB (64x768x4096)             94.2 -> 109.2
   So from 2 KiB the copy stays. The BERT-base layer (weights as
   arguments, only its 128x768x3072 GEMM changes) ran 13.03 -> 12.96 and
   13.59 -> 13.47 ms at 1 thread, 7.23 -> 7.08 and 7.21 -> 7.18 at 2, each
   order once. AVX2 keeps fusing at any run: fusing was measured a gain
   there (the BERT layer 1.06x on Zen 1), and no run limit was. Whatever
   the run, B's rows that alias in L2 keep the copy (gemm_fuse_packing.c,
   dlcCacheLinesForRows). */
int64_t dlcGemmFusePackingMaxRunBytes(const DlcCpuTarget *t) {
  return t->vectorWidth >= 16 ? 2048 : 0;
}

/* How far ahead of the B row it reads a fused first row block prefetches
   (gemm_fuse_packing.c's prefetchAhead): 16 rows with AVX-512, measured
   on the Sapphire Rapids-class Xeon (48 KiB 12-way L1). With AVX2, 4: on
   Zen 3's 32 KiB 8-way L1, rows 2 KiB apart (N = 512) share 2 sets, 16
   lines, and 16 rows ahead filled them; where B's rows do not start a
   line (NumPy's arrays start 16 bytes into one), each row's 16 floats
   span two lines and the prefetched rows evicted each other and the
   block's own. AOT libraries interleaved in one process, best of 30-40
   rounds, GFLOP/s 16 -> 4 rows ahead, B 64-byte aligned / 16 bytes off:
   32x784x512 (the MLP's) 85.9 -> 87.7 / 78.2 -> 86.3, 2 threads 163.8 ->
   168.2 / 148.8 -> 164.1; 64x784x512 90.1 -> 91.7 / 85.9 -> 91.4; the
   MLP at b = 32 (C driver, best of 400) 512 -> 488 / 557 -> 508 us; even
   within 2% at 128x768x768, 128x3072x768, 256^3, 512^3 and the BERT
   layer (27.9-29.2 ms either way). 8 rows: 82.8 at 32x784x512 off by 16
   bytes, between the two. */
int64_t dlcGemmFusePackingRowsAhead(const DlcCpuTarget *t) {
  return t->vectorWidth >= 16 ? 16 : 4;
}

static void setParallel(DlcSchedule *s, int from, int to) {
  s->numParallel = 0;
  for (int d = from; d < to; ++d)
    s->parallel[s->numParallel++] = d;
}

/* Mc when M does not fit one block of A and is split anyway: each Mc
   block's pass over the tile's panels cycles its Mc x Kc block of A, its
   Mc x Nc rows of the packed C and the Kc x Nc block of B through L2, so
   the three (Nc taken as Kc) get half of it. At Kc 256 on a 2 MiB L2
   that is Mc 256, not the 512 of maxMc: interleaved in one process, both
   orders, Sapphire Rapids-class Xeon (loaded machine), 1024x768x1024 at
   1 thread 128.6 -> 134.3 and 135.8 -> 141.4 GFLOP/s median (ahead in 20
   and 18 of 24 rounds); 1024^3 with A in place (with dlc-gemm-fuse-unpack
   on; that A is now packed) 140.8 -> 149.5 and 138.8 -> 148.1 at 1 thread,
   281 -> 293 and 289 -> 318 at 2. A that dlc-gemm-pack-a packs keeps maxMc's: 2048^3
   ran no faster with Mc 256. M that fits one block (512^3, BERT's 128)
   is not split: the fused packing needs the whole of M in the tile. */
static int64_t splitMc(const DlcCpuTarget *t, int64_t kc) {
  int64_t budget = t->l2Bytes / 2 / 4 - kc * kc; /* floats */
  return budget > 0 ? budget / (2 * kc) : 0;
}

/* dlc-gemm-pack-a copies A in tiles of 8 columns: a Kc no multiple of it
   leaves A read in place (passes/gemm_pack_a.c). */
enum { kPackedAColumns = 8 };

/* The rows of the register tiles that read a packed A: AVX-512's 8
   (whose copy transposes 8 x 16 tiles), otherwise the most the registers
   allow (AVX2's 6). */
static int64_t packedARows(const DlcCpuTarget *t) {
  return t->vectorWidth >= 16 ? 8 : dlcGemmMaxRows(t, 0);
}

/* Bytes of a packed-panel GEMM's A, M x K floats (f32, the only element
   type of packed panels; K, not the row stride, which row padding may have
   lengthened); 0 where either is dynamic. */
static int64_t aBytes(const DlcLoopNest *l, int p) {
  int64_t m = l->extent[p - 2], k = l->extent[l->numLoops - 1];
  return m > 0 && k > 0 ? dlcMulSaturate(m, 4 * k) : 0;
}

/* Whether dlc-gemm-pack-a will pack this packed-panel GEMM's A: one
   matrix (no batch or split rows) larger than dlcGemmPackAMinBytes. */
static bool packsA(const DlcLoopNest *l, int p, const DlcCpuTarget *t) {
  for (int d = 0; d < p - 2; ++d)
    if (l->rows[d] || (!l->panel[d] && l->extent[d] != 1))
      return false;
  int64_t minBytes = dlcGemmPackAMinBytes(t);
  return minBytes > 0 && aBytes(l, p) > minBytes;
}

/* Mc for M rows (evenBlock): a prime M (ViT's 197 tokens, or 257) had Mc
   = 1, so one-row register tiles, at a third of OpenBLAS's speed; the
   equal blocks are rounded up to whole MR-row register tiles (MR the tile
   `limit` rows would take). */
static int64_t rowBlock(int64_t m, int64_t limit, int64_t n, int64_t vw, int64_t maxRows) {
  int64_t reg[2];
  dlcGemmRegisterTileRows(limit, n, vw, maxRows, reg);
  return evenBlock(m, limit, 1, reg[0]);
}

/* Nc with A packed: each packed Mc x Kc block is a copy of its own, which
   only the tile's panels repay, so the tile takes as many panels as half
   of L2 holds of Kc x Nc packed B (the block of A and the C tiles stream
   through the rest). 2048^3 on a 2 MiB L2 (Kc 256: Nc 1024, 32 panels):
   171 GFLOP/s against 162 with Nc 256, A packed, at 1 thread; 347 against
   338 at 2 (interleaved rounds, Sapphire Rapids-class Xeon). With AVX2's
   512 KiB L2, all of it (B's block streams from L3 through L2, as BLIS's
   does on Zen): 1024^3 at Kc 256, median GFLOP/s of 20 rounds, 16 panels
   77.4, 32 panels 79.8, 64 panels 72.5 (1 thread; 2 threads 147.6 and
   149.2 for 16 and 32); 2048^3 32 panels 80.5 against 16 77.3. */
static int64_t packedANc(const DlcCpuTarget *t, int64_t kc) {
  return t->l2Bytes / (t->vectorWidth >= 16 ? 2 : 1) / (kc * 4);
}

/* GEMMs on packed B, loops [batch..., panel, m, n, k]: a parallel tile
   takes enough panels for an Nc-wide block of B, packed per Kc block, and
   runs over all of M in Mc blocks inside it (BLIS's jc, pc, ic loops), so
   each packed block serves every row. M is split across threads only when
   the panels alone give too few tiles. */
static void schedulePanels(const DlcLoopNest *l, int p, int panelLoop, const DlcCpuTarget *t,
                           DlcSchedule *s) {
  int64_t vw = t->vectorWidth;
  int n = l->numLoops;
  int64_t M = l->extent[p - 2], N = l->extent[p - 1], K = l->extent[n - 1];
  int64_t batch = 1, panels = l->extent[panelLoop];
  for (int d = 0; d < p - 2; ++d) {
    /* rows of M split off stay whole in each tile: the tile's packed
       panels then serve all of them */
    s->tiles[d] = l->rows[d] ? 0 : 1;
    if (d != panelLoop && !l->rows[d])
      batch = dlcMulSaturate(batch, l->extent[d]);
  }
  /* An A that dlc-gemm-pack-a packs is read from contiguous MR-row
     panels: its row stride no longer maps the tile's rows onto few sets */
  bool packedA = packsA(l, p, t);
  int64_t aRowBytes = packedA ? 0 : l->aRowBytes;
  /* Mc from the largest Kc: a shorter Kc for aliasing rows (panelKc) does
     not let more rows of A share L2 */
  int64_t maxRows = packedA ? packedARows(t) : dlcGemmMaxRows(t, aRowBytes);
  int64_t mc = rowBlock(M, maxMc(t, maxKc(t)), N, vw, maxRows);
  dlcGemmRegisterTileRows(mc, N, vw, maxRows, s->registerTile);
  int64_t kAlign = packedA ? kPackedAColumns : 1;
  int64_t kc = panelKc(t, K, N, s->registerTile[0], aRowBytes, kAlign);
  if (!packedA && mc < M) {
    int64_t split = splitMc(t, kc);
    if (split >= 2 * s->registerTile[0] && split < mc) {
      mc = rowBlock(M, split, N, vw, maxRows);
      dlcGemmRegisterTileRows(mc, N, vw, maxRows, s->registerTile);
      kc = panelKc(t, K, N, s->registerTile[0], aRowBytes, kAlign);
    }
  }
  int64_t ncMax = packedA ? packedANc(t, kc) : panelsNc(t, kc, mc);
  int64_t panelTile = dlcLargestDivisor(panels, ncMax / N > 1 ? ncMax / N : 1);
  /* with A packed, one tile per core: more would pack each block of A
     more often */
  int64_t minTiles = packedA ? kMinTiles / 2 : kMinTiles;
  while (dlcMulSaturate(batch, panels / panelTile) < minTiles && panelTile % 2 == 0)
    panelTile /= 2;
  /* An odd tile cannot be halved (a 28x28 conv as a GEMM: 49 panels of
     16 pixels); where M stays whole too and C is worth the threads, the
     next smaller divisor, or one core ran the whole GEMM while the other
     waited (that conv 2.47 -> 1.43 ms at 2 threads). */
  bool large = dlcMulSaturate(dlcMulSaturate(batch, M), dlcMulSaturate(panels, N)) >= kMinParallel;
  while (dlcMulSaturate(batch, panels / panelTile) < minTiles && (mc == M || M % mc) && large &&
         panelTile > 1)
    panelTile = dlcLargestDivisor(panels, panelTile - 1);
  s->tiles[panelLoop] = panelTile;
  /* threads split M only in whole blocks (a shorter last one would be a
     forall tile of its own extent) */
  bool splitM = dlcMulSaturate(batch, panels / panelTile) < minTiles && mc < M && M % mc == 0;
  s->tiles[p - 2] = mc == M ? 0 : mc;
  s->tiles[p - 1] = 0;
  s->tiles[n - 1] = kc;
  s->vectorWidth = vw;
  s->numParallel = 0;
  for (int d = 0; d < p - 2; ++d)
    if (!l->rows[d])
      s->parallel[s->numParallel++] = d;
  if (splitM)
    s->parallel[s->numParallel++] = p - 2;
}

/* Kc of a GEMM whose rows all fit one register tile (a classifier's 1 x K
   by K x 1000): every element of B is read once, from memory, and each
   register tile's k loop walks Kc rows of B, N floats apart. 16 rows are
   streams the hardware prefetchers follow; the 256 of maxKc were demand
   misses, a line per row. ResNet-50's 1 x 2048 by 2048 x 1000 inside the
   model: 1.18 -> 0.73-0.82 ms; MobileNetV2 whole 1.05x (ahead in 17 of 20
   interleaved rounds), the same GEMM with B in cache 1.0x at 1 thread and
   1.18x at 2 (Sapphire Rapids-class Xeon). The sums keep their order.
   A K with no divisor from 8 to 16 keeps maxKc's. */
enum { kStreamRows = 16 };

static int64_t streamKc(int64_t k, int64_t kcMax) {
  int64_t kc = dlcLargestDivisor(k, kStreamRows);
  return kc >= kStreamRows / 2 ? kc : dlcLargestDivisor(k, kcMax);
}

/* Few rows read each float of B once, so such a GEMM streams B: 1 x 768
   by 768 x 50257, a language model's vocabulary projection, reads 154 MB
   for 77 MFLOP. Where no vector divides N, its register tiles had N's
   largest divisor up to a vector as lanes (6 at N = 30522), or, under half
   a vector (1 at 5003 or 50257), dlk-to-linalg padded B's columns to
   whole vectors: a copy of B on one thread before the GEMM, whose
   parallel tiles then divided the padded N (50264 = 8 x 6283: one vector
   each). Both ran at 0.33-0.6x OpenBLAS (AVX2, Zen 3). B is now read in
   place (a constant B is still padded, at compile time): the parallel
   tiles take a divisor of N (raggedNc), each split into whole register
   tiles, whole vectors and one partial vector (emitColumnBlocks in
   cpu_schedule.c), over a GEMV's Kc blocks of 16 rows (streamKc; 8 M
   rows lost 2.5x at 3 x 768 x 30522, more rows of B than the prefetchers
   follow). Below 8 rows: forced at 8-15 rows with AVX2 (what an AVX-512
   vector would cover) the split ran 1.06-1.8x faster than the padded
   copy in five shapes, but 0.78x at 15 x 1024 x 5003. The figures are in
   docs/schedules.md. */
bool dlcGemmSplitsRaggedN(int64_t m, int64_t n, int64_t vw) {
  enum { kRaggedRows = 8 };
  return vw > 1 && m < kRaggedRows && n > vw && n % vw != 0;
}

/* The columns of such a GEMM's parallel tile: the largest divisor of N up
   to N / `want` (`want` tiles at least, for the cores) that is at least
   `minCols` wide, else the same for fewer tiles down to two (2 x 1009
   columns: two tiles, not one), else N, one tile. */
static int64_t raggedNc(int64_t n, int64_t want, int64_t minCols) {
  for (int64_t w = want; w >= 2; --w) {
    int64_t nc = dlcLargestDivisor(n, n / w);
    if (nc >= minCols)
      return nc;
  }
  return n;
}

void dlcScheduleGemm(const DlcLoopNest *l, const DlcCpuTarget *t, DlcSchedule *s) {
  int64_t vw = t->vectorWidth;
  int n = l->numLoops, p = 0;
  while (p < n && !l->reduction[p])
    ++p;
  memset(s, 0, sizeof *s);
  s->numTiles = n;
  int panelLoop = -1; /* the innermost: outer ones (images of a conv) are batches */
  for (int d = 0; d < p - 2; ++d)
    if (l->panel[d])
      panelLoop = d;
  if (panelLoop >= 0) {
    schedulePanels(l, p, panelLoop, t, s);
    return;
  }
  int64_t M = l->extent[p - 2], N = l->extent[p - 1], K = l->extent[n - 1];
  int64_t batch = 1;
  for (int d = 0; d < p - 2; ++d) {
    s->tiles[d] = 1;
    batch = dlcMulSaturate(batch, l->extent[d]);
  }
  int64_t maxRows = dlcGemmMaxRows(t, l->aRowBytes);
  /* a ragged N's register tiles are sized for its whole vectors (up to
     four: no wider than N, so the schedule read back as a given one fits) */
  bool ragged = dlcGemmSplitsRaggedN(M, N, vw);
  int64_t cols = ragged ? (N / vw < 4 ? N / vw : 4) * vw : N;
  dlcGemmRegisterTileRows(M, cols, vw, maxRows, s->registerTile);
  int64_t nr = s->registerTile[1], kcMax = maxKc(t);
  int64_t mc = rowBlock(M, maxMc(t, kcMax), cols, vw, maxRows), ncMax = maxNc(t, kcMax);
  int64_t nc = nr * dlcLargestDivisor(N / nr, ncMax / nr > 0 ? ncMax / nr : 1);
  if (ragged) {
    int64_t tiles = dlcMulSaturate(batch, M / mc);
    nc = raggedNc(N, tiles >= kMinTiles ? 1 : (kMinTiles + tiles - 1) / tiles, 4 * vw);
  }
  /* Split further until both cores have work, register tiles permitting. */
  while (dlcMulSaturate(dlcMulSaturate(batch, M / mc), N / nc) < kMinTiles) {
    if (nc % (2 * nr) == 0)
      nc /= 2;
    else if (mc % 2 == 0 && mc / 2 >= s->registerTile[0] && M % mc == 0)
      mc /= 2;
    else
      break;
  }
  dlcGemmRegisterTileRows(mc, ragged ? cols : nc, vw, maxRows, s->registerTile);
  s->tiles[p - 2] = mc;
  s->tiles[p - 1] = nc;
  s->tiles[n - 1] =
      M <= s->registerTile[0] || ragged ? streamKc(K, kcMax) : kBlock(K, kcMax, 1);
  s->vectorWidth = vw;
  setParallel(s, 0, p);
  /* An Mc that does not divide M (rowBlock) is no forall tile: its
     shorter last block is split off inside (emitGemmGroup). Attention's
     scores at ViT's 197 tokens had Mc = 1 and one-row register tiles. */
  if (M % mc) {
    int k = 0;
    for (int i = 0; i < s->numParallel; ++i)
      if (s->parallel[i] != p - 2)
        s->parallel[k++] = s->parallel[i];
    s->numParallel = k;
  }
}

void dlcScheduleLoops(const DlcLoopNest *l, int64_t vw, DlcSchedule *s) {
  int n = l->numLoops;
  memset(s, 0, sizeof *s);
  s->numTiles = n;
  s->vectorWidth = n > 0 ? dlcVectorTile(l->extent[n - 1], vw) : 1;
  int64_t work = 1;
  for (int d = 0; d < n; ++d)
    work = dlcMulSaturate(work, l->extent[d] > 0 ? l->extent[d] : 1);
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

/* Dot-product GEMMs: a transposed B that is no constant (a constant 2-d
   one becomes K x N at compile time) with few rows of A, as in a decoder's
   attention scores over its key cache, q [1, d] by K [keys, d]^T. The
   GEMM's register tile reads such a B across its rows, NR floats 4*K
   bytes apart per k step, gathered: 1 x 1024 by 1024 x 1024 ran at 1.0
   GFLOP/s, 0.43x OpenBLAS. As dot products both inputs stream along K,
   into MR x NR vectors of partial sums that are summed across their lanes
   at the end. Measured on Zen 3 (AVX2), B an argument, both schedules of
   the same GEMM timed in turn in one process, dot against GEMM, 1 thread:
   1 x 1024 x 1024 20x, 1 x 4096 x 4096 8.7x, 1 x 768 x 3072 3.0x, 4 x 1024
   x 1024 7.5x, 8 x 1024 x 1024 6.0x, 15 x 1024 x 1024 5.3x, 6 x 512 x 512
   2.2x, 8 x 768 x 768 1.45x, 13 x 768 x 768 1.07x, 12 heads of 1 x 64 by
   64 x 1024 2.9x; 2 threads 1.02-11x. From 16 rows (and columns) the
   schedule copies B into K x N order first (normalize.c), which the GEMM
   tile reads, so the two meet there. */
enum { kDotMaxRows = 15, kDotTileRows = 4, kDotSpareRegs = 4 };

/* The lanes of the partial sums: the widest power of two up to a vector
   that divides K, so that each is one whole register (4 lanes: an xmm),
   not a 5-lane vector at K = 100 that LLVM splits over two. */
static int64_t dotLanes(int64_t k, int64_t vw) {
  int64_t v = 1;
  while (2 * v <= vw && k % (2 * v) == 0)
    v *= 2;
  return v;
}

/* Partial sums fewer than 4 lanes wide lose to the GEMM tile's gathers
   (a K with no factor 4). */
enum { kDotMinLanes = 4, kDotMinTileRows = 16 };

bool dlcDotGemmFits(int64_t m, int64_t k, int64_t vw) {
  return m > 0 && m <= kDotMaxRows && k >= vw && dotLanes(k, vw) >= kDotMinLanes;
}

/* NR: as many rows of B as the registers hold partial sums for, a divisor
   of the N tile unless that is under half of them (a prime N: the last
   columns get a tile of their own, dlcScriptDotTile). */
void dlcDotRegisterTile(const DlcCpuTarget *t, int64_t mc, int64_t nc, int64_t out[2]) {
  int64_t mr = dlcLargestDivisor(mc, kDotTileRows);
  int64_t cap = (t->vectorRegs - kDotSpareRegs) / mr;
  if (cap > nc)
    cap = nc;
  int64_t nr = dlcLargestDivisor(nc, cap);
  out[0] = mr;
  out[1] = 2 * nr < cap ? cap : nr;
}

bool dlcScheduleDot(const DlcLoopNest *l, const DlcCpuTarget *t, DlcSchedule *s) {
  int n = l->numLoops, p = n - 1;
  if (n < 3)
    return false;
  for (int d = 0; d < n; ++d)
    if (l->extent[d] <= 0)
      return false;
  int64_t M = l->extent[p - 2], N = l->extent[p - 1], K = l->extent[n - 1];
  int64_t vw = t->vectorWidth;
  if (!dlcDotGemmFits(M, K, vw))
    return false;
  memset(s, 0, sizeof *s);
  s->numTiles = n;
  s->vectorWidth = dotLanes(K, vw);
  int64_t work = M * N;
  for (int d = 0; d < p - 2; ++d)
    work = dlcMulSaturate(work, l->extent[d]);
  work = dlcMulSaturate(work, K);
  int64_t nTile = N;
  /* threads split the batch (attention's heads), else B's rows: each
     streams its own rows of B, the part that is large */
  if (work >= kMinParallel) {
    int d = 0;
    while (d < p - 2 && l->extent[d] < 2)
      ++d;
    if (d == p - 2)
      d = p - 1;
    int64_t e = l->extent[d], chunks = dlcLargestDivisor(e, kLoopChunks);
    /* rows of B with no divisor up to 8 (GPT-2's 50257 = 29 x 1733): tiles
       of N's largest proper divisor, where that is 16 rows or more */
    int64_t proper = chunks < 2 && d == p - 1 ? dlcLargestDivisor(e, e / 2) : 0;
    if (proper >= kDotMinTileRows)
      chunks = e / proper;
    if (chunks >= 2) {
      s->tiles[d] = e / chunks;
      s->parallel[s->numParallel++] = d;
      if (d == p - 1)
        nTile = e / chunks;
    }
  }
  dlcDotRegisterTile(t, M, nTile, s->registerTile);
  return true;
}

void dlcScheduleRowsInL1(const DlcLoopNest *l, const DlcCpuTarget *t, int64_t elementBytes,
                         DlcSchedule *s) {
  if (s->numParallel != 1 || elementBytes <= 0)
    return;
  int d = s->parallel[0], n = l->numLoops;
  if (d >= n - 1 || s->tiles[d] <= 1)
    return;
  int64_t rowBytes = elementBytes;
  for (int i = d + 1; i < n; ++i) {
    if (l->extent[i] <= 0)
      return;
    rowBytes = dlcMulSaturate(rowBytes, l->extent[i]);
  }
  int64_t rows = t->l1Bytes / 2 / rowBytes;
  if (rows < s->tiles[d])
    s->tiles[d] = dlcLargestDivisor(l->extent[d], rows > 1 ? rows : 1);
}

/* Direct conv (conv_direct.h), loops (image, panel, oh, ow, n | c, kh, kw):
   the register tile is MR output pixels of a row by the NR-channel panel,
   MR the divisor of Wo with the best FMA throughput per step whose
   accumulators fit the registers (dlcConvRegisterRows: 8 x 32 at Wo = 56,
   7 x 32 at 28, 14 and 7 with AVX-512; 4 x 16 at 56 and 28 with AVX2).
   The channels are blocked (BLIS's Kc) so that a block's Wp panel
   (Cb x kH x kW x NR) and the input rows an output row reads from it
   (Cb x kH x (Wo + kW - 1)) fit 3/4 of L1 together and serve every
   register tile of the row from there: 16 of ResNet's 64 channels at 3x3
   and Wo = 56 (29 KiB) on a 48 KiB L1. Half of L1 gave 8 there, and with
   8 x 32 register tiles the ResNet block ran 4-5% slower than with 16 on
   a Sapphire Rapids-class Xeon (1 and 2 threads, ahead in 18 and 19 of 20
   interleaved rounds; ResNet-50, MobileNetV2 and AVX2 code even). Zen 5
   had measured the opposite (16 channels 10% slower) with the 14 x 32
   tiles that spilled (dlcConvRegisterRows).

   A parallel tile is P panels by R output rows of one image (convTile).
   Inside it the panels run outermost, so each panel's weights serve the
   tile's R rows and the tile's input rows serve its P panels from L2. */
enum { kConvTiles = 8, kMinConvChannels = 8 };

/* The parallel tile (P panels, R rows) that moves the fewest bytes
   between L2 and the shared L3 over the whole conv, among those with at
   least kConvTiles tiles (or the most tiles there are) whose input rows
   and Y3 block take at most half of L2: every row block reads all the
   weights once (rows/R x weights), every panel block reads its input rows
   once ((panels/P) x (rows/R) x (R + kH - 1) input rows). One panel per
   tile, as before, read the input once per panel: ResNet-50's 1x1
   64 -> 256 at 56x56 read its 800 KB input 8 times, MobileNetV2's
   144 -> 24 its 1.8 MB 3 times, and at two threads both cores read the
   same rows for different panels. Ties go to fewer, larger tiles, then to
   more panels per tile. */
static void convTile(const DlcLoopNest *l, const DlcCpuTarget *t, int64_t *panelsOut,
                     int64_t *rowsOut) {
  int64_t images = l->extent[0], panels = l->extent[1], ho = l->extent[2], wo = l->extent[3];
  int64_t nr = l->extent[4], c = l->extent[5], kh = l->extent[6], kw = l->extent[7];
  int64_t inRow = dlcMulSaturate(c, wo + kw - 1) * 4, y3Row = nr * wo * 4;
  int64_t panelBytes = dlcMulSaturate(dlcMulSaturate(c, kh * kw), nr) * 4;
  int64_t budget = t->l2Bytes / 2;
  int64_t bestP = 1, bestR = ho, bestTiles = 0, bestBytes = INT64_MAX;
  for (int64_t p = 1; p <= panels; ++p) {
    if (panels % p)
      continue;
    for (int64_t r = 1; r <= ho; ++r) {
      if (ho % r)
        continue;
      int64_t tiles = dlcMulSaturate(images, (panels / p) * (ho / r));
      int64_t fit = dlcMulSaturate(r + kh - 1, inRow) + dlcMulSaturate(p * r, y3Row);
      if (fit > budget && !(p == 1 && r == 1))
        continue;
      int64_t bytes = dlcMulSaturate(
          images, dlcMulSaturate(ho / r, dlcMulSaturate(panels, panelBytes)) +
                      dlcMulSaturate((panels / p) * (ho / r), dlcMulSaturate(r + kh - 1, inRow)));
      bool enough = tiles >= kConvTiles, bestEnough = bestTiles >= kConvTiles;
      bool better = enough != bestEnough ? enough
                    : !enough            ? tiles > bestTiles
                    : bytes != bestBytes ? bytes < bestBytes
                    : tiles != bestTiles ? tiles < bestTiles
                                         : p > bestP;
      if (bestTiles == 0 || better)
        bestP = p, bestR = r, bestTiles = tiles, bestBytes = bytes;
    }
  }
  *panelsOut = bestP, *rowsOut = bestR;
}

int64_t dlcConvRegisterRows(int64_t wo, int64_t nr, int64_t vw, int64_t *accOut,
                            int64_t *timeOut) {
  int64_t regs = dlcCpuVectorRegisters(vw), nv = nr >= vw ? nr / vw : 1;
  int64_t bestAcc = 0, bestTime = 1, mrBest = 1;
  /* two registers to spare beyond the accumulators, the NR/vw vectors of
     W and one broadcast: LLVM unrolls 3 x 3 taps, and it keeps an input
     pixel's broadcast live across the kW taps that read it (a second one
     in flight). 14 x 8 with AVX2 (all 16 ymm) spilled two accumulators in
     the k loop and ran at 44% of the FMA peak; 14 x 32 with AVX-512 (31
     zmm) spilled three to four and, on a Sapphire Rapids-class Xeon, ran
     ResNet's 3x3 64 -> 64 at 56x56 at 48% of it, against 61% for 8 x 32
     (dlc-run --profile, 1 thread). */
  for (int64_t mr = 1; mr <= wo && mr * nv + nv + 2 < regs; ++mr) {
    if (wo % mr)
      continue;
    int64_t acc = mr * nv, time = halfCyclesPerStep(acc, mr + nv);
    if (acc * bestTime > bestAcc * time || (acc * bestTime == bestAcc * time && acc > bestAcc))
      bestAcc = acc, bestTime = time, mrBest = mr;
  }
  if (accOut)
    *accOut = bestAcc;
  if (timeOut)
    *timeOut = bestTime;
  return mrBest;
}

void dlcScheduleDirectConv(const DlcLoopNest *l, const DlcCpuTarget *t, DlcSchedule *s) {
  int64_t vw = t->vectorWidth;
  int64_t wo = l->extent[3], nr = l->extent[4];
  memset(s, 0, sizeof *s);
  s->numTiles = l->numLoops;
  s->registerTile[0] = dlcConvRegisterRows(wo, nr, vw, NULL, NULL), s->registerTile[1] = nr;
  int64_t panelTile, ohTile;
  convTile(l, t, &panelTile, &ohTile);
  s->tiles[0] = 1, s->tiles[1] = panelTile, s->tiles[2] = ohTile;
  int64_t c = l->extent[5], panelRow = l->extent[6] * l->extent[7] * nr * 4;
  int64_t rowBytes = l->extent[6] * (wo + l->extent[7] - 1) * 4;
  /* At least kMinConvChannels per block, or all of C: a block of one
     channel step (<= 4) leaves the taps as the innermost reduction, and
     their kH x kW unrolled outer products spill the accumulators. A 7x4
     conv on 6 channels (the stem's phase split, Wo = 112) got blocks of 3
     from the rule above and ran 2.1x slower than with all 6 (vfmadd
     operands spilled: 576 stack stores per 1680 FMAs; interleaved best of
     40, 1 thread, loaded machine). That was measured while the script
     still unrolled taps of 4 or more; they are hoist-only loops now
     (emitDirectConvGroup), and the rule was not measured again. */
  int64_t fit = t->l1Bytes * 3 / 4 / (panelRow + rowBytes);
  int64_t cb = dlcLargestDivisor(c, fit > kMinConvChannels ? fit : kMinConvChannels);
  if (cb < kMinConvChannels)
    cb = c;
  s->tiles[5] = cb == c ? 0 : cb;
  s->vectorWidth = vw;
  s->numParallel = 3;
  for (int d = 0; d < 3; ++d)
    s->parallel[d] = d;
}

/* Depthwise conv: (image, c) chunks across threads, each as many channels'
   whole output planes as fit half of L1 (at least one, and at least
   kLoopChunks chunks): the fill, the conv and the fused epilogue each pass
   over the chunk in turn, so a chunk that spills L1 (18 planes of 56x56,
   225 KiB) makes every pass a trip to L2. */
void dlcScheduleDepthwiseConv(const DlcLoopNest *l, const DlcCpuTarget *t, DlcSchedule *s) {
  memset(s, 0, sizeof *s);
  s->numTiles = l->numLoops;
  s->vectorWidth = t->vectorWidth;
  int64_t c = l->extent[1], plane = dlcMulSaturate(l->extent[2], l->extent[3]) * 4;
  int64_t fit = t->l1Bytes / 2 / (plane > 0 ? plane : 1);
  int64_t most = c >= kLoopChunks ? c / kLoopChunks : c;
  s->tiles[0] = 1, s->tiles[1] = dlcLargestDivisor(c, fit < most ? (fit > 0 ? fit : 1) : most);
  s->numParallel = 2;
  s->parallel[0] = 0, s->parallel[1] = 1;
}
