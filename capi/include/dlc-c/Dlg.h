/*===-- dlc-c/Dlg.h - The dlg ops: families and builders ----------*- C -*-===*\
|*                                                                            *|
|* Op families: dlc-c/DlgFamily.h (the dialect layer's, re-exported here).  *|
|*                                                                            *|
|* Builders: one function per dlg op. Result types are inferred from the     *|
|* op's shape rule; a rule violation returns a null value after emitting a   *|
|* diagnostic at the builder's location. Null array arguments select the     *|
|* attribute's default. A null operand (an earlier failure) propagates as    *|
|* null.                                                                      *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_DLG_H
#define DLC_C_DLG_H

#include "dlc-c/Builder.h"
#include "dlc-c/DlgFamily.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef DlcBuilder *DlcB;

/*===----------------------------------------------------------------------===*
 * Builders
 *===----------------------------------------------------------------------===*/

/* Any op of an elementwise family (unary, binary, compare, select) by name,
   with its attributes left at their defaults: an op added to one of those
   families is buildable without a new function here. Any other name is an
   error at the builder's location and a null value. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildElementwise(DlcB b, const char *name,
                                                    intptr_t n,
                                                    const MlirValue *operands);

MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildConstant(DlcB b, MlirAttribute value);

/* Binary elementwise ops with NumPy broadcasting. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAdd(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSub(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildMul(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildDiv(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildMax(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildMin(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildPow(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildWhere(DlcB b, MlirValue cond,
                                              MlirValue lhs, MlirValue rhs);

/* Unary elementwise ops. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildNeg(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAbs(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildExp(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildLog(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSqrt(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildRsqrt(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildTanh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildErf(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSigmoid(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildRelu(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSilu(DlcB b, MlirValue x);
/* Trigonometric and hyperbolic functions (float tensors). */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSin(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildCos(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildTan(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAsin(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAcos(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAtan(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSinh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildCosh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAsinh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAcosh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAtanh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildGelu(DlcB b, MlirValue x, bool tanhApprox);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildClamp(DlcB b, MlirValue x, double min,
                                              double max);
/* Converts to `elementType`, keeping the shape. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildCast(DlcB b, MlirValue x,
                                             MlirType elementType);

MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildMatmul(DlcB b, MlirValue a, MlirValue bm,
                                               bool transposeA, bool transposeB);
/* bias may be null; strides[2], padding[4], dilations[2] may be NULL. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildConv2d(DlcB b, MlirValue input,
                                               MlirValue weight, MlirValue bias,
                                               const int64_t *strides,
                                               const int64_t *padding,
                                               const int64_t *dilations,
                                               int64_t groups);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildMaxPool2d(DlcB b, MlirValue input,
                                                  const int64_t *kernel,
                                                  const int64_t *strides,
                                                  const int64_t *padding,
                                                  bool ceilMode);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildAvgPool2d(DlcB b, MlirValue input,
                                                  const int64_t *kernel,
                                                  const int64_t *strides,
                                                  const int64_t *padding,
                                                  bool ceilMode,
                                                  bool countIncludePad);

MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildBatchNorm(DlcB b, MlirValue x,
                                                  MlirValue scale, MlirValue bias,
                                                  MlirValue mean, MlirValue var,
                                                  double epsilon, int64_t axis);
/* gamma and beta may be null. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildLayerNorm(DlcB b, MlirValue x,
                                                  MlirValue gamma, MlirValue beta,
                                                  int64_t axis, double epsilon);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildRmsNorm(DlcB b, MlirValue x,
                                                MlirValue gamma, int64_t axis,
                                                double epsilon);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSoftmax(DlcB b, MlirValue x, int64_t axis);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildLogSoftmax(DlcB b, MlirValue x,
                                                   int64_t axis);

/* Reductions; nAxes == 0 reduces every dim. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildReduceSum(DlcB b, MlirValue x, intptr_t nAxes,
                                                  const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildReduceMean(DlcB b, MlirValue x, intptr_t nAxes,
                                                   const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildReduceMax(DlcB b, MlirValue x, intptr_t nAxes,
                                                  const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildReduceMin(DlcB b, MlirValue x, intptr_t nAxes,
                                                  const int64_t *axes, bool keepdims);

MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildTranspose(DlcB b, MlirValue x, intptr_t n,
                                                  const int64_t *perm);
/* The new shape may hold DLC_DYNAMIC dims. */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildReshape(DlcB b, MlirValue x, intptr_t rank,
                                                const int64_t *shape);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildConcat(DlcB b, intptr_t n,
                                               const MlirValue *xs, int64_t axis);
/* steps may be NULL (all ones). */
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildSlice(DlcB b, MlirValue x, intptr_t n,
                                              const int64_t *starts,
                                              const int64_t *ends,
                                              const int64_t *steps);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildGather(DlcB b, MlirValue data,
                                               MlirValue indices, int64_t axis);
MLIR_CAPI_EXPORTED MlirValue dlcDlgBuildPad(DlcB b, MlirValue x, intptr_t nPads,
                                            const int64_t *pads, double value);

/* The shape of a ranked tensor value; false for other values. */
MLIR_CAPI_EXPORTED bool dlcValueGetShape(MlirValue v, DlcShape *out);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_DLG_H */
