/* Linalg analysis shared by the CPU and GPU schedules (analysis.h). */

#include "schedule/analysis.h"

#include "dlc-c/Builder.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

bool dlcIsLinalg(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length > 7 && memcmp(n.data, "linalg.", 7) == 0;
}

/* The C API has no accessor for #linalg.iterator_type (an enum attribute
   without a C binding), but attributes are uniqued per context: the
   reduction kind is the one attribute equal to the parsed
   `#linalg.iterator_type<reduction>`. No text is printed or searched. */
bool dlcIteratorIsReduction(MlirAttribute iter) {
  MlirAttribute reduction =
      mlirAttributeParseGet(mlirAttributeGetContext(iter), str("#linalg.iterator_type<reduction>"));
  return !mlirAttributeIsNull(reduction) && mlirAttributeEqual(iter, reduction);
}

MlirAffineMap dlcOperandMap(MlirOperation op, intptr_t operand) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  if (mlirAttributeIsNull(maps)) /* linalg.fill: its output is the identity */
    return mlirAffineMapMultiDimIdentityGet(
        mlirOperationGetContext(op),
        mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, operand))));
  return mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operand));
}

/* True when the body yields `combiner(x, out)` for a combiner that
   tile_reduction_using_for can split into vector-wide partial results. */
static bool yieldsCombiner(MlirOperation generic) {
  static const char *const kCombiners[] = {"arith.addf",     "arith.mulf",    "arith.maximumf",
                                           "arith.minimumf", "arith.maxnumf", "arith.minnumf",
                                           "arith.addi"};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue y = mlirOperationGetOperand(yield, 0);
  if (!mlirValueIsAOpResult(y))
    return false;
  MlirOperation comb = mlirOpResultGetOwner(y);
  bool known = false;
  for (size_t c = 0; c < sizeof kCombiners / sizeof kCombiners[0] && !known; ++c)
    known = dlcOpIs(comb, kCombiners[c]);
  if (!known)
    return false;
  MlirValue acc = mlirBlockGetArgument(body, mlirBlockGetNumArguments(body) - 1);
  return mlirValueEqual(mlirOperationGetOperand(comb, 0), acc) ||
         mlirValueEqual(mlirOperationGetOperand(comb, 1), acc);
}

/* Vectors of i1 are bit-packed in memory while tensors of i1 take a byte
   per element, and a tensor.extract in a body is a gather: both stay scalar. */
static bool vectorSafe(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    MlirType e = mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t;
    if (mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1)
      return false;
  }
  if (mlirOperationGetNumRegions(op) == 0)
    return true;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (dlcOpIs(o, "tensor.extract"))
      return false;
  return true;
}

static bool mapReads(MlirAffineMap m, int d) {
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(m, r);
    if (mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == d)
      return true;
  }
  return false;
}

/* The tensor whose rows operand `v` is read from: the source of a
   same-rank, unit-stride tensor.extract_slice (A sliced back out of its
   padded copy, schedule/gemm_packing.h), whose rows lie that far apart
   once bufferized, else `v` itself. */
static MlirType storageType(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  MlirOperation slice = dlcDefiningOp(v, "tensor.extract_slice");
  if (mlirOperationIsNull(slice) || mlirOperationGetNumOperands(slice) != 1)
    return t; /* dynamic offsets, sizes or strides */
  MlirType src = mlirValueGetType(mlirOperationGetOperand(slice, 0));
  intptr_t rank = mlirShapedTypeGetRank(t);
  if (!mlirShapedTypeHasStaticShape(src) || mlirShapedTypeGetRank(src) != rank)
    return t;
  int64_t strides[DLC_SCHEDULE_MAX_LOOPS];
  if (rank > DLC_SCHEDULE_MAX_LOOPS || dlcGetI64Array(slice, "static_strides", strides, rank) != rank)
    return t;
  for (intptr_t d = 0; d < rank; ++d)
    if (strides[d] != 1)
      return t; /* rows further apart than the source's */
  return src;
}

