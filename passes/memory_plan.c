/* --dlc-memory-plan: after bufferization, every static temporary at the top
   level of a public function gets an offset in one arena, the function's
   workspace, which the caller passes as a new last argument
   (memref<Bxi8>). The compiled code then holds no mutable state of its own:
   each call (each thread) brings its workspace, and nothing is malloc'd per
   call for those temporaries.

   Lifetimes. A temporary lives from the first to the last top-level op of
   the function that uses it or any view of it (subview, reshape, cast...),
   its alloc and deallocs aside; a use inside a loop counts as the whole
   loop. A temporary that escapes
   (returned, passed to a call, yielded, freed through a view) keeps its
   alloc, as do temporaries inside loops (one per iteration, per thread).

   Offsets: greedy by size (Pisarchyk & Lee 2020, "Efficient Memory
   Management for Deep Neural Net Inference", the planner of TFLite): the
   temporaries, largest first, each take the smallest gap between the
   already placed temporaries whose lifetimes overlap its own that fits it,
   else the end of them. Offsets and sizes are multiples of 64 bytes (a
   cache line, the alignment bufferization asked for).

   The function records what it planned:
     dlc.workspace_bytes = B              (the arena's size, the ABI's)
     dlc.memory_plan = {peak_bytes, naive_bytes, weights_bytes,
                        temporaries, unplanned}
   naive_bytes is the sum of the planned temporaries (what one buffer each
   would cost), weights_bytes the constant globals of the module, unplanned
   the temporaries left as allocs. The LLVM lowering keeps both attributes
   on the llvm.func, where dlcProgram and dlc-compile read them.

   Order. Bufferization keeps the order the graph's ops were emitted in
   (dlg's topological order); this pass does not reorder ops (at the memref
   level every reordering needs a dependence analysis of the buffers), so
   the peak is that of the given order. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/type_bytes.h"
#include "shape/Checked.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/MemRef.h"

#include <stdlib.h>
#include <string.h>

enum { kAlign = 64 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Rounded up to kAlign; INT64_MAX stays INT64_MAX (such a temporary
   is left as an alloc by the size check in planFunction). */
static int64_t alignUp(int64_t n) {
  return n > INT64_MAX - kAlign ? INT64_MAX : (n + kAlign - 1) / kAlign * kAlign;
}

/* Top-level ops of the function body, sorted by address for lookup. */
typedef struct {
  MlirOperation op;
  intptr_t index;
} Slot;

typedef struct {
  Slot *slots;
  intptr_t n;
  MlirBlock body;
} Order;

static int cmpSlot(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const Slot *)a)->op.ptr, y = (uintptr_t)((const Slot *)b)->op.ptr;
  return (x > y) - (x < y);
}

/* The position of `op`'s ancestor in the body, or -1. */
static intptr_t positionOf(const Order *o, MlirOperation op) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), o->body))
    op = mlirOperationGetParentOperation(op);
  if (mlirOperationIsNull(op))
    return -1;
  Slot key = {op, 0};
  Slot *s = bsearch(&key, o->slots, (size_t)o->n, sizeof *s, cmpSlot);
  return s ? s->index : -1;
}

typedef struct {
  MlirOperation alloc;
  int64_t size; /* aligned */
  intptr_t first, last;
  int64_t offset;
} Temp;

/* Ops through which a buffer would leave the function's top-level
   lifetime analysis: a temporary reaching one keeps its alloc. */
static const char *const kEscapes[] = {
    "func.return", "func.call", "func.call_indirect", "scf.yield", "scf.condition",
    "cf.br", "cf.cond_br", "llvm.call",
};

static bool escapes(MlirOperation user) { return DLC_OP_IS_ANY(user, kEscapes); }

/* Fills t->first/last from the uses of the alloc and of every value
   derived from it (views: any memref result of a user). False when the
   temporary cannot go in the arena. Direct deallocs go to `deallocs`. */
