/* dlc-gemm-pack-a: a packed-panel GEMM whose A does not fit L2 reads each
   Mc x Kc block of A from a packed copy, Ap[Mc / MR][Kc][MR], made once
   per block, instead of from A's rows (BLIS's packed A). MR is the
   register tile's height: 8 with AVX-512, 6 with AVX2.

   The packed-panel GEMM (cost_model.h, cpu_schedule.c) walks, inside a
   Kc block, its Mc x Kc block of A once per panel of B. The MR x NR
   register tile reads one float from each of MR rows per k step. Where A
   is larger than L2, the first panel's pass brings the block from L3 as
   MR short runs (Kc floats of a row each) per register tile, which the
   hardware prefetchers pick up late, and every later panel reads it from
   L2 scattered over rows 4 KiB or more apart. Packed, the block is one
   contiguous run: a copy loop reads A's rows whole, a vector at a time,
   transposes MR x 16 (AVX-512) or MR x 8 tiles in registers, and the
   register tiles read MR consecutive floats per k step.

   Measured with a C model of dlc's loop nest (Sapphire Rapids-class Xeon,
   2048^3, 1 thread, rounds interleaved): A read in place 155-160 GFLOP/s;
   the same nest with A always in L2 (an upper bound) 183; packed per
   block, with Nc = 1024 so each packed block serves 32 panels, 170-175.
   Packed with Nc = 256 (8 panels) it gained nothing: the copy is a pass of
   its own over A and needs enough panels to repay it.

   What it rewrites, after bufferization and the loops of the schedule
   (anything else is left alone):

     %blk = memref.subview %A[..] [R, Kc] [1, 1]    // the Mc x Kc block
     ...
       %sv = memref.subview %blk[%m, %kk] [MR, 1] [1, 1]
       %r = vector.transfer_read %sv : vector<MRx1xf32>  // one k step's A
       %t = vector.transpose %r, [1, 0]
       %a = vector.extract %t[0] : vector<MRxf32>

   with MR at most 8, the same in every read of %blk, %m a multiple of MR
   (a loop's induction variable, lower bound and step multiples of MR), R
   a multiple of MR, Kc of the copy's columns, A's rows contiguous. After
   the rewrite %blk is copied into Ap right where it is defined (a call of
   a private copy function, one per block type and MR), or before the
   serial loops around it that it does not depend on (AVX2's 6-row tiles
   leave an Mc of 128 as blocks of 126 and 2 rows, viewed inside the loop
   over B's panels), Ap freed at the end of that block, and %a is the MR
   floats Ap[%m / MR][%kk * MR + i], as scalar loads that LLVM folds into
   the FMAs' broadcasts as before. The sums keep their order, so results
   are bit-identical. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Text.h"
#include "schedule/cost_model.h"
#include "support/index_ops.h"
#include "support/op_list.h"
#include "support/scf_loops.h"
#include "support/type_bytes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Panels are at most kMaxRows high. The copy transposes tiles of 8 rows
   by 16 floats (kWideLanes, with AVX-512 and 8-row panels) or of up to 8
   rows by 8 floats (kLanes, with AVX2 or shorter panels). */
enum { kMaxRows = 8, kWideLanes = 16, kLanes = 8 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A rank-2 memref.subview with unit strides and static sizes (written). */
static bool subview2(MlirOperation sv, int64_t sizes[2]) {
  if (!dlcOpIs(sv, "memref.subview") ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(sv, 0))) != 2)
    return false;
  for (intptr_t i = 0; i < 2; ++i) {
    sizes[i] = dlcI64ArrayAt(sv, "static_sizes", i);
    if (sizes[i] <= 0 || dlcI64ArrayAt(sv, "static_strides", i) != 1)
      return false;
  }
  return true;
}

/* Whether index `v` is always a multiple of `k`: a constant, or the
   induction variable of an scf.for whose constant bounds keep it so. */
static bool multipleOf(MlirValue v, int64_t k) {
  int64_t c;
  if (dlcConstantInt(v, &c))
    return c % k == 0;
  if (!mlirValueIsABlockArgument(v) || mlirBlockArgumentGetArgNumber(v) != 0)
    return false;
  MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  int64_t lb, step;
  return dlcOpIs(loop, "scf.for") && dlcConstantInt(mlirOperationGetOperand(loop, 0), &lb) &&
         dlcConstantInt(mlirOperationGetOperand(loop, 2), &step) && lb % k == 0 && step % k == 0;
}

