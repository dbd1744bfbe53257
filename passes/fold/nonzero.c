/* See nonzero.h. A float is nonzero when it compares unequal to 0.0 (NaN
   is, -0.0 is not), an integer or boolean when it is not 0: the lowering's
   comparisons. Floats are held as doubles, which keeps both facts. */

#include "fold/nonzero.h"

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

bool dlcReferenceNonZero(MlirOperation op, const DlcHostTensor *x, int64_t maxElements,
                         DlcHostTensor out[2]) {
  if (!dlcHostTensorAllocResults(op, 2, maxElements, out))
    return false;
  int64_t rank = x->shape.rank, columns = x->size, count = 0;
  for (int64_t i = 0; i < out[0].size; ++i)
    dlcHostTensorSetInt(&out[0], i, -1);
  for (int64_t e = 0; e < x->size; ++e) {
    if (x->isFloat ? !(x->f[e] != 0.0) : x->i[e] == 0)
      continue;
    /* the element's index, the last dim fastest */
    for (int64_t r = rank - 1, t = e; r >= 0; --r) {
      dlcHostTensorSetInt(&out[0], r * columns + count, t % x->shape.dims[r]);
      t /= x->shape.dims[r];
    }
    ++count;
  }
  dlcHostTensorSetInt(&out[1], 0, count);
  return true;
}
