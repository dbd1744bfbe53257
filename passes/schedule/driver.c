/* The schedule passes' shared driver (driver.h). */

#include "schedule/driver.h"

#include "dlc-c/Builder.h"
#include "schedule/normalize.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Transform.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdlib.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool inList(const MlirOperation *ops, intptr_t n, MlirOperation op) {
  for (intptr_t i = 0; i < n; ++i)
    if (mlirOperationEqual(ops[i], op))
      return true;
  return false;
}

static bool allUsesIn(MlirOperation op, const MlirOperation *group, intptr_t n) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      if (!inList(group, n, mlirOpOperandGetOwner(u)))
        return false;
  return true;
}

/* The backend's reading of `op`, refused for an empty loop: an op with a
   zero extent (a matmul whose K is 0: its result is its initial value) has
   nothing to tile or vectorise, and transform.structured tiling divides by
   that extent (SEGV in linalg::computeTileSizes, found by an ONNX mutation
   campaign; the CPU and the GPU schedule alike). Its group stays a plain
   loop nest, every loop of which runs zero times or over the fill. */
static bool readOp(const DlcScheduleBackend *b, MlirOperation op, DlcLinalgInfo *info) {
  if (!b->read(op, info))
    return false;
  for (int d = 0; d < info->loops.numLoops; ++d)
    if (info->loops.extent[d] == 0)
      return false;
  return true;
}

static bool hasGemmRoot(const DlcScheduleBackend *b, const DlcOpList *group) {
  DlcLinalgInfo info;
  for (intptr_t i = 0; i < group->n; ++i)
    if (readOp(b, group->ops[i], &info) && dlcIsGemmRoot(&info))
      return true;
  return false;
}

/* Groups form from the last op up: each op not yet taken is a sink, and
   takes every earlier op whose uses are all in its group. */
static void scheduleFunc(DlcScheduleState *st, MlirOperation func) {
  const DlcScheduleBackend *b = st->backend;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body))
    return;
  DlcOpList all = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (dlcIsLinalg(op))
      dlcOpListPush(&all, op);
  bool *taken = dlcXcalloc(all.n ? all.n : 1, sizeof *taken);
  DlcOpList *groups = dlcXcalloc(all.n ? all.n : 1, sizeof *groups);
  int numGroups = 0, primary = -1;
  for (intptr_t i = all.n - 1; i >= 0; --i) {
    if (taken[i])
      continue;
    DlcOpList *group = &groups[numGroups++];
    dlcOpListPush(group, all.ops[i]);
    taken[i] = true;
    for (intptr_t j = i - 1; j >= 0; --j)
      if (!taken[j] && allUsesIn(all.ops[j], group->ops, group->n) &&
          !(b->splitOff && b->splitOff(all.ops[j], group->ops, (int)group->n))) {
        dlcOpListPush(group, all.ops[j]);
        taken[j] = true;
      }
    /* the group holds its sink first; backends want program order */
    for (intptr_t x = 0, y = group->n - 1; x < y; ++x, --y) {
      MlirOperation t = group->ops[x];
      group->ops[x] = group->ops[y];
      group->ops[y] = t;
    }
    if (primary < 0 && hasGemmRoot(b, group))
      primary = numGroups - 1;
  }
  for (int gi = 0; gi < numGroups && !(b->stopAtFirstError && st->failed); ++gi)
    b->scheduleGroup(st, func, groups[gi].ops, (int)groups[gi].n,
                     gi == (primary < 0 ? 0 : primary));
  for (int gi = 0; gi < numGroups; ++gi)
    dlcOpListFree(&groups[gi]);
  free(groups);
  free(taken);
  dlcOpListFree(&all);
}

void dlcScheduleFunc(DlcScheduleState *st, MlirOperation func) {
  dlcNormalizeForSchedule(func);
  scheduleFunc(st, func);
}

void dlcScheduleModule(DlcScheduleState *st, MlirOperation module) {
  dlcScriptBegin(&st->script);
  MlirBlock mb = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(mb); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f))
    if (dlcOpIs(f, "func.func"))
      dlcScheduleFunc(st, f);
}

bool dlcScheduleReadGroup(const DlcScheduleState *st, const MlirOperation *ops, int n,
                          DlcLinalgInfo *infos, DlcScheduleGroup *g) {
  *g = (DlcScheduleGroup){.ops = infos, .root = -1, .firstSid = st->sid};
  if (n > DLC_SCHEDULE_MAX_GROUP)
    return false;
  for (int i = 0; i < n; ++i) {
    if (!readOp(st->backend, ops[i], &infos[i]))
      return false;
    if (g->root < 0 && dlcIsGemmRoot(&infos[i]))
      g->root = i;
  }
  g->numOps = n;
  if (g->root >= 0 && g->root != n - 1 && infos[n - 1].loops.numLoops != infos[g->root].numParallel)
    g->root = -1;
  return true;
}

void dlcScheduleTag(DlcScheduleState *st, MlirOperation op) {
  mlirOperationSetDiscardableAttributeByName(
      op, str(DLC_ATTR_SCHEDULE_ID),
      mlirIntegerAttrGet(mlirIntegerTypeGet(st->ctx, 64), st->sid++));
}

static MlirWalkResult untag(MlirOperation op, void *u) {
  (void)u;
  mlirOperationRemoveDiscardableAttributeByName(op, str(DLC_ATTR_SCHEDULE_ID));
  mlirOperationRemoveDiscardableAttributeByName(op, str(DLC_ATTR_REDUCTION_LOOP));
  mlirOperationRemoveDiscardableAttributeByName(op, str(DLC_ATTR_HOIST_ONLY_LOOP));
  return MlirWalkResultAdvance;
}

void dlcScheduleUntag(MlirOperation module) {
  mlirOperationWalk(module, untag, NULL, MlirWalkPostOrder);
}

void dlcScheduleFail(DlcScheduleState *st, MlirOperation at, const char *msg) {
  mlirEmitError(mlirOperationGetLocation(at), msg);
  st->failed = true;
}

void dlcScheduleComment(DlcScheduleState *st, MlirOperation func, int numOps, const char *kind) {
  MlirStringRef fn = mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, str("sym_name")));
  dlcScriptEmit(&st->script, "    // group %d of @%.*s: %d ops, %s\n", st->groups++, (int)fn.length,
                fn.data, numOps, kind);
}

MlirAttribute dlcScheduleGiven(MlirOperation func, bool primary) {
  return primary ? mlirOperationGetDiscardableAttributeByName(func, str(DLC_ATTR_SCHEDULE))
                 : mlirAttributeGetNull();
}

bool dlcScheduleIsKernel(MlirOperation func) {
  return !mlirAttributeIsNull(
      mlirOperationGetDiscardableAttributeByName(func, str(DLC_ATTR_KERNEL_KIND)));
}

void dlcScheduleDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {
      mlirGetDialectHandle__transform__(), mlirGetDialectHandle__linalg__(),
      mlirGetDialectHandle__scf__(),       mlirGetDialectHandle__vector__(),
      mlirGetDialectHandle__tensor__(),    mlirGetDialectHandle__arith__(),
  };
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}
