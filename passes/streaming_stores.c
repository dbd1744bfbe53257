/* dlc-streaming-stores: an output larger than the last-level cache is
   written with non-temporal stores where each store fills whole cache
   lines.

   A plain store to a line that is not in cache first reads the line
   (read for ownership), so a kernel that reads 2 arrays and writes 1
   moves 4 arrays' worth of bytes over the memory bus, not 3. An output
   larger than the last-level cache is evicted before anyone reads it
   again, so keeping it in cache buys nothing; a non-temporal store
   (vmovntps) writes the line without reading it. Measured on Zen 1
   (AVX2), the bench's chain x * y + 1 -> relu -> * 0.5 - y over 16M
   floats by hand in C: 13.3-14.1 ms with plain stores, 9.7-10.7 ms with
   non-temporal ones.

   A non-temporal store is slow unless it writes whole 64-byte lines: the
   same chain with its output 16 bytes off a line boundary ran in 28-34 ms
   (vs 17 ms plain). The output buffers are the caller's (NumPy gives 16-
   byte alignment), so each store checks its address: a store of whole
   lines at a line boundary is non-temporal, any other stays as it was.
   In a stream of stores, either all start on a boundary or none do.

   Which stores (anything else is left alone):
   - a 1-D vector.transfer_write (vector-to-scf has unrolled the rest to
     1-D), in bounds, unmasked, of a whole number of 64-byte lines (or of
     half lines into a 1-D buffer, checked against 32 bytes: consecutive
     stores fill the lines), into a memref whose innermost stride is 1;
   - whose memref is a view (subview, cast, reshape) of a function argument
     or an allocation with a static shape of at least `min-bytes` (0: the
     target's last-level cache);
   - which the function only writes: every use of the buffer and its views
     is the destination of a store. A kernel that reads its output back (a
     GEMM accumulating over K blocks) keeps plain stores, which leave the
     lines in cache for the read.

   Non-temporal stores are weakly ordered: each thread that made some runs
   an sfence before it leaves the omp.parallel region (ahead of the join),
   and a serial function runs one before it returns. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "schedule/cost_model.h"
#include "support/memref_views.h"
#include "support/op_list.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kLineBytes = 64 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Whether `use` writes into the buffer it names: the destination of a
   vector or memref store. */
static bool isStoreInto(MlirOpOperand use) {
  MlirOperation owner = mlirOpOperandGetOwner(use);
  return mlirOpOperandGetOperandNumber(use) == 1 &&
         (dlcOpIs(owner, "vector.transfer_write") || dlcOpIs(owner, "vector.store") ||
          dlcOpIs(owner, "memref.store"));
}

/* Every use of `buffer` and of its views stores into it. */
static bool onlyWritten(MlirValue buffer) {
  for (MlirOpOperand u = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation owner = mlirOpOperandGetOwner(u);
    if (dlcIsMemrefView(owner) && mlirOpOperandGetOperandNumber(u) == 0) {
      if (!onlyWritten(mlirOperationGetResult(owner, 0)))
        return false;
    } else if (!isStoreInto(u)) {
      return false;
    }
  }
  return true;
}

static int64_t elementBytes(MlirType t) {
  if (mlirTypeIsAFloat(t))
    return mlirFloatTypeGetWidth(t) / 8;
  if (mlirTypeIsAInteger(t))
    return mlirIntegerTypeGetWidth(t) / 8;
  return 0;
}

/* The bytes of a static buffer, 0 when dynamic or not a plain memref. */
static int64_t bufferBytes(MlirValue root) {
  MlirType t = mlirValueGetType(root);
  if (!mlirTypeIsAMemRef(t) || !mlirShapedTypeHasStaticShape(t))
    return 0;
  int64_t n = elementBytes(mlirShapedTypeGetElementType(t));
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t); ++d)
    n *= mlirShapedTypeGetDimSize(t, d);
  return n;
}

/* A root is a function argument or an allocation. */
static bool isRoot(MlirValue v) {
  if (mlirValueIsABlockArgument(v))
    return dlcOpIs(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)), "func.func");
  MlirOperation def = mlirOpResultGetOwner(v);
  return dlcOpIs(def, "memref.alloc") || dlcOpIs(def, "memref.alloca");
}

/* The bytes `w` stores when its shape streams (1-D, in bounds, unmasked,
   whole vectors of 32 bytes, a contiguous innermost dimension), else 0. */
