/* --dlc-gpu-map: after bufferisation, every loop nest becomes a gpu.launch
   and host code keeps only launches and device memory management.

   1. Work that no block forall holds (a reduction to a scalar, a copy
      bufferisation added, an op the strategy could not read) is put in a
      forall of one block and one thread: slow but never wrong, and never
      run by the host on device memory.
   2. Each block forall (dlc-gpu-schedule's, with `dlc.block_dims`) is
      wrapped in an scf.execute_region of its own, since
      transform.gpu.map_forall_to_blocks maps the one top-level forall
      under its target; a script then makes each a gpu.launch and maps its
      thread foralls to thread ids with the recorded block dims.
   3. Memory: buffers allocated inside a launch are per-thread
      (memref.alloca, deallocs dropped); the host's allocations become
      gpu.alloc/gpu.dealloc, copies between whole buffers gpu.memcpy, and
      constants (memref.get_global) are copied to a device buffer.
   4. Host code is checked: a load, store, vector or linalg op left there
      would read device memory on the host, and is an error naming it. */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "support/memref_views.h"
#include "schedule/analysis.h"
#include "schedule/script.h"
#include "support/attr_names.h"
#include "support/op_list.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool startsWith(MlirOperation op, const char *prefix) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  size_t k = strlen(prefix);
  return n.length >= k && memcmp(n.data, prefix, k) == 0;
}

static bool insideAny(MlirOperation op, const char *name) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (dlcOpIs(p, name))
      return true;
  return false;
}

/* What dlc-gpu-spread may do with the one-thread launch of `op`
   (DLC_ATTR_LEFTOVER), or NULL: "parallel" where every iteration writes
   its own output elements (a copy, a fill, a generic whose loops are all
   parallel and whose outputs are indexed by a permutation of them: concat,
   pad, slice, transposes), "reduce" for a generic reducing every loop into
   a 0-d output (a reduction to a scalar). */
static const char *leftoverKind(MlirOperation op) {
  if (dlcOpIs(op, "linalg.copy") || dlcOpIs(op, "linalg.fill"))
    return "parallel";
  if (!dlcOpIs(op, "linalg.generic"))
    return NULL;
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  intptr_t n = mlirArrayAttrGetNumElements(iters), nMaps = mlirArrayAttrGetNumElements(maps);
  int reductions = 0;
  for (intptr_t i = 0; i < n; ++i)
    reductions += dlcIteratorIsReduction(mlirArrayAttrGetElement(iters, i));
  MlirAttribute seg = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
  intptr_t outs = mlirDenseI32ArrayGetElement(seg, 1);
  if (outs < 1)
    return NULL;
  if (reductions == 0) {
    for (intptr_t i = nMaps - outs; i < nMaps; ++i)
      if (!mlirAffineMapIsPermutation(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i))))
        return NULL;
    return "parallel";
  }
  MlirType out = mlirValueGetType(mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1));
  return reductions == n && outs == 1 && mlirShapedTypeGetRank(out) == 0 ? "reduce" : NULL;
}

/* The body of a launch is built by parsing (a forall pair with no values
   from outside) and the work is moved in. */
static void wrapInOneThread(MlirOperation op) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirOperation outer = mlirOperationCreateParse(
      ctx,
      str("scf.forall (%i) in (1) {\n"
          "  scf.forall (%j) in (1) {\n"
          "  } {mapping = [#gpu.thread<x>]}\n"
          "} {mapping = [#gpu.block<x>], " DLC_ATTR_BLOCK_DIMS " = array<i64: 1, 1, 1>}"),
      str("dlc-gpu-map"));
  MlirBlock ob = mlirRegionGetFirstBlock(mlirOperationGetRegion(outer, 0));
  MlirOperation inner = mlirBlockGetFirstOperation(ob);
  MlirBlock ib = mlirRegionGetFirstBlock(mlirOperationGetRegion(inner, 0));
  const char *kind = leftoverKind(op);
  if (kind)
    mlirOperationSetDiscardableAttributeByName(outer, str(DLC_ATTR_LEFTOVER),
                                               mlirStringAttrGet(ctx, str(kind)));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, outer);
  mlirOperationMoveBefore(op, mlirBlockGetTerminator(ib));
}

