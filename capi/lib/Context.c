/* Contexts with everything dlc needs, and parsing modules (dlc-c/Dialects.h). */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/RegisterEverything.h"

#include <threads.h>

void dlcRegisterDialects(MlirDialectRegistry registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlg__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__dlk__(), registry);
}

static once_flag passesRegistered = ONCE_FLAG_INIT;

static void registerPassesOnce(void) {
  mlirRegisterAllPasses();
  dlcRegisterAllPasses();
}

MlirContext dlcContextCreate(void) {
  call_once(&passesRegistered, registerPassesOnce);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  dlcRegisterDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  static const char *const loaded[] = {"dlg", "dlk", "func"};
  for (size_t i = 0; i < sizeof loaded / sizeof loaded[0]; ++i)
    mlirContextGetOrLoadDialect(ctx, mlirStringRefCreateFromCString(loaded[i]));
  return ctx;
}