static bool lifetime(const Order *o, Temp *t, DlcOpList *deallocs) {
  MlirValue stack[256];
  int sp = 0;
  stack[sp++] = mlirOperationGetResult(t->alloc, 0);
  t->first = INTPTR_MAX;
  t->last = -1;
  bool direct = true;
  while (sp) {
    MlirValue v = stack[--sp];
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      if (dlcOpIs(user, "memref.dealloc")) {
        if (!direct) /* freed through a view */
          return false;
        dlcOpListPush(deallocs, user);
        continue;
      }
      if (escapes(user))
        return false;
      intptr_t at = positionOf(o, user);
      if (at < 0)
        return false;
      if (at > t->last)
        t->last = at;
      if (at < t->first)
        t->first = at;
      for (intptr_t r = 0; r < mlirOperationGetNumResults(user); ++r) {
        MlirValue res = mlirOperationGetResult(user, r);
        if (mlirTypeIsAMemRef(mlirValueGetType(res)) || mlirTypeIsAUnrankedMemRef(mlirValueGetType(res))) {
          if (sp == (int)(sizeof stack / sizeof *stack))
            return false;
          stack[sp++] = res;
        }
      }
    }
    direct = false;
  }
  if (t->last < 0) /* never used: lives at its alloc */
    t->first = t->last = positionOf(o, t->alloc);
  return true;
}

static int cmpBySize(const void *a, const void *b) {
  const Temp *x = *(Temp *const *)a, *y = *(Temp *const *)b;
  if (x->size != y->size)
    return x->size < y->size ? 1 : -1;
  return (x->first > y->first) - (x->first < y->first);
}

static int cmpByOffset(const void *a, const void *b) {
  const Temp *x = *(Temp *const *)a, *y = *(Temp *const *)b;
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Greedy by size: returns the arena's size. */
static int64_t assignOffsets(Temp *temps, intptr_t n) {
  Temp **bySize = dlcXmalloc(sizeof *bySize * (size_t)(n + 1));
  Temp **placed = dlcXmalloc(sizeof *placed * (size_t)(n + 1));
  for (intptr_t i = 0; i < n; ++i)
    bySize[i] = &temps[i];
  qsort(bySize, (size_t)n, sizeof *bySize, cmpBySize);
  int64_t peak = 0;
  for (intptr_t i = 0; i < n; ++i) {
    Temp *t = bySize[i];
    intptr_t k = 0; /* the placed temporaries live at the same time, by offset */
    for (intptr_t j = 0; j < i; ++j)
      if (bySize[j]->first <= t->last && t->first <= bySize[j]->last)
        placed[k++] = bySize[j];
    qsort(placed, (size_t)k, sizeof *placed, cmpByOffset);
    int64_t end = 0, best = -1, bestGap = INT64_MAX;
    for (intptr_t j = 0; j < k; ++j) {
      int64_t gap = placed[j]->offset - end;
      if (gap >= t->size && gap < bestGap)
        best = end, bestGap = gap;
      end = dlcAddSaturate(placed[j]->offset, placed[j]->size) > end
                ? dlcAddSaturate(placed[j]->offset, placed[j]->size) : end;
    }
    t->offset = best >= 0 ? best : end;
    if (dlcAddSaturate(t->offset, t->size) > peak)
      peak = dlcAddSaturate(t->offset, t->size);
  }
  free(bySize);
  free(placed);
  return peak;
}

/* Bytes of the module's constant globals (the weights). */
static int64_t weightsBytes(MlirOperation module) {
  int64_t total = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!dlcOpIs(op, "memref.global") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("constant"))))
      continue;
    int64_t b = dlcStaticTypeBytes(
        mlirTypeAttrGetValue(mlirOperationGetAttributeByName(op, str("type"))));
    total = dlcAddSaturate(total, b > 0 ? b : 0);
  }
  return total;
}