static MlirOperation createOp(MlirLocation loc, const char *name, intptr_t nOperands,
                              const MlirValue *operands, intptr_t nResults, const MlirType *results,
                              intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddOperands(&st, nOperands, operands);
  mlirOperationStateAddResults(&st, nResults, results);
  mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  return mlirOperationCreate(&st);
}

static MlirNamedAttribute segments(MlirContext ctx, int n, const int32_t *sizes) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("operandSegmentSizes")),
                               mlirDenseI32ArrayGet(ctx, n, sizes));
}

/* gpu.alloc of `type` (dynamic sizes from `dyn`) before `at`. */
static MlirValue gpuAlloc(MlirOperation at, MlirType type, intptr_t nDyn, const MlirValue *dyn) {
  MlirContext ctx = mlirOperationGetContext(at);
  MlirNamedAttribute seg = segments(ctx, 3, (int32_t[]){0, (int32_t)nDyn, 0});
  MlirOperation a = createOp(mlirOperationGetLocation(at), "gpu.alloc", nDyn, dyn, 1, &type, 1, &seg);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, a);
  return mlirOperationGetResult(a, 0);
}

static void gpuMemcpy(MlirOperation at, MlirValue dst, MlirValue src) {
  MlirValue ops[2] = {dst, src};
  MlirOperation c = createOp(mlirOperationGetLocation(at), "gpu.memcpy", 2, ops, 0, NULL, 0, NULL);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, c);
}

typedef struct {
  DlcOpList wrap, launches, allocs, deallocs, copies, globals, localAllocs, localDeallocs;
} Found;

static bool onHost(MlirOperation op) {
  return !insideAny(op, "gpu.launch") && !insideAny(op, "scf.forall") &&
         !insideAny(op, "gpu.module");
}

static MlirWalkResult collect(MlirOperation op, void *u) {
  Found *f = u;
  MlirOperation parent = mlirOperationGetParentOperation(op);
  /* host linalg ops, also those in the regions of host control flow
     (scf.if / scf.while of dlg.if / dlg.while), not a linalg.yield */
  if (startsWith(op, "linalg.") && !mlirOperationIsNull(parent) && !startsWith(parent, "linalg.") &&
      onHost(op))
    dlcOpListPush(&f->wrap, op);
  else if (dlcOpIs(op, "memref.copy") && onHost(op))
    dlcOpListPush(&f->copies, op);
  else if (dlcOpIs(op, "scf.forall") && !insideAny(op, "scf.forall") &&
           !mlirAttributeIsNull(
               mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_BLOCK_DIMS))))
    dlcOpListPush(&f->launches, op);
  return MlirWalkResultAdvance;
}

static MlirWalkResult collectMemory(MlirOperation op, void *u) {
  Found *f = u;
  bool device = insideAny(op, "gpu.launch");
  if (dlcOpIs(op, "memref.alloc"))
    dlcOpListPush(device ? &f->localAllocs : &f->allocs, op);
  else if (dlcOpIs(op, "memref.dealloc"))
    dlcOpListPush(device ? &f->localDeallocs : &f->deallocs, op);
  else if (dlcOpIs(op, "memref.get_global") && !device && !insideAny(op, "gpu.module"))
    dlcOpListPush(&f->globals, op);
  return MlirWalkResultAdvance;
}

typedef struct {
  bool failed;
} Check;

/* A load from a host alloca (readBackScalars' buffer). */
static bool readsHostBuffer(MlirOperation load) {
  MlirValue m = mlirOperationGetOperand(load, 0);
  return mlirValueIsAOpResult(m) && dlcOpIs(mlirOpResultGetOwner(m), "memref.alloca") &&
         onHost(mlirOpResultGetOwner(m));
}

/* Ops that touch memory contents: on the host they would read or write
   device memory. */
