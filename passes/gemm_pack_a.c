/* dlc-gemm-pack-a: a packed-panel GEMM whose A does not fit L2 reads each
   Mc x Kc block of A from a packed copy, Ap[Mc / MR][Kc][MR], made once
   per block, instead of from A's rows (BLIS's packed A).

   The packed-panel GEMM (cost_model.h, cpu_schedule.c) walks, inside a
   Kc block, its Mc x Kc block of A once per panel of B. The MR x NR
   register tile reads one float from each of MR rows per k step. Where A
   is larger than L2, the first panel's pass brings the block from L3 as
   MR short runs (Kc floats of a row each) per register tile, which the
   hardware prefetchers pick up late, and every later panel reads it from
   L2 scattered over rows 4 KiB or more apart. Packed, the block is one
   contiguous run: a copy loop reads A's rows whole, 16 floats at a time,
   transposes 8 x 16 tiles in registers, and the register tiles read MR
   consecutive floats per k step.

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
       %sv = memref.subview %blk[%m, %kk] [8, 1] [1, 1]
       %r = vector.transfer_read %sv : vector<8x1xf32>  // one k step's A
       %t = vector.transpose %r, [1, 0]
       %a = vector.extract %t[0] : vector<8xf32>

   with %m a multiple of 8 (a loop's induction variable, lower bound and
   step multiples of 8), R a multiple of 8, Kc of 16, A's rows contiguous.
   After the rewrite %blk is copied into Ap right where it is defined (a
   call of a private copy function, one per block type), Ap freed at the
   end of that block, and %a is the 8 floats Ap[%m / 8][%kk * 8 + i], as
   scalar loads that LLVM folds into the FMAs' broadcasts as before. The
   sums keep their order, so results are bit-identical. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Text.h"
#include "schedule/cost_model.h"
#include "support/index_ops.h"
#include "support/op_list.h"
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

enum { kRows = 8, kCols = 16 }; /* the copy's tile: 8 rows of 16 floats */

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
  MlirOperation read, transpose, extract, elem; /* elem: %blk[%m, %kk] [8, 1] */
  MlirOperation blk;
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

/* One k step's read of MR = 8 rows of A's block (the comment at the top). */
static bool matchRead(MlirOperation read, const Collect *c, Read *out) {
  MlirType vt = mlirValueGetType(mlirOperationGetResult(read, 0));
  if (mlirOperationGetNumResults(read) != 1 || !mlirTypeIsAVector(vt) ||
      mlirShapedTypeGetRank(vt) != 2 || mlirShapedTypeGetDimSize(vt, 0) != kRows ||
      mlirShapedTypeGetDimSize(vt, 1) != 1 || !mlirTypeIsAF32(mlirShapedTypeGetElementType(vt)))
    return false;
  MlirOperation tr = soleUser(read), ex = mlirOperationIsNull(tr) ? tr : soleUser(tr);
  if (!dlcOpIs(tr, "vector.transpose") || !dlcOpIs(ex, "vector.extract") ||
      mlirOperationGetNumOperands(ex) != 1 || dlcI64ArrayAt(tr, "permutation", 0) != 1 ||
      dlcI64ArrayAt(ex, "static_position", 0) != 0 ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(ex, 0))) != 1)
    return false;
  MlirOperation elem = dlcDefiningOp(mlirOperationGetOperand(read, 0), "memref.subview");
  int64_t es[2], bs[2];
  if (mlirOperationIsNull(elem) || !subview2(elem, es) || es[0] != kRows || es[1] != 1)
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
  if (mlirOperationIsNull(blk) || !subview2(blk, bs) || bs[0] % kRows || bs[1] % kCols ||
      !rowsContiguous(mlirValueGetType(src)) || matrixBytes(src) <= c->minBytes)
    return false;
  int64_t off0 = dlcI64ArrayAt(elem, "static_offsets", 0);
  if (mlirShapedTypeIsDynamicStrideOrOffset(off0)) {
    if (!multipleOf(mlirOperationGetOperand(elem, 1), kRows))
      return false;
  } else if (off0 % kRows) {
    return false;
  }
  *out = (Read){read, tr, ex, elem, blk};
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

/* A 16-lane shuffle of %a and %b into %out; lane j takes pick(j) (0-15
   from a, 16-31 from b). */
typedef int (*Pick)(int j);
static void shuffle(FILE *f, const char *out, const char *a, const char *b, Pick pick) {
  fprintf(f, "      %s = vector.shuffle %s, %s [", out, a, b);
  for (int j = 0; j < 16; ++j)
    fprintf(f, "%s%d", j ? ", " : "", pick(j));
  fprintf(f, "] : vector<16xf32>, vector<16xf32>\n");
}

/* The x86 shuffles of an 8 x 16 transpose, lane by lane (L: the 128-bit
   lane, i: the float in it). */