static int64_t streamable(MlirOperation w) {
  MlirType vt = mlirValueGetType(mlirOperationGetOperand(w, 0));
  MlirValue dst = mlirOperationGetOperand(w, 1);
  MlirType mt = mlirValueGetType(dst);
  if (!mlirTypeIsAVector(vt) || mlirShapedTypeGetRank(vt) != 1 || !mlirTypeIsAMemRef(mt))
    return 0;
  intptr_t rank = mlirShapedTypeGetRank(mt);
  if (rank < 1 || mlirOperationGetNumOperands(w) != 2 + rank) /* a mask */
    return 0;
  int64_t bytes = mlirShapedTypeGetDimSize(vt, 0) * elementBytes(mlirShapedTypeGetElementType(vt));
  if (bytes <= 0 || bytes % (kLineBytes / 2) != 0)
    return 0;
  MlirAttribute inBounds = mlirOperationGetAttributeByName(w, str("in_bounds"));
  if (mlirAttributeIsNull(inBounds) || !mlirAttributeIsAArray(inBounds) ||
      mlirArrayAttrGetNumElements(inBounds) != 1 ||
      !mlirBoolAttrGetValue(mlirArrayAttrGetElement(inBounds, 0)))
    return 0;
  MlirAttribute map = mlirOperationGetAttributeByName(w, str("permutation_map"));
  if (!mlirAttributeIsNull(map) && !mlirAffineMapIsMinorIdentity(mlirAffineMapAttrGetValue(map)))
    return 0;
  int64_t strides[8], offset;
  if (rank > 8 || mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(mt, strides, &offset)))
    return 0;
  return strides[rank - 1] == 1 ? bytes : 0;
}

/* A root whose uses were walked, and whether they only store into it. */
typedef struct {
  MlirValue root;
  bool onlyWritten;
} RootVerdict;

typedef struct {
  int64_t minBytes;
  DlcOpList stores;
  int64_t *align;      /* per store: the boundary it must start on */
  RootVerdict *roots;  /* each root's uses walked once, however many stores */
  intptr_t numRoots;
} Collect;

/* onlyWritten(root), remembered: a kernel's stores into one output (a
   vector per store, hundreds in an unrolled loop) share the root, whose
   uses and views would otherwise be walked again for each. */
static bool rootOnlyWritten(Collect *c, MlirValue root) {
  for (intptr_t i = 0; i < c->numRoots; ++i)
    if (mlirValueEqual(c->roots[i].root, root))
      return c->roots[i].onlyWritten;
  c->roots = dlcXrealloc(c->roots, sizeof *c->roots * (size_t)(c->numRoots + 1));
  c->roots[c->numRoots] = (RootVerdict){root, onlyWritten(root)};
  return c->roots[c->numRoots++].onlyWritten;
}

/* The boundary a store must start on to stream: a line when it stores
   whole lines; half a line for half-line vectors into a 1-D buffer (an
   elementwise kernel whose extent no 16-float tile divides), whose stores
   follow each other, so that pairs fill lines; 0 for others, which could
   leave lines half written (a column block of a matrix). */
static int64_t alignFor(int64_t bytes, MlirValue root) {
  if (bytes % kLineBytes == 0)
    return kLineBytes;
  return mlirShapedTypeGetRank(mlirValueGetType(root)) == 1 ? kLineBytes / 2 : 0;
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  Collect *c = user;
  int64_t bytes;
  if (!dlcOpIs(op, "vector.transfer_write") || !(bytes = streamable(op)))
    return MlirWalkResultAdvance;
  MlirValue root = dlcMemrefRoot(mlirOperationGetOperand(op, 1));
  if (!isRoot(root) || bufferBytes(root) < c->minBytes || !rootOnlyWritten(c, root))
    return MlirWalkResultAdvance;
  int64_t align = alignFor(bytes, root);
  if (align == 0)
    return MlirWalkResultAdvance;
  c->align = dlcXrealloc(c->align, sizeof *c->align * (size_t)(c->stores.n + 1));
  c->align[c->stores.n] = align;
  dlcOpListPush(&c->stores, op);
  return MlirWalkResultAdvance;
}

static MlirValue constantIndex(DlcBuilder *b, int64_t v) {
  MlirType index = mlirIndexTypeGet(b->context);
  MlirNamedAttribute value = dlcNamed(b->context, "value", mlirIntegerAttrGet(index, v));
  return mlirOperationGetResult(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &index, 1, &value),
                                0);
}

