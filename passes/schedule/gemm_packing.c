/* The GEMM packing policy (see gemm_packing.h). */

#include "schedule/gemm_packing.h"
#include "schedule/cost_model.h"

/* Packing pays for itself from this many rows of A on: 16 for a conv as
   a GEMM, whose im2col columns are gathered anyway; 32 for a matmul, whose
   B rows the unpacked tile streams in place. With B packed in a copy loop
   of its own, matmuls with 16-32 rows ran 1.08-1.5x faster unpacked
   (32x784x512, 32x768x3072, 32x3072x768, 16x768x768, AVX-512) and the bar
   was 64 rows. With the copy fused into the first row block's compute
   (dlc-gemm-fuse-packing), packed won from 32 rows: 1.03x at 32x784x512,
   1.04x at 32x512x512, 1.3x at 32x768x3072, 1.1x at 48x768x3072, MLP b=32
   1.04x (1 thread) and 1.06-1.09x (2 threads); it still lost at 16x768x768
   (0.98x) and 48x768x768 (0.97x), whose 24 panels give each thread little
   to amortise (1 thread CPU time, interleaved best of 100-300, machine
   loaded). A constant B (a weight only this GEMM reads) is packed at
   compile time (dlc-prepack-weights), so the conv's 16 rows apply: MLP
   b=32 with constant weights ran 0.243-0.253 ms packed against 0.258-0.265
   ms unpacked (1 thread, CPU time, best of 300, loaded machine). */
enum { kPackMinRows = 16, kMatmulPackMinRows = 32 };
/* ... except where B's rows are a multiple of 4 KiB apart (N = 1024,
   2048, 3072, 4096): the unpacked tile's k loop then reads one line per
   row of B, every line on the same L1 set and on a page of its own, and
   16-31 rows pack B from the conv's 16. Measured on Zen 3 (AVX2), B an
   argument, the unpacked and packed GEMM compiled in one process and
   timed in turn (best of 30 or more), packed against unpacked, in three
   runs: 1 thread 16x1024x1024 1.20x, 16x2048x2048 1.11x, 16x4096x4096
   1.04-1.48x, 24x1024x1024 1.19x, 31x1024x1024 1.51x, 16x768x2048 1.30x,
   16x3072x3072 1.17-1.30x, 16x768x3072 0.91-1.15x, 16x1024x3072 0.94-1.10x;
   2 threads 1.08-1.56x, except 16x4096x4096 at 0.85-1.17x and 16x2048x2048
   at 0.84-1.56x. Fewer rows lost: 8 and 12 rows at 1024^2 0.93-0.94x,
   8x4096x4096 0.85x. */
enum { kRowAliasBytes = 4096 };
/* Batches of up to this many images become one GEMM. */
enum { kMaxImagesAsGemm = 64 };

DlcGemmPacking dlcGemmPackingCpu(int64_t vectorWidth, int64_t packABytes) {
  return (DlcGemmPacking){true,           vectorWidth,      kPackMinRows, kMatmulPackMinRows,
                          kMaxImagesAsGemm, packABytes};
}

DlcGemmPacking dlcGemmPackingNone(void) { return (DlcGemmPacking){false, 0, 0, 0, 0, 0}; }

/* A matmul whose N is no whole number of panels packs B's columns
   padded with zeros to the next whole panel (the lowering slices C's
   padded columns off), where that wastes at most an eighth of the work:
   such GEMMs (N = 127, 770, 1000) ran as one-lane loops at 0.06-0.5x
   OpenBLAS. */
enum { kMaxPadShare = 8 };

/* The padded N for `panel`-wide panels: whole panels, and an even number
   of them where that still pads by at most a sixteenth, so the parallel
   tiles (halves of the panels, cost_model.c) split evenly between two
   threads: 1000^3 padded to 63 panels ran 3 tiles (two on one thread, 0.70x
   OpenBLAS at 2 threads), to 64 panels 2. */
int64_t dlcGemmPaddedN(int64_t n, int64_t panel) {
  int64_t panels = (n + panel - 1) / panel;
  if (panels % 2 && (panels + 1) * panel - n <= n / (2 * kMaxPadShare))
    ++panels;
  return panels * panel;
}

static int64_t paddedPanel(int64_t vw, int64_t n) {
  /* the widest panel (three, two or one vectors) that pads by at most a
     sixteenth, else the one that pads least, within an eighth */
  int64_t best = 0, bestWaste = n / kMaxPadShare + 1;
  for (int64_t vectors = 3; vectors >= 1; --vectors) {
    int64_t unit = vectors * vw, padded = (n + unit - 1) / unit * unit;
    if (dlcGemmPanelWidth(vw, padded) != unit)
      continue;
    if ((padded - n) * 2 * kMaxPadShare <= n)
      return unit;
    if (padded - n < bestWaste)
      best = unit, bestWaste = padded - n;
  }
  return best;
}

