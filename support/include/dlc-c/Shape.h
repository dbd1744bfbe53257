/*===-- dlc-c/Shape.h - Shape rules of the dlg operators ----------*- C -*-===*\
|*                                                                            *|
|* One C function per dlg operator computes the result shape from operand    *|
|* shapes and attributes, or explains why the operands are malformed. This   *|
|* is the "type relation" of each op: the dialect's verifiers and type       *|
|* inference, the C passes and C API users all call these same functions.    *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - A dimension equal to DLC_DYNAMIC is unknown (`?`); rules propagate it   *|
|*    rather than fail, and only reject what is wrong for every runtime size. *|
|*  - Axes may be negative (Python style) wherever an axis is taken.          *|
|*  - Every rule returns true and fills `out`, or returns false and writes a  *|
|*    one-line message to `err` naming the operand, dimension and values.     *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_SHAPE_H
#define DLC_C_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest rank dlc handles; deeper tensors are rejected with a message. */
#define DLC_MAX_RANK 16
/* Same value as MLIR's ShapedType::kDynamic. */
#define DLC_DYNAMIC INT64_MIN

typedef struct DlcShape {
  int64_t rank;
  int64_t dims[DLC_MAX_RANK];
} DlcShape;

typedef struct DlcShapeError {
  char message[384];
} DlcShapeError;

/* An optional operand is passed as NULL. */

/*--- Helpers ---------------------------------------------------------------*/

/* Builds a shape; false when rank exceeds DLC_MAX_RANK. */
bool dlcShapeMake(DlcShape *out, int64_t rank, const int64_t *dims);
/* Returned by dlcShapeNumElements when the element count does not fit in
   int64_t (never a wrapped product). */
#define DLC_SHAPE_OVERFLOW (-1)
/* Product of the dims, DLC_DYNAMIC when any is dynamic, DLC_SHAPE_OVERFLOW
   when it exceeds INT64_MAX. */
int64_t dlcShapeNumElements(const DlcShape *s);
/* Checks that the static dims of `s` times `elementBytes` fit in int64_t
   (dlc's largest tensor); otherwise a message naming `what`, e.g.
   "operand 'x' of type tensor<...>". Dynamic dims are skipped. */
bool dlcShapeCheckBytes(const DlcShape *s, int64_t elementBytes, const char *what,
                        DlcShapeError *err);
bool dlcShapeEqual(const DlcShape *a, const DlcShape *b);
/* Resolves a possibly negative axis against `rank`; false if out of range. */
bool dlcNormalizeAxis(int64_t axis, int64_t rank, int64_t *out);

/*--- Rules, one per operator family -----------------------------------------*/

/* add sub mul div max min pow: NumPy broadcasting of two shapes. */
bool dlcShapeBroadcast(const DlcShape *lhs, const DlcShape *rhs, DlcShape *out,
                       DlcShapeError *err);
/* where: broadcasting of cond, lhs and rhs. */
bool dlcShapeWhere(const DlcShape *cond, const DlcShape *lhs,
                   const DlcShape *rhs, DlcShape *out, DlcShapeError *err);
/* matmul: numpy.matmul on rank >= 2 operands, optional transposes of the
   last two dims, batch dims broadcast. */
bool dlcShapeMatmul(const DlcShape *a, const DlcShape *b, bool transposeA,
                    bool transposeB, DlcShape *out, DlcShapeError *err);
/* conv2d: NCHW input, (O, C/groups, kH, kW) weight, optional (O) bias.
   strides[2], padding[4] (top, left, bottom, right), dilations[2]. */
bool dlcShapeConv2d(const DlcShape *input, const DlcShape *weight,
                    const DlcShape *bias, const int64_t *strides,
                    intptr_t numStrides, const int64_t *padding,
                    intptr_t numPadding, const int64_t *dilations,
                    intptr_t numDilations, int64_t groups, DlcShape *out,
                    DlcShapeError *err);
