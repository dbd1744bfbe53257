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
  SmallVector<int64_t> tile, reg, parallel, workgroup, thread, mma;
  int64_t vector = 1, stages = 1;
  llvm::SmallSet<StringRef, 4> seen;
  if (p.parseLess())
    return {};
  if (succeeded(p.parseOptionalGreater()))
    return getChecked([&] { return p.emitError(p.getNameLoc()); },
                      p.getContext(), tile, vector, reg, parallel, workgroup, thread, stages, mma);
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
    else if (key == "workgroup")
      r = parseIntList(p, workgroup);
    else if (key == "thread")
      r = parseIntList(p, thread);
    else if (key == "stages")
      r = p.parseInteger(stages);
    else if (key == "mma")
      r = parseIntList(p, mma);
    else
      p.emitError(keyLoc, "unknown schedule field '")
          << key << "' (expected tile, vector, register, parallel, workgroup, thread, "
                    "stages or mma)";
    if (failed(r))
      return {};
  } while (succeeded(p.parseOptionalComma()));
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); },
                    p.getContext(), tile, vector, reg, parallel, workgroup, thread, stages, mma);
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
  if (!getWorkgroupTile().empty())
    fields.push_back("workgroup = " + list(getWorkgroupTile()));
  if (!getThreadTile().empty())
    fields.push_back("thread = " + list(getThreadTile()));
  if (getPipelineDepth() != 1)
    fields.push_back("stages = " + std::to_string(getPipelineDepth()));
  if (!getMmaShape().empty())
    fields.push_back("mma = " + list(getMmaShape()));
  p << "<";
  llvm::interleaveComma(fields, p);
  p << ">";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> tileSizes, int64_t vectorWidth,
                     ArrayRef<int64_t> registerTile, ArrayRef<int64_t> parallelDims,
                     ArrayRef<int64_t> workgroupTile, ArrayRef<int64_t> threadTile,
                     int64_t pipelineDepth, ArrayRef<int64_t> mmaShape) {
  for (auto [i, t] : llvm::enumerate(tileSizes))
    if (t < 0)
      return emitError() << "#dlk.schedule tile size " << t << " at index " << i
                         << " is negative (0 leaves a loop untiled)";
  // Not only powers of two: the cost model picks 25 lanes for a row of
  // 100 and 5 for a classifier's 10 columns, and its schedule, printed in
  // the IR, must read back.
  if (vectorWidth < 1)
    return emitError() << "#dlk.schedule vector width must be positive, got " << vectorWidth;
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
  // GPU fields: a grid and a block have three dimensions each.
  for (auto [name, tiles] : {std::pair<StringRef, ArrayRef<int64_t>>{"workgroup", workgroupTile},
                             {"thread", threadTile}}) {
    int tiled = 0;
    for (auto [i, t] : llvm::enumerate(tiles)) {
      if (t < 0)
        return emitError() << "#dlk.schedule " << name << " tile " << t << " at index " << i
                           << " is negative (0 leaves a loop untiled)";
      tiled += t != 0;
    }
    if (tiled > 3)
      return emitError() << "#dlk.schedule " << name << " tiles " << tiled
                         << " loops; at most 3 map to GPU dimensions x, y, z";
  }
  if (!workgroupTile.empty() && !threadTile.empty()) {
    if (workgroupTile.size() != threadTile.size())
      return emitError() << "#dlk.schedule workgroup has " << workgroupTile.size()
                         << " tiles but thread has " << threadTile.size();
    for (auto [i, w, t] : llvm::enumerate(workgroupTile, threadTile))
      if (w != 0 && t != 0 && w % t != 0)
        return emitError() << "#dlk.schedule thread tile " << t << " does not divide workgroup tile "
                           << w << " at index " << i;
  }
  if (pipelineDepth < 1)
    return emitError() << "#dlk.schedule stages must be at least 1, got " << pipelineDepth;
  if (!mmaShape.empty()) {
    bool known = mmaShape.size() == 3 && mmaShape[0] == 16 && mmaShape[1] == 8 &&
                 llvm::is_contained({4, 8, 16}, mmaShape[2]);
    // wgmma.mma_async m64nNk16 (sm_90a, f16 / bf16): N a multiple of 8 up to 256
    bool wgmma = mmaShape.size() == 3 && mmaShape[0] == 64 && mmaShape[2] == 16 &&
                 mmaShape[1] >= 8 && mmaShape[1] <= 256 && mmaShape[1] % 8 == 0;
    if (!known && !wgmma)
      return emitError() << "#dlk.schedule mma must be [16, 8, 16], [16, 8, 8] or [16, 8, 4] "
                            "(mma.sync shapes) or [64, N, 16] with N a multiple of 8 up to 256 "
                            "(wgmma.mma_async)";
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