/* The only user of `op`'s result, or null. */
static MlirOperation soleUser(MlirOperation op) {
  return dlcSoleUser(mlirOperationGetResult(op, 0), NULL);
}

typedef struct Read {
  MlirOperation read, transpose, extract, elem; /* elem: %blk[%m, %kk] [MR, 1] */
  MlirOperation blk;
  int64_t rows; /* MR */
} Read;

typedef struct Collect {
  int64_t minBytes;
  Read *reads;
  intptr_t n;
} Collect;

/* Bytes of the matrix A whose block `m` is (-1 when not static), as the
   lowering and the cost model count it (M x K floats): the buffer the
   chain of subviews starts from, or, where the first subview is a
   corner of it with all its rows (A inside the copy whose rows row
   padding lengthened), that corner. */
static int64_t matrixBytes(MlirValue m) {
  MlirOperation top = {NULL};
  for (int guard = 0; guard < 32; ++guard) {
    MlirOperation d = dlcDefiningOp(m, "memref.subview");
    if (mlirOperationIsNull(d))
      break;
    top = d, m = mlirOperationGetOperand(d, 0);
  }
  if (mlirOperationIsNull(top))
    return dlcStaticTypeBytes(mlirValueGetType(m));
  MlirType src = mlirValueGetType(m), corner = mlirValueGetType(mlirOperationGetResult(top, 0));
  bool zero = mlirOperationGetNumOperands(top) == 1;
  for (intptr_t i = 0; zero && i < mlirShapedTypeGetRank(corner); ++i)
    zero = dlcI64ArrayAt(top, "static_offsets", i) == 0;
  bool allRows = mlirShapedTypeGetRank(src) == 2 && mlirShapedTypeGetRank(corner) == 2 &&
                 mlirShapedTypeGetDimSize(src, 0) == mlirShapedTypeGetDimSize(corner, 0);
  return dlcStaticTypeBytes(zero && allRows ? corner : src);
}

/* Whether the last dim of memref type `t` has unit stride. */
static bool rowsContiguous(MlirType t) {
  int64_t strides[2], offset;
  return mlirShapedTypeGetRank(t) == 2 &&
         mlirLogicalResultIsSuccess(mlirMemRefTypeGetStridesAndOffset(t, strides, &offset)) &&
         strides[1] == 1;
}

/* One k step's read of MR <= 8 rows of A's block (the comment at the top). */
static bool matchRead(MlirOperation read, const Collect *c, Read *out) {
  MlirType vt = mlirValueGetType(mlirOperationGetResult(read, 0));
  if (mlirOperationGetNumResults(read) != 1 || !mlirTypeIsAVector(vt) ||
      mlirShapedTypeGetRank(vt) != 2 || mlirShapedTypeGetDimSize(vt, 0) > kMaxRows ||
      mlirShapedTypeGetDimSize(vt, 1) != 1 || !mlirTypeIsAF32(mlirShapedTypeGetElementType(vt)))
    return false;
  int64_t mr = mlirShapedTypeGetDimSize(vt, 0);
  MlirOperation tr = soleUser(read), ex = mlirOperationIsNull(tr) ? tr : soleUser(tr);
  if (!dlcOpIs(tr, "vector.transpose") || !dlcOpIs(ex, "vector.extract") ||
      mlirOperationGetNumOperands(ex) != 1 || dlcI64ArrayAt(tr, "permutation", 0) != 1 ||
      dlcI64ArrayAt(ex, "static_position", 0) != 0 ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(ex, 0))) != 1)
    return false;
  MlirOperation elem = dlcDefiningOp(mlirOperationGetOperand(read, 0), "memref.subview");
  int64_t es[2], bs[2];
  if (mlirOperationIsNull(elem) || !subview2(elem, es) || es[0] != mr || es[1] != 1)
    return false;
  /* the indices of the read are constant zeros, the subview's offsets
     dynamic or static: the row offset a multiple of 8 either way */
  for (intptr_t i = 1; i < mlirOperationGetNumOperands(read) - 1; ++i) {
    int64_t z;
    if (!dlcConstantInt(mlirOperationGetOperand(read, i), &z) || z != 0)
      return false;
  }
  MlirValue src = mlirOperationGetOperand(elem, 0);
  MlirOperation blk = dlcDefiningOp(src, "memref.subview");
  if (mlirOperationIsNull(blk) || !subview2(blk, bs) || bs[0] % mr || bs[1] % kLanes ||
      !rowsContiguous(mlirValueGetType(src)) || matrixBytes(src) <= c->minBytes)
    return false;
  int64_t off0 = dlcI64ArrayAt(elem, "static_offsets", 0);
  if (mlirShapedTypeIsDynamicStrideOrOffset(off0)) {
    if (!multipleOf(mlirOperationGetOperand(elem, 1), mr))
      return false;
  } else if (off0 % mr) {
    return false;
  }
  *out = (Read){read, tr, ex, elem, blk, mr};
  return true;
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  Collect *c = user;
  Read r;
  if (dlcOpIs(op, "vector.transfer_read") && matchRead(op, c, &r)) {
    c->reads = dlcXrealloc(c->reads, sizeof *c->reads * (size_t)(c->n + 1));
    c->reads[c->n++] = r;
  }
  return MlirWalkResultAdvance;
}

