//===- DlgOps.cpp - dlg dialect: glue to the C shape rules ------*- C++ -*-===//
//
// Each inferReturnTypes converts operand types to DlcShape, calls the op's
// C rule (dialects/shape/shape.c) and builds the result type; a failing rule
// becomes a diagnostic at the op. No shape logic lives here.
//
//===----------------------------------------------------------------------===//

#include "dlg/DlgOps.h"

#include "dlc-c/Shape.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::dlg;

#include "dlg/DlgOpsDialect.cpp.inc"

void DlgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dlg/DlgOps.cpp.inc"
      >();
}

Operation *DlgDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// Shape glue
//===----------------------------------------------------------------------===//

namespace {
/// Collects operand shapes and reports rule failures at the op's location.
struct ShapeGlue {
  std::optional<Location> loc;
  StringRef opName;

  LogicalResult error(const Twine &msg) const {
    return emitOptionalError(loc, "'", opName, "' op ", msg);
  }
  LogicalResult error(const DlcShapeError &err) const {
    return error(Twine(err.message));
  }

  /// Reads a ranked tensor operand into `s`.
  LogicalResult shape(Value v, StringRef name, DlcShape &s) const {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return error(Twine("operand ") + name + " must be a ranked tensor");
    if (!dlcShapeMake(&s, type.getRank(), type.getShape().data()))
      return error(Twine("operand ") + name + " has rank " +
                   Twine(type.getRank()) + ", more than dlc's maximum of " +
                   Twine(DLC_MAX_RANK));
    return success();
  }

  LogicalResult result(const DlcShape &s, Value like,
                       SmallVectorImpl<Type> &out) const {
    out.push_back(RankedTensorType::get(ArrayRef<int64_t>(s.dims, s.rank),
                                        getElementTypeOrSelf(like.getType())));
    return success();
  }
};
} // namespace

LogicalResult mlir::dlg::verifyTensorSizes(Operation *op) {
  auto check = [&](Type t, const char *role, unsigned i) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(t);
    DlcShape s;
    if (!type || !dlcShapeMake(&s, type.getRank(), type.getShape().data()))
      return success(); // unranked and too-deep tensors are reported elsewhere
    Type e = type.getElementType(); // dlg's types are int or float; others count 8
    int64_t bytes = e.isIntOrFloat() ? (e.getIntOrFloatBitWidth() + 7) / 8 : 8;
    DlcShapeError err;
    if (dlcShapeCheckBytes(&s, bytes, "shape", &err))
      return success();
    return op->emitOpError() << role << " #" << i << " (" << t << ") is too large: "
                             << err.message;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  return success();
}

LogicalResult mlir::dlg::verifyKnownAttributes(Operation *op) {
  for (NamedAttribute a : op->getDiscardableAttrs()) {
    StringRef name = a.getName().strref();
    if (name.contains('.'))
      continue; // another dialect's (dlc.sid, dlk.kind, ...)
    ArrayRef<StringAttr> known = op->getName().getAttributeNames();
    std::string list;
    for (StringAttr k : known)
      list += (list.empty() ? "" : ", ") + k.str();
    return op->emitOpError() << "has no attribute '" << name << "' (its attributes: "
                             << (list.empty() ? std::string("none") : list) << ")";
  }
  return success();
}

bool mlir::dlg::areCompatibleReturnTypes(TypeRange inferred,
                                         TypeRange declared) {
  if (inferred.size() != declared.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, declared))
    if (getElementTypeOrSelf(a) != getElementTypeOrSelf(b) ||
        failed(verifyCompatibleShape(a, b)))
      return false;
  return true;
}

LogicalResult mlir::dlg::inferBroadcast(std::optional<Location> loc,
                                        StringRef opName,
                                        ArrayRef<Value> operands,
                                        SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, opName};
  static const char *const names3[] = {"cond", "lhs", "rhs"};
  static const char *const names2[] = {"lhs", "rhs"};
  const char *const *names = operands.size() == 3 ? names3 : names2;
  DlcShape s[3], r;
  DlcShapeError err;
  for (size_t i = 0; i < operands.size(); ++i)
    if (failed(g.shape(operands[i], names[i], s[i])))
      return failure();
  bool ok = operands.size() == 3 ? dlcShapeWhere(&s[0], &s[1], &s[2], &r, &err)
                                 : dlcShapeBroadcast(&s[0], &s[1], &r, &err);
  if (!ok)
    return g.error(err);
  return g.result(r, operands.back(), out);
}

