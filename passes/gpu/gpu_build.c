/* gpu_build.h: the IR-building helpers of the GPU rewrites, once. */

#include "gpu/gpu_build.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdio.h>

MlirValue dlcGpuLookup(const DlcGpuValueMap *m, MlirValue v) {
  for (int i = m->n - 1; i >= 0; --i)
    if (mlirValueEqual(m->from[i], v))
      return m->to[i];
  return v;
}

MlirOperation dlcGpuOp(DlcBuilder *b, const char *name, intptr_t n, const MlirValue *ops,
                       MlirType result, intptr_t nAttrs, const MlirNamedAttribute *attrs) {
  return dlcBuildOpTyped(b, name, n, ops, mlirTypeIsNull(result) ? 0 : 1, &result, nAttrs, attrs);
}

MlirValue dlcGpuRes(MlirOperation op) { return mlirOperationGetResult(op, 0); }

MlirValue dlcGpuConstInt(DlcBuilder *b, MlirType t, int64_t v) {
  MlirNamedAttribute a = dlcNamed(b->context, "value", mlirIntegerAttrGet(t, v));
  return dlcGpuRes(dlcGpuOp(b, "arith.constant", 0, NULL, t, 1, &a));
}

MlirValue dlcGpuIndex(DlcBuilder *b, int64_t v) {
  return dlcGpuConstInt(b, mlirIndexTypeGet(b->context), v);
}

MlirValue dlcGpuBin(DlcBuilder *b, const char *name, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return dlcGpuRes(dlcGpuOp(b, name, 2, ops, mlirValueGetType(x), 0, NULL));
}

MlirValue dlcGpuBinIndex(DlcBuilder *b, const char *name, MlirValue x, int64_t c) {
  return dlcGpuBin(b, name, x, dlcGpuIndex(b, c));
}

MlirValue dlcGpuCmpUlt(DlcBuilder *b, MlirValue x, int64_t c) {
  MlirContext ctx = b->context;
  MlirValue ops[2] = {x, dlcGpuIndex(b, c)};
  MlirNamedAttribute pred =
      dlcNamed(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 6)); /* ult */
  return dlcGpuRes(dlcGpuOp(b, "arith.cmpi", 2, ops, mlirIntegerTypeGet(ctx, 1), 1, &pred));
}

DlcBuilder dlcGpuIfThen(DlcBuilder *b, MlirValue cond) {
  MlirRegion thenR = mlirRegionCreate(), elseR = mlirRegionCreate();
  MlirBlock thenB = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(thenR, thenB);
  MlirOperationState st =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.if"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  MlirRegion regions[2] = {thenR, elseR};
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  dlcBuilderInsert(b, mlirOperationCreate(&st));
  DlcBuilder in = dlcBuilderAtEnd(thenB, b->loc);
  MlirOperation y = dlcGpuOp(&in, "scf.yield", 0, NULL, (MlirType){NULL}, 0, NULL);
  return dlcBuilderBefore(y, b->loc);
}

MlirOperation dlcGpuModuleOf(MlirOperation op) {
  MlirOperation m = op;
  for (MlirOperation p = op; !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p))
    m = p;
  return m;
}

/*--- 128-bit epilogue stores (gpu_build.h) ---------------------------------------------*/

static MlirValue pick(DlcBuilder *b, MlirValue cond, MlirValue x, MlirValue y) {
  MlirValue ops[3] = {cond, x, y};
  return dlcGpuRes(dlcGpuOp(b, "arith.select", 3, ops, mlirValueGetType(x), 0, NULL));
}

void dlcGpuQuadSend(DlcBuilder *b, MlirValue odd, const MlirValue v[4], MlirValue send[2]) {
  for (int p = 0; p < 2; ++p) /* the even partner needs row g (h = 0), the odd one row g + 8 */
    send[p] = pick(b, odd, v[p], v[2 + p]);
}

void dlcGpuQuadJoin(DlcBuilder *b, MlirValue odd, const MlirValue v[4], const MlirValue recv[2],
                    MlirValue out[4]) {
  for (int p = 0; p < 2; ++p) {
    out[p] = pick(b, odd, recv[p], v[p]);         /* even: own row g; odd: partner's row g + 8 */
    out[2 + p] = pick(b, odd, v[2 + p], recv[p]); /* even: partner's columns; odd: own */
  }
}

void dlcGpuPairSend(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    MlirValue send[4]) {
  for (int e = 0; e < 4; ++e)
    send[e] = pick(b, hi, a[e], c[e]);
}

void dlcGpuPairJoin(DlcBuilder *b, MlirValue hi, const MlirValue a[4], const MlirValue c[4],
                    const MlirValue recv[4], MlirValue out[8]) {
  for (int e = 0; e < 4; ++e) {
    out[e] = pick(b, hi, recv[e], a[e]);     /* lo: tile j's columns 0-3 (own) */
    out[4 + e] = pick(b, hi, c[e], recv[e]); /* lo: tile j's columns 4-7 (partner's) */
  }
}

