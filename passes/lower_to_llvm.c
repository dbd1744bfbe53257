/* --lower-to-llvm: the whole CPU pipeline from dlg (or dlk) to the LLVM
   dialect, built stage by stage (the shared stages are
   pipeline/stages.h). Our rewrites run above the type-conversion
   boundary; from linalg on tensors on, the pipeline composes upstream
   passes:

     graph            dlg-simplify, dlg-fold-batch-norm,
                      dlg-fold-constants, dlg-fuse (C, shared)
     kernel order     dlc-memory-order: each op just before its first user
                      where that shortens lifetimes; dlc-profile (C)
     kernels          dlk-to-linalg, linalg-fuse-elementwise-ops (shared)
     schedule         dlc-cpu-schedule: tiling, parallel forall,
                      vectorisation, accumulator hoisting (C, transform IR)
     bufferize        one-shot-bufferize ...: memrefs, results as caller
                      buffers (shared)
     memory plan      dlc-static-buffers, dlc-memory-plan: copy elision;
                      temporaries in one workspace arena, a last argument (C)
     kernel dedup     dlc-kernel-dedup: each loop nest a noinline function,
                      identical nests sharing one (C)
     parallel         scf-forall-to-parallel, convert-scf-to-openmp
     vector to cf     (shared) with dlc-streaming-stores (C) on the 1-D
                      transfers; then math, vector, memref -> LLVM
     weights          dlc-external-weights: large constant globals become
                      declarations the JIT/AOT bind to the data (C)

   The target (avx2, avx512 or host) sets the vector width the schedule
   tiles for, and dlc-mark-target records it on the module (dlc.target):
   the JIT compiles for it (x86-64-v3, v4, or this CPU), as dlc-compile's
   --isa does. */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "pipeline/stages.h"
#include "schedule/cost_model.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"

#include <stdio.h>
#include <string.h>

/*--- dlc-readonly-args: public function arguments are the caller's --------------*/

static MlirLogicalResult markReadonly(MlirOperation func, void *state, DlcPass *pass) {
  MlirAttribute vis =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_visibility"));
  if (!mlirAttributeIsNull(vis)) /* private or nested: internal calls may write */
    return (MlirLogicalResult){1};
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(entry))
    return (MlirLogicalResult){1};
  MlirContext ctx = mlirOperationGetContext(func);
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(entry); ++i)
    mlirFuncSetArgAttr(func, i, mlirStringRefCreateFromCString("bufferization.writable"),
                       mlirBoolAttrGet(ctx, 0));
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcReadonlyArgsPass = {
    .argument = "dlc-readonly-args",
    .summary = "Mark the tensor arguments of public functions as not writable, so "
               "bufferization never writes into the caller's inputs",
    .anchor = "func.func",
    .run = markReadonly,
};

/*--- dlc-mark-target: the module says which CPU its code is for -------------------*/

/* lower-to-llvm's target on the module (dlc.target = "avx2"), which the JIT
   reads to compile for that ISA (x86-64-v3/v4) rather than for whatever CPU
   compiles it: target=avx2 on an AVX-512 machine is then AVX2 code, as
   dlc-compile --isa avx2 makes. */
static const DlcOptionDesc kMarkOptions[] = {
    {"isa", "host, avx2 or avx512", DLC_OPTION_STRING, "host"},
};

static MlirLogicalResult markTarget(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  MlirStringRef isa = dlcOptionsGetString(dlcPassGetOptions(pass), "isa");
  /* the JIT would take any other name for AVX2 */
  if (!dlcTargetCheck(module, "dlc-mark-target", "isa", isa))
    return (MlirLogicalResult){0};
  MlirContext ctx = mlirOperationGetContext(module);
  mlirOperationSetDiscardableAttributeByName(module, mlirStringRefCreateFromCString("dlc.target"),
                                             mlirStringAttrGet(ctx, isa));
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcMarkTargetPass = {
    .argument = "dlc-mark-target",
    .summary = "Record the CPU the module's code is for (dlc.target), which the JIT compiles for",
    .anchor = "builtin.module",
    .options = kMarkOptions,
    .numOptions = sizeof kMarkOptions / sizeof *kMarkOptions,
    .run = markTarget,
};

/*--- The pipeline -----------------------------------------------------------------*/

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU to generate code for: host, avx2 or avx512", DLC_OPTION_STRING, "host"},
    {"vector-width", "f32 lanes per vector; 0 takes the target's", DLC_OPTION_INT, "0"},
    {"fuse", "run dlg-fuse first (kernels already present are kept)", DLC_OPTION_BOOL, "true"},
    {"schedule", "tile and vectorise (off: plain loops, for debugging)", DLC_OPTION_BOOL, "true"},
    {"parallel", "turn parallel tiles into OpenMP loops", DLC_OPTION_BOOL, "true"},
    {"fuse-unpack",
     "start packed-panel GEMMs' packed C from the fill value and unpack it tile by tile "
     "(dlc-gemm-fuse-unpack; measured neutral on the machines so far)",
     DLC_OPTION_BOOL, "false"},
    {"profile", "time each kernel (dlc-profile; the runtime prints the table)", DLC_OPTION_BOOL,
     "false"},
};