/* Appends the workspace argument to `func` (type and arg_attrs too). */
static MlirValue addWorkspaceArg(MlirOperation func, MlirBlock body, MlirType type) {
  MlirContext ctx = mlirOperationGetContext(func);
  MlirType ft = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(func, str("function_type")));
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft), nr = mlirFunctionTypeGetNumResults(ft);
  MlirType *ins = dlcXmalloc(sizeof *ins * (size_t)(ni + 1)), *res = dlcXmalloc(sizeof *res * (size_t)(nr + 1));
  for (intptr_t i = 0; i < ni; ++i)
    ins[i] = mlirFunctionTypeGetInput(ft, i);
  ins[ni] = type;
  for (intptr_t i = 0; i < nr; ++i)
    res[i] = mlirFunctionTypeGetResult(ft, i);
  mlirOperationSetAttributeByName(
      func, str("function_type"), mlirTypeAttrGet(mlirFunctionTypeGet(ctx, ni + 1, ins, nr, res)));
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(func, str("arg_attrs"));
  if (!mlirAttributeIsNull(argAttrs)) {
    MlirAttribute *a = dlcXmalloc(sizeof *a * (size_t)(ni + 1));
    for (intptr_t i = 0; i < ni; ++i)
      a[i] = mlirArrayAttrGetElement(argAttrs, i);
    a[ni] = mlirDictionaryAttrGet(ctx, 0, NULL);
    mlirOperationSetAttributeByName(func, str("arg_attrs"), mlirArrayAttrGet(ctx, ni + 1, a));
    free(a);
  }
  free(ins);
  free(res);
  return mlirBlockAddArgument(body, type, mlirOperationGetLocation(func));
}

typedef struct {
  uint64_t planned, unplanned, peak, naive;
} Totals;

