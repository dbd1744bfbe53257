/* dlc-gemm-fuse-unpack: a packed-panel GEMM's packed C starts each tile
   from the fill value in its first Kc block and is unpacked (epilogue and
   all) right after the tile's last, instead of in a fill loop and a copy
   loop of their own.

   The packed-panel GEMM (cpu_schedule.c) accumulates into a packed C,
   Cp[P][M][NR], which each parallel tile allocates: a loop nest fills it
   with zeros, the loop over Kc blocks adds each block's products into it
   (every register tile reads its MR x NR block of Cp, runs the block's k
   loop, writes it back), and a last loop nest copies Cp into C's rows,
   with the kernel's epilogue (bias, GELU, a residual) on the way. The
   fill and the copy are passes of their own over Cp, which does not stay
   in L2 between them: at 1024^3 (1 thread, Cp 1 MiB per tile), perf put
   0.7% of the time in the fill's memset, 3.1% in the copy, and 5% in the
   register tiles' loads of Cp (a quarter of them, in the first Kc block,
   of zeros).

   After this pass each register tile's read of Cp, in the first Kc block,
   is the fill value instead (scf.if on the block's index); and in the last
   Kc block, right after the tile writes its MR rows of Cp back, the copy
   loop runs for those rows and that panel only, on data still in L1. The
   fill and the copy loops go. Every element meets the same operations in
   the same order: results are bit-identical (max diff 0 at 1024^3,
   2048^3, 128x768x3072 and the BERT layer).

   Measured (Sapphire Rapids-class Xeon, AVX-512, loaded machine): perf
   finds the fill and the copy gone at 1024^3, the unpack inside the loop
   ~1% of the samples on its stores and prefetches, but the time did not
   follow. AOT libraries interleaved in one process, every library in
   every position in turn (a build compared with a copy of itself differed
   by 2-3% otherwise): 1024^3 (A packed) 141.9 / 141.4 GFLOP/s median
   without and with it at 1 thread, 312.5 / 307.5 at 2; 2048^3 139.7 /
   138.1 and 137.3 / 135.2 (without ahead in 8 and 9 of 12 rounds: rows
   of C 8 KiB apart, whose unpack inside the Kc loop shares L1 sets with
   the panel of B); the BERT layer 15.26 / 15.24 ms. So the CPU pipeline
   runs it only when asked (--lower-to-llvm=fuse-unpack=true), for
   machines whose L2 does not hold the packed C between its passes. The
   write prefetches of C (option prefetch) were neither better nor worse.

   The pass matches the loop nests after bufferization and leaves anything
   else alone. For a memref.alloc Cp [P, M, NR] in a parallel tile's body
   (not a function's: the memory plan may overlap buffers of the
   function's different top-level ops), every use of Cp must be one of

     fill:    scf.for %i < P|M { scf.for %j < M|P {
                transfer_write %splat, subview Cp[.., .., 0] [1, 1, NR] } }
     compute: one op (the Kc loop) holding register tiles
                %t = subview ... Cp [1, MR, NR]; %a = transfer_read %t
                %r = scf.for ... iter_args(%a); transfer_write %r, %t
              under scf.for loops only, of constant bounds, whose tiles
              cover Cp once per Kc block (trip counts x MR = P x M), and
              which writes only to allocations (Cp, the packed B);
     unpack:  scf.for %i < P|M { scf.for %j < M|P { ...
                transfer_read (subview Cp[.., .., 0] [1, 1, NR]) ... } }
              reading Cp there only, nothing compute writes elsewhere;
     and Cp's dealloc. Between compute and unpack only views and constants,
   which move above compute for the unpack's copies to see them. A compute
   that is no loop over Kc blocks (K one block: its tiles cover Cp once
   in all) takes the fill value and unpacks every tile unconditionally. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/index_ops.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/prefetch.h"
#include "support/scf_loops.h"
#include "support/type_bytes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirBlock bodyOf(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

/* lb, ub and step of an scf.for of constant bounds, at least one trip. */
static bool loopBounds(MlirOperation loop, int64_t b[3]) {
  return dlcForConstantBounds(loop, b) && b[1] > b[0];
}

/* The ancestor of `op` (or `op`) directly in `block` (null when none). */
static MlirOperation topIn(MlirBlock block, MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirBlockEqual(mlirOperationGetBlock(op), block))
      return op;
  return op;
}

/* The buffer a view chain starts from, through the workspace's
   memref.view too. */
static MlirValue rootOf(MlirValue v) {
  for (int guard = 0; guard < 64; ++guard) {
    v = dlcMemrefRoot(v);
    if (!mlirValueIsAOpResult(v) || !dlcOpIs(mlirOpResultGetOwner(v), "memref.view"))
      break;
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  }
  return v;
}

