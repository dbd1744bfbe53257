/* --dlg-fuse: partitions each function's dlg ops into dlk.kernels.

   Ops are visited in program order; each consumer absorbs the kernels of
   its producers when the rules allow (DESIGN.md, after TVM's FuseOps):
     - an elementwise or injective producer fuses into any consumer except
       that only layout ops (transpose, reshape) may feed a contraction,
       where they become its indexing: an elementwise prologue would be
       recomputed for every element the contraction reads;
     - a contraction or reduction kernel takes an elementwise epilogue;
       a kernel never holds two of them (they are its root);
     - a producer is fused only when all its users are in the consumer's
       kernel, so nothing is duplicated and every kernel has one output,
       its last op, which keeps kernels in a valid topological order;
     - a kernel holds at most max-ops ops.
   Splat constants are cloned into the kernels that read them; other
   constants stay outside as kernel operands. Which kind an op is comes from
   its family (dlcDlgOpGetFamily), through kKindOfFamily. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/DlgFamily.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdlib.h>

/* K_OPAQUE first: a family missing from kKindOfFamily is never fused. */
typedef enum { K_OPAQUE, K_ELEMENTWISE, K_INJECTIVE, K_REDUCTION, K_CONTRACTION } Kind;

static const char *const kKindNames[] = {"opaque", "elementwise", "injective", "reduction",
                                         "contraction"};

/* What fusion makes of each op family (dlc-c/DlgFamily.h; the families are
   declared in DlgOps.td): an op added to a family is fused as its family is,
   with no edit here. Norms, softmax and pools reduce along some dims, so
   they are a kernel's root like reductions; batch_norm (inference) is a
   per-channel affine map, elementwise. Gather indexes by data, which no
   producer or consumer can be folded into. */
static const Kind kKindOfFamily[DLC_OP_FAMILY_COUNT] = {
    [DLC_OP_FAMILY_NONE] = K_OPAQUE,           [DLC_OP_FAMILY_CONSTANT] = K_OPAQUE, /* not fused */
    [DLC_OP_FAMILY_UNARY] = K_ELEMENTWISE,     [DLC_OP_FAMILY_BINARY] = K_ELEMENTWISE,
    [DLC_OP_FAMILY_COMPARE] = K_ELEMENTWISE,   [DLC_OP_FAMILY_SELECT] = K_ELEMENTWISE,
    [DLC_OP_FAMILY_CAST] = K_ELEMENTWISE,      [DLC_OP_FAMILY_CHANNEL_AFFINE] = K_ELEMENTWISE,
    [DLC_OP_FAMILY_NORM] = K_REDUCTION,        [DLC_OP_FAMILY_REDUCTION] = K_REDUCTION,
    [DLC_OP_FAMILY_POOL] = K_REDUCTION,        [DLC_OP_FAMILY_CONTRACTION] = K_CONTRACTION,
    [DLC_OP_FAMILY_LAYOUT] = K_INJECTIVE,      [DLC_OP_FAMILY_DATA_MOVEMENT] = K_INJECTIVE,
    [DLC_OP_FAMILY_GATHER] = K_OPAQUE,         [DLC_OP_FAMILY_CONTROL] = K_OPAQUE, /* regions */
    [DLC_OP_FAMILY_SELECTION] = K_OPAQUE, /* not fused: lowered to loops of its own */
};
_Static_assert(DLC_OP_FAMILY_COUNT == 17, "a new op family needs its row in kKindOfFamily");

static Kind classify(MlirOperation op) { return kKindOfFamily[dlcDlgOpGetFamily(op)]; }

/* Only layout ops (every element moved, none added or dropped) may feed a
   contraction: they become its indexing. */
static bool isIndexing(MlirOperation op) {
  return dlcDlgOpGetFamily(op) == DLC_OP_FAMILY_LAYOUT;
}

static bool hasRoot(Kind k) { return k == K_REDUCTION || k == K_CONTRACTION; }

typedef struct {
  MlirOperation *ops;
  int *parent, *size;
  Kind *kind;
  bool *onlyInjective; /* every op of the kernel is injective */
  int n;
} Graph;

static int find(Graph *g, int i) {
  while (g->parent[i] != i)
    i = g->parent[i] = g->parent[g->parent[i]];
  return i;
}