static MlirValue binary(DlcBuilder *b, const char *name, MlirValue x, MlirValue y) {
  return dlcBuildValue(b, name, DLC_VALUES(x, y), DLC_NO_ATTRS);
}

/* Whether the element that `w` stores first starts on `align` bytes:
   (aligned base + (offset + sum index * stride) * element bytes) % align == 0. */
static MlirValue startsOn(DlcBuilder *b, MlirOperation w, int64_t align) {
  MlirContext ctx = b->context;
  MlirValue dst = mlirOperationGetOperand(w, 1);
  MlirType mt = mlirValueGetType(dst), index = mlirIndexTypeGet(ctx);
  intptr_t rank = mlirShapedTypeGetRank(mt);
  MlirType elt = mlirShapedTypeGetElementType(mt);
  MlirValue base = mlirOperationGetResult(
      dlcBuildOpTyped(b, "memref.extract_aligned_pointer_as_index", 1, &dst, 1, &index,
                      DLC_NO_ATTRS),
      0);
  /* base buffer, offset, sizes, strides */
  MlirType types[2 + 2 * 8];
  types[0] = mlirMemRefTypeGet(elt, 0, NULL, mlirAttributeGetNull(),
                               mlirMemRefTypeGetMemorySpace(mt));
  for (intptr_t i = 1; i < 2 + 2 * rank; ++i)
    types[i] = index;
  MlirOperation meta = dlcBuildOpTyped(b, "memref.extract_strided_metadata", 1, &dst,
                                       2 + 2 * rank, types, DLC_NO_ATTRS);
  MlirValue linear = mlirOperationGetResult(meta, 1);
  for (intptr_t d = 0; d < rank; ++d)
    linear = binary(b, "arith.addi", linear,
                    binary(b, "arith.muli", mlirOperationGetOperand(w, 2 + d),
                           mlirOperationGetResult(meta, 2 + rank + d)));
  MlirValue addr = binary(b, "arith.addi", base,
                          binary(b, "arith.muli", linear, constantIndex(b, elementBytes(elt))));
  MlirValue low = binary(b, "arith.andi", addr, constantIndex(b, align - 1));
  MlirType i1 = mlirIntegerTypeGet(ctx, 1);
  MlirNamedAttribute eq =
      dlcNamed(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 0 /* eq */));
  return mlirOperationGetResult(dlcBuildOpTyped(b, "arith.cmpi", DLC_VALUES(low, constantIndex(b, 0)),
                                                1, &i1, 1, &eq),
                                0);
}

static MlirBlock newBlock(MlirRegion r) {
  MlirBlock blk = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(r, blk);
  return blk;
}

/* if (starts on align) { non-temporal vector.store } else { `w` as it was } */
static void rewrite(MlirOperation w, int64_t align) {
  MlirLocation loc = mlirOperationGetLocation(w);
  MlirContext ctx = mlirOperationGetContext(w);
  DlcBuilder b = dlcBuilderBefore(w, loc);
  MlirValue cond = startsOn(&b, w, align);
  MlirOperationState st = mlirOperationStateGet(str("scf.if"), loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  MlirBlock thenBlock = newBlock(regions[0]), elseBlock = newBlock(regions[1]);
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  dlcBuilderInsert(&b, mlirOperationCreate(&st));

  DlcBuilder t = dlcBuilderAtEnd(thenBlock, loc);
  intptr_t n = mlirOperationGetNumOperands(w);
  MlirValue operands[2 + 8];
  for (intptr_t i = 0; i < n && i < 10; ++i)
    operands[i] = mlirOperationGetOperand(w, i);
  MlirNamedAttribute attrs[2] = {
      dlcNamed(ctx, "nontemporal", mlirBoolAttrGet(ctx, 1)),
      dlcNamed(ctx, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), align))};
  dlcBuildOpTyped(&t, "vector.store", n, operands, 0, NULL, 2, attrs);
  dlcBuildOpTyped(&t, "scf.yield", 0, NULL, 0, NULL, DLC_NO_ATTRS);

  mlirOperationRemoveFromParent(w);
  mlirBlockAppendOwnedOperation(elseBlock, w);
  DlcBuilder e = dlcBuilderAtEnd(elseBlock, loc);
  dlcBuildOpTyped(&e, "scf.yield", 0, NULL, 0, NULL, DLC_NO_ATTRS);
}

