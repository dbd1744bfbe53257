/* Cutting an LLVM-dialect module into parts compiled apart (jit.h).

   dlc's kernels are functions of their own (`noinline`, called by the
   entry), so a module splits along functions: each function is defined in
   exactly one part and declared in the others, and the parts are balanced
   by operation count (longest first onto the lightest part), not dealt
   round-robin: one DenseNet kernel can outweigh a hundred small ones.

   Symbols with local linkage that another part may reach (functions, and
   globals that are written or whose initializer takes addresses), and
   those LLVM may drop where unused (linkonce, weak), are defined once and
   listed as `exported`: jit_engine.c makes them external with hidden
   visibility after translation, so the parts link to each other (the part
   defining one need not use it) and nothing leaks to the process. Constant local globals (MLIR's
   constant tables) are copied into every part that reads them and stay
   local, so each part can still fold loads from them.

   The same rules hold for one part (the module itself, nothing copied):
   a kernel's code then does not depend on how many parts there are, so 1
   and N compile threads give the same machine code per kernel. */

#include "jit.h"
#include "Entry.h"
#include "shape/Checked.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef enum {
  FUNC_DEF,   /* a function with a body: defined in one part, declared in the rest */
  FUNC_DECL,  /* a declaration: copied into every part */
  GLOBAL_DUP, /* a local constant global: copied into the parts that read it */
  GLOBAL_ONE, /* any other global: defined in one part, declared in the rest */
  OTHER,      /* no symbol (module flags and the like): copied into every part */
} Kind;

typedef struct {
  MlirOperation op;
  Kind kind;
  MlirStringRef name;
  bool local;    /* private or internal linkage */
  bool exported; /* defined once and reached from other parts: local, or
                    discardable when unused (linkonce, weak: MLIR's
                    __mlir_math_ipowi_* helpers are linkonce_odr) */
  long ops;   /* FUNC_DEF: its operations */
  int part;   /* FUNC_DEF, GLOBAL_ONE: the part defining it */
  uint64_t usedBy; /* globals: the parts whose code takes their address */
  int *refs;  /* the globals this function or initializer takes the address of */
  size_t numRefs, capRefs;
} Item;

/* Globals by name: open addressing over a power-of-two table. */
typedef struct {
  int *slots; /* item index + 1, 0 when empty */
  size_t mask;
} Names;

static size_t hashName(MlirStringRef s) {
  size_t h = 1469598103934665603u;
  for (size_t i = 0; i < s.length; ++i)
    h = (h ^ (unsigned char)s.data[i]) * 1099511628211u;
  return h;
}

static void namesInit(Names *t, size_t n) {
  size_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  t->slots = dlcXcalloc(cap, sizeof *t->slots);
  t->mask = cap - 1;
}

static void namesPut(Names *t, const Item *items, int index) {
  size_t h = hashName(items[index].name) & t->mask;
  while (t->slots[h])
    h = (h + 1) & t->mask;
  t->slots[h] = index + 1;
}

static int namesGet(const Names *t, const Item *items, MlirStringRef name) {
  for (size_t h = hashName(name) & t->mask; t->slots[h]; h = (h + 1) & t->mask)
    if (mlirStringRefEqual(items[t->slots[h] - 1].name, name))
      return t->slots[h] - 1;
  return -1;
}

/* What a walk over one function or initializer collects. */
typedef struct {
  MlirIdentifier addressOf;
  const Names *globals;
  const Item *items;
  Item *item;
  long ops;
} Walk;

static void addRef(Item *it, int g) {
  for (size_t i = 0; i < it->numRefs; ++i)
    if (it->refs[i] == g)
      return;
  if (it->numRefs == it->capRefs) {
    it->capRefs = it->capRefs ? 2 * it->capRefs : 4;
    it->refs = dlcXrealloc(it->refs, sizeof *it->refs * it->capRefs);
  }
  it->refs[it->numRefs++] = g;
}

static MlirWalkResult visit(MlirOperation op, void *data) {
  Walk *w = data;
  ++w->ops;
  /* Only llvm.mlir.addressof names a global in the LLVM dialect; calls
     need no record, since every part declares every function. */
  if (mlirIdentifierEqual(mlirOperationGetName(op), w->addressOf)) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, str("global_name"));
    int g = !mlirAttributeIsNull(a) && mlirAttributeIsAFlatSymbolRef(a)
                ? namesGet(w->globals, w->items, mlirFlatSymbolRefAttrGetValue(a))
                : -1;
    if (g >= 0)
      addRef(w->item, g);
  }
  return MlirWalkResultAdvance;
}

static long walkItem(Item *items, int i, const Names *globals, MlirIdentifier addressOf) {
  Walk w = {addressOf, globals, items, &items[i], 0};
  mlirOperationWalk(items[i].op, visit, &w, MlirWalkPreOrder);
  return w.ops;
}

/* A declaration of function or global `op`: its attributes but for the
   linkage (external), visibility and initial value, and an empty region. */
