/* --dlc-profile: times every kernel of a run (runtime/profile.h).

   Runs after dlg-fuse, on dlk.kernel ops: each kernel of a function (in
   the regions of dlg.if / dlg.while too) gets a call to dlcProfileEnter(id) before it and
   dlcProfileExit(id) after it, calls with unknown effects that no later
   pass moves across the kernel's code (which dlk-to-linalg outlines and
   the pipeline inlines back, between the two calls). The module records
   what the profile prints for each id, as `dlc.profile`: an array of
   dictionaries {name, kind, root, flops, bytes}:

     name   the kernel's function after dlk-to-linalg, @<func>_kernel<i>
            (its i-th kernel in program order, as dlk-to-linalg numbers them)
     kind   dlk.kernel's kind (contraction, reduction, elementwise ...)
     root   the op that sets its cost, with its operand shapes: the first
            matmul or conv2d, else the op whose value the kernel yields
     flops  multiply-adds x 2 of a matmul or conv2d root, else 0
     bytes  the kernel's operands and results: what it must move at least

   A func.call marked with dlc.profile_root (dlc-cpu-attention's call of
   its fused kernel, which replaced three dlk.kernel ops) is timed the
   same way, as one row named after its callee, of kind "attention".

   Ids follow program order across functions. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Elements of a static shaped type (0 when dynamic or not shaped). */
static int64_t numElements(MlirType t) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t) || !mlirShapedTypeHasStaticShape(t))
    return 0;
  int64_t n = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t); ++d)
    n *= mlirShapedTypeGetDimSize(t, d);
  return n;
}

static int64_t numBytes(MlirType t) {
  if (!mlirTypeIsAShaped(t))
    return 0;
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t bits = mlirTypeIsAFloat(e)     ? mlirFloatTypeGetWidth(e)
                 : mlirTypeIsAInteger(e) ? mlirIntegerTypeGetWidth(e)
                                         : 0;
  return numElements(t) * ((bits + 7) / 8);
}

/* "12x128x64" into buf at `at`; returns the new end. */
static int formatShape(char *buf, int at, int len, MlirType t) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t))
    return at;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t) && at < len; ++d) {
    int64_t s = mlirShapedTypeGetDimSize(t, d);
    at += mlirShapedTypeIsDynamicDim(t, d)
              ? snprintf(buf + at, (size_t)(len - at), d ? "x?" : "?")
              : snprintf(buf + at, (size_t)(len - at), d ? "x%lld" : "%lld", (long long)s);
  }
  return at < len ? at : len;
}

/* The kernel's root op: its first contraction, else what it yields. */
static MlirOperation rootOf(MlirOperation kernel) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (dlcOpIs(op, "dlg.matmul") || dlcOpIs(op, "dlg.conv2d"))
      return op;
  if (mlirOperationGetNumOperands(yield) > 0) {
    MlirValue y = mlirOperationGetOperand(yield, 0);
    if (mlirValueIsAOpResult(y))
      return mlirOpResultGetOwner(y);
  }
  return yield;
}

/* 2 x multiply-adds of a matmul or conv2d, 0 for anything else. */
static int64_t flopsOf(MlirOperation root) {
  if (mlirOperationGetNumResults(root) != 1 || mlirOperationGetNumOperands(root) < 2)
    return 0;
  MlirType a = mlirValueGetType(mlirOperationGetOperand(root, 0));
  MlirType w = mlirValueGetType(mlirOperationGetOperand(root, 1));
  int64_t out = numElements(mlirValueGetType(mlirOperationGetResult(root, 0)));
  if (out == 0 || !mlirTypeIsAShaped(a) || !mlirShapedTypeHasStaticShape(a) ||
      !mlirShapedTypeHasStaticShape(w))
    return 0;
  if (dlcOpIs(root, "dlg.matmul")) {
    intptr_t r = mlirShapedTypeGetRank(a);
    bool ta = dlcGetBool(root, "transpose_a", false);
    return 2 * out * mlirShapedTypeGetDimSize(a, ta ? r - 2 : r - 1);
  }
  if (dlcOpIs(root, "dlg.conv2d") && mlirShapedTypeGetRank(w) == 4)
    return 2 * out * mlirShapedTypeGetDimSize(w, 1) * mlirShapedTypeGetDimSize(w, 2) *
           mlirShapedTypeGetDimSize(w, 3);
  return 0;
}

