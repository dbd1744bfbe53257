/* --dlc-kernel-dedup: after bufferisation and the memory plan, each loop
   nest at the top of a function (one kernel's tiles: scf.forall, scf.for,
   scf.parallel, ...) becomes a private function of its own, called in its
   place, and nests that are structurally identical share one function.

   Why: bufferisation needs the kernels inlined (whole lifetimes in one
   function), so without this the rest of the pipeline and LLVM see one
   function holding every loop of the model. That costs twice:
     - every later pass (vector to LLVM, strided metadata, LLVM conversion)
       and LLVM -O3 work once per kernel *instance*: BERT-base's 12 layers
       are 12 copies of the same 13 nests, ResNet-50's blocks repeat;
     - LLVM's scalar evolution walks every dominating branch when it
       simplifies an induction variable (isBasicBlockEntryGuardedByCond), so
       IndVarSimplify is quadratic in the number of loops of one function
       (over half of LLVM's time on SqueezeNet).
   Outlined, each distinct nest is compiled once and LLVM sees small
   functions (internal linkage and noinline, so its inliner does not build
   the big function again).

   What a nest's function takes: every value it uses from outside, in the
   order of first use (buffers -- weights, workspace views, the caller's
   tensors -- and index values), except constants without operands
   (arith.constant, ub.poison), which are cloned in so that loop bounds stay
   constants for LLVM. Two nests are the same when their functions print
   the same (op names, attributes, types, constants and the argument
   types, under one placeholder name), so weights passed in different
   buffers share the code, and a nest using one buffer twice never merges
   with one using two buffers. The numerics are unchanged: the same ops
   run on the same buffers, only called. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Text.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Ops without operands or regions that are cheaper (and better for LLVM)
   cloned into the nest's function than passed. */
static const char *const kCloned[] = {"arith.constant", "ub.poison"};

static bool isCloned(MlirOperation op) {
  for (size_t i = 0; i < sizeof kCloned / sizeof *kCloned; ++i)
    if (dlcOpIs(op, kCloned[i]))
      return true;
  return false;
}

/* Whether `op` is `ancestor` or nested in it. */
static bool isWithin(MlirOperation op, MlirOperation ancestor) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirOperationEqual(op, ancestor))
      return true;
  return false;
}

/* The op a value belongs to: its defining op, or its block's parent op. */
static MlirOperation ownerOf(MlirValue v) {
  if (mlirValueIsAOpResult(v))
    return mlirOpResultGetOwner(v);
  return mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
}

/* Values used inside a nest but defined outside it, in order of first use,
   with an open-addressing index by value so that a nest's capture and
   rewrite stay linear in its size (DenseNet-121 has nests capturing the
   same arena and weights hundreds of times). */
typedef struct {
  MlirOperation nest;
  MlirValue *vals;
  intptr_t n, cap;
  intptr_t *index; /* slot -> position in vals + 1; 0 = empty */
  size_t slots;
} Captures;

static size_t slotOf(const Captures *c, MlirValue v) {
  size_t h = ((uintptr_t)v.ptr >> 4) * 0x9E3779B97F4A7C15ull;
  size_t j = h & (c->slots - 1);
  while (c->index[j] && !mlirValueEqual(c->vals[c->index[j] - 1], v))
    j = (j + 1) & (c->slots - 1);
  return j;
}

/* Position of `v` among the captures, or -1. */
static intptr_t findCapture(const Captures *c, MlirValue v) {
  if (!c->slots)
    return -1;
  return c->index[slotOf(c, v)] - 1;
}

static void capture(Captures *c, MlirValue v) {
  if (2 * (size_t)(c->n + 1) > c->slots) { /* grow the index, rehashing */
    free(c->index);
    c->slots = c->slots ? 2 * c->slots : 64;
    c->index = dlcXcalloc(c->slots, sizeof *c->index);
    for (intptr_t i = 0; i < c->n; ++i)
      c->index[slotOf(c, c->vals[i])] = i + 1;
  }
  size_t j = slotOf(c, v);
  if (c->index[j])
    return;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->vals = dlcXrealloc(c->vals, sizeof *c->vals * (size_t)c->cap);
  }
  c->vals[c->n++] = v;
  c->index[j] = c->n;
}