int64_t dlcTargetVectorWidth(MlirStringRef target) {
  if (target.length == 6 && memcmp(target.data, "avx512", 6) == 0)
    return 16;
  if (target.length == 4 && memcmp(target.data, "avx2", 4) == 0)
    return 8;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return 16;
  if (__builtin_cpu_supports("avx2"))
    return 8;
#endif
  return 4;
}

bool dlcTargetIsKnown(MlirStringRef target) {
  static const char *const kTargets[] = {"host", "avx2", "avx512"};
  for (size_t i = 0; i < sizeof kTargets / sizeof kTargets[0]; ++i)
    if (target.length == strlen(kTargets[i]) &&
        memcmp(target.data, kTargets[i], target.length) == 0)
      return true;
  return false;
}

bool dlcTargetCheck(MlirOperation op, const char *pass, const char *option, MlirStringRef target) {
  if (dlcTargetIsKnown(target))
    return true;
  char msg[192];
  snprintf(msg, sizeof msg, "%s: unknown %s '%.*s' (host, avx2 or avx512)", pass, option,
           (int)(target.length < 64 ? target.length : 64), target.data);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return false;
}

/* Kernels in the order that shortens lifetimes, and (when profiling)
   timed, while they are still dlk.kernels with their names and kinds. */
static void addKernelOrderStage(DlcPipeline *p, bool profile) {
  dlcPipelineAdd(p, "func.func(dlc-memory-order)");
  if (profile)
    dlcPipelineAdd(p, "dlc-profile");
}

/* The CPU strategy: tiles, parallel foralls and vectors by each kernel's
   schedule; the target's name, as "host" reads this machine's caches. */
static void addScheduleStage(DlcPipeline *p, MlirStringRef target, int64_t vectorWidth) {
  dlcPipelineAdd(p, "dlc-cpu-schedule{target=%.*s vector-width=%d},func.func(canonicalize,cse)",
                 (int)target.length, target.data, (int)vectorWidth);
}

/* Copies elided into the caller's buffers, temporaries in one workspace
   arena (a last argument), what is left of linalg as loops; then the
   packed-panel GEMMs' B packing into their first row block and, when
   asked, their C's fill and unpacking into their first and last Kc
   blocks (off by default: gemm_fuse_unpack.c measured it neutral here);
   last, GEMMs on weights packed at compile time prefetch each next panel
   (gemm_prefetch_panels.c: the BERT layer 1.2x faster with constant
   weights, ResNet-50 1.04x), and direct convs on such weights the next
   channel panel into L2 (conv_prefetch_weights.c), panels of up to 3/8
   of L2, so that two of them and the input rows stay. */
static void addMemoryPlanStage(DlcPipeline *p, long long maxRunBytes, bool fuseUnpack,
                               const DlcCpuTarget *cpu) {
  dlcPipelineAdd(p, "dlc-static-buffers,dlc-memory-plan,dlc-copy-to-linalg{cpu=true},"
                    "func.func(convert-linalg-to-loops,dlc-gemm-fuse-packing{max-run-bytes=%lld "
                    "l2-bytes=%lld l2-ways=%lld prefetch-rows-ahead=%lld}%s,"
                    "dlc-gemm-prefetch-panels,dlc-conv-prefetch-weights{max-panel-bytes=%lld})",
                 maxRunBytes, (long long)cpu->l2Bytes, (long long)cpu->l2Ways,
                 (long long)dlcGemmFusePackingRowsAhead(cpu),
                 fuseUnpack ? ",dlc-gemm-fuse-unpack" : "", (long long)cpu->l2Bytes / 8 * 3);
}

/* The schedule's parallel foralls as OpenMP loops (or serial loops); then
   the alloca scopes of their bodies (dlc-hoist-scratch's, and the OpenMP
   conversion's own) lowered while each is still one block. */
static void addParallelStage(DlcPipeline *p, bool openmp) {
  dlcPipelineAdd(p, openmp ? "scf-forall-to-parallel,convert-scf-to-openmp"
                           : "scf-forall-to-parallel");
  dlcPipelineAdd(p, "func.func(dlc-inline-alloca-scopes)");
}

/* Math the LLVM conversion cannot take (expanded, or libm calls), then
   everything to the LLVM dialect. */
static void addLLVMStage(DlcPipeline *p) {
  dlcPipelineAdd(p, "func.func(math-expand-ops{ops=ctlz,sinh,cosh,tanh,asinh,acosh,atanh,tan,fma,"
                    "ceil,exp2,round,roundeven,rsqrt},dlc-expand-exp),"
                    "convert-math-to-funcs{convert-ctlz=false},"
                    "func.func(convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
                    "convert-math-to-llvm),convert-math-to-libm,"
                    "func.func(expand-strided-metadata,lower-affine),"
                    "finalize-memref-to-llvm,convert-to-llvm,"
                    "reconcile-unrealized-casts");
  /* Weights out of the module, bound at load time (external_weights.c):
     LLVM would otherwise spend minutes on a 100 MB initializer. */
  dlcPipelineAdd(p, "dlc-external-weights");
}