static MlirOperation declaration(MlirOperation op, MlirAttribute external) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirOperationState st =
      mlirOperationStateGet(mlirIdentifierStr(mlirOperationGetName(op)), mlirOperationGetLocation(op));
  intptr_t n = mlirOperationGetNumAttributes(op), k = 0;
  MlirNamedAttribute *attrs = dlcXmalloc(sizeof *attrs * (size_t)(n + 1));
  static const char *const kDropped[] = {"linkage", "sym_visibility", "value", "visibility_"};
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    bool drop = false;
    for (size_t d = 0; d < sizeof kDropped / sizeof *kDropped && !drop; ++d)
      drop = mlirStringRefEqual(mlirIdentifierStr(a.name), str(kDropped[d]));
    if (!drop)
      attrs[k++] = a;
  }
  attrs[k++] = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("linkage")), external);
  mlirOperationStateAddAttributes(&st, k, attrs);
  MlirRegion r = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  MlirOperation decl = mlirOperationCreate(&st);
  free(attrs);
  return decl;
}

static void addExported(DlcJitPart *p, MlirStringRef name) {
  p->exported = dlcXrealloc(p->exported, sizeof *p->exported * (p->numExported + 1));
  p->exported[p->numExported++] = dlcFormat("%.*s", (int)name.length, name.data);
}

/* Functions by size, largest first; equal sizes in module order, so the
   split is the same on every run. */
