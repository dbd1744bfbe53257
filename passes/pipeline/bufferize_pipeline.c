/* --dlc-bufferize: the bufferisation stage both backends run (stages.c),
   on its own. Tests that emulate part of a backend on the CPU build their
   pipelines from it, so they run the stage the compiler runs rather than a
   copy of its pass list that drifts. */

#include "dlc-c/Passes.h"
#include "pipeline/stages.h"

static MlirLogicalResult build(MlirOpPassManager pm, const DlcOptions *o) {
  (void)o;
  DlcPipeline p = {.pm = pm, .name = "dlc-bufferize"};
  dlcAddBufferizeStage(&p, false);
  return (MlirLogicalResult){!p.failed};
}

const DlcPipelineDescriptor dlcBufferizePipeline = {
    .argument = "dlc-bufferize",
    .summary = "The backends' bufferisation stage: kernels inlined, one-shot bufferisation "
               "with results as caller buffers, deallocation, constant globals in first-use "
               "order",
    .build = build,
};
