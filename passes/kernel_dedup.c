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

static bool isCloned(MlirOperation op) { return DLC_OP_IS_ANY(op, kCloned); }

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

/* Printed forms to an index (open addressing). */
typedef struct {
  uint64_t hash;
  char *text;
  intptr_t value;
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

/* The entry for `text`: an existing one, or a new one with value -1. */
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
  t->slots[j] = (Entry){h, dlcXmalloc(strlen(text) + 1), -1};
  strcpy(t->slots[j].text, text);
  ++t->n;
  return &t->slots[j];
}

static void tableFree(Table *t) {
  for (size_t i = 0; i < t->cap; ++i)
    free(t->slots[i].text);
  free(t->slots);
}

static char *dupString(const char *t) {
  char *d = dlcXmalloc(strlen(t) + 1);
  return strcpy(d, t);
}

/* The key nests are grouped by: the printed form with the contents of
   every `strided<...>` layout erased. Nests that differ only in where
   their buffers sit (DenseNet's concatenations: the same copy or conv
   into channels 32k..32k+31 of a growing buffer) share a key; whether
   they can share code is decided by generalising them (below). */
static char *kernelKey(const char *text) {
  static const char kStrided[] = "strided<";
  char *key = dlcXmalloc(strlen(text) + 1), *o = key;
  for (const char *p = text; *p;) {
    if (strncmp(p, kStrided, sizeof kStrided - 1) == 0) {
      memcpy(o, kStrided, sizeof kStrided - 1);
      o += sizeof kStrided - 1;
      p += sizeof kStrided - 1;
      while (*p && *p != '>')
        ++p;
    } else {
      *o++ = *p++;
    }
  }
  *o = 0;
  return key;
}

/*--- Generalising a nest's layouts ------------------------------------------------*/

/* Which parts of an argument's strided layout become dynamic: bit 0 the
   offset, bit 1 + k stride k. The innermost stride never does: a unit
   innermost stride is what lets vector transfers become plain loads. */
typedef uint64_t LayoutMask;
enum { kMaxRank = 62 };

static bool stridesOf(MlirType t, int64_t *strides, int64_t *offset) {
  if (!mlirTypeIsAMemRef(t) || mlirShapedTypeGetRank(t) > kMaxRank)
    return false;
  return mlirLogicalResultIsSuccess(mlirMemRefTypeGetStridesAndOffset(t, strides, offset));
}

/* The parts of `a`'s layout that differ from `b`'s (same shape). */
static LayoutMask layoutDiff(MlirType a, MlirType b) {
  int64_t sa[kMaxRank], sb[kMaxRank], oa, ob;
  if (mlirTypeEqual(a, b) || !stridesOf(a, sa, &oa) || !stridesOf(b, sb, &ob))
    return 0;
  intptr_t rank = mlirShapedTypeGetRank(a);
  LayoutMask m = oa != ob;
  for (intptr_t k = 0; k + 1 < rank; ++k)
    if (sa[k] != sb[k])
      m |= (LayoutMask)1 << (k + 1);
  return m;
}

/* `t` with the layout parts in `m` dynamic. */
static MlirType withDynamic(MlirType t, const int64_t *strides, int64_t offset, LayoutMask m) {
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t shape[kMaxRank], st[kMaxRank];
  int64_t dyn = mlirShapedTypeGetDynamicStrideOrOffset();
  for (intptr_t k = 0; k < rank; ++k) {
    shape[k] = mlirShapedTypeGetDimSize(t, k);
    st[k] = m & ((LayoutMask)1 << (k + 1)) ? dyn : strides[k];
  }
  MlirAttribute layout = mlirStridedLayoutAttrGet(mlirTypeGetContext(t), m & 1 ? dyn : offset,
                                                  rank, st);
  return mlirMemRefTypeGet(mlirShapedTypeGetElementType(t), rank, shape, layout,
                           mlirMemRefTypeGetMemorySpace(t));
}

/* Values whose type generalisation changed, to follow into their users. */
typedef struct {
  MlirValue *v;
  intptr_t n, cap;
  bool failed;
} Changed;

static void markChanged(Changed *c, MlirValue v) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->v = dlcXrealloc(c->v, sizeof *c->v * (size_t)c->cap);
  }
  c->v[c->n++] = v;
}

static bool isChanged(const Changed *c, MlirValue v) {
  for (intptr_t i = 0; i < c->n; ++i)
    if (mlirValueEqual(c->v[i], v))
      return true;
  return false;
}

/* MLIR's SaturatedInteger product: 0 times anything is 0, else dynamic
   if either is. */
static int64_t satMul(int64_t a, int64_t b) {
  int64_t dyn = mlirShapedTypeGetDynamicStrideOrOffset();
  if (a == 0 || b == 0)
    return 0;
  return a == dyn || b == dyn ? dyn : a * b;
}

