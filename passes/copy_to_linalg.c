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
   its copy is narrowed to the border (narrowPadFill). Both take dynamic
   outer sizes and offsets, as a direct conv's tile pads them at the
   image's edges: on a ResNet basic block (AOT library, C driver, 1 thread,
   AMD EPYC Zen 3, best of 300 calls, 4 alternated runs) 5.61-6.93 ->
   5.57-5.86 ms with the rows as vectors, 5.45-5.56 with the fill narrowed
   too (its memset was 3.4% of the samples, the scalar row copy 5% of the
   conv's). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/index_ops.h"
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

#include <string.h>



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

/* The innermost extent of a copy from `from` into `to` (of type `toType`)
   whose rows are static and contiguous on both sides, or 0. The outer
   dims may be dynamic: a direct conv's tile pads a slice of its input
   whose rows at the image's edges are fewer (1x64x?x56 into a 64x9x58
   buffer per ResNet tile; LLVM made it 56 scalar moves a row, 5% of the
   conv's time), and each of them is still one row. Size: the copy's, or
   where dynamic, the buffer `to` views. */
static int64_t vectorRow(MlirType from, MlirValue to) {
  MlirType toType = mlirValueGetType(to);
  int64_t rank = mlirShapedTypeGetRank(from);
  if (rank < 1 || rank > DLC_MAX_LOOPS ||
      mlirShapedTypeIsDynamicDim(from, rank - 1) || mlirShapedTypeIsDynamicDim(toType, rank - 1))
    return 0;
  int64_t strides[DLC_MAX_LOOPS], offset;
  MlirType sides[2] = {from, toType};
  for (int i = 0; i < 2; ++i)
    if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(sides[i], strides, &offset)) ||
        strides[rank - 1] != 1)
      return 0;
  int64_t n = mlirShapedTypeGetDimSize(from, rank - 1);
  int64_t bytes = mlirShapedTypeHasStaticShape(from)
                      ? dlcStaticTypeBytes(from)
                      : dlcStaticTypeBytes(mlirValueGetType(dlcMemrefRoot(to)));
  return n >= 2 && n <= kMaxVectorRow && bytes >= kMinBytes ? n : 0;
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
  for (int d = 0; d + 1 < n; ++d) /* dynamic dims too */
    sizes[d] = mlirShapedTypeGetDimSize(type, d) != 1;
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

/* An index that is a constant (`v` null) or a value: a pad's interior
   at an image's edge (a direct conv's tile) has dynamic offsets and sizes. */
typedef struct Ix {
  int64_t c;
  MlirValue v;
} Ix;

static MlirValue ixValue(DlcBuilder *b, Ix x) {
  return mlirValueIsNull(x.v) ? dlcIndexConst(b, x.c) : x.v;
}

/* x + sign * y */
static Ix ixAdd(DlcBuilder *b, Ix x, Ix y, int sign) {
  if (mlirValueIsNull(x.v) && mlirValueIsNull(y.v))
    return (Ix){x.c + sign * y.c, {NULL}};
  return (Ix){0, dlcIndexOp(b, sign > 0 ? "arith.addi" : "arith.subi", ixValue(b, x),
                            ixValue(b, y))};
}

/* A memref.subview of `buffer` (strides `st`, offset `base`) at `off` of
   `size`, unit steps, built by `b`. */
static MlirValue emitSlab(DlcBuilder *b, MlirValue buffer, int rank, const int64_t *st,
                          int64_t base, const Ix *off, const Ix *size) {
  MlirContext ctx = mlirValueGetContext(buffer);
  MlirType t = mlirValueGetType(buffer);
  int64_t offset = base, ones[DLC_MAX_LOOPS], so[DLC_MAX_LOOPS], ss[DLC_MAX_LOOPS];
  MlirValue operands[1 + 2 * DLC_MAX_LOOPS] = {buffer};
  int32_t seg[4] = {1, 0, 0, 0};
  for (int d = 0; d < rank; ++d) {
    ones[d] = 1;
    so[d] = mlirValueIsNull(off[d].v) ? off[d].c : mlirShapedTypeGetDynamicStrideOrOffset();
    if (!mlirValueIsNull(off[d].v))
      operands[1 + seg[1]++] = off[d].v;
    if (!mlirShapedTypeIsDynamicStrideOrOffset(offset))
      offset = mlirValueIsNull(off[d].v) ? offset + off[d].c * st[d]
                                         : mlirShapedTypeGetDynamicStrideOrOffset();
  }
  for (int d = 0; d < rank; ++d) {
    ss[d] = mlirValueIsNull(size[d].v) ? size[d].c : mlirShapedTypeGetDynamicSize();
    if (!mlirValueIsNull(size[d].v))
      operands[1 + seg[1] + seg[2]++] = size[d].v;
  }
  MlirType slab = mlirMemRefTypeGet(mlirShapedTypeGetElementType(t), rank, ss,
                                    mlirStridedLayoutAttrGet(ctx, offset, rank, st),
                                    mlirMemRefTypeGetMemorySpace(t));
  MlirOperation op = dlcBuildOpTyped(
      b, "memref.subview", 1 + seg[1] + seg[2], operands, 1, &slab,
      DLC_ATTRS(dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, seg)),
                dlcNamedI64Array(ctx, "static_offsets", rank, so),
                dlcNamedI64Array(ctx, "static_sizes", rank, ss),
                dlcNamedI64Array(ctx, "static_strides", rank, ones)));
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* The view's offsets or sizes (`name`) as Ix, their dynamic values from
   the operands at `*next`; false unless each dynamic one is defined
   before `fill` (the slabs go there). */
