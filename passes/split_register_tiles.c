/* dlc-split-register-tiles: a GEMM register tile whose rows are three
   vectors wide (8 x 48 floats with AVX-512, dlcGemmWidePanel) reaches the
   LLVM conversion as one vector of 3 x 16 lanes per row, held across its
   k loop. LLVM has no 48-lane register: it legalises such a vector by
   widening it to 64 lanes and splitting it, with hundreds of shuffles and
   stack round trips per kernel (15.7 GFLOP/s, against 170-190 for 8 x 32,
   when first tried without this pass). This pass, the last before the
   LLVM conversion, gives LLVM what the schedule means instead: MR x 3
   accumulators of one vector register each.

   The packed-panel GEMM's k loop (cpu_schedule.c, after bufferization and
   the GEMM loop-nest passes) is:

     %a = vector.transfer_read %C[.., %i, %j] : vector<MRxWxf32>
     %r = scf.for %k = .. iter_args(%acc = %a) -> (vector<MRxWxf32>) {
       %b = vector.transfer_read %Bp[.., %k, %j0] : vector<Wxf32>
       %x = ... : vector<MRxf32>                       // a column of A
       %o = vector.outerproduct %x, %b, %acc {kind = add}
       ...                                             // unrolled k steps
       scf.yield %o'
     }
     vector.transfer_write %r, %C[.., %i, %j]

   It becomes MR x q loop-carried vectors of W / q = vw lanes: q reads of
   B's row per k step, and per row of the tile one broadcast of A's
   element and q FMAs, in that order (row by row, as BLIS's kernels run:
   one broadcast live at a time; q pieces each over all rows would keep MR
   broadcasts live next to 3 x MR accumulators, and spilled). The C tile is
   read and written as MR x q vectors. Each FMA computes the same
   fma(a, b, acc) that the outer product's own lowering does, so results
   are bit-identical.

   Only tiles whose width is a multiple of the vector width by a number
   that is not a power of two are split: LLVM splits 2 and 4 vectors
   cleanly, and leaving them keeps every other kernel's output as it was.
   A loop that does not match this form exactly (another use of the
   accumulator, an operand that is not a plain in-bounds read) is left
   alone. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/index_ops.h"
#include "support/op_list.h"
#include "support/rebuild.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { kMaxAccumulators = 64, kMaxPieces = 8, kMaxSteps = 16, kMaxRank = 8 };

typedef struct {
  int64_t rows, pieces, lanes; /* the tile: rows x (pieces x lanes) */
  MlirType piece;               /* vector<lanes x f32> */
} Tile;

/* Whether `op`'s permutation_map is the minor identity from `rank` dims
   onto the last `results` of them. */
static bool isMinorIdentity(MlirOperation op, intptr_t rank, intptr_t results) {
  MlirAttribute m = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(
                                                            "permutation_map"));
  if (mlirAttributeIsNull(m) || !mlirAttributeIsAAffineMap(m))
    return false;
  MlirAffineMap map = mlirAffineMapAttrGetValue(m);
  return mlirAffineMapIsMinorIdentity(map) && mlirAffineMapGetNumDims(map) == rank &&
         mlirAffineMapGetNumResults(map) == results;
}

static bool allInBounds(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("in_bounds"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAArray(a))
    return false;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(a); ++i)
    if (!mlirBoolAttrGetValue(mlirArrayAttrGetElement(a, i)))
      return false;
  return true;
}

/* A vector.transfer_read (or, `write`, transfer_write) of a vector of rank
   `vrank` from a memref, in bounds, unmasked, minor identity: the form
   whose pieces are reads at shifted indices. Its memref's rank, or 0. */
static intptr_t plainTransfer(MlirOperation op, bool write, intptr_t vrank) {
  if (mlirOperationIsNull(op) ||
      !dlcOpIs(op, write ? "vector.transfer_write" : "vector.transfer_read"))
    return 0;
  MlirValue base = mlirOperationGetOperand(op, write ? 1 : 0);
  MlirType mt = mlirValueGetType(base);
  if (!mlirTypeIsAMemRef(mt))
    return 0;
  intptr_t rank = mlirShapedTypeGetRank(mt);
  /* read: base, indices, padding; write: vector, base, indices (no mask) */
  intptr_t expected = write ? 2 + rank : rank + 2;
  if (rank < vrank || rank > kMaxRank || mlirOperationGetNumOperands(op) != expected ||
      !allInBounds(op) || !isMinorIdentity(op, rank, vrank))
    return 0;
  return rank;
}

/* The tile `rows` x `w` floats of vector type `t` are, when W is q > 2
   vectors of `vw` lanes with q not a power of two. */