static void planFunction(MlirOperation func, int64_t weights, Totals *totals) {
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(body) ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(func, str("sym_visibility"))) ||
      !mlirBlockIsNull(mlirBlockGetNextInRegion(body)))
    return; /* private (callers would need the argument too) or several blocks */
  Order o = {NULL, 0, body};
  intptr_t cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (o.n == cap)
      o.slots = dlcXrealloc(o.slots, sizeof *o.slots * (size_t)(cap = cap ? 2 * cap : 64));
    o.slots[o.n] = (Slot){op, o.n};
    ++o.n;
  }
  qsort(o.slots, (size_t)o.n, sizeof *o.slots, cmpSlot);

  Temp *temps = NULL;
  intptr_t n = 0, tcap = 0;
  DlcOpList deallocs = {NULL, 0, 0};
  intptr_t *dealloc0 = NULL; /* each temporary's first dealloc in `deallocs` */
  uint64_t unplanned = 0;
  /* The top-level static allocs are the candidates. */
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!dlcOpIs(op, "memref.alloc"))
      continue;
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
    int64_t bytes = dlcStaticTypeBytes(t);
    if (mlirOperationGetNumOperands(op) != 0 || bytes < 0 || !dlcMemRefIsIdentityLayout(t) ||
        !mlirAttributeIsNull(mlirMemRefTypeGetMemorySpace(t)) ||
        dlcGetI64(op, "alignment", kAlign) > kAlign || kAlign % dlcGetI64(op, "alignment", 1)) {
      ++unplanned;
      continue;
    }
    if (n == tcap) {
      tcap = tcap ? 2 * tcap : 32;
      temps = dlcXrealloc(temps, sizeof *temps * (size_t)tcap);
      dealloc0 = dlcXrealloc(dealloc0, sizeof *dealloc0 * (size_t)(tcap + 1));
    }
    Temp tmp = {op, alignUp(bytes > 0 ? bytes : 1), 0, 0, 0};
    intptr_t mark = deallocs.n;
    if (!lifetime(&o, &tmp, &deallocs)) {
      deallocs.n = mark;
      ++unplanned;
      continue;
    }
    dealloc0[n] = mark;
    temps[n++] = tmp;
  }
  dealloc0 = dlcXrealloc(dealloc0, sizeof *dealloc0 * (size_t)(n + 1));
  dealloc0[n] = deallocs.n;

  int64_t naive = 0, peak = 0;
  if (n > 0) {
    for (intptr_t i = 0; i < n; ++i)
      naive = dlcAddSaturate(naive, temps[i].size);
    peak = assignOffsets(temps, n);
    if (peak == INT64_MAX) { /* an arena beyond int64 bytes: leave every alloc alone */
      unplanned += (uint64_t)n;
      n = 0;
    }
  }
  if (n > 0) {
    MlirContext ctx = mlirOperationGetContext(func);
    MlirType i8 = mlirIntegerTypeGet(ctx, 8), index = mlirIndexTypeGet(ctx);
    MlirType wsType = mlirMemRefTypeContiguousGet(i8, 1, &peak, mlirAttributeGetNull());
    MlirValue ws = addWorkspaceArg(func, body, wsType);
    for (intptr_t i = 0; i < n; ++i) {
      MlirOperation alloc = temps[i].alloc;
      MlirLocation loc = mlirOperationGetLocation(alloc);
      DlcBuilder b = dlcBuilderBefore(alloc, loc);
      MlirValue off = mlirOperationGetResult(
          dlcBuildOpTyped(&b, "arith.constant", 0, NULL, 1, &index,
                          DLC_ATTRS(dlcNamed(ctx, "value",
                                             mlirIntegerAttrGet(index, temps[i].offset)))),
          0);
      MlirValue old = mlirOperationGetResult(alloc, 0);
      MlirType t = mlirValueGetType(old);
      MlirOperation view = dlcBuildOpTyped(&b, "memref.view", 2, (MlirValue[]){ws, off}, 1, &t,
                                           DLC_NO_ATTRS);
      for (intptr_t d = dealloc0[i]; d < dealloc0[i + 1]; ++d)
        mlirOperationDestroy(deallocs.ops[d]);
      mlirValueReplaceAllUsesOfWith(old, mlirOperationGetResult(view, 0));
      mlirOperationDestroy(alloc);
    }
    mlirOperationSetAttributeByName(func, str("dlc.workspace_bytes"),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), peak));
    MlirType i64 = mlirIntegerTypeGet(ctx, 64);
    MlirNamedAttribute fields[] = {
        dlcNamed(ctx, "naive_bytes", mlirIntegerAttrGet(i64, naive)),
        dlcNamed(ctx, "peak_bytes", mlirIntegerAttrGet(i64, peak)),
        dlcNamed(ctx, "temporaries", mlirIntegerAttrGet(i64, n)),
        dlcNamed(ctx, "unplanned", mlirIntegerAttrGet(i64, (int64_t)unplanned)),
        dlcNamed(ctx, "weights_bytes", mlirIntegerAttrGet(i64, weights)),
    };
    mlirOperationSetAttributeByName(func, str("dlc.memory_plan"),
                                    mlirDictionaryAttrGet(ctx, 5, fields));
    totals->peak += (uint64_t)peak;
    totals->naive += (uint64_t)naive;
  }
  totals->planned += (uint64_t)n;
  totals->unplanned += unplanned;
  free(temps);
  free(dealloc0);
  free(o.slots);
  dlcOpListFree(&deallocs);
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  Totals totals = {0, 0, 0, 0};
  int64_t weights = weightsBytes(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (dlcOpIs(op, "func.func"))
      planFunction(op, weights, &totals);
  dlcPassAddStatistic(pass, "planned", totals.planned);
  dlcPassAddStatistic(pass, "unplanned", totals.unplanned);
  dlcPassAddStatistic(pass, "peak-bytes", totals.peak);
  dlcPassAddStatistic(pass, "naive-bytes", totals.naive);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStatistics[] = {
    {"planned", "Temporaries placed in the workspace arena"},
    {"unplanned", "Top-level allocs left as allocs (dynamic, escaping or unusual layout)"},
    {"peak-bytes", "Arena bytes, summed over functions"},
    {"naive-bytes", "Bytes of one buffer per planned temporary, summed over functions"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), registry);
}

const DlcPassDescriptor dlcMemoryPlanPass = {
    .argument = "dlc-memory-plan",
    .summary = "Place the static temporaries of public functions in one workspace arena "
               "passed as a last argument, at offsets planned by lifetime (greedy by size)",
    .anchor = "builtin.module",
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
