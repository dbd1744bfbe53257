//===- DlgNonZero.cpp - dlg.non_zero: shape glue -----------------*- C++ -*-===//
//
// The result types come from the C rule dlcShapeNonZero
// (dialects/shape/nonzero.c); the op has no attribute to verify. No shape
// logic lives here.
//
//===----------------------------------------------------------------------===//

#include "dlg/DlgOps.h"

#include "dlc-c/Shape.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::dlg;

LogicalResult NonZeroOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                          Adaptor a, SmallVectorImpl<Type> &out) {
  auto error = [&](const Twine &msg) {
    return emitOptionalError(loc, "'", getOperationName(), "' op ", msg);
  };
  auto type = dyn_cast<RankedTensorType>(a.getInput().getType());
  if (!type)
    return error("operand input must be a ranked tensor");
  DlcShape x, indices, count;
  if (!dlcShapeMake(&x, type.getRank(), type.getShape().data()))
    return error("operand input has rank " + Twine(type.getRank()) +
                 ", more than dlc's maximum of " + Twine(DLC_MAX_RANK));
  DlcShapeError err;
  if (!dlcShapeNonZero(&x, &indices, &count, &err))
    return error(Twine(err.message));
  Type i64 = IntegerType::get(ctx, 64);
  out.push_back(RankedTensorType::get(ArrayRef<int64_t>(indices.dims, indices.rank), i64));
  out.push_back(RankedTensorType::get({}, i64));
  return success();
}
