/* A growable array of ops, for passes that collect ops during a walk and
   rewrite them afterwards (rewriting while walking would invalidate it). */

#ifndef DLC_PASSES_SUPPORT_OP_LIST_H
#define DLC_PASSES_SUPPORT_OP_LIST_H

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

#endif
