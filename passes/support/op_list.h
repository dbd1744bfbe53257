/* A growable array of ops, for passes that collect ops during a walk and
   rewrite them afterwards (rewriting while walking would invalidate it). */

#ifndef DLC_PASSES_SUPPORT_OP_LIST_H
#define DLC_PASSES_SUPPORT_OP_LIST_H

#include "dlc-c/Builder.h"
#include "mlir-c/IR.h"
#include "shape/Checked.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct DlcOpList {
  MlirOperation *ops;
  intptr_t n, cap;
} DlcOpList;

static inline void dlcOpListPush(DlcOpList *l, MlirOperation op) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 32;
    l->ops = dlcXrealloc(l->ops, sizeof *l->ops * (size_t)l->cap);
  }
  l->ops[l->n++] = op;
}

static inline void dlcOpListFree(DlcOpList *l) {
  free(l->ops);
  *l = (DlcOpList){NULL, 0, 0};
}

/* The ops named `name` directly in `module`'s body, collected first, so
   the caller may add ops there (outlined functions) while visiting them. */
static inline DlcOpList dlcOpListOfModule(MlirOperation module, const char *name) {
  DlcOpList l = {0};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (dlcOpIs(op, name))
      dlcOpListPush(&l, op);
  return l;
}

typedef struct DlcOpNameWalk {
  DlcOpList *list;
  const char *name;
} DlcOpNameWalk;

static inline MlirWalkResult dlcOpListCollectNamed(MlirOperation op, void *user) {
  DlcOpNameWalk *w = user;
  if (dlcOpIs(op, w->name))
    dlcOpListPush(w->list, op);
  return MlirWalkResultAdvance;
}

/* The ops named `name` in `root` (itself included), in pre-order. */
static inline DlcOpList dlcOpListOfWalk(MlirOperation root, const char *name) {
  DlcOpList l = {0};
  DlcOpNameWalk w = {&l, name};
  mlirOperationWalk(root, dlcOpListCollectNamed, &w, MlirWalkPreOrder);
  return l;
}

#endif
