//===- DlgOps.h - dlg dialect declarations ----------------------*- C++ -*-===//
//
// Thin C++ over ODS: the shape-rule glue (DlgShapeGlue) turns tensor types
// into DlcShape, calls the C rule and turns the answer back into a type.
//
//===----------------------------------------------------------------------===//

#ifndef DLC_DIALECTS_DLG_DLGOPS_H
#define DLC_DIALECTS_DLG_DLGOPS_H

#include "dlc-c/DlgFamily.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>
#include <optional>

namespace mlir::dlg {

/// Declared result types may be more or less static than the inferred ones,
/// never different (same element type, compatible dims).
bool areCompatibleReturnTypes(TypeRange inferred, TypeRange declared);

// Family-wide inference entry points (DlgOps.cpp).
LogicalResult inferBroadcast(std::optional<Location> loc, StringRef opName,
                             ArrayRef<Value> operands,
                             SmallVectorImpl<Type> &out);
/// Broadcast shape, i1 elements.
LogicalResult inferCompare(MLIRContext *ctx, std::optional<Location> loc,
                           StringRef opName, Value lhs, Value rhs,
                           SmallVectorImpl<Type> &out);
LogicalResult inferPool2d(std::optional<Location> loc, StringRef opName,
                          Value input, ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                          bool ceilMode, SmallVectorImpl<Type> &out);
LogicalResult inferSoftmax(std::optional<Location> loc, StringRef opName,
                           Value x, int64_t axis, SmallVectorImpl<Type> &out);
LogicalResult inferReduce(std::optional<Location> loc, StringRef opName,
                          Value x, ArrayRef<int64_t> axes, bool keepDims,
                          SmallVectorImpl<Type> &out);

/// The generic inferReturnTypes of every dlg op with a shape rule: builds
/// complete properties (from `attributes` when none are given, as at parse
/// and build time; then defaults) and calls the op's Adaptor form.
template <typename OpT>
LogicalResult inferWithProperties(MLIRContext *ctx, std::optional<Location> loc,
                                  ValueRange operands, DictionaryAttr attributes,
                                  OpaqueProperties properties,
                                  RegionRange regions,
                                  SmallVectorImpl<Type> &out) {
  typename OpT::Properties props;
  if (properties) {
    props = *properties.as<typename OpT::Properties *>();
  } else if (attributes) {
    auto emit = [&] { return emitError(loc ? *loc : UnknownLoc::get(ctx)); };
    if (failed(OpT::setPropertiesFromAttr(props, attributes, emit)))
      return failure();
  }
  OperationName(OpT::getOperationName(), ctx)
      .populateDefaultProperties(OpaqueProperties(&props));
  typename OpT::Adaptor adaptor(operands, attributes, props, regions);
  return OpT::inferReturnTypes(ctx, loc, adaptor, out);
}

/// Every ranked tensor operand and result of a dlg op has a byte size that
/// fits in int64_t (dlc's largest tensor): sizes computed downstream (element
/// counts, strides, allocations) then never wrap.
LogicalResult verifyTensorSizes(Operation *op);

template <typename ConcreteType>
class SizedTensors : public OpTrait::TraitBase<ConcreteType, SizedTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorSizes(op);
  }
};

/// Every attribute of a dlg op is one of its own or a dialect-prefixed one
/// ("dlc.sid"): a misspelt `keep_dims` would otherwise be kept as an
/// unused discardable attribute and the op would silently use its default.
LogicalResult verifyKnownAttributes(Operation *op);

template <typename ConcreteType>
class KnownAttributes : public OpTrait::TraitBase<ConcreteType, KnownAttributes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyKnownAttributes(op);
  }
};

/// The op's family (Dlg_Family in DlgOps.td): `Family<F>::Impl` marks the
/// ops of family F; dlcDlgOpGetFamily (DlgFamily.cpp) finds which one an op
/// has. No behaviour of its own: it only names the family.
template <DlcOpFamily F>
struct Family {
  template <typename ConcreteType>
  class Impl : public OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static constexpr DlcOpFamily getFamily() { return F; }
  };
};

/// Verifies an op against its shape rule, at the op's location, and checks
/// the declared result types against the inferred ones with one clear
/// message (before InferTypeOpInterface's generic two-error report).
template <typename ConcreteType>
class ShapeRule : public OpTrait::TraitBase<ConcreteType, ShapeRule> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    SmallVector<Type, 1> inferred;
    typename ConcreteType::Adaptor adaptor(cast<ConcreteType>(op));
    if (failed(ConcreteType::inferReturnTypes(op->getContext(), op->getLoc(),
                                              adaptor, inferred)))
      return failure();
    if (!areCompatibleReturnTypes(inferred, op->getResultTypes()))
      return op->emitOpError("declared result type ")
             << op->getResultTypes() << " does not match the inferred "
             << TypeRange(inferred);
    return success();
  }
};

} // namespace mlir::dlg

#include "dlg/DlgOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dlg/DlgOps.h.inc"

#endif // DLC_DIALECTS_DLG_DLGOPS_H
