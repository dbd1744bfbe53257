/* --dlc-copy-to-linalg: memref.copy between strided buffers becomes
   linalg.copy.

   Bufferization writes copies as memref.copy; with a non-contiguous side
   (a subview of a padded buffer) the LLVM lowering calls the runtime's
   element-by-element memrefCopy. As linalg.copy it becomes a loop nest that
   LLVM vectorises like any other. Contiguous copies stay (they become
   memcpy).

   Short rows are vectorised here instead: LLVM unrolls a loop of a few
   dozen elements fully before its loop vectoriser runs, and its SLP
   vectoriser cannot then reorder the loads above the stores they may
   alias, so a pad's copy of 56-element rows ran as 56 scalar moves a row
   (1.6% of a ResNet basic block on Zen 1). With option cpu (the CPU
   pipeline's; the GPU's maps each linalg.copy to a launch), a copy whose
   rows are contiguous on both sides and at most kMaxVectorRow long is
   tiled to one row per iteration and each row copied as one vector (split
   among threads first when large, emitRowCopy), and a pad's fill before
   its copy is narrowed to the border (narrowPadFill). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/memref_views.h"
#include "lowering/emit.h"
#include "schedule/cost_model.h"
#include "schedule/driver.h"
#include "schedule/script.h"
#include "support/attr_names.h"
#include "support/op_list.h"
#include "support/type_bytes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MemRef.h"



/* Longer rows are left to LLVM's loop vectoriser, which handles them;
   a whole row is one vector value, so this bounds its registers. Copies
   and fills under kMinBytes are left as they were: every rewritten one is
   more code for LLVM. Rewriting all of them made MobileNetV2's AOT compile
   (dlc-compile, 1 thread, Zen 1, alternated rounds) 6.6-7.1 -> 7.9-8.3 s,
   most of it its per-channel pad planes inside the depthwise foralls (12
   KiB and less), which saved no measurable time; with the floor it is
   7.4-7.5 s. ResNet-50's pads are all above it: 0.4-0.7 s more of its
   7.6-9.1 s AOT compile, within the noise of its 2-thread JIT compile
   (bench/compile_time.py). The pads between kernels (a ResNet conv's
   input, 800 KiB) are the ones that paid. */
enum {
  kMaxVectorRow = 128,
  kMinBytes = 64 << 10,
  kParallelMinBytes = 256 << 10,
  kParallelBlocks = 8,
};

/* The innermost extent of a static copy whose rows are contiguous on both
   sides, or 0. */
static int64_t vectorRow(MlirType from, MlirType to) {
  int64_t rank = mlirShapedTypeGetRank(from);
  if (rank < 1 || rank > DLC_MAX_LOOPS || !mlirShapedTypeHasStaticShape(from))
    return 0;
  int64_t strides[DLC_MAX_LOOPS], offset;
  MlirType sides[2] = {from, to};
  for (int i = 0; i < 2; ++i)
    if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(sides[i], strides, &offset)) ||
        strides[rank - 1] != 1)
      return 0;
  int64_t n = mlirShapedTypeGetDimSize(from, rank - 1);
  return n >= 2 && n <= kMaxVectorRow && dlcStaticTypeBytes(from) >= kMinBytes ? n : 0;
}

/* One row per iteration of the loops over the outer dims (unit dims need
   none), copied as one vector (its unit dims, a 1 x n vector, are cast
   away by the vector lowering). A copy of kParallelMinBytes or more is
   first split among threads by an scf.forall over about kParallelBlocks
   blocks of its first dim longer than one: such copies (a conv's input
   into its padded buffer) sit between kernels, where one core copied while
   the other waited (ResNet basic block, 2 threads, Zen 1: 6.78-6.88 ->
   6.68-6.85 ms median, 1.2-1.5% in 5 alternated rounds; 1 thread
   unchanged). */
static void emitRowCopy(DlcScript *s, int64_t id, MlirType type) {
  int n = (int)mlirShapedTypeGetRank(type);
  int64_t sizes[DLC_MAX_LOOPS] = {0};
  for (int d = 0; d + 1 < n; ++d)
    sizes[d] = mlirShapedTypeGetDimSize(type, d) > 1;
  int h = dlcScriptMatchTagged(s, DLC_ATTR_COPY_ROW, id);
  int64_t bytes = dlcStaticTypeBytes(type);
  for (int d = 0; d + 1 < n && bytes >= kParallelMinBytes; ++d) {
    int64_t e = mlirShapedTypeGetDimSize(type, d);
    if (e < 2)
      continue;
    int64_t par[DLC_MAX_LOOPS] = {0};
    par[d] = dlcLargestDivisor(e, e / kParallelBlocks > 0 ? e / kParallelBlocks : 1);
    dlcScriptTileForall(s, &h, par, n, NULL);
    break;
  }
  int inner, t = dlcScriptTileFor(s, h, sizes, n, &inner);
  dlcScriptVectorize(s, t);
  /* LLVM fully unrolled the row loops (56 rows of 7 vector loads and
     stores for a 56x56 plane) into blocks whose code generation is
     quadratic in their memory operations: ResNet-50's two copies of
     64x56x56 planes took 0.85 s of its 4.1 s of llc. A copy runs at
     memory speed either way. */
  for (int l = t + 1; l <= inner; ++l) /* the tile loops; none when inner is -1 */
    dlcScriptKeepRolled(s, l);
}

