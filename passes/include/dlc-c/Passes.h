/*===-- dlc-c/Passes.h - The dlc passes and pipelines -------------*- C -*-===*/

#ifndef DLC_C_PASSES_H
#define DLC_C_PASSES_H

#include "dlc-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Descriptors of the dlc passes (passes/<name>.c). */
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgSimplifyPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgFusePass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgFoldConstantsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgFoldBatchNormPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgConvPhaseSplitPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgHorizontalFusePass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlkToLinalgPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlkOutlineKernelsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcKernelDedupPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcReadonlyArgsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcMarkTargetPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDistinctResultsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcOrderGlobalsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcPrepackWeightsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGemmFusePackingPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGemmFuseUnpackPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGemmPackAPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGemmPrefetchPanelsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcConvPrefetchWeightsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcSplitRegisterTilesPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcHoistScratchPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcInlineAllocaScopesPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcDlgRuntimeChecksPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcCpuAttentionPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcCpuSchedulePass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcExpandExpPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcStreamingStoresPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcCopyToLinalgPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcStaticBuffersPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcExternalWeightsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcMemoryPlanPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcMemoryOrderPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcProfilePass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuSchedulePass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuMapPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuMmaPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuConvPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuAttentionPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuAlignArgsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuRowsPass;
MLIR_CAPI_EXPORTED extern const DlcPassDescriptor dlcGpuSpreadPass;
MLIR_CAPI_EXPORTED extern const DlcPipelineDescriptor dlcLowerToLLVMPipeline;
MLIR_CAPI_EXPORTED extern const DlcPipelineDescriptor dlcLowerToNVVMPipeline;
/* --dlc-bufferize: the bufferisation stage alone (tests that emulate a backend). */
MLIR_CAPI_EXPORTED extern const DlcPipelineDescriptor dlcBufferizePipeline;

/* The CUDA toolkit directory (with nvvm/libdevice/libdevice.10.bc): `given`
   if not empty, else CUDA_HOME/CUDA_PATH/CUDA_ROOT, a ptxas on PATH, or the
   newest /usr/local/cuda*. False when none is found. */
MLIR_CAPI_EXPORTED bool dlcFindCudaToolkit(const char *given, char *out, size_t n);

/* f32 lanes per vector register for a target name (avx2, avx512, host). */
MLIR_CAPI_EXPORTED int64_t dlcTargetVectorWidth(MlirStringRef target);
/* Whether `target` names one: host, avx2 or avx512. */
MLIR_CAPI_EXPORTED bool dlcTargetIsKnown(MlirStringRef target);
/* The same, else the error "<pass>: unknown <option> '<target>' (host,
   avx2 or avx512)" at `op`: a pass's check of its target option. */
MLIR_CAPI_EXPORTED bool dlcTargetCheck(MlirOperation op, const char *pass, const char *option,
                                       MlirStringRef target);

/* --dlg-simplify: algebraic simplification of dlg ops (on func.func). */
MLIR_CAPI_EXPORTED MlirPass dlcCreateDlgSimplifyPass(void);

/* Registers every dlc pass and pipeline by name; safe to call repeatedly. */
MLIR_CAPI_EXPORTED void dlcRegisterAllPasses(void);

/* Runs a textual pipeline, e.g. "builtin.module(func.func(dlg-simplify))",
   on `op`. Parse errors and pass failures are reported as diagnostics. */
MLIR_CAPI_EXPORTED MlirLogicalResult dlcRunPipeline(MlirOperation op,
                                                    const char *pipeline);

/* The same with `threads` > 1 running nested pipelines (func.func(...))
   and dlcParallelFor bodies on the context's thread pool (all cores), with
   multithreading on for this run only: a context from dlcContextCreate
   has it off, which keeps a compiled program free of the pool's idle
   threads and of locks on every type and attribute it makes. */
MLIR_CAPI_EXPORTED MlirLogicalResult dlcRunPipelineThreaded(MlirOperation op,
                                                            const char *pipeline, int threads);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_PASSES_H */
