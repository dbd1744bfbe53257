/* Direct convolution: which conv2d takes it, and recognising its root
   (conv_direct.h). Its cost model is in cost_model.c, its transform
   script in cpu_schedule.c. */

#include "schedule/conv_direct.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"

/* The share of the FMA peak (the cost model's throughput of its register
   tile) below which a direct conv is left to the GEMM path where that
   takes it. AVX2's 16 registers leave rows of 7 and 14 pixels tiles of
   1 x 16 or 2 x 16 (7 x 8 with one vector: 70%), and there the GEMM over
   the output's flattened pixels (6 x 16 tiles) ran faster on Zen 1, one
   conv alone, 1 thread (dlc-run --profile): 3x3 256 -> 256 at 14x14
   7.5 ms against 8.5 (2 x 16) and 9.2 (7 x 8); 1x1 1024 -> 256 at 14x14
   3.5 against 4.6; 3x3 512 -> 512 at 7x7 9.3 against 10.1 (7 x 8) and
   15.0 (1 x 16). Rows of 28 and 56 (4 x 16: 80%) stay direct: 3x3 at
   28x28 and 56x56 ran 1.25x and 1.45x faster than the GEMM. */
static const struct { int64_t num, den; } kDirectRate = {3, 4};
/* How much faster (modelled) the one-vector panel's tile must be to be
   taken over the two-vector one's when there is no GEMM to go to: the
   model counts only the k step, not that a narrower panel uses each input
   broadcast for half the FMAs and reads the input rows for twice the
   panels (3x3 at 14x14: 0.93x; 1x1 at 14x14 1.2x, 3x3 at 7x7 1.5x). */
static const struct { int64_t num, den; } kNarrowGain = {3, 2};

int64_t dlcConvDirectPanel(const DlcGemmPacking *p, const DlcShape *x, const DlcShape *w,
                           const DlcShape *y, int64_t groups, bool f32, const int64_t *strides) {
  if (!p->pack || groups != 1 || !f32 || x->rank != 4 || w->rank != 4 || y->rank != 4 ||
      strides[1] != 1 || p->vectorWidth < 2)
    return 0;
  for (intptr_t i = 0; i < 4; ++i)
    if (x->dims[i] == DLC_DYNAMIC || w->dims[i] == DLC_DYNAMIC || y->dims[i] == DLC_DYNAMIC)
      return 0;
  /* NR: two vectors, one, or half of one (MobileNet's 24 channels) */
  int64_t o = w->dims[0], wo = y->dims[3], vw = p->vectorWidth, nr = 0;
  const int64_t widths[] = {2 * vw, vw, vw / 2};
  for (size_t i = 0; i < sizeof widths / sizeof widths[0] && !nr; ++i)
    if (o % widths[i] == 0)
      nr = widths[i];
  if (!nr)
    return 0;
  int64_t acc, time;
  dlcConvRegisterRows(wo, nr, vw, &acc, &time);
  if (acc * kDirectRate.den >= time * kDirectRate.num)
    return nr;
  DlcConvGemm mode;
  if (dlcConvAsGemm(p, x, w, y, groups, f32, &mode) > 0)
    return 0;
  /* no GEMM to fall back to (a batch of 14x14 images): one vector where its
     tile is much the faster (7 x 8 against 2 x 16 at Wo = 14) */
  if (nr == 2 * vw) {
    int64_t narrowAcc, narrowTime;
    dlcConvRegisterRows(wo, vw, vw, &narrowAcc, &narrowTime);
    if (narrowAcc * time * kNarrowGain.den > acc * narrowTime * kNarrowGain.num)
      return vw;
  }
  return nr;
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
