/* --dlc-gpu-rows: a row kernel's innermost loops spread over the lanes of
   a warp, partial reductions combined by warp shuffles.

   dlc-gpu-schedule's ROWS strategy gives each row to one thread of the
   thread forall and, when the cost model (dlcGpuRowLanes) spreads the row
   over `lanes` threads, records `dlc.row_lanes = [lanes, K]` (K: the
   extent of the row's innermost loop); dlc-gpu-map moves it to the
   gpu.launch. After convert-linalg-to-loops this pass rewrites such a
   launch (what the vectoriser left, per thread):

     - threads in x: x = rows x lanes; the row a thread works on is
       thread_id.x / lanes, its lane thread_id.x % lanes, so a row's lanes
       are adjacent threads of one warp (lanes divides 32, and the block
       is whole warps: shfl.sync names all 32 lanes);
     - every innermost scf.for from 0 to K (the loops over the row, each a
       chunk of `step` elements an iteration) starts at lane * step and
       steps by lanes * step: a lane reads its chunks, a warp's accesses are
       adjacent (coalesced), each 128 bits wide;
     - a reduction's vector partial sums (a private buffer set to a splat
       before the loop, read-modify-written in it) then hold the lane's
       share; after the vector.reduction of them, log2(lanes) rounds of
       `gpu.shuffle xor` (shfl.sync.bfly) combine the lanes, so every lane
       holds the row's value, and the reduction's own initial value is
       combined once, after the shuffles;
     - over 32 lanes (a block a row, the block holding one row): after the
       shuffles each warp's lanes store its value to a shared-memory
       buffer of one slot per warp (a workgroup attribution of the
       launch, one per reduction), a gpu.barrier, and every thread
       combines the slots in order;
     - the fused prologue and epilogue loops over the row are spread the
       same way (each lane writes its own chunks of the output).

   The rewrite is checked before anything changes, and a launch that does
   not have this shape keeps one thread per row (correct, slower; counted
   by the `kept` statistic): every spread loop must have the same step, so
   a lane owns the same chunks in all of them; a spread loop may write
   only at its own iteration's elements (to memory nothing in the launch
   reads back) or to a partial-sum buffer; it may read private buffers
   only at fixed indices (values all lanes hold, like a row's max); a
   partial-sum buffer's splat must be the reduction's neutral element
   (0 for add, 1 for mul; any value for min/max), since each lane starts
   from it; shuffled values are 32-bit (f16/bf16 are widened for the
   shuffle, exactly). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/attr_names.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/scf_loops.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

enum { kMaxOps = 256 };

/*--- Reading the launch ------------------------------------------------------------*/

/* Whether `v` is computed (inside `loop`) from the loop's induction var. */
static bool dependsOnIv(MlirValue v, MlirOperation loop, MlirValue iv, int depth) {
  if (mlirValueEqual(v, iv))
    return true;
  if (depth > 16 || !mlirValueIsAOpResult(v))
    return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!dlcOpIsAncestor(loop, d))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); ++i)
    if (dependsOnIv(mlirOperationGetOperand(d, i), loop, iv, depth + 1))
      return true;
  return false;
}

static bool isWrite(MlirOperation op) {
  return dlcOpIs(op, "vector.transfer_write") || dlcOpIs(op, "memref.store");
}
static bool isRead(MlirOperation op) {
  return dlcOpIs(op, "vector.transfer_read") || dlcOpIs(op, "memref.load");
}
/* The memref operand of a read or write. */
static MlirValue accessed(MlirOperation op) {
  return mlirOperationGetOperand(op, isWrite(op) ? 1 : 0);
}
static bool isAlloca(MlirValue root) { return !mlirOperationIsNull(dlcDefiningOp(root, "memref.alloca")); }

/*--- The reduction kinds ------------------------------------------------------------*/

typedef struct {
  const char *kind;     /* #vector.kind<..> */
  const char *floatOp;  /* combining op on floats (NULL: none) */
  const char *intOp;    /* and on integers */
  int neutral;          /* 0 or 1: the partial sums' splat; 2: all ones; -1: any (idempotent) */
} Kind;

