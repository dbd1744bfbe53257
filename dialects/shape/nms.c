/* The shape rule of dlg.non_max_suppression (Shape.h): its result is
   padded to the most boxes it can keep, B * C * min(maxPerClass, N) rows,
   since how many it keeps depends on the boxes' values. */

#include "dlc-c/Shape.h"
#include "shape/Checked.h"
#include "fail.h"

#include <stdio.h>

#define IS_DYN(d) ((d) == DLC_DYNAMIC)

/* Two dims that must agree: fine when either is dynamic. */
static bool agree(int64_t a, int64_t b) { return IS_DYN(a) || IS_DYN(b) || a == b; }

bool dlcShapeNonMaxSuppression(const DlcShape *boxes, const DlcShape *scores,
                               int64_t maxPerClass, DlcShape *selected,
                               DlcShape *count, DlcShapeError *err) {
  if (boxes->rank != 3)
    return fail(err, "boxes must be [batch, num_boxes, 4], got rank %lld", (long long)boxes->rank);
  if (scores->rank != 3)
    return fail(err, "scores must be [batch, num_classes, num_boxes], got rank %lld",
                (long long)scores->rank);
  if (!agree(boxes->dims[2], 4))
    return fail(err, "boxes dim 2 must be 4 (a box's coordinates), got %lld",
                (long long)boxes->dims[2]);
  if (!agree(boxes->dims[0], scores->dims[0]))
    return fail(err, "batch sizes differ: boxes has %lld (dim 0), scores has %lld (dim 0)",
                (long long)boxes->dims[0], (long long)scores->dims[0]);
  if (!agree(boxes->dims[1], scores->dims[2]))
    return fail(err, "box counts differ: boxes has %lld (dim 1), scores has %lld (dim 2)",
                (long long)boxes->dims[1], (long long)scores->dims[2]);
  if (maxPerClass < 0)
    return fail(err, "'max_output_boxes_per_class' must not be negative, got %lld",
                (long long)maxPerClass);
  int64_t b = IS_DYN(boxes->dims[0]) ? scores->dims[0] : boxes->dims[0];
  int64_t n = IS_DYN(boxes->dims[1]) ? scores->dims[2] : boxes->dims[1];
  int64_t c = scores->dims[1];
  int64_t rows = DLC_DYNAMIC;
  if (maxPerClass == 0)
    rows = 0;
  else if (!IS_DYN(b) && !IS_DYN(c) && !IS_DYN(n)) {
    int64_t k = n < maxPerClass ? n : maxPerClass;
    int64_t bytes;
    if (dlcMulOverflow(b, c, &rows) || dlcMulOverflow(rows, k, &rows) ||
        dlcMulOverflow(rows, 3 * 8, &bytes))
      return fail(err, "the padded result (%lld x %lld x %lld rows of 3 i64) has more than "
                  "%lld bytes", (long long)b, (long long)c, (long long)k, (long long)INT64_MAX);
  }
  selected->rank = 2;
  selected->dims[0] = rows;
  selected->dims[1] = 3;
  count->rank = 0;
  return true;
}
