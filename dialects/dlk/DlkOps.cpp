//===- DlkOps.cpp - dlk dialect ---------------------------------*- C++ -*-===//

#include "dlk/DlkOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dlk;

#include "dlk/DlkOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dlk/DlkOpsAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dlk/DlkOps.cpp.inc"

void DlkDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dlk/DlkOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dlk/DlkOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #dlk.schedule<tile = [..], vector = N, parallel = [..]>
//===----------------------------------------------------------------------===//

static ParseResult parseIntList(AsmParser &p, SmallVectorImpl<int64_t> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return p.parseInteger(out.emplace_back());
  });
}

Attribute ScheduleAttr::parse(AsmParser &p, Type) {
  SmallVector<int64_t> tile, reg, parallel;
  int64_t vector = 1;
  llvm::SmallSet<StringRef, 4> seen;
  if (p.parseLess())
    return {};
  if (succeeded(p.parseOptionalGreater()))
    return getChecked([&] { return p.emitError(p.getNameLoc()); },
                      p.getContext(), tile, vector, reg, parallel);
  do {
    SMLoc keyLoc = p.getCurrentLocation();
    StringRef key;
    if (p.parseKeyword(&key) || p.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      p.emitError(keyLoc, "'") << key << "' is given twice";
      return {};
    }
    ParseResult r = failure();
    if (key == "tile")
      r = parseIntList(p, tile);
    else if (key == "parallel")
      r = parseIntList(p, parallel);
    else if (key == "vector")
      r = p.parseInteger(vector);
    else if (key == "register")
      r = parseIntList(p, reg);
    else
      p.emitError(keyLoc, "unknown schedule field '")
          << key << "' (expected tile, vector, register or parallel)";
    if (failed(r))
      return {};
  } while (succeeded(p.parseOptionalComma()));
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); },
                    p.getContext(), tile, vector, reg, parallel);
}

void ScheduleAttr::print(AsmPrinter &p) const {
  SmallVector<std::string> fields;
  auto list = [](ArrayRef<int64_t> v) {
    std::string s = "[";
    llvm::raw_string_ostream os(s);
    llvm::interleaveComma(v, os);
    return s + "]";
  };
  if (!getTileSizes().empty())
    fields.push_back("tile = " + list(getTileSizes()));
  if (getVectorWidth() != 1)
    fields.push_back("vector = " + std::to_string(getVectorWidth()));
  if (!getRegisterTile().empty())
    fields.push_back("register = " + list(getRegisterTile()));
  if (!getParallelDims().empty())
    fields.push_back("parallel = " + list(getParallelDims()));
  p << "<";
  llvm::interleaveComma(fields, p);
  p << ">";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> tileSizes, int64_t vectorWidth,
                     ArrayRef<int64_t> registerTile, ArrayRef<int64_t> parallelDims) {
  for (auto [i, t] : llvm::enumerate(tileSizes))
    if (t < 0)
      return emitError() << "#dlk.schedule tile size " << t << " at index " << i
                         << " is negative (0 leaves a loop untiled)";
  if (vectorWidth < 1 || !llvm::isPowerOf2_64(vectorWidth))
    return emitError() << "#dlk.schedule vector width must be a power of two, got "
                       << vectorWidth;
  if (!registerTile.empty() &&
      (registerTile.size() != 2 || registerTile[0] < 1 || registerTile[1] < 1))
    return emitError() << "#dlk.schedule register tile must be [MR, NR], both positive";
  llvm::SmallSet<int64_t, 4> dims;
  for (int64_t d : parallelDims) {
    if (d < 0)
      return emitError() << "#dlk.schedule parallel dim " << d << " is negative";
    if (!tileSizes.empty() && d >= (int64_t)tileSizes.size())
      return emitError() << "#dlk.schedule parallel dim " << d
                         << " is out of range for " << tileSizes.size()
                         << " tiled loops";
    if (!dims.insert(d).second)
      return emitError() << "#dlk.schedule parallel dim " << d << " repeats";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// dlk.kernel
//===----------------------------------------------------------------------===//

bool KernelOp::isKnownKind(StringRef kind) {
  return llvm::is_contained({"elementwise", "reduction", "contraction",
                             "injective", "opaque"},
                            kind);
}

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult KernelOp::verifyRegions() {
  if (!isKnownKind(getKind()))
    return emitOpError("unknown kind \"")
           << getKind()
           << "\" (expected elementwise, reduction, contraction, injective or "
              "opaque)";
  if (getNumResults() == 0)
    return emitOpError("must have at least one result");
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the kernel has "
           << getInputs().size() << " operands";
  for (auto [i, arg, in] : llvm::enumerate(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << " but operand #" << i
             << " has type " << in.getType();
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError("body must end in dlk.yield");
  YieldOp yield = getYield();
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the kernel has "
           << getNumResults() << " results";
  for (auto [i, v, r] : llvm::enumerate(yield.getValues(), getResults()))
    if (v.getType() != r.getType())
      return yield.emitOpError("value #")
             << i << " has type " << v.getType() << " but kernel result #" << i
             << " has type " << r.getType();
  return success();
}
