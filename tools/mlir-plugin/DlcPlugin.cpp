//===- DlcPlugin.cpp - dlc as a plugin of Debian's mlir-opt ----*- C++ -*-===//
//
//   mlir-opt --load-dialect-plugin=DlcPlugin.so --load-pass-plugin=DlcPlugin.so \
//     --pass-pipeline='builtin.module(func.func(dlg-simplify))' model.mlir
//
// The entry points need default visibility or mlir-opt silently ignores them.
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

#define DLC_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

DLC_PLUGIN_EXPORT mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "dlc", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            dlcRegisterDialects(wrap(registry));
          }};
}

DLC_PLUGIN_EXPORT mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "dlc", LLVM_VERSION_STRING,
          []() { dlcRegisterAllPasses(); }};
}