static int64_t satAdd(int64_t a, int64_t b) {
  int64_t dyn = mlirShapedTypeGetDynamicStrideOrOffset();
  return a == dyn || b == dyn ? dyn : a + b;
}

/* A memref.subview of a generalised source: its result type as
   SubViewOp::inferResultType gives it (offset = source offset + sum of
   offset * stride, strides = source stride * step). Rank-reduced views
   are taken only when the source's strides are unchanged (their strides
   then stay; only the offset can move). */
static bool retypeSubview(MlirOperation op) {
  MlirType src = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType old = mlirValueGetType(res);
  int64_t ss[kMaxRank], so, rs[kMaxRank], ro;
  if (!stridesOf(src, ss, &so) || !stridesOf(old, rs, &ro))
    return false;
  MlirAttribute offs = mlirOperationGetAttributeByName(op, str("static_offsets"));
  MlirAttribute steps = mlirOperationGetAttributeByName(op, str("static_strides"));
  intptr_t rank = mlirShapedTypeGetRank(src), resRank = mlirShapedTypeGetRank(old);
  if (mlirAttributeIsNull(offs) || mlirAttributeIsNull(steps) ||
      mlirDenseArrayGetNumElements(offs) != rank || mlirDenseArrayGetNumElements(steps) != rank)
    return false;
  int64_t offset = so;
  for (intptr_t k = 0; k < rank; ++k)
    offset = satAdd(offset, satMul(mlirDenseI64ArrayGetElement(offs, k), ss[k]));
  int64_t dyn = mlirShapedTypeGetDynamicStrideOrOffset();
  LayoutMask m = offset == dyn;
  if (resRank == rank) {
    for (intptr_t k = 0; k < rank; ++k)
      if (satMul(ss[k], mlirDenseI64ArrayGetElement(steps, k)) == dyn)
        m |= (LayoutMask)1 << (k + 1);
  } else {
    for (intptr_t k = 0; k < rank; ++k)
      if (ss[k] == dyn)
        return false;
  }
  if (m & ((LayoutMask)1 << resRank)) /* the innermost stride */
    return false;
  mlirValueSetType(res, withDynamic(old, rs, ro, m));
  return true;
}

/* Ops that take a generalised memref and make a memref from it, and how
   their result type follows; any other op making a memref from one stops
   the generalisation (the nest keeps its own function). */
typedef bool (*Retype)(MlirOperation);
static const struct {
  const char *name;
  Retype retype;
} kViews[] = {{"memref.subview", retypeSubview}};

static MlirWalkResult followChanges(MlirOperation op, void *user) {
  Changed *c = user;
  bool touched = false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op) && !touched; ++i)
    touched = isChanged(c, mlirOperationGetOperand(op, i));
  if (!touched)
    return MlirWalkResultAdvance;
  bool makesMemref = false;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    makesMemref |= mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetResult(op, i)));
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); ++a)
        makesMemref |= mlirTypeIsAMemRef(mlirValueGetType(mlirBlockGetArgument(b, a)));
  if (dlcOpIs(op, "func.call") || dlcOpIs(op, "func.return")) {
    c->failed = true;
    return MlirWalkResultInterrupt;
  }
  if (!makesMemref)
    return MlirWalkResultAdvance;
  for (size_t k = 0; k < sizeof kViews / sizeof *kViews; ++k)
    if (dlcOpIs(op, kViews[k].name) && isChanged(c, mlirOperationGetOperand(op, 0)) &&
        mlirOperationGetNumResults(op) == 1 && kViews[k].retype(op)) {
      markChanged(c, mlirOperationGetResult(op, 0));
      return MlirWalkResultAdvance;
    }
  c->failed = true;
  return MlirWalkResultInterrupt;
}

/* Makes the layout parts `masks[i]` of `fn`'s argument i dynamic and
   retypes what is derived from them; false where an op is not understood
   (fn is then left half-changed: callers generalise a clone). */
static bool generalise(MlirOperation fn, const LayoutMask *masks, intptr_t numArgs) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  if (mlirBlockGetNumArguments(body) != numArgs)
    return false;
  Changed c = {0};
  MlirType *types = dlcXmalloc(sizeof *types * (size_t)(numArgs + 1));
  for (intptr_t i = 0; i < numArgs; ++i) {
    MlirValue arg = mlirBlockGetArgument(body, i);
    types[i] = mlirValueGetType(arg);
    int64_t st[kMaxRank], off;
    if (!masks[i])
      continue;
    if (!stridesOf(types[i], st, &off)) {
      c.failed = true;
      break;
    }
    types[i] = withDynamic(types[i], st, off, masks[i]);
    mlirValueSetType(arg, types[i]);
    markChanged(&c, arg);
  }
  if (!c.failed)
    mlirOperationWalk(fn, followChanges, &c, MlirWalkPreOrder);
  if (!c.failed) {
    MlirContext ctx = mlirOperationGetContext(fn);
    mlirOperationSetAttributeByName(
        fn, str("function_type"),
        mlirTypeAttrGet(mlirFunctionTypeGet(ctx, numArgs, types, 0, NULL)));
  }
  free(types);
  free(c.v);
  return !c.failed;
}