static bool isAlloc(MlirValue v) {
  return mlirValueIsAOpResult(v) && dlcOpIs(mlirOpResultGetOwner(v), "memref.alloc");
}

/* A rank-3 subview with static sizes and unit strides. */
static bool subview3(MlirOperation sv) {
  if (!dlcOpIs(sv, "memref.subview") ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(sv, 0))) != 3 ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(sv, 0))) != 3)
    return false;
  for (intptr_t i = 0; i < 3; ++i)
    if (dlcI64ArrayAt(sv, "static_strides", i) != 1 ||
        mlirShapedTypeIsDynamicSize(dlcI64ArrayAt(sv, "static_sizes", i)))
      return false;
  return true;
}

/* A transfer op on `view` at indices all constant 0, without mask. */
static bool atOrigin(MlirOperation xfer, intptr_t firstIndex, intptr_t rank) {
  if (mlirOperationGetNumOperands(xfer) < firstIndex + rank)
    return false;
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t c;
    if (!dlcConstantInt(mlirOperationGetOperand(xfer, firstIndex + i), &c) || c != 0)
      return false;
  }
  /* transfer_read: source, indices, padding [, mask]; write: vector, dest, indices [, mask] */
  intptr_t expected = firstIndex + rank + (dlcOpIs(xfer, "vector.transfer_read") ? 1 : 0);
  return mlirOperationGetNumOperands(xfer) == expected;
}

typedef struct Tile {
  MlirOperation read, write; /* of the register tile's view of Cp */
  int64_t rows;              /* MR */
} Tile;

typedef struct Match {
  MlirValue cp;
  int64_t dims[3]; /* P, M, NR */
  MlirOperation fill, compute, unpack;
  MlirValue fillValue; /* the fill's splat vector<NR> */
  int unpackPanelLoop; /* 0: unpack's outer loop walks the panels, 1: its inner */
  bool kLoop;          /* compute is a loop over Kc blocks */
  Tile *tiles;
  intptr_t nTiles;
} Match;

/* scf.for %a < A { scf.for %b < B { body } } with lb 0, step 1, the outer
   body the inner loop alone; writes both loops. */
static bool loopPair(MlirOperation op, MlirOperation loops[2], int64_t trips[2]) {
  int64_t b[3];
  if (!loopBounds(op, b) || b[0] != 0 || b[2] != 1 || mlirOperationGetNumResults(op) != 0)
    return false;
  MlirOperation inner = mlirBlockGetFirstOperation(bodyOf(op));
  int64_t c[3];
  if (!loopBounds(inner, c) || c[0] != 0 || c[2] != 1 || mlirOperationGetNumResults(inner) != 0 ||
      !dlcOpIs(mlirOperationGetNextInBlock(inner), "scf.yield"))
    return false;
  loops[0] = op, loops[1] = inner, trips[0] = b[1], trips[1] = c[1];
  return true;
}

/* subview Cp[%x, %y, 0] [1, 1, NR] of a loop pair's induction variables
   (either order): which loop walks the panels, or -1. */
static int elementView(const Match *m, MlirOperation sv, MlirOperation loops[2],
                       const int64_t trips[2]) {
  if (!subview3(sv) || !mlirValueEqual(mlirOperationGetOperand(sv, 0), m->cp) ||
      mlirOperationGetNumOperands(sv) != 3 || dlcI64ArrayAt(sv, "static_offsets", 2) != 0 ||
      dlcI64ArrayAt(sv, "static_sizes", 0) != 1 || dlcI64ArrayAt(sv, "static_sizes", 1) != 1 ||
      dlcI64ArrayAt(sv, "static_sizes", 2) != m->dims[2])
    return -1;
  MlirValue x = mlirOperationGetOperand(sv, 1), y = mlirOperationGetOperand(sv, 2);
  for (int panel = 0; panel < 2; ++panel)
    if (mlirValueEqual(x, dlcForInductionVar(loops[panel])) &&
        mlirValueEqual(y, dlcForInductionVar(loops[1 - panel])) && trips[panel] == m->dims[0] &&
        trips[1 - panel] == m->dims[1])
      return panel;
  return -1;
}

