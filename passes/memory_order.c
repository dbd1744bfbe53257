/* --dlc-memory-order: a graph order that keeps fewer temporaries alive, for
   the arena of --dlc-memory-plan to be smaller.

   Bufferization allocates each result where its op stands and frees it
   after its last user, so an op computed long before its first user (an
   exporter's order: BERT's V projection before the attention scores that
   do not need it, a shortcut branch before the main one) holds its result
   through everything in between. This pass moves such an op down to just
   before its first user when that cannot lengthen another lifetime: each
   of its operands is a function argument, a constant, or used again at or
   after that first user anyway. The result then lives over fewer ops and
   nothing lives longer, so no point of the program holds more bytes than
   before (an op's own scratch moves with it).

   It runs on graph ops (dlg and dlk, after dlg-fuse), which have no side
   effects; a function holding any other op (but its return) is left as
   it is. Ops are visited bottom-up, so an op moves below users that moved
   down first. */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include <string.h>

static bool inGraphDialect(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return (n.length > 4 && !memcmp(n.data, "dlg.", 4)) || (n.length > 4 && !memcmp(n.data, "dlk.", 4));
}

static intptr_t indexOf(const DlcOpList *ops, MlirOperation op) {
  for (intptr_t i = 0; i < ops->n; ++i)
    if (mlirOperationEqual(ops->ops[i], op))
      return i;
  return -1;
}

/* The position of `user`'s ancestor among `ops`, -1 if none (the return). */
static intptr_t positionOf(const DlcOpList *ops, MlirBlock body, MlirOperation user) {
  while (!mlirOperationIsNull(user) && !mlirBlockEqual(mlirOperationGetBlock(user), body))
    user = mlirOperationGetParentOperation(user);
  return mlirOperationIsNull(user) ? -1 : indexOf(ops, user);
}

/* The first top-level position using a result of ops[i] (the return: n). */
static intptr_t firstUser(const DlcOpList *ops, MlirBlock body, intptr_t i) {
  MlirOperation op = ops->ops[i];
  intptr_t first = -1;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      intptr_t at = positionOf(ops, body, mlirOpOperandGetOwner(u));
      if (at < 0)
        at = ops->n;
      if (first < 0 || at < first)
        first = at;
    }
  return first;
}

/* Whether `v`, an operand of ops[i], stays alive up to position `until`
   whether or not ops[i] moves there: an argument, a constant, or a value
   some other op uses at or after `until`. */
static bool liveAnyway(const DlcOpList *ops, MlirBlock body, MlirValue v, intptr_t i,
                       intptr_t until) {
  if (mlirValueIsABlockArgument(v))
    return true;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (dlcOpIs(def, "dlg.constant") || mlirOperationGetNumOperands(def) == 0)
    return true;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    intptr_t at = positionOf(ops, body, mlirOpOperandGetOwner(u));
    if (at < 0 || (at != i && at >= until))
      return true;
  }
  return false;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  (void)state;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(body)))
    return (MlirLogicalResult){1};
  DlcOpList ops = {NULL, 0, 0};
  MlirOperation term = mlirBlockGetTerminator(body);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!mlirOperationIsNull(term) && mlirOperationEqual(op, term))
      break;
    if (!inGraphDialect(op)) { /* effects unknown: keep the order */
      dlcOpListFree(&ops);
      return (MlirLogicalResult){1};
    }
    dlcOpListPush(&ops, op);
  }
  uint64_t moved = 0;
  for (intptr_t i = ops.n - 1; i >= 0; --i) {
    MlirOperation op = ops.ops[i];
    if (mlirOperationGetNumOperands(op) == 0 || mlirOperationGetNumResults(op) == 0)
      continue;
    /* dlg.if / dlg.while read values from above that are not their
       operands: moving one down could lengthen those lifetimes. */
    if (dlcOpIs(op, "dlg.if") || dlcOpIs(op, "dlg.while"))
      continue;
    intptr_t first = firstUser(&ops, body, i);
    if (first <= i + 1)
      continue;
    bool ok = true;
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op) && ok; ++k)
      ok = liveAnyway(&ops, body, mlirOperationGetOperand(op, k), i, first);
    if (!ok)
      continue;
    /* Move before ops[first] (or the return), keeping `ops` in block order. */
    mlirOperationMoveBefore(op, first < ops.n ? ops.ops[first] : term);
    memmove(&ops.ops[i], &ops.ops[i + 1], sizeof *ops.ops * (size_t)(first - 1 - i));
    ops.ops[first - 1] = op;
    ++moved;
  }
  dlcOpListFree(&ops);
  dlcPassAddStatistic(pass, "moved", moved);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStatistics[] = {
    {"moved", "Graph ops moved down to just before their first user"},
};

const DlcPassDescriptor dlcMemoryOrderPass = {
    .argument = "dlc-memory-order",
    .summary = "Move graph ops down to just before their first user where that lengthens no "
               "other lifetime, so fewer temporaries are alive at once",
    .anchor = "func.func",
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
