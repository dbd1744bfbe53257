/* libFuzzer target: dlc-opt's parse, verify, simplify and fuse path on
   arbitrary text (seeded with the dlg tests). Any input either fails with
   diagnostics or is transformed into a module that still verifies. */

#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdlib.h>

static MlirContext ctx;
static DlcDiagnostics *diags;
static unsigned runs;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A fresh context now and then: types and attributes interned by earlier
     inputs would otherwise grow without bound. */
  if (!ctx.ptr || ++runs % 4096 == 0) {
    if (ctx.ptr) {
      dlcDiagnosticsDetach(ctx, diags);
      mlirContextDestroy(ctx);
    }
    ctx = dlcContextCreate();
    mlirContextEnableMultithreading(ctx, false);
    diags = dlcDiagnosticsAttach(ctx);
  }
  MlirModule m = dlcModuleParse(ctx, (MlirStringRef){(const char *)data, size}, "fuzz.mlir");
  if (!mlirModuleIsNull(m)) {
    MlirOperation op = mlirModuleGetOperation(m);
    if (mlirLogicalResultIsSuccess(
            dlcRunPipeline(op, "builtin.module(func.func(dlg-simplify,dlg-fuse))")) &&
        !mlirOperationVerify(op))
      abort(); /* a pass left an invalid module without failing */
    mlirModuleDestroy(m);
  }
  dlcDiagnosticsClear(diags);
  return 0;
}