static int indexOf(const Graph *g, MlirOperation op) {
  for (int i = g->n - 1; i >= 0; --i) /* producers are usually close by */
    if (mlirOperationEqual(g->ops[i], op))
      return i;
  return -1;
}

/* Whether every user of op's results is in kernel `k`. */
static bool usedOnlyBy(Graph *g, MlirOperation op, int k) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      int j = indexOf(g, mlirOpOperandGetOwner(u));
      if (j < 0 || find(g, j) != k)
        return false;
    }
  return true;
}

static bool canFuse(Graph *g, int producer, int consumer, int64_t maxOps) {
  Kind p = g->kind[producer], c = g->kind[consumer];
  if (p == K_OPAQUE || c == K_OPAQUE)
    return false;
  if (g->size[producer] + g->size[consumer] > maxOps)
    return false;
  if (hasRoot(p)) /* epilogue: consumer kernel must be plain elementwise */
    return c == K_ELEMENTWISE;
  if (c == K_CONTRACTION) /* prologue of a contraction: indexing only */
    return g->onlyInjective[producer];
  return true;
}

static void merge(Graph *g, int producer, int consumer) {
  g->parent[producer] = consumer;
  g->size[consumer] += g->size[producer];
  Kind p = g->kind[producer], c = g->kind[consumer];
  g->kind[consumer] = hasRoot(p) ? p : hasRoot(c) ? c : (p == K_INJECTIVE || c == K_INJECTIVE)
                                                           ? K_INJECTIVE : K_ELEMENTWISE;
  g->onlyInjective[consumer] &= g->onlyInjective[producer];
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Builds the dlk.kernel of the ops in kernel `k`, in place of its root. */
static void buildKernel(Graph *g, int k, MlirContext ctx) {
  MlirOperation root = g->ops[k];
  MlirLocation loc = mlirOperationGetLocation(root);
  MlirValue inputs[256];
  MlirType inTypes[256];
  MlirLocation inLocs[256];
  intptr_t nIn = 0;
  for (int i = 0; i <= k; ++i) {
    if (find(g, i) != k)
      continue;
    MlirOperation op = g->ops[i];
    for (intptr_t a = 0; a < mlirOperationGetNumOperands(op); ++a) {
      MlirValue v = mlirOperationGetOperand(op, a);
      MlirOperation def = !mlirValueIsAOpResult(v) ? (MlirOperation){NULL} : mlirOpResultGetOwner(v);
      int j = mlirOperationIsNull(def) ? -1 : indexOf(g, def);
      if (j >= 0 && find(g, j) == k)
        continue;
      double splat;
      if (dlcOpIs(def, "dlg.constant") && dlcGetSplat(v, &splat))
        continue; /* cloned below */
      bool seen = false;
      for (intptr_t s = 0; s < nIn && !seen; ++s)
        seen = mlirValueEqual(inputs[s], v);
      if (!seen && nIn < 256) {
        inputs[nIn] = v;
        inTypes[nIn] = mlirValueGetType(v);
        inLocs[nIn++] = loc;
      }
    }
  }
  intptr_t nRes = mlirOperationGetNumResults(root);
  MlirType resTypes[8];
  for (intptr_t r = 0; r < nRes; ++r)
    resTypes[r] = mlirValueGetType(mlirOperationGetResult(root, r));

  MlirBlock body = mlirBlockCreate(nIn, inTypes, inLocs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirOperationState st = mlirOperationStateGet(str("dlk.kernel"), loc);
  mlirOperationStateAddOperands(&st, nIn, inputs);
  mlirOperationStateAddResults(&st, nRes, resTypes);
  MlirNamedAttribute kind = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("kind")), mlirStringAttrGet(ctx, str(kKindNames[g->kind[k]])));
  mlirOperationStateAddAttributes(&st, 1, &kind);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation kernel = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(root), root, kernel);
  for (intptr_t r = 0; r < nRes; ++r)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(root, r),
                                  mlirOperationGetResult(kernel, r));

  for (int i = 0; i <= k; ++i) {
    if (find(g, i) != k)
      continue;
    MlirOperation op = g->ops[i];
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
    for (intptr_t a = 0; a < mlirOperationGetNumOperands(op); ++a) {
      MlirValue v = mlirOperationGetOperand(op, a);
      for (intptr_t s = 0; s < nIn; ++s)
        if (mlirValueEqual(inputs[s], v))
          mlirOperationSetOperand(op, a, mlirBlockGetArgument(body, s));
      MlirOperation def = !mlirValueIsAOpResult(v) ? (MlirOperation){NULL} : mlirOpResultGetOwner(v);
      double splat;
      if (dlcOpIs(def, "dlg.constant") && dlcGetSplat(v, &splat) &&
          !mlirBlockEqual(mlirOperationGetBlock(def), body)) {
        MlirOperation c = mlirOperationClone(def);
        mlirBlockInsertOwnedOperationBefore(body, op, c);
        mlirOperationSetOperand(op, a, mlirOperationGetResult(c, 0));
      }
    }
  }
  MlirValue results[8];
  for (intptr_t r = 0; r < nRes; ++r)
    results[r] = mlirOperationGetResult(root, r);
  MlirOperationState ys = mlirOperationStateGet(str("dlk.yield"), loc);
  mlirOperationStateAddOperands(&ys, nRes, results);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&ys));
}

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlk__(), registry);
}

