/* The shared stages of the lowering pipelines (stages.h). */

#include "pipeline/stages.h"

#include "dlc-c/Dialects.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void dlcPipelineAdd(DlcPipeline *p, const char *fmt, ...) {
  if (p->failed)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *text = malloc((size_t)n + 1);
  if (!text) {
    p->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(text, (size_t)n + 1, fmt, ap);
  va_end(ap);
  DlcText e = {NULL, 0, 0};
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(p->pm, mlirStringRefCreate(text, (size_t)n), dlcTextAppend, &e);
  if (mlirLogicalResultIsFailure(r)) {
    fprintf(stderr, "%s: %s\n", p->name, dlcTextGet(&e));
    p->failed = true;
  }
  dlcTextFree(&e);
  free(text);
}

void dlcAddGraphStage(DlcPipeline *p, bool fuse) {
  /* Simplify before folding (so folded constants see canonical ops) and
     after (folding leaves identities behind). */
  dlcPipelineAdd(p, "func.func(dlg-simplify,dlg-fold-batch-norm,dlg-fold-constants,"
                    "dlg-simplify)");
  /* Kernels: what one loop nest (or one GEMM with its epilogue) computes;
     kernels already present are kept. */
  if (fuse)
    dlcPipelineAdd(p, "func.func(dlg-fuse)");
}

void dlcAddKernelStage(DlcPipeline *p, const char *dlkToLinalg) {
  /* Each kernel becomes linalg on tensors; elementwise fusion makes one
     generic of each elementwise chain, which the schedule tiles as one. */
  dlcPipelineAdd(p, "%s,func.func(linalg-fuse-elementwise-ops,canonicalize,cse)", dlkToLinalg);
}

void dlcAddBufferizeStage(DlcPipeline *p, bool canonical) {
  /* Kernels are inlined so bufferisation sees whole lifetimes; public
     arguments are the caller's and are never written; a tensor returned
     twice gets a copy per extra result, one caller buffer each. The
     inliner canonicalises what it inlined into unless the kernels come
     canonical: on ResNet-50 that is 0.15 s on one thread, over one
     function of all its kernels, with output byte-identical without it
     (dlc-gpu-conv needs it: the GPU schedule leaves its kernels as tiled). */
  dlcPipelineAdd(p, "%s,symbol-dce,func.func(dlc-readonly-args,dlc-distinct-results)",
                 canonical ? "inline{default-pipeline=}" : "inline");
  /* Results become caller-provided buffers (the runtime's calling
     convention), with explicit deallocation of temporaries. A dlg.while
     (scf.while) yields a new tensor each trip, not its argument's buffer:
     allow-return-allocs-from-loops gives it a fresh one (without it
     bufferization refuses such loops; loops it accepted are unchanged).
     No canonicalisation between the ownership-based deallocation and its
     simplification: over the one function of all the kernels it cost
     ResNet-50 0.12-0.15 s and changed none of the lowered output of the
     benchmark models (ResNet-50, MobileNetV2, BERT, MLP, GEMM; the
     canonicalisation after the lowering of the deallocations stays, as
     the output does change without it). */
  dlcPipelineAdd(p, "one-shot-bufferize{bufferize-function-boundaries "
                    "function-boundary-type-conversion=identity-layout-map "
                    "allow-return-allocs-from-loops},"
                    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
                    "func.func(expand-realloc{emit-deallocs=false},canonicalize),"
                    "ownership-based-buffer-deallocation,"
                    "func.func(buffer-deallocation-simplification),"
                    "bufferization-lower-deallocations,func.func(cse,canonicalize),"
                    "convert-bufferization-to-memref");
  /* Bufferization creates its constant globals in an order that changes
     from run to run: first-use order and names, for reproducible output. */
  dlcPipelineAdd(p, "dlc-order-globals");
}

void dlcAddVectorToCfStage(DlcPipeline *p, const char *anchor, const char *beforeBranches) {
  /* One-dimensional transfers, which both LLVM conversions lower to plain
     vector loads and stores, then branches. */
  dlcPipelineAdd(p, "%s%slower-affine,convert-vector-to-scf{full-unroll=true target-rank=1},"
                    "%s%sconvert-scf-to-cf%s",
                 anchor ? anchor : "", anchor ? "(" : "", beforeBranches ? beforeBranches : "",
                 beforeBranches ? "," : "", anchor ? ")" : "");
}