static bool tileOf(MlirType t, int64_t rows, int64_t w, int64_t vw, Tile *out) {
  if (!mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) || vw <= 0 || w % vw != 0)
    return false;
  int64_t q = w / vw;
  if (q < 3 || (q & (q - 1)) == 0 || q > kMaxPieces || rows * q > kMaxAccumulators)
    return false;
  int64_t shape[1] = {vw};
  *out = (Tile){rows, q, vw, mlirVectorTypeGet(1, shape, mlirShapedTypeGetElementType(t))};
  return true;
}

/* The tile a loop-carried vector<R x W x f32> is. */
static bool accumulatorTile(MlirType t, int64_t vw, Tile *out) {
  return mlirTypeIsAVector(t) && mlirShapedTypeGetRank(t) == 2 &&
         tileOf(t, mlirShapedTypeGetDimSize(t, 0), mlirShapedTypeGetDimSize(t, 1), vw, out);
}

/* The chain of outer products from the loop's accumulator to its yield,
   each adding lhs (vector<R>) x rhs (a plain 1-D read) to the previous;
   false when the accumulator has any other use. */
static bool outerChain(MlirOperation loop, MlirOperation *chain, int *n) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirValue v = mlirBlockGetArgument(body, 1);
  MlirAttribute add = mlirAttributeParseGet(mlirOperationGetContext(loop),
                                            mlirStringRefCreateFromCString("#vector.kind<add>"));
  *n = 0;
  for (;;) {
    intptr_t operand;
    MlirOperation u = dlcSoleUser(v, &operand);
    if (mlirOperationIsNull(u))
      return false;
    if (dlcOpIs(u, "scf.yield"))
      return operand == 0 && *n > 0;
    if (!dlcOpIs(u, "vector.outerproduct") || operand != 2 || *n == kMaxSteps ||
        mlirOperationGetNumOperands(u) != 3 ||
        !mlirOperationEqual(mlirOperationGetParentOperation(u), loop))
      return false;
    MlirAttribute kind = mlirOperationGetAttributeByName(u, mlirStringRefCreateFromCString("kind"));
    if (mlirAttributeIsNull(kind) || !mlirAttributeEqual(kind, add))
      return false;
    MlirOperation rhs = mlirOpResultGetOwner(mlirOperationGetOperand(u, 1));
    if (!mlirValueIsAOpResult(mlirOperationGetOperand(u, 1)) || !plainTransfer(rhs, false, 1))
      return false;
    chain[(*n)++] = u;
    v = mlirOperationGetResult(u, 0);
  }
}

/* `op`'s indices (from operand `first`, `rank` of them) with `dr` added to
   the second last and `dc` to the last. */
static void shiftedIndices(DlcBuilder *b, MlirOperation op, intptr_t first, intptr_t rank,
                           int64_t dr, int64_t dc, MlirValue *out) {
  for (intptr_t d = 0; d < rank; ++d) {
    MlirValue x = mlirOperationGetOperand(op, first + d);
    int64_t delta = d == rank - 1 ? dc : d == rank - 2 ? dr : 0;
    out[d] = delta ? dlcIndexOp(b, "arith.addi", x, dlcIndexConst(b, delta)) : x;
  }
}

static MlirAttribute minorIdentity1(MlirContext ctx, intptr_t rank) {
  return mlirAffineMapAttrGet(mlirAffineMapMinorIdentityGet(ctx, rank, 1));
}

static MlirNamedAttribute segments(MlirContext ctx, int32_t a, int32_t b, int32_t c, int32_t d) {
  int32_t s[4] = {a, b, c, d};
  return dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, s));
}

static MlirNamedAttribute inBounds1(MlirContext ctx) {
  MlirAttribute t = mlirBoolAttrGet(ctx, 1);
  return dlcNamed(ctx, "in_bounds", mlirArrayAttrGet(ctx, 1, &t));
}

/* One vector<lanes> read of `read` (a plain transfer_read of rank-1 or
   rank-2 vectors) at row `dr`, lanes `dc` on. */
static MlirValue readPiece(DlcBuilder *b, MlirOperation read, const Tile *t, int64_t dr,
                           int64_t dc) {
  MlirValue base = mlirOperationGetOperand(read, 0);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(base));
  MlirValue ops[kMaxRank + 2];
  ops[0] = base;
  shiftedIndices(b, read, 1, rank, dr, dc, ops + 1);
  ops[rank + 1] = mlirOperationGetOperand(read, rank + 1); /* padding */
  MlirOperation r = dlcBuildOpTyped(
      b, "vector.transfer_read", rank + 2, ops, 1, &t->piece,
      DLC_ATTRS(dlcNamed(b->context, "permutation_map", minorIdentity1(b->context, rank)),
                inBounds1(b->context), segments(b->context, 1, (int32_t)rank, 1, 0)));
  return mlirOperationGetResult(r, 0);
}

