/* dlc-order-globals: the constants bufferization made, in a reproducible
   order and with reproducible names.

   MLIR 22's one-shot-bufferize turns each tensor constant into a
   `memref.global "private" constant @__constant_<type>`, uniquing names
   with `_0`, `_1`, ... suffixes. With several functions holding constants,
   the order in which it creates them (and so which one gets which suffix)
   changes from run to run, even single-threaded: the same input gave a
   different `--lower-to-llvm` output each time, and builds were not
   reproducible byte for byte. This pass, run right after bufferization,
   puts those globals in the order of their first use (a pre-order walk of
   the module, which is deterministic) and renames them in that order:
   the first of a type keeps the plain name, the next ones `_0`, `_1`...,
   as bufferization's own scheme would have on a single function.

   Only `__constant_` globals are touched; their only users at this point
   are `memref.get_global` ops, which are rewritten directly (one walk,
   not one symbol-table walk per global). A use of the old name anywhere
   else would fail verification, not miscompile. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdio.h>
#include <string.h>

static const char kPrefix[] = "__constant_";

typedef struct Global {
  MlirOperation op;
  MlirStringRef name; /* the name bufferization gave, while renaming runs */
  intptr_t firstUse;  /* rank of its first memref.get_global; unused last */
  char *newName;
} Global;

typedef struct Collect {
  Global *globals; /* sorted by name, for lookup */
  intptr_t n, ranked;
  DlcOpList uses; /* every memref.get_global of one of them */
} Collect;

static int cmpRef(MlirStringRef a, MlirStringRef b) {
  size_t n = a.length < b.length ? a.length : b.length;
  int c = memcmp(a.data, b.data, n);
  return c ? c : (a.length > b.length) - (a.length < b.length);
}

static int byName(const void *a, const void *b) {
  return cmpRef(((const Global *)a)->name, ((const Global *)b)->name);
}

static int byFirstUse(const void *a, const void *b) {
  intptr_t x = (*(Global *const *)a)->firstUse, y = (*(Global *const *)b)->firstUse;
  return (x > y) - (x < y);
}

static MlirStringRef symName(MlirOperation op, const char *attr) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(attr));
  if (mlirAttributeIsAFlatSymbolRef(a))
    return mlirFlatSymbolRefAttrGetValue(a);
  if (mlirAttributeIsAString(a))
    return mlirStringAttrGetValue(a);
  return (MlirStringRef){NULL, 0};
}

static Global *lookup(Collect *c, MlirStringRef name) {
  Global key = {.name = name};
  return bsearch(&key, c->globals, (size_t)c->n, sizeof key, byName);
}

static MlirWalkResult rankUse(MlirOperation op, void *userData) {
  Collect *c = userData;
  if (!dlcOpIs(op, "memref.get_global"))
    return MlirWalkResultAdvance;
  Global *g = lookup(c, symName(op, "name"));
  if (!g)
    return MlirWalkResultAdvance;
  if (g->firstUse < 0)
    g->firstUse = c->ranked++;
  dlcOpListPush(&c->uses, op);
  return MlirWalkResultAdvance;
}

/* The name without bufferization's `_N` uniquing suffix. Its names end in
   an element type (`f32`, `i1`...), so a trailing `_digits` is always the
   suffix. */
static size_t baseLength(MlirStringRef name) {
  size_t end = name.length;
  while (end > 0 && name.data[end - 1] >= '0' && name.data[end - 1] <= '9')
    --end;
  if (end < name.length && end > 0 && name.data[end - 1] == '_')
    return end - 1;
  return name.length;
}

static MlirAttribute nameAttr(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  MlirContext ctx = mlirOperationGetContext(module);
  DlcOpList all = dlcOpListOfModule(module, "memref.global");
  Collect c = {.globals = dlcXmalloc(sizeof(Global) * (size_t)(all.n ? all.n : 1))};
  for (intptr_t i = 0; i < all.n; ++i) {
    MlirStringRef name = symName(all.ops[i], "sym_name");
    if (name.length > sizeof kPrefix - 1 && memcmp(name.data, kPrefix, sizeof kPrefix - 1) == 0)
      c.globals[c.n++] = (Global){all.ops[i], name, -1, NULL};
  }
  dlcOpListFree(&all);
  if (c.n < 2) { /* one constant cannot be out of order */
    free(c.globals);
    return (MlirLogicalResult){1};
  }
  qsort(c.globals, (size_t)c.n, sizeof *c.globals, byName);
  mlirOperationWalk(module, rankUse, &c, MlirWalkPreOrder);
  for (intptr_t i = 0; i < c.n; ++i) /* unused ones last, by their old name */
    if (c.globals[i].firstUse < 0)
      c.globals[i].firstUse = c.ranked + i;

  /* New names, decided before anything changes: each use still names its
     global by the old name, which the sorted table finds. */
  Global **ordered = dlcXmalloc(sizeof(Global *) * (size_t)c.n);
  for (intptr_t i = 0; i < c.n; ++i)
    ordered[i] = &c.globals[i];
  qsort(ordered, (size_t)c.n, sizeof *ordered, byFirstUse);
  for (intptr_t i = 0; i < c.n; ++i) {
    MlirStringRef name = ordered[i]->name;
    size_t base = baseLength(name);
    intptr_t same = 0; /* earlier globals with this base name */
    for (intptr_t j = 0; j < i; ++j)
      same += baseLength(ordered[j]->name) == base &&
              memcmp(ordered[j]->name.data, name.data, base) == 0;
    size_t size = base + 24;
    ordered[i]->newName = dlcXmalloc(size);
    if (same == 0)
      snprintf(ordered[i]->newName, size, "%.*s", (int)base, name.data);
    else
      snprintf(ordered[i]->newName, size, "%.*s_%ld", (int)base, name.data, (long)(same - 1));
  }
  for (intptr_t u = 0; u < c.uses.n; ++u)
    mlirOperationSetAttributeByName(
        c.uses.ops[u], mlirStringRefCreateFromCString("name"),
        mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(
                                          lookup(&c, symName(c.uses.ops[u], "name"))->newName)));
  /* Renamed and moved last: the lookups above read the old names. Each
     global goes right after the previous one, starting where the first of
     them stood. */
  MlirOperation anchor = {NULL};
  for (intptr_t i = 0; i < c.n; ++i)
    if (!anchor.ptr || mlirOperationIsBeforeInBlock(c.globals[i].op, anchor))
      anchor = c.globals[i].op;
  for (intptr_t i = 0; i < c.n; ++i) {
    mlirOperationSetAttributeByName(ordered[i]->op, mlirStringRefCreateFromCString("sym_name"),
                                    nameAttr(ctx, ordered[i]->newName));
    if (i == 0) {
      if (!mlirOperationEqual(ordered[0]->op, anchor))
        mlirOperationMoveBefore(ordered[0]->op, anchor);
    } else {
      mlirOperationMoveAfter(ordered[i]->op, ordered[i - 1]->op);
    }
  }
  for (intptr_t i = 0; i < c.n; ++i)
    free(c.globals[i].newName);
  free(ordered);
  free(c.globals);
  dlcOpListFree(&c.uses);
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcOrderGlobalsPass = {
    .argument = "dlc-order-globals",
    .summary = "Order bufferization's constant globals by first use and name them in that "
               "order, so the output is the same on every run",
    .anchor = "builtin.module",
    .run = run,
};