static void fenceBefore(MlirOperation op) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirOperation fence = mlirOperationCreateParse(
      ctx, str("llvm.call_intrinsic \"llvm.x86.sse.sfence\"() : () -> ()"), str("sfence"));
  MlirBlock blk = mlirOperationGetBlock(op);
  mlirBlockInsertOwnedOperationBefore(blk, op, fence);
}

/* The omp.parallel around `op`, or null. */
static MlirOperation parallelOf(MlirOperation op, MlirOperation func) {
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && !mlirOperationEqual(p, func); p = mlirOperationGetParentOperation(p))
    if (dlcOpIs(p, "omp.parallel"))
      return p;
  return (MlirOperation){NULL};
}

static MlirWalkResult fenceReturns(MlirOperation op, void *user) {
  (void)user;
  if (dlcOpIs(op, "func.return"))
    fenceBefore(op);
  return MlirWalkResultAdvance;
}

/* An sfence where each thread that stored leaves: before the terminator
   of each omp.parallel region around a streaming store, and before the
   function's returns when a store is outside any. */
static void addFences(MlirOperation func, const DlcOpList *stores) {
  bool serial = false;
  DlcOpList done = {0};
  for (intptr_t i = 0; i < stores->n; ++i) {
    MlirOperation par = parallelOf(stores->ops[i], func);
    if (mlirOperationIsNull(par)) {
      serial = true;
      continue;
    }
    bool seen = false;
    for (intptr_t j = 0; j < done.n && !seen; ++j)
      seen = mlirOperationEqual(done.ops[j], par);
    if (seen)
      continue;
    dlcOpListPush(&done, par);
    for (MlirBlock blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(par, 0));
         !mlirBlockIsNull(blk); blk = mlirBlockGetNextInRegion(blk)) {
      MlirOperation term = mlirBlockGetTerminator(blk);
      if (!mlirOperationIsNull(term) && dlcOpIs(term, "omp.terminator"))
        fenceBefore(term);
    }
  }
  if (serial)
    mlirOperationWalk(func, fenceReturns, NULL, MlirWalkPostOrder);
  dlcOpListFree(&done);
}

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU whose last-level cache sets the threshold: host, avx2 or avx512",
     DLC_OPTION_STRING, "host"},
    {"min-bytes", "smallest output written with streaming stores; 0 takes the target's last-level "
                  "cache size",
     DLC_OPTION_INT, "0"},
};

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  const DlcOptions *o = dlcPassGetOptions(pass);
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (!dlcTargetCheck(func, "dlc-streaming-stores", "target", target))
    return (MlirLogicalResult){0};
#if !defined(__x86_64__)
  /* sfence and vmovntps are x86's: "host" elsewhere keeps plain stores */
  if (target.length == 4 && memcmp(target.data, "host", 4) == 0)
    return (MlirLogicalResult){1};
#endif
  int64_t minBytes = dlcOptionsGetInt(o, "min-bytes");
  if (minBytes < 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "dlc-streaming-stores: min-bytes must be 0 or more, got %lld",
             (long long)minBytes);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    return (MlirLogicalResult){0};
  }
  if (minBytes == 0)
    minBytes = dlcCpuTargetGet(target, 0).l3Bytes;
  Collect c = {minBytes, {0}, NULL, NULL, 0};
  mlirOperationWalk(func, collect, &c, MlirWalkPostOrder);
  for (intptr_t i = 0; i < c.stores.n; ++i)
    rewrite(c.stores.ops[i], c.align[i]);
  /* a rewritten store sits in an scf.if, inside the same parallel region */
  addFences(func, &c.stores);
  if (c.stores.n > 0)
    dlcPassAddStatistic(pass, "streamed", (uint64_t)c.stores.n);
  dlcOpListFree(&c.stores);
  free(c.align);
  free(c.roots);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStats[] = {{"streamed", "stores made non-temporal where aligned"}};

static void dependentDialects(MlirDialectRegistry r) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__scf__(), r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__llvm__(), r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__vector__(), r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), r);
}

const DlcPassDescriptor dlcStreamingStoresPass = {
    .argument = "dlc-streaming-stores",
    .summary = "Write outputs larger than the last-level cache with non-temporal stores, where a "
               "store fills whole cache lines (checked at run time), and fence them",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