static const Kind kKinds[] = {
    {"add", "arith.addf", "arith.addi", 0},      {"mul", "arith.mulf", "arith.muli", 1},
    {"maximumf", "arith.maximumf", NULL, -1},    {"minimumf", "arith.minimumf", NULL, -1},
    {"maxnumf", "arith.maxnumf", NULL, -1},      {"minnumf", "arith.minnumf", NULL, -1},
    {"maxsi", NULL, "arith.maxsi", -1},          {"minsi", NULL, "arith.minsi", -1},
    {"maxui", NULL, "arith.maxui", -1},          {"minui", NULL, "arith.minui", -1},
    {"and", NULL, "arith.andi", 2},              {"or", NULL, "arith.ori", 0},
    {"xor", NULL, "arith.xori", 0},
};

static void appendChars(MlirStringRef s, void *u) {
  char *buf = u;
  size_t n = strlen(buf);
  size_t k = s.length < 63 - n ? s.length : 63 - n;
  memcpy(buf + n, s.data, k);
  buf[n + k] = 0;
}

static const Kind *kindOf(MlirOperation reduction) {
  char text[64] = "";
  mlirAttributePrint(mlirOperationGetAttributeByName(reduction, str("kind")), appendChars, text);
  const char *lt = strchr(text, '<');
  if (!lt)
    return NULL;
  for (size_t k = 0; k < sizeof kKinds / sizeof kKinds[0]; ++k) {
    size_t n = strlen(kKinds[k].kind);
    if (!strncmp(lt + 1, kKinds[k].kind, n) && lt[1 + n] == '>')
      return &kKinds[k];
  }
  return NULL;
}

/* Types a shuffle carries: 32-bit, or 16-bit floats widened to f32. */
static bool shuffleable(MlirType t) {
  return mlirTypeIsAF32(t) || mlirTypeIsAF16(t) || mlirTypeIsABF16(t) ||
         (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32);
}

/* The value a splat constant holds, as a double. */
static bool splatValue(MlirValue v, double *out, bool *allOnes) {
  MlirOperation c = dlcDefiningOp(v, "arith.constant");
  if (mlirOperationIsNull(c))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(c, str("value"));
  if (mlirAttributeIsADenseElements(a)) {
    if (!mlirDenseElementsAttrIsSplat(a))
      return false;
    a = mlirDenseElementsAttrGetSplatValue(a);
  }
  if (mlirAttributeIsAFloat(a)) {
    *out = mlirFloatAttrGetValueDouble(a);
    *allOnes = false;
    return true;
  }
  if (mlirAttributeIsAInteger(a)) {
    *out = (double)mlirIntegerAttrGetValueInt(a);
    *allOnes = mlirIntegerAttrGetValueInt(a) == -1;
    return true;
  }
  return false;
}

/*--- Checking a launch ----------------------------------------------------------------*/

typedef struct {
  MlirOperation launch;
  int64_t lanes, extent, step;
  MlirValue warp; /* lanes > 32: thread_id.x / 32 */
  DlcOpList loops;      /* the innermost loops over the row: spread */
  DlcOpList accesses;   /* every read and write in the launch */
  DlcOpList reductions; /* vector.reduction of partial sums */
  DlcOpList partials;   /* the partial-sum buffers (memref.alloca) */
  bool ok;
} Launch;

static MlirWalkResult collectLaunch(MlirOperation op, void *u) {
  Launch *l = u;
  if (isRead(op) || isWrite(op))
    dlcOpListPush(&l->accesses, op);
  if (dlcOpIs(op, "memref.copy") || dlcOpIs(op, "func.call") || dlcOpIs(op, "gpu.block_dim") ||
      dlcOpIs(op, "gpu.shuffle") || dlcOpIs(op, "gpu.subgroup_reduce"))
    l->ok = false; /* a shape this pass does not reason about */
  if (!dlcOpIs(op, "scf.for"))
    return MlirWalkResultAdvance;
  bool innermost = true;
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    innermost = innermost && !dlcOpIs(o, "scf.for") && !dlcOpIs(o, "scf.while");
  int64_t lb, ub, step;
  if (innermost && dlcConstantInt(mlirOperationGetOperand(op, 0), &lb) &&
      dlcConstantInt(mlirOperationGetOperand(op, 1), &ub) &&
      dlcConstantInt(mlirOperationGetOperand(op, 2), &step) && lb == 0 && ub == l->extent &&
      mlirOperationGetNumResults(op) == 0) {
    if (l->step && l->step != step)
      l->ok = false; /* lanes would own different chunks in different loops */
    l->step = step;
    dlcOpListPush(&l->loops, op);
  }
  return MlirWalkResultAdvance;
}

