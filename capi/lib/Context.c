/* Contexts with everything dlc needs (dlc-c/Context.h). */

#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Text.h"
#include "shape/Checked.h"

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

char *dlcOperationToBytecode(MlirOperation op, size_t *length) {
  *length = 0;
  if (!mlirOperationVerify(op))
    return NULL;
  /* One growing buffer in C: MLIR's writer calls back per small write, and
     a callback into Python per write cost more than the hex text. */
  DlcText t = {NULL, 0, 0};
  mlirOperationWriteBytecode(op, dlcTextAppend, &t);
  *length = t.len;
  return t.data ? t.data : dlcXcalloc(1, 1);
}
