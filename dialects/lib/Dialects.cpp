//===- Dialects.cpp - C handles of the dlg and dlk dialects ----*- C++ -*-===//
//
// The C face of the dlc dialects, for the C passes and the C API above
// them. C++ because MLIR's registration macro needs the dialect classes,
// #dlk.schedule has no generic C accessor, the MLIR C API cannot parse a
// module (implicitly wrapping top-level ops) under a source name, and it
// cannot tell whether a dense_resource still has its blob.
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Dialects.h"

#include "dlg/DlgOps.h"
#include "dlk/DlkOps.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dlg, dlg, mlir::dlg::DlgDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dlk, dlk, mlir::dlk::DlkDialect)

void dlcRegisterDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlg__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlk__(), registry);
}

MlirModule dlcModuleParse(MlirContext ctx, MlirStringRef source,
                          const char *sourceName) {
  if (dlcParseGuardRefuses(ctx, source, sourceName)) // text the parser would crash on
    return MlirModule{nullptr};
  // MLIR's lexer reads the byte after the text (the NUL a MemoryBuffer
  // guarantees); a caller's (data, length) need not have one, so parse a
  // NUL-terminated copy (found by fuzz/fuzz_dlg.c under ASan). The copy is
  // 64-byte aligned: MLIR bytecode (which the parser also takes, e.g. from
  // the ONNX importer) refuses resource sections less aligned than their
  // blobs declare, and the importer declares 64.
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<llvm::WritableMemoryBuffer> copy =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          source.length, sourceName ? sourceName : "<input>", llvm::Align(64));
  if (!copy)
    return MlirModule{nullptr};
  if (source.length)
    memcpy(copy->getBufferStart(), source.data, source.length);
  sourceMgr.AddNewSourceBuffer(std::move(copy), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(
      sourceMgr, mlir::ParserConfig(unwrap(ctx)));
  return wrap(module.release());
}

bool dlcAttributeIsASchedule(MlirAttribute attr) {
  return llvm::isa<mlir::dlk::ScheduleAttr>(unwrap(attr));
}

bool dlcScheduleRead(MlirAttribute attr, DlcSchedule *out) {
  auto s = llvm::dyn_cast<mlir::dlk::ScheduleAttr>(unwrap(attr));
  if (!s || s.getTileSizes().size() > DLC_SCHEDULE_MAX_LOOPS ||
      s.getParallelDims().size() > DLC_SCHEDULE_MAX_LOOPS ||
      s.getWorkgroupTile().size() > DLC_SCHEDULE_MAX_LOOPS ||
      s.getThreadTile().size() > DLC_SCHEDULE_MAX_LOOPS)
    return false;
  out->numTiles = s.getTileSizes().size();
  llvm::copy(s.getTileSizes(), out->tiles);
  out->vectorWidth = s.getVectorWidth();
  out->registerTile[0] = out->registerTile[1] = 0;
  if (s.getRegisterTile().size() == 2)
    llvm::copy(s.getRegisterTile(), out->registerTile);
  out->numParallel = s.getParallelDims().size();
  llvm::copy(s.getParallelDims(), out->parallel);
  out->numWorkgroup = s.getWorkgroupTile().size();
  llvm::copy(s.getWorkgroupTile(), out->workgroup);
  out->numThread = s.getThreadTile().size();
  llvm::copy(s.getThreadTile(), out->thread);
  out->stages = s.getPipelineDepth();
  out->mma[0] = out->mma[1] = out->mma[2] = 0;
  if (s.getMmaShape().size() == 3)
    llvm::copy(s.getMmaShape(), out->mma);
  return true;
}

MlirAttribute dlcScheduleAttrGet(MlirContext ctx, const DlcSchedule *s) {
  return wrap(mlir::dlk::ScheduleAttr::get(
      unwrap(ctx), llvm::ArrayRef<int64_t>(s->tiles, s->numTiles), s->vectorWidth,
      llvm::ArrayRef<int64_t>(s->registerTile, s->registerTile[0] > 0 ? 2 : 0),
      llvm::ArrayRef<int64_t>(s->parallel, s->numParallel),
      llvm::ArrayRef<int64_t>(s->workgroup, s->numWorkgroup),
      llvm::ArrayRef<int64_t>(s->thread, s->numThread), s->stages > 0 ? s->stages : 1,
      llvm::ArrayRef<int64_t>(s->mma, s->mma[0] > 0 ? 3 : 0)));
}

bool dlcElementsAttrGetRawData(MlirAttribute attr, const void **data,
                               size_t *bytes, bool *isSplat) {
  mlir::Attribute a = unwrap(attr);
  if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(a)) {
    if (dense.getElementType().isInteger(1))
      return false;
    llvm::ArrayRef<char> raw = dense.getRawData();
    *data = raw.data();
    *bytes = raw.size();
    *isSplat = dense.isSplat();
    return true;
  }
  auto res = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(a);
  if (!res)
    return false;
  mlir::AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob)
    return false;
  llvm::ArrayRef<char> raw = blob->getData();
  *data = raw.data();
  *bytes = raw.size();
  *isSplat = false;
  return true;
}