static MlirNamedAttribute namedStr(MlirContext ctx, const char *name, const char *value) {
  return dlcNamed(ctx, name, mlirStringAttrGet(ctx, str(value)));
}

static MlirNamedAttribute namedI64(MlirContext ctx, const char *name, int64_t value) {
  return dlcNamed(ctx, name, mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value));
}

/* The table entry of kernel `k`, the i-th of function `fn`. */
static MlirAttribute describe(MlirOperation k, MlirStringRef fn, int64_t i) {
  MlirContext ctx = mlirOperationGetContext(k);
  char name[300], root[300];
  snprintf(name, sizeof name, "%.*s_kernel%lld", (int)fn.length, fn.data, (long long)i);
  MlirOperation r = rootOf(k);
  MlirStringRef op = mlirIdentifierStr(mlirOperationGetName(r));
  if (op.length > 4 && memcmp(op.data, "dlg.", 4) == 0)
    op.data += 4, op.length -= 4;
  int at = snprintf(root, sizeof root, "%.*s ", (int)op.length, op.data);
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(r) && o < 2; ++o) {
    if (o && at < (int)sizeof root)
      at += snprintf(root + at, sizeof root - (size_t)at, " * ");
    at = formatShape(root, at, (int)sizeof root, mlirValueGetType(mlirOperationGetOperand(r, o)));
    if (!(dlcOpIs(r, "dlg.matmul") || dlcOpIs(r, "dlg.conv2d")))
      break; /* the first operand's shape says enough */
  }
  int64_t bytes = 0;
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(k); ++o)
    bytes += numBytes(mlirValueGetType(mlirOperationGetOperand(k, o)));
  for (intptr_t o = 0; o < mlirOperationGetNumResults(k); ++o)
    bytes += numBytes(mlirValueGetType(mlirOperationGetResult(k, o)));
  MlirAttribute kind = mlirOperationGetAttributeByName(k, str("kind"));
  char kindText[64] = "kernel";
  if (!mlirAttributeIsNull(kind) && mlirAttributeIsAString(kind)) {
    MlirStringRef s = mlirStringAttrGetValue(kind);
    snprintf(kindText, sizeof kindText, "%.*s", (int)s.length, s.data);
  }
  MlirNamedAttribute fields[] = {namedStr(ctx, "name", name), namedStr(ctx, "kind", kindText),
                                 namedStr(ctx, "root", root), namedI64(ctx, "flops", flopsOf(r)),
                                 namedI64(ctx, "bytes", bytes)};
  return mlirDictionaryAttrGet(ctx, sizeof fields / sizeof fields[0], fields);
}

static void callHook(MlirOperation at, bool after, const char *hook, int64_t id) {
  MlirContext ctx = mlirOperationGetContext(at);
  MlirLocation loc = mlirOperationGetLocation(at);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirOperation next = mlirOperationGetNextInBlock(at);
  DlcBuilder b = after ? (mlirOperationIsNull(next)
                              ? dlcBuilderAtEnd(mlirOperationGetBlock(at), loc)
                              : dlcBuilderBefore(next, loc))
                       : dlcBuilderBefore(at, loc);
  MlirValue c = mlirOperationGetResult(
      dlcBuildOpTyped(&b, "arith.constant", 0, NULL, 1, &i64,
                      DLC_ATTRS(dlcNamed(ctx, "value", mlirIntegerAttrGet(i64, id)))), 0);
  dlcBuildOpTyped(&b, "func.call", 1, &c, 0, NULL,
                  DLC_ATTRS(dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(hook)))));
}

static void declareHook(MlirOperation module, const char *hook) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute n = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(n) && mlirStringRefEqual(mlirStringAttrGetValue(n), str(hook)))
      return;
  }
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirType fnType = mlirFunctionTypeGet(ctx, 1, &i64, 0, NULL);
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirOperationState s = mlirOperationStateGet(str("func.func"), loc);
  MlirNamedAttribute attrs[] = {namedStr(ctx, "sym_name", hook),
                                dlcNamed(ctx, "function_type", mlirTypeAttrGet(fnType)),
                                namedStr(ctx, "sym_visibility", "private")};
  mlirOperationStateAddAttributes(&s, 3, attrs);
  MlirRegion r = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&s, 1, &r);
  mlirBlockInsertOwnedOperation(body, 0, mlirOperationCreate(&s));
}