static MlirLogicalResult build(MlirOpPassManager pm, const DlcOptions *o) {
  int64_t given = dlcOptionsGetInt(o, "vector-width"), vw = given;
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (vw <= 0)
    vw = dlcTargetVectorWidth(target);
  if (!dlcTargetIsKnown(target)) {
    fprintf(stderr, "lower-to-llvm: unknown target '%.*s' (host, avx2 or avx512)\n",
            (int)target.length, target.data);
    return (MlirLogicalResult){0};
  }
  DlcPipeline p = {.pm = pm, .name = "lower-to-llvm"};
  dlcAddGraphStage(&p, false);
  /* A strided conv on an image's few channels runs as the direct conv on
     its column phases (dlg_conv_phase_split.c); the weights' phase split
     folds into a constant before fusion. */
  dlcPipelineAdd(&p, "func.func(dlg-conv-phase-split{vector-width=%d},dlg-fold-constants)",
                 (int)vw);
  if (dlcOptionsGetBool(o, "fuse"))
    dlcPipelineAdd(&p, "func.func(dlg-fuse)");
  /* Attention chains (Q.K^T, softmax, P.V kernels) may become one
     flash-style loop nest before the kernels are lowered
     (passes/cpu_attention.c); on by default with AVX-512 (measured faster
     than the three kernels), with AVX2 under a causal mask or from 512
     keys, unless the module's dlc.attention_min_keys says otherwise. */
  dlcPipelineAdd(&p, "dlc-cpu-attention{vector-width=%d}", (int)vw);
  addKernelOrderStage(&p, dlcOptionsGetBool(o, "profile"));
  /* packs GEMM operands into panels of the vector width; the A that
     dlc-gemm-pack-a packs later needs no row padding */
  DlcCpuTarget cpu = dlcCpuTargetGet(target, given);
  long long packABytes = (long long)dlcGemmPackAMinBytes(&cpu);
  char dlkToLinalg[96];
  snprintf(dlkToLinalg, sizeof dlkToLinalg, "dlk-to-linalg{vector-width=%d pack-a-bytes=%lld}",
           (int)vw, packABytes);
  dlcAddKernelStage(&p, dlkToLinalg);
  /* Constant weights packed once, here, not by the kernel on every call. */
  dlcPipelineAdd(&p, "dlc-prepack-weights");
  bool schedule = dlcOptionsGetBool(o, "schedule");
  if (schedule)
    addScheduleStage(&p, target, given);
  dlcAddBufferizeStage(&p, schedule);
  addMemoryPlanStage(&p, (long long)dlcGemmFusePackingMaxRunBytes(&cpu),
                     dlcOptionsGetBool(o, "fuse-unpack"), &cpu);
  /* GEMMs whose A is at least twice L2 (AVX-512) or more than four times
     (AVX2) read it from packed Mc x Kc blocks (gemm_pack_a.c); the cost
     model sized their tiles for it. */
  if (packABytes > 0)
    dlcPipelineAdd(&p, "dlc-gemm-pack-a{target=%.*s min-bytes=%lld}", (int)target.length,
                   target.data, packABytes);
  /* Scratch buffers of the loop nests (packed panels, C tiles) taken once
     per parallel tile, on the stack where they fit, not malloc'd and
     freed per Kc block (hoist_scratch.c: glibc's trimming cost a fifth of
     a BERT FFN GEMM in a C program). After every pass that adds one. */
  dlcPipelineAdd(&p, "func.func(dlc-hoist-scratch)");
  /* Register tiles three vectors wide as one accumulator per register,
     after the passes above, which match them whole (split_register_tiles.c). */
  dlcPipelineAdd(&p, "func.func(dlc-split-register-tiles{vector-width=%d})", (int)vw);
  /* Each loop nest a function, identical ones shared: the rest (and
     LLVM) compile each distinct kernel once, in a function of its own. */
  dlcPipelineAdd(&p, "dlc-kernel-dedup");
  addParallelStage(&p, dlcOptionsGetBool(o, "parallel"));
  /* Canonicalisation first folds the loops that tiling left with one trip. */
  dlcPipelineAdd(&p, "func.func(canonicalize)");
  /* Outputs larger than the last-level cache written with non-temporal
     stores where whole lines (streaming_stores.c). */
  char streaming[64];
  snprintf(streaming, sizeof streaming, "dlc-streaming-stores{target=%.*s}", (int)target.length,
           target.data);
  dlcAddVectorToCfStage(&p, "func.func", streaming);
  addLLVMStage(&p);
  /* The JIT compiles for the target named here (jit_target.c). */
  dlcPipelineAdd(&p, "dlc-mark-target{isa=%.*s}", (int)target.length, target.data);
  return (MlirLogicalResult){!p.failed};
}

const DlcPipelineDescriptor dlcLowerToLLVMPipeline = {
    .argument = "lower-to-llvm",
    .summary = "The CPU pipeline from dlg or dlk to the LLVM dialect: fusion, lowering, "
               "tiling, vectorisation, bufferisation, parallel loops, LLVM conversion",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .build = build,
};
