/* See nms.h. Per batch and class, as the lowering (lowering/nms.c): the
   boxes above the score threshold are sorted once by descending score (a
   stable merge sort: ties keep the lower index first; NaN scores last, in
   index order), then one walk in that order keeps each live box while the
   class has room and kills the live boxes after it that it overlaps by
   more than the threshold. That is O(N log N) plus O(N) per kept box;
   searching all N scores for each kept box, as this kernel did, made a
   constant input of thousands of boxes fold in seconds. Every comparison
   and product is the f32 one onnxruntime does. */

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

/* Whether candidate a goes before b (a < b as indices): a higher score, or
   b's is NaN and a's not. Equal scores (and two NaNs) keep index order. */
static bool before(float a, float b) { return a > b || (isnan(b) && !isnan(a)); }

/* Stable bottom-up merge sort of idx[0..n) by `before` on s, via tmp. */
static void sortByScore(int64_t *idx, int64_t *tmp, int64_t n, const float *s) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) /* the right run's head goes first only if strictly before */
        tmp[k++] = before(s[idx[j]], s[idx[i]]) ? idx[j++] : idx[i++];
      while (i < mid)
        tmp[k++] = idx[i++];
      while (j < hi)
        tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, sizeof *idx * (size_t)n);
  }
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
  float *s = dlcXcalloc((size_t)(N + 1), sizeof *s);
  int64_t *order = dlcXcalloc((size_t)(N + 1), sizeof *order);
  int64_t *tmp = dlcXcalloc((size_t)(N + 1), sizeof *tmp);
  for (int64_t i = 0; i < out[0].size; ++i)
    dlcHostTensorSetInt(&out[0], i, -1);
  int64_t count = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < N; ++i)
      geo[i] = corners(boxes, (b * N + i) * 4, center);
    for (int64_t c = 0; c < C; ++c) {
      const double *sc = scores->f + (b * C + c) * N;
      int64_t n = 0; /* the candidates: above the threshold (NaN never is) */
      for (int64_t i = 0; i < N; ++i) {
        s[i] = (float)sc[i];
        if (!hasScore || s[i] > thr)
          order[n++] = i;
      }
      sortByScore(order, tmp, n, s);
      for (int64_t p = 0; p < n; ++p)
        live[p] = true;
      int64_t kept = 0;
      for (int64_t p = 0; p < n && kept < K; ++p) {
        if (!live[p])
          continue;
        int64_t best = order[p], row = count++ * 3;
        ++kept;
        dlcHostTensorSetInt(&out[0], row, b);
        dlcHostTensorSetInt(&out[0], row + 1, c);
        dlcHostTensorSetInt(&out[0], row + 2, best);
        for (int64_t q = p + 1; q < n; ++q)
          if (live[q] && suppresses(&geo[order[q]], &geo[best], iou))
            live[q] = false;
      }
    }
  }
  dlcHostTensorSetInt(&out[1], 0, count);
  free(geo);
  free(live);
  free(s);
  free(order);
  free(tmp);
  return true;
}