static void writePiece(DlcBuilder *b, MlirOperation write, MlirValue v, int64_t dr, int64_t dc) {
  MlirValue base = mlirOperationGetOperand(write, 1);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(base));
  MlirValue ops[kMaxRank + 2];
  ops[0] = v, ops[1] = base;
  shiftedIndices(b, write, 2, rank, dr, dc, ops + 2);
  dlcBuildOpTyped(
      b, "vector.transfer_write", rank + 2, ops, 0, NULL,
      DLC_ATTRS(dlcNamed(b->context, "permutation_map", minorIdentity1(b->context, rank)),
                inBounds1(b->context), segments(b->context, 1, 1, (int32_t)rank, 0)));
}

/* Replaces outer product `op` (acc pieces `acc`, updated in place) by its
   rows' broadcasts and FMAs, before it. */
static void splitOuterProduct(MlirOperation op, const Tile *t, MlirValue *acc) {
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirOperation read = mlirOpResultGetOwner(mlirOperationGetOperand(op, 1));
  MlirValue rhs[kMaxPieces];
  {
    DlcBuilder rb = dlcBuilderBefore(read, mlirOperationGetLocation(read));
    for (int64_t j = 0; j < t->pieces; ++j)
      rhs[j] = readPiece(&rb, read, t, 0, j * t->lanes);
  }
  MlirValue lhs = mlirOperationGetOperand(op, 0);
  MlirType f32 = mlirShapedTypeGetElementType(mlirValueGetType(lhs));
  for (int64_t i = 0; i < t->rows; ++i) {
    int64_t pos[1] = {i};
    MlirValue a = mlirOperationGetResult(
        dlcBuildOpTyped(&b, "vector.extract", DLC_VALUES(lhs), 1, &f32,
                        DLC_ATTRS(dlcNamed(b.context, "static_position",
                                           mlirDenseI64ArrayGet(b.context, 1, pos)))),
        0);
    MlirValue splat = mlirOperationGetResult(
        dlcBuildOpTyped(&b, "vector.broadcast", DLC_VALUES(a), 1, &t->piece, DLC_NO_ATTRS), 0);
    for (int64_t j = 0; j < t->pieces; ++j) {
      MlirValue *c = &acc[i * t->pieces + j];
      *c = mlirOperationGetResult(dlcBuildOpTyped(&b, "vector.fma", DLC_VALUES(splat, rhs[j], *c),
                                                  1, &t->piece, DLC_NO_ATTRS),
                                  0);
    }
  }
}

/* The loop's new form, on MR x q accumulators; `loop` erased. */
static void splitLoop(MlirOperation loop, const Tile *t, MlirOperation *chain, int steps) {
  MlirValue initV = mlirOperationGetOperand(loop, 3);
  MlirOperation init = mlirOpResultGetOwner(initV);
  intptr_t operand;
  MlirOperation write = dlcSoleUser(mlirOperationGetResult(loop, 0), &operand);
  int64_t n = t->rows * t->pieces;
  MlirValue inits[kMaxAccumulators + 3], acc[kMaxAccumulators];
  MlirType types[kMaxAccumulators];
  /* the pieces read where the tile was, should anything write C between
     that read and the loop */
  DlcBuilder rb = dlcBuilderBefore(init, mlirOperationGetLocation(init));
  for (intptr_t i = 0; i < 3; ++i)
    inits[i] = mlirOperationGetOperand(loop, i);
  for (int64_t i = 0; i < t->rows; ++i)
    for (int64_t j = 0; j < t->pieces; ++j) {
      inits[3 + i * t->pieces + j] = readPiece(&rb, init, t, i, j * t->lanes);
      types[i * t->pieces + j] = t->piece;
    }
  /* the new loop takes over the body and the attributes (a loop
     annotation, unsignedCmp); its block gets the pieces' args */
  MlirOperation nloop = dlcCreateTakingRegions(loop, mlirStringRefCreateFromCString("scf.for"),
                                               3 + n, inits, n, types, true);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(nloop, 0));
  MlirLocation loc = mlirOperationGetLocation(loop);
  for (int64_t k = 0; k < n; ++k)
    acc[k] = mlirBlockAddArgument(body, t->piece, loc);
  for (int s = 0; s < steps; ++s)
    splitOuterProduct(chain[s], t, acc);
  MlirOperation yield = mlirBlockGetTerminator(body);
  DlcBuilder yb = dlcBuilderBefore(yield, mlirOperationGetLocation(yield));
  dlcBuildOpTyped(&yb, "scf.yield", n, acc, 0, NULL, DLC_NO_ATTRS);
  mlirOperationDestroy(yield);
  for (int s = steps - 1; s >= 0; --s) {
    MlirOperation read = mlirOpResultGetOwner(mlirOperationGetOperand(chain[s], 1));
    mlirOperationDestroy(chain[s]);
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(read, 0))))
      mlirOperationDestroy(read);
  }
  mlirBlockEraseArgument(body, 1); /* the wide accumulator, now unused */
  DlcBuilder wb = dlcBuilderBefore(write, mlirOperationGetLocation(write));
  for (int64_t i = 0; i < t->rows; ++i)
    for (int64_t j = 0; j < t->pieces; ++j)
      writePiece(&wb, write, mlirOperationGetResult(nloop, i * t->pieces + j), i, j * t->lanes);
  mlirOperationDestroy(write);
  mlirOperationDestroy(loop);
  if (mlirOpOperandIsNull(mlirValueGetFirstUse(initV)))
    mlirOperationDestroy(init);
}