/* The fill: a loop pair over Cp whose one op writes a splat constant. */
static bool matchFill(Match *m, MlirOperation top) {
  MlirOperation loops[2];
  int64_t trips[2];
  if (!loopPair(top, loops, trips))
    return false;
  MlirOperation sv = mlirBlockGetFirstOperation(bodyOf(loops[1]));
  MlirOperation w = mlirOperationGetNextInBlock(sv);
  if (elementView(m, sv, loops, trips) < 0 || !dlcOpIs(w, "vector.transfer_write") ||
      !dlcOpIs(mlirOperationGetNextInBlock(w), "scf.yield") ||
      !mlirValueEqual(mlirOperationGetOperand(w, 1), mlirOperationGetResult(sv, 0)) ||
      !atOrigin(w, 2, 3))
    return false;
  MlirValue v = mlirOperationGetOperand(w, 0);
  MlirOperation c = dlcDefiningOp(v, "arith.constant");
  if (mlirOperationIsNull(c) ||
      !mlirAttributeIsADenseElements(mlirOperationGetAttributeByName(c, str("value"))) ||
      !mlirDenseElementsAttrIsSplat(mlirOperationGetAttributeByName(c, str("value"))))
    return false;
  m->fill = top, m->fillValue = v;
  return true;
}

/* The unpack: a loop pair over Cp reading it once, through one view. */
static bool matchUnpack(Match *m, MlirOperation top) {
  MlirOperation loops[2];
  int64_t trips[2];
  if (!loopPair(top, loops, trips))
    return false;
  int panel = -1, views = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(m->cp); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation sv = mlirOpOperandGetOwner(u);
    if (!dlcOpIsAncestor(top, sv))
      continue;
    if (++views > 1 || !mlirOperationEqual(mlirOperationGetParentOperation(sv), loops[1]))
      return false;
    panel = elementView(m, sv, loops, trips);
    MlirOpOperand r = mlirValueGetFirstUse(mlirOperationGetResult(sv, 0));
    if (panel < 0 || mlirOpOperandIsNull(r) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(r)) ||
        !dlcOpIs(mlirOpOperandGetOwner(r), "vector.transfer_read") ||
        mlirOpOperandGetOperandNumber(r) != 0 || !atOrigin(mlirOpOperandGetOwner(r), 1, 3))
      return false;
  }
  if (views != 1)
    return false;
  m->unpack = top, m->unpackPanelLoop = panel;
  return true;
}

/* Ops a compute may hold: loops, arithmetic, vectors, views, loads,
   stores (to allocations, checked apart) and prefetches. */
static bool computeOp(MlirOperation op) {
  static const char *const kOps[] = {
      "scf.for",           "scf.yield",          "scf.if",         "memref.subview",
      "memref.alloc",      "memref.dealloc",     "memref.load",    "memref.store",
      "memref.prefetch",   "memref.expand_shape", "memref.collapse_shape", "affine.apply",
      "ub.poison"};
  if (DLC_OP_IS_ANY(op, kOps))
    return true;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  static const char *const kDialects[] = {"arith.", "vector.", "math."};
  for (size_t i = 0; i < sizeof kDialects / sizeof *kDialects; ++i) {
    size_t n = strlen(kDialects[i]);
    if (name.length > n && memcmp(name.data, kDialects[i], n) == 0)
      return !dlcOpIs(op, "vector.scatter") && !dlcOpIs(op, "vector.compressstore");
  }
  return false;
}

typedef struct Scan {
  Match *m;
  bool ok;
} Scan;

/* The memref an op writes, or null (stores and transfer writes). */
static MlirValue writtenMemref(MlirOperation op) {
  if (dlcOpIs(op, "vector.transfer_write") || dlcOpIs(op, "memref.store") ||
      dlcOpIs(op, "vector.store") || dlcOpIs(op, "vector.maskedstore"))
    return mlirOperationGetOperand(op, 1);
  return (MlirValue){NULL};
}

/* The memref an op reads, or null (loads, transfer reads, gathers and
   prefetches). */
static MlirValue readMemref(MlirOperation op) {
  if (dlcOpIs(op, "vector.transfer_read") || dlcOpIs(op, "memref.load") ||
      dlcOpIs(op, "vector.load") || dlcOpIs(op, "vector.maskedload") ||
      dlcOpIs(op, "vector.gather") || dlcOpIs(op, "memref.prefetch"))
    return mlirOperationGetOperand(op, 0);
  return (MlirValue){NULL};
}

/* A read of Cp's register tile: its only use the init of an scf.for whose
   matching result is written back to the same view. */