static bool viewIndices(MlirOperation view, const char *name, int64_t rank, intptr_t *next,
                        MlirOperation fill, Ix *out) {
  int64_t v[DLC_MAX_LOOPS];
  if (dlcGetI64Array(view, name, v, rank) != rank)
    return false;
  bool sizes = strcmp(name, "static_sizes") == 0;
  for (int d = 0; d < rank; ++d) {
    bool dyn = sizes ? mlirShapedTypeIsDynamicSize(v[d]) : mlirShapedTypeIsDynamicStrideOrOffset(v[d]);
    out[d] = (Ix){dyn ? 0 : v[d], {NULL}};
    if (!dyn)
      continue;
    MlirValue x = mlirOperationGetOperand(view, (*next)++);
    if (mlirValueIsAOpResult(x)) {
      MlirOperation def = mlirOpResultGetOwner(x);
      if (mlirBlockEqual(mlirOperationGetBlock(def), mlirOperationGetBlock(fill)) &&
          !mlirOperationIsBeforeInBlock(def, fill))
        return false;
    }
    out[d].v = x;
  }
  return true;
}

/* Narrows the fill before `copy` (whose destination is operand 1) to the
   border; returns whether it did. The interior's offsets and sizes may be
   dynamic: each slab then has the dynamic ones its part needs (empty at
   run time where the interior reaches that side). */
static bool narrowPadFill(MlirOperation copy) {
  MlirOperation view = dlcDefiningOp(mlirOperationGetOperand(copy, 1), "memref.subview");
  if (mlirOperationIsNull(view))
    return false;
  MlirValue buffer = mlirOperationGetOperand(view, 0);
  MlirType bt = mlirValueGetType(buffer);
  int64_t rank = mlirShapedTypeGetRank(bt);
  int64_t step[DLC_MAX_LOOPS], st[DLC_MAX_LOOPS], base;
  if (!mlirTypeIsAMemRef(bt) || rank < 1 || rank > DLC_MAX_LOOPS ||
      !mlirShapedTypeHasStaticShape(bt) || dlcStaticTypeBytes(bt) < kMinBytes ||
      mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(view, 0))) != rank ||
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
  Ix off[DLC_MAX_LOOPS], size[DLC_MAX_LOOPS];
  intptr_t next = 1;
  if (!viewIndices(view, "static_offsets", rank, &next, fill, off) ||
      !viewIndices(view, "static_sizes", rank, &next, fill, size) ||
      next != mlirOperationGetNumOperands(view))
    return false;
  intptr_t out = mlirOperationGetNumOperands(fill) - 1;
  MlirBlock block = mlirOperationGetBlock(fill);
  DlcBuilder b = dlcBuilderBefore(fill, mlirOperationGetLocation(fill));
  for (int d = 0; d < rank; ++d) {
    Ix extent = {mlirShapedTypeGetDimSize(bt, d), {NULL}};
    Ix sOff[DLC_MAX_LOOPS], sSize[DLC_MAX_LOOPS];
    for (int e = 0; e < rank; ++e) { /* the interior before d, whole after */
      sOff[e] = e < d ? off[e] : (Ix){0, {NULL}};
      sSize[e] = e < d ? size[e] : (Ix){mlirShapedTypeGetDimSize(bt, e), {NULL}};
    }
    Ix end = ixAdd(&b, off[d], size[d], 1);
    Ix parts[2][2] = {{{0, {NULL}}, off[d]}, {end, ixAdd(&b, extent, end, -1)}};
    for (int k = 0; k < 2; ++k) {
      if (mlirValueIsNull(parts[k][1].v) && parts[k][1].c <= 0)
        continue;
      sOff[d] = parts[k][0], sSize[d] = parts[k][1];
      MlirValue slab = emitSlab(&b, buffer, (int)rank, st, base, sOff, sSize);
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
    MlirType from = mlirValueGetType(operands[0]);
    if (!cpu || mlirOperationIsNull(copy) || !vectorRow(from, operands[1]))
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
