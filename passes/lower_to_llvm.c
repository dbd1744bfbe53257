/* --lower-to-llvm: the whole CPU pipeline from dlg (or dlk) to the LLVM
   dialect. Our rewrites run above the type-conversion boundary; from
   linalg on tensors on, the pipeline composes upstream passes:

     dlg-simplify, dlg-fold-batch-norm,
     dlg-fold-constants, dlg-fuse      graph level (C)
     dlc-memory-order                  each op just before its first user
                                       where that shortens lifetimes (C)
     dlk-to-linalg                     kernels -> linalg on tensors (C)
     linalg-fuse-elementwise-ops       one generic per elementwise chain
     dlc-cpu-schedule                  tiling, parallel forall, vectorisation,
                                       accumulator hoisting (C, transform IR)
     one-shot-bufferize ...            memrefs, results as caller buffers
     dlc-static-buffers, dlc-memory-plan   copy elision; temporaries in one
                                       workspace arena, a last argument (C)
     scf-forall-to-parallel, convert-scf-to-openmp   2-core parallel loops
     vector / math / memref / scf -> LLVM

   The target (avx2, avx512 or host) sets the vector width the schedule
   tiles for; the JIT and llc then pick the matching instructions. */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/Func.h"

#include <stdio.h>
#include <string.h>

/*--- dlc-readonly-args: public function arguments are the caller's --------------*/

static MlirLogicalResult markReadonly(MlirOperation func, void *state, DlcPass *pass) {
  MlirAttribute vis = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("sym_visibility"));
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

/*--- The pipeline -----------------------------------------------------------------*/

static const DlcOptionDesc kOptions[] = {
    {"target", "CPU to generate code for: host, avx2 or avx512", DLC_OPTION_STRING, "host"},
    {"vector-width", "f32 lanes per vector; 0 takes the target's", DLC_OPTION_INT, "0"},
    {"fuse", "run dlg-fuse first (kernels already present are kept)", DLC_OPTION_BOOL, "true"},
    {"schedule", "tile and vectorise (off: plain loops, for debugging)", DLC_OPTION_BOOL, "true"},
    {"parallel", "turn parallel tiles into OpenMP loops", DLC_OPTION_BOOL, "true"},
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
    if (target.length == strlen(kTargets[i]) && memcmp(target.data, kTargets[i], target.length) == 0)
      return true;
  return false;
}

static MlirLogicalResult build(MlirOpPassManager pm, const DlcOptions *o) {
  int64_t given = dlcOptionsGetInt(o, "vector-width"), vw = given;
  MlirStringRef target = dlcOptionsGetString(o, "target");
  if (vw <= 0)
    vw = dlcTargetVectorWidth(target);
  bool fuse = dlcOptionsGetBool(o, "fuse"), sched = dlcOptionsGetBool(o, "schedule");
  bool par = dlcOptionsGetBool(o, "parallel");
  if (!dlcTargetIsKnown(target)) {
    fprintf(stderr, "lower-to-llvm: unknown target '%.*s' (host, avx2 or avx512)\n",
            (int)target.length, target.data);
    return (MlirLogicalResult){0};
  }
  char schedule[128] = "";
  if (sched) /* the target's name: "host" reads this machine's cache sizes */
    snprintf(schedule, sizeof schedule, "dlc-cpu-schedule{target=%.*s vector-width=%d},canonicalize,cse,",
             (int)target.length, target.data, (int)given);
  char p[2048];
  snprintf(p, sizeof p,
           "func.func(dlg-simplify,dlg-fold-batch-norm,dlg-fold-constants,dlg-simplify),%s"
           "func.func(dlc-memory-order),%sdlk-to-linalg{vector-width=%d},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,"
           "%s"
           "inline,symbol-dce,func.func(dlc-readonly-args),"
           "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
           "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
           "dlc-static-buffers,dlc-memory-plan,dlc-copy-to-linalg,func.func(convert-linalg-to-loops),%s"
           "canonicalize,lower-affine,convert-vector-to-scf{full-unroll=true target-rank=1},convert-scf-to-cf,"
           "func.func(math-expand-ops{ops=ctlz,sinh,cosh,tanh,asinh,acosh,atanh,tan,fma,ceil,exp2,round,roundeven,rsqrt},"
           "dlc-expand-exp),convert-math-to-funcs{convert-ctlz=false},"
           "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
           "convert-math-to-llvm,convert-math-to-libm,expand-strided-metadata,lower-affine,"
           "finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts",
           fuse ? "func.func(dlg-fuse)," : "", dlcOptionsGetBool(o, "profile") ? "dlc-profile," : "",
           (int)vw, schedule,
           par ? "scf-forall-to-parallel,convert-scf-to-openmp," : "scf-forall-to-parallel,");
  DlcText e = {NULL, 0, 0};
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(pm, mlirStringRefCreateFromCString(p), dlcTextAppend, &e);
  if (mlirLogicalResultIsFailure(r))
    fprintf(stderr, "lower-to-llvm: %s\n", dlcTextGet(&e));
  dlcTextFree(&e);
  return r;
}

const DlcPipelineDescriptor dlcLowerToLLVMPipeline = {
    .argument = "lower-to-llvm",
    .summary = "The CPU pipeline from dlg or dlk to the LLVM dialect: fusion, lowering, "
               "tiling, vectorisation, bufferisation, parallel loops, LLVM conversion",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .build = build,
};
