/* The stages of the lowering pipelines, shared by --lower-to-llvm (CPU)
   and --lower-to-nvvm (NVIDIA GPU), as IREE's Passes.cpp builds its
   pipelines from per-stage builders. The graph-level and tensor-level
   stages, bufferisation and the vector-to-cf step are the same for every
   backend; a backend adds its strategy (dlc-cpu-schedule,
   dlc-gpu-schedule), its memory and parallelism stages and its code
   generation. Adding a stage is one function here (or in the backend's
   pipeline file) and one call in each pipeline that wants it. */

#ifndef DLC_PASSES_PIPELINE_STAGES_H
#define DLC_PASSES_PIPELINE_STAGES_H

#include "mlir-c/Pass.h"

#include <stdbool.h>

typedef struct DlcPipeline {
  MlirOpPassManager pm;
  const char *name; /* the pipeline's name, prefixing its errors */
  bool failed;      /* a stage's text did not parse (already reported) */
} DlcPipeline;

/* Appends the textual pass pipeline `fmt` to the pass manager; an error
   is printed to stderr as `name: ...` and the pipeline fails. */
void dlcPipelineAdd(DlcPipeline *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Graph level (dlg): simplification and folding, then (when `fuse`) the
   partition of each function into dlk.kernels. */
void dlcAddGraphStage(DlcPipeline *p, bool fuse);

/* Tensor level: kernels to linalg on tensors (`dlkToLinalg` the pass with
   its backend's options) and one generic per elementwise chain. */
void dlcAddKernelStage(DlcPipeline *p, const char *dlkToLinalg);

/* Tensors to buffers: public arguments stay the caller's, results become
   caller buffers, deallocations explicit. `canonical`: the kernels were
   canonicalised just before (the CPU schedule stage ends so), and what is
   inlined needs no second pass. */
void dlcAddBufferizeStage(DlcPipeline *p, bool canonical);

/* Vector transfers unrolled to scalar-indexed loops and structured control
   flow to branches, the common step before either backend's LLVM; nested
   in `anchor` ("func.func": each function on its own thread) or, when
   NULL, on the whole module. `beforeBranches` (or NULL) is a backend's
   passes on the 1-D transfers, while loops are still structured. */
void dlcAddVectorToCfStage(DlcPipeline *p, const char *anchor, const char *beforeBranches);

#endif
