/* --lower-to-nvvm: the NVIDIA GPU pipeline from dlg (or dlk) to the LLVM
   dialect with the kernels compiled into a gpu.binary (docs/gpu.md),
   built stage by stage: the graph, kernel and bufferisation stages are
   the CPU's (pipeline/stages.h); the strategy and the backend are the
   GPU's, and stop-after ends the pipeline after a named stage.

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
#include "pipeline/stages.h"

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
    {"allow-tf32", "let f32 contractions use TF32 tensor cores (mma.sync m16n8k8)",
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

/* What the GPU's stages read of the options. */
typedef struct {
  MlirStringRef chip, features, format;
  int optLevel;
  bool allowTf32; /* f32 contractions on TF32 tensor cores */
  char chipNumber[16]; /* "90" of sm_90a */
  const char *toolkit;
} Gpu;

/* Kernels to linalg with plain contractions (packing is a CPU layout),
   named ops generalised (the GPU schedule tiles generics), then the GPU
   strategy: blocks, threads and per-thread vectors. No canonicalisation
   follows: it drops the mapping of a forall whose trip count it folds to
   one. */
static void addScheduleStage(DlcPipeline *p, const Gpu *g) {
  /* mma.sync m16n8k16 / m16n8k8 tf32 and cp.async need sm_80; wgmma the
     architecture-specific sm_90a (not sm_90, nor later chips' "a") */
  int sm = atoi(g->chipNumber);
  bool wgmma = strcmp(g->chipNumber, "90a") == 0;
  dlcPipelineAdd(p,
                 "func.func(linalg-generalize-named-ops),dlc-gpu-schedule{allow-tf32=%s "
                 "tensor-cores=%s wgmma=%s}",
                 g->allowTf32 ? "true" : "false", sm >= 80 ? "true" : "false",
                 wgmma ? "true" : "false");
}

static void addBufferizeStage(DlcPipeline *p, const Gpu *g) {
  (void)g;
  dlcAddBufferizeStage(p, false);
}

/* Warp tiles marked for tensor cores to nvgpu.mma.sync (dlc-gpu-mma), a
   gpu.launch per loop nest and device memory (dlc-gpu-map), what is left
   of linalg inside the launches as loops. */
static void addLaunchStage(DlcPipeline *p, const Gpu *g) {
  (void)g;
  dlcPipelineAdd(p, "dlc-gpu-conv,dlc-copy-to-linalg,dlc-gpu-mma,dlc-gpu-map,canonicalize,cse,"
                    "func.func(convert-linalg-to-loops),dlc-gpu-spread,dlc-gpu-rows");
}

/* Launch bodies outlined into kernels of a gpu.module, launched
   asynchronously on one stream. Outlining copies the shared-memory
   globals of dlc-gpu-mma into the gpu.module; symbol-dce drops the host's
   copies, which the host's memref lowering cannot convert (workgroup
   address space). */
static void addOutlineStage(DlcPipeline *p, const Gpu *g) {
  (void)g;
  dlcPipelineAdd(p, "gpu-launch-sink-index-computations,gpu-kernel-outlining,symbol-dce,"
                    "func.func(gpu-async-region)");
}

/* Kernels to the NVVM dialect for the chip, with libdevice for math. */
static void addNVVMStage(DlcPipeline *p, const Gpu *g) {
  dlcAddVectorToCfStage(p, NULL, NULL); /* also the kernels of gpu.modules */
  dlcPipelineAdd(p,
                 "nvvm-attach-target{chip=%.*s features=%.*s O=%d "
                 "l=%s/nvvm/libdevice/libdevice.10.bc}",
                 (int)g->chip.length, g->chip.data, (int)g->features.length, g->features.data,
                 g->optLevel, g->toolkit);
  dlcPipelineAdd(p, "gpu.module(math-expand-ops,expand-strided-metadata,lower-affine,"
                    "convert-nvgpu-to-nvvm,convert-vector-to-llvm,convert-gpu-to-nvvm,dlc-gpu-align-args,canonicalize,"
                    "cse,reconcile-unrealized-casts)");
}