/* Whether `loop` is a register tile's k loop in the form the header
   shows, with a tile to split; its outer products in `chain`. */
static bool matches(MlirOperation loop, int64_t vw, Tile *t, MlirOperation *chain, int *steps) {
  if (mlirOperationGetNumResults(loop) != 1 || mlirOperationGetNumOperands(loop) != 4)
    return false;
  MlirValue init = mlirOperationGetOperand(loop, 3);
  intptr_t operand;
  MlirOperation write = dlcSoleUser(mlirOperationGetResult(loop, 0), &operand);
  return accumulatorTile(mlirValueGetType(init), vw, t) && mlirValueIsAOpResult(init) &&
         plainTransfer(mlirOpResultGetOwner(init), false, 2) && !mlirOperationIsNull(write) &&
         operand == 0 && plainTransfer(write, true, 2) && outerChain(loop, chain, steps);
}

/* A row of a panel three vectors wide moved whole (B's packing copy, the
   first row block's stores of the panel it packs: a plain 1-D read whose
   users are all plain 1-D writes) as that many vectors. */
static void splitCopy(MlirOperation read, int64_t vw) {
  Tile t;
  MlirValue v = mlirOperationGetResult(read, 0);
  MlirType vt = mlirValueGetType(v);
  if (!plainTransfer(read, false, 1) || mlirShapedTypeGetRank(vt) != 1 ||
      !tileOf(vt, 1, mlirShapedTypeGetDimSize(vt, 0), vw, &t))
    return;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    if (mlirOpOperandGetOperandNumber(u) != 0 || !plainTransfer(mlirOpOperandGetOwner(u), true, 1))
      return;
  DlcBuilder b = dlcBuilderBefore(read, mlirOperationGetLocation(read));
  MlirValue pieces[kMaxPieces];
  for (int64_t j = 0; j < t.pieces; ++j)
    pieces[j] = readPiece(&b, read, &t, 0, j * t.lanes);
  while (!mlirOpOperandIsNull(mlirValueGetFirstUse(v))) {
    MlirOperation w = mlirOpOperandGetOwner(mlirValueGetFirstUse(v));
    DlcBuilder wb = dlcBuilderBefore(w, mlirOperationGetLocation(w));
    for (int64_t j = 0; j < t.pieces; ++j)
      writePiece(&wb, w, pieces[j], 0, j * t.lanes);
    mlirOperationDestroy(w);
  }
  mlirOperationDestroy(read);
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int64_t vw = dlcOptionsGetInt(dlcPassGetOptions(pass), "vector-width");
  if (vw <= 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "dlc-split-register-tiles: vector-width must be positive, got %lld",
             (long long)vw);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    return (MlirLogicalResult){0};
  }
  DlcOpList loops = dlcOpListOfWalk(func, "scf.for");
  for (intptr_t i = 0; i < loops.n; ++i) {
    Tile t;
    MlirOperation chain[kMaxSteps];
    int steps;
    if (matches(loops.ops[i], vw, &t, chain, &steps))
      splitLoop(loops.ops[i], &t, chain, steps);
  }
  dlcOpListFree(&loops);
  DlcOpList reads = dlcOpListOfWalk(func, "vector.transfer_read");
  for (intptr_t i = 0; i < reads.n; ++i)
    splitCopy(reads.ops[i], vw);
  dlcOpListFree(&reads);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"vector-width", "Lanes of one vector register (f32): 16 with AVX-512, 8 with AVX2",
     DLC_OPTION_INT, "16"},
};

const DlcPassDescriptor dlcSplitRegisterTilesPass = {
    .argument = "dlc-split-register-tiles",
    .summary = "Split a GEMM register tile three (or another non-power-of-two number of) "
               "vectors wide into one accumulator per vector register, its FMAs row by row",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .run = run,
};