static bool tileOf(const Match *m, MlirOperation read, Tile *t) {
  MlirValue view = mlirOperationGetOperand(read, 0);
  intptr_t k = 0, w = 0;
  MlirOperation loop = dlcSoleUser(mlirOperationGetResult(read, 0), &k);
  if (!atOrigin(read, 1, 3) || mlirOperationIsNull(loop))
    return false;
  k -= 3; /* after lb, ub, step */
  if (!dlcOpIs(loop, "scf.for") || k < 0 || k >= mlirOperationGetNumResults(loop))
    return false;
  MlirOperation write = dlcSoleUser(mlirOperationGetResult(loop, k), &w);
  if (!dlcOpIs(write, "vector.transfer_write") || w != 0 ||
      !mlirValueEqual(mlirOperationGetOperand(write, 1), view) || !atOrigin(write, 2, 3) ||
      !mlirOperationEqual(mlirOperationGetParentOperation(write),
                          mlirOperationGetParentOperation(read)) ||
      !mlirOperationIsBeforeInBlock(loop, write))
    return false;
  /* the view: subviews of Cp down to [1, MR, NR] */
  MlirOperation sv = dlcDefiningOp(view, "memref.subview");
  if (mlirOperationIsNull(sv) || !subview3(sv) || dlcI64ArrayAt(sv, "static_sizes", 0) != 1 ||
      dlcI64ArrayAt(sv, "static_sizes", 2) != m->dims[2])
    return false;
  for (MlirOperation s = sv; !mlirOperationIsNull(s);
       s = dlcDefiningOp(mlirOperationGetOperand(s, 0), "memref.subview"))
    if (!subview3(s))
      return false;
  if (!mlirValueEqual(rootOf(view), m->cp))
    return false;
  *t = (Tile){read, write, dlcI64ArrayAt(sv, "static_sizes", 1)};
  return true;
}

static MlirWalkResult scanCompute(MlirOperation op, void *user) {
  Scan *s = user;
  Match *m = s->m;
  if (!computeOp(op)) {
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  MlirValue dst = writtenMemref(op);
  if (!mlirValueIsNull(dst)) {
    MlirValue root = rootOf(dst);
    if (!isAlloc(root)) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    if (mlirValueEqual(root, m->cp)) {
      bool paired = false;
      for (intptr_t i = 0; i < m->nTiles && !paired; ++i)
        paired = mlirOperationEqual(m->tiles[i].write, op);
      if (!paired) { /* the tile's read comes first in a pre-order walk */
        s->ok = false;
        return MlirWalkResultInterrupt;
      }
    }
  }
  MlirValue src = readMemref(op);
  if (!mlirValueIsNull(src) && mlirValueEqual(rootOf(src), m->cp)) {
    Tile t;
    if (!dlcOpIs(op, "vector.transfer_read") || !tileOf(m, op, &t)) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    m->tiles = dlcXrealloc(m->tiles, sizeof *m->tiles * (size_t)(m->nTiles + 1));
    m->tiles[m->nTiles++] = t;
  }
  return MlirWalkResultAdvance;
}

/* Whether index `v` is computed from `iv` (through arith and
   affine.apply, a few ops deep). */
static bool computedFrom(MlirValue v, MlirValue iv, int depth) {
  if (mlirValueEqual(v, iv))
    return true;
  if (depth == 0 || !mlirValueIsAOpResult(v))
    return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(d));
  if (!dlcOpIs(d, "affine.apply") && !(name.length > 6 && memcmp(name.data, "arith.", 6) == 0))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); ++i)
    if (computedFrom(mlirOperationGetOperand(d, i), iv, depth - 1))
      return true;
  return false;
}

/* Whether the tile's view of Cp moves with `iv`: an offset down its
   subview chain is computed from it. */
static bool tileMovesWith(const Match *m, const Tile *t, MlirValue iv) {
  enum { kDepth = 4 };
  for (MlirValue v = mlirOperationGetOperand(t->write, 1); !mlirValueEqual(v, m->cp);) {
    MlirOperation sv = mlirOpResultGetOwner(v);
    for (intptr_t i = 1; i < mlirOperationGetNumOperands(sv); ++i)
      if (computedFrom(mlirOperationGetOperand(sv, i), iv, kDepth))
        return true;
    v = mlirOperationGetOperand(sv, 0);
  }
  return false;
}

/* Rows of Cp a tile's write covers over one pass of `outer`'s body: MR
   times the trips of the loops between (0 when one is not a constant
   scf.for). */
static int64_t rowsCovered(const Tile *t, MlirOperation outer) {
  int64_t rows = t->rows;
  for (MlirOperation p = mlirOperationGetParentOperation(t->write);
       !mlirOperationEqual(p, outer); p = mlirOperationGetParentOperation(p)) {
    int64_t b[3];
    if (!loopBounds(p, b))
      return 0;
    rows = dlcMulSaturate(rows, dlcTripCount(b));
  }
  return rows;
}