static MlirWalkResult checkHost(MlirOperation op, void *u) {
  Check *c = u;
  if (insideAny(op, "gpu.launch") || insideAny(op, "gpu.module") || dlcOpIs(op, "gpu.launch"))
    return MlirWalkResultAdvance;
  if (dlcOpIs(op, "memref.load") && readsHostBuffer(op))
    return MlirWalkResultAdvance; /* a condition read back (readBackScalars) */
  if (startsWith(op, "linalg.") || startsWith(op, "vector.") || dlcOpIs(op, "memref.load") ||
      dlcOpIs(op, "memref.store") || dlcOpIs(op, "memref.copy") || dlcOpIs(op, "scf.forall")) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    char msg[256];
    snprintf(msg, sizeof msg,
             "dlc-gpu-map: '%.*s' is left in host code, where it would access device memory "
             "(no GPU launch holds it)",
             (int)n.length, n.data);
    mlirEmitError(mlirOperationGetLocation(op), msg);
    c->failed = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static void freeFound(Found *f) {
  DlcOpList *ls[] = {&f->wrap, &f->launches, &f->allocs, &f->deallocs, &f->copies, &f->globals,
                     &f->localAllocs, &f->localDeallocs};
  for (size_t i = 0; i < sizeof ls / sizeof ls[0]; ++i)
    dlcOpListFree(ls[i]);
}

/* A ROWS forall's `dlc.row_lanes` moves to the gpu.launch made of it, for
   dlc-gpu-rows (gpu_reduction.c). */
typedef struct {
  MlirAttribute *lanes, *leftover;
} RowLanes;

static MlirWalkResult moveRowLanes(MlirOperation op, void *u) {
  RowLanes *r = u;
  MlirAttribute idx = mlirOperationGetDiscardableAttributeByName(op, str(DLC_ATTR_LAUNCH));
  if (!dlcOpIs(op, "scf.execute_region") || mlirAttributeIsNull(idx))
    return MlirWalkResultAdvance;
  MlirAttribute lanes = r->lanes[mlirIntegerAttrGetValueInt(idx)];
  MlirAttribute leftover = r->leftover[mlirIntegerAttrGetValueInt(idx)];
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (!dlcOpIs(o, "gpu.launch"))
      continue;
    if (!mlirAttributeIsNull(lanes))
      mlirOperationSetDiscardableAttributeByName(o, str(DLC_ATTR_ROW_LANES), lanes);
    if (!mlirAttributeIsNull(leftover))
      mlirOperationSetDiscardableAttributeByName(o, str(DLC_ATTR_LEFTOVER), leftover);
  }
  return MlirWalkResultSkip;
}

static MlirLogicalResult mapLaunches(MlirOperation module, const DlcOpList *launches, bool print) {
  MlirContext ctx = mlirOperationGetContext(module);
  DlcScript s = {.text = {NULL, 0, 0}};
  RowLanes rl = {calloc((size_t)launches->n + 1, sizeof(MlirAttribute)),
                 calloc((size_t)launches->n + 1, sizeof(MlirAttribute))};
  dlcScriptBegin(&s);
  for (intptr_t i = 0; i < launches->n; ++i) {
    MlirOperation forall = launches->ops[i];
    rl.lanes[i] = mlirOperationGetDiscardableAttributeByName(forall, str(DLC_ATTR_ROW_LANES));
    rl.leftover[i] = mlirOperationGetDiscardableAttributeByName(forall, str(DLC_ATTR_LEFTOVER));
    MlirOperation region = mlirOperationCreateParse(
        ctx, str("scf.execute_region {\n  scf.yield\n}"), str("dlc-gpu-map"));
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(forall), forall, region);
    mlirOperationMoveBefore(
        forall, mlirBlockGetTerminator(mlirRegionGetFirstBlock(mlirOperationGetRegion(region, 0))));
    mlirOperationSetDiscardableAttributeByName(region, str(DLC_ATTR_LAUNCH),
                                               mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), i));
    MlirAttribute dims =
        mlirOperationGetDiscardableAttributeByName(forall, str(DLC_ATTR_BLOCK_DIMS));
    dlcScriptEmit(&s,
                  "    %%r%ld = transform.structured.match attributes{" DLC_ATTR_LAUNCH
                  " = %ld : i64} in %%m : (!transform.any_op) -> !transform.any_op\n"
                  "    %%l%ld = transform.gpu.map_forall_to_blocks %%r%ld generate_gpu_launch"
                  " : (!transform.any_op) -> !transform.any_op\n"
                  "    transform.gpu.map_nested_forall_to_threads %%l%ld"
                  " block_dims = [%lld, %lld, %lld] : (!transform.any_op) -> !transform.any_op\n",
                  (long)i, (long)i, (long)i, (long)i, (long)i,
                  (long long)mlirDenseI64ArrayGetElement(dims, 0),
                  (long long)mlirDenseI64ArrayGetElement(dims, 1),
                  (long long)mlirDenseI64ArrayGetElement(dims, 2));
  }
  dlcScriptEnd(&s);
  MlirLogicalResult r = dlcScriptRun(&s, module, "dlc-gpu-map", print);
  dlcScriptFree(&s);
  if (mlirLogicalResultIsSuccess(r))
    mlirOperationWalk(module, moveRowLanes, &rl, MlirWalkPreOrder);
  free(rl.lanes);
  free(rl.leftover);
  return r;
}