static MlirOperation spreadLoopOf(const Launch *l, MlirOperation op) {
  for (intptr_t i = 0; i < l->loops.n; ++i)
    if (dlcOpIsAncestor(l->loops.ops[i], op))
      return l->loops.ops[i];
  return (MlirOperation){NULL};
}

/* Whether the access `op` in spread loop `loop` uses the iteration's
   elements (its indices or its view depend on the induction variable). */
static bool atIteration(MlirOperation op, MlirOperation loop) {
  MlirValue iv = mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), 0);
  for (intptr_t i = isWrite(op) ? 1 : 0; i < mlirOperationGetNumOperands(op); ++i)
    if (dependsOnIv(mlirOperationGetOperand(op, i), loop, iv, 0))
      return true;
  return false;
}

static MlirWalkResult findWrite(MlirOperation op, void *u) {
  MlirValue *root = u;
  if (isWrite(op) && mlirValueEqual(dlcMemrefRoot(accessed(op)), *root)) {
    *root = (MlirValue){NULL};
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static bool writesTo(MlirOperation loop, MlirValue root) {
  mlirOperationWalk(loop, findWrite, &root, MlirWalkPreOrder);
  return mlirValueIsNull(root);
}

/* A partial-sum buffer: a private buffer the spread loops read-modify-
   write at fixed indices, set once outside them to a splat neutral for
   every reduction that reads it, read elsewhere only by transfer_reads
   whose one use is a vector.reduction in the launch's body. */
static bool checkPartial(Launch *l, MlirValue root) {
  int inits = 0;
  double splat = 0;
  bool allOnes = false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->launch, 0));
  for (MlirOpOperand u = mlirValueGetFirstUse(root); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation op = mlirOpOperandGetOwner(u);
    MlirOperation loop = spreadLoopOf(l, op);
    if (!isRead(op) && !isWrite(op))
      return false;
    if (!mlirOperationIsNull(loop)) {
      /* read-modify-written at fixed indices, in a loop that writes it: a
         read in another loop would see one lane's share */
      if (atIteration(op, loop) || !writesTo(loop, root))
        return false;
      continue;
    }
    if (isWrite(op)) {
      if (++inits > 1 || !splatValue(mlirOperationGetOperand(op, 0), &splat, &allOnes))
        return false;
      continue;
    }
    MlirValue r = mlirOperationGetResult(op, 0);
    MlirOpOperand use = mlirValueGetFirstUse(r);
    if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
      return false;
    MlirOperation red = mlirOpOperandGetOwner(use);
    const Kind *k = dlcOpIs(red, "vector.reduction") ? kindOf(red) : NULL;
    if (!k || !mlirBlockEqual(mlirOperationGetBlock(red), body) ||
        mlirOpOperandGetOperandNumber(use) != 0 ||
        !shuffleable(mlirValueGetType(mlirOperationGetResult(red, 0))))
      return false;
    if ((k->neutral == 0 && splat != 0) || (k->neutral == 1 && splat != 1) ||
        (k->neutral == 2 && !allOnes))
      return false;
    dlcOpListPush(&l->reductions, red);
  }
  return inits == 1;
}

static bool checkLaunch(Launch *l) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->launch, 0));
  if (mlirBlockGetNumArguments(body) < 12 ||
      !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(body, 9))))
    return false; /* the body reads blockDim.x, which changes */
  for (intptr_t i = 0; i < l->accesses.n; ++i) {
    MlirOperation op = l->accesses.ops[i];
    MlirOperation loop = spreadLoopOf(l, op);
    if (mlirOperationIsNull(loop))
      continue;
    MlirValue root = dlcMemrefRoot(accessed(op));
    if (isWrite(op) && atIteration(op, loop)) {
      /* a lane's own elements: private buffers would hold only the lane's
         share, and memory read back in the launch could be another lane's */
      if (isAlloca(root))
        return false;
      for (intptr_t j = 0; j < l->accesses.n; ++j)
        if (isRead(l->accesses.ops[j]) &&
            mlirValueEqual(dlcMemrefRoot(accessed(l->accesses.ops[j])), root))
          return false;
      continue;
    }
    if (isWrite(op)) { /* at fixed indices: a partial-sum buffer, checked once */
      MlirOperation alloca = dlcDefiningOp(root, "memref.alloca");
      bool seen = false;
      for (intptr_t j = 0; j < l->partials.n && !seen; ++j)
        seen = mlirOperationEqual(l->partials.ops[j], alloca);
      if (seen)
        continue;
      if (mlirOperationIsNull(alloca) || !checkPartial(l, root))
        return false;
      dlcOpListPush(&l->partials, alloca);
      continue;
    }
    if (isAlloca(root) && atIteration(op, loop))
      return false; /* another lane may have written those elements */
  }
  return true;
}