/* Whether `op`, between compute and unpack, may move above compute. */
static bool movable(MlirOperation op) {
  static const char *const kViews[] = {"memref.subview", "memref.expand_shape",
                                       "memref.collapse_shape", "arith.constant",
                                       "affine.apply"};
  return DLC_OP_IS_ANY(op, kViews);
}

/* The bytes of a buffer a view covers: its base (an argument, an
   allocation, the workspace a memref.view carves) and, for a static
   memref.view of the workspace, [lo, hi) in it; otherwise all of it. */
typedef struct Span {
  MlirValue base;
  int64_t lo, hi;
} Span;

static Span spanOf(MlirValue v) {
  v = dlcMemrefRoot(v);
  if (!mlirValueIsAOpResult(v) || !dlcOpIs(mlirOpResultGetOwner(v), "memref.view"))
    return (Span){v, 0, INT64_MAX};
  MlirOperation view = mlirOpResultGetOwner(v);
  Span s = {rootOf(v), 0, INT64_MAX};
  int64_t off, bytes = dlcStaticTypeBytes(mlirValueGetType(v));
  if (mlirOperationGetNumOperands(view) == 2 &&
      dlcConstantInt(mlirOperationGetOperand(view, 1), &off) && bytes >= 0 && off >= 0)
    s.lo = off, s.hi = dlcAddSaturate(off, bytes);
  return s;
}

static bool overlap(Span a, Span b) {
  return mlirValueEqual(a.base, b.base) && a.lo < b.hi && b.lo < a.hi;
}

typedef struct SpanList {
  Span *s;
  intptr_t n;
} SpanList;

/* What a region reads and writes; ok false when it calls or copies,
   whose effects are not read here. */
typedef struct Spans {
  SpanList reads, writes;
  bool ok;
} Spans;

static void pushSpan(SpanList *l, MlirValue v) {
  l->s = dlcXrealloc(l->s, sizeof *l->s * (size_t)(l->n + 1));
  l->s[l->n++] = spanOf(v);
}

static MlirWalkResult collectSpans(MlirOperation op, void *user) {
  Spans *l = user;
  if (dlcOpIs(op, "func.call") || dlcOpIs(op, "memref.copy")) {
    l->ok = false;
    return MlirWalkResultInterrupt;
  }
  MlirValue r = readMemref(op), w = writtenMemref(op);
  if (!mlirValueIsNull(r))
    pushSpan(&l->reads, r);
  if (!mlirValueIsNull(w))
    pushSpan(&l->writes, w);
  return MlirWalkResultAdvance;
}

/* The unpack, run inside the compute, must not change what the compute
   reads, nor read what it writes (other than Cp, whose tile it unpacks
   once written): the compute writes allocations only (scanCompute), the
   unpack reads none of those but Cp; what the unpack writes (C, in the
   caller's buffer or the workspace) is checked against every read of the
   compute: another buffer, or disjoint bytes of the workspace. */
static bool independent(const Match *m) {
  Spans u = {.ok = true}, c = {.ok = true};
  mlirOperationWalk(m->unpack, collectSpans, &u, MlirWalkPreOrder);
  mlirOperationWalk(m->compute, collectSpans, &c, MlirWalkPreOrder);
  bool ok = u.ok && c.ok;
  for (intptr_t i = 0; ok && i < u.writes.n; ++i) {
    ok = !mlirValueEqual(u.writes.s[i].base, m->cp);
    for (intptr_t j = 0; ok && j < c.reads.n; ++j)
      ok = !overlap(u.writes.s[i], c.reads.s[j]);
  }
  for (intptr_t i = 0; ok && i < u.reads.n; ++i)
    for (intptr_t j = 0; ok && j < c.writes.n; ++j)
      ok = mlirValueEqual(u.reads.s[i].base, m->cp) || !overlap(u.reads.s[i], c.writes.s[j]);
  free(u.reads.s), free(u.writes.s), free(c.reads.s), free(c.writes.s);
  return ok;
}

