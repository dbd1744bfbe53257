/* One builder per dlg op (see dlc-c/Dlg.h). Each is the op name, its
   operands and its attributes; result types come from the shape rules.
   The elementwise families share one builder, checked against the op's
   family, so a new elementwise op needs no code here beyond its one line. */

#include "dlc-c/Dlg.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>

static const int64_t kOnes2[2] = {1, 1};
static const int64_t kZeros4[4] = {0, 0, 0, 0};

#define OR(p, dflt) ((p) ? (p) : (dflt))

static bool isElementwiseFamily(DlcOpFamily f) {
  return f == DLC_OP_FAMILY_UNARY || f == DLC_OP_FAMILY_BINARY ||
         f == DLC_OP_FAMILY_COMPARE || f == DLC_OP_FAMILY_SELECT;
}

MlirValue dlcDlgBuildElementwise(DlcB b, const char *name, intptr_t n,
                                 const MlirValue *operands) {
  DlcOpFamily f = dlcDlgOpFamilyOfName(b->context, mlirStringRefCreateFromCString(name));
  if (!isElementwiseFamily(f)) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "'%s' is not an elementwise dlg op (family %s; expected unary, binary, "
             "compare or select)",
             name, dlcOpFamilyGetName(f));
    mlirEmitError(b->loc, msg);
    return (MlirValue){NULL};
  }
  return dlcBuildValue(b, name, n, operands, DLC_NO_ATTRS);
}

#define DLC_UNARY(Fn, name)                                                    \
  MlirValue dlcDlgBuild##Fn(DlcB b, MlirValue x) {                             \
    return dlcDlgBuildElementwise(b, name, DLC_VALUES(x));                     \
  }
#define DLC_BINARY(Fn, name)                                                   \
  MlirValue dlcDlgBuild##Fn(DlcB b, MlirValue l, MlirValue r) {                \
    return dlcDlgBuildElementwise(b, name, DLC_VALUES(l, r));                  \
  }

DLC_BINARY(Add, "dlg.add")
DLC_BINARY(Sub, "dlg.sub")
DLC_BINARY(Mul, "dlg.mul")
DLC_BINARY(Div, "dlg.div")
DLC_BINARY(Max, "dlg.max")
DLC_BINARY(Min, "dlg.min")
DLC_BINARY(Pow, "dlg.pow")
DLC_UNARY(Neg, "dlg.neg")
DLC_UNARY(Abs, "dlg.abs")
DLC_UNARY(Exp, "dlg.exp")
DLC_UNARY(Log, "dlg.log")
DLC_UNARY(Sqrt, "dlg.sqrt")
DLC_UNARY(Rsqrt, "dlg.rsqrt")
DLC_UNARY(Tanh, "dlg.tanh")
DLC_UNARY(Erf, "dlg.erf")
DLC_UNARY(Sigmoid, "dlg.sigmoid")
DLC_UNARY(Relu, "dlg.relu")
DLC_UNARY(Silu, "dlg.silu")
DLC_UNARY(Sin, "dlg.sin")
DLC_UNARY(Cos, "dlg.cos")
DLC_UNARY(Tan, "dlg.tan")
DLC_UNARY(Asin, "dlg.asin")
DLC_UNARY(Acos, "dlg.acos")
DLC_UNARY(Atan, "dlg.atan")
DLC_UNARY(Sinh, "dlg.sinh")
DLC_UNARY(Cosh, "dlg.cosh")
DLC_UNARY(Asinh, "dlg.asinh")
DLC_UNARY(Acosh, "dlg.acosh")
DLC_UNARY(Atanh, "dlg.atanh")

MlirValue dlcDlgBuildConstant(DlcB b, MlirAttribute value) {
  return dlcBuildValue(b, "dlg.constant", 0, NULL,
                       DLC_ATTRS(dlcNamed(b->context, "value", value)));
}

MlirValue dlcDlgBuildWhere(DlcB b, MlirValue cond, MlirValue l, MlirValue r) {
  return dlcDlgBuildElementwise(b, "dlg.where", DLC_VALUES(cond, l, r));
}

MlirValue dlcDlgBuildGelu(DlcB b, MlirValue x, bool tanhApprox) {
  return dlcBuildValue(
      b, "dlg.gelu", DLC_VALUES(x),
      DLC_ATTRS(dlcNamedString(b->context, "approximate", tanhApprox ? "tanh" : "none")));
}

MlirValue dlcDlgBuildClamp(DlcB b, MlirValue x, double min, double max) {
  return dlcBuildValue(b, "dlg.clamp", DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedF64(b->context, "min", min),
                                 dlcNamedF64(b->context, "max", max)));
}

/* Builds `name` with one operand and a result type of the given shape and
   element type (ops whose result type is an input: cast, reshape). */
