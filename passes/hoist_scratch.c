/* dlc-hoist-scratch: a kernel's scratch buffers (a GEMM's packed panels of
   B and its packed C tile, a packed block of A) cost a malloc and a free
   per use, and glibc gives memory of that size (a BERT FFN's 147 KiB
   packed block of B) back to the system at each free and takes it again,
   page fault by page fault, at the next malloc. In a plain C program
   calling a dlc-compile library, 128x768x3072 ran at 53-55 GFLOP/s against
   63-67 with glibc's trimming off (AMD EPYC, AVX2, 1 thread): a fifth of
   the time went to the kernel's brk calls and page faults (64 per call).
   A Python process hid it, its earlier large frees having raised glibc's
   thresholds.

   So each static buffer that lives within one iteration of a loop (its
   alloc and its one dealloc in the same block) moves up to the start of
   its scope: the body of the innermost enclosing scf.forall or
   scf.parallel (one parallel tile, run by one thread), or the function.
   What fits the scope's stack budget becomes a memref.alloca there: a
   parallel tile's body is wrapped in memref.alloca_scope, so every tile a
   thread runs takes the same stack memory, already mapped. A buffer past
   the budget stays on the heap, allocated once per scope instead of once
   per inner iteration. A fresh buffer's contents are undefined either way,
   so reusing one across iterations changes no result.

   The budget (max-stack-bytes, 512 KiB by default) is per scope, so a
   parallel tile's frame stays far inside a libomp worker's 4 MiB stack
   and a caller's 8 MiB one (glibc's default). Buffers at a function's top
   level are dlc-memory-plan's (the workspace) and stay as they are. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/memref_views.h"
#include "support/op_list.h"
#include "support/type_bytes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/MemRef.h"

#include <stdio.h>
#include <stdlib.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Ops a buffer may be hoisted out of: sequential control flow, whose
   iterations or branches run one after another on one thread. */
static const char *const kSequential[] = {"scf.for", "scf.if", "scf.while", "scf.index_switch",
                                          "scf.execute_region"};
/* Ops whose body is a scope: one parallel iteration per thread at a time */
static const char *const kParallel[] = {"scf.forall", "scf.parallel"};

/* The one memref.dealloc of `alloc`'s result, in `alloc`'s block; null when
   there is none or another. */
static MlirOperation soleDeallocBeside(MlirOperation alloc) {
  MlirOperation found = {NULL};
  for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(alloc, 0));
       !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (!dlcOpIs(user, "memref.dealloc"))
      continue;
    if (!mlirOperationIsNull(found) ||
        !mlirBlockEqual(mlirOperationGetBlock(user), mlirOperationGetBlock(alloc)))
      return (MlirOperation){NULL};
    found = user;
  }
  return found;
}

/* A static buffer with the identity layout: its size is known here. */
static int64_t staticBytes(MlirOperation alloc) {
  if (mlirOperationGetNumOperands(alloc) != 0)
    return -1;
  MlirType t = mlirValueGetType(mlirOperationGetResult(alloc, 0));
  return dlcMemRefIsIdentityLayout(t) ? dlcStaticTypeBytes(t) : -1;
}

/* The block `alloc` moves to: the body of its innermost enclosing parallel
   loop or function, through sequential ops only; null when another op
   (a linalg body, an unknown region) lies in between. */
static MlirBlock scopeOf(MlirOperation alloc, bool *hoisted) {
  MlirBlock block = mlirOperationGetBlock(alloc);
  *hoisted = false;
  for (;;) {
    MlirOperation parent = mlirBlockGetParentOperation(block);
    if (mlirOperationIsNull(parent))
      return (MlirBlock){NULL};
    if (DLC_OP_IS_ANY(parent, kParallel) || dlcOpIs(parent, "func.func"))
      return block;
    if (!DLC_OP_IS_ANY(parent, kSequential))
      return (MlirBlock){NULL};
    block = mlirOperationGetBlock(parent);
    *hoisted = true;
  }
}

typedef struct {
  MlirBlock block;
  MlirOperation last; /* the last buffer moved in (null: none yet); the next goes after it */
  int64_t stackBytes; /* taken so far */
  bool stack;         /* holds an alloca */
} Scope;

typedef struct {
  Scope *at;
  intptr_t n, cap;
} Scopes;

/* The body of a parallel loop as one memref.alloca_scope: its allocas are
   freed at the end of each iteration, so the next iteration's land on the
   same stack memory (dlc-inline-alloca-scopes lowers the scope before its
   loops become branches). */