/* Bytes between consecutive values of loop `d` in operand `i` (a static
   row-major tensor), 0 when the operand does not read it. */
static int64_t rowBytes(MlirOperation op, intptr_t i, int d) {
  MlirAffineMap m = dlcOperandMap(op, i);
  MlirType t = storageType(mlirOperationGetOperand(op, i));
  MlirType e = mlirShapedTypeGetElementType(t);
  if (d < 0 || !mlirShapedTypeHasStaticShape(t) || !mlirTypeIsAFloat(e))
    return 0;
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
    MlirAffineExpr x = mlirAffineMapGetResult(m, r);
    if (!mlirAffineExprIsADim(x) || mlirAffineDimExprGetPosition(x) != d)
      continue;
    int64_t bytes = mlirFloatTypeGetWidth(e) / 8;
    for (intptr_t q = r + 1; q < mlirShapedTypeGetRank(t); ++q)
      bytes *= mlirShapedTypeGetDimSize(t, q);
    return bytes;
  }
  return 0;
}

static int bitsOf(MlirType shaped) {
  MlirType e = mlirShapedTypeGetElementType(shaped);
  if (mlirTypeIsAInteger(e))
    return (int)mlirIntegerTypeGetWidth(e);
  if (mlirTypeIsAF16(e) || mlirTypeIsABF16(e))
    return 16;
  if (mlirTypeIsAF64(e))
    return 64;
  return 32;
}

static bool readFill(MlirOperation op, DlcLinalgInfo *info) {
  DlcLoopNest *l = &info->loops;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  l->numLoops = (int)mlirShapedTypeGetRank(t);
  if (l->numLoops > DLC_SCHEDULE_MAX_LOOPS)
    return false;
  for (int d = 0; d < l->numLoops; ++d)
    l->extent[d] = mlirShapedTypeIsDynamicDim(t, d) ? -1 : mlirShapedTypeGetDimSize(t, d);
  info->vectorizable = mlirShapedTypeHasStaticShape(t) && vectorSafe(op);
  info->numParallel = l->numLoops;
  return true;
}

/* A GEMM's panel loops (B and the output read them, A does not), its row
   loops (A reads them, B does not) and the bytes between A's rows. */
static void readPanels(DlcLinalgInfo *info) {
  MlirOperation op = info->op;
  DlcLoopNest *l = &info->loops;
  for (int d = 0; d < info->numParallel - 2; ++d) {
    bool a = mapReads(dlcOperandMap(op, 0), d), b = mapReads(dlcOperandMap(op, 1), d);
    l->panel[d] = !a && b;
    l->rows[d] = a && !b;
  }
  l->aRowBytes = rowBytes(op, 0, info->numParallel - 2);
}

bool dlcReadLinalg(MlirOperation op, DlcLinalgInfo *info) {
  memset(info, 0, sizeof *info);
  info->op = op;
  DlcLoopNest *l = &info->loops;
  if (mlirOperationGetNumResults(op) > 0) {
    MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (mlirTypeIsARankedTensor(rt))
      info->elementBits = bitsOf(rt);
  }
  if (dlcOpIs(op, "linalg.fill"))
    return mlirOperationGetNumResults(op) == 1 && readFill(op, info);
  if (!dlcOpIs(op, "linalg.generic"))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  intptr_t nMaps = mlirArrayAttrGetNumElements(maps);
  if (nMaps != mlirOperationGetNumOperands(op) ||
      mlirArrayAttrGetNumElements(iters) > DLC_SCHEDULE_MAX_LOOPS)
    return false;
  l->numLoops = (int)mlirArrayAttrGetNumElements(iters);
  int reductions = 0;
  for (int d = 0; d < l->numLoops; ++d) {
    l->extent[d] = -1;
    l->reduction[d] = dlcIteratorIsReduction(mlirArrayAttrGetElement(iters, d));
    reductions += l->reduction[d];
  }
  info->vectorizable = vectorSafe(op);
  for (intptr_t i = 0; i < nMaps; ++i) {
    MlirAffineMap m = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirTypeIsAShaped(t)) {
      info->scalarOperand = true;
      continue;
    }
    if (!mlirAffineMapIsProjectedPermutation(m))
      info->vectorizable = false;
    if (!mlirTypeIsARankedTensor(t))
      return false;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(m, r);
      if (mlirAffineExprIsADim(e) && !mlirShapedTypeIsDynamicDim(t, r))
        l->extent[mlirAffineDimExprGetPosition(e)] = mlirShapedTypeGetDimSize(t, r);
    }
  }
  for (int d = 0; d < l->numLoops; ++d)
    if (l->extent[d] < 0)
      info->vectorizable = false;
  info->sums = yieldsCombiner(op);
  info->combiner =
      reductions == 1 && l->numLoops > 0 && l->reduction[l->numLoops - 1] && info->sums;
  info->numParallel = l->numLoops - reductions;
  for (int d = info->numParallel; d < l->numLoops; ++d)
    if (!l->reduction[d])
      info->numParallel = -1;
  if (nMaps == 3 && !info->scalarOperand)
    readPanels(info);
  return true;
}