static MlirValue withResultType(DlcB b, const char *name, MlirValue x,
                                MlirType resultType) {
  if (mlirValueIsNull(x))
    return x;
  MlirOperation op = dlcBuildOpTyped(b, name, DLC_VALUES(x), 1, &resultType,
                                     DLC_NO_ATTRS);
  if (mlirOperationIsNull(op))
    return (MlirValue){NULL};
  if (!mlirOperationVerify(op)) {
    mlirOperationDestroy(op);
    return (MlirValue){NULL};
  }
  return mlirOperationGetResult(op, 0);
}

MlirValue dlcDlgBuildCast(DlcB b, MlirValue x, MlirType elementType) {
  DlcShape s;
  if (mlirValueIsNull(x) || !dlcTypeGetShape(mlirValueGetType(x), &s))
    return (MlirValue){NULL};
  return withResultType(b, "dlg.cast", x, dlcTypeFromShape(&s, elementType));
}

MlirValue dlcDlgBuildReshape(DlcB b, MlirValue x, intptr_t rank,
                             const int64_t *shape) {
  DlcShape s;
  if (mlirValueIsNull(x) || !dlcShapeMake(&s, rank, shape))
    return (MlirValue){NULL};
  MlirType elt = mlirShapedTypeGetElementType(mlirValueGetType(x));
  return withResultType(b, "dlg.reshape", x, dlcTypeFromShape(&s, elt));
}

MlirValue dlcDlgBuildMatmul(DlcB b, MlirValue a, MlirValue bm, bool ta,
                            bool tb) {
  return dlcBuildValue(b, "dlg.matmul", DLC_VALUES(a, bm),
                       DLC_ATTRS(dlcNamedBool(b->context, "transpose_a", ta),
                                 dlcNamedBool(b->context, "transpose_b", tb)));
}

MlirValue dlcDlgBuildConv2d(DlcB b, MlirValue input, MlirValue weight,
                            MlirValue bias, const int64_t *strides,
                            const int64_t *padding, const int64_t *dilations,
                            int64_t groups) {
  MlirContext c = b->context;
  MlirNamedAttribute attrs[] = {
      dlcNamedI64Array(c, "strides", 2, OR(strides, kOnes2)),
      dlcNamedI64Array(c, "padding", 4, OR(padding, kZeros4)),
      dlcNamedI64Array(c, "dilations", 2, OR(dilations, kOnes2)),
      dlcNamedI64(c, "groups", groups)};
  MlirValue operands[3] = {input, weight, bias};
  return dlcBuildValue(b, "dlg.conv2d", mlirValueIsNull(bias) ? 2 : 3, operands,
                       4, attrs);
}

static MlirValue pool(DlcB b, const char *name, MlirValue input,
                      const int64_t *kernel, const int64_t *strides,
                      const int64_t *padding, bool ceilMode, int countPad) {
  MlirContext c = b->context;
  MlirNamedAttribute attrs[] = {
      dlcNamedI64Array(c, "kernel", 2, kernel),
      dlcNamedI64Array(c, "strides", 2, OR(strides, kOnes2)),
      dlcNamedI64Array(c, "padding", 4, OR(padding, kZeros4)),
      dlcNamedBool(c, "ceil_mode", ceilMode),
      dlcNamedBool(c, "count_include_pad", countPad == 1)};
  return dlcBuildValue(b, name, DLC_VALUES(input), countPad < 0 ? 4 : 5, attrs);
}

MlirValue dlcDlgBuildMaxPool2d(DlcB b, MlirValue input, const int64_t *kernel,
                               const int64_t *strides, const int64_t *padding,
                               bool ceilMode) {
  return pool(b, "dlg.max_pool2d", input, kernel, strides, padding, ceilMode, -1);
}

MlirValue dlcDlgBuildAvgPool2d(DlcB b, MlirValue input, const int64_t *kernel,
                               const int64_t *strides, const int64_t *padding,
                               bool ceilMode, bool countIncludePad) {
  return pool(b, "dlg.avg_pool2d", input, kernel, strides, padding, ceilMode,
              countIncludePad ? 1 : 0);
}

MlirValue dlcDlgBuildBatchNorm(DlcB b, MlirValue x, MlirValue scale,
                               MlirValue bias, MlirValue mean, MlirValue var,
                               double epsilon, int64_t axis) {
  return dlcBuildValue(b, "dlg.batch_norm", DLC_VALUES(x, scale, bias, mean, var),
                       DLC_ATTRS(dlcNamedF64(b->context, "epsilon", epsilon),
                                 dlcNamedI64(b->context, "axis", axis)));
}

