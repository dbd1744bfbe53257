/* --lower-to-nvvm: the NVIDIA GPU pipeline from dlg (or dlk) to the LLVM
   dialect with the kernels compiled into a gpu.binary (docs/gpu.md).

     dlg-simplify ... dlg-fuse           graph level, shared with the CPU
     dlk-to-linalg{pack=false}           kernels -> linalg on tensors; plain
                                         contractions (packing is a CPU layout)
     linalg-fuse-elementwise-ops
     dlc-gpu-schedule                    blocks, threads, per-thread vectors (C)
     one-shot-bufferize ...              as for the CPU
     dlc-copy-to-linalg, dlc-gpu-map     gpu.launch per loop nest, device memory (C)
     gpu-kernel-outlining                kernels into a gpu.module
     nvvm-attach-target                  chip, PTX features, libdevice
     convert-gpu-to-nvvm                 NVVM dialect; math -> __nv_* (libdevice)
     gpu-to-llvm                         host: mgpu* runtime calls (runtime/cuda_runtime.c)
     gpu-module-to-binary                PTX (isa), cubin (bin) or fatbin, embedded

   No canonicalisation runs between dlc-gpu-schedule and dlc-gpu-map: it
   drops the mapping of a forall whose trip count it folds to one.

   The CUDA toolkit (ptxas, fatbinary, libdevice) is the `toolkit` option,
   else CUDA_HOME, CUDA_PATH, CUDA_ROOT, the directory above a ptxas on
   PATH, or the newest /usr/local/cuda*; without libdevice math functions
   would stay `.extern __nv_*`, so a missing one is an error. */

#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const DlcOptionDesc kOptions[] = {
    {"chip", "GPU architecture (sm_XX)", DLC_OPTION_STRING, "sm_90"},
    {"features", "PTX features for LLVM's NVPTX back end", DLC_OPTION_STRING, "+ptx80"},
    {"format", "what the gpu.binary holds: fatbin, bin (cubin) or isa (PTX text)",
     DLC_OPTION_STRING, "fatbin"},
    {"toolkit", "CUDA toolkit directory (empty: search, see docs/gpu.md)", DLC_OPTION_STRING, ""},
    {"allow-tf32", "let f32 contractions use TF32 tensor cores (not implemented: an error)",
     DLC_OPTION_BOOL, "false"},
    {"opt-level", "LLVM optimisation level of the kernels", DLC_OPTION_INT, "3"},
    {"fuse", "run dlg-fuse first (kernels already present are kept)", DLC_OPTION_BOOL, "true"},
    {"stop-after", "end the pipeline after a stage: schedule (tiled, mapped foralls on "
                   "tensors), bufferize, launch (gpu.launch), outline (gpu.module), nvvm; "
                   "empty runs it all", DLC_OPTION_STRING, ""},
};

static bool isFile(const char *path) { return access(path, R_OK) == 0; }

static bool hasLibdevice(const char *root) {
  char p[1024];
  snprintf(p, sizeof p, "%s/nvvm/libdevice/libdevice.10.bc", root);
  return isFile(p);
}

/* The newest /usr/local/cuda-X.Y (or /usr/local/cuda) with libdevice. */
static bool searchUsrLocal(char *out, size_t n) {
  DIR *d = opendir("/usr/local");
  if (!d)
    return false;
  char best[512] = "";
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "cuda", 4) != 0)
      continue;
    char p[512];
    snprintf(p, sizeof p, "/usr/local/%s", e->d_name);
    if (hasLibdevice(p) && strcmp(p, best) > 0)
      snprintf(best, sizeof best, "%s", p);
  }
  closedir(d);
  if (!best[0])
    return false;
  snprintf(out, n, "%s", best);
  return true;
}

bool dlcFindCudaToolkit(const char *given, char *out, size_t n) {
  if (given && given[0]) {
    snprintf(out, n, "%s", given);
    return hasLibdevice(out);
  }
  static const char *const kVars[] = {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"};
  for (size_t i = 0; i < sizeof kVars / sizeof kVars[0]; ++i) {
    const char *v = getenv(kVars[i]);
    if (v && v[0] && hasLibdevice(v)) {
      snprintf(out, n, "%s", v);
      return true;
    }
  }
  const char *path = getenv("PATH");
  if (path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *dir = strtok(buf, ":"); dir; dir = strtok(NULL, ":")) {
      char p[1024];
      snprintf(p, sizeof p, "%s/ptxas", dir);
      if (!isFile(p))
        continue;
      snprintf(p, sizeof p, "%s/..", dir); /* bin/.. */
      char *real = realpath(p, NULL);
      bool ok = real && hasLibdevice(real);
      if (ok)
        snprintf(out, n, "%s", real);
      free(real);
      if (ok)
        return true;
    }
  }
  return searchUsrLocal(out, n);
}

typedef struct {
  const char *name;
  const char *upTo; /* the pipeline text up to and including the stage */
} Stage;

