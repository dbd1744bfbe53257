/*===-- dlc-c/Dlg.h - Building dlg ops ----------------------------*- C -*-===*\
|*                                                                            *|
|* One function per dlg op. Result types are inferred from the op's shape    *|
|* rule; a rule violation returns a null value after emitting a diagnostic   *|
|* at the builder's location. Null array arguments select the attribute's    *|
|* default. A null operand (an earlier failure) propagates as null.          *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_DLG_H
#define DLC_C_DLG_H

#include "dlc-c/Builder.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef DlcBuilder *DlcB;

MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildConstant(DlcB b, MlirAttribute value);

/* Binary elementwise ops with NumPy broadcasting. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAdd(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSub(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildMul(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildDiv(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildMax(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildMin(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildPow(DlcB b, MlirValue lhs, MlirValue rhs);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildWhere(DlcB b, MlirValue cond,
                                               MlirValue lhs, MlirValue rhs);

/* Unary elementwise ops. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildNeg(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAbs(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildExp(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildLog(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSqrt(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildRsqrt(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildTanh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildErf(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSigmoid(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildRelu(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSilu(DlcB b, MlirValue x);
/* Trigonometric and hyperbolic functions (float tensors). */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSin(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildCos(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildTan(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAsin(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAcos(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAtan(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSinh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildCosh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAsinh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAcosh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAtanh(DlcB b, MlirValue x);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildGelu(DlcB b, MlirValue x, bool tanhApprox);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildClamp(DlcB b, MlirValue x, double min,
                                               double max);
/* Converts to `elementType`, keeping the shape. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildCast(DlcB b, MlirValue x,
                                              MlirType elementType);

MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildMatmul(DlcB b, MlirValue a, MlirValue bm,
                                                bool transposeA, bool transposeB);
/* bias may be null; strides[2], padding[4], dilations[2] may be NULL. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildConv2d(DlcB b, MlirValue input,
                                                MlirValue weight, MlirValue bias,
                                                const int64_t *strides,
                                                const int64_t *padding,
                                                const int64_t *dilations,
                                                int64_t groups);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildMaxPool2d(DlcB b, MlirValue input,
                                                   const int64_t *kernel,
                                                   const int64_t *strides,
                                                   const int64_t *padding,
                                                   bool ceilMode);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildAvgPool2d(DlcB b, MlirValue input,
                                                   const int64_t *kernel,
                                                   const int64_t *strides,
                                                   const int64_t *padding,
                                                   bool ceilMode,
                                                   bool countIncludePad);

MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildBatchNorm(DlcB b, MlirValue x,
                                                   MlirValue scale, MlirValue bias,
                                                   MlirValue mean, MlirValue var,
                                                   double epsilon, int64_t axis);
/* gamma and beta may be null. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildLayerNorm(DlcB b, MlirValue x,
                                                   MlirValue gamma, MlirValue beta,
                                                   int64_t axis, double epsilon);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildRmsNorm(DlcB b, MlirValue x,
                                                 MlirValue gamma, int64_t axis,
                                                 double epsilon);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSoftmax(DlcB b, MlirValue x, int64_t axis);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildLogSoftmax(DlcB b, MlirValue x,
                                                    int64_t axis);

/* Reductions; nAxes == 0 reduces every dim. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildReduceSum(DlcB b, MlirValue x, intptr_t nAxes,
                                                   const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildReduceMean(DlcB b, MlirValue x, intptr_t nAxes,
                                                    const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildReduceMax(DlcB b, MlirValue x, intptr_t nAxes,
                                                   const int64_t *axes, bool keepdims);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildReduceMin(DlcB b, MlirValue x, intptr_t nAxes,
                                                   const int64_t *axes, bool keepdims);

MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildTranspose(DlcB b, MlirValue x, intptr_t n,
                                                   const int64_t *perm);
/* The new shape may hold DLC_DYNAMIC dims. */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildReshape(DlcB b, MlirValue x, intptr_t rank,
                                                 const int64_t *shape);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildConcat(DlcB b, intptr_t n,
                                                const MlirValue *xs, int64_t axis);
/* steps may be NULL (all ones). */
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildSlice(DlcB b, MlirValue x, intptr_t n,
                                               const int64_t *starts,
                                               const int64_t *ends,
                                               const int64_t *steps);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildGather(DlcB b, MlirValue data,
                                                MlirValue indices, int64_t axis);
MLIR_CAPI_EXPORTED MlirValue mlirDlgBuildPad(DlcB b, MlirValue x, intptr_t nPads,
                                             const int64_t *pads, double value);

/* The shape of a ranked tensor value; false for other values. */
MLIR_CAPI_EXPORTED bool mlirDlgValueGetShape(MlirValue v, DlcShape *out);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_DLG_H */