static bool matchAlloc(MlirOperation alloc, Match *m) {
  MlirValue cp = mlirOperationGetResult(alloc, 0);
  MlirType t = mlirValueGetType(cp);
  MlirBlock block = mlirOperationGetBlock(alloc);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  *m = (Match){.cp = cp};
  if (mlirShapedTypeGetRank(t) != 3 || !mlirShapedTypeHasStaticShape(t) ||
      !mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) || mlirOperationIsNull(parent) ||
      dlcOpIs(parent, "func.func"))
    return false;
  for (int i = 0; i < 3; ++i)
    m->dims[i] = mlirShapedTypeGetDimSize(t, i);
  /* the top-level ops of the block that use Cp, in order */
  MlirOperation tops[3];
  int n = 0;
  for (MlirOperation op = mlirOperationGetNextInBlock(alloc); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    bool uses = false;
    for (MlirOpOperand u = mlirValueGetFirstUse(cp); !mlirOpOperandIsNull(u) && !uses;
         u = mlirOpOperandGetNextUse(u))
      uses = mlirOperationEqual(topIn(block, mlirOpOperandGetOwner(u)), op);
    if (!uses || dlcOpIs(op, "memref.dealloc"))
      continue;
    if (n == 3)
      return false;
    tops[n++] = op;
  }
  int c = 0;
  if (n >= 2 && matchFill(m, tops[0]))
    c = 1;
  if (c >= n)
    return false;
  m->compute = tops[c];
  if (mlirOperationGetNumResults(m->compute) != 0)
    return false;
  if (c + 1 < n && !matchUnpack(m, tops[c + 1]))
    return false;
  if (n > c + 2)
    return false;
  if (mlirOperationIsNull(m->fill) && mlirOperationIsNull(m->unpack))
    return false;
  /* the compute: register tiles only, writing allocations only */
  Scan s = {m, true};
  mlirOperationWalk(m->compute, scanCompute, &s, MlirWalkPreOrder);
  if (!s.ok || m->nTiles == 0)
    return false;
  /* The rows the tiles cover in one pass of the compute's body: all of
     Cp makes the compute a loop over Kc blocks (each block adds into every
     tile once); all of Cp over all its passes, a compute that adds each
     tile once in all (K one block). Anything else is left alone. */
  int64_t perPass = 0, kb[3];
  for (intptr_t i = 0; i < m->nTiles; ++i)
    perPass = dlcAddSaturate(perPass, rowsCovered(&m->tiles[i], m->compute));
  int64_t cover = m->dims[0] * m->dims[1];
  bool loop = loopBounds(m->compute, kb);
  if (loop && perPass == cover) {
    m->kLoop = true;
  } else if (loop && dlcMulSaturate(perPass, dlcTripCount(kb)) == cover) {
    /* the compute loop walks tiles (panels, Mc blocks), not Kc blocks:
       each tile must move with it, else it revisits the same tiles */
    for (intptr_t i = 0; i < m->nTiles; ++i)
      if (!tileMovesWith(m, &m->tiles[i], dlcForInductionVar(m->compute)))
        return false;
  } else if (loop || dlcOpIs(m->compute, "scf.for") || perPass != cover) {
    return false;
  }
  if (!mlirOperationIsNull(m->unpack)) {
    for (MlirOperation op = mlirOperationGetNextInBlock(m->compute);
         !mlirOperationEqual(op, m->unpack); op = mlirOperationGetNextInBlock(op))
      if (!movable(op))
        return false;
    if (!independent(m))
      return false;
  }
  return true;
}

/* scf.if `cond` with then and else blocks (empty, no terminators yet) and
   `nResults` results of `types`. */
static MlirOperation buildIf(DlcBuilder *b, MlirValue cond, intptr_t nResults,
                             const MlirType *types, MlirBlock blocks[2]) {
  MlirOperationState st = mlirOperationStateGet(str("scf.if"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  mlirOperationStateAddResults(&st, nResults, types);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  for (int i = 0; i < 2; ++i) {
    blocks[i] = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[i], blocks[i]);
  }
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

/* Whether this iteration of the Kc loop is its first (which = 0) or last. */
static MlirValue kBlockIs(DlcBuilder *b, MlirOperation kLoop, int which) {
  int64_t kb[3];
  loopBounds(kLoop, kb);
  int64_t at = which == 0 ? kb[0] : kb[0] + (dlcTripCount(kb) - 1) * kb[2];
  return dlcIndexCmp(b, DLC_CMPI_EQ, dlcForInductionVar(kLoop), dlcIndexConst(b, at));
}

/* The tile's read of Cp: the fill value in the first Kc block. */
static void fillFirst(const Match *m, const Tile *t) {
  MlirOperation rd = t->read;
  MlirLocation loc = mlirOperationGetLocation(rd);
  DlcBuilder b = dlcBuilderBefore(rd, loc);
  MlirType vt = mlirValueGetType(mlirOperationGetResult(rd, 0));
  MlirOperation fillConst = mlirOpResultGetOwner(m->fillValue);
  MlirAttribute splat = mlirDenseElementsAttrGetSplatValue(
      mlirOperationGetAttributeByName(fillConst, str("value")));
  MlirValue init = dlcBuildValue(
      &b, "arith.constant", 0, NULL,
      DLC_ATTRS(dlcNamed(b.context, "value", mlirDenseElementsAttrSplatGet(vt, splat))));
  if (!m->kLoop) {
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(rd, 0), init);
    mlirOperationDestroy(rd);
    return;
  }
  MlirBlock blocks[2];
  MlirOperation ifOp = buildIf(&b, kBlockIs(&b, m->compute, 0), 1, &vt, blocks);
  DlcBuilder t0 = dlcBuilderAtEnd(blocks[0], loc);
  dlcBuildOpTyped(&t0, "scf.yield", DLC_VALUES(init), 0, NULL, DLC_NO_ATTRS);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(rd, 0), mlirOperationGetResult(ifOp, 0));
  mlirOperationRemoveFromParent(rd);
  mlirBlockAppendOwnedOperation(blocks[1], rd);
  DlcBuilder t1 = dlcBuilderAtEnd(blocks[1], loc);
  dlcBuildOpTyped(&t1, "scf.yield", DLC_VALUES(mlirOperationGetResult(rd, 0)), 0, NULL,
                  DLC_NO_ATTRS);
}

