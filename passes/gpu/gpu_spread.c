/* --dlc-gpu-spread: the one-thread launches dlc-gpu-map made of work no
   block forall holds (a copy bufferisation added, concat / pad / slice as
   copies into and out of subviews, a fill, a reduction to a scalar), after
   convert-linalg-to-loops has made each a nest of scf.for loops, spread
   over blocks and threads. dlc-gpu-map marks them (DLC_ATTR_LEFTOVER) from
   the linalg op they came from, which is what makes a rewrite safe:

   - "parallel" (a copy, a fill, a generic with only parallel loops whose
     outputs are indexed by a permutation of them: every iteration writes
     its own elements): one thread per iteration of the whole nest. The
     linear index blockIdx.x * T + threadIdx.x is split back into the
     loops' indices (the innermost fastest, so a warp's accesses are
     adjacent where the memrefs are), threads past the end do nothing.
     T = 256, or the nest's size rounded up to a warp when smaller.
   - "reduce" (a generic reducing every loop into a 0-d output): one block
     of up to 256 threads. Each thread combines the iterations
     threadIdx.x, threadIdx.x + T, ... into a partial value (from the
     combiner's neutral element), log2(32) rounds of `gpu.shuffle xor`
     combine a warp's partials, the warps' values meet in a shared-memory
     slot per warp (a workgroup attribution), and thread 0 combines them,
     in warp order, with the value the output held (the reduction's
     initial value, written by the fill launch before), and stores it.
     Floats are reassociated, as any parallel sum is. Only 32-bit values
     (f32, i32) are shuffled, and only a nest whose innermost body is
     `out = combiner(out, value)` with `value` not reading `out`.

   A marked launch that does not have that shape (loops not from 0 by 1 to
   a constant, ops with regions in the body) stays on one thread (statistic
   `kept`): correct, only slow. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/SCF.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { kMaxDepth = 8, kThreads = 256, kWarp = 32 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/*--- The nest -------------------------------------------------------------------------*/

typedef struct {
  MlirOperation loops[kMaxDepth];
  int64_t extent[kMaxDepth];
  int depth;
  int64_t total;
  MlirBlock inner; /* the innermost loop's body */
} Nest;

static MlirBlock bodyOf(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

/* The launch's work as a perfect nest of scf.for loops, each from 0 by 1
   to a constant with no loop-carried values, around a body of plain ops. */
static bool readNest(MlirOperation launch, Nest *n) {
  MlirOperation outer = {NULL};
  for (MlirOperation o = mlirBlockGetFirstOperation(bodyOf(launch)); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (dlcOpIs(o, "scf.for")) {
      if (!mlirOperationIsNull(outer))
        return false;
      outer = o;
    } else if (!dlcOpIs(o, "arith.constant") && !dlcOpIs(o, "gpu.barrier") &&
               !dlcOpIs(o, "gpu.terminator")) {
      return false;
    }
  }
  if (mlirOperationIsNull(outer))
    return false;
  *n = (Nest){.total = 1};
  for (MlirOperation loop = outer;;) {
    int64_t lb, ub, step;
    if (n->depth == kMaxDepth || mlirOperationGetNumResults(loop) != 0 ||
        !dlcConstantInt(mlirOperationGetOperand(loop, 0), &lb) ||
        !dlcConstantInt(mlirOperationGetOperand(loop, 1), &ub) ||
        !dlcConstantInt(mlirOperationGetOperand(loop, 2), &step) || lb != 0 || step != 1 || ub < 1 ||
        n->total > INT32_MAX / ub)
      return false;
    n->loops[n->depth] = loop;
    n->extent[n->depth++] = ub;
    n->total *= ub;
    MlirBlock b = bodyOf(loop);
    MlirOperation first = mlirBlockGetFirstOperation(b);
    if (dlcOpIs(first, "scf.for") && dlcOpIs(mlirOperationGetNextInBlock(first), "scf.yield")) {
      loop = first;
      continue;
    }
    n->inner = b;
    break;
  }
  for (MlirOperation o = mlirBlockGetFirstOperation(n->inner); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (mlirOperationGetNumRegions(o) > 0)
      return false;
  return true;
}

/*--- Building -------------------------------------------------------------------------*/

static MlirValue indexConstant(DlcBuilder *b, int64_t v) {
  MlirType t = mlirIndexTypeGet(b->context);
  return dlcBuildValue(b, "arith.constant", 0, NULL,
                       DLC_ATTRS(dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v))));
}