MlirValue dlcGpuShuffleXor(DlcBuilder *b, MlirValue v, int mask) {
  MlirContext ctx = b->context;
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue ops[3] = {v, dlcGpuConstInt(b, i32, mask), dlcGpuConstInt(b, i32, 32)};
  MlirType rts[2] = {mlirValueGetType(v), mlirIntegerTypeGet(ctx, 1)};
  MlirNamedAttribute mode = dlcNamed(
      ctx, "mode",
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#gpu<shuffle_mode xor>")));
  return mlirOperationGetResult(dlcBuildOpTyped(b, "gpu.shuffle", 3, ops, 2, rts, 1, &mode), 0);
}

MlirValue dlcGpuBitSet(DlcBuilder *b, MlirValue x, int64_t bit) {
  MlirContext ctx = b->context;
  MlirValue ops[2] = {dlcGpuBinIndex(b, "arith.andi", x, bit), dlcGpuIndex(b, 0)};
  MlirNamedAttribute pred =
      dlcNamed(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 1)); /* ne */
  return dlcGpuRes(dlcGpuOp(b, "arith.cmpi", 2, ops, mlirIntegerTypeGet(ctx, 1), 1, &pred));
}

void dlcGpuStoreVector(DlcBuilder *b, int n, const MlirValue *vals, MlirValue mem, intptr_t rank,
                       const MlirValue *idx) {
  MlirType vt = mlirVectorTypeGet(1, (int64_t[]){n}, mlirValueGetType(vals[0]));
  MlirValue ops[2 + 16];
  ops[0] = dlcGpuRes(dlcGpuOp(b, "vector.from_elements", n, vals, vt, 0, NULL));
  ops[1] = mem;
  for (intptr_t d = 0; d < rank && d < 16; ++d)
    ops[2 + d] = idx[d];
  dlcGpuOp(b, "vector.store", 2 + rank, ops, (MlirType){NULL}, 0, NULL);
}

/*--- Multi-stage staging by cp.async (gpu_build.h) ------------------------------------*/

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

MlirValue dlcGpuSharedGlobal(DlcBuilder *b, MlirOperation module, const char *prefix,
                             intptr_t rank, const int64_t *shape, MlirType elt) {
  MlirContext ctx = b->context;
  char name[64], type[256], text[512];
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  for (int i = 0;; ++i) { /* the first free name: names are per module */
    snprintf(name, sizeof name, "%s%d", prefix, i);
    if (mlirOperationIsNull(mlirSymbolTableLookup(table, ref(name))))
      break;
  }
  mlirSymbolTableDestroy(table);
  int n = snprintf(type, sizeof type, "memref<");
  for (intptr_t d = 0; d < rank; ++d)
    n += snprintf(type + n, sizeof type - (size_t)n, "%lldx", (long long)shape[d]);
  snprintf(type + n, sizeof type - (size_t)n, "%s, #gpu.address_space<workgroup>>",
           mlirTypeIsAF16(elt) ? "f16" : mlirTypeIsABF16(elt) ? "bf16" : "f32");
  snprintf(text, sizeof text,
           "memref.global \"private\" @%s : %s {alignment = 16 : i64}", name, type);
  MlirOperation g = mlirOperationCreateParse(ctx, ref(text), ref("dlc-gpu"));
  mlirBlockInsertOwnedOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)), 0, g);
  MlirNamedAttribute a = dlcNamed(ctx, "name", mlirFlatSymbolRefAttrGet(ctx, ref(name)));
  return dlcGpuRes(dlcGpuOp(b, "memref.get_global", 0, NULL, mlirTypeParseGet(ctx, ref(type)), 1, &a));
}

MlirValue dlcGpuAsyncCopy(DlcBuilder *b, MlirValue dst, intptr_t nDst, const MlirValue *dstIdx,
                          MlirValue src, intptr_t nSrc, const MlirValue *srcIdx,
                          int64_t elements, MlirValue srcElements, bool bypassL1) {
  MlirContext ctx = b->context;
  MlirValue ops[4 + 2 * 16];
  intptr_t o = 0;
  ops[o++] = dst;
  for (intptr_t i = 0; i < nDst; ++i)
    ops[o++] = dstIdx[i];
  ops[o++] = src;
  for (intptr_t i = 0; i < nSrc; ++i)
    ops[o++] = srcIdx[i];
  bool partial = !mlirValueIsNull(srcElements);
  if (partial)
    ops[o++] = srcElements;
  MlirNamedAttribute attrs[3];
  int na = 0;
  attrs[na++] = dlcNamed(ctx, "dstElements", mlirIntegerAttrGet(mlirIndexTypeGet(ctx), elements));
  attrs[na++] = dlcNamed(ctx, "operandSegmentSizes",
                         mlirDenseI32ArrayGet(ctx, 5,
                                              (int32_t[]){1, (int32_t)nDst, 1, (int32_t)nSrc,
                                                          partial ? 1 : 0}));
  if (bypassL1)
    attrs[na++] = dlcNamed(ctx, "bypassL1", mlirUnitAttrGet(ctx));
  MlirType token = mlirTypeParseGet(ctx, ref("!nvgpu.device.async.token"));
  return dlcGpuRes(dlcGpuOp(b, "nvgpu.device_async_copy", o, ops, token, na, attrs));
}

MlirValue dlcGpuAsyncCommit(DlcBuilder *b, intptr_t n, const MlirValue *tokens) {
  MlirType token = mlirTypeParseGet(b->context, ref("!nvgpu.device.async.token"));
  return dlcGpuRes(dlcGpuOp(b, "nvgpu.device_async_create_group", n, tokens, token, 0, NULL));
}

void dlcGpuAsyncWait(DlcBuilder *b, MlirValue group, int32_t numGroups) {
  MlirContext ctx = b->context;
  MlirNamedAttribute n =
      dlcNamed(ctx, "numGroups", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), numGroups));
  dlcGpuOp(b, "nvgpu.device_async_wait", 1, &group, (MlirType){NULL}, 1, &n);
}