/* Offset of the tile's view in dimension `d` of Cp: the sum down its
   subview chain, as an index value built by `b`. */
static MlirValue offsetIn(DlcBuilder *b, const Match *m, MlirValue view, int d) {
  int64_t fixed = 0;
  MlirValue sum = (MlirValue){NULL};
  while (!mlirValueEqual(view, m->cp)) {
    MlirOperation sv = mlirOpResultGetOwner(view);
    int64_t off = dlcI64ArrayAt(sv, "static_offsets", d);
    if (mlirShapedTypeIsDynamicStrideOrOffset(off)) {
      intptr_t operand = 1; /* the dynamic offsets, in dimension order */
      for (int i = 0; i < d; ++i)
        operand += mlirShapedTypeIsDynamicStrideOrOffset(dlcI64ArrayAt(sv, "static_offsets", i));
      MlirValue v = mlirOperationGetOperand(sv, operand);
      sum = mlirValueIsNull(sum) ? v : dlcIndexOp(b, "arith.addi", sum, v);
    } else {
      fixed += off;
    }
    view = mlirOperationGetOperand(sv, 0);
  }
  if (mlirValueIsNull(sum))
    return dlcIndexConst(b, fixed);
  return fixed ? dlcIndexOp(b, "arith.addi", sum, dlcIndexConst(b, fixed)) : sum;
}

static MlirWalkResult collectWrites(MlirOperation op, void *user) {
  if (dlcOpIs(op, "vector.transfer_write"))
    dlcOpListPush(user, op);
  return MlirWalkResultAdvance;
}

/* The unpack's writes of C in `nest` (a copy) become write prefetches of
   the lines they store: a register tile's MR rows of C are MR lines (or
   pairs) a row apart, which the hardware prefetchers do not follow, so
   the unpack after the last Kc block would wait on each. Prefetched
   before that block's k loop, they arrive while it runs. */
static void prefetchInstead(const Match *m, MlirOperation nest) {
  enum { kLocality = 3 };
  DlcOpList writes = {0};
  mlirOperationWalk(nest, collectWrites, &writes, MlirWalkPreOrder);
  for (intptr_t i = 0; i < writes.n; ++i) {
    MlirOperation w = writes.ops[i];
    MlirValue dst = mlirOperationGetOperand(w, 1);
    MlirType vt = mlirValueGetType(mlirOperationGetOperand(w, 0));
    intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(dst));
    if (mlirValueEqual(rootOf(dst), m->cp) || mlirShapedTypeGetRank(vt) != 1 ||
        mlirOperationGetNumOperands(w) != 2 + rank || rank < 1 || rank > 6)
      continue;
    int64_t len = mlirShapedTypeGetDimSize(vt, 0);
    DlcBuilder b = dlcBuilderBefore(w, mlirOperationGetLocation(w));
    MlirValue idx[7];
    idx[0] = dst;
    for (intptr_t d = 0; d < rank; ++d)
      idx[1 + d] = mlirOperationGetOperand(w, 2 + d);
    MlirValue last = idx[rank];
    for (int64_t j = 0; j < dlcRowPrefetches(len); ++j) {
      int64_t at = dlcRowPrefetchAt(j, len);
      idx[rank] = at ? dlcIndexOp(&b, "arith.addi", last, dlcIndexConst(&b, at)) : last;
      dlcBuildPrefetch(&b, 1 + rank, idx, true, kLocality);
    }
    mlirOperationDestroy(w);
  }
  dlcOpListFree(&writes);
}

/* At `at`, in the last Kc block: the unpack loops for the tile's rows and
   panel, or (prefetch) their prefetches of C. */