static MlirValue binary(DlcBuilder *b, const char *op, MlirValue x, MlirValue y) {
  return dlcBuildValue(b, op, DLC_VALUES(x, y), DLC_NO_ATTRS);
}

static MlirValue compareIndex(DlcBuilder *b, int64_t predicate, MlirValue x, MlirValue y) {
  MlirAttribute p = mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), predicate);
  return dlcBuildValue(b, "arith.cmpi", DLC_VALUES(x, y),
                       DLC_ATTRS(dlcNamed(b->context, "predicate", p)));
}
enum { kCmpEq = 0, kCmpUlt = 6 };

/* scf.if `cond` with an empty then block (its scf.yield returned). */
static MlirOperation buildIf(DlcBuilder *b, MlirValue cond, MlirOperation *thenYield) {
  MlirOperationState st = mlirOperationStateGet(str("scf.if"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  MlirBlock then = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(regions[0], then);
  MlirOperationState y = mlirOperationStateGet(str("scf.yield"), b->loc);
  *thenYield = mlirOperationCreate(&y);
  mlirBlockAppendOwnedOperation(then, *thenYield);
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  return dlcBuilderInsert(b, mlirOperationCreate(&st));
}

/* The loops' indices of linear iteration `lin` (innermost fastest). */
static void delinearize(DlcBuilder *b, const Nest *n, MlirValue lin, MlirValue *ivs) {
  MlirValue rest = lin;
  for (int d = n->depth - 1; d >= 0; --d) {
    if (d == 0) {
      ivs[d] = rest;
      break;
    }
    MlirValue e = indexConstant(b, n->extent[d]);
    ivs[d] = binary(b, "arith.remui", rest, e);
    rest = binary(b, "arith.divui", rest, e);
  }
}

/* The innermost body's ops (not its terminator) moved before `at`, each
   loop's index replaced by ivs[d]; the nest is then erased. */
static void moveBody(const Nest *n, MlirOperation at, const MlirValue *ivs) {
  for (int d = 0; d < n->depth; ++d)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(bodyOf(n->loops[d]), 0), ivs[d]);
  DlcOpList ops = {0};
  for (MlirOperation o = mlirBlockGetFirstOperation(n->inner); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (!dlcOpIs(o, "scf.yield"))
      dlcOpListPush(&ops, o);
  for (intptr_t i = 0; i < ops.n; ++i)
    mlirOperationMoveBefore(ops.ops[i], at);
  dlcOpListFree(&ops);
  mlirOperationDestroy(n->loops[0]);
}

/* Sets the launch's grid x and block x sizes (host constants before it). */
static void setSizes(MlirOperation launch, int64_t blocks, int64_t threads) {
  DlcBuilder hb = dlcBuilderBefore(launch, mlirOperationGetLocation(launch));
  MlirAttribute seg = mlirOperationGetAttributeByName(launch, str("operandSegmentSizes"));
  intptr_t async = mlirDenseI32ArrayGetElement(seg, 0);
  mlirOperationSetOperand(launch, async + 0, indexConstant(&hb, blocks));
  mlirOperationSetOperand(launch, async + 3, indexConstant(&hb, threads));
}

static int64_t threadsFor(int64_t total) {
  return total >= kThreads ? kThreads : (total + kWarp - 1) / kWarp * kWarp;
}

/* scf.for %iv = lb to ub step st (iter_args `init` when not null), its
   body's block returned with the scf.yield of `yielded` (or none) in it:
   the caller builds before *yield and sets the yield's operand. */
static MlirOperation buildFor(DlcBuilder *b, MlirValue lb, MlirValue ub, MlirValue step,
                              MlirValue init, MlirBlock *body, MlirOperation *yield) {
  bool carried = !mlirValueIsNull(init);
  MlirValue ops[4] = {lb, ub, step, init};
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), b->loc);
  mlirOperationStateAddOperands(&st, carried ? 4 : 3, ops);
  MlirType t = carried ? mlirValueGetType(init) : mlirIndexTypeGet(b->context);
  if (carried)
    mlirOperationStateAddResults(&st, 1, &t);
  MlirRegion region = mlirRegionCreate();
  MlirType argTypes[2] = {mlirIndexTypeGet(b->context), t};
  MlirLocation locs[2] = {b->loc, b->loc};
  *body = mlirBlockCreate(carried ? 2 : 1, argTypes, locs);
  mlirRegionAppendOwnedBlock(region, *body);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation loop = dlcBuilderInsert(b, mlirOperationCreate(&st));
  MlirOperationState ys = mlirOperationStateGet(str("scf.yield"), b->loc);
  if (carried)
    mlirOperationStateAddOperands(&ys, 1, &init); /* replaced by the caller */
  *yield = mlirOperationCreate(&ys);
  mlirBlockAppendOwnedOperation(*body, *yield);
  return loop;
}