static int unpackLo(int j) {
  int L = j / 4, i = j % 4;
  return 4 * L + i / 2 + (i % 2) * 16;
}
static int unpackHi(int j) { return unpackLo(j) + 2; }
static int pairsLo(int j) {
  int L = j / 4, i = j % 4;
  return 4 * L + i % 2 + (i / 2) * 16;
}
static int pairsHi(int j) { return pairsLo(j) + 2; }
/* 128-bit lanes [a.0, a.2, b.0, b.2] and [a.1, a.3, b.1, b.3] */
static int lanesEven(int j) {
  int L = j / 4, i = j % 4;
  return (L / 2) * 16 + (L % 2) * 8 + i;
}
static int lanesOdd(int j) { return lanesEven(j) + 4; }

/* func.func private @name(%src: <block type>, %dst: memref<R/8 x Kc*8>):
   for each 8-row group, for each 16 columns: 8 row vectors in, the 8 x 16
   tile transposed by three rounds of shuffles, 8 vectors of 2 k steps x 8
   rows out. */
static char *copyFunction(const char *name, MlirType srcType, int64_t rows, int64_t kc) {
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
  fprintf(f, "func.func private @%s(%%src: %s", name, st);
  fprintf(f, ", %%dst: memref<%lldx%lldxf32>) {\n", (long long)(rows / kRows),
          (long long)(kc * kRows));
  fprintf(f, "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n");
  for (int v = 0; v < kCols * kRows; ++v) /* row and column offsets, %cN_ */
    if (v < kRows || v % kRows == 0)
      fprintf(f, "  %%c%d_ = arith.constant %d : index\n", v, v);
  fprintf(f, "  %%c8 = arith.constant 8 : index\n  %%c16 = arith.constant 16 : index\n");
  fprintf(f, "  %%groups = arith.constant %lld : index\n  %%kc = arith.constant %lld : index\n",
          (long long)(rows / kRows), (long long)kc);
  fprintf(f, "  scf.for %%g = %%c0 to %%groups step %%c1 {\n");
  fprintf(f, "    %%r0 = arith.muli %%g, %%c8 : index\n");
  for (int i = 1; i < kRows; ++i)
    fprintf(f, "    %%r%d = arith.addi %%r0, %%c%d_ : index\n", i, i);
  fprintf(f, "    scf.for %%k = %%c0 to %%kc step %%c16 {\n");
  fprintf(f, "      %%o = arith.muli %%k, %%c8 : index\n");
  for (int i = 0; i < kRows; ++i)
    fprintf(f, "      %%x%d = vector.load %%src[%%r%d, %%k] : %s, vector<16xf32>\n", i, i, st);
  char a[8], b[8], o[8];
  for (int i = 0; i < kRows; i += 2) { /* rows i, i+1 interleaved */
    snprintf(a, sizeof a, "%%x%d", i), snprintf(b, sizeof b, "%%x%d", i + 1);
    snprintf(o, sizeof o, "%%t%d", i), shuffle(f, o, a, b, unpackLo);
    snprintf(o, sizeof o, "%%t%d", i + 1), shuffle(f, o, a, b, unpackHi);
  }
  /* u[h + q]: rows h..h+3 of k = 4L + q in 128-bit lane L */
  for (int h = 0; h < kRows; h += 4) {
    const Pick picks[4] = {pairsLo, pairsHi, pairsLo, pairsHi};
    for (int q = 0; q < 4; ++q) {
      snprintf(a, sizeof a, "%%t%d", h + q / 2), snprintf(b, sizeof b, "%%t%d", h + q / 2 + 2);
      snprintf(o, sizeof o, "%%u%d", h + q), shuffle(f, o, a, b, picks[q]);
    }
  }
  /* out[k]: k and k + 1, 8 rows each */
  for (int q = 0; q < 4; q += 2) {
    char x0[8], x1[8], y0[8], y1[8], u0[8], u1[8], u4[8], u5[8];
    snprintf(u0, sizeof u0, "%%u%d", q), snprintf(u1, sizeof u1, "%%u%d", q + 1);
    snprintf(u4, sizeof u4, "%%u%d", q + 4), snprintf(u5, sizeof u5, "%%u%d", q + 5);
    snprintf(x0, sizeof x0, "%%e%d", q), snprintf(x1, sizeof x1, "%%e%d", q + 1);
    snprintf(y0, sizeof y0, "%%f%d", q), snprintf(y1, sizeof y1, "%%f%d", q + 1);
    shuffle(f, x0, u0, u4, lanesEven), shuffle(f, x1, u1, u5, lanesEven);
    shuffle(f, y0, u0, u4, lanesOdd), shuffle(f, y1, u1, u5, lanesOdd);
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
      shuffle(f, o, outs[j].a, outs[j].b, outs[j].pick);
      fprintf(f, "      %%i%d = arith.addi %%o, %%c%d_ : index\n", outs[j].k, outs[j].k * kRows);
      fprintf(f,
           "      vector.store %%w%d, %%dst[%%g, %%i%d] : memref<%lldx%lldxf32>, vector<16xf32>\n",
              outs[j].k, outs[j].k, (long long)(rows / kRows), (long long)(kc * kRows));
    }
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

/* The copy function for blocks of type `t` (one per type in the module). */
typedef struct Copies {
  MlirOperation module;
  char **types, **names;
  intptr_t n;
} Copies;

static const char *copyFor(Copies *c, MlirType t, int64_t rows, int64_t kc) {
  DlcText tt = {0};
  mlirTypePrint(t, dlcTextAppend, &tt);
  const char *key = dlcTextGet(&tt);
  for (intptr_t i = 0; i < c->n; ++i)
    if (strcmp(c->types[i], key) == 0) {
      dlcTextFree(&tt);
      return c->names[i];
    }
  char name[64];
  MlirSymbolTable table = mlirSymbolTableCreate(c->module);
  int serial = (int)c->n;
  do
    snprintf(name, sizeof name, "dlc_pack_a_%d", serial++);
  while (!mlirOperationIsNull(mlirSymbolTableLookup(table, str(name))));
  char *text = copyFunction(name, t, rows, kc);
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
  c->types = dlcXrealloc(c->types, sizeof *c->types * (size_t)(c->n + 1));
  c->names = dlcXrealloc(c->names, sizeof *c->names * (size_t)(c->n + 1));
  c->types[c->n] = strdup(key);
  c->names[c->n] = strdup(name);
  dlcTextFree(&tt);
  return c->names[c->n++];
}

/* Ap for block `blk`: allocated and filled right after it, freed at the
   end of its block. */
static MlirValue packBlock(Copies *c, MlirOperation blk) {
  MlirContext ctx = mlirOperationGetContext(blk);
  MlirValue src = mlirOperationGetResult(blk, 0);
  MlirType st = mlirValueGetType(src);
  int64_t rows = mlirShapedTypeGetDimSize(st, 0), kc = mlirShapedTypeGetDimSize(st, 1);
  const char *fn = copyFor(c, st, rows, kc);
  if (!fn)
    return (MlirValue){NULL};
  int64_t dims[2] = {rows / kRows, kc * kRows};
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

/* %a = Ap[%m / 8][%kk * 8 + i], i < 8, in place of the read. */
static void rewriteRead(const Read *r, MlirValue ap) {
  DlcBuilder b = dlcBuilderBefore(r->extract, mlirOperationGetLocation(r->read));
  MlirValue c8 = dlcIndexConst(&b, kRows);
  MlirValue group = dlcIndexOp(&b, "arith.divui", offsetOf(&b, r->elem, 0), c8);
  MlirValue base = dlcIndexOp(&b, "arith.muli", offsetOf(&b, r->elem, 1), c8);
  MlirType f32 = mlirF32TypeGet(b.context);
  MlirValue lanes[kRows];
  for (int i = 0; i < kRows; ++i) {
    MlirValue col = i ? dlcIndexOp(&b, "arith.addi", base, dlcIndexConst(&b, i)) : base;
    lanes[i] = mlirOperationGetResult(
        dlcBuildOpTyped(&b, "memref.load", DLC_VALUES(ap, group, col), 1, &f32, DLC_NO_ATTRS), 0);
  }
  MlirType vt = mlirValueGetType(mlirOperationGetResult(r->extract, 0));
  MlirOperation v = dlcBuildOpTyped(&b, "vector.from_elements", kRows, lanes, 1, &vt, DLC_NO_ATTRS);
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
                  "threshold (just under twice L2 with AVX-512, never below)", DLC_OPTION_INT, "0"},
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
    if (minBytes == 0) /* a target whose tiles are not 8 rows high: never */
      return (MlirLogicalResult){1};
  }
  Collect c = {minBytes, NULL, 0};
  mlirOperationWalk(module, collect, &c, MlirWalkPreOrder);
  Copies copies = {module, NULL, NULL, 0};
  /* blocks in order of their first read; each packed once */
  MlirOperation *blocks = NULL;
  MlirValue *packed = NULL;
  intptr_t nb = 0;
  bool ok = true;
  for (intptr_t i = 0; i < c.n && ok; ++i) {
    intptr_t j = 0;
    while (j < nb && !mlirOperationEqual(blocks[j], c.reads[i].blk))
      ++j;
    if (j == nb) {
      blocks = dlcXrealloc(blocks, sizeof *blocks * (size_t)(nb + 1));
      packed = dlcXrealloc(packed, sizeof *packed * (size_t)(nb + 1));
      blocks[nb] = c.reads[i].blk;
      packed[nb] = packBlock(&copies, c.reads[i].blk);
      ok = !mlirValueIsNull(packed[nb++]);
    }
    if (ok)
      rewriteRead(&c.reads[i], packed[j]);
  }
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(module),
                  "dlc-gemm-pack-a: internal error: the copy function did not parse");
  if (nb > 0)
    dlcPassAddStatistic(pass, "packed", (uint64_t)nb);
  for (intptr_t i = 0; i < copies.n; ++i)
    free(copies.types[i]), free(copies.names[i]);
  free(copies.types), free(copies.names), free(blocks), free(packed), free(c.reads);
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