/* max_pool2d / avg_pool2d on NCHW input. */
bool dlcShapePool2d(const DlcShape *input, const int64_t *kernel,
                    intptr_t numKernel, const int64_t *strides,
                    intptr_t numStrides, const int64_t *padding,
                    intptr_t numPadding, bool ceilMode, DlcShape *out,
                    DlcShapeError *err);
/* batch_norm: scale, bias, mean, var are 1-D of the size of x's `axis`. */
bool dlcShapeBatchNorm(const DlcShape *x, const DlcShape *scale,
                       const DlcShape *bias, const DlcShape *mean,
                       const DlcShape *var, int64_t axis, DlcShape *out,
                       DlcShapeError *err);
/* layer_norm / rms_norm: normalize over dims [axis, rank); gamma and beta
   (each optional) have the shape of those dims. */
bool dlcShapeNorm(const DlcShape *x, const DlcShape *gamma,
                  const DlcShape *beta, int64_t axis, DlcShape *out,
                  DlcShapeError *err);
/* softmax / log_softmax: axis in range, shape kept. */
bool dlcShapeSoftmax(const DlcShape *x, int64_t axis, DlcShape *out,
                     DlcShapeError *err);
/* reduce_*: distinct axes in range; empty axes reduce every dim. */
bool dlcShapeReduce(const DlcShape *x, const int64_t *axes, intptr_t numAxes,
                    bool keepDims, DlcShape *out, DlcShapeError *err);
/* transpose: perm is a permutation of [0, rank). */
bool dlcShapeTranspose(const DlcShape *x, const int64_t *perm,
                       intptr_t numPerm, DlcShape *out, DlcShapeError *err);
/* reshape: the target shape is given (the result type); element counts
   must match where both are static. */
bool dlcShapeReshape(const DlcShape *x, const DlcShape *target,
                     DlcShapeError *err);
/* concat: same rank, equal dims except `axis`. */
bool dlcShapeConcat(const DlcShape *const *xs, intptr_t numXs, int64_t axis,
                    DlcShape *out, DlcShapeError *err);
/* slice: ONNX Slice with every axis given; NULL steps means all ones. */
bool dlcShapeSlice(const DlcShape *x, const int64_t *starts,
                   intptr_t numStarts, const int64_t *ends, intptr_t numEnds,
                   const int64_t *steps, intptr_t numSteps, DlcShape *out,
                   DlcShapeError *err);
/* gather: data[:axis] + indices + data[axis+1:]. */
bool dlcShapeGather(const DlcShape *data, const DlcShape *indices,
                    int64_t axis, DlcShape *out, DlcShapeError *err);
/* pad: pads = all begins then all ends, 2 * rank values, non-negative. */
bool dlcShapePad(const DlcShape *x, const int64_t *pads, intptr_t numPads,
                 DlcShape *out, DlcShapeError *err);

/* non_max_suppression (dialects/shape/nms.c): boxes [B, N, 4], scores
   [B, C, N]; `selected` is [B * C * min(maxPerClass, N), 3] (its padded
   size; the valid rows are counted at run time), `count` is 0-d. */
bool dlcShapeNonMaxSuppression(const DlcShape *boxes, const DlcShape *scores,
                               int64_t maxPerClass, DlcShape *selected,
                               DlcShape *count, DlcShapeError *err);

/* non_zero (dialects/shape/nonzero.c): x of rank >= 1; `indices` is
   [rank, number of elements of x] (its padded size; the valid columns are
   counted at run time), `count` is 0-d. */
bool dlcShapeNonZero(const DlcShape *x, DlcShape *indices, DlcShape *count,
                     DlcShapeError *err);

/* Normalizes one slice axis (ONNX clamping) for a static dim: writes the
   first index, the step and the element count. */
void dlcSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step,
                  int64_t *first, int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_SHAPE_H */
