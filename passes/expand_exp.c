/* --dlc-expand-exp: f32 math.exp (scalar or vector) as a polynomial.

   LLVM turns a vector llvm.intr.exp into one libm call per lane, which
   makes softmax, sigmoid, tanh and GELU an order of magnitude slower than
   the loads around them. Upstream's polynomial approximations have no pass
   in Debian's MLIR, so this is the Cephes expf scheme in plain arith:

     n = round(x log2 e),  r = x - n ln2  (ln2 split in two for accuracy),
     e^r ~ 1 + r + r^2 P(r)  (degree-5 P, < 2 ulp on the reduced range),
     e^x = e^r * 2^n        (2^n built in the exponent bits).

   x is clamped to [-87.3, 88.7] so 2^n stays a normal float; NaN is kept.
   Below the clamp, where e^x is subnormal or 0 in f32, the result is 0
   (as with flush-to-zero), not the clamp's e^-87.3 = 1.24e-38: that floor
   made every far-negative score of a softmax a subnormal once divided by
   the row's sum, and on Intel cores each FMA that reads or writes a
   subnormal takes a microcode assist (a BERT layer's P.V product with
   large random scores ran 24x slower, its fused attention 5x). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/* `like` with its element type replaced by `elt` (vectors keep their shape). */
static MlirType withElement(MlirType like, MlirType elt) {
  if (!mlirTypeIsAVector(like))
    return elt;
  intptr_t rank = mlirShapedTypeGetRank(like);
  int64_t dims[16];
  for (intptr_t i = 0; i < rank && i < 16; ++i)
    dims[i] = mlirShapedTypeGetDimSize(like, i);
  return mlirVectorTypeGet(rank, dims, elt);
}

static MlirValue constant(DlcBuilder *b, MlirType t, double v) {
  MlirType elt = mlirTypeIsAVector(t) ? mlirShapedTypeGetElementType(t) : t;
  MlirAttribute a;
  if (mlirTypeIsAInteger(elt))
    a = mlirTypeIsAVector(t) ? mlirDenseElementsAttrInt32SplatGet(t, (int32_t)v)
                             : mlirIntegerAttrGet(elt, (int64_t)v);
  else
    a = mlirTypeIsAVector(t) ? mlirDenseElementsAttrFloatSplatGet(t, (float)v)
                             : mlirFloatAttrDoubleGet(b->context, elt, v);
  MlirNamedAttribute value = dlcNamed(b->context, "value", a);
  return mlirOperationGetResult(dlcBuildOpTyped(b, "arith.constant", 0, NULL, 1, &t, 1, &value),
                                0);
}

static MlirValue op2(DlcBuilder *b, const char *name, MlirValue x, MlirValue y) {
  MlirType t = mlirValueGetType(x);
  return mlirOperationGetResult(dlcBuildOpTyped(b, name, DLC_VALUES(x, y), 1, &t, DLC_NO_ATTRS),
                                0);
}

static MlirValue cast(DlcBuilder *b, const char *name, MlirValue x, MlirType to) {
  return mlirOperationGetResult(dlcBuildOpTyped(b, name, 1, &x, 1, &to, DLC_NO_ATTRS), 0);
}

static MlirValue fma(DlcBuilder *b, MlirValue x, MlirValue y, MlirValue z) {
  MlirType t = mlirValueGetType(x);
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "math.fma", DLC_VALUES(x, y, z), 1, &t, DLC_NO_ATTRS), 0);
}

/* x <predicate> y (arith.cmpf's predicate number), of type i1 (`bools`). */
static MlirValue compare(DlcBuilder *b, int64_t predicate, MlirValue x, MlirValue y,
                         MlirType bools) {
  MlirNamedAttribute p = dlcNamed(
      b->context, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(b->context, 64), predicate));
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "arith.cmpf", DLC_VALUES(x, y), 1, &bools, 1, &p), 0);
}