/*--- The copy function ------------------------------------------------------*/

/* A shuffle of the `n`-lane vectors %a and %b into %out; lane j takes
   pick(j, n) (0 to n - 1 from a, n to 2n - 1 from b). */
typedef int (*Pick)(int j, int n);
static void shuffle(FILE *f, const char *out, const char *a, const char *b, Pick pick, int n) {
  fprintf(f, "      %s = vector.shuffle %s, %s [", out, a, b);
  for (int j = 0; j < n; ++j)
    fprintf(f, "%s%d", j ? ", " : "", pick(j, n));
  fprintf(f, "] : vector<%dxf32>, vector<%dxf32>\n", n, n);
}

/* The x86 shuffles of a transpose, lane by lane (L: the 128-bit lane, i:
   the float in it): unpcklps/unpckhps, shufps of pairs, and the 128-bit
   lane shuffles (vperm2f128 for 8 lanes; for 16, lanes [a.0, a.2, b.0,
   b.2] and [a.1, a.3, b.1, b.3]). */
static int unpackLo(int j, int n) {
  int L = j / 4, i = j % 4;
  return 4 * L + i / 2 + (i % 2) * n;
}
static int unpackHi(int j, int n) { return unpackLo(j, n) + 2; }
static int pairsLo(int j, int n) {
  int L = j / 4, i = j % 4;
  return 4 * L + i % 2 + (i / 2) * n;
}
static int pairsHi(int j, int n) { return pairsLo(j, n) + 2; }
static int lanesEven(int j, int n) {
  int L = j / 4, i = j % 4;
  return n == kLanes ? L * n + i : (L / 2) * n + (L % 2) * 8 + i;
}
static int lanesOdd(int j, int n) { return lanesEven(j, n) + 4; }

/* The first two rounds of a transpose of 8 row vectors of n lanes, %x0
   to %x<mr - 1> and, past mr, %x0 again (lanes never stored): %u[h + q]
   holds rows h..h+3 of the columns 4L + q in 128-bit lane L. */
static void transposeRounds(FILE *f, int n, int mr) {
  char a[8], b[8], o[8];
  for (int i = 0; i < kMaxRows; i += 2) { /* rows i, i+1 interleaved */
    snprintf(a, sizeof a, "%%x%d", i < mr ? i : 0);
    snprintf(b, sizeof b, "%%x%d", i + 1 < mr ? i + 1 : 0);
    snprintf(o, sizeof o, "%%t%d", i), shuffle(f, o, a, b, unpackLo, n);
    snprintf(o, sizeof o, "%%t%d", i + 1), shuffle(f, o, a, b, unpackHi, n);
  }
  for (int h = 0; h < kMaxRows; h += 4) {
    const Pick picks[4] = {pairsLo, pairsHi, pairsLo, pairsHi};
    for (int q = 0; q < 4; ++q) {
      snprintf(a, sizeof a, "%%t%d", h + q / 2), snprintf(b, sizeof b, "%%t%d", h + q / 2 + 2);
      snprintf(o, sizeof o, "%%u%d", h + q), shuffle(f, o, a, b, picks[q], n);
    }
  }
}

/* Store %w<k> at column %o + off of the group's panel. */
static void storeAt(FILE *f, const char *w, int off, const char *dst, int n) {
  fprintf(f, "      %%i_%s = arith.addi %%o, %%c%d_ : index\n", w + 1, off);
  fprintf(f, "      vector.store %s, %%dst[%%g, %%i_%s] : %s, vector<%dxf32>\n", w, w + 1, dst, n);
}