static void wrapInAllocaScope(MlirBlock body, MlirLocation loc) {
  MlirOperation terminator = mlirBlockGetTerminator(body);
  MlirOperation first = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(terminator) || mlirOperationEqual(first, terminator))
    return;
  MlirRegion region = mlirRegionCreate();
  MlirBlock inner = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(region, inner);
  MlirOperationState st = mlirOperationStateGet(str("memref.alloca_scope"), loc);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation scope = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(body, first, scope);
  MlirOperationState rs = mlirOperationStateGet(str("memref.alloca_scope.return"), loc);
  MlirOperation ret = mlirOperationCreate(&rs);
  mlirBlockAppendOwnedOperation(inner, ret);
  for (MlirOperation op = first; !mlirOperationEqual(op, terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, ret);
    op = next;
  }
}

static Scope *scopeFor(Scopes *l, MlirBlock block) {
  for (intptr_t i = 0; i < l->n; ++i)
    if (mlirBlockEqual(l->at[i].block, block))
      return &l->at[i];
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->at = dlcXrealloc(l->at, sizeof *l->at * (size_t)l->cap);
  }
  l->at[l->n] = (Scope){block, {NULL}, 0, false};
  return &l->at[l->n++];
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  int64_t budget = dlcOptionsGetInt(dlcPassGetOptions(pass), "max-stack-bytes");
  if (budget < 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "dlc-hoist-scratch: max-stack-bytes must be >= 0, got %lld",
             (long long)budget);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    return (MlirLogicalResult){0};
  }
  Scopes scopes = {NULL, 0, 0};
  uint64_t onStack = 0, onHeap = 0;
  DlcOpList allocs = dlcOpListOfWalk(func, "memref.alloc");
  for (intptr_t i = 0; i < allocs.n; ++i) {
    MlirOperation alloc = allocs.ops[i], dealloc = soleDeallocBeside(alloc);
    int64_t bytes = staticBytes(alloc);
    bool hoisted;
    MlirBlock block = bytes < 0 || mlirOperationIsNull(dealloc) ? (MlirBlock){NULL}
                                                                : scopeOf(alloc, &hoisted);
    if (mlirBlockIsNull(block))
      continue;
    bool parallel = !dlcOpIs(mlirBlockGetParentOperation(block), "func.func");
    if (!parallel && !hoisted)
      continue; /* a top-level temporary: dlc-memory-plan's */
    Scope *s = scopeFor(&scopes, block);
    /* after the buffers moved in before, so they keep their order */
    MlirOperation first = mlirOperationIsNull(s->last) ? mlirBlockGetFirstOperation(block)
                                                       : mlirOperationGetNextInBlock(s->last);
    if (s->stackBytes + bytes <= budget) {
      s->stackBytes += bytes, s->stack = true;
      DlcBuilder b = dlcBuilderBefore(first, mlirOperationGetLocation(alloc));
      MlirContext ctx = mlirOperationGetContext(alloc);
      MlirType t = mlirValueGetType(mlirOperationGetResult(alloc, 0));
      MlirAttribute align = mlirOperationGetAttributeByName(alloc, str("alignment"));
      MlirNamedAttribute attrs[2] = {
          dlcNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, (int32_t[]){0, 0})),
          dlcNamed(ctx, "alignment", align)};
      MlirOperation alloca = dlcBuildOpTyped(&b, "memref.alloca", 0, NULL, 1, &t,
                                             mlirAttributeIsNull(align) ? 1 : 2, attrs);
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(alloc, 0),
                                    mlirOperationGetResult(alloca, 0));
      s->last = alloca;
      mlirOperationDestroy(dealloc);
      mlirOperationDestroy(alloc);
      ++onStack;
    } else if (hoisted) {
      mlirOperationMoveBefore(alloc, first);
      mlirOperationMoveBefore(dealloc, mlirBlockGetTerminator(block));
      s->last = alloc;
      ++onHeap;
    }
  }
  dlcOpListFree(&allocs);
  for (intptr_t i = 0; i < scopes.n; ++i) {
    MlirOperation parent = mlirBlockGetParentOperation(scopes.at[i].block);
    if (scopes.at[i].stack && !dlcOpIs(parent, "func.func"))
      wrapInAllocaScope(scopes.at[i].block, mlirOperationGetLocation(parent));
  }
  free(scopes.at);
  dlcPassAddStatistic(pass, "stack-buffers", onStack);
  dlcPassAddStatistic(pass, "hoisted-heap-buffers", onHeap);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"max-stack-bytes",
     "Stack a scope (a parallel tile, or a function) may take for its scratch buffers",
     DLC_OPTION_INT, "524288"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"stack-buffers", "Scratch buffers moved to the stack"},
    {"hoisted-heap-buffers", "Scratch buffers left on the heap, allocated once per scope"},
};

static void dependentDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__memref__(), registry);
}

const DlcPassDescriptor dlcHoistScratchPass = {
    .argument = "dlc-hoist-scratch",
    .summary = "Move scratch buffers that live within a loop iteration to the start of their "
               "parallel tile or function, on the stack where they fit",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};
