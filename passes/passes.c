/* Registration of every dlc pass, and running textual pipelines from C. */

#include "dlc-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <string.h>
#include <threads.h>

static const DlcPassDescriptor *const kPasses[] = {
    &dlcDlgSimplifyPass,
    &dlcDlgFusePass,
    &dlcDlkToLinalgPass,
    &dlcReadonlyArgsPass,
};

static once_flag registered = ONCE_FLAG_INIT;

static const DlcPipelineDescriptor *const kPipelines[] = {
    &dlcLowerToLLVMPipeline,
};

static void registerOnce(void) {
  for (size_t i = 0; i < sizeof kPasses / sizeof kPasses[0]; ++i)
    dlcPassRegister(kPasses[i]);
  for (size_t i = 0; i < sizeof kPipelines / sizeof kPipelines[0]; ++i)
    dlcPipelineRegister(kPipelines[i]);
}

void dlcRegisterAllPasses(void) { call_once(&registered, registerOnce); }

typedef struct {
  char text[1024];
  size_t len;
} Message;

static void appendMessage(MlirStringRef s, void *user) {
  Message *m = user;
  size_t n = s.length < sizeof m->text - 1 - m->len ? s.length
                                                     : sizeof m->text - 1 - m->len;
  memcpy(m->text + m->len, s.data, n);
  m->len += n;
  m->text[m->len] = 0;
}

MlirLogicalResult dlcRunPipeline(MlirOperation op, const char *pipeline) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  Message msg = {{0}, 0};
  MlirLogicalResult r = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), appendMessage, &msg);
  if (mlirLogicalResultIsFailure(r)) {
    char text[1200];
    snprintf(text, sizeof text, "invalid pass pipeline '%s': %s", pipeline, msg.text);
    mlirEmitError(mlirOperationGetLocation(op), text);
  } else {
    r = mlirPassManagerRunOnOp(pm, op);
  }
  mlirPassManagerDestroy(pm);
  return r;
}