/*--- "parallel": a thread per iteration ------------------------------------------------*/

static void spreadParallel(MlirOperation launch, const Nest *n) {
  MlirLocation loc = mlirOperationGetLocation(n->loops[0]);
  int64_t threads = threadsFor(n->total), blocks = (n->total + threads - 1) / threads;
  setSizes(launch, blocks, threads);
  MlirBlock body = bodyOf(launch);
  DlcBuilder b = dlcBuilderBefore(n->loops[0], loc);
  MlirValue bid = mlirBlockGetArgument(body, 0), tid = mlirBlockGetArgument(body, 3);
  MlirValue lin =
      binary(&b, "arith.addi", binary(&b, "arith.muli", bid, indexConstant(&b, threads)), tid);
  MlirOperation yield;
  buildIf(&b, compareIndex(&b, kCmpUlt, lin, indexConstant(&b, n->total)), &yield);
  DlcBuilder in = dlcBuilderBefore(yield, loc);
  MlirValue ivs[kMaxDepth];
  delinearize(&in, n, lin, ivs);
  moveBody(n, yield, ivs);
}

/*--- "reduce": a block reduction -------------------------------------------------------*/

/* Combiners and their neutral elements. */
typedef struct {
  const char *op;
  double neutral; /* floats; integers: the same value, or INT32_MIN / MAX */
} Combiner;

static const Combiner kCombiners[] = {
    {"arith.addf", 0.0},
    {"arith.mulf", 1.0},
    {"arith.maximumf", -INFINITY},
    {"arith.minimumf", INFINITY},
    {"arith.maxnumf", -INFINITY},
    {"arith.minnumf", INFINITY},
    {"arith.addi", 0},
    {"arith.muli", 1},
    {"arith.maxsi", INT32_MIN},
    {"arith.minsi", INT32_MAX},
    {"arith.maxui", 0},
    {"arith.minui", -1},
    {"arith.andi", -1},
    {"arith.ori", 0},
    {"arith.xori", 0},
};

static const Combiner *combinerOf(MlirOperation op) {
  for (size_t i = 0; i < sizeof kCombiners / sizeof kCombiners[0]; ++i)
    if (dlcOpIs(op, kCombiners[i].op))
      return &kCombiners[i];
  return NULL;
}

typedef struct {
  MlirOperation store, load, combine;
  const Combiner *kind;
  MlirValue out; /* the 0-d output */
  MlirType type;
} Reduction;

/* `out = combiner(out, value)` in the innermost body, value not reading out. */
static bool readReduction(const Nest *n, Reduction *r) {
  *r = (Reduction){0};
  for (MlirOperation o = mlirBlockGetFirstOperation(n->inner); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (dlcOpIs(o, "memref.store")) {
      if (!mlirOperationIsNull(r->store))
        return false;
      r->store = o;
    }
  }
  if (mlirOperationIsNull(r->store) || mlirOperationGetNumOperands(r->store) != 2)
    return false;
  r->out = mlirOperationGetOperand(r->store, 1);
  MlirValue stored = mlirOperationGetOperand(r->store, 0);
  r->type = mlirValueGetType(stored);
  if (!mlirTypeIsAF32(r->type) &&
      !(mlirTypeIsAInteger(r->type) && mlirIntegerTypeGetWidth(r->type) == 32))
    return false;
  if (!mlirValueIsAOpResult(stored) || mlirOperationIsNull(dlcSoleUser(stored, NULL)))
    return false;
  r->combine = mlirOpResultGetOwner(stored);
  r->kind = combinerOf(r->combine);
  if (!r->kind || !mlirBlockEqual(mlirOperationGetBlock(r->combine), n->inner))
    return false;
  for (MlirOperation o = mlirBlockGetFirstOperation(n->inner); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (!dlcOpIs(o, "memref.load") || !mlirValueEqual(mlirOperationGetOperand(o, 0), r->out))
      continue;
    if (!mlirOperationIsNull(r->load))
      return false;
    r->load = o;
  }
  if (mlirOperationIsNull(r->load) || mlirOperationIsNull(dlcSoleUser(mlirOperationGetResult(r->load, 0), NULL)))
    return false;
  MlirValue acc = mlirOperationGetResult(r->load, 0);
  return mlirValueEqual(mlirOperationGetOperand(r->combine, 0), acc) ||
         mlirValueEqual(mlirOperationGetOperand(r->combine, 1), acc);
}

