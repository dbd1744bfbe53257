/* Contexts with everything dlc needs (dlc-c/Context.h). */

#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/RegisterEverything.h"

#include <threads.h>

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