/*--- A pad's fill narrowed to the border -----------------------------------*/

/* Bufferised, a tensor.pad fills its whole buffer and then copies the
   source into the interior (a subview): the interior is written twice.
   When the fill (linalg.fill, or a linalg.map without inputs) directly
   precedes the copy (nothing but the subview and constants between) and
   both have static shapes and offsets, the fill is cut down to the slabs
   around the interior: along each dim d, the part below and above the
   interior, within the interior along the dims before d. For a ResNet
   3x3 conv's input (64 x 58 x 58) that fills 7% of the bytes it did
   (the whole fill was 0.7% of a basic block, all on one thread). */

static bool betweenIsInert(MlirOperation from, MlirOperation to, MlirOperation view) {
  for (MlirOperation o = mlirOperationGetNextInBlock(from); !mlirOperationEqual(o, to);
       o = mlirOperationGetNextInBlock(o)) {
    if (mlirOperationIsNull(o))
      return false;
    if (!mlirOperationEqual(o, view) && !dlcOpIs(o, "arith.constant"))
      return false;
  }
  return true;
}

/* The fill of `buffer` that `copy` (into its subview `view`) follows. */
static MlirOperation padFill(MlirOperation copy, MlirOperation view, MlirValue buffer) {
  for (MlirOpOperand u = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation f = mlirOpOperandGetOwner(u);
    intptr_t n = mlirOperationGetNumOperands(f);
    bool fill = (dlcOpIs(f, "linalg.fill") && n == 2) || (dlcOpIs(f, "linalg.map") && n == 1);
    if (fill && mlirOpOperandGetOperandNumber(u) == n - 1 &&
        mlirBlockEqual(mlirOperationGetBlock(f), mlirOperationGetBlock(copy)) &&
        mlirOperationIsBeforeInBlock(f, copy) && betweenIsInert(f, copy, view))
      return f;
  }
  return (MlirOperation){NULL};
}

/* A memref.subview of `buffer` (strides `st`, offset `base`) at `off` of
   `size`, unit steps, before `before`. */
static MlirValue emitSlab(MlirOperation before, MlirValue buffer, int rank, const int64_t *st,
                          int64_t base, const int64_t *off, const int64_t *size) {
  MlirContext ctx = mlirValueGetContext(buffer);
  MlirType t = mlirValueGetType(buffer);
  int64_t offset = base, ones[DLC_MAX_LOOPS];
  for (int d = 0; d < rank; ++d)
    offset += off[d] * st[d], ones[d] = 1;
  MlirType slab = mlirMemRefTypeGet(mlirShapedTypeGetElementType(t), rank, size,
                                    mlirStridedLayoutAttrGet(ctx, offset, rank, st),
                                    mlirMemRefTypeGetMemorySpace(t));
  int32_t seg[4] = {1, 0, 0, 0};
  DlcBuilder b = dlcBuilderBefore(before, mlirOperationGetLocation(before));
  MlirOperation op = dlcBuildOpTyped(
      &b, "memref.subview", 1, &buffer, 1, &slab,
      DLC_ATTRS(dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, seg)),
                dlcNamedI64Array(ctx, "static_offsets", rank, off),
                dlcNamedI64Array(ctx, "static_sizes", rank, size),
                dlcNamedI64Array(ctx, "static_strides", rank, ones)));
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* Narrows the fill before `copy` (whose destination is operand 1) to the
   border; returns whether it did. */