static const Item *gItems;
static int bySize(const void *a, const void *b) {
  const Item *x = &gItems[*(const int *)a], *y = &gItems[*(const int *)b];
  if (x->ops != y->ops)
    return x->ops > y->ops ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

void dlcJitPartsDestroy(DlcJitPart *parts, int numParts) {
  for (int k = 0; parts && k < numParts; ++k) {
    if (parts[k].owned && !mlirModuleIsNull(parts[k].module))
      mlirModuleDestroy(parts[k].module);
    for (size_t i = 0; i < parts[k].numExported; ++i)
      free(parts[k].exported[i]);
    free(parts[k].exported);
  }
  free(parts);
}

char *dlcJitSplit(MlirModule module, const char *entry, int maxParts, DlcJitPart **partsOut,
                  int *numPartsOut) {
  MlirContext ctx = mlirModuleGetContext(module);
  MlirBlock body = mlirModuleGetBody(module);
  MlirIdentifier idFunc = mlirIdentifierGet(ctx, str("llvm.func"));
  MlirIdentifier idGlobal = mlirIdentifierGet(ctx, str("llvm.mlir.global"));
  MlirIdentifier idAddressOf = mlirIdentifierGet(ctx, str("llvm.mlir.addressof"));
  MlirAttribute linkPrivate = mlirLLVMLinkageAttrGet(ctx, MlirLLVMLinkagePrivate);
  MlirAttribute linkInternal = mlirLLVMLinkageAttrGet(ctx, MlirLLVMLinkageInternal);
  MlirAttribute linkExternal = mlirLLVMLinkageAttrGet(ctx, MlirLLVMLinkageExternal);
  static const MlirLLVMLinkage kDiscardable[] = {MlirLLVMLinkageLinkonce,
                                                 MlirLLVMLinkageLinkonceODR,
                                                 MlirLLVMLinkageWeak, MlirLLVMLinkageWeakODR};

  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++n;
  Item *items = dlcXcalloc(n + 1, sizeof *items);
  Names globals;
  namesInit(&globals, n);
  bool splittable = true;
  int numDefs = 0, entryItem = -1;
  size_t i = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++i) {
    Item *it = &items[i];
    it->op = op;
    MlirIdentifier name = mlirOperationGetName(op);
    MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym))
      it->name = mlirStringAttrGetValue(sym);
    MlirAttribute linkage = mlirOperationGetAttributeByName(op, str("linkage"));
    it->local = !mlirAttributeIsNull(linkage) && (mlirAttributeEqual(linkage, linkPrivate) ||
                                                  mlirAttributeEqual(linkage, linkInternal));
    it->exported = it->local;
    for (size_t d = 0; d < sizeof kDiscardable / sizeof *kDiscardable; ++d)
      it->exported |= !mlirAttributeIsNull(linkage) &&
                      mlirAttributeEqual(linkage, mlirLLVMLinkageAttrGet(ctx, kDiscardable[d]));
    if (mlirIdentifierEqual(name, idFunc)) {
      bool defined = !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
      it->kind = defined ? FUNC_DEF : FUNC_DECL;
      numDefs += defined;
      if (defined && mlirStringRefEqual(it->name, str(entry)))
        entryItem = (int)i;
    } else if (mlirIdentifierEqual(name, idGlobal)) {
      it->kind = GLOBAL_ONE;
      namesPut(&globals, items, (int)i);
    } else {
      it->kind = OTHER;
      /* aliases, comdats, ifuncs: symbols this split does not place */
      splittable &= mlirAttributeIsNull(sym);
    }
  }
  /* A local constant global whose initializer takes no address can be
     copied; the rest have one definition. */
  for (i = 0; i < n; ++i)
    if (items[i].kind == GLOBAL_ONE) {
      walkItem(items, (int)i, &globals, idAddressOf);
      if (items[i].local && items[i].numRefs == 0 &&
          !mlirAttributeIsNull(mlirOperationGetAttributeByName(items[i].op, str("constant"))))
        items[i].kind = GLOBAL_DUP;
    }

  int numParts = maxParts < numDefs ? maxParts : numDefs;
  if (numParts > 64)
    numParts = 64; /* usedBy is a 64-bit set */
  DlcJitPart *parts;
  if (numParts < 2 || !splittable) {
    /* One part: the module itself, with the same symbols made external. */
    parts = dlcXcalloc(1, sizeof *parts);
    parts[0].module = module;
    parts[0].hasEntry = true;
    for (i = 0; i < n; ++i)
      if (items[i].exported && (items[i].kind == FUNC_DEF || items[i].kind == GLOBAL_ONE))
        addExported(&parts[0], items[i].name);
    numParts = 1;
  } else {
    int *defs = dlcXmalloc(sizeof *defs * (size_t)numDefs), d = 0;
    for (i = 0; i < n; ++i)
      if (items[i].kind == FUNC_DEF) {
        items[i].ops = walkItem(items, (int)i, &globals, idAddressOf);
        defs[d++] = (int)i;
      }
    gItems = items;
    qsort(defs, (size_t)numDefs, sizeof *defs, bySize);
    parts = dlcXcalloc((size_t)numParts, sizeof *parts);
    for (d = 0; d < numDefs; ++d) {
      int lightest = 0;
      for (int k = 1; k < numParts; ++k)
        if (parts[k].ops < parts[lightest].ops)
          lightest = k;
      Item *f = &items[defs[d]];
      f->part = lightest;
      parts[lightest].ops += f->ops;
      for (size_t r = 0; r < f->numRefs; ++r)
        items[f->refs[r]].usedBy |= UINT64_C(1) << lightest;
    }
    free(defs);
    /* A global defined once lives with its first reader; what its
       initializer takes the address of must be there too. */
    for (i = 0; i < n; ++i)
      if (items[i].kind == GLOBAL_ONE) {
        int k = 0;
        while (k < numParts && !(items[i].usedBy >> k & 1))
          ++k;
        items[i].part = k < numParts ? k : 0;
        for (size_t r = 0; r < items[i].numRefs; ++r)
          items[items[i].refs[r]].usedBy |= UINT64_C(1) << items[i].part;
      }
    MlirOperation mod = mlirModuleGetOperation(module);
    MlirBlock *bodies = dlcXmalloc(sizeof *bodies * (size_t)numParts);
    for (int k = 0; k < numParts; ++k) {
      parts[k].module = mlirModuleCreateEmpty(mlirOperationGetLocation(mod));
      parts[k].owned = true;
      bodies[k] = mlirModuleGetBody(parts[k].module);
      MlirOperation pm = mlirModuleGetOperation(parts[k].module);
      for (intptr_t a = 0; a < mlirOperationGetNumDiscardableAttributes(mod); ++a) {
        MlirNamedAttribute na = mlirOperationGetDiscardableAttribute(mod, a);
        mlirOperationSetDiscardableAttributeByName(pm, mlirIdentifierStr(na.name), na.attribute);
      }
    }
    for (i = 0; i < n; ++i) {
      Item *it = &items[i];
      switch (it->kind) {
      case FUNC_DEF:
      case GLOBAL_ONE:
        for (int k = 0; k < numParts; ++k)
          if (k != it->part)
            mlirBlockAppendOwnedOperation(bodies[k], declaration(it->op, linkExternal));
        if (it->exported)
          addExported(&parts[it->part], it->name);
        parts[it->part].hasEntry |= (int)i == entryItem;
        mlirOperationRemoveFromParent(it->op); /* moved, not copied */
        mlirBlockAppendOwnedOperation(bodies[it->part], it->op);
        break;
      case GLOBAL_DUP:
        for (int k = 0; k < numParts; ++k)
          if (it->usedBy >> k & 1 || (k == 0 && !it->usedBy))
            mlirBlockAppendOwnedOperation(bodies[k], mlirOperationClone(it->op));
        break;
      case FUNC_DECL:
      case OTHER:
        for (int k = 0; k < numParts; ++k)
          mlirBlockAppendOwnedOperation(bodies[k], mlirOperationClone(it->op));
        break;
      }
    }
    free(bodies);
  }
  for (i = 0; i < n; ++i)
    free(items[i].refs);
  free(items);
  free(globals.slots);
  if (entryItem < 0) {
    dlcJitPartsDestroy(parts, numParts);
    return dlcFormat("the compiled module has no entry '%s'", entry);
  }
  *partsOut = parts;
  *numPartsOut = numParts;
  return NULL;
}
