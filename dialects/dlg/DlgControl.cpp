//===- DlgControl.cpp - verifiers of dlg.if / dlg.while / dlg.update_row -*- C++ -*-===//
//
// The control-flow ops carry no shape rule: what they check is that the
// types handed across each region boundary agree (the inits, the region
// arguments, the terminators' operands and the results), so that lowering
// to scf.if / scf.while never has to convert a type, and that a condition is
// a one-element i1 tensor (what ONNX If and Loop allow).
//
//===----------------------------------------------------------------------===//

#include "dlg/DlgOps.h"

using namespace mlir;
using namespace mlir::dlg;

/// A condition has one element: every dim static and 1 (0-d included).
static LogicalResult verifyCondition(Operation *op, Value cond) {
  auto t = cast<RankedTensorType>(cond.getType());
  if (!t.hasStaticShape() || t.getNumElements() != 1)
    return op->emitOpError("condition must have exactly one element, got ") << t;
  return success();
}

/// `got` (what `what` holds) is exactly `want` (`against`).
static LogicalResult sameTypes(Operation *op, TypeRange got, const char *what,
                               TypeRange want, const char *against) {
  if (got.size() != want.size())
    return op->emitOpError() << what << " has " << got.size() << " values but "
                             << against << " has " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return op->emitOpError() << what << " #" << i << " is " << got[i]
                               << " but " << against << " #" << i << " is "
                               << want[i];
  return success();
}

/// The terminator of `region`'s block, when it is an OpT (else an error).
template <typename OpT>
static OpT terminatorOf(Operation *op, Region &region, const char *regionName) {
  Block &block = region.front();
  auto t = block.empty() ? OpT() : dyn_cast<OpT>(block.back());
  if (!t)
    op->emitOpError() << regionName << " region must end in '"
                      << OpT::getOperationName() << "'";
  return t;
}

LogicalResult IfOp::verify() {
  if (failed(verifyCondition(*this, getCondition())))
    return failure();
  Region *regions[] = {&getThenRegion(), &getElseRegion()};
  const char *names[] = {"then", "else"};
  for (int i = 0; i < 2; ++i) {
    auto y = terminatorOf<YieldOp>(*this, *regions[i], names[i]);
    if (!y)
      return failure();
    std::string what = std::string(names[i]) + " region's yield";
    if (failed(sameTypes(*this, y.getValues().getTypes(), what.c_str(),
                         getResultTypes(), "result")))
      return failure();
  }
  return success();
}

LogicalResult WhileOp::verify() {
  TypeRange carried = getInits().getTypes();
  if (failed(sameTypes(*this, getResultTypes(), "result", carried, "init")))
    return failure();
  if (failed(sameTypes(*this, getBefore().front().getArgumentTypes(),
                       "before region's argument", carried, "init")) ||
      failed(sameTypes(*this, getAfter().front().getArgumentTypes(),
                       "do region's argument", carried, "init")))
    return failure();
  auto c = terminatorOf<ConditionOp>(*this, getBefore(), "before");
  if (!c)
    return failure();
  if (failed(sameTypes(*this, c.getArgs().getTypes(), "dlg.condition's operand",
                       carried, "init")))
    return failure();
  auto y = terminatorOf<YieldOp>(*this, getAfter(), "do");
  if (!y)
    return failure();
  return sameTypes(*this, y.getValues().getTypes(), "do region's yield",
                   carried, "init");
}

LogicalResult ConditionOp::verify() {
  return verifyCondition(*this, getCondition());
}

/// The row replaces one entry of dim 0: its type is the buffer's without
/// that dim; the index is one i64 (0-d).
LogicalResult UpdateRowOp::verify() {
  auto buf = cast<RankedTensorType>(getBuffer().getType());
  auto row = cast<RankedTensorType>(getRow().getType());
  auto idx = cast<RankedTensorType>(getIndex().getType());
  if (idx.getRank() != 0)
    return emitOpError("index must be a 0-d i64 tensor, got ") << idx;
  if (buf.getRank() == 0)
    return emitOpError("buffer must have rank 1 or more (rows along dim 0), got ") << buf;
  auto want = RankedTensorType::get(buf.getShape().drop_front(), buf.getElementType());
  if (row != want)
    return emitOpError("row must be ") << want << " (the buffer's type without dim 0), got "
                                       << row;
  return success();
}