/* Host code to LLVM with mgpu* runtime calls (runtime/cuda_runtime.c),
   and the kernels compiled into the gpu.binary. */
static void addHostStage(DlcPipeline *p, const Gpu *g) {
  /* convert-nvgpu-to-nvvm: the host's nvgpu.tma.create.descriptor (wgmma's
     TMA) to mgpuTensorMapEncodeTiledMemref calls */
  dlcPipelineAdd(p, "expand-strided-metadata,lower-affine,convert-nvgpu-to-nvvm,"
                    "convert-vector-to-llvm,convert-math-to-llvm,gpu-to-llvm,finalize-memref-to-llvm,convert-to-llvm");
  dlcPipelineAdd(p, "gpu-module-to-binary{format=%.*s toolkit=%s}", (int)g->format.length,
                 g->format.data, g->toolkit);
  dlcPipelineAdd(p, "canonicalize,cse,reconcile-unrealized-casts");
  /* The host's weights are bound at load time, as on the CPU (the runtime
     uploads them once, keyed by that host address). */
  dlcPipelineAdd(p, "dlc-external-weights");
}

/* The stages after the shared graph and kernel ones, in order; those with
   a name are where stop-after may end the pipeline. */
static const struct {
  const char *name;
  void (*add)(DlcPipeline *, const Gpu *);
} kStages[] = {
    {"schedule", addScheduleStage}, {"bufferize", addBufferizeStage}, {"launch", addLaunchStage},
    {"outline", addOutlineStage},   {"nvvm", addNVVMStage},           {NULL, addHostStage},
};

static bool named(MlirStringRef s, const char *name) {
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

static MlirLogicalResult build(MlirOpPassManager pm, const DlcOptions *o) {
  Gpu g = {.chip = dlcOptionsGetString(o, "chip"),
           .features = dlcOptionsGetString(o, "features"),
           .format = dlcOptionsGetString(o, "format"),
           .optLevel = (int)dlcOptionsGetInt(o, "opt-level")};
  MlirStringRef tk = dlcOptionsGetString(o, "toolkit");
  MlirStringRef stop = dlcOptionsGetString(o, "stop-after");
  g.allowTf32 = dlcOptionsGetBool(o, "allow-tf32");
  if (!named(g.format, "fatbin") && !named(g.format, "bin") && !named(g.format, "isa")) {
    fprintf(stderr, "lower-to-nvvm: format '%.*s' is not one of fatbin, bin, isa\n",
            (int)g.format.length, g.format.data);
    return (MlirLogicalResult){0};
  }
  if (g.chip.length < 4 || memcmp(g.chip.data, "sm_", 3) != 0) {
    fprintf(stderr, "lower-to-nvvm: chip '%.*s' is not an sm_XX architecture\n", (int)g.chip.length,
            g.chip.data);
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
  g.toolkit = toolkit;
  snprintf(g.chipNumber, sizeof g.chipNumber, "%.*s", (int)g.chip.length - 3, g.chip.data + 3);
  size_t numStages = sizeof kStages / sizeof kStages[0], last = numStages - 1;
  if (stop.length > 0) {
    for (last = 0; last < numStages && !(kStages[last].name && named(stop, kStages[last].name));)
      ++last;
    if (last == numStages) {
      fprintf(stderr,
              "lower-to-nvvm: stop-after '%.*s' is not one of schedule, bufferize, "
              "launch, outline, nvvm\n",
              (int)stop.length, stop.data);
      return (MlirLogicalResult){0};
    }
  }
  DlcPipeline p = {.pm = pm, .name = "lower-to-nvvm"};
  dlcPipelineAdd(&p, "dlc-gpu-attention"); /* one fused kernel per attention (gpu_attention.c) */
  dlcAddGraphStage(&p, dlcOptionsGetBool(o, "fuse"));
  dlcAddKernelStage(&p, "dlk-to-linalg{pack=false host-loops=false}");
  for (size_t i = 0; i <= last; ++i)
    kStages[i].add(&p, &g);
  return (MlirLogicalResult){!p.failed};
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
