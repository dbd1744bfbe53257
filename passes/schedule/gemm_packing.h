/* The GEMM packing policy: whether a contraction reads B from packed
   column panels, how wide they are, and when a conv2d becomes a GEMM
   (im2col). A choice of the strategy, not of the lowering: the CPU packs
   panels for its caches and register tiles (dlcGemmPackingCpu), the GPU
   keeps plain [M, N, K] contractions that its own strategy tiles for
   blocks and threads (dlcGemmPackingNone). dlk-to-linalg receives one and
   builds what it says (passes/lowering/contraction.c).

   Why packing: a GEMM reads B from NR-column panels Bp[N / NR][K][NR], so
   the register tile streams B contiguously whatever B's row stride (rows
   a multiple of 256 bytes apart map a K x NR panel onto a few L1 sets) or
   layout. Packing costs K * N moves per M tile against M * K * N
   multiply-adds, so it is kept for GEMMs with enough rows. */

#ifndef DLC_PASSES_SCHEDULE_GEMM_PACKING_H
#define DLC_PASSES_SCHEDULE_GEMM_PACKING_H

#include "dlc-c/Shape.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct DlcGemmPacking {
  bool pack;               /* pack at all */
  int64_t vectorWidth;     /* f32 lanes; the panel width follows the cost model */
  int64_t minRows;         /* fewest output rows M of a conv-as-GEMM worth the packing
                              (and of a matmul on a constant B or B rows 4 KiB apart) */
  int64_t matmulMinRows;   /* the same for other matmuls */
  int64_t maxImagesAsGemm; /* largest batch of a conv2d lowered as one GEMM */
  int64_t packABytes;      /* A larger than this is packed by dlc-gemm-pack-a; 0: never */
} DlcGemmPacking;

/* The CPU's policy for a target with `vectorWidth` f32 lanes whose
   dlc-gemm-pack-a packs A above `packABytes` (0: never). */
DlcGemmPacking dlcGemmPackingCpu(int64_t vectorWidth, int64_t packABytes);
/* No packing, no conv-as-GEMM: plain contractions (the GPU's). */
DlcGemmPacking dlcGemmPackingNone(void);

/* The panel width for B of a 2-d GEMM C [M, N] = A x B (B given as [N, K]
   when transposeB), 0: no packing (dynamic or batched shapes, too few rows,
   K shorter than a panel, an N that whole panels would pad by more than an
   eighth). An N that is no multiple of the panel is padded to one. `constantB`: B is
   a constant weight that dlc-prepack-weights packs at compile time, so
   fewer rows pay for the panels (minRows rather than matmulMinRows). */
int64_t dlcGemmPackedPanel(const DlcGemmPacking *p, const DlcShape *a, const DlcShape *b,
                           const DlcShape *c, bool transposeB, bool constantB);

/* N padded to whole `panel`-wide panels (dlcGemmPackedPanel gave a panel
   that does not divide n): an even number of them where that pads by at
   most a sixteenth. */
int64_t dlcGemmPaddedN(int64_t n, int64_t panel);

/* Columns of padding for A [M, K] (f32) of a packed GEMM (a matmul's A,
   the channel-panel conv's col^T), 0 for none:
   rows a multiple of 4 KiB apart share their L1 sets (the set index is
   address bits 6-11), so the MR rows a register tile broadcasts from, 8
   KiB of B's panel and the tile's C rows fight over the ways of a few
   sets. A copied with rows one cache line longer spreads them. Not for a
   transposed or constant A (copied on every call), nor for an A that
   dlc-gemm-pack-a packs (larger than packABytes): its register tiles read
   the packed copy, which the padded one would only precede. */
int64_t dlcGemmRowPadding(const DlcGemmPacking *p, const DlcShape *a, bool transposeA,
                          bool constantA);

/* How a conv2d becomes a GEMM W [O, C*kH*kW] x col [C*kH*kW, Ho*Wo]:
   DLC_CONV_PIXEL_PANELS: col packed into panels of output pixels, one GEMM
   over (image, panel, m, n, k) with W shared, for up to maxImagesAsGemm
   images whose Ho*Wo a panel width divides;
   DLC_CONV_CHANNEL_PANELS, for one image whose Ho*Wo no panel width
   divides (ResNet's 14x14 and 7x7 stages) but whose output channels one
   does: Y^T [Ho*Wo, O] = col^T x W^T, W packed into channel panels. */
typedef enum { DLC_CONV_PIXEL_PANELS, DLC_CONV_CHANNEL_PANELS } DlcConvGemm;

/* The panel width of a conv2d (input x, weight w, output y, all static
   f32 NCHW when `f32`) lowered as a GEMM, 0 when it stays a direct
   convolution; `mode` says which operand is packed. */
int64_t dlcConvAsGemm(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                      const DlcShape *y, int64_t groups, bool f32, DlcConvGemm *mode);

#endif