static void replaceWith(MlirOperation op, MlirValue v) {
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), v);
  mlirOperationDestroy(op);
}

/*--- Constants: one device copy per program ------------------------------------------*/

static void appendText(MlirStringRef s, void *u) {
  char *buf = u;
  size_t n = strlen(buf), k = s.length < 31 - n ? s.length : 31 - n;
  memcpy(buf + n, s.data, k);
  buf[n + k] = 0;
}

/* Bytes of one element of the types the runtime has an entry for; 0 else. */
static int64_t elementBytes(MlirType t) {
  if (mlirTypeIsAF32(t))
    return 4;
  if (mlirTypeIsAF16(t) || mlirTypeIsABF16(t))
    return 2;
  if (mlirTypeIsAF64(t))
    return 8;
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    return w == 1 || w == 8 ? 1 : w == 16 ? 2 : w == 32 ? 4 : w == 64 ? 8 : 0;
  }
  return 0;
}

static MlirNamedAttribute i64Array(MlirContext ctx, const char *name, intptr_t n,
                                   const int64_t *v) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(name)), mlirDenseI64ArrayGet(ctx, n, v));
}

/* memref.reinterpret_cast of `src` to `to` (static, identity layout). */
static MlirValue reinterpret(MlirOperation at, MlirValue src, MlirType to) {
  MlirContext ctx = mlirOperationGetContext(at);
  intptr_t rank = mlirShapedTypeGetRank(to);
  int64_t sizes[16], strides[16], offset = 0, stride = 1;
  for (intptr_t d = rank - 1; d >= 0; --d) {
    sizes[d] = mlirShapedTypeGetDimSize(to, d);
    strides[d] = stride;
    stride *= sizes[d];
  }
  MlirNamedAttribute attrs[] = {segments(ctx, 4, (int32_t[]){1, 0, 0, 0}),
                                i64Array(ctx, "static_offsets", 1, &offset),
                                i64Array(ctx, "static_sizes", rank, sizes),
                                i64Array(ctx, "static_strides", rank, strides)};
  MlirOperation op = createOp(mlirOperationGetLocation(at), "memref.reinterpret_cast", 1, &src, 1,
                              &to, 4, attrs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, op);
  return mlirOperationGetResult(op, 0);
}

static MlirValue insertBefore(MlirOperation at, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, op);
  return mlirOperationGetResult(op, 0);
}

/* The device copy of the host constant `g` reads (memref.get_global), from
   the runtime's per-program table (runtime/cuda_runtime.h): the global is
   flattened to memref<?xT>, passed to dlcCudaConstant_<T> (declared once,
   with a C interface) with its byte size, and the result shaped back. The
   first call of a program uploads it; later calls get the same buffer. */