/* 8 rows x 16 columns: the third round leaves %e/%f with rows 0-3 and
   4-7 of columns apart, a fourth gives 8 vectors of 2 k steps x 8 rows. */
static void wideBody(FILE *f, const char *dst) {
  enum { n = kWideLanes };
  for (int q = 0; q < 4; q += 2) {
    char x0[8], x1[8], y0[8], y1[8], u0[8], u1[8], u4[8], u5[8], o[8];
    snprintf(u0, sizeof u0, "%%u%d", q), snprintf(u1, sizeof u1, "%%u%d", q + 1);
    snprintf(u4, sizeof u4, "%%u%d", q + 4), snprintf(u5, sizeof u5, "%%u%d", q + 5);
    snprintf(x0, sizeof x0, "%%e%d", q), snprintf(x1, sizeof x1, "%%e%d", q + 1);
    snprintf(y0, sizeof y0, "%%f%d", q), snprintf(y1, sizeof y1, "%%f%d", q + 1);
    shuffle(f, x0, u0, u4, lanesEven, n), shuffle(f, x1, u1, u5, lanesEven, n);
    shuffle(f, y0, u0, u4, lanesOdd, n), shuffle(f, y1, u1, u5, lanesOdd, n);
    const struct {
      const char *a, *b;
      Pick pick;
      int k;
    } outs[4] = {{x0, x1, lanesEven, q},
                 {x0, x1, lanesOdd, q + 8},
                 {y0, y1, lanesEven, q + 4},
                 {y0, y1, lanesOdd, q + 12}};
    for (int j = 0; j < 4; ++j) {
      snprintf(o, sizeof o, "%%w%d", outs[j].k);
      shuffle(f, o, outs[j].a, outs[j].b, outs[j].pick, n);
      storeAt(f, o, outs[j].k * kMaxRows, dst, n);
    }
  }
}

/* MR rows x 8 columns: the third round gives %y<k> = column k of the 8
   rows; MR output vectors take the MR x 8 floats in order, each from the
   two or more columns it spans, merged one shuffle per column. */
static void narrowBody(FILE *f, const char *dst, int mr) {
  enum { n = kLanes };
  char a[8], b[8], o[8];
  for (int q = 0; q < 4; ++q) {
    snprintf(a, sizeof a, "%%u%d", q), snprintf(b, sizeof b, "%%u%d", q + 4);
    snprintf(o, sizeof o, "%%y%d", q), shuffle(f, o, a, b, lanesEven, n);
    snprintf(o, sizeof o, "%%y%d", q + 4), shuffle(f, o, a, b, lanesOdd, n);
  }
  for (int v = 0; v < mr; ++v) {
    int first = v * n / mr, last = (v * n + n - 1) / mr;
    char acc[16];
    snprintf(acc, sizeof acc, "%%y%d", first);
    for (int k = first + 1; k <= last; ++k) {
      /* lanes of column k from %y<k>, the others kept */
      fprintf(f, "      %%w%d_%d = vector.shuffle %s, %%y%d [", v, k, acc, k);
      for (int l = 0; l < n; ++l) {
        int j = v * n + l;
        int pick = j / mr == k ? n + j % mr : j / mr < k && k == first + 1 ? j % mr : l;
        fprintf(f, "%s%d", l ? ", " : "", pick);
      }
      fprintf(f, "] : vector<%dxf32>, vector<%dxf32>\n", n, n);
      snprintf(acc, sizeof acc, "%%w%d_%d", v, k);
    }
    storeAt(f, acc, v * n, dst, n);
  }
}

/* func.func private @name(%src: <block type>, %dst: memref<R/MR x Kc*MR>):
   for each MR-row group, for each `lanes` columns: MR row vectors in, the
   tile transposed by rounds of shuffles, MR x lanes floats out. */