static MlirValue neutral(DlcBuilder *b, const Reduction *r) {
  MlirAttribute v = mlirTypeIsAF32(r->type)
                        ? mlirFloatAttrDoubleGet(b->context, r->type, r->kind->neutral)
                        : mlirIntegerAttrGet(r->type, (int64_t)r->kind->neutral);
  return dlcBuildValue(b, "arith.constant", 0, NULL, DLC_ATTRS(dlcNamed(b->context, "value", v)));
}

static MlirValue combine(DlcBuilder *b, const Reduction *r, MlirValue x, MlirValue y) {
  return binary(b, r->kind->op, x, y);
}

static MlirValue load(DlcBuilder *b, MlirType t, MlirValue mem, intptr_t nIdx,
                      const MlirValue *idx) {
  MlirValue ops[2] = {mem, nIdx ? idx[0] : (MlirValue){NULL}};
  return mlirOperationGetResult(dlcBuildOpTyped(b, "memref.load", 1 + nIdx, ops, 1, &t, 0, NULL),
                                0);
}

/* The thread's partial value: iterations tid, tid + threads, ... of the
   nest combined from the neutral element (the nest's body moved in, the
   output's load replaced by the partial, its store by the yield). */
static MlirValue partialLoop(DlcBuilder *b, const Nest *n, const Reduction *r, MlirValue tid,
                             int64_t threads) {
  MlirBlock body;
  MlirOperation yield;
  MlirOperation loop = buildFor(b, tid, indexConstant(b, n->total), indexConstant(b, threads),
                                neutral(b, r), &body, &yield);
  mlirOperationSetOperand(yield, 0, mlirOperationGetResult(r->combine, 0));
  DlcBuilder in = dlcBuilderBefore(yield, b->loc);
  MlirValue ivs[kMaxDepth];
  delinearize(&in, n, mlirBlockGetArgument(body, 0), ivs);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(r->load, 0), mlirBlockGetArgument(body, 1));
  mlirOperationDestroy(r->load);
  mlirOperationDestroy(r->store);
  moveBody(n, yield, ivs);
  return mlirOperationGetResult(loop, 0);
}

/* Thread 0's last step: out = combiner(out, x), the output's value (the
   reduction's initial value) first, as the loop nest combined it. */
static void storeTotal(DlcBuilder *b, const Reduction *r, MlirValue x) {
  MlirValue old = load(b, r->type, r->out, 0, NULL);
  dlcBuildOpTyped(b, "memref.store", 2, (MlirValue[]){combine(b, r, old, x), r->out}, 0, NULL, 0,
                  NULL);
}