LogicalResult mlir::dlg::inferCompare(MLIRContext *ctx, std::optional<Location> loc,
                                      StringRef opName, Value lhs, Value rhs,
                                      SmallVectorImpl<Type> &out) {
  if (failed(inferBroadcast(loc, opName, {lhs, rhs}, out)))
    return failure();
  auto t = cast<RankedTensorType>(out.back());
  out.back() = RankedTensorType::get(t.getShape(), IntegerType::get(ctx, 1));
  return success();
}

LogicalResult mlir::dlg::inferPool2d(std::optional<Location> loc,
                                     StringRef opName, Value input,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding, bool ceilMode,
                                     SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, opName};
  DlcShape x, r;
  DlcShapeError err;
  if (failed(g.shape(input, "input", x)))
    return failure();
  if (!dlcShapePool2d(&x, kernel.data(), kernel.size(), strides.data(),
                      strides.size(), padding.data(), padding.size(), ceilMode,
                      &r, &err))
    return g.error(err);
  return g.result(r, input, out);
}

LogicalResult mlir::dlg::inferSoftmax(std::optional<Location> loc,
                                      StringRef opName, Value x, int64_t axis,
                                      SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, opName};
  DlcShape s, r;
  DlcShapeError err;
  if (failed(g.shape(x, "x", s)))
    return failure();
  if (!dlcShapeSoftmax(&s, axis, &r, &err))
    return g.error(err);
  return g.result(r, x, out);
}

LogicalResult mlir::dlg::inferReduce(std::optional<Location> loc,
                                     StringRef opName, Value x,
                                     ArrayRef<int64_t> axes, bool keepDims,
                                     SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, opName};
  DlcShape s, r;
  DlcShapeError err;
  if (failed(g.shape(x, "x", s)))
    return failure();
  if (!dlcShapeReduce(&s, axes.data(), axes.size(), keepDims, &r, &err))
    return g.error(err);
  return g.result(r, x, out);
}