static bool deviceConstant(MlirOperation module, MlirOperation g) {
  MlirContext ctx = mlirOperationGetContext(g);
  MlirLocation loc = mlirOperationGetLocation(g);
  MlirValue host = mlirOperationGetResult(g, 0);
  MlirType type = mlirValueGetType(host), elem = mlirShapedTypeGetElementType(type);
  int64_t bytes = elementBytes(elem), n = 1;
  if (!bytes || !mlirShapedTypeHasStaticShape(type) || mlirShapedTypeGetRank(type) > 16 ||
      !dlcMemRefIsIdentityLayout(type))
    return false;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    n *= mlirShapedTypeGetDimSize(type, d);
  char t[32] = "", name[64];
  mlirTypePrint(elem, appendText, t);
  snprintf(name, sizeof name, "dlcCudaConstant_%s", t);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool declared = false;
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o) && !declared;
       o = mlirOperationGetNextInBlock(o)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(o, str("sym_name"));
    declared = !mlirAttributeIsNull(sym) &&
               mlirStringRefEqual(mlirStringAttrGetValue(sym), str(name));
  }
  if (!declared) {
    char decl[256];
    snprintf(decl, sizeof decl,
             "func.func private @%s(memref<?x%s>, index) -> memref<?x%s> "
             "attributes {llvm.emit_c_interface}",
             name, t, t);
    MlirOperation f = mlirOperationCreateParse(ctx, str(decl), str("dlc-gpu-map"));
    if (mlirOperationIsNull(f))
      return false;
    mlirBlockInsertOwnedOperationBefore(body, mlirBlockGetFirstOperation(body), f);
  }
  MlirOperation at = mlirOperationGetNextInBlock(g);
  int64_t shape1[1] = {n}, dyn[1] = {mlirShapedTypeGetDynamicSize()};
  MlirType flat = mlirMemRefTypeContiguousGet(elem, 1, shape1, mlirAttributeGetNull());
  MlirType flatDyn = mlirMemRefTypeContiguousGet(elem, 1, dyn, mlirAttributeGetNull());
  MlirValue v = reinterpret(at, host, flat);
  v = insertBefore(at, createOp(loc, "memref.cast", 1, &v, 1, &flatDyn, 0, NULL));
  MlirType index = mlirIndexTypeGet(ctx);
  MlirNamedAttribute value = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")),
                                                   mlirIntegerAttrGet(index, n * bytes));
  MlirValue size = insertBefore(at, createOp(loc, "arith.constant", 0, NULL, 1, &index, 1, &value));
  MlirNamedAttribute callee = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("callee")), mlirFlatSymbolRefAttrGet(ctx, str(name)));
  MlirValue args[2] = {v, size};
  MlirValue dev = insertBefore(at, createOp(loc, "func.call", 2, args, 1, &flatDyn, 1, &callee));
  dev = insertBefore(at, createOp(loc, "memref.cast", 1, &dev, 1, &flat, 0, NULL));
  dev = reinterpret(at, dev, type);
  /* every use but the flattening reads the device copy */
  MlirOperation flatten = mlirOpResultGetOwner(v);
  flatten = mlirOpResultGetOwner(mlirOperationGetOperand(flatten, 0));
  mlirValueReplaceAllUsesExcept(host, dev, 1, &flatten);
  return true;
}

static void rewriteMemory(MlirOperation module) {
  Found f = {0};
  mlirOperationWalk(module, collectMemory, &f, MlirWalkPreOrder);
  for (intptr_t i = 0; i < f.localAllocs.n; ++i) { /* per-thread scratch */
    MlirOperation a = f.localAllocs.ops[i];
    MlirType t = mlirValueGetType(mlirOperationGetResult(a, 0));
    intptr_t n = mlirOperationGetNumOperands(a);
    MlirValue dyn[8];
    for (intptr_t k = 0; k < n && k < 8; ++k)
      dyn[k] = mlirOperationGetOperand(a, k);
    MlirNamedAttribute seg = segments(mlirOperationGetContext(a), 2, (int32_t[]){(int32_t)n, 0});
    MlirOperation s = createOp(mlirOperationGetLocation(a), "memref.alloca", n, dyn, 1, &t, 1, &seg);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(a), a, s);
    replaceWith(a, mlirOperationGetResult(s, 0));
  }
  for (intptr_t i = 0; i < f.localDeallocs.n; ++i)
    mlirOperationDestroy(f.localDeallocs.ops[i]);
  for (intptr_t i = 0; i < f.allocs.n; ++i) {
    MlirOperation a = f.allocs.ops[i];
    intptr_t n = mlirOperationGetNumOperands(a);
    MlirValue dyn[8];
    for (intptr_t k = 0; k < n && k < 8; ++k)
      dyn[k] = mlirOperationGetOperand(a, k);
    replaceWith(a, gpuAlloc(a, mlirValueGetType(mlirOperationGetResult(a, 0)), n, dyn));
  }
  for (intptr_t i = 0; i < f.deallocs.n; ++i) {
    MlirOperation d = f.deallocs.ops[i];
    MlirValue m = mlirOperationGetOperand(d, 0);
    MlirOperation g = createOp(mlirOperationGetLocation(d), "gpu.dealloc", 1, &m, 0, NULL, 0, NULL);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(d), d, g);
    mlirOperationDestroy(d);
  }
  /* Constants: a device copy per program (deviceConstant); types the
     runtime has no entry for are copied to the device per call. */
  for (intptr_t i = 0; i < f.globals.n; ++i) {
    MlirOperation g = f.globals.ops[i];
    if (deviceConstant(module, g))
      continue;
    MlirValue host = mlirOperationGetResult(g, 0);
    MlirOperation after = mlirOperationGetNextInBlock(g);
    MlirValue dev = gpuAlloc(after, mlirValueGetType(host), 0, NULL);
    mlirValueReplaceAllUsesOfWith(host, dev);
    gpuMemcpy(after, dev, host);
  }
  freeFound(&f);
}