static char *copyFunction(const char *name, MlirType srcType, int64_t rows, int64_t kc, int mr,
                          int lanes) {
  DlcText ty = {0};
  mlirTypePrint(srcType, dlcTextAppend, &ty);
  const char *st = dlcTextGet(&ty);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    dlcTextFree(&ty);
    return NULL;
  }
  char dst[64];
  snprintf(dst, sizeof dst, "memref<%lldx%lldxf32>", (long long)(rows / mr), (long long)(kc * mr));
  fprintf(f, "func.func private @%s(%%src: %s, %%dst: %s) {\n", name, st, dst);
  fprintf(f, "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n");
  for (int v = 1; v < lanes * kMaxRows; ++v) /* row and column offsets, %cN_ */
    if (v < kMaxRows || v % kMaxRows == 0)
      fprintf(f, "  %%c%d_ = arith.constant %d : index\n", v, v);
  fprintf(f, "  %%c0_ = arith.constant 0 : index\n");
  fprintf(f, "  %%mr = arith.constant %d : index\n  %%lanes = arith.constant %d : index\n", mr,
          lanes);
  fprintf(f, "  %%groups = arith.constant %lld : index\n  %%kc = arith.constant %lld : index\n",
          (long long)(rows / mr), (long long)kc);
  fprintf(f, "  %%last = arith.constant %lld : index\n", (long long)(rows - 1));
  fprintf(f, "  scf.for %%g = %%c0 to %%groups step %%c1 {\n");
  fprintf(f, "    %%r0 = arith.muli %%g, %%mr : index\n");
  for (int i = 1; i < mr; ++i)
    fprintf(f, "    %%r%d = arith.addi %%r0, %%c%d_ : index\n", i, i);
  for (int i = 0; i < mr; ++i) /* the next group's rows (the last row at the end) */
    fprintf(f, "    %%n%d_ = arith.addi %%r%d, %%mr : index\n"
               "    %%n%d = arith.minui %%n%d_, %%last : index\n", i, i, i, i);
  fprintf(f, "    scf.for %%k = %%c0 to %%kc step %%lanes {\n");
  fprintf(f, "      %%o = arith.muli %%k, %%mr : index\n");
  for (int i = 0; i < mr; ++i) {
    fprintf(f, "      %%x%d = vector.load %%src[%%r%d, %%k] : %s, vector<%dxf32>\n", i, i, st,
            lanes);
    fprintf(f, "      memref.prefetch %%src[%%n%d, %%k], read, locality<3>, data : %s\n", i, st);
  }
  if (mr == 1) { /* one row: the row itself */
    storeAt(f, "%x0", 0, dst, lanes);
  } else {
    transposeRounds(f, lanes, mr);
    if (lanes == kWideLanes)
      wideBody(f, dst);
    else
      narrowBody(f, dst, mr);
  }
  fprintf(f, "    }\n  }\n  return\n}\n");
  fclose(f);
  dlcTextFree(&ty);
  return text;
}

/*--- The rewrite --------------------------------------------------------------*/

/* Offset `i` of subview `sv`: its operand when dynamic, else a constant. */
static MlirValue offsetOf(DlcBuilder *b, MlirOperation sv, intptr_t i) {
  intptr_t operand = 1;
  for (intptr_t d = 0; d < i; ++d)
    operand += mlirShapedTypeIsDynamicStrideOrOffset(dlcI64ArrayAt(sv, "static_offsets", d));
  int64_t off = dlcI64ArrayAt(sv, "static_offsets", i);
  return mlirShapedTypeIsDynamicStrideOrOffset(off) ? mlirOperationGetOperand(sv, operand)
                                                    : dlcIndexConst(b, off);
}

/* The copy functions made so far, by block type, MR and lanes (one per
   combination in the module). */
typedef struct Copies {
  MlirOperation module;
  char **keys, **names;
  intptr_t n;
} Copies;

