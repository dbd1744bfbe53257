/* See nms.h. One pass per batch and class: repeatedly the live box of
   highest score (ties: the lower index; NaN scores last) is kept and kills
   the live boxes it overlaps by more than the threshold, as in the
   lowering; every comparison and product is the f32 one onnxruntime does. */

#include "fold/nms.h"

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float xmin, ymin, xmax, ymax, area;
} Box;

/* onnxruntime's MaxMin: a >= b ? (b, a) : (a, b). */
static void maxMin(float a, float b, float *lo, float *hi) {
  if (a >= b)
    *lo = b, *hi = a;
  else
    *lo = a, *hi = b;
}

static Box corners(const DlcHostTensor *boxes, int64_t at, bool center) {
  float v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = (float)boxes->f[at + k];
  Box b;
  if (center) {
    float hw = v[2] / 2.0f, hh = v[3] / 2.0f;
    b.xmin = v[0] - hw, b.xmax = v[0] + hw, b.ymin = v[1] - hh, b.ymax = v[1] + hh;
  } else {
    maxMin(v[1], v[3], &b.xmin, &b.xmax);
    maxMin(v[0], v[2], &b.ymin, &b.ymax);
  }
  b.area = (b.xmax - b.xmin) * (b.ymax - b.ymin);
  return b;
}

/* onnxruntime's SuppressByIOU with box1 the candidate `c`, box2 the kept `p`. */
static bool suppresses(const Box *c, const Box *p, float iou) {
  float ixmin = c->xmin < p->xmin ? p->xmin : c->xmin; /* std::max */
  float ixmax = p->xmax < c->xmax ? p->xmax : c->xmax; /* std::min */
  float iymin = c->ymin < p->ymin ? p->ymin : c->ymin;
  float iymax = p->ymax < c->ymax ? p->ymax : c->ymax;
  if (ixmax <= ixmin || iymax <= iymin)
    return false;
  float inter = (ixmax - ixmin) * (iymax - iymin);
  float uni = c->area + p->area - inter;
  if (inter <= 0 || c->area <= 0 || p->area <= 0 || uni <= 0)
    return false;
  return inter / uni > iou;
}

bool dlcReferenceNonMaxSuppression(MlirOperation op, const DlcHostTensor *boxes,
                                   const DlcHostTensor *scores, int64_t maxElements,
                                   DlcHostTensor out[2]) {
  if (!dlcHostTensorAllocResults(op, 2, maxElements, out))
    return false;
  int64_t B = boxes->shape.dims[0], N = boxes->shape.dims[1], C = scores->shape.dims[1];
  int64_t maxOut = dlcGetI64(op, "max_output_boxes_per_class", 0);
  int64_t K = maxOut < N ? maxOut : N;
  bool center = dlcGetBool(op, "center_point_box", false);
  float iou = (float)dlcGetF64(op, "iou_threshold", 0.0);
  MlirAttribute sa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("score_threshold"));
  bool hasScore = !mlirAttributeIsNull(sa);
  float thr = hasScore ? (float)mlirFloatAttrGetValueDouble(sa) : 0.0f;
  Box *geo = dlcXcalloc((size_t)(N + 1), sizeof *geo);
  bool *live = dlcXcalloc((size_t)(N + 1), sizeof *live);
  for (int64_t i = 0; i < out[0].size; ++i)
    dlcHostTensorSetInt(&out[0], i, -1);
  int64_t count = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < N; ++i)
      geo[i] = corners(boxes, (b * N + i) * 4, center);
    for (int64_t c = 0; c < C; ++c) {
      const double *s = scores->f + (b * C + c) * N;
      for (int64_t i = 0; i < N; ++i)
        live[i] = !hasScore || (float)s[i] > thr;
      for (int64_t k = 0; k < K; ++k) {
        int64_t best = -1;
        for (int64_t i = 0; i < N; ++i) {
          float si = (float)s[i];
          if (live[i] && (best < 0 || si > (float)s[best] ||
                          (isnan((float)s[best]) && !isnan(si))))
            best = i;
        }
        if (best < 0)
          break;
        int64_t row = count++ * 3;
        dlcHostTensorSetInt(&out[0], row, b);
        dlcHostTensorSetInt(&out[0], row + 1, c);
        dlcHostTensorSetInt(&out[0], row + 2, best);
        live[best] = false;
        for (int64_t j = 0; j < N; ++j)
          if (live[j] && suppresses(&geo[j], &geo[best], iou))
            live[j] = false;
      }
    }
  }
  dlcHostTensorSetInt(&out[1], 0, count);
  free(geo);
  free(live);
  return true;
}
