//===- DlgNms.cpp - dlg.non_max_suppression: shape glue, verifier -*- C++ -*-===//
//
// The result types come from the C rule dlcShapeNonMaxSuppression
// (dialects/shape/nms.c); the verifier checks the attribute values the rule
// does not need. No shape logic lives here.
//
//===----------------------------------------------------------------------===//

#include "dlg/DlgOps.h"

#include "dlc-c/Shape.h"
#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlg;

LogicalResult NonMaxSuppressionOp::inferReturnTypes(MLIRContext *ctx,
                                                    std::optional<Location> loc,
                                                    Adaptor a,
                                                    SmallVectorImpl<Type> &out) {
  auto error = [&](const Twine &msg) {
    return emitOptionalError(loc, "'", getOperationName(), "' op ", msg);
  };
  DlcShape s[2];
  const Value operands[2] = {a.getBoxes(), a.getScores()};
  const char *names[2] = {"boxes", "scores"};
  for (int i = 0; i < 2; ++i) {
    auto type = dyn_cast<RankedTensorType>(operands[i].getType());
    if (!type)
      return error(Twine("operand ") + names[i] + " must be a ranked tensor");
    if (!dlcShapeMake(&s[i], type.getRank(), type.getShape().data()))
      return error(Twine("operand ") + names[i] + " has rank " + Twine(type.getRank()) +
                   ", more than dlc's maximum of " + Twine(DLC_MAX_RANK));
  }
  DlcShape selected, count;
  DlcShapeError err;
  if (!dlcShapeNonMaxSuppression(&s[0], &s[1], a.getMaxOutputBoxesPerClass(), &selected,
                                 &count, &err))
    return error(Twine(err.message));
  Type i64 = IntegerType::get(ctx, 64);
  out.push_back(RankedTensorType::get(ArrayRef<int64_t>(selected.dims, selected.rank), i64));
  out.push_back(RankedTensorType::get({}, i64));
  return success();
}

// The thresholds are compared with f32 scores and overlaps: they must be
// numbers, and an overlap ratio lies in [0, 1] (onnxruntime refuses others).
LogicalResult NonMaxSuppressionOp::verify() {
  double iou = getIouThreshold().convertToDouble();
  if (!(iou >= 0.0 && iou <= 1.0))
    return emitOpError("'iou_threshold' must be in [0, 1], got ") << iou;
  if (auto s = getScoreThreshold(); s && std::isnan(s->convertToDouble()))
    return emitOpError("'score_threshold' must not be NaN");
  return success();
}