/* One outlined nest: its call (callee not yet set), its function (not
   yet in the module), the function that encloses the call, the printed
   form and the key it is grouped by (kernelKey). */
typedef struct {
  MlirOperation call, fn, parent;
  char *text, *key;
  intptr_t target; /* index into State.targets */
} Nest;

/* A function the calls end up at: a nest's own, or one generalised for
   a group (casts at the call where an argument's layout differs). */
typedef struct {
  MlirOperation fn;
  char name[128];
  bool placed;
} Target;

typedef struct {
  Nest *nests;
  intptr_t numNests, capNests;
  Target *targets;
  intptr_t numTargets, capTargets;
  int64_t made;
  MlirAttribute linkage, passthrough;
} State;

static intptr_t addTarget(State *s, MlirOperation fn) {
  if (s->numTargets == s->capTargets) {
    s->capTargets = s->capTargets ? 2 * s->capTargets : 64;
    s->targets = dlcXrealloc(s->targets, sizeof *s->targets * (size_t)s->capTargets);
  }
  s->targets[s->numTargets] = (Target){fn, "", false};
  return s->numTargets++;
}

/* Outlines `nest` (a direct child of `func`'s body) into a function of its
   own, called in its place; which function the call ends at is decided
   once every nest is outlined (run). */
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

  char *text = dlcOperationToString(fn, false);
  if (s->numNests == s->capNests) {
    s->capNests = s->capNests ? 2 * s->capNests : 64;
    s->nests = dlcXrealloc(s->nests, sizeof *s->nests * (size_t)s->capNests);
  }
  s->nests[s->numNests++] = (Nest){call, fn, func, dupString(text), kernelKey(text), -1};
  dlcStringFree(text);
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

/* Nests printing the same share the first one's function. */
static void shareExact(State *s, const intptr_t *members, intptr_t n) {
  for (intptr_t i = 0; i < n; ++i) {
    Nest *m = &s->nests[members[i]];
    for (intptr_t j = 0; j < i && m->target < 0; ++j) {
      Nest *o = &s->nests[members[j]];
      if (strcmp(o->text, m->text) == 0) {
        m->target = o->target;
        mlirOperationDestroy(m->fn);
      }
    }
    if (m->target < 0)
      m->target = addTarget(s, m->fn);
  }
}

/* The nests of one key (in order): one function for all that print the
   same once the layout parts that differ between them are dynamic;
   exact sharing for the rest, and for all when they print the same
   already (then nothing is generalised and the code is as before). */
static void resolveGroup(State *s, intptr_t *members, intptr_t n) {
  Nest *head = &s->nests[members[0]];
  bool distinct = false;
  for (intptr_t i = 1; i < n && !distinct; ++i)
    distinct = strcmp(s->nests[members[i]].text, head->text) != 0;
  MlirBlock hb = mlirRegionGetFirstBlock(mlirOperationGetRegion(head->fn, 0));
  intptr_t numArgs = mlirBlockGetNumArguments(hb);
  LayoutMask *masks = dlcXcalloc((size_t)numArgs + 1, sizeof *masks);
  for (intptr_t i = 1; i < n && distinct; ++i) {
    MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(s->nests[members[i]].fn, 0));
    if (mlirBlockGetNumArguments(b) != numArgs) {
      distinct = false; /* cannot happen with equal keys; share exactly */
      break;
    }
    for (intptr_t a = 0; a < numArgs; ++a)
      masks[a] |= layoutDiff(mlirValueGetType(mlirBlockGetArgument(hb, a)),
                             mlirValueGetType(mlirBlockGetArgument(b, a)));
  }
  MlirOperation g = {NULL};
  char *gtext = NULL;
  if (distinct) {
    g = mlirOperationClone(head->fn);
    if (generalise(g, masks, numArgs))
      gtext = dlcOperationToString(g, false);
  }
  /* Who prints as the generalised head: joined[i]. */
  bool *joined = dlcXcalloc((size_t)n, sizeof *joined);
  intptr_t variants = 0; /* distinct printed forms among those joining */
  for (intptr_t i = 0; i < n && gtext; ++i) {
    Nest *m = &s->nests[members[i]];
    bool seen = false;
    for (intptr_t j = 0; j < i && !seen; ++j)
      seen = joined[j] && strcmp(s->nests[members[j]].text, m->text) == 0;
    if (seen || i == 0) {
      joined[i] = true;
      variants += !seen;
      continue;
    }
    MlirOperation gm = mlirOperationClone(m->fn);
    if (generalise(gm, masks, numArgs)) {
      char *t = dlcOperationToString(gm, false);
      joined[i] = strcmp(t, gtext) == 0;
      variants += joined[i];
      dlcStringFree(t);
    }
    mlirOperationDestroy(gm);
  }
  intptr_t *rest = dlcXmalloc(sizeof *rest * (size_t)n), numRest = 0;
  if (variants > 1) {
    intptr_t t = addTarget(s, g);
    for (intptr_t i = 0; i < n; ++i) {
      Nest *m = &s->nests[members[i]];
      if (joined[i]) {
        m->target = t;
        mlirOperationDestroy(m->fn);
      } else {
        rest[numRest++] = members[i];
      }
    }
  } else {
    if (!mlirOperationIsNull(g))
      mlirOperationDestroy(g);
    memcpy(rest, members, sizeof *rest * (size_t)n);
    numRest = n;
  }
  shareExact(s, rest, numRest);
  if (gtext)
    dlcStringFree(gtext);
  free(rest);
  free(joined);
  free(masks);
}

