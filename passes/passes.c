/* Registration of every dlc pass, and running textual pipelines from C. */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/RegisterEverything.h"

#include <threads.h>

static const DlcPassDescriptor *const kPasses[] = {
    &dlcDlgSimplifyPass,
    &dlcDlgFusePass,
    &dlcDlgFoldConstantsPass,
    &dlcDlgFoldBatchNormPass,
    &dlcDlgConvPhaseSplitPass,
    &dlcDlgHorizontalFusePass,
    &dlcDlkToLinalgPass,
    &dlcDlkOutlineKernelsPass,
    &dlcKernelDedupPass,
    &dlcReadonlyArgsPass,
    &dlcMarkTargetPass,
    &dlcDistinctResultsPass,
    &dlcOrderGlobalsPass,
    &dlcCpuAttentionPass,
    &dlcCpuSchedulePass,
    &dlcExpandExpPass,
    &dlcStreamingStoresPass,
    &dlcCopyToLinalgPass,
    &dlcStaticBuffersPass,
    &dlcMemoryPlanPass,
    &dlcMemoryOrderPass,
    &dlcProfilePass,
    &dlcGpuSchedulePass,
    &dlcGpuMapPass,
    &dlcGpuMmaPass,
    &dlcGpuConvPass,
    &dlcGpuAttentionPass,
    &dlcGpuAlignArgsPass,
    &dlcGpuRowsPass,
    &dlcGpuSpreadPass,
    &dlcExternalWeightsPass,
    &dlcPrepackWeightsPass,
    &dlcGemmFusePackingPass,
    &dlcGemmFuseUnpackPass,
    &dlcGemmPackAPass,
    &dlcGemmPrefetchPanelsPass,
    &dlcConvPrefetchWeightsPass,
    &dlcSplitRegisterTilesPass,
    &dlcHoistScratchPass,
    &dlcInlineAllocaScopesPass,
    &dlcDlgRuntimeChecksPass,
};

static once_flag registered = ONCE_FLAG_INIT;

static const DlcPipelineDescriptor *const kPipelines[] = {
    &dlcLowerToLLVMPipeline,
    &dlcLowerToNVVMPipeline,
    &dlcBufferizePipeline,
};

static void registerOnce(void) {
  for (size_t i = 0; i < sizeof kPasses / sizeof kPasses[0]; ++i)
    dlcPassRegister(kPasses[i]);
  for (size_t i = 0; i < sizeof kPipelines / sizeof kPipelines[0]; ++i)
    dlcPipelineRegister(kPipelines[i]);
}

void dlcRegisterAllPasses(void) { call_once(&registered, registerOnce); }

MlirLogicalResult dlcRunPipeline(MlirOperation op, const char *pipeline) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  DlcText msg = {NULL, 0, 0};
  dlcTextAppend(mlirStringRefCreateFromCString("invalid pass pipeline '"), &msg);
  dlcTextAppend(mlirStringRefCreateFromCString(pipeline), &msg);
  dlcTextAppend(mlirStringRefCreateFromCString("': "), &msg);
  MlirLogicalResult r = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), dlcTextAppend, &msg);
  if (mlirLogicalResultIsFailure(r)) {
    mlirEmitError(mlirOperationGetLocation(op), dlcTextGet(&msg));
  } else {
    /* Verified once, after the whole pipeline, not after every pass: on
       DenseNet-121 per-pass verification was a third of the MLIR time.
       dlc-opt (the lit tests) still verifies after each pass. */
    mlirPassManagerEnableVerifier(pm, false);
    r = mlirPassManagerRunOnOp(pm, op);
    if (mlirLogicalResultIsSuccess(r) && !mlirOperationVerify(op))
      r = mlirLogicalResultFailure();
  }
  mlirPassManagerDestroy(pm);
  dlcTextFree(&msg);
  return r;
}

MlirLogicalResult dlcRunPipelineThreaded(MlirOperation op, const char *pipeline, int threads) {
  MlirContext ctx = mlirOperationGetContext(op);
  /* Left as it is when the caller's context is already multithreaded. */
  bool toggle = threads > 1 && mlirContextGetNumThreads(ctx) <= 1;
  if (toggle)
    mlirContextEnableMultithreading(ctx, true);
  MlirLogicalResult r = dlcRunPipeline(op, pipeline);
  if (toggle)
    mlirContextEnableMultithreading(ctx, false);
  return r;
}