MlirValue dlcDlgBuildLayerNorm(DlcB b, MlirValue x, MlirValue gamma,
                               MlirValue beta, int64_t axis, double epsilon) {
  MlirContext c = b->context;
  MlirValue operands[3];
  intptr_t n = 0;
  operands[n++] = x;
  if (!mlirValueIsNull(gamma))
    operands[n++] = gamma;
  if (!mlirValueIsNull(beta))
    operands[n++] = beta;
  int32_t segments[3] = {1, !mlirValueIsNull(gamma), !mlirValueIsNull(beta)};
  return dlcBuildValue(
      b, "dlg.layer_norm", n, operands,
      DLC_ATTRS(dlcNamedI64(c, "axis", axis), dlcNamedF64(c, "epsilon", epsilon),
                dlcNamed(c, "operandSegmentSizes", mlirDenseI32ArrayGet(c, 3, segments))));
}

MlirValue dlcDlgBuildRmsNorm(DlcB b, MlirValue x, MlirValue gamma,
                             int64_t axis, double epsilon) {
  MlirValue operands[2] = {x, gamma};
  return dlcBuildValue(b, "dlg.rms_norm", mlirValueIsNull(gamma) ? 1 : 2, operands,
                       DLC_ATTRS(dlcNamedI64(b->context, "axis", axis),
                                 dlcNamedF64(b->context, "epsilon", epsilon)));
}

MlirValue dlcDlgBuildSoftmax(DlcB b, MlirValue x, int64_t axis) {
  return dlcBuildValue(b, "dlg.softmax", DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedI64(b->context, "axis", axis)));
}

MlirValue dlcDlgBuildLogSoftmax(DlcB b, MlirValue x, int64_t axis) {
  return dlcBuildValue(b, "dlg.log_softmax", DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedI64(b->context, "axis", axis)));
}

static MlirValue reduce(DlcB b, const char *name, MlirValue x, intptr_t n,
                        const int64_t *axes, bool keepdims) {
  return dlcBuildValue(b, name, DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedI64Array(b->context, "axes", n, axes),
                                 dlcNamedBool(b->context, "keepdims", keepdims)));
}

#define DLC_REDUCE(Fn, name)                                                   \
  MlirValue dlcDlgBuild##Fn(DlcB b, MlirValue x, intptr_t n,                   \
                            const int64_t *axes, bool keepdims) {              \
    return reduce(b, name, x, n, axes, keepdims);                              \
  }
DLC_REDUCE(ReduceSum, "dlg.reduce_sum")
DLC_REDUCE(ReduceMean, "dlg.reduce_mean")
DLC_REDUCE(ReduceMax, "dlg.reduce_max")
DLC_REDUCE(ReduceMin, "dlg.reduce_min")

MlirValue dlcDlgBuildTranspose(DlcB b, MlirValue x, intptr_t n,
                               const int64_t *perm) {
  return dlcBuildValue(b, "dlg.transpose", DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedI64Array(b->context, "perm", n, perm)));
}

MlirValue dlcDlgBuildConcat(DlcB b, intptr_t n, const MlirValue *xs,
                            int64_t axis) {
  return dlcBuildValue(b, "dlg.concat", n, xs,
                       DLC_ATTRS(dlcNamedI64(b->context, "axis", axis)));
}

MlirValue dlcDlgBuildSlice(DlcB b, MlirValue x, intptr_t n,
                           const int64_t *starts, const int64_t *ends,
                           const int64_t *steps) {
  MlirContext c = b->context;
  MlirNamedAttribute attrs[3] = {dlcNamedI64Array(c, "starts", n, starts),
                                 dlcNamedI64Array(c, "ends", n, ends)};
  if (steps)
    attrs[2] = dlcNamedI64Array(c, "steps", n, steps);
  return dlcBuildValue(b, "dlg.slice", DLC_VALUES(x), steps ? 3 : 2, attrs);
}

MlirValue dlcDlgBuildGather(DlcB b, MlirValue data, MlirValue indices,
                            int64_t axis) {
  return dlcBuildValue(b, "dlg.gather", DLC_VALUES(data, indices),
                       DLC_ATTRS(dlcNamedI64(b->context, "axis", axis)));
}

MlirValue dlcDlgBuildPad(DlcB b, MlirValue x, intptr_t nPads,
                         const int64_t *pads, double value) {
  return dlcBuildValue(b, "dlg.pad", DLC_VALUES(x),
                       DLC_ATTRS(dlcNamedI64Array(b->context, "pads", nPads, pads),
                                 dlcNamedF64(b->context, "value", value)));
}

bool dlcValueGetShape(MlirValue v, DlcShape *out) {
  return !mlirValueIsNull(v) && dlcTypeGetShape(mlirValueGetType(v), out);
}