static const DlcOptionDesc kOptions[] = {
    {"max-ops", "most dlg ops in one kernel", DLC_OPTION_INT, "64"},
};

static void fuseBlock(MlirBlock block, int64_t maxOps, MlirContext ctx);

/* Fuses inside each region of a control-flow op (dlg.if, dlg.while) on its
   own: a kernel never spans a region boundary, since the ops on either side
   run a different number of times (or not at all). */
static void fuseRegions(MlirOperation op, int64_t maxOps, MlirContext ctx) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      fuseBlock(b, maxOps, ctx);
}

static void fuseBlock(MlirBlock block, int64_t maxOps, MlirContext ctx) {
  int cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    ++cap;
    if (dlcDlgOpGetFamily(op) == DLC_OP_FAMILY_CONTROL)
      fuseRegions(op, maxOps, ctx); /* inner regions first: their kernels read our constants */
  }
  Graph g = {dlcXcalloc((size_t)cap + 1, sizeof(MlirOperation)), dlcXcalloc((size_t)cap + 1, sizeof(int)),
             dlcXcalloc((size_t)cap + 1, sizeof(int)), dlcXcalloc((size_t)cap + 1, sizeof(Kind)),
             dlcXcalloc((size_t)cap + 1, sizeof(bool)), 0};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    DlcOpFamily family = dlcDlgOpGetFamily(op);
    if (family == DLC_OP_FAMILY_NONE || family == DLC_OP_FAMILY_CONSTANT ||
        family == DLC_OP_FAMILY_CONTROL || family == DLC_OP_FAMILY_SELECTION)
      continue; /* not dlg (func.return, ...), a constant, control flow or a selection
                   (two results, loops of its own): never a kernel */
    int i = g.n++;
    g.ops[i] = op;
    g.parent[i] = i;
    g.size[i] = 1;
    g.kind[i] = classify(op);
    g.onlyInjective[i] = isIndexing(op);
    for (intptr_t a = 0; a < mlirOperationGetNumOperands(op); ++a) {
      MlirValue v = mlirOperationGetOperand(op, a);
      if (!mlirValueIsAOpResult(v))
        continue;
      int j = indexOf(&g, mlirOpResultGetOwner(v));
      if (j < 0)
        continue;
      int p = find(&g, j), c = find(&g, i);
      if (p != c && usedOnlyBy(&g, g.ops[j], c) && canFuse(&g, p, c, maxOps))
        merge(&g, p, c);
    }
  }
  for (int i = 0; i < g.n; ++i)
    if (find(&g, i) == i)
      buildKernel(&g, i, ctx);
  /* Constants now unused (cloned into every kernel that read them) go. */
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (dlcOpIs(op, "dlg.constant") &&
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))))
      mlirOperationDestroy(op);
    op = next;
  }
  free(g.ops), free(g.parent), free(g.size), free(g.kind), free(g.onlyInjective);
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  int64_t maxOps = dlcOptionsGetInt(dlcPassGetOptions(pass), "max-ops");
  if (maxOps < 1)
    maxOps = 1;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (!mlirBlockIsNull(block))
    fuseBlock(block, maxOps, mlirOperationGetContext(func));
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcDlgFusePass = {
    .argument = "dlg-fuse",
    .summary = "Partition each function's dlg ops into dlk.kernels (elementwise and "
               "injective producers into consumers, epilogues into contractions and "
               "reductions, no duplication)",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