static bool narrowPadFill(MlirOperation copy) {
  MlirOperation view = dlcDefiningOp(mlirOperationGetOperand(copy, 1), "memref.subview");
  if (mlirOperationIsNull(view) || mlirOperationGetNumOperands(view) != 1)
    return false; /* dynamic offsets, sizes or strides */
  MlirValue buffer = mlirOperationGetOperand(view, 0);
  MlirType bt = mlirValueGetType(buffer);
  int64_t rank = mlirShapedTypeGetRank(bt);
  int64_t off[DLC_MAX_LOOPS], size[DLC_MAX_LOOPS], step[DLC_MAX_LOOPS], st[DLC_MAX_LOOPS], base;
  if (!mlirTypeIsAMemRef(bt) || rank < 1 || rank > DLC_MAX_LOOPS ||
      !mlirShapedTypeHasStaticShape(bt) || dlcStaticTypeBytes(bt) < kMinBytes ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(view, 0))) != rank ||
      dlcGetI64Array(view, "static_offsets", off, rank) != rank ||
      dlcGetI64Array(view, "static_sizes", size, rank) != rank ||
      dlcGetI64Array(view, "static_strides", step, rank) != rank ||
      mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(bt, st, &base)) ||
      mlirShapedTypeIsDynamicStrideOrOffset(base))
    return false;
  for (int d = 0; d < rank; ++d)
    if (step[d] != 1 || mlirShapedTypeIsDynamicStrideOrOffset(st[d]))
      return false;
  MlirOperation fill = padFill(copy, view, buffer);
  if (mlirOperationIsNull(fill))
    return false;
  intptr_t out = mlirOperationGetNumOperands(fill) - 1;
  MlirBlock block = mlirOperationGetBlock(fill);
  for (int d = 0; d < rank; ++d) {
    int64_t extent = mlirShapedTypeGetDimSize(bt, d);
    int64_t sOff[DLC_MAX_LOOPS], sSize[DLC_MAX_LOOPS];
    for (int e = 0; e < rank; ++e) { /* the interior before d, whole after */
      sOff[e] = e < d ? off[e] : 0;
      sSize[e] = e < d ? size[e] : mlirShapedTypeGetDimSize(bt, e);
    }
    int64_t parts[2][2] = {{0, off[d]}, {off[d] + size[d], extent - off[d] - size[d]}};
    for (int k = 0; k < 2; ++k) {
      if (parts[k][1] <= 0)
        continue;
      sOff[d] = parts[k][0], sSize[d] = parts[k][1];
      MlirValue slab = emitSlab(fill, buffer, (int)rank, st, base, sOff, sSize);
      if (mlirValueIsNull(slab))
        return false;
      MlirOperation part = mlirOperationClone(fill);
      mlirOperationSetOperand(part, out, slab);
      mlirBlockInsertOwnedOperationBefore(block, fill, part);
    }
  }
  mlirOperationDestroy(fill);
  return true;
}

static MlirWalkResult collect(MlirOperation op, void *list) {
  if (dlcOpIs(op, "memref.copy")) {
    MlirType a = mlirValueGetType(mlirOperationGetOperand(op, 0));
    MlirType b = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (mlirTypeIsAMemRef(a) && mlirTypeIsAMemRef(b) &&
        (!dlcMemRefIsIdentityLayout(a) || !dlcMemRefIsIdentityLayout(b)))
      dlcOpListPush(list, op);
  }
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  bool cpu = dlcOptionsGetBool(dlcPassGetOptions(pass), "cpu");
  DlcOpList copies = {NULL, 0, 0};
  mlirOperationWalk(module, collect, &copies, MlirWalkPreOrder);
  DlcScript script = {.text = {NULL, 0, 0}};
  int64_t rows = 0, narrowed = 0;
  for (intptr_t i = 0; i < copies.n; ++i) {
    MlirOperation op = copies.ops[i];
    MlirContext ctx = mlirOperationGetContext(op);
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    int32_t seg[2] = {1, 1};
    MlirValue operands[2] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1)};
    narrowed += cpu && narrowPadFill(op);
    MlirNamedAttribute segments =
        dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
    MlirOperation copy =
        dlcEmitNamedLinalg(&b, "linalg.copy", 2, operands, (MlirType){NULL}, 1, &segments);
    mlirOperationDestroy(op);
    MlirType from = mlirValueGetType(operands[0]), to = mlirValueGetType(operands[1]);
    if (!cpu || mlirOperationIsNull(copy) || !vectorRow(from, to))
      continue;
    if (rows == 0)
      dlcScriptBegin(&script);
    mlirOperationSetDiscardableAttributeByName(
        copy, mlirStringRefCreateFromCString(DLC_ATTR_COPY_ROW),
        mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), rows));
    emitRowCopy(&script, rows++, from);
  }
  MlirLogicalResult r = {1};
  if (rows > 0) {
    dlcScriptEnd(&script);
    r = dlcScriptRun(&script, module, "dlc-copy-to-linalg", false);
  }
  dlcScriptFree(&script);
  dlcPassAddStatistic(pass, "rewritten", (uint64_t)copies.n);
  dlcPassAddStatistic(pass, "vector-rows", (uint64_t)rows);
  dlcPassAddStatistic(pass, "narrowed-fills", (uint64_t)narrowed);
  dlcOpListFree(&copies);
  return r;
}

static const DlcOptionDesc kOptions[] = {
    {"cpu", "copy short contiguous rows as whole vectors and narrow pad fills to the border",
     DLC_OPTION_BOOL, "false"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"rewritten", "Number of strided memref.copy ops turned into linalg.copy"},
    {"vector-rows", "Number of those copied a row-long vector at a time"},
    {"narrowed-fills", "Number of pad fills cut down to the border around their copy"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  dlcScheduleDialects(registry); /* the row script's: transform, scf, vector */
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__llvm__(), registry); /* its loop_annotation */
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
}

const DlcPassDescriptor dlcCopyToLinalgPass = {
    .argument = "dlc-copy-to-linalg",
    .summary = "Turn memref.copy between strided buffers into linalg.copy (vectorisable "
               "loops instead of the runtime's element-wise copy)",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
