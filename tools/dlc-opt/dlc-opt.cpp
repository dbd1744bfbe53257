//===- dlc-opt.cpp - mlir-opt with the dlc dialects and passes -*- C++ -*-===//
//
// MlirOptMain with every upstream dialect, extension and pass, plus dlg,
// dlk and every dlc pass and pipeline. Thin by design: registration, and
// the input read here first so that text MLIR 22's parser would crash on
// (dlcParseGuardRefuses) gets a located error instead; the rest is
// MlirOptMain(argc, argv, ...)'s own file handling.
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "dlc-test/TestPasses.h"

#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  dlcRegisterAllPasses();
  dlcRegisterTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (--lower-to-nvvm) translates gpu.module to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  dlcRegisterDialects(wrap(&registry));

  llvm::InitLLVM init(argc, argv);
  auto [inputName, outputName] = mlir::registerAndParseCLIOptions(
      argc, argv, "dlc optimizer driver (dlg/dlk + upstream MLIR)\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputName, outputName, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputName, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    // The error printed as the parser's own: file:line:col, the line, a caret.
    mlir::MLIRContext guardContext(mlir::MLIRContext::Threading::DISABLED);
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(), false),
                               llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(sources, &guardContext);
    llvm::StringRef text = input->getBuffer();
    if (dlcParseGuardRefuses(wrap(&guardContext), {text.data(), text.size()},
                             input->getBufferIdentifier().str().c_str()))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputName, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