bool dlcIsGemmRoot(const DlcLinalgInfo *r) {
  int p = r->numParallel;
  if (!r->vectorizable || !r->sums || p < 2 || p == r->loops.numLoops ||
      mlirOperationGetNumOperands(r->op) != 3)
    return false;
  MlirAffineMap out = dlcOperandMap(r->op, 2);
  if (mlirAffineMapGetNumResults(out) != p)
    return false;
  for (int d = 0; d < p; ++d) {
    MlirAffineExpr e = mlirAffineMapGetResult(out, d);
    if (!mlirAffineExprIsADim(e) || mlirAffineDimExprGetPosition(e) != d)
      return false;
  }
  return true;
}

bool dlcIsDotGemmRoot(const DlcLinalgInfo *r) {
  int n = r->loops.numLoops;
  if (!dlcIsGemmRoot(r) || r->numParallel != n - 1)
    return false;
  for (intptr_t i = 0; i < 2; ++i) {
    MlirAffineMap m = dlcOperandMap(r->op, i);
    intptr_t k = mlirAffineMapGetNumResults(m);
    if (k < 2)
      return false;
    MlirAffineExpr last = mlirAffineMapGetResult(m, k - 1);
    if (!mlirAffineExprIsADim(last) || mlirAffineDimExprGetPosition(last) != (unsigned)(n - 1))
      return false;
  }
  return true;
}

bool dlcHasReduction(const DlcLinalgInfo *o) {
  for (int d = 0; d < o->loops.numLoops; ++d)
    if (o->loops.reduction[d])
      return true;
  return false;
}

void dlcSinkTiles(const DlcLinalgInfo *root, const DlcLinalgInfo *sink, bool rootIsSink,
                  const int64_t *rootTiles, int64_t *out) {
  int p = root->numParallel;
  memset(out, 0, sizeof(int64_t) * DLC_SCHEDULE_MAX_LOOPS);
  for (int d = 0; d < p; ++d)
    out[d] = rootTiles[d];
  if (rootIsSink)
    return;
  MlirValue r = mlirOperationGetResult(root->op, 0);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(sink->op); ++i) {
    if (!mlirValueEqual(mlirOperationGetOperand(sink->op, i), r))
      continue;
    MlirAffineMap in = dlcOperandMap(sink->op, i), outMap = dlcOperandMap(root->op, 2);
    for (intptr_t k = 0; k < mlirAffineMapGetNumResults(in) && k < p; ++k) {
      MlirAffineExpr se = mlirAffineMapGetResult(in, k), re = mlirAffineMapGetResult(outMap, k);
      if (mlirAffineExprIsADim(se) && mlirAffineExprIsADim(re))
        out[mlirAffineDimExprGetPosition(se)] = rootTiles[mlirAffineDimExprGetPosition(re)];
    }
    return;
  }
}