/*--- Scalars the host reads: the conditions of control flow ---------------------------*/

/* dlg.if / dlg.while become scf.if / scf.while on the host, deciding on an
   i1 that a kernel wrote to device memory (bufferised: a memref.load of a
   one-element buffer). The host cannot load it there: it is copied into a
   host buffer first (gpu.memcpy; gpu-async-region makes the host wait for
   the stream before the load) and read from that. The host buffer is an
   alloca in the function's entry block, so a loop reuses one slot rather
   than growing the stack per trip. Any other host load stays an error
   (checkHost). */
static MlirWalkResult collectHostLoads(MlirOperation op, void *u) {
  if (dlcOpIs(op, "memref.load") && onHost(op) && !insideAny(op, "gpu.launch"))
    dlcOpListPush(u, op);
  return MlirWalkResultAdvance;
}

static bool isOneElement(MlirType t) {
  if (!mlirShapedTypeHasStaticShape(t) || !dlcMemRefIsIdentityLayout(t) ||
      !mlirAttributeIsNull(mlirMemRefTypeGetMemorySpace(t)))
    return false;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t); ++d)
    if (mlirShapedTypeGetDimSize(t, d) != 1)
      return false;
  return true;
}

static int readBackScalars(MlirOperation module) {
  DlcOpList loads = {0};
  mlirOperationWalk(module, collectHostLoads, &loads, MlirWalkPreOrder);
  int n = 0;
  for (intptr_t i = 0; i < loads.n; ++i) {
    MlirOperation load = loads.ops[i];
    MlirValue src = mlirOperationGetOperand(load, 0);
    MlirType t = mlirValueGetType(src);
    MlirOperation fn = mlirOperationGetParentOperation(load);
    while (!mlirOperationIsNull(fn) && !dlcOpIs(fn, "func.func"))
      fn = mlirOperationGetParentOperation(fn);
    if (!isOneElement(t) || mlirOperationIsNull(fn))
      continue; /* left for checkHost's error */
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
    MlirNamedAttribute seg =
        segments(mlirOperationGetContext(load), 2, (int32_t[]){0, 0});
    MlirOperation host =
        createOp(mlirOperationGetLocation(load), "memref.alloca", 0, NULL, 1, &t, 1, &seg);
    mlirBlockInsertOwnedOperationBefore(entry, mlirBlockGetFirstOperation(entry), host);
    gpuMemcpy(load, mlirOperationGetResult(host, 0), src);
    mlirOperationSetOperand(load, 0, mlirOperationGetResult(host, 0));
    ++n;
  }
  dlcOpListFree(&loads);
  return n;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  bool print = dlcOptionsGetBool(dlcPassGetOptions(pass), "print-transform");
  Found f = {0};
  mlirOperationWalk(module, collect, &f, MlirWalkPreOrder);
  for (intptr_t i = 0; i < f.copies.n; ++i) {
    MlirOperation c = f.copies.ops[i];
    MlirValue src = mlirOperationGetOperand(c, 0), dst = mlirOperationGetOperand(c, 1);
    if (dlcMemRefIsIdentityLayout(mlirValueGetType(src)) &&
        dlcMemRefIsIdentityLayout(mlirValueGetType(dst))) {
      gpuMemcpy(c, dst, src);
      mlirOperationDestroy(c);
    } else {
      mlirEmitError(mlirOperationGetLocation(c),
                    "dlc-gpu-map: a memref.copy between strided buffers is left on the host "
                    "(dlc-copy-to-linalg should have made it a linalg.copy)");
      freeFound(&f);
      return (MlirLogicalResult){0};
    }
  }
  for (intptr_t i = 0; i < f.wrap.n; ++i)
    wrapInOneThread(f.wrap.ops[i]);
  freeFound(&f);
  f = (Found){0};
  mlirOperationWalk(module, collect, &f, MlirWalkPreOrder);
  MlirLogicalResult r = {1};
  if (f.launches.n > 0)
    r = mapLaunches(module, &f.launches, print);
  dlcPassAddStatistic(pass, "launches", (uint64_t)f.launches.n);
  freeFound(&f);
  if (mlirLogicalResultIsFailure(r))
    return r;
  rewriteMemory(module);
  dlcPassAddStatistic(pass, "read-backs", (uint64_t)readBackScalars(module));
  Check c = {false};
  mlirOperationWalk(module, checkHost, &c, MlirWalkPreOrder);
  return (MlirLogicalResult){!c.failed};
}