/* A call that stands for kernels a pass replaced (dlc-cpu-attention's fused
   attention) carries what its row prints: dlc.profile_root and
   dlc.profile_flops. Without them its time would land in "(outside
   kernels)". */
static bool isProfiledCall(MlirOperation op) {
  return dlcOpIs(op, "func.call") &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("dlc.profile_root")));
}

/* The table entry of such a call: named after its callee. */
static MlirAttribute describeCall(MlirOperation call) {
  MlirContext ctx = mlirOperationGetContext(call);
  MlirStringRef callee =
      mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(call, str("callee")));
  MlirStringRef root =
      mlirStringAttrGetValue(mlirOperationGetAttributeByName(call, str("dlc.profile_root")));
  MlirAttribute flops = mlirOperationGetAttributeByName(call, str("dlc.profile_flops"));
  char name[300], rootText[300];
  snprintf(name, sizeof name, "%.*s", (int)callee.length, callee.data);
  snprintf(rootText, sizeof rootText, "%.*s", (int)root.length, root.data);
  int64_t bytes = 0;
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(call); ++o)
    bytes += numBytes(mlirValueGetType(mlirOperationGetOperand(call, o)));
  for (intptr_t o = 0; o < mlirOperationGetNumResults(call); ++o)
    bytes += numBytes(mlirValueGetType(mlirOperationGetResult(call, o)));
  MlirNamedAttribute fields[] = {
      namedStr(ctx, "name", name), namedStr(ctx, "kind", "attention"),
      namedStr(ctx, "root", rootText),
      namedI64(ctx, "flops",
               !mlirAttributeIsNull(flops) && mlirAttributeIsAInteger(flops)
                   ? mlirIntegerAttrGetValueInt(flops)
                   : 0),
      namedI64(ctx, "bytes", bytes)};
  return mlirDictionaryAttrGet(ctx, sizeof fields / sizeof fields[0], fields);
}

static MlirWalkResult collectKernel(MlirOperation op, void *user) {
  if (dlcOpIs(op, "dlk.kernel") || isProfiledCall(op))
    dlcOpListPush(user, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirAttribute *table = NULL;
  int64_t id = 0, cap = 0;
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!dlcOpIs(f, "func.func") || mlirRegionIsNull(mlirOperationGetRegion(f, 0)))
      continue;
    MlirBlock fb = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
    if (mlirBlockIsNull(fb))
      continue;
    MlirStringRef fn = mlirStringAttrGetValue(mlirOperationGetAttributeByName(f, str("sym_name")));
    /* Kernels in the regions of dlg.if / dlg.while too, numbered as
       dlk-outline-kernels numbers them (a post-order walk). */
    DlcOpList kernels = {NULL, 0, 0};
    mlirOperationWalk(f, collectKernel, &kernels, MlirWalkPostOrder);
    int64_t kernelIndex = 0; /* dlk.kernel ops only: the outlined names */
    for (intptr_t i = 0; i < kernels.n; ++i) {
      MlirOperation op = kernels.ops[i];
      if (id == cap) {
        cap = cap ? 2 * cap : 64;
        table = realloc(table, sizeof *table * (size_t)cap);
      }
      table[id] = isProfiledCall(op) ? describeCall(op) : describe(op, fn, kernelIndex++);
      callHook(op, false, "dlcProfileEnter", id);
      callHook(op, true, "dlcProfileExit", id);
      ++id;
    }
    dlcOpListFree(&kernels);
  }
  if (id > 0) {
    declareHook(module, "dlcProfileEnter");
    declareHook(module, "dlcProfileExit");
  }
  mlirOperationSetDiscardableAttributeByName(module, str("dlc.profile"),
                                             mlirArrayAttrGet(ctx, id, table));
  free(table);
  dlcPassAddStatistic(pass, "kernels", (uint64_t)id);
  return (MlirLogicalResult){1};
}

static void dependentDialects(MlirDialectRegistry r) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), r);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), r);
}

static const DlcStatisticDesc kStats[] = {{"kernels", "kernels instrumented"}};

const DlcPassDescriptor dlcProfilePass = {
    .argument = "dlc-profile",
    .summary = "Time each dlk.kernel with calls to dlcProfileEnter/Exit and record what "
               "the profile prints for it (name, kind, root op and shapes, flops, bytes) "
               "in the module's dlc.profile attribute",
    .anchor = "builtin.module",
    .statistics = kStats,
    .numStatistics = 1,
    .getDependentDialects = dependentDialects,
    .run = run,
};