/*--- Rewriting ------------------------------------------------------------------------*/

static MlirValue indexConstant(DlcBuilder *b, int64_t v) {
  MlirType t = mlirIndexTypeGet(b->context);
  return dlcBuildValue(b, "arith.constant", 0, NULL,
                       DLC_ATTRS(dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v))));
}

static MlirValue i32Constant(DlcBuilder *b, int64_t v) {
  MlirType t = mlirIntegerTypeGet(b->context, 32);
  return dlcBuildValue(b, "arith.constant", 0, NULL,
                       DLC_ATTRS(dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v))));
}

static MlirValue combine(DlcBuilder *b, const Kind *k, MlirValue x, MlirValue y) {
  bool isFloat = !mlirTypeIsAInteger(mlirValueGetType(x));
  return dlcBuildValue(b, isFloat ? k->floatOp : k->intOp, DLC_VALUES(x, y), DLC_NO_ATTRS);
}

/* `red`'s lanes combined: its vector.reduction without the initial value,
   log2(lanes) butterfly shuffles, then the initial value. */
static void shuffleReduction(Launch *l, MlirOperation red) {
  MlirContext ctx = mlirOperationGetContext(red);
  MlirLocation loc = mlirOperationGetLocation(red);
  MlirOperation after = mlirOperationGetNextInBlock(red);
  DlcBuilder b = dlcBuilderBefore(after, loc);
  const Kind *k = kindOf(red);
  MlirValue old = mlirOperationGetResult(red, 0);
  MlirType t = mlirValueGetType(old);
  MlirNamedAttribute kind = dlcNamed(ctx, "kind", mlirOperationGetAttributeByName(red, str("kind")));
  MlirValue src = mlirOperationGetOperand(red, 0);
  MlirValue x = mlirOperationGetResult(dlcBuildOpTyped(&b, "vector.reduction", 1, &src, 1, &t, 1, &kind), 0);
  MlirType f32 = mlirF32TypeGet(ctx), i1 = mlirIntegerTypeGet(ctx, 1);
  bool widen = mlirTypeIsAF16(t) || mlirTypeIsABF16(t);
  MlirNamedAttribute mode = dlcNamed(ctx, "mode", mlirAttributeParseGet(ctx, str("#gpu<shuffle_mode xor>")));
  MlirValue width = i32Constant(&b, 32);
  for (int64_t off = (l->lanes < 32 ? l->lanes : 32) / 2; off >= 1; off /= 2) {
    MlirValue v = widen ? mlirOperationGetResult(
                              dlcBuildOpTyped(&b, "arith.extf", 1, &x, 1, &f32, 0, NULL), 0)
                        : x;
    MlirValue ops[3] = {v, i32Constant(&b, off), width};
    MlirType vt = mlirValueGetType(v);
    MlirType rts[2] = {vt, i1};
    MlirValue s = mlirOperationGetResult(dlcBuildOpTyped(&b, "gpu.shuffle", 3, ops, 2, rts, 1, &mode), 0);
    if (widen)
      s = mlirOperationGetResult(dlcBuildOpTyped(&b, "arith.truncf", 1, &s, 1, &t, 0, NULL), 0);
    x = combine(&b, k, x, s);
  }
  if (l->lanes > 32) { /* a block a row: the warps' values through shared memory */
    int64_t warps = l->lanes / 32;
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->launch, 0));
    MlirAttribute wg = mlirAttributeParseGet(ctx, str("#gpu.address_space<workgroup>"));
    MlirType bufType = mlirMemRefTypeGet(t, 1, &warps, mlirAttributeGetNull(), wg);
    MlirValue buf = mlirBlockAddArgument(body, bufType, loc);
    int64_t n = dlcGetI64(l->launch, "workgroup_attributions", 0);
    mlirOperationSetDiscardableAttributeByName(
        l->launch, str("workgroup_attributions"),
        mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), n + 1));
    /* every lane of warp w holds its value: all of them store it to w */
    dlcBuildOpTyped(&b, "memref.store", 3, (MlirValue[]){x, buf, l->warp}, 0, NULL, 0, NULL);
    dlcBuildOpTyped(&b, "gpu.barrier", 0, NULL, 0, NULL, 0, NULL);
    MlirValue acc = mlirOperationGetResult(
        dlcBuildOpTyped(&b, "memref.load", 2, (MlirValue[]){buf, indexConstant(&b, 0)}, 1, &t, 0,
                        NULL),
        0);
    for (int64_t w = 1; w < warps; ++w)
      acc = combine(&b, k, acc,
                    mlirOperationGetResult(
                        dlcBuildOpTyped(&b, "memref.load", 2,
                                        (MlirValue[]){buf, indexConstant(&b, w)}, 1, &t, 0, NULL),
                        0));
    x = acc;
  }
  if (mlirOperationGetNumOperands(red) > 1)
    x = combine(&b, k, mlirOperationGetOperand(red, 1), x);
  mlirValueReplaceAllUsesOfWith(old, x);
  mlirOperationDestroy(red);
}