//===----------------------------------------------------------------------===//
// Per-op inference
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor a,
                                           SmallVectorImpl<Type> &out) {
  if (!a.getValue())
    return emitOptionalError(loc, "'dlg.constant' op requires a 'value'");
  out.push_back(a.getValue().getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a,
                                         SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape sa, sb, r;
  DlcShapeError err;
  if (failed(g.shape(a.getA(), "a", sa)) || failed(g.shape(a.getB(), "b", sb)))
    return failure();
  if (!dlcShapeMatmul(&sa, &sb, a.getTransposeA(), a.getTransposeB(), &r, &err))
    return g.error(err);
  return g.result(r, a.getA(), out);
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a,
                                         SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape in, w, b, r;
  DlcShapeError err;
  if (failed(g.shape(a.getInput(), "input", in)) ||
      failed(g.shape(a.getWeight(), "weight", w)) ||
      (a.getBias() && failed(g.shape(a.getBias(), "bias", b))))
    return failure();
  ArrayRef<int64_t> st = a.getStrides(), pad = a.getPadding(),
                    dil = a.getDilations();
  if (!dlcShapeConv2d(&in, &w, a.getBias() ? &b : nullptr, st.data(),
                      st.size(), pad.data(), pad.size(), dil.data(),
                      dil.size(), a.getGroups(), &r, &err))
    return g.error(err);
  return g.result(r, a.getInput(), out);
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape x, p[4], r;
  DlcShapeError err;
  if (failed(g.shape(a.getX(), "x", x)) ||
      failed(g.shape(a.getScale(), "scale", p[0])) ||
      failed(g.shape(a.getBias(), "bias", p[1])) ||
      failed(g.shape(a.getMean(), "mean", p[2])) ||
      failed(g.shape(a.getVar(), "var", p[3])))
    return failure();
  if (!dlcShapeBatchNorm(&x, &p[0], &p[1], &p[2], &p[3], a.getAxis(), &r, &err))
    return g.error(err);
  return g.result(r, a.getX(), out);
}

/// layer_norm and rms_norm share one rule; beta is null for rms_norm.
static LogicalResult inferNorm(std::optional<Location> loc, StringRef opName,
                               Value x, Value gamma, Value beta, int64_t axis,
                               SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, opName};
  DlcShape sx, sg, sb, r;
  DlcShapeError err;
  if (failed(g.shape(x, "x", sx)) ||
      (gamma && failed(g.shape(gamma, "gamma", sg))) ||
      (beta && failed(g.shape(beta, "beta", sb))))
    return failure();
  if (!dlcShapeNorm(&sx, gamma ? &sg : nullptr, beta ? &sb : nullptr, axis, &r,
                    &err))
    return g.error(err);
  return g.result(r, x, out);
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &out) {
  return inferNorm(loc, getOperationName(), a.getX(), a.getGamma(),
                   a.getBeta(), a.getAxis(), out);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor a,
                                          SmallVectorImpl<Type> &out) {
  return inferNorm(loc, getOperationName(), a.getX(), a.getGamma(), Value(),
                   a.getAxis(), out);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape x, r;
  DlcShapeError err;
  if (failed(g.shape(a.getX(), "x", x)))
    return failure();
  ArrayRef<int64_t> perm = a.getPerm();
  if (!dlcShapeTranspose(&x, perm.data(), perm.size(), &r, &err))
    return g.error(err);
  return g.result(r, a.getX(), out);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a,
                                         SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  ValueRange xs = a.getXs();
  if (xs.empty())
    return g.error("needs at least one operand");
  SmallVector<DlcShape> shapes(xs.size());
  SmallVector<const DlcShape *> ptrs;
  Type elt = getElementTypeOrSelf(xs[0].getType());
  for (auto [i, v] : llvm::enumerate(xs)) {
    if (failed(g.shape(v, "#" + std::to_string(i), shapes[i])))
      return failure();
    if (getElementTypeOrSelf(v.getType()) != elt)
      return emitOptionalError(loc, "'", getOperationName(), "' op operand #",
                               i, " has element type ",
                               getElementTypeOrSelf(v.getType()),
                               ", operand #0 has ", elt);
    ptrs.push_back(&shapes[i]);
  }
  DlcShape r;
  DlcShapeError err;
  if (!dlcShapeConcat(ptrs.data(), ptrs.size(), a.getAxis(), &r, &err))
    return g.error(err);
  return g.result(r, xs[0], out);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc, Adaptor a,
                                        SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape x, r;
  DlcShapeError err;
  if (failed(g.shape(a.getX(), "x", x)))
    return failure();
  ArrayRef<int64_t> starts = a.getStarts(), ends = a.getEnds();
  std::optional<ArrayRef<int64_t>> steps = a.getSteps();
  if (!dlcShapeSlice(&x, starts.data(), starts.size(), ends.data(),
                     ends.size(), steps ? steps->data() : nullptr,
                     steps ? steps->size() : 0, &r, &err))
    return g.error(err);
  return g.result(r, a.getX(), out);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a,
                                         SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape d, i, r;
  DlcShapeError err;
  if (failed(g.shape(a.getData(), "data", d)) ||
      failed(g.shape(a.getIndices(), "indices", i)))
    return failure();
  if (!dlcShapeGather(&d, &i, a.getAxis(), &r, &err))
    return g.error(err);
  return g.result(r, a.getData(), out);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc, Adaptor a,
                                      SmallVectorImpl<Type> &out) {
  ShapeGlue g{loc, getOperationName()};
  DlcShape x, r;
  DlcShapeError err;
  if (failed(g.shape(a.getX(), "x", x)))
    return failure();
  ArrayRef<int64_t> pads = a.getPads();
  if (!dlcShapePad(&x, pads.data(), pads.size(), &r, &err))
    return g.error(err);
  return g.result(r, a.getX(), out);
}

//===----------------------------------------------------------------------===//
// Verifiers of what the shape rules do not cover
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("'approximate' must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult ClampOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("'min' (") << getMin().convertToDouble()
           << ") is greater than 'max' (" << getMax().convertToDouble() << ")";
  return success();
}

LogicalResult CastOp::verify() {
  if (failed(verifyCompatibleShape(getX().getType(), getType())))
    return emitOpError("shape of x ")
           << getX().getType() << " differs from the result's " << getType()
           << "; a cast keeps the shape";
  return success();
}

static LogicalResult verifyEpsilon(Operation *op, double eps) {
  if (!(eps > 0.0))
    return op->emitOpError("'epsilon' must be positive, got ") << eps;
  return success();
}

LogicalResult BatchNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}
LogicalResult LayerNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}
LogicalResult RmsNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}

LogicalResult ReshapeOp::verify() {
  ShapeGlue g{getLoc(), getOperationName()};
  DlcShape x, r;
  DlcShapeError err;
  if (failed(g.shape(getX(), "x", x)) || failed(g.shape(getResult(), "result", r)))
    return failure();
  if (!dlcShapeReshape(&x, &r, &err))
    return emitOpError(err.message);
  return success();
}

#define GET_OP_CLASSES
#include "dlg/DlgOps.cpp.inc"