static void dependentDialects(MlirDialectRegistry r) {
  MlirDialectHandle hs[] = {mlirGetDialectHandle__transform__(), mlirGetDialectHandle__scf__(),
                            mlirGetDialectHandle__gpu__(), mlirGetDialectHandle__memref__()};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    mlirDialectHandleInsertDialect(hs[i], r);
}

static const DlcOptionDesc kOptions[] = {
    {"print-transform", "print the generated mapping script to stderr", DLC_OPTION_BOOL, "false"},
};

static const DlcStatisticDesc kStats[] = {
    {"launches", "gpu.launch ops formed"},
    {"read-backs", "one-element device buffers copied to the host for a host load (conditions)"}};

const DlcPassDescriptor dlcGpuMapPass = {
    .argument = "dlc-gpu-map",
    .summary = "Turn the block/thread foralls of dlc-gpu-schedule into gpu.launch ops, launch "
               "leftover work on one thread, and move host buffers to device memory",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof kStats[0],
    .getDependentDialects = dependentDialects,
    .run = run,
};

/*--- dlc-gpu-align-args -------------------------------------------------------------*/

/* Every pointer a kernel receives is the base of a device allocation (a
   memref descriptor's allocated and aligned pointers; a subview moves its
   offset field, not the pointers): cuMemAlloc gives 256-byte alignment.
   `llvm.align = 16` on those parameters lets LLVM prove the 16-byte
   alignment of a thread's 128-bit accesses and emit ld.global.v4 and
   st.global.v4 instead of four scalar accesses. */
static MlirLogicalResult alignArgs(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  (void)pass;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!dlcOpIs(f, "llvm.func") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("nvvm.kernel"))))
      continue;
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
    if (mlirBlockIsNull(entry))
      continue;
    intptr_t n = mlirBlockGetNumArguments(entry);
    MlirAttribute old = mlirOperationGetAttributeByName(f, str("arg_attrs"));
    MlirAttribute *dicts = malloc(sizeof *dicts * (size_t)(n + 1));
    for (intptr_t i = 0; i < n; ++i) {
      MlirAttribute d = mlirAttributeIsNull(old) ? mlirDictionaryAttrGet(ctx, 0, NULL)
                                                 : mlirArrayAttrGetElement(old, i);
      intptr_t k = mlirDictionaryAttrGetNumElements(d);
      MlirNamedAttribute *named = malloc(sizeof *named * (size_t)(k + 1));
      for (intptr_t j = 0; j < k; ++j)
        named[j] = mlirDictionaryAttrGetElement(d, j);
      if (mlirTypeIsALLVMPointerType(mlirValueGetType(mlirBlockGetArgument(entry, i))) &&
          mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(d, str("llvm.align"))))
        named[k++] = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("llvm.align")),
                                           mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 16));
      dicts[i] = mlirDictionaryAttrGet(ctx, k, named);
      free(named);
    }
    mlirOperationSetAttributeByName(f, str("arg_attrs"), mlirArrayAttrGet(ctx, n, dicts));
    free(dicts);
  }
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcGpuAlignArgsPass = {
    .argument = "dlc-gpu-align-args",
    .summary = "Mark the pointer parameters of NVVM kernels 16-byte aligned (device "
               "allocations are), so 128-bit accesses stay vector accesses",
    .anchor = "gpu.module",
    .run = alignArgs,
};