static void blockReduce(MlirOperation launch, const Nest *n, const Reduction *r) {
  MlirContext ctx = mlirOperationGetContext(launch);
  MlirLocation loc = mlirOperationGetLocation(n->loops[0]);
  int64_t threads = threadsFor(n->total), warps = threads / kWarp;
  setSizes(launch, 1, threads);
  MlirBlock body = bodyOf(launch);
  MlirValue tid = mlirBlockGetArgument(body, 3);
  MlirOperation after = mlirOperationGetNextInBlock(n->loops[0]); /* the nest goes */
  DlcBuilder b = dlcBuilderBefore(n->loops[0], loc);
  MlirValue x = partialLoop(&b, n, r, tid, threads);
  b = dlcBuilderBefore(after, loc);
  /* a warp's partials, then the warps' */
  MlirType i32 = mlirIntegerTypeGet(ctx, 32), i1 = mlirIntegerTypeGet(ctx, 1);
  MlirNamedAttribute mode =
      dlcNamed(ctx, "mode", mlirAttributeParseGet(ctx, str("#gpu<shuffle_mode xor>")));
  MlirValue width =
      dlcBuildValue(&b, "arith.constant", 0, NULL,
                    DLC_ATTRS(dlcNamed(ctx, "value", mlirIntegerAttrGet(i32, kWarp))));
  for (int64_t off = kWarp / 2; off >= 1; off /= 2) {
    MlirValue offset =
        dlcBuildValue(&b, "arith.constant", 0, NULL,
                      DLC_ATTRS(dlcNamed(ctx, "value", mlirIntegerAttrGet(i32, off))));
    MlirValue ops[3] = {x, offset, width};
    MlirType rts[2] = {r->type, i1};
    x = combine(
        &b, r, x,
        mlirOperationGetResult(dlcBuildOpTyped(&b, "gpu.shuffle", 3, ops, 2, rts, 1, &mode), 0));
  }
  if (warps > 1) {
    MlirAttribute wg = mlirAttributeParseGet(ctx, str("#gpu.address_space<workgroup>"));
    MlirType slotsType = mlirMemRefTypeGet(r->type, 1, &warps, mlirAttributeGetNull(), wg);
    MlirValue slots = mlirBlockAddArgument(body, slotsType, loc);
    int64_t had = dlcGetI64(launch, "workgroup_attributions", 0);
    mlirOperationSetDiscardableAttributeByName(
        launch, str("workgroup_attributions"),
        mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), had + 1));
    MlirValue warp = binary(&b, "arith.divui", tid, indexConstant(&b, kWarp));
    dlcBuildOpTyped(&b, "memref.store", 3, (MlirValue[]){x, slots, warp}, 0, NULL, 0, NULL);
    dlcBuildOpTyped(&b, "gpu.barrier", 0, NULL, 0, NULL, 0, NULL);
    x = load(&b, r->type, slots, 1, (MlirValue[]){indexConstant(&b, 0)});
    for (int64_t w = 1; w < warps; ++w)
      x = combine(&b, r, x, load(&b, r->type, slots, 1, (MlirValue[]){indexConstant(&b, w)}));
  }
  MlirOperation thenYield;
  buildIf(&b, compareIndex(&b, kCmpEq, tid, indexConstant(&b, 0)), &thenYield);
  DlcBuilder t0 = dlcBuilderBefore(thenYield, loc);
  storeTotal(&t0, r, x);
}

/*--- The CPU emulation (test/GPU/gpu_check.py emulate) ---------------------------------*/

/* The same reduction with the block's threads as loops on the host: each
   thread's partial (the same partialLoop) into a buffer, each shuffle
   round as partial[t] = combiner(partial[t], partial[t ^ off]) for every
   thread at once (what shfl.sync.bfly gives each lane), the warps' values
   (lane 0 of each) in order, then storeTotal. Replaces the launch. */
static void emulateReduce(MlirOperation launch, const Nest *n, const Reduction *r) {
  MlirContext ctx = mlirOperationGetContext(launch);
  MlirLocation loc = mlirOperationGetLocation(launch);
  int64_t threads = threadsFor(n->total);
  DlcBuilder b = dlcBuilderBefore(launch, loc);
  MlirType bufType =
      mlirMemRefTypeGet(r->type, 1, &threads, mlirAttributeGetNull(), mlirAttributeGetNull());
  MlirNamedAttribute seg =
      dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, (int32_t[]){0, 0}));
  MlirValue partial = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "memref.alloca", 0, NULL, 1, &bufType, 1, &seg), 0);
  MlirValue next = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "memref.alloca", 0, NULL, 1, &bufType, 1, &seg), 0);
  MlirValue c0 = indexConstant(&b, 0), c1 = indexConstant(&b, 1), nt = indexConstant(&b, threads);
  MlirBlock body;
  MlirOperation yield;
  buildFor(&b, c0, nt, c1, (MlirValue){NULL}, &body, &yield);
  DlcBuilder in = dlcBuilderBefore(yield, loc);
  MlirValue t = mlirBlockGetArgument(body, 0);
  MlirValue p = partialLoop(&in, n, r, t, threads);
  dlcBuildOpTyped(&in, "memref.store", 3, (MlirValue[]){p, partial, t}, 0, NULL, 0, NULL);
  for (int64_t off = kWarp / 2; off >= 1; off /= 2) {
    buildFor(&b, c0, nt, c1, (MlirValue){NULL}, &body, &yield);
    in = dlcBuilderBefore(yield, loc);
    t = mlirBlockGetArgument(body, 0);
    MlirValue other = binary(&in, "arith.xori", t, indexConstant(&in, off));
    MlirValue v =
        combine(&in, r, load(&in, r->type, partial, 1, &t), load(&in, r->type, partial, 1, &other));
    dlcBuildOpTyped(&in, "memref.store", 3, (MlirValue[]){v, next, t}, 0, NULL, 0, NULL);
    dlcBuildOpTyped(&b, "memref.copy", 2, (MlirValue[]){next, partial}, 0, NULL, 0, NULL);
  }
  MlirValue x = load(&b, r->type, partial, 1, &c0);
  for (int64_t w = 1; w < threads / kWarp; ++w)
    x = combine(&b, r, x,
                load(&b, r->type, partial, 1, (MlirValue[]){indexConstant(&b, w * kWarp)}));
  storeTotal(&b, r, x);
  mlirOperationDestroy(launch);
}

