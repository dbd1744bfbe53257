/* Direct convolution: which conv2d takes it, and recognising its root
   (conv_direct.h). Its cost model is in cost_model.c, its transform
   script in cpu_schedule.c. */

#include "schedule/conv_direct.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"

int64_t dlcConvDirectPanel(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                           const DlcShape *y, int64_t groups, bool f32, const int64_t *strides) {
  if (!p->pack || groups != 1 || !f32 || x->rank != 4 || w->rank != 4 || y->rank != 4 ||
      strides[1] != 1 || p->vectorWidth < 2)
    return 0;
  for (intptr_t i = 0; i < 4; ++i)
    if (x->dims[i] == DLC_DYNAMIC || w->dims[i] == DLC_DYNAMIC || y->dims[i] == DLC_DYNAMIC)
      return 0;
  /* NR: two vectors, one, or half of one (MobileNet's 24 channels) */
  int64_t o = w->dims[0], vw = p->vectorWidth;
  const int64_t widths[] = {2 * vw, vw, vw / 2};
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; ++i)
    if (o % widths[i] == 0)
      return widths[i];
  return 0;
}

static bool isDim(MlirAffineExpr e, intptr_t d) {
  return mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == d;
}

/* `d` or `d * constant` */
static bool isScaledDim(MlirAffineExpr e, intptr_t d) {
  if (isDim(e, d))
    return true;
  return mlirAffineExprIsAMul(e) &&
         ((isDim(mlirAffineBinaryOpExprGetLHS(e), d) &&
           mlirAffineExprIsAConstant(mlirAffineBinaryOpExprGetRHS(e))) ||
          (isDim(mlirAffineBinaryOpExprGetRHS(e), d) &&
           mlirAffineExprIsAConstant(mlirAffineBinaryOpExprGetLHS(e))));
}

/* `a * s + b * t` in either order */
static bool isWindow(MlirAffineExpr e, intptr_t out, intptr_t tap, bool unitStride) {
  if (!mlirAffineExprIsAAdd(e))
    return false;
  MlirAffineExpr l = mlirAffineBinaryOpExprGetLHS(e), r = mlirAffineBinaryOpExprGetRHS(e);
  bool (*first)(MlirAffineExpr, intptr_t) = unitStride ? isDim : isScaledDim;
  return (first(l, out) && isScaledDim(r, tap)) || (first(r, out) && isScaledDim(l, tap));
}

bool dlcIsDirectConvRoot(const DlcLinalgInfo *info) {
  const DlcLoopNest *l = &info->loops;
  if (l->numLoops != DLC_CONV_LOOPS || info->numParallel != DLC_CONV_C || !info->sums ||
      mlirOperationGetNumOperands(info->op) != 3)
    return false;
  for (int d = 0; d < l->numLoops; ++d)
    if (l->extent[d] <= 0)
      return false;
  MlirAffineMap x = dlcOperandMap(info->op, 0), w = dlcOperandMap(info->op, 1),
                y = dlcOperandMap(info->op, 2);
  static const int kW[] = {DLC_CONV_PANEL, DLC_CONV_C, DLC_CONV_KH, DLC_CONV_KW, DLC_CONV_N};
  if (mlirAffineMapGetNumResults(x) != 4 || mlirAffineMapGetNumResults(w) != 5 ||
      mlirAffineMapGetNumResults(y) != 5)
    return false;
  for (int r = 0; r < 5; ++r)
    if (!isDim(mlirAffineMapGetResult(w, r), kW[r]) || !isDim(mlirAffineMapGetResult(y, r), r))
      return false;
  return isDim(mlirAffineMapGetResult(x, 0), DLC_CONV_IMAGE) &&
         isDim(mlirAffineMapGetResult(x, 1), DLC_CONV_C) &&
         isWindow(mlirAffineMapGetResult(x, 2), DLC_CONV_OH, DLC_CONV_KH, false) &&
         isWindow(mlirAffineMapGetResult(x, 3), DLC_CONV_OW, DLC_CONV_KW, true);
}

bool dlcConvDepthwise(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                      const DlcShape *y, int64_t groups, bool f32, const int64_t *strides) {
  if (!p->pack || !f32 || x->rank != 4 || w->rank != 4 || y->rank != 4 || strides[1] != 1)
    return false;
  for (intptr_t i = 0; i < 4; ++i)
    if (x->dims[i] == DLC_DYNAMIC || w->dims[i] == DLC_DYNAMIC || y->dims[i] == DLC_DYNAMIC)
      return false;
  return groups > 1 && groups == x->dims[1] && groups == w->dims[0] && w->dims[1] == 1;
}

bool dlcIsDepthwiseConvRoot(const DlcLinalgInfo *info) {
  const DlcLoopNest *l = &info->loops;
  if (l->numLoops != DLC_DW_LOOPS || info->numParallel != DLC_DW_KH || !info->sums ||
      mlirOperationGetNumOperands(info->op) != 3)
    return false;
  for (int d = 0; d < l->numLoops; ++d)
    if (l->extent[d] <= 0)
      return false;
  MlirAffineMap x = dlcOperandMap(info->op, 0), w = dlcOperandMap(info->op, 1),
                y = dlcOperandMap(info->op, 2);
  if (mlirAffineMapGetNumResults(x) != 4 || mlirAffineMapGetNumResults(w) != 4 ||
      mlirAffineMapGetNumResults(y) != 4)
    return false;
  for (int r = 0; r < 4; ++r)
    if (!isDim(mlirAffineMapGetResult(y, r), r))
      return false;
  MlirAffineExpr w1 = mlirAffineMapGetResult(w, 1);
  return isDim(mlirAffineMapGetResult(w, 0), DLC_DW_C) && mlirAffineExprIsAConstant(w1) &&
         mlirAffineConstantExprGetValue(w1) == 0 &&
         isDim(mlirAffineMapGetResult(w, 2), DLC_DW_KH) &&
         isDim(mlirAffineMapGetResult(w, 3), DLC_DW_KW) &&
         isDim(mlirAffineMapGetResult(x, 0), DLC_DW_IMAGE) &&
         isDim(mlirAffineMapGetResult(x, 1), DLC_DW_C) &&
         isWindow(mlirAffineMapGetResult(x, 2), DLC_DW_OH, DLC_DW_KH, false) &&
         isWindow(mlirAffineMapGetResult(x, 3), DLC_DW_OW, DLC_DW_KW, true);
}
