/* Host tensors: reading and writing the payload of dlg.constant. */

#include "fold/host_tensor.h"

#include "dlc-c/Dialects.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*--- 16-bit floats (round to nearest even) ----------------------------------*/

static float halfToFloat(uint16_t h) {
  unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0    ? ldexpf((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : ldexpf((float)(m | 0x400), (int)e - 25);
  return (h & 0x8000) ? -v : v;
}

static uint16_t floatToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t a = x & 0x7fffffff;
  if (a > 0x7f800000)
    return sign | 0x7e00;                 /* NaN */
  if (a >= 0x477ff000)                     /* >= 65520 rounds to infinity */
    return sign | 0x7c00;
  if (a < 0x38800000) {                    /* below 2^-14: subnormal or 0 */
    float m;
    memcpy(&m, &a, 4);
    return sign | (uint16_t)lrintf(m * 16777216.0f); /* units of 2^-24 */
  }
  uint32_t h = ((a >> 23) - 112) << 10 | (a & 0x7fffff) >> 13;
  uint32_t rest = a & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return sign | (uint16_t)h;
}

static float bf16ToFloat(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static uint16_t floatToBF16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return (uint16_t)(x >> 16) | 0x40;
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/*--- Element types ------------------------------------------------------------*/

static bool classify(MlirType t, DlcHostTensor *out) {
  out->elementType = t;
  out->bf16 = false;
  if (mlirTypeIsAF32(t) || mlirTypeIsAF64(t) || mlirTypeIsAF16(t) ||
      mlirTypeIsABF16(t)) {
    out->isFloat = true;
    out->bf16 = mlirTypeIsABF16(t);
    out->bits = mlirTypeIsAF32(t) ? 32 : mlirTypeIsAF64(t) ? 64 : 16;
    return true;
  }
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) <= 64 &&
      !mlirIntegerTypeIsUnsigned(t)) {
    out->isFloat = false;
    out->bits = mlirIntegerTypeGetWidth(t);
    return out->bits == 1 || out->bits == 8 || out->bits == 16 ||
           out->bits == 32 || out->bits == 64;
  }
  return false;
}

static size_t storageBytes(const DlcHostTensor *t) {
  return t->bits == 1 ? 1 : t->bits / 8;
}

bool dlcHostTensorAlloc(DlcHostTensor *t, const DlcShape *shape,
                        MlirType elementType, int64_t maxElements) {
  memset(t, 0, sizeof *t);
  int64_t n = dlcShapeNumElements(shape);
  if (n == DLC_DYNAMIC || n < 0 || n > maxElements || !classify(elementType, t))
    return false;
  t->shape = *shape;
  t->size = n;
  size_t count = n ? (size_t)n : 1;
  if (t->isFloat)
    t->f = dlcXcalloc(count, sizeof(double));
  else
    t->i = dlcXcalloc(count, sizeof(int64_t));
  return t->f || t->i;
}

void dlcHostTensorFree(DlcHostTensor *t) {
  free(t->f);
  free(t->i);
  t->f = NULL;
  t->i = NULL;
}

bool dlcHostTensorAllocResults(MlirOperation op, int n, int64_t maxElements,
                               DlcHostTensor *out) {
  memset(out, 0, (size_t)n * sizeof *out);
  for (int r = 0; r < n; ++r) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, r));
    DlcShape shape;
    if (!dlcTypeGetShape(t, &shape) ||
        !dlcHostTensorAlloc(&out[r], &shape, mlirShapedTypeGetElementType(t), maxElements)) {
      for (int k = 0; k < r; ++k)
        dlcHostTensorFree(&out[k]);
      return false;
    }
  }
  return true;
}

/*--- Element access -----------------------------------------------------------*/

static double roundTo(const DlcHostTensor *t, double v) {
  if (t->bits == 64)
    return v;
  float f = (float)v;
  if (t->bits == 16)
    return t->bf16 ? bf16ToFloat(floatToBF16(f)) : halfToFloat(floatToHalf(f));
  return f;
}