/* A launch whose threads never meet (no barrier but the trailing one, no
   shuffle, no shared memory) as loops over blocks and threads on the host. */
static bool emulateLaunch(MlirOperation launch) {
  MlirBlock body = bodyOf(launch);
  if (dlcGetI64(launch, "workgroup_attributions", 0) != 0)
    return false;
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(body); ++i)
    if (i != 0 && i != 3 &&
        !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(body, i))))
      return false;
  DlcOpList ops = {0};
  bool ok = true;
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    bool trailing =
        dlcOpIs(o, "gpu.barrier") && dlcOpIs(mlirOperationGetNextInBlock(o), "gpu.terminator");
    if (dlcOpIs(o, "gpu.terminator") || trailing)
      continue;
    ok = ok && !dlcOpIs(o, "gpu.barrier") && !dlcOpIs(o, "gpu.shuffle");
    dlcOpListPush(&ops, o);
  }
  if (ok) {
    MlirAttribute seg = mlirOperationGetAttributeByName(launch, str("operandSegmentSizes"));
    intptr_t async = mlirDenseI32ArrayGetElement(seg, 0);
    DlcBuilder b = dlcBuilderBefore(launch, mlirOperationGetLocation(launch));
    MlirValue c0 = indexConstant(&b, 0), c1 = indexConstant(&b, 1);
    MlirBlock blocks, threads;
    MlirOperation yb, yt;
    buildFor(&b, c0, mlirOperationGetOperand(launch, async + 0), c1, (MlirValue){NULL}, &blocks,
             &yb);
    DlcBuilder ib = dlcBuilderBefore(yb, b.loc);
    buildFor(&ib, c0, mlirOperationGetOperand(launch, async + 3), c1, (MlirValue){NULL}, &threads,
             &yt);
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, 0), mlirBlockGetArgument(blocks, 0));
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, 3), mlirBlockGetArgument(threads, 0));
    for (intptr_t i = 0; i < ops.n; ++i)
      mlirOperationMoveBefore(ops.ops[i], yt);
    mlirOperationDestroy(launch);
  }
  dlcOpListFree(&ops);
  return ok;
}

/* Host memory ops back to the CPU's (the emulation runs on host memory). */
static bool isDeviceConstant(MlirOperation op) {
  if (!dlcOpIs(op, "func.call"))
    return false;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, str("callee"));
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  return name.length > 16 && !memcmp(name.data, "dlcCudaConstant_", 16);
}

static MlirWalkResult collectGpuMemory(MlirOperation op, void *u) {
  if (dlcOpIs(op, "gpu.alloc") || dlcOpIs(op, "gpu.dealloc") || dlcOpIs(op, "gpu.memcpy") ||
      isDeviceConstant(op))
    dlcOpListPush(u, op);
  return MlirWalkResultAdvance;
}

static void hostMemory(MlirOperation module) {
  DlcOpList ops = {0};
  mlirOperationWalk(module, collectGpuMemory, &ops, MlirWalkPreOrder);
  for (intptr_t i = 0; i < ops.n; ++i) {
    MlirOperation op = ops.ops[i];
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    MlirContext ctx = b.context;
    if (dlcOpIs(op, "gpu.alloc")) {
      MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
      intptr_t nDyn = mlirOperationGetNumOperands(op);
      MlirValue dyn[8];
      for (intptr_t k = 0; k < nDyn && k < 8; ++k)
        dyn[k] = mlirOperationGetOperand(op, k);
      MlirNamedAttribute seg = dlcNamed(
          ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, (int32_t[]){(int32_t)nDyn, 0}));
      MlirValue m =
          mlirOperationGetResult(dlcBuildOpTyped(&b, "memref.alloc", nDyn, dyn, 1, &t, 1, &seg), 0);
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), m);
    } else if (isDeviceConstant(op)) { /* the runtime's device copy: the host's */
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetOperand(op, 0));
    } else if (dlcOpIs(op, "gpu.dealloc")) {
      MlirValue m = mlirOperationGetOperand(op, 0);
      dlcBuildOpTyped(&b, "memref.dealloc", 1, &m, 0, NULL, 0, NULL);
    } else {
      MlirValue ops2[2] = {mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 0)};
      dlcBuildOpTyped(&b, "memref.copy", 2, ops2, 0, NULL, 0, NULL);
    }
    mlirOperationDestroy(op);
  }
  dlcOpListFree(&ops);
}