static const char *copyFor(Copies *c, MlirType t, int64_t rows, int64_t kc, int mr, int lanes) {
  DlcText tt = {0};
  mlirTypePrint(t, dlcTextAppend, &tt);
  char suffix[32];
  snprintf(suffix, sizeof suffix, " %d %d", mr, lanes);
  dlcTextAppend(str(suffix), &tt);
  const char *key = dlcTextGet(&tt);
  for (intptr_t i = 0; i < c->n; ++i)
    if (strcmp(c->keys[i], key) == 0) {
      dlcTextFree(&tt);
      return c->names[i];
    }
  char name[64];
  MlirSymbolTable table = mlirSymbolTableCreate(c->module);
  int serial = (int)c->n;
  do
    snprintf(name, sizeof name, "dlc_pack_a_%d", serial++);
  while (!mlirOperationIsNull(mlirSymbolTableLookup(table, str(name))));
  char *text = copyFunction(name, t, rows, kc, mr, lanes);
  MlirOperation fn = mlirOperationCreateParse(mlirOperationGetContext(c->module), str(text),
                                              str("dlc-gemm-pack-a"));
  free(text);
  if (mlirOperationIsNull(fn)) {
    mlirSymbolTableDestroy(table);
    dlcTextFree(&tt);
    return NULL;
  }
  mlirSymbolTableInsert(table, fn);
  mlirSymbolTableDestroy(table);
  c->keys = dlcXrealloc(c->keys, sizeof *c->keys * (size_t)(c->n + 1));
  c->names = dlcXrealloc(c->names, sizeof *c->names * (size_t)(c->n + 1));
  c->keys[c->n] = strdup(key);
  c->names[c->n] = strdup(name);
  dlcTextFree(&tt);
  return c->names[c->n++];
}

/* Moves the block's view before the serial loops around it that it does
   not depend on, so that it is packed once for all their iterations. */
static void hoistBlock(MlirOperation blk) {
  for (;;) {
    MlirOperation loop = mlirOperationGetParentOperation(blk);
    if (!dlcOpIs(loop, "scf.for"))
      return;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(blk); ++i)
      if (!dlcDefinedOutside(mlirOperationGetOperand(blk, i), loop))
        return;
    mlirOperationMoveBefore(blk, loop);
  }
}

/* Ap for block `blk`, read `mr` rows at a time: the view hoisted, Ap
   allocated and filled right after it, freed at the end of its block. */
static MlirValue packBlock(Copies *c, MlirOperation blk, int mr, int targetLanes) {
  MlirContext ctx = mlirOperationGetContext(blk);
  MlirValue src = mlirOperationGetResult(blk, 0);
  MlirType st = mlirValueGetType(src);
  int64_t rows = mlirShapedTypeGetDimSize(st, 0), kc = mlirShapedTypeGetDimSize(st, 1);
  int lanes = targetLanes >= kWideLanes && mr == kMaxRows && kc % kWideLanes == 0 ? kWideLanes
                                                                                   : kLanes;
  const char *fn = copyFor(c, st, rows, kc, mr, lanes);
  if (!fn)
    return (MlirValue){NULL};
  hoistBlock(blk);
  int64_t dims[2] = {rows / mr, kc * mr};
  MlirType apType =
      mlirMemRefTypeContiguousGet(mlirF32TypeGet(ctx), 2, dims, mlirAttributeGetNull());
  MlirOperation next = mlirOperationGetNextInBlock(blk);
  DlcBuilder b = dlcBuilderBefore(next, mlirOperationGetLocation(blk));
  MlirOperation alloc = dlcBuildOpTyped(
      &b, "memref.alloc", 0, NULL, 1, &apType,
      DLC_ATTRS(
          dlcNamed(ctx, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 64)),
          dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, (int32_t[]){0, 0}))));
  MlirValue ap = mlirOperationGetResult(alloc, 0);
  dlcBuildOpTyped(&b, "func.call", DLC_VALUES(src, ap), 0, NULL,
                  DLC_ATTRS(dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(fn)))));
  MlirOperation term = mlirBlockGetTerminator(mlirOperationGetBlock(blk));
  DlcBuilder e = dlcBuilderBefore(term, mlirOperationGetLocation(blk));
  dlcBuildOpTyped(&e, "memref.dealloc", DLC_VALUES(ap), 0, NULL, DLC_NO_ATTRS);
  return ap;
}