/* The call to its target: the target placed and named on first use
   (after the function holding the call, as each nest was before), and a
   memref.cast to the target's layout where an argument's differs. */
static void bindCall(State *s, Nest *n) {
  Target *t = &s->targets[n->target];
  MlirContext ctx = mlirOperationGetContext(n->call);
  if (!t->placed) {
    MlirStringRef parent =
        mlirStringAttrGetValue(mlirOperationGetAttributeByName(n->parent, str("sym_name")));
    snprintf(t->name, sizeof t->name, "%.*s_nest%lld", (int)parent.length, parent.data,
             (long long)s->made++);
    mlirOperationSetAttributeByName(t->fn, str("sym_name"), mlirStringAttrGet(ctx, str(t->name)));
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(n->parent), n->parent, t->fn);
    t->placed = true;
  }
  mlirOperationSetAttributeByName(n->call, str("callee"),
                                  mlirFlatSymbolRefAttrGet(ctx, str(t->name)));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(t->fn, 0));
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(n->call); ++i) {
    MlirValue v = mlirOperationGetOperand(n->call, i);
    MlirType want = mlirValueGetType(mlirBlockGetArgument(body, i));
    if (mlirTypeEqual(mlirValueGetType(v), want))
      continue;
    MlirOperationState cs = mlirOperationStateGet(str("memref.cast"),
                                                  mlirOperationGetLocation(n->call));
    mlirOperationStateAddOperands(&cs, 1, &v);
    mlirOperationStateAddResults(&cs, 1, &want);
    MlirOperation cast = mlirOperationCreate(&cs);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(n->call), n->call, cast);
    mlirOperationSetOperand(n->call, i, mlirOperationGetResult(cast, 0));
  }
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

  /* Groups by key, members in nest order (a linked list through next). */
  Table keys = {0};
  intptr_t *next = dlcXmalloc(sizeof *next * (size_t)(s.numNests + 1));
  intptr_t *last = dlcXmalloc(sizeof *last * (size_t)(s.numNests + 1));
  for (intptr_t i = 0; i < s.numNests; ++i) {
    Entry *e = lookup(&keys, s.nests[i].key);
    next[i] = -1;
    if (e->value < 0) {
      e->value = i; /* the head */
      last[i] = i;
    } else {
      next[last[e->value]] = i;
      last[e->value] = i;
    }
  }
  intptr_t *members = dlcXmalloc(sizeof *members * (size_t)(s.numNests + 1));
  for (intptr_t i = 0; i < s.numNests; ++i) {
    if (s.nests[i].target >= 0)
      continue;
    intptr_t n = 0;
    for (intptr_t j = i; j >= 0; j = next[j])
      members[n++] = j;
    resolveGroup(&s, members, n);
  }
  for (intptr_t i = 0; i < s.numNests; ++i)
    bindCall(&s, &s.nests[i]);

  for (intptr_t i = 0; i < s.numNests; ++i) {
    free(s.nests[i].text);
    free(s.nests[i].key);
  }
  free(members);
  free(next);
  free(last);
  tableFree(&keys);
  free(s.nests);
  free(s.targets);
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcKernelDedupPass = {
    .argument = "dlc-kernel-dedup",
    .summary = "Outline each loop nest at the top of a function into a private noinline "
               "function; structurally identical nests share one",
    .anchor = "builtin.module",
    .run = run,
};