static MlirWalkResult collectCaptures(MlirOperation op, void *user) {
  Captures *c = user;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!isWithin(ownerOf(v), c->nest))
      capture(c, v);
  }
  return MlirWalkResultAdvance;
}

/* Each operand inside the nest that is a capture becomes its replacement
   (argument or clone): one walk, rather than one walk of every captured
   value's uses in the whole function (quadratic in the number of nests). */
typedef struct {
  const Captures *c;
  const MlirValue *to;
} Rewire;

static MlirWalkResult rewireOperands(MlirOperation op, void *user) {
  const Rewire *r = user;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    intptr_t k = findCapture(r->c, mlirOperationGetOperand(op, i));
    if (k >= 0)
      mlirOperationSetOperand(op, i, r->to[k]);
  }
  return MlirWalkResultAdvance;
}

/* The functions made so far, by printed form (open addressing). */
typedef struct {
  uint64_t hash;
  char *text;
  char name[128];
} Entry;

typedef struct {
  Entry *slots;
  size_t cap, n;
} Table;

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The entry for `text`: an existing one, or a new one with an empty name. */
static Entry *lookup(Table *t, const char *text) {
  if (2 * (t->n + 1) > t->cap) { /* grow, rehashing */
    Table g = {dlcXcalloc(t->cap ? 2 * t->cap : 64, sizeof(Entry)), t->cap ? 2 * t->cap : 64, 0};
    for (size_t i = 0; i < t->cap; ++i)
      if (t->slots[i].text) {
        size_t j = t->slots[i].hash & (g.cap - 1);
        while (g.slots[j].text)
          j = (j + 1) & (g.cap - 1);
        g.slots[j] = t->slots[i];
        ++g.n;
      }
    free(t->slots);
    *t = g;
  }
  uint64_t h = fnv1a(text);
  size_t j = h & (t->cap - 1);
  for (; t->slots[j].text; j = (j + 1) & (t->cap - 1))
    if (t->slots[j].hash == h && strcmp(t->slots[j].text, text) == 0)
      return &t->slots[j];
  t->slots[j] = (Entry){h, dlcXmalloc(strlen(text) + 1), ""};
  strcpy(t->slots[j].text, text);
  ++t->n;
  return &t->slots[j];
}

static void tableFree(Table *t) {
  for (size_t i = 0; i < t->cap; ++i)
    free(t->slots[i].text);
  free(t->slots);
}

typedef struct {
  Table seen;
  int64_t made, calls;
  MlirAttribute linkage, passthrough;
} State;

/* Outlines `nest` (a direct child of `func`'s body) into a function, or
   calls the identical one made before. */
