/* libFuzzer target: every shape rule (dialects/shape/shape.c) on shapes and
   attributes taken from the input bytes: dims are static sizes (any int64
   >= 0, small ones likely) or dynamic, attributes any int64. A rule either
   fails with a message or returns a shape whose rank is within bounds and
   whose dims are sizes or dynamic; UBSan reports any overflow on the way. */

#include "dlc-c/Shape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *p;
  size_t n;
} Bytes;

static uint64_t take(Bytes *b, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) {
    v = v << 8 | (b->n ? *b->p : 0);
    if (b->n)
      ++b->p, --b->n;
  }
  return v;
}

/* Small values mostly; sometimes extremes; any int64 rarely. */
static int64_t value(Bytes *b) {
  uint8_t k = (uint8_t)take(b, 1);
  switch (k >> 5) {
  case 0: return INT64_MAX - (int64_t)(k & 7);
  case 1: return INT64_MIN + (int64_t)(k & 7);
  case 2: return (int64_t)take(b, 8);
  case 3: return -(int64_t)(k & 31);
  default: return (int64_t)(k & 63);
  }
}

static int64_t dim(Bytes *b) {
  uint8_t k = (uint8_t)take(b, 1);
  if (k < 16)
    return DLC_DYNAMIC;
  if (k < 32) {
    int64_t v = value(b);
    return v < 0 ? (v == INT64_MIN ? 0 : -v) : v;
  }
  return k & 15;
}

static DlcShape shape(Bytes *b) {
  DlcShape s;
  s.rank = (int64_t)(take(b, 1) % 7);
  if (take(b, 1) == 0xff)
    s.rank = DLC_MAX_RANK;
  for (int64_t i = 0; i < s.rank; ++i)
    s.dims[i] = dim(b);
  return s;
}

static void values(Bytes *b, int64_t *v, intptr_t *n) {
  *n = (intptr_t)(take(b, 1) % 9);
  for (intptr_t i = 0; i < *n; ++i)
    v[i] = value(b);
}

static void checkResult(bool ok, const DlcShape *out, const DlcShapeError *err) {
  if (!ok) {
    if (!err->message[0])
      abort(); /* a failure without a message */
    return;
  }
  if (out->rank < 0 || out->rank > DLC_MAX_RANK)
    abort();
  for (int64_t i = 0; i < out->rank; ++i)
    if (out->dims[i] < 0 && out->dims[i] != DLC_DYNAMIC)
      abort(); /* a negative size: wrapped arithmetic */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  unsigned rule = (unsigned)take(&b, 1) % 17;
  DlcShape x = shape(&b), y = shape(&b), z = shape(&b), w = shape(&b), out;
  int64_t a1[16], a2[16], a3[16];
  intptr_t n1, n2, n3;
  values(&b, a1, &n1);
  values(&b, a2, &n2);
  values(&b, a3, &n3);
  int64_t axis = value(&b);
  bool flag = take(&b, 1) & 1, flag2 = take(&b, 1) & 1;
  DlcShapeError err;
  memset(&err, 0, sizeof err);
  memset(&out, 0, sizeof out);
  bool ok = false;
  switch (rule) {
  case 0: ok = dlcShapeBroadcast(&x, &y, &out, &err); break;
  case 1: ok = dlcShapeWhere(&x, &y, &z, &out, &err); break;
  case 2: ok = dlcShapeMatmul(&x, &y, flag, flag2, &out, &err); break;
  case 3:
    ok = dlcShapeConv2d(&x, &y, flag ? &z : NULL, a1, n1, a2, n2, a3, n3, axis, &out, &err);
    break;
  case 4: ok = dlcShapePool2d(&x, a1, n1, a2, n2, a3, n3, flag, &out, &err); break;
  case 5: ok = dlcShapeBatchNorm(&x, &y, &z, &w, &y, axis, &out, &err); break;
  case 6: ok = dlcShapeNorm(&x, flag ? &y : NULL, flag2 ? &z : NULL, axis, &out, &err); break;
  case 7: ok = dlcShapeSoftmax(&x, axis, &out, &err); break;
  case 8: ok = dlcShapeReduce(&x, a1, n1, flag, &out, &err); break;
  case 9: ok = dlcShapeTranspose(&x, a1, n1, &out, &err); break;
  case 10:
    ok = dlcShapeReshape(&x, &y, &err);
    out = y;
    break;
  case 11: {
    const DlcShape *xs[4] = {&x, &y, &z, &w};
    ok = dlcShapeConcat(xs, 1 + (intptr_t)(axis & 3), value(&b), &out, &err);
    break;
  }
  case 12: {
    /* steps never 0 half the time, so the result path is reached */
    ok = dlcShapeSlice(&x, a1, n1, a2, n2, flag ? a3 : NULL, n3, &out, &err);
    break;
  }
  case 13: ok = dlcShapeGather(&x, &y, axis, &out, &err); break;
  case 14: ok = dlcShapePad(&x, a1, n1, &out, &err); break;
  case 15: {
    int64_t n = dlcShapeNumElements(&x);
    if (n < 0 && n != DLC_DYNAMIC && n != DLC_SHAPE_OVERFLOW)
      abort();
    ok = dlcShapeCheckBytes(&x, 1 + (axis & 7), "x", &err);
    out = x;
    break;
  }
  default: {
    int64_t first, count;
    int64_t d = x.rank ? x.dims[0] : 0;
    if (d == DLC_DYNAMIC)
      d = 0;
    int64_t step = n1 && a1[0] ? a1[0] : 1; /* 0 is rejected before dlcSliceAxis */
    dlcSliceAxis(d, axis, value(&b), step, &first, &count);
    if (count < 0 || count > d)
      abort(); /* a slice never has more elements than its dim */
    return 0;
  }
  }
  checkResult(ok, &out, &err);
  return 0;
}