/*--- The pass -------------------------------------------------------------------------*/

static MlirWalkResult collect(MlirOperation op, void *u) {
  if (dlcOpIs(op, "gpu.launch") &&
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_LEFTOVER))))
    dlcOpListPush(u, op);
  return MlirWalkResultAdvance;
}

static MlirWalkResult collectAllLaunches(MlirOperation op, void *u) {
  if (dlcOpIs(op, "gpu.launch"))
    dlcOpListPush(u, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  bool emulate = dlcOptionsGetBool(dlcPassGetOptions(pass), "emulate");
  DlcOpList launches = {0};
  mlirOperationWalk(module, collect, &launches, MlirWalkPreOrder);
  uint64_t spread = 0, reduced = 0, kept = 0;
  for (intptr_t i = 0; i < launches.n; ++i) {
    MlirOperation launch = launches.ops[i];
    MlirAttribute kind = mlirOperationGetDiscardableAttributeByName(launch, str(DLC_ATTR_LEFTOVER));
    MlirStringRef k = mlirStringAttrGetValue(kind);
    mlirOperationRemoveDiscardableAttributeByName(launch, str(DLC_ATTR_LEFTOVER));
    Nest n;
    Reduction r;
    if (!readNest(launch, &n) || n.total < 2) {
      ++kept;
    } else if (mlirStringRefEqual(k, str("parallel"))) {
      spreadParallel(launch, &n);
      ++spread;
    } else if (mlirStringRefEqual(k, str("reduce")) && readReduction(&n, &r)) {
      if (emulate)
        emulateReduce(launch, &n, &r);
      else
        blockReduce(launch, &n, &r);
      ++reduced;
    } else {
      ++kept;
    }
  }
  dlcOpListFree(&launches);
  bool ok = true;
  if (emulate) {
    launches = (DlcOpList){0};
    mlirOperationWalk(module, collectAllLaunches, &launches, MlirWalkPreOrder);
    for (intptr_t i = 0; i < launches.n && ok; ++i)
      if (!emulateLaunch(launches.ops[i])) {
        mlirEmitError(mlirOperationGetLocation(launches.ops[i]),
                      "dlc-gpu-spread{emulate=true}: this launch's threads meet (a barrier, "
                      "a shuffle or shared memory): it cannot run as loops on the CPU");
        ok = false;
      }
    dlcOpListFree(&launches);
    if (ok)
      hostMemory(module);
  }
  dlcPassAddStatistic(pass, "spread", spread);
  dlcPassAddStatistic(pass, "block-reductions", reduced);
  dlcPassAddStatistic(pass, "kept", kept);
  return (MlirLogicalResult){ok};
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {mlirGetDialectHandle__scf__(), mlirGetDialectHandle__gpu__()};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcOptionDesc kOptions[] = {
    {"emulate",
     "for the CPU emulation (test/GPU/gpu_check.py): the rewritten launches as "
     "loops over blocks and threads on the host, shuffles as exchanges through a "
     "buffer, device memory as host memory",
     DLC_OPTION_BOOL, "false"},
};

static const DlcStatisticDesc kStats[] = {
    {"spread", "one-thread launches of parallel work spread over blocks and threads"},
    {"block-reductions", "one-thread reductions to a scalar made block reductions"},
    {"kept", "marked launches left on one thread (shape not recognised, or one iteration)"},
};

const DlcPassDescriptor dlcGpuSpreadPass = {
    .argument = "dlc-gpu-spread",
    .summary = "Spread dlc-gpu-map's one-thread launches of leftover work over blocks and "
               "threads: copies / fills a thread per element, reductions to a scalar as "
               "block reductions with gpu.shuffle",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof kStats[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
