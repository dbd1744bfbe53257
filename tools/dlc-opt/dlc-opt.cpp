//===- dlc-opt.cpp - mlir-opt with the dlc dialects and passes -*- C++ -*-===//
//
// MlirOptMain with every upstream dialect, extension and pass, plus dlg,
// dlk and every dlc pass and pipeline. Thin by design: registration only.
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
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

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

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dlc optimizer driver (dlg/dlk + upstream MLIR)\n", registry));
}
