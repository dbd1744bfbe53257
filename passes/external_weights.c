/* --dlc-external-weights: the weights leave the LLVM module; the runtime
   binds them at load time.

   After the LLVM conversion every constant tensor is an
   `llvm.mlir.global private constant @w(dense<...>)` whose initializer
   LLVM would build as nested ConstantArrays (one uniqued ConstantDataArray
   per innermost row), optimise around and emit byte by byte. For ResNet-50
   (100 MB of weights) that was 95% of the compile time (perf: LLVM
   constant uniquing, malloc and the LLVMContext's teardown).

   Each constant global whose initializer is at least `min-bytes` of
   non-splat int or float data becomes an external declaration
   (`llvm.mlir.global external constant @w()`), and its initializer moves
   to the module's `dlc.weights` dictionary (symbol -> elements attribute).
   The attribute is the MLIR context's own, so nothing is copied: the JIT
   (capi/lib/Compile.c) registers each symbol at the address of the
   attribute's bytes, and the AOT compiler (capi/lib/Aot.c) puts them back
   as one flat byte array per global, which LLVM emits with one memcpy.

   Small constants stay: LLVM folds loads from small tables (indices,
   masks) and they cost nothing to compile. Splats stay too: their
   initializer is one element. i1 stays: MLIR packs its bits, LLVM does
   not. */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Builder.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Bytes of one element of `t` when its storage is that many whole bytes
   (ints and floats of 8, 16, 32 or 64 bits), else 0. */
static int64_t elementBytes(MlirType t) {
  int64_t bits = 0;
  if (mlirTypeIsAInteger(t))
    bits = mlirIntegerTypeGetWidth(t);
  else if (mlirTypeIsAFloat(t))
    bits = mlirFloatTypeGetWidth(t);
  else if (mlirTypeIsAIndex(t))
    bits = 64;
  return bits >= 8 && bits % 8 == 0 ? bits / 8 : 0;
}

/* The initializer's bytes when the global can be bound to them. */
static bool externalizable(MlirAttribute value, int64_t minBytes, size_t *bytes) {
  if (mlirAttributeIsNull(value) || !mlirAttributeIsAElements(value))
    return false;
  MlirType t = mlirAttributeGetType(value);
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasStaticShape(t))
    return false;
  int64_t elt = elementBytes(mlirShapedTypeGetElementType(t));
  const void *data;
  bool splat;
  if (!elt || !dlcElementsAttrGetRawData(value, &data, bytes, &splat) || splat)
    return false;
  int64_t n = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t); ++d)
    n *= mlirShapedTypeGetDimSize(t, d);
  /* a raw buffer in the layout LLVM gives the array type, and big enough */
  return (int64_t)*bytes == n * elt && (int64_t)*bytes >= minBytes;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  MlirContext ctx = mlirOperationGetContext(module);
  int64_t minBytes = dlcOptionsGetInt(dlcPassGetOptions(pass), "min-bytes");
  MlirIdentifier existingName = mlirIdentifierGet(ctx, str("dlc.weights"));
  MlirAttribute existing =
      mlirOperationGetDiscardableAttributeByName(module, str("dlc.weights"));
  intptr_t cap = 16, n = 0;
  MlirNamedAttribute *entries = malloc(sizeof *entries * (size_t)cap);
  if (!mlirAttributeIsNull(existing) && mlirAttributeIsADictionary(existing))
    for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(existing); ++i) {
      if (n == cap)
        entries = realloc(entries, sizeof *entries * (size_t)(cap *= 2));
      entries[n++] = mlirDictionaryAttrGetElement(existing, i);
    }
  MlirAttribute external = mlirAttributeParseGet(ctx, str("#llvm.linkage<external>"));
  uint64_t bound = 0, boundBytes = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(
           mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!dlcOpIs(op, "llvm.mlir.global") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("constant"))) ||
        mlirOperationGetNumRegions(op) != 1 ||
        !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue; /* mutable, or initialised by a region */
    MlirAttribute value = mlirOperationGetAttributeByName(op, str("value"));
    size_t bytes;
    if (!externalizable(value, minBytes, &bytes))
      continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (n == cap)
      entries = realloc(entries, sizeof *entries * (size_t)(cap *= 2));
    entries[n++] = mlirNamedAttributeGet(
        mlirIdentifierGet(ctx, mlirStringAttrGetValue(sym)), value);
    mlirOperationRemoveAttributeByName(op, str("value"));
    mlirOperationRemoveAttributeByName(op, str("dso_local")); /* bound anywhere */
    mlirOperationSetAttributeByName(op, str("linkage"), external);
    ++bound;
    boundBytes += bytes;
  }
  if (n)
    mlirOperationSetDiscardableAttributeByName(
        module, mlirIdentifierStr(existingName), mlirDictionaryAttrGet(ctx, n, entries));
  free(entries);
  dlcPassAddStatistic(pass, "bound-globals", bound);
  dlcPassAddStatistic(pass, "bound-bytes", boundBytes);
  return (MlirLogicalResult){1};
}

static const DlcOptionDesc kOptions[] = {
    {"min-bytes", "smallest initializer (bytes) that leaves the module", DLC_OPTION_INT, "4096"},
};

static const DlcStatisticDesc kStatistics[] = {
    {"bound-globals", "Constant globals turned into declarations bound at load time"},
    {"bound-bytes", "Bytes of initializer data taken out of the module"},
};

const DlcPassDescriptor dlcExternalWeightsPass = {
    .argument = "dlc-external-weights",
    .summary = "Turn large constant LLVM globals into external declarations; their data "
               "goes to the module's dlc.weights attribute, bound by the JIT and AOT",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = sizeof kStatistics / sizeof kStatistics[0],
    .run = run,
};