static int64_t wrapTo(const DlcHostTensor *t, int64_t v) {
  if (t->bits == 64)
    return v;
  if (t->bits == 1)
    return v & 1;
  uint64_t mask = ((uint64_t)1 << t->bits) - 1, u = (uint64_t)v & mask;
  uint64_t signBit = (uint64_t)1 << (t->bits - 1);
  return (int64_t)((u ^ signBit) - signBit);
}

double dlcHostTensorGet(const DlcHostTensor *t, int64_t index) {
  return t->isFloat ? t->f[index] : (double)t->i[index];
}

void dlcHostTensorSet(DlcHostTensor *t, int64_t index, double v) {
  if (t->isFloat)
    t->f[index] = roundTo(t, v);
  else
    t->i[index] = wrapTo(t, (int64_t)v);
}

void dlcHostTensorSetInt(DlcHostTensor *t, int64_t index, int64_t v) {
  if (t->isFloat)
    t->f[index] = roundTo(t, (double)v);
  else
    t->i[index] = wrapTo(t, v);
}

/*--- Storage layout <-> host ---------------------------------------------------*/

static void unpack(DlcHostTensor *t, const char *raw, int64_t from, int64_t to,
                   int64_t src) {
  size_t w = storageBytes(t);
  for (int64_t k = from; k < to; ++k, src += 1) {
    const char *p = raw + (size_t)src * w;
    if (t->isFloat) {
      uint16_t h;
      float f;
      switch (t->bits) {
      case 16:
        memcpy(&h, p, 2);
        t->f[k] = t->bf16 ? bf16ToFloat(h) : halfToFloat(h);
        break;
      case 32:
        memcpy(&f, p, 4);
        t->f[k] = f;
        break;
      default:
        memcpy(&t->f[k], p, 8);
      }
    } else {
      int8_t b;
      int16_t s;
      int32_t i;
      switch (w) {
      case 1:
        memcpy(&b, p, 1);
        t->i[k] = t->bits == 1 ? (b != 0) : b;
        break;
      case 2:
        memcpy(&s, p, 2);
        t->i[k] = s;
        break;
      case 4:
        memcpy(&i, p, 4);
        t->i[k] = i;
        break;
      default:
        memcpy(&t->i[k], p, 8);
      }
    }
  }
}

static void pack(const DlcHostTensor *t, char *raw) {
  size_t w = storageBytes(t);
  for (int64_t k = 0; k < t->size; ++k) {
    char *p = raw + (size_t)k * w;
    if (t->isFloat) {
      float f = (float)t->f[k];
      uint16_t h;
      switch (t->bits) {
      case 16:
        h = t->bf16 ? floatToBF16(f) : floatToHalf(f);
        memcpy(p, &h, 2);
        break;
      case 32:
        memcpy(p, &f, 4);
        break;
      default:
        memcpy(p, &t->f[k], 8);
      }
    } else {
      int64_t v = t->i[k];
      int8_t b = (int8_t)v;
      int16_t s = (int16_t)v;
      int32_t i = (int32_t)v;
      switch (w) {
      case 1: memcpy(p, &b, 1); break;
      case 2: memcpy(p, &s, 2); break;
      case 4: memcpy(p, &i, 4); break;
      default: memcpy(p, &v, 8);
      }
    }
  }
}

bool dlcHostTensorRead(MlirAttribute value, MlirType tensorType,
                       int64_t maxElements, DlcHostTensor *out) {
  DlcShape shape;
  shape.rank = mlirShapedTypeGetRank(tensorType);
  if (shape.rank > DLC_MAX_RANK)
    return false;
  for (int64_t d = 0; d < shape.rank; ++d)
    shape.dims[d] = mlirShapedTypeGetDimSize(tensorType, d);
  if (!dlcHostTensorAlloc(out, &shape, mlirShapedTypeGetElementType(tensorType),
                          maxElements))
    return false;
  if (!out->isFloat && out->bits == 1 && mlirAttributeIsADenseElements(value)) {
    for (int64_t k = 0; k < out->size; ++k)
      out->i[k] = mlirDenseElementsAttrGetBoolValue(value, k);
    return true;
  }
  const void *raw;
  size_t bytes;
  bool splat;
  if (!dlcElementsAttrGetRawData(value, &raw, &bytes, &splat))
    goto fail;
  size_t w = storageBytes(out);
  if (splat) {
    if (bytes < w)
      goto fail;
    unpack(out, raw, 0, 1, 0);
    for (int64_t k = 1; k < out->size; ++k) {
      if (out->isFloat)
        out->f[k] = out->f[0];
      else
        out->i[k] = out->i[0];
    }
    return true;
  }
  if (bytes != (size_t)out->size * w)
    goto fail;
  unpack(out, raw, 0, out->size, 0);
  return true;
fail:
  dlcHostTensorFree(out);
  return false;
}

