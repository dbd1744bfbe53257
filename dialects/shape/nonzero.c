/* The shape rule of dlg.non_zero (Shape.h): its result is padded to the
   most indices it can give, [rank, number of elements], since how many
   elements are nonzero depends on their values. */

#include "dlc-c/Shape.h"
#include "shape/Checked.h"
#include "fail.h"

#define IS_DYN(d) ((d) == DLC_DYNAMIC)

bool dlcShapeNonZero(const DlcShape *x, DlcShape *indices, DlcShape *count,
                     DlcShapeError *err) {
  /* ONNX leaves a scalar's index rank unsaid (onnxruntime gives [1, n] of
     zeros, NumPy refuses): a named error rather than a guess. */
  if (x->rank < 1)
    return fail(err, "the input must have rank 1 or more (a 0-d input has no index to "
                "give), got rank 0");
  int64_t columns = 1;
  for (int64_t i = 0; i < x->rank; ++i) {
    if (IS_DYN(x->dims[i])) {
      columns = DLC_DYNAMIC;
      continue;
    }
    if (!IS_DYN(columns) && dlcMulOverflow(columns, x->dims[i], &columns))
      return fail(err, "the input has more than %lld elements", (long long)INT64_MAX);
  }
  int64_t bytes;
  if (!IS_DYN(columns) && (dlcMulOverflow(columns, x->rank, &bytes) ||
                           dlcMulOverflow(bytes, 8, &bytes)))
    return fail(err, "the padded result (%lld x %lld i64) has more than %lld bytes",
                (long long)x->rank, (long long)columns, (long long)INT64_MAX);
  indices->rank = 2;
  indices->dims[0] = x->rank;
  indices->dims[1] = columns;
  count->rank = 0;
  return true;
}