/* %a = Ap[%m / MR][%kk * MR + i], i < MR, in place of the read. */
static void rewriteRead(const Read *r, MlirValue ap) {
  DlcBuilder b = dlcBuilderBefore(r->extract, mlirOperationGetLocation(r->read));
  MlirValue mr = dlcIndexConst(&b, r->rows);
  MlirValue group = dlcIndexOp(&b, "arith.divui", offsetOf(&b, r->elem, 0), mr);
  MlirValue base = dlcIndexOp(&b, "arith.muli", offsetOf(&b, r->elem, 1), mr);
  MlirType f32 = mlirF32TypeGet(b.context);
  MlirValue lanes[kMaxRows];
  for (int i = 0; i < r->rows; ++i) {
    MlirValue col = i ? dlcIndexOp(&b, "arith.addi", base, dlcIndexConst(&b, i)) : base;
    lanes[i] = mlirOperationGetResult(
        dlcBuildOpTyped(&b, "memref.load", DLC_VALUES(ap, group, col), 1, &f32, DLC_NO_ATTRS), 0);
  }
  MlirType vt = mlirValueGetType(mlirOperationGetResult(r->extract, 0));
  MlirOperation v =
      dlcBuildOpTyped(&b, "vector.from_elements", r->rows, lanes, 1, &vt, DLC_NO_ATTRS);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(r->extract, 0),
                                mlirOperationGetResult(v, 0));
  mlirOperationDestroy(r->extract);
  mlirOperationDestroy(r->transpose);
  mlirOperationDestroy(r->read);
  if (mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(r->elem, 0))))
    mlirOperationDestroy(r->elem);
}

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU whose L2 size decides which GEMMs pack A: host, avx2 or avx512",
     DLC_OPTION_STRING, "host"},
    {"min-bytes", "A larger than this (bytes) is packed; 0 takes the target's "
                  "threshold (just under twice L2 with AVX-512, four times L2 with AVX2)", DLC_OPTION_INT, "0"},
};

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (!dlcTargetCheck(module, "dlc-gemm-pack-a", "target", target))
    return (MlirLogicalResult){0};
  int64_t minBytes = dlcOptionsGetInt(o, "min-bytes");
  if (minBytes < 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "dlc-gemm-pack-a: min-bytes must be 0 or more, got %lld",
             (long long)minBytes);
    mlirEmitError(mlirOperationGetLocation(module), msg);
    return (MlirLogicalResult){0};
  }
  if (minBytes == 0) {
    DlcCpuTarget t = dlcCpuTargetGet(target, 0);
    minBytes = dlcGemmPackAMinBytes(&t);
  }
  int targetLanes = (int)dlcTargetVectorWidth(target);
  Collect c = {minBytes, NULL, 0};
  mlirOperationWalk(module, collect, &c, MlirWalkPreOrder);
  /* blocks in order of their first read, each packed once; a block read
     with two heights (no such nest is built) keeps all its reads */
  typedef struct Block {
    MlirOperation op;
    int64_t rows;
    bool mixed;
    MlirValue packed;
  } Block;
  Block *blocks = NULL;
  intptr_t nb = 0;
  intptr_t *blockOf = dlcXrealloc(NULL, sizeof *blockOf * (size_t)(c.n ? c.n : 1));
  for (intptr_t i = 0; i < c.n; ++i) {
    intptr_t j = 0;
    while (j < nb && !mlirOperationEqual(blocks[j].op, c.reads[i].blk))
      ++j;
    if (j == nb) {
      blocks = dlcXrealloc(blocks, sizeof *blocks * (size_t)(nb + 1));
      blocks[nb++] = (Block){c.reads[i].blk, c.reads[i].rows, false, {NULL}};
    }
    blocks[j].mixed |= blocks[j].rows != c.reads[i].rows;
    blockOf[i] = j;
  }
  Copies copies = {module, NULL, NULL, 0};
  bool ok = true;
  uint64_t numPacked = 0;
  for (intptr_t i = 0; i < c.n && ok; ++i) {
    Block *blk = &blocks[blockOf[i]];
    if (blk->mixed)
      continue;
    if (mlirValueIsNull(blk->packed)) {
      blk->packed = packBlock(&copies, blk->op, (int)blk->rows, targetLanes);
      ok = !mlirValueIsNull(blk->packed);
      numPacked += ok;
    }
    if (ok)
      rewriteRead(&c.reads[i], blk->packed);
  }
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-gemm-pack-a: internal error: the copy function did not parse");
  if (numPacked > 0)
    dlcPassAddStatistic(pass, "packed", numPacked);
  for (intptr_t i = 0; i < copies.n; ++i)
    free(copies.keys[i]), free(copies.names[i]);
  free(copies.keys), free(copies.names), free(blocks), free(blockOf), free(c.reads);
  return (MlirLogicalResult){ok};
}

static const DlcStatisticDesc kStats[] = {{"packed", "blocks of A read from a packed copy"}};

const DlcPassDescriptor dlcGemmPackAPass = {
    .argument = "dlc-gemm-pack-a",
    .summary = "Read each Mc x Kc block of a large GEMM's A from a copy packed in MR-row "
               "panels, made once per block",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof *kStats,
    .run = run,
};