static void rewriteLaunch(Launch *l) {
  MlirContext ctx = mlirOperationGetContext(l->launch);
  MlirLocation loc = mlirOperationGetLocation(l->launch);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l->launch, 0));
  /* blockDim.x: rows x lanes (operands: async deps, grid x y z, block x ...) */
  MlirAttribute seg = mlirOperationGetAttributeByName(l->launch, str("operandSegmentSizes"));
  intptr_t bx = mlirDenseI32ArrayGetElement(seg, 0) + 3;
  int64_t rows = 1;
  dlcConstantInt(mlirOperationGetOperand(l->launch, bx), &rows);
  DlcBuilder host = dlcBuilderBefore(l->launch, loc);
  mlirOperationSetOperand(l->launch, bx, indexConstant(&host, rows * l->lanes));
  /* the row: thread_id.x / lanes; the lane: thread_id.x % lanes */
  DlcOpList tids = {0};
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (dlcOpIs(o, "gpu.thread_id") &&
        mlirAttributeEqual(mlirOperationGetAttributeByName(o, str("dimension")),
                           mlirAttributeParseGet(ctx, str("#gpu<dim x>"))))
      dlcOpListPush(&tids, o);
  DlcBuilder b = dlcBuilderBefore(mlirBlockGetFirstOperation(body), loc);
  MlirType index = mlirIndexTypeGet(ctx);
  MlirNamedAttribute dimX = dlcNamed(ctx, "dimension", mlirAttributeParseGet(ctx, str("#gpu<dim x>")));
  MlirValue tid = mlirOperationGetResult(dlcBuildOpTyped(&b, "gpu.thread_id", 0, NULL, 1, &index, 1, &dimX), 0);
  MlirValue lanes = indexConstant(&b, l->lanes);
  MlirValue row = dlcBuildValue(&b, "arith.divui", DLC_VALUES(tid, lanes), DLC_NO_ATTRS);
  MlirValue lane = dlcBuildValue(&b, "arith.remui", DLC_VALUES(tid, lanes), DLC_NO_ATTRS);
  if (l->lanes > 32)
    l->warp = dlcBuildValue(&b, "arith.divui", DLC_VALUES(lane, indexConstant(&b, 32)),
                            DLC_NO_ATTRS);
  for (intptr_t i = 0; i < tids.n; ++i) {
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(tids.ops[i], 0), row);
    mlirOperationDestroy(tids.ops[i]);
  }
  dlcOpListFree(&tids);
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, 3), row);
  /* each spread loop: from lane * step, by lanes * step */
  MlirValue first = dlcBuildValue(&b, "arith.muli", DLC_VALUES(lane, indexConstant(&b, l->step)),
                                  DLC_NO_ATTRS);
  MlirValue stride = indexConstant(&b, l->step * l->lanes);
  for (intptr_t i = 0; i < l->loops.n; ++i) {
    mlirOperationSetOperand(l->loops.ops[i], 0, first);
    mlirOperationSetOperand(l->loops.ops[i], 2, stride);
  }
  for (intptr_t i = 0; i < l->reductions.n; ++i)
    shuffleReduction(l, l->reductions.ops[i]);
}