static MlirLogicalResult build(MlirOpPassManager pm, const DlcOptions *o) {
  MlirStringRef chip = dlcOptionsGetString(o, "chip"), feat = dlcOptionsGetString(o, "features");
  MlirStringRef fmt = dlcOptionsGetString(o, "format"), tk = dlcOptionsGetString(o, "toolkit");
  MlirStringRef stop = dlcOptionsGetString(o, "stop-after");
  if (dlcOptionsGetBool(o, "allow-tf32")) {
    fprintf(stderr, "lower-to-nvvm: allow-tf32 is not implemented (f32 contractions use exact "
                    "FFMA); leave it false\n");
    return (MlirLogicalResult){0};
  }
  if (!(fmt.length == 6 && memcmp(fmt.data, "fatbin", 6) == 0) &&
      !(fmt.length == 3 && memcmp(fmt.data, "bin", 3) == 0) &&
      !(fmt.length == 3 && memcmp(fmt.data, "isa", 3) == 0)) {
    fprintf(stderr, "lower-to-nvvm: format '%.*s' is not one of fatbin, bin, isa\n",
            (int)fmt.length, fmt.data);
    return (MlirLogicalResult){0};
  }
  if (chip.length < 4 || memcmp(chip.data, "sm_", 3) != 0) {
    fprintf(stderr, "lower-to-nvvm: chip '%.*s' is not an sm_XX architecture\n", (int)chip.length,
            chip.data);
    return (MlirLogicalResult){0};
  }
  char given[1024], toolkit[1024];
  snprintf(given, sizeof given, "%.*s", (int)tk.length, tk.data);
  if (!dlcFindCudaToolkit(given, toolkit, sizeof toolkit)) {
    fprintf(stderr,
            "lower-to-nvvm: no CUDA toolkit with nvvm/libdevice/libdevice.10.bc %s%s (set toolkit= "
            "or CUDA_HOME)\n",
            given[0] ? "at " : "found", given);
    return (MlirLogicalResult){0};
  }
  char p[6144];
  snprintf(p, sizeof p,
           "func.func(dlg-simplify,dlg-fold-batch-norm,dlg-fold-constants,dlg-simplify),%s"
           "dlk-to-linalg{pack=false},func.func(linalg-fuse-elementwise-ops),canonicalize,cse,"
           "func.func(linalg-generalize-named-ops),"
           "dlc-gpu-schedule,"
           "|schedule|"
           "inline,symbol-dce,func.func(dlc-readonly-args),"
           "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
           "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
           "|bufferize|"
           "dlc-copy-to-linalg,dlc-gpu-map,canonicalize,cse,"
           "func.func(convert-linalg-to-loops),"
           "|launch|"
           "gpu-launch-sink-index-computations,gpu-kernel-outlining,func.func(gpu-async-region),"
           "|outline|"
           "lower-affine,convert-vector-to-scf{full-unroll=true target-rank=1},convert-scf-to-cf,"
           "nvvm-attach-target{chip=%.*s features=%.*s O=%d l=%s/nvvm/libdevice/libdevice.10.bc},"
           "gpu.module(math-expand-ops,expand-strided-metadata,lower-affine,convert-vector-to-llvm,"
           "convert-gpu-to-nvvm,dlc-gpu-align-args,canonicalize,cse,"
           "reconcile-unrealized-casts),"
           "|nvvm|"
           "expand-strided-metadata,lower-affine,convert-vector-to-llvm,convert-math-to-llvm,"
           "gpu-to-llvm,finalize-memref-to-llvm,convert-to-llvm,"
           "gpu-module-to-binary{format=%.*s toolkit=%s},"
           "canonicalize,cse,reconcile-unrealized-casts",
           dlcOptionsGetBool(o, "fuse") ? "func.func(dlg-fuse)," : "", (int)chip.length,
           chip.data, (int)feat.length, feat.data, (int)dlcOptionsGetInt(o, "opt-level"), toolkit,
           (int)fmt.length, fmt.data, toolkit);
  /* Cut at the stage asked for, and drop the other stage marks. */
  if (stop.length > 0) {
    char mark[64];
    snprintf(mark, sizeof mark, "|%.*s|", (int)stop.length, stop.data);
    char *at = strstr(p, mark);
    if (!at || stop.length > 40) {
      fprintf(stderr, "lower-to-nvvm: stop-after '%.*s' is not one of schedule, bufferize, "
                      "launch, outline, nvvm\n", (int)stop.length, stop.data);
      return (MlirLogicalResult){0};
    }
    *at = '\0';
  }
  char q[6144];
  size_t k = 0;
  for (const char *c = p; *c && k + 1 < sizeof q;) {
    if (*c == '|') {
      const char *end = strchr(c + 1, '|');
      c = end ? end + 1 : c + 1;
      continue;
    }
    q[k++] = *c++;
  }
  while (k > 0 && q[k - 1] == ',')
    --k;
  q[k] = '\0';
  DlcText e = {NULL, 0, 0};
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(pm, mlirStringRefCreateFromCString(q), dlcTextAppend, &e);
  if (mlirLogicalResultIsFailure(r))
    fprintf(stderr, "lower-to-nvvm: %s\n", dlcTextGet(&e));
  dlcTextFree(&e);
  return r;
}

const DlcPipelineDescriptor dlcLowerToNVVMPipeline = {
    .argument = "lower-to-nvvm",
    .summary = "The NVIDIA GPU pipeline from dlg or dlk: fusion, lowering, the GPU strategy "
               "(blocks, threads, vectors), bufferisation, gpu.launch, NVVM, PTX/cubin/fatbin "
               "embedded in the host module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .build = build,
};
