/* The mechanism of a schedule: a transform-dialect script written as text
   and run by the transform interpreter (dlc-cpu-schedule,
   dlc-gpu-schedule, dlc-gpu-map). What the backends emit alike is here
   once: matching a tagged op, tiling by scf.for or scf.forall, fusion into
   a loop, the vector tile rule, the vector lowering patterns and running
   the script. Handles are `%hN`, numbered by `next`. */

#ifndef DLC_PASSES_SCHEDULE_SCRIPT_H
#define DLC_PASSES_SCHEDULE_SCRIPT_H

#include "dlc-c/Dialects.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

struct DlcLinalgInfo;

typedef struct DlcScript {
  DlcText text;
  int next;    /* the next fresh handle number */
  bool failed; /* a line did not fit the formatting buffer */
  /* mark a tiled reduction's loop as a reduction loop, so the vector
     lowering hoists its partial sums into registers (the CPU's; the GPU's
     row pass expects the loop as it is) */
  bool hoistPartials;
} DlcScript;

void dlcScriptEmit(DlcScript *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* `module { transform.named_sequence @__transform_main(%m) {` */
void dlcScriptBegin(DlcScript *s);
/* `transform.yield }}` */
void dlcScriptEnd(DlcScript *s);

int dlcCountNonZero(const int64_t *sizes, int n);

/* %h = the op whose i64 attribute `attr` is `id`. */
int dlcScriptMatchTagged(DlcScript *s, const char *attr, int64_t id);

/* %h = the op tagged with schedule id `sid` (DLC_ATTR_SCHEDULE_ID). */
int dlcScriptMatch(DlcScript *s, int64_t sid);

/* handles[i] = the op tagged `firstSid + i`, for i < n (a group's ops). */
void dlcScriptMatchAll(DlcScript *s, int64_t firstSid, int n, int *handles);

/* Tiles handle `h` with scf.for loops by `sizes`; returns the tiled op's
   handle and, through `innermost` (may be NULL), the innermost loop's
   (-1 when nothing is tiled). */
int dlcScriptTileFor(DlcScript *s, int h, const int64_t *sizes, int n, int *innermost);

/* Splits handle `h`'s op along loop `dim` after `after` iterations
   (transform.structured.split): *lo is the first part's handle, *hi the
   rest's. */
void dlcScriptSplit(DlcScript *s, int h, int dim, int64_t after, int *lo, int *hi);

/* tile_using_forall of `*h` by `sizes`; `*h` becomes the tiled op and the
   forall's handle is returned. With a `gpuKind` ("block" or "thread") the
   tiled loops map innermost first to x, y, z of #gpu.<kind>. */
int dlcScriptTileForall(DlcScript *s, int *h, const int64_t *sizes, int n, const char *gpuKind);

/* Tiles the sink handles[numOps - 1] by tile_using_forall (as
   dlcScriptTileForall) and fuses every producer into the forall, last
   first; each handle becomes its tiled or fused op's. Returns the forall's
   handle. */
int dlcScriptTileAndFuse(DlcScript *s, int *handles, int numOps, const int64_t *sizes, int n,
                         const char *gpuKind);

/* Fuses the producer `*h` into the loop `containing`: `*h` becomes the
   fused op's handle; returns the loop's new handle. */
int dlcScriptFuseInto(DlcScript *s, int *h, int containing);

void dlcScriptVectorize(DlcScript *s, int h);

/* Marks the scf.for `loop` so that LLVM never unrolls it (the
   loop_annotation the SCF and CF conversions carry to its back edge). */
void dlcScriptKeepRolled(DlcScript *s, int loop);

/* Folds the unit loops of the one tiled op in loop `loop` and vectorises
   it: a read whose map kept a unit dim (a conv's window x[oh + kh][ow + kw],
   a transposing copy's block) becomes a projected permutation, which the
   vectorizer reads as whole contiguous vectors (and the permutation
   patterns as a vector.transpose). Folding replaces the tiled op, so it is
   matched again inside the loop. Only that op: other kernels keep their
   unit dims. */
void dlcScriptFoldUnitDimsAndVectorize(DlcScript *s, int loop);

/* Names loop `h` a reduction loop whose accumulators are hoisted. */
void dlcScriptMarkReductionLoop(DlcScript *s, int h);

/* The same, for a loop the script hoists (after the loops inside it) but
   does not unroll; LLVM may still unroll it, which dlcScriptKeepRolled
   forbids. */
void dlcScriptMarkHoistOnlyLoop(DlcScript *s, int h);

/* The register tile of a dot-product GEMM (dlcScheduleDot; loops
   [batch.., m, n, k]): mr x nr outputs at a time, each a vector of
   `vectorWidth` partial sums along k kept in registers, summed across
   lanes after the k loop. mr divides the op's m extent; the last of its
   `cols` columns that nr does not divide are split off into one tile. */
void dlcScriptDotTile(DlcScript *s, int h, int numLoops, int64_t mr, int64_t nr,
                      int64_t vectorWidth, int64_t cols);

/* The vector tile of a non-GEMM op whose loops have `extent`: 1 on every
   loop but the innermost, which gets up to four vectors of `vectorWidth`;
   a lone trailing reduction keeps vector-wide partial sums instead. Then
   vectorised. Nothing for an op that does not vectorise. */
void dlcScriptVectorTile(DlcScript *s, int h, const struct DlcLinalgInfo *o, const int64_t *extent,
                         int64_t vectorWidth);

/* The patterns that make the vectorised tiles target code, and the end of
   the script: contractions from reductions, hoisted accumulators of the
   marked reduction loops (unrolled `unroll` times when > 1) and then of
   the hoist-only ones (not unrolled), contractions
   as outer products, multi-reductions inner, transposes elementwise when
   `lowerTranspose`. */
void dlcScriptVectorLowering(DlcScript *s, int unroll, bool lowerTranspose);

/* Parses and applies the script to `module` (printing it first to stderr
   when `print`); diagnostics name `pass`. */
MlirLogicalResult dlcScriptRun(DlcScript *s, MlirOperation module, const char *pass, bool print);

void dlcScriptFree(DlcScript *s);

#endif