static MlirValue pick(DlcBuilder *b, MlirValue c, MlirValue x, MlirValue y) {
  MlirType t = mlirValueGetType(x);
  return mlirOperationGetResult(
      dlcBuildOpTyped(b, "arith.select", DLC_VALUES(c, x, y), 1, &t, DLC_NO_ATTRS), 0);
}

static MlirValue expandExp(DlcBuilder *b, MlirValue x) {
  static const double kP[6] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                               4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
  MlirType t = mlirValueGetType(x);
  MlirType i32 = withElement(t, mlirIntegerTypeGet(b->context, 32));
  MlirType i1 = withElement(t, mlirIntegerTypeGet(b->context, 1));
  MlirValue lowest = constant(b, t, -87.3);
  MlirValue c = op2(b, "arith.minimumf", op2(b, "arith.maximumf", x, lowest),
                    constant(b, t, 88.7));
  MlirValue n = mlirOperationGetResult(
      dlcBuildOpTyped(b, "math.roundeven", 1,
                      (MlirValue[]){op2(b, "arith.mulf", c, constant(b, t, 1.44269504088896341))},
                      1, &t, DLC_NO_ATTRS),
      0);
  MlirValue r = fma(b, n, constant(b, t, -0.693359375), c);
  r = fma(b, n, constant(b, t, 2.12194440e-4), r);
  MlirValue p = constant(b, t, kP[0]);
  for (int i = 1; i < 6; ++i)
    p = fma(b, p, r, constant(b, t, kP[i]));
  MlirValue r2 = op2(b, "arith.mulf", r, r);
  MlirValue y = fma(b, p, r2, op2(b, "arith.addf", r, constant(b, t, 1.0)));
  MlirValue bits = op2(b, "arith.shli",
                       op2(b, "arith.addi", cast(b, "arith.fptosi", n, i32), constant(b, i32, 127)),
                       constant(b, i32, 23));
  MlirValue scaled = op2(b, "arith.mulf", y, cast(b, "arith.bitcast", bits, t));
  MlirValue tiny = compare(b, 4 /* olt: false for NaN */, x, lowest, i1);
  scaled = pick(b, tiny, constant(b, t, 0.0), scaled);
  MlirValue isNan = compare(b, 14 /* uno */, x, x, i1);
  return pick(b, isNan, x, scaled);
}

static MlirWalkResult collect(MlirOperation op, void *u) {
  DlcOpList *f = u;
  if (!dlcOpIs(op, "math.exp"))
    return MlirWalkResultAdvance;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType elt = mlirTypeIsAVector(t) ? mlirShapedTypeGetElementType(t) : t;
  if (!mlirTypeIsAF32(elt))
    return MlirWalkResultAdvance;
  dlcOpListPush(f, op);
  return MlirWalkResultAdvance;
}

static MlirLogicalResult run(MlirOperation func, void *state, DlcPass *pass) {
  DlcOpList f = {NULL, 0, 0};
  mlirOperationWalk(func, collect, &f, MlirWalkPostOrder);
  for (intptr_t i = 0; i < f.n; ++i) {
    DlcBuilder b = dlcBuilderBefore(f.ops[i], mlirOperationGetLocation(f.ops[i]));
    MlirValue y = expandExp(&b, mlirOperationGetOperand(f.ops[i], 0));
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(f.ops[i], 0), y);
    mlirOperationDestroy(f.ops[i]);
  }
  dlcPassAddStatistic(pass, "expanded", (uint64_t)f.n);
  dlcOpListFree(&f);
  return (MlirLogicalResult){1};
}

static const DlcStatisticDesc kStats[] = {{"expanded", "math.exp ops expanded"}};

const DlcPassDescriptor dlcExpandExpPass = {
    .argument = "dlc-expand-exp",
    .summary = "Expand f32 math.exp into a vectorisable polynomial (Cephes expf)",
    .anchor = "func.func",
    .statistics = kStats,
    .numStatistics = 1,
    .run = run,
};