static void freeBlob(void *userData, const void *data, size_t size, size_t align) {
  (void)userData, (void)size, (void)align;
  free((void *)(uintptr_t)data);
}

MlirAttribute dlcHostTensorToAttr(const DlcHostTensor *t, MlirType tensorType,
                                  int64_t resourceBytes,
                                  const char *resourceName) {
  MlirType et = t->elementType;
  bool uniform = t->size > 0;
  for (int64_t k = 1; k < t->size && uniform; ++k)
    uniform = t->isFloat ? memcmp(&t->f[k], &t->f[0], sizeof(double)) == 0
                         : t->i[k] == t->i[0];
  if (uniform && !t->isFloat && t->bits == 1)
    return mlirDenseElementsAttrBoolSplatGet(tensorType, t->i[0] != 0);
  if (uniform)
    return mlirDenseElementsAttrSplatGet(
        tensorType, t->isFloat ? mlirFloatAttrDoubleGet(mlirTypeGetContext(et), et, t->f[0])
                               : mlirIntegerAttrGet(et, t->i[0]));
  if (!t->isFloat && t->bits == 1) {
    int *bits = dlcXmalloc((size_t)t->size * sizeof(int));
    for (int64_t k = 0; k < t->size; ++k)
      bits[k] = (int)t->i[k];
    MlirAttribute a = mlirDenseElementsAttrBoolGet(tensorType, t->size, bits);
    free(bits);
    return a;
  }
  size_t w = storageBytes(t), bytes = (size_t)t->size * w;
  char *raw = dlcXmalloc(bytes ? bytes : 1);
  pack(t, raw);
  if ((int64_t)bytes > resourceBytes)
    return mlirUnmanagedDenseResourceElementsAttrGet(
        tensorType, mlirStringRefCreateFromCString(resourceName), raw, bytes, w,
        false, freeBlob, NULL);
  MlirAttribute a = mlirDenseElementsAttrRawBufferGet(tensorType, bytes, raw);
  free(raw);
  return a;
}

/*--- dlg.constant ops --------------------------------------------------------*/

bool dlcHostTensorReadConstant(MlirValue v, int64_t maxElements, DlcHostTensor *out) {
  MlirOperation c = dlcDefiningOp(v, "dlg.constant");
  if (mlirOperationIsNull(c))
    return false;
  MlirAttribute value =
      mlirOperationGetAttributeByName(c, mlirStringRefCreateFromCString("value"));
  return dlcHostTensorRead(value, mlirValueGetType(v), maxElements, out);
}

MlirValue dlcBuildConstant(DlcBuilder *b, const DlcHostTensor *t, MlirType type,
                           int64_t resourceBytes) {
  MlirAttribute value = dlcHostTensorToAttr(t, type, resourceBytes, "dlc_folded");
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "dlg.constant", 0, NULL, 1, &type,
                      DLC_ATTRS(dlcNamed(b->context, "value", value))),
      0);
}

static MlirWalkResult collectDeadConstant(MlirOperation op, void *list) {
  if (dlcOpIs(op, "dlg.constant") &&
      mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))))
    dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

uint64_t dlcEraseDeadConstants(MlirOperation root) {
  DlcOpList dead = {NULL, 0, 0};
  mlirOperationWalk(root, collectDeadConstant, &dead, MlirWalkPreOrder);
  for (intptr_t i = 0; i < dead.n; ++i)
    mlirOperationDestroy(dead.ops[i]);
  uint64_t n = (uint64_t)dead.n;
  dlcOpListFree(&dead);
  return n;
}
