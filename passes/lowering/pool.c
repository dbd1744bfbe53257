/* max_pool2d / avg_pool2d: a generic over (n, c, oh, ow | kh, kw) on the
   padded input (padded further where ceil_mode windows run past it), the
   window's extent given by an empty [kH, kW] operand; average pooling then
   divides by each window's element count. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include "shape/Checked.h"

#include <stdlib.h>

static bool poolBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  bool isMax = *(bool *)u;
  y[0] = isMax ? dlcArith(b, "arith.maximumf", "arith.maxsi", a[2], a[0])
               : dlcArith(b, "arith.addf", "arith.addi", a[2], a[0]);
  return true;
}

static bool divideBody(DlcBuilder *b, const MlirValue *a, MlirValue *y, void *u) {
  y[0] = dlcArith(b, "arith.divf", NULL, a[0], dlcConvertScalar(b, a[1], mlirValueGetType(a[0])));
  return true;
}

/* The sum `r` of average pooling divided by each window's element count
   (PyTorch's rule: padding counted only with count_include_pad). */
static MlirValue divideByCount(DlcBuilder *b, MlirOperation op, MlirValue r, const DlcShape *sx,
                               const DlcShape *so, const int64_t *k, const int64_t *st,
                               const int64_t *pad, const DlcDimSources *dims) {
  MlirContext ctx = b->context;
  bool include = dlcGetBool(op, "count_include_pad", false);
  int64_t ho = so->dims[2], wo = so->dims[3];
  float *div = dlcXmalloc(sizeof(float) * (size_t)(ho * wo));
  for (int64_t i = 0; i < ho; ++i)
    for (int64_t j = 0; j < wo; ++j) {
      int64_t cnt[2], idx[2] = {i, j};
      for (int d = 0; d < 2; ++d) {
        int64_t in = sx->dims[2 + d], lo = idx[d] * st[d] - pad[d];
        int64_t hi = lo + k[d] < in + pad[d + 2] ? lo + k[d] : in + pad[d + 2];
        int64_t full = hi - lo;
        lo = lo < 0 ? 0 : lo;
        hi = hi > in ? in : hi;
        cnt[d] = include ? full : hi - lo;
      }
      div[i * wo + j] = (float)(cnt[0] * cnt[1]);
    }
  int64_t dd[2] = {ho, wo};
  MlirType dt = mlirRankedTensorTypeGet(2, dd, mlirF32TypeGet(ctx), mlirAttributeGetNull());
  MlirAttribute dv = mlirDenseElementsAttrFloatGet(dt, ho * wo, div);
  free(div);
  MlirValue divisor = dlcLowerOut(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &dt,
                                                  DLC_ATTRS(dlcNamed(ctx, "value", dv))));
  DlcGeneric q = {.nLoops = 4, .nIns = 2, .nOuts = 1};
  MlirAffineExpr de[2] = {dlcDim(ctx, 2), dlcDim(ctx, 3)};
  q.ins[0] = r;
  q.ins[1] = divisor;
  q.maps[0] = q.maps[2] = dlcMapIdentity(ctx, 4);
  q.maps[1] = dlcMapGet(ctx, 4, 2, de);
  q.outs[0] = dlcEmptyFrom(b, dlcLowerResultType(op), dims);
  return dlcLowerOut(dlcEmitGeneric(b, &q, divideBody, NULL));
}

static MlirValue lowerPool(DlcBuilder *b, MlirOperation op, bool isMax) {
  MlirContext ctx = b->context;
  MlirValue x = mlirOperationGetOperand(op, 0);
  DlcShape sx = dlcLowerShape(x), so = dlcLowerShape(mlirOperationGetResult(op, 0));
  int64_t k[2] = {1, 1}, st[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  dlcGetI64Array(op, "kernel", k, 2);
  dlcGetI64Array(op, "strides", st, 2);
  dlcGetI64Array(op, "padding", pad, 4);
  if (sx.dims[2] < 0 || sx.dims[3] < 0)
    return dlcLowerFail(op, "cannot lower pooling over dynamic spatial dimensions");
  MlirType elt = mlirShapedTypeGetElementType(dlcLowerResultType(op));
  int64_t low[4] = {0, 0, pad[0], pad[1]}, high[4] = {0, 0, pad[2], pad[3]};
  for (int d = 0; d < 2; ++d) { /* ceil_mode windows may run past the padding */
    int64_t need = (so.dims[2 + d] - 1) * st[d] + k[d] - (sx.dims[2 + d] + pad[d] + pad[d + 2]);
    if (need > 0)
      high[2 + d] += need;
  }
  x = dlcEmitPad(b, x, low, high, isMax ? dlcLowest(elt) : 0.0);
  enum { N, C, OH, OW, KH, KW, LOOPS };
  DlcGeneric g = {.nLoops = LOOPS, .nIns = 2, .nOuts = 1};
  g.reduction[KH] = g.reduction[KW] = true;
  MlirAffineExpr xe[4] = {
      dlcDim(ctx, N), dlcDim(ctx, C),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OH), dlcConst(ctx, st[0])),
                           dlcDim(ctx, KH)),
      mlirAffineAddExprGet(mlirAffineMulExprGet(dlcDim(ctx, OW), dlcConst(ctx, st[1])),
                           dlcDim(ctx, KW))};
  MlirAffineExpr ke[2] = {dlcDim(ctx, KH), dlcDim(ctx, KW)};
  MlirAffineExpr oe[4] = {dlcDim(ctx, N), dlcDim(ctx, C), dlcDim(ctx, OH), dlcDim(ctx, OW)};
  MlirType wt = mlirRankedTensorTypeGet(2, k, elt, mlirAttributeGetNull());
  g.ins[0] = x;
  g.ins[1] = dlcEmitEmpty(b, wt, NULL, NULL);
  g.maps[0] = dlcMapGet(ctx, LOOPS, 4, xe);
  g.maps[1] = dlcMapGet(ctx, LOOPS, 2, ke);
  g.maps[2] = dlcMapGet(ctx, LOOPS, 4, oe);
  DlcDimSources dims = dlcDimsNone(); /* batch and channels from x; spatial dims static */
  dims.of[0] = dims.of[1] = x, dims.idx[1] = 1;
  g.outs[0] = dlcFilledFrom(b, dlcLowerResultType(op), isMax ? dlcLowest(elt) : 0.0, &dims);
  MlirOperation r = dlcEmitGeneric(b, &g, poolBody, &isMax);
  if (isMax || mlirOperationIsNull(r))
    return dlcLowerOut(r);
  return divideByCount(b, op, dlcLowerOut(r), &sx, &so, k, st, pad, &dims);
}

static MlirValue lowerMaxPool(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerPool(b, op, true);
}

static MlirValue lowerAvgPool(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  return lowerPool(b, op, false);
}

DLC_LOWERINGS(Pool, {"dlg.max_pool2d", lowerMaxPool}, {"dlg.avg_pool2d", lowerAvgPool});