static void outlineNest(MlirOperation nest, MlirOperation func, State *s) {
  MlirContext ctx = mlirOperationGetContext(nest);
  MlirLocation loc = mlirOperationGetLocation(nest);
  Captures c = {.nest = nest};
  mlirOperationWalk(nest, collectCaptures, &c, MlirWalkPreOrder);

  /* Arguments: the captured values that are not cloned. */
  MlirValue *args = dlcXmalloc(sizeof *args * (size_t)(c.n + 1));
  MlirType *types = dlcXmalloc(sizeof *types * (size_t)(c.n + 1));
  MlirLocation *locs = dlcXmalloc(sizeof *locs * (size_t)(c.n + 1));
  intptr_t nArgs = 0;
  for (intptr_t i = 0; i < c.n; ++i)
    if (!mlirValueIsAOpResult(c.vals[i]) || !isCloned(mlirOpResultGetOwner(c.vals[i]))) {
      args[nArgs] = c.vals[i];
      types[nArgs] = mlirValueGetType(c.vals[i]);
      locs[nArgs++] = loc;
    }

  MlirBlock body = mlirBlockCreate(nArgs, types, locs);
  MlirOperationState rs = mlirOperationStateGet(str("func.return"), loc);
  MlirOperation ret = mlirOperationCreate(&rs);
  mlirBlockAppendOwnedOperation(body, ret);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirType fnType = mlirFunctionTypeGet(ctx, nArgs, types, 0, NULL);
  MlirNamedAttribute attrs[] = {
      dlcNamed(ctx, "sym_name", mlirStringAttrGet(ctx, str("dlc_nest"))),
      dlcNamed(ctx, "function_type", mlirTypeAttrGet(fnType)),
      dlcNamed(ctx, "sym_visibility", mlirStringAttrGet(ctx, str("private"))),
      dlcNamed(ctx, "llvm.linkage", s->linkage),
      dlcNamed(ctx, "passthrough", s->passthrough),
  };
  MlirOperationState fs = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&fs, sizeof attrs / sizeof *attrs, attrs);
  mlirOperationStateAddOwnedRegions(&fs, 1, &region);
  MlirOperation fn = mlirOperationCreate(&fs);

  /* The call in the nest's place, then the nest moved into the function:
     its uses of captured values become arguments or clones. */
  MlirOperationState cs = mlirOperationStateGet(str("func.call"), loc);
  mlirOperationStateAddOperands(&cs, nArgs, args);
  MlirOperation call = mlirOperationCreate(&cs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(nest), nest, call);
  mlirOperationMoveBefore(nest, ret);
  intptr_t a = 0;
  MlirOperation firstInBody = mlirBlockGetFirstOperation(body);
  MlirValue *to = dlcXmalloc(sizeof *to * (size_t)(c.n + 1));
  for (intptr_t i = 0; i < c.n; ++i) {
    if (a < nArgs && mlirValueEqual(args[a], c.vals[i])) {
      to[i] = mlirBlockGetArgument(body, a++);
    } else {
      MlirOperation clone = mlirOperationClone(mlirOpResultGetOwner(c.vals[i]));
      mlirBlockInsertOwnedOperationBefore(body, firstInBody, clone);
      to[i] = mlirOperationGetResult(clone, mlirOpResultGetResultNumber(c.vals[i]));
    }
  }
  Rewire rw = {&c, to};
  mlirOperationWalk(nest, rewireOperands, &rw, MlirWalkPreOrder);
  free(to);

  /* Same printed form (under the placeholder name): call the one made. */
  char *text = dlcOperationToString(fn, false);
  Entry *e = lookup(&s->seen, text);
  dlcStringFree(text);
  if (!e->name[0]) {
    MlirStringRef parent = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(func, str("sym_name")));
    snprintf(e->name, sizeof e->name, "%.*s_nest%lld", (int)parent.length, parent.data,
             (long long)s->made++);
    mlirOperationSetAttributeByName(fn, str("sym_name"), mlirStringAttrGet(ctx, str(e->name)));
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func, fn);
  } else {
    mlirOperationDestroy(fn);
  }
  mlirOperationSetAttributeByName(call, str("callee"),
                                  mlirFlatSymbolRefAttrGet(ctx, str(e->name)));
  ++s->calls;
  free(c.vals);
  free(c.index);
  free(args);
  free(types);
  free(locs);
}

/* A nest: an op with regions and no results at the top of a function body
   (results would have to be returned; none of the CPU pipeline's nests
   has any at this point). */
static bool isNest(MlirOperation op) {
  return mlirOperationGetNumRegions(op) > 0 && mlirOperationGetNumResults(op) == 0;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  MlirContext ctx = mlirOperationGetContext(module);
  State s = {
      .linkage = mlirAttributeParseGet(ctx, str("#llvm.linkage<internal>")),
      .passthrough = mlirAttributeParseGet(ctx, str("[\"noinline\"]")),
  };
  if (mlirAttributeIsNull(s.linkage)) {
    fprintf(stderr, "dlc-kernel-dedup: the LLVM dialect is not loaded\n");
    return (MlirLogicalResult){0};
  }
  DlcOpList funcs = dlcOpListOfModule(module, "func.func");
  for (intptr_t f = 0; f < funcs.n; ++f) {
    MlirRegion r = mlirOperationGetRegion(funcs.ops[f], 0);
    if (mlirBlockIsNull(mlirRegionGetFirstBlock(r)))
      continue; /* a declaration */
    DlcOpList nests = {0};
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
           op = mlirOperationGetNextInBlock(op))
        if (isNest(op))
          dlcOpListPush(&nests, op);
    for (intptr_t i = 0; i < nests.n; ++i)
      outlineNest(nests.ops[i], funcs.ops[f], &s);
    dlcOpListFree(&nests);
  }
  dlcOpListFree(&funcs);
  tableFree(&s.seen);
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcKernelDedupPass = {
    .argument = "dlc-kernel-dedup",
    .summary = "Outline each loop nest at the top of a function into a private noinline "
               "function; structurally identical nests share one",
    .anchor = "builtin.module",
    .run = run,
};
