/* Host tensors: the values of dlg.constant ops, unpacked into memory so C
   reference kernels can compute on them at compile time.

   Floats (f16, bf16, f32, f64) are held as double, integers (i1 .. i64) as
   int64_t, so every element type shares one set of kernels; results are
   rounded (floats) or wrapped (integers) to the element type when a kernel
   stores them, which gives the same answer as computing in the type for
   +, -, *, / and sqrt. */
#ifndef DLC_PASSES_FOLD_HOST_TENSOR_H
#define DLC_PASSES_FOLD_HOST_TENSOR_H

#include "dlc-c/Builder.h"
#include "dlc-c/Shape.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct DlcHostTensor {
  DlcShape shape;     /* static */
  int64_t size;       /* element count */
  MlirType elementType;
  bool isFloat;
  bool bf16;          /* a 16-bit float with f32's exponent */
  unsigned bits;      /* element width */
  double *f;          /* elements when isFloat, */
  int64_t *i;         /* else these */
} DlcHostTensor;

/* Allocates a zeroed tensor; false for dynamic shapes, unsupported element
   types or more than `maxElements` elements. */
bool dlcHostTensorAlloc(DlcHostTensor *t, const DlcShape *shape,
                        MlirType elementType, int64_t maxElements);
void dlcHostTensorFree(DlcHostTensor *t);

/* Allocates out[0..n) for the first `n` results of `op` (their static
   types); on failure frees what it allocated and returns false. */
bool dlcHostTensorAllocResults(MlirOperation op, int n, int64_t maxElements,
                               DlcHostTensor *out);

/* Reads the `value` of a constant of type `tensorType`: dense or
   dense_resource, splat or not. False when the payload is unavailable or
   the type unsupported. */
bool dlcHostTensorRead(MlirAttribute value, MlirType tensorType,
                       int64_t maxElements, DlcHostTensor *out);

/* An elements attribute of `tensorType` holding `t`: a splat when every
   element is equal, dense_resource (named `resourceName`) above
   `resourceBytes` bytes, dense otherwise. */
MlirAttribute dlcHostTensorToAttr(const DlcHostTensor *t, MlirType tensorType,
                                  int64_t resourceBytes,
                                  const char *resourceName);

/* Element access. Get reads either kind as double; Set stores a double
   rounded to a float element type, SetInt an integer wrapped to an
   integer element type (two's complement; i1 keeps the low bit). */
double dlcHostTensorGet(const DlcHostTensor *t, int64_t index);
void dlcHostTensorSet(DlcHostTensor *t, int64_t index, double v);
void dlcHostTensorSetInt(DlcHostTensor *t, int64_t index, int64_t v);

/*--- dlg.constant ops --------------------------------------------------------*/

/* Reads `v` when a dlg.constant defines it; false otherwise (or as
   dlcHostTensorRead). */
bool dlcHostTensorReadConstant(MlirValue v, int64_t maxElements, DlcHostTensor *out);

/* A new dlg.constant of `type` holding `t` at the builder's point; results
   above `resourceBytes` bytes are dense_resource blobs named "dlc_folded". */
MlirValue dlcBuildConstant(DlcBuilder *b, const DlcHostTensor *t, MlirType type,
                           int64_t resourceBytes);

/* Erases the dlg.constant ops under `root` that have no users; returns how
   many. */
uint64_t dlcEraseDeadConstants(MlirOperation root);

#endif /* DLC_PASSES_FOLD_HOST_TENSOR_H */