static int64_t packedPanel(const DlcGemmPacking *p, const DlcShape *sa, const DlcShape *sb,
                           const DlcShape *so, bool tb, int64_t minRows, bool padN) {
  if (!p->pack)
    return 0;
  if (sa->rank != 2 || sb->rank != 2 || so->rank != 2)
    return 0;
  for (intptr_t i = 0; i < 2; ++i)
    if (sa->dims[i] == DLC_DYNAMIC || sb->dims[i] == DLC_DYNAMIC)
      return 0;
  int64_t k = tb ? sb->dims[1] : sb->dims[0], n = tb ? sb->dims[0] : sb->dims[1];
  int64_t panel = dlcGemmPanelWidth(p->vectorWidth, n);
  if (panel == 0 && padN)
    panel = paddedPanel(p->vectorWidth, n);
  return so->dims[0] >= minRows && panel > 0 && k >= panel ? panel : 0;
}

int64_t dlcGemmPackedPanel(const DlcGemmPacking *p, const DlcShape *sa, const DlcShape *sb,
                           const DlcShape *so, bool tb, bool constantB) {
  bool aliasing = !tb && sb->rank == 2 && sb->dims[1] > 0 && sb->dims[1] * 4 % kRowAliasBytes == 0;
  return packedPanel(p, sa, sb, so, tb, constantB || aliasing ? p->minRows : p->matmulMinRows,
                     true);
}

/* Measured on Zen 1 (AVX2, 32 KiB 8-way L1): bench/run.py's gemm, ratio
   to OpenBLAS in the same process, two rounds alternating the builds,
   before -> after: 1 thread 1024^3 0.940/0.953 -> 0.953/1.015, 2048^3
   0.901/0.919 -> 0.909/0.924, 128x3072x768 0.973/0.939 -> 1.005/1.003;
   2 threads 2048^3 0.892/0.906 -> 0.927/0.942, 128x3072x768 0.990/0.977
   -> 1.018/1.010, 1024^3 0.970/0.948 -> 0.956/0.976. The register tile
   alone, in C with A from L2 and C rows 4 KiB apart, ran 34.4 GFLOP/s on
   rows 4 KiB apart and 37.3 on rows 4160 bytes apart. */
enum { kRowPadBytes = 64 };

int64_t dlcGemmRowPadding(const DlcGemmPacking *p, const DlcShape *sa, bool ta, bool constantA) {
  if (!p->pack || ta || constantA || sa->rank != 2 || sa->dims[0] == DLC_DYNAMIC ||
      sa->dims[1] == DLC_DYNAMIC)
    return 0;
  if (p->packABytes > 0 && sa->dims[0] * sa->dims[1] * 4 > p->packABytes)
    return 0;
  return (sa->dims[1] * 4) % kRowAliasBytes == 0 ? kRowPadBytes / 4 : 0;
}

int64_t dlcConvAsGemm(const DlcGemmPacking *p, const DlcShape *sx, const DlcShape *sw,
                      const DlcShape *so, int64_t groups, bool f32, DlcConvGemm *mode) {
  if (!p->pack || groups != 1 || sx->rank != 4 || so->rank != 4 ||
      sx->dims[0] > p->maxImagesAsGemm || !f32)
    return 0;
  for (intptr_t i = 0; i < 4; ++i)
    if (sx->dims[i] == DLC_DYNAMIC || sw->dims[i] == DLC_DYNAMIC || so->dims[i] == DLC_DYNAMIC)
      return 0;
  DlcShape sa = {2, {sw->dims[0], sw->dims[1] * sw->dims[2] * sw->dims[3]}};
  DlcShape sb = {2, {sa.dims[1], so->dims[2] * so->dims[3]}};
  DlcShape sc = {2, {sw->dims[0], sb.dims[1]}};
  int64_t panel = packedPanel(p, &sa, &sb, &sc, false, p->minRows, false);
  *mode = DLC_CONV_PIXEL_PANELS;
  if (panel > 0 || sx->dims[0] != 1)
    return panel;
  /* Ho*Wo not a multiple of a vector (14x14, 7x7): transposed, the output
     channels are the GEMM's columns */
  DlcShape ta = {2, {sb.dims[1], sa.dims[1]}}, tb = {2, {sa.dims[0], sa.dims[1]}};
  DlcShape tc = {2, {sb.dims[1], sa.dims[0]}};
  *mode = DLC_CONV_CHANNEL_PANELS;
  return packedPanel(p, &ta, &tb, &tc, true, p->minRows, false);
}