static void unpackAt(const Match *m, const Tile *t, MlirOperation at, bool prefetch) {
  MlirLocation loc = mlirOperationGetLocation(t->write);
  DlcBuilder b = dlcBuilderBefore(at, loc);
  MlirBlock blocks[2];
  if (m->kLoop) {
    buildIf(&b, kBlockIs(&b, m->compute, 1), 0, NULL, blocks);
    DlcBuilder e = dlcBuilderAtEnd(blocks[1], loc);
    dlcBuildOpTyped(&e, "scf.yield", 0, NULL, 0, NULL, DLC_NO_ATTRS);
    DlcBuilder y = dlcBuilderAtEnd(blocks[0], loc);
    MlirOperation yield = dlcBuildOpTyped(&y, "scf.yield", 0, NULL, 0, NULL, DLC_NO_ATTRS);
    b = dlcBuilderBefore(yield, loc);
  }
  MlirValue view = mlirOperationGetOperand(t->write, 1);
  MlirValue p0 = offsetIn(&b, m, view, 0), m0 = offsetIn(&b, m, view, 1);
  MlirValue p1 = dlcIndexOp(&b, "arith.addi", p0, dlcIndexConst(&b, 1));
  MlirValue m1 = dlcIndexOp(&b, "arith.addi", m0, dlcIndexConst(&b, t->rows));
  MlirOperation outer = dlcBuilderInsert(&b, mlirOperationClone(m->unpack));
  MlirOperation inner = mlirBlockGetFirstOperation(bodyOf(outer));
  MlirOperation panelLoop = m->unpackPanelLoop == 0 ? outer : inner;
  MlirOperation rowLoop = m->unpackPanelLoop == 0 ? inner : outer;
  mlirOperationSetOperand(panelLoop, 0, p0);
  mlirOperationSetOperand(panelLoop, 1, p1);
  mlirOperationSetOperand(rowLoop, 0, m0);
  mlirOperationSetOperand(rowLoop, 1, m1);
  if (prefetch)
    prefetchInstead(m, outer);
}

/* The tile's k loop: the scf.for its read of Cp initialises. */
static MlirOperation tileLoop(const Tile *t) {
  return mlirOpOperandGetOwner(mlirValueGetFirstUse(mlirOperationGetResult(t->read, 0)));
}

static void rewrite(Match *m, bool prefetch) {
  if (!mlirOperationIsNull(m->unpack)) {
    /* the views the unpack's copies use, above the compute */
    MlirOperation op = mlirOperationGetNextInBlock(m->compute);
    while (!mlirOperationEqual(op, m->unpack)) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      mlirOperationMoveBefore(op, m->compute);
      op = next;
    }
  }
  for (intptr_t i = 0; i < m->nTiles; ++i) {
    if (!mlirOperationIsNull(m->unpack)) {
      if (prefetch)
        unpackAt(m, &m->tiles[i], tileLoop(&m->tiles[i]), true);
      unpackAt(m, &m->tiles[i], mlirOperationGetNextInBlock(m->tiles[i].write), false);
    }
    if (!mlirOperationIsNull(m->fill))
      fillFirst(m, &m->tiles[i]);
  }
  if (!mlirOperationIsNull(m->fill))
    mlirOperationDestroy(m->fill);
  if (!mlirOperationIsNull(m->unpack))
    mlirOperationDestroy(m->unpack);
  mlirOperationSetDiscardableAttributeByName(m->compute, str("dlc.fused_unpack"),
                                             mlirUnitAttrGet(mlirOperationGetContext(m->compute)));
}

static MlirWalkResult collectAllocs(MlirOperation op, void *user) {
  if (dlcOpIs(op, "memref.alloc"))
    dlcOpListPush(user, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  DlcOpList allocs = {0};
  mlirOperationWalk(func, collectAllocs, &allocs, MlirWalkPreOrder);
  for (intptr_t i = 0; i < allocs.n; ++i) {
    Match m = {0};
    if (matchAlloc(allocs.ops[i], &m))
      rewrite(&m, dlcOptionsGetBool(dlcPassGetOptions(pass), "prefetch"));
    free(m.tiles);
  }
  dlcOpListFree(&allocs);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"prefetch", "prefetch (for writing) the lines of C each register tile's unpack stores, "
                 "before the last Kc block's k loop",
     DLC_OPTION_BOOL, "true"},
};

const DlcPassDescriptor dlcGemmFuseUnpackPass = {
    .argument = "dlc-gemm-fuse-unpack",
    .summary = "Start a packed-panel GEMM's packed C from the fill value in the first Kc block "
               "and unpack each register tile (epilogue included) right after its last, instead "
               "of in fill and copy loops of their own",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .run = run,
};