/* The block's threads after the rewrite fill whole warps: shfl.sync names
   all 32 lanes of a warp, which must all exist. */
static bool wholeWarps(MlirOperation launch, int64_t lanes) {
  MlirAttribute seg = mlirOperationGetAttributeByName(launch, str("operandSegmentSizes"));
  intptr_t bx = mlirDenseI32ArrayGetElement(seg, 0) + 3;
  int64_t threads = lanes;
  for (intptr_t i = bx; i < bx + 3; ++i) {
    int64_t v;
    if (!dlcConstantInt(mlirOperationGetOperand(launch, i), &v))
      return false;
    threads *= v;
  }
  return threads % 32 == 0;
}

/* Over a warp, the block holds one row (its sizes in the launch are 1). */
static bool oneRow(MlirOperation launch) {
  MlirAttribute seg = mlirOperationGetAttributeByName(launch, str("operandSegmentSizes"));
  intptr_t bx = mlirDenseI32ArrayGetElement(seg, 0) + 3;
  for (intptr_t i = bx; i < bx + 3; ++i) {
    int64_t v;
    if (!dlcConstantInt(mlirOperationGetOperand(launch, i), &v) || v != 1)
      return false;
  }
  return dlcGetI64(launch, "workgroup_attributions", 0) == 0;
}

typedef struct {
  DlcOpList launches;
} Found;

static MlirWalkResult collectLaunches(MlirOperation op, void *u) {
  if (dlcOpIs(op, "gpu.launch") &&
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_ROW_LANES))))
    dlcOpListPush(&((Found *)u)->launches, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  Found f = {{0}};
  mlirOperationWalk(module, collectLaunches, &f, MlirWalkPreOrder);
  uint64_t spread = 0, kept = 0;
  for (intptr_t i = 0; i < f.launches.n; ++i) {
    MlirOperation op = f.launches.ops[i];
    MlirAttribute a = mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_ROW_LANES));
    Launch l = {.launch = op, .ok = true};
    if (mlirAttributeIsADenseI64Array(a) && mlirDenseArrayGetNumElements(a) == 2) {
      l.lanes = mlirDenseI64ArrayGetElement(a, 0);
      l.extent = mlirDenseI64ArrayGetElement(a, 1);
    }
    mlirOperationRemoveDiscardableAttributeByName(op, str(DLC_ATTR_ROW_LANES));
    if (l.lanes > 1 && (l.lanes & (l.lanes - 1)) == 0 && l.lanes <= 1024 &&
        wholeWarps(op, l.lanes) && (l.lanes <= 32 || oneRow(op))) {
      mlirOperationWalk(op, collectLaunch, &l, MlirWalkPreOrder);
      l.ok = l.ok && l.loops.n > 0 && checkLaunch(&l);
    } else {
      l.ok = false;
    }
    if (l.ok) {
      rewriteLaunch(&l);
      ++spread;
    } else {
      ++kept;
    }
    dlcOpListFree(&l.loops);
    dlcOpListFree(&l.accesses);
    dlcOpListFree(&l.reductions);
    dlcOpListFree(&l.partials);
  }
  dlcOpListFree(&f.launches);
  dlcPassAddStatistic(pass, "spread", spread);
  dlcPassAddStatistic(pass, "kept", kept);
  return (MlirLogicalResult){1};
}

static void dependentDialects(MlirDialectRegistry r) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__gpu__(), r);
}

static const DlcStatisticDesc kStats[] = {
    {"spread", "row launches spread over a warp's lanes, combined by shuffles"},
    {"kept", "row launches kept at one thread per row (not of the shape the rewrite proves)"},
};

const DlcPassDescriptor dlcGpuRowsPass = {
    .argument = "dlc-gpu-rows",
    .summary = "Spread a row kernel's loops over the lanes of a warp (dlc.row_lanes) and combine "
               "its partial reductions with gpu.shuffle",
    .anchor = "builtin.module",
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof kStats[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
