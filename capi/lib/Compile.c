/* Compiling a module and running it in process (see dlc-c/Compile.h). */

#include "dlc-c/Compile.h"
#include "dlc-c/Aot.h"
#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Specialize.h"
#include "Entry.h"
#include "jit.h"
#include "jit_target.h"
#include "RuntimePaths.h"
#include "profile.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "shape/Checked.h"

#include "../../runtime/cuda_runtime.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

/* A free workspace, kept for the next call. */
typedef struct Workspace {
  struct Workspace *next;
} Workspace;

/* One compiled module: for a static entry the program itself, for a
   dynamic one the specialization to one set of input shapes. */
typedef struct Variant {
  DlcTensorType *types; /* inputs then outputs, all static */
  MlirModule module;
  DlcJit *jit;                /* the split JIT (jit.h), or */
  MlirExecutionEngine engine; /* MLIR's, for modules with global constructors */
  void (*invoke)(void **args);
  uint64_t lastUse;
  /* The arena of --dlc-memory-plan, passed as the entry's last argument
     when `plan.workspaceBytes` > 0. Each call takes one from the pool (or
     a new one), so concurrent calls never share one. */
  DlcMemoryPlan plan;
  pthread_mutex_t poolLock; /* pthread, not C11 mtx_t: ThreadSanitizer
                               sees glibc's mtx_lock as no lock at all */
  Workspace *pool;
  int users; /* calls running it (dynamic programs: an evicted variant
                is destroyed by its last user) */
  DlcProfile *profile; /* compiled with profile: its kernels' times */
  DlcCudaConstants *constants; /* target cuda: device copies of its constants */
  void **weightCopies; /* weights whose bytes were less aligned than declared */
  intptr_t numWeightCopies;
} Variant;

/* Specializations kept per dynamic program; the least recently used goes. */
enum { MAX_VARIANTS = 8 };

struct DlcProgram {
  MlirContext ctx;
  MlirModule source; /* the parsed module, kept while shapes are dynamic */
  char entry[256];
  char *pipeline;
  int optLevel;
  intptr_t numInputs, numOutputs;
  DlcTensorType *types; /* declared: inputs then outputs, DLC_DYNAMIC_DIM */
  intptr_t *countedBy;  /* per output: the output counting its rows, or -1 */
  intptr_t *countedDim; /* per output: the dim counted (dlc.count_dim, 0) */
  /* Run-time checks (dlg-runtime-checks): when there are any, the entry's
     last result, after the numOutputs the caller sees, is the status, and
     checks[k - 1] describes a status of k. */
  intptr_t numChecks;
  char **checks;
  bool dynamic;
  bool cuda; /* compiled by lower-to-nvvm: buffers live on the device */
  int threads;
  bool profile;
  void (*setThreads)(int);
  int (*maxThreads)(void);
  Variant *variants[MAX_VARIANTS];
  /* Profiled programs: the variant run last (read by the profile calls)
     and a lock that makes profiled calls one at a time, since a variant's
     kernel timers are shared by its calls. Unprofiled calls never take it. */
  Variant *last;
  pthread_mutex_t profileLock;
  int numVariants;
  uint64_t clock;
  /* Dynamic programs: guards the variant cache and the MLIR context
     (compiling a variant), never a call into compiled code. */
  pthread_mutex_t cacheLock;
};

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The entry's results: the caller's outputs, then the checks' status. */
static intptr_t numResults(const DlcProgram *p) { return p->numOutputs + (p->numChecks > 0); }

size_t dlcDTypeSize(DlcDType t) {
  switch (t) {
  case DLC_F32: case DLC_I32: return 4;
  case DLC_F16: case DLC_BF16: return 2;
  case DLC_F64: case DLC_I64: return 8;
  case DLC_I1: case DLC_I8: return 1;
  }
  return 0;
}

const char *dlcDTypeName(DlcDType t) {
  static const char *const names[] = {"f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

int64_t dlcTensorTypeNumElements(const DlcTensorType *t) {
  int64_t n;
  if (t->rank < 0 || t->rank > DLC_MAX_RANK || dlcProductOverflow(t->dims, t->rank, &n))
    return -1;
  for (int32_t i = 0; i < t->rank; ++i)
    if (t->dims[i] < 0)
      return -1;
  return n;
}

int64_t dlcTensorTypeNumBytes(const DlcTensorType *t) {
  int64_t n = dlcTensorTypeNumElements(t), bytes;
  if (n < 0 || dlcMulOverflow(n, (int64_t)dlcDTypeSize(t->dtype), &bytes))
    return -1;
  return bytes;
}

const char *dlcTensorTypeFormat(const DlcTensorType *t, char *buf, size_t len) {
  size_t n = (size_t)snprintf(buf, len, "%s[", dlcDTypeName(t->dtype));
  for (int32_t i = 0; i < t->rank && n < len; ++i)
    n += t->dims[i] == DLC_DYNAMIC_DIM
             ? (size_t)snprintf(buf + n, len - n, i ? "x?" : "?")
             : (size_t)snprintf(buf + n, len - n, i ? "x%lld" : "%lld", (long long)t->dims[i]);
  if (n < len)
    snprintf(buf + n, len - n, "]");
  return buf;
}


/* Loaded into every JIT program (RuntimePaths.h); one not found is skipped. */
static const char *const kRuntimeLibs[] = {DLC_MLIR_C_RUNNER_UTILS, DLC_OMP_LIBRARY};

static bool hasDynamicDim(const DlcTensorType *t) {
  for (int32_t d = 0; d < t->rank; ++d)
    if (t->dims[d] == DLC_DYNAMIC_DIM)
      return true;
  return false;
}

static Variant *newVariant(void) {
  Variant *v = calloc(1, sizeof *v);
  pthread_mutex_init(&v->poolLock, NULL);
  return v;
}

static void destroyVariant(Variant *v) {
  dlcProfileDestroy(v->profile);
  dlcCudaConstantsDestroy(v->constants);
  dlcJitDestroy(v->jit);
  if (v->engine.ptr)
    mlirExecutionEngineDestroy(v->engine);
  if (v->module.ptr)
    mlirModuleDestroy(v->module);
  for (intptr_t i = 0; i < v->numWeightCopies; ++i)
    free(v->weightCopies[i]);
  free(v->weightCopies);
  free(v->types);
  for (Workspace *w = v->pool, *next; w; w = next) {
    next = w->next;
    free(w);
  }
  pthread_mutex_destroy(&v->poolLock);
  free(v);
}

static void *takeWorkspace(Variant *v) {
  pthread_mutex_lock(&v->poolLock);
  Workspace *w = v->pool;
  if (w)
    v->pool = w->next;
  pthread_mutex_unlock(&v->poolLock);
  if (!w) { /* aligned as the planner assumed (64 bytes), rounded to it */
    size_t bytes = ((size_t)v->plan.workspaceBytes + 63) / 64 * 64;
    w = aligned_alloc(64, bytes < sizeof *w ? 64 : bytes);
  }
  return w;
}

static void returnWorkspace(Variant *v, void *ws) {
  Workspace *w = ws;
  pthread_mutex_lock(&v->poolLock);
  w->next = v->pool;
  v->pool = w;
  pthread_mutex_unlock(&v->poolLock);
}

void dlcModuleMemoryPlan(MlirModule m, const char *entry, DlcMemoryPlan *plan) {
  memset(plan, 0, sizeof *plan);
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (mlirAttributeIsNull(sym) || !mlirAttributeIsAString(sym) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(sym), str(entry)))
      continue;
    MlirAttribute ws = mlirOperationGetAttributeByName(op, str("dlc.workspace_bytes"));
    MlirAttribute d = mlirOperationGetAttributeByName(op, str("dlc.memory_plan"));
    if (!mlirAttributeIsNull(ws) && mlirAttributeIsAInteger(ws))
      plan->workspaceBytes = mlirIntegerAttrGetValueInt(ws);
    if (mlirAttributeIsNull(d) || !mlirAttributeIsADictionary(d))
      return;
    static const struct { const char *name; size_t offset; } kFields[] = {
        {"peak_bytes", offsetof(DlcMemoryPlan, peakBytes)},
        {"naive_bytes", offsetof(DlcMemoryPlan, naiveBytes)},
        {"weights_bytes", offsetof(DlcMemoryPlan, weightsBytes)},
        {"temporaries", offsetof(DlcMemoryPlan, temporaries)},
        {"unplanned", offsetof(DlcMemoryPlan, unplanned)},
    };
    for (size_t i = 0; i < sizeof kFields / sizeof *kFields; ++i) {
      MlirAttribute f = mlirDictionaryAttrGetElementByName(d, str(kFields[i].name));
      if (!mlirAttributeIsNull(f) && mlirAttributeIsAInteger(f))
        *(int64_t *)((char *)plan + kFields[i].offset) = mlirIntegerAttrGetValueInt(f);
    }
    return;
  }
}

static void copyString(char *dst, size_t len, MlirAttribute dict, const char *name) {
  MlirAttribute a = mlirDictionaryAttrGetElementByName(dict, str(name));
  MlirStringRef s = !mlirAttributeIsNull(a) && mlirAttributeIsAString(a)
                        ? mlirStringAttrGetValue(a)
                        : str("?");
  snprintf(dst, len, "%.*s", (int)s.length, s.data);
}

static double readNumber(MlirAttribute dict, const char *name) {
  MlirAttribute a = mlirDictionaryAttrGetElementByName(dict, str(name));
  return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
             ? (double)mlirIntegerAttrGetValueInt(a)
             : 0;
}

/* The kernel table dlc-profile left on the lowered module. */
static char *readProfile(Variant *v) {
  MlirAttribute t = mlirOperationGetDiscardableAttributeByName(mlirModuleGetOperation(v->module),
                                                                str("dlc.profile"));
  if (mlirAttributeIsNull(t) || !mlirAttributeIsAArray(t))
    return dlcFormat("profiling needs the kernels timed: the pipeline must run "
                  "lower-to-llvm{profile=true}");
  intptr_t n = mlirArrayAttrGetNumElements(t);
  DlcProfileKernel *k = dlcXcalloc((size_t)n + 1, sizeof *k);
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute d = mlirArrayAttrGetElement(t, i);
    copyString(k[i].name, sizeof k[i].name, d, "name");
    copyString(k[i].kind, sizeof k[i].kind, d, "kind");
    copyString(k[i].root, sizeof k[i].root, d, "root");
    k[i].flops = readNumber(d, "flops");
    k[i].bytes = readNumber(d, "bytes");
  }
  v->profile = dlcProfileCreate(k, n);
  free(k);
  return NULL;
}

/* The alignment the module declares for global `sym` (0: none). */
static int64_t declaredAlignment(MlirModule m, MlirStringRef sym) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute name = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(name), sym))
      continue;
    MlirAttribute a = mlirOperationGetAttributeByName(op, str("alignment"));
    return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a) ? mlirIntegerAttrGetValueInt(a)
                                                                 : 0;
  }
  return 0;
}

/* Symbols the compiled code finds at host addresses. */
typedef struct {
  DlcJitSymbol *items;
  size_t n;
  char **names; /* owned copies of the names */
} Symbols;

static void addSymbol(Symbols *s, MlirStringRef name, void *address) {
  s->items = dlcXrealloc(s->items, sizeof *s->items * (s->n + 1));
  s->names = dlcXrealloc(s->names, sizeof *s->names * (s->n + 1));
  s->names[s->n] = dlcFormat("%.*s", (int)name.length, name.data);
  s->items[s->n] = (DlcJitSymbol){s->names[s->n], address};
  ++s->n;
}

static void freeSymbols(Symbols *s) {
  for (size_t i = 0; i < s->n; ++i)
    free(s->names[i]);
  free(s->names);
  free(s->items);
}

/* The weights --dlc-external-weights took out of the module (its
   dlc.weights dictionary, symbol -> elements attribute) are bound where
   the MLIR context keeps their bytes, which outlive the engine; bytes
   less aligned than the declaration says are copied once. The GPU path
   uploads them by this host address, once per program. */
static char *bindWeights(Variant *v, Symbols *syms) {
  MlirAttribute w = mlirOperationGetDiscardableAttributeByName(mlirModuleGetOperation(v->module),
                                                               str("dlc.weights"));
  if (mlirAttributeIsNull(w) || !mlirAttributeIsADictionary(w))
    return NULL;
  intptr_t n = mlirDictionaryAttrGetNumElements(w);
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(w, i);
    MlirStringRef sym = mlirIdentifierStr(e.name);
    const void *data;
    size_t bytes;
    bool splat;
    if (!dlcElementsAttrGetRawData(e.attribute, &data, &bytes, &splat) || splat)
      return dlcFormat("weight '%.*s' has no data to bind", (int)sym.length, sym.data);
    int64_t align = declaredAlignment(v->module, sym);
    if (align > 1 && (uintptr_t)data % (uintptr_t)align) {
      void *copy = aligned_alloc((size_t)align, (bytes + (size_t)align - 1) / (size_t)align *
                                                    (size_t)align);
      if (!copy)
        return dlcFormat("out of memory copying weight '%.*s'", (int)sym.length, sym.data);
      memcpy(copy, data, bytes);
      v->weightCopies = dlcXrealloc(v->weightCopies, sizeof *v->weightCopies *
                                                         (size_t)(v->numWeightCopies + 1));
      v->weightCopies[v->numWeightCopies++] = copy;
      data = copy;
    }
    addSymbol(syms, sym, (void *)(uintptr_t)data);
  }
  return NULL;
}

/* The compiled code's malloc and free are the process's own: an allocator
   the process preloads (tcmalloc or jemalloc, as PyTorch deployments run)
   where it has one. Left to the library search, they resolve inside
   mlir_c_runner_utils' dependencies, i.e. to glibc's, whose heap then
   grows and shrinks under the preloaded one every call: an AVX2 BERT layer
   (per-tile buffers allocated in its kernels) took 1024 page faults and
   3-4x its time a call under tcmalloc. Pairs stay matched: no buffer
   allocated by compiled code is freed outside it. */
static void bindAllocator(Symbols *syms) {
  static const char *const kNames[] = {"malloc", "free", "calloc", "realloc", "aligned_alloc",
                                       "posix_memalign"};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
    void *address = dlsym(RTLD_DEFAULT, kNames[i]);
    if (address)
      addSymbol(syms, str(kNames[i]), address);
  }
}

/* MLIR's ExecutionEngine, for what the split JIT does not run: modules
   with global constructors (a GPU program loads its kernels in one). */
static char *executionEngine(DlcProgram *p, Variant *v, const MlirStringRef *libs, int nLibs,
                             const Symbols *syms, DlcDiagnostics *diags) {
  v->engine = mlirExecutionEngineCreate(v->module, p->optLevel, nLibs, libs, false, false);
  if (mlirExecutionEngineIsNull(v->engine))
    return dlcDiagnosticsOr(diags, "JIT compilation failed");
  for (size_t i = 0; i < syms->n; ++i)
    mlirExecutionEngineRegisterSymbol(v->engine, str(syms->items[i].name),
                                      syms->items[i].address);
  /* global constructors: a GPU program's load its kernel modules in one */
  mlirExecutionEngineInitialize(v->engine);
  /* The packed wrapper _mlir_<entry>(void **args) takes one pointer per
     argument of the lowered function, memrefs expanded field by field. */
  v->invoke = (void (*)(void **))mlirExecutionEngineLookupPacked(v->engine, str(p->entry));
  if (!v->invoke)
    return dlcFormat("the compiled module has no entry '%s'", p->entry);
  return NULL;
}

/* Lowers `v->module` through the pipeline and JIT-compiles it. */
static char *lowerAndJit(DlcProgram *p, Variant *v, DlcDiagnostics *diags) {
  /* Pipeline syntax errors and pass failures both arrive as diagnostics. */
  char *err;
  int threads = dlcJitThreads(&err); /* compile threads: the passes' and LLVM's */
  if (err)
    return err;
  if (mlirLogicalResultIsFailure(
          dlcRunPipelineThreaded(mlirModuleGetOperation(v->module), p->pipeline, threads)))
    return dlcDiagnosticsOr(diags, "compilation failed");
  dlcModuleMemoryPlan(v->module, p->entry, &v->plan);
  if (p->profile && (err = readProfile(v)))
    return err;
  MlirStringRef libs[2];
  const char *libPaths[2];
  int nLibs = 0;
  for (size_t i = 0; i < sizeof kRuntimeLibs / sizeof kRuntimeLibs[0]; ++i)
    if (kRuntimeLibs[i][0] && access(kRuntimeLibs[i], R_OK) == 0) {
      libPaths[nLibs] = kRuntimeLibs[i];
      libs[nLibs++] = str(kRuntimeLibs[i]);
    }
  /* Bound before compiling: the split JIT moves the module's globals. */
  Symbols syms = {NULL, 0, NULL};
  if ((err = bindWeights(v, &syms))) {
    freeSymbols(&syms);
    return err;
  }
  bindAllocator(&syms);
  if (p->profile) {
    addSymbol(&syms, str("dlcProfileEnter"), (void *)dlcProfileEnter);
    addSymbol(&syms, str("dlcProfileExit"), (void *)dlcProfileExit);
  }
  const char *symbol;
  void *address;
  for (size_t i = 0; p->cuda && dlcCudaRuntimeSymbol(i, &symbol, &address); ++i)
    addSymbol(&syms, str(symbol), address);
  /* A GPU program's kernels are loaded by global constructors that its
     translation adds (gpu.binary): MLIR's ExecutionEngine runs those. */
  /* The ISA lower-to-llvm targeted (dlc-mark-target): the code is compiled
     for it, so it must run here. */
  char isa[16] = "host";
  MlirAttribute target = mlirOperationGetAttributeByName(mlirModuleGetOperation(v->module),
                                                         str("dlc.target"));
  if (!mlirAttributeIsNull(target)) {
    MlirStringRef t = mlirAttributeIsAString(target) ? mlirStringAttrGetValue(target)
                                                     : str("");
    if (!dlcTargetIsKnown(t)) {
      freeSymbols(&syms);
      return dlcFormat("the module's dlc.target is not host, avx2 or avx512");
    }
    memcpy(isa, t.data, t.length), isa[t.length] = '\0';
  }
  if (!p->cuda && (err = dlcTargetCheckHost(isa))) {
    freeSymbols(&syms);
    return err;
  }
  if (v->profile) /* rated against the FMA peak of the code's own ISA */
    dlcProfileSetIsa(v->profile, isa);
  if (!p->cuda && dlcJitSupports(v->module)) {
    DlcJitOptions jo = {isa, p->optLevel, threads, libPaths, nLibs, syms.items, syms.n};
    err = dlcJitCreate(v->module, p->entry, &jo, &v->jit, &v->invoke);
  } else {
    err = executionEngine(p, v, libs, nLibs, &syms, diags);
  }
  freeSymbols(&syms);
  if (err)
    return err;
  if (p->cuda && !(v->constants = dlcCudaConstantsCreate()))
    return dlcFormat("out of memory creating the device constant table");
  if (!p->setThreads) {
    void *omp = dlopen("libomp.so.5", RTLD_NOW | RTLD_NOLOAD);
    if (omp) {
      p->setThreads = (void (*)(int))dlsym(omp, "omp_set_num_threads");
      p->maxThreads = (int (*)(void))dlsym(omp, "omp_get_max_threads");
    }
  }
  return NULL;
}

static MlirType elementTypeOf(MlirContext ctx, DlcDType t) {
  switch (t) {
  case DLC_F32: return mlirF32TypeGet(ctx);
  case DLC_F16: return mlirF16TypeGet(ctx);
  case DLC_BF16: return mlirBF16TypeGet(ctx);
  case DLC_F64: return mlirF64TypeGet(ctx);
  case DLC_I1: return mlirIntegerTypeGet(ctx, 1);
  case DLC_I8: return mlirIntegerTypeGet(ctx, 8);
  case DLC_I32: return mlirIntegerTypeGet(ctx, 32);
  case DLC_I64: return mlirIntegerTypeGet(ctx, 64);
  }
  return mlirF32TypeGet(ctx);
}

/* Compiles the variant of a dynamic program for static `inputs`. */
static char *specialize(DlcProgram *p, const DlcTensorType *inputs, Variant *v) {
  DlcDiagnostics *diags = dlcDiagnosticsAttach(p->ctx);
  char *err = NULL;
  v->module = mlirModuleFromOperation(mlirOperationClone(mlirModuleGetOperation(p->source)));
  MlirOperation entry = {NULL};
  MlirType *types = dlcXmalloc(sizeof *types * (size_t)(p->numInputs + 1));
  for (intptr_t i = 0; i < p->numInputs; ++i)
    types[i] = mlirRankedTensorTypeGet(inputs[i].rank, inputs[i].dims,
                                       elementTypeOf(p->ctx, inputs[i].dtype),
                                       mlirAttributeGetNull());
  if (!(err = dlcFindEntry(v->module, p->entry, &entry)) &&
      mlirLogicalResultIsFailure(dlcSpecializeFunction(entry, p->numInputs, types)))
    err = dlcDiagnosticsOr(diags, "cannot specialize the entry to the input shapes");
  free(types);
  if (!err) {
    MlirType ft = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(entry, str("function_type")));
    v->types = dlcXcalloc((size_t)(p->numInputs + p->numOutputs) + 2, sizeof *v->types);
    memcpy(v->types, inputs, sizeof *inputs * (size_t)p->numInputs);
    for (intptr_t i = 0; i < numResults(p) && !err; ++i) {
      DlcTensorType *o = &v->types[p->numInputs + i];
      err = dlcReadTensorType(mlirFunctionTypeGetResult(ft, i), "result", i, o);
      if (!err && hasDynamicDim(o))
        err = dlcFormat("result %ld keeps a dynamic dimension for these input shapes", (long)i);
    }
  }
  if (!err)
    err = lowerAndJit(p, v, diags);
  dlcDiagnosticsDetach(p->ctx, diags);
  if (err)
    destroyVariant(v);
  return err;
}

/* The entry's `dlc.count` result attributes (a padded result and the 0-d
   i64 result that counts its valid rows, dlg.non_max_suppression's pair),
   checked so the host can slice with them. */
static char *readCounts(MlirOperation entry, DlcProgram *p) {
  p->countedBy = dlcXmalloc(sizeof *p->countedBy * (size_t)(p->numOutputs + 1));
  p->countedDim = dlcXcalloc((size_t)(p->numOutputs + 1), sizeof *p->countedDim);
  MlirAttribute all = mlirOperationGetAttributeByName(entry, str("res_attrs"));
  for (intptr_t i = 0; i < p->numOutputs; ++i) {
    p->countedBy[i] = -1;
    if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) ||
        i >= mlirArrayAttrGetNumElements(all))
      continue;
    MlirAttribute dict = mlirArrayAttrGetElement(all, i);
    MlirAttribute c = mlirAttributeIsADictionary(dict)
                          ? mlirDictionaryAttrGetElementByName(dict, str("dlc.count"))
                          : (MlirAttribute){NULL};
    if (mlirAttributeIsNull(c))
      continue;
    if (!mlirAttributeIsAInteger(c))
      return dlcFormat("result %ld: dlc.count must be an integer (the index of a result)",
                       (long)i);
    int64_t j = mlirIntegerAttrGetValueInt(c);
    const DlcTensorType *t = &p->types[p->numInputs + i];
    if (j < 0 || j >= p->numOutputs || j == i)
      return dlcFormat("result %ld: dlc.count = %lld names no other result", (long)i,
                       (long long)j);
    const DlcTensorType *n = &p->types[p->numInputs + j];
    if (n->rank != 0 || n->dtype != DLC_I64)
      return dlcFormat("result %ld: dlc.count = %lld names a result that is not a 0-d i64 "
                       "tensor", (long)i, (long long)j);
    if (t->rank < 1)
      return dlcFormat("result %ld: dlc.count on a 0-d result (it counts rows of dim 0)",
                       (long)i);
    MlirAttribute d = mlirDictionaryAttrGetElementByName(dict, str("dlc.count_dim"));
    if (!mlirAttributeIsNull(d)) {
      if (!mlirAttributeIsAInteger(d))
        return dlcFormat("result %ld: dlc.count_dim must be an integer (a dim of the result)",
                         (long)i);
      int64_t dim = mlirIntegerAttrGetValueInt(d);
      if (dim < 0 || dim >= t->rank)
        return dlcFormat("result %ld: dlc.count_dim = %lld is not a dim of a rank-%lld result",
                         (long)i, (long long)dim, (long long)t->rank);
      p->countedDim[i] = (intptr_t)dim;
    }
    p->countedBy[i] = (intptr_t)j;
  }
  return NULL;
}

DlcProgram *dlcProgramCompile(const char *source, size_t length, const char *sourceName,
                              const DlcCompileOptions *options, char **error) {
  DlcCompileOptions dflt = {NULL, NULL, 0, 3, false};
  const DlcCompileOptions *o = options ? options : &dflt;
  if (o->threads < 0) {
    if (error)
      *error = dlcFormat("threads must be 0 (all cores) or positive, got %d", o->threads);
    return NULL;
  }
  DlcProgram *p = calloc(1, sizeof *p);
  if (!p) {
    if (error)
      *error = dlcFormat("out of memory allocating a program (%zu bytes)", sizeof *p);
    return NULL;
  }
  pthread_mutex_init(&p->cacheLock, NULL);
  pthread_mutex_init(&p->profileLock, NULL);
  p->ctx = dlcContextCreate();
  p->threads = o->threads;
  p->profile = o->profile;
  p->optLevel = o->optLevel > 0 ? o->optLevel : 3;
  /* One thread: serial loops, as dlc-compile builds them. An OpenMP
     parallel region of one thread still costs a fork per parallel kernel
     (about a microsecond: RMSNorm [32, 4096] runs in about ten). */
  bool serial = o->threads == 1;
  p->pipeline = o->pipeline ? dlcFormat("%s", o->pipeline)
                            : dlcFormat("builtin.module(lower-to-llvm%s%s%s%s)",
                                        o->profile || serial ? "{" : "",
                                        o->profile ? "profile=true" : "",
                                        serial ? " parallel=false" : "",
                                        o->profile || serial ? "}" : "");
  DlcDiagnostics *diags = dlcDiagnosticsAttach(p->ctx);
  char *err = NULL;
  MlirOperation entry = {NULL};
  /* A GPU program needs the driver to run; say so before compiling. */
  p->cuda = strstr(p->pipeline, "lower-to-nvvm") != NULL;
  char why[512];
  if (p->cuda && !dlcCudaAvailable(why, sizeof why)) {
    err = dlcFormat("target cuda: %s", why);
    goto fail;
  }

  MlirModule module = dlcModuleParse(p->ctx, (MlirStringRef){source, length},
                                     sourceName ? sourceName : "<input>");
  if (mlirModuleIsNull(module)) {
    err = dlcDiagnosticsOr(diags, "cannot parse the module");
    goto fail;
  }
  p->source = module;
  if ((err = dlcFindEntry(module, o->entry, &entry)))
    goto fail;
  /* A GPU program keeps the gather's marker alone: its status would need
     a device buffer of its own (not built yet). */
  if (!p->cuda && (err = dlcEntryAddChecks(module, entry, &p->numChecks, &p->checks))) {
    char *why = dlcDiagnosticsOr(diags, err); /* the pass's own error, naming the op */
    free(err);
    err = why;
    goto fail;
  }
  {
    MlirStringRef sym = dlcFuncSymName(entry);
    snprintf(p->entry, sizeof p->entry, "%.*s", (int)sym.length, sym.data);
    MlirType ft = mlirTypeAttrGetValue(
        mlirOperationGetAttributeByName(entry, str("function_type")));
    p->numInputs = mlirFunctionTypeGetNumInputs(ft);
    p->numOutputs = mlirFunctionTypeGetNumResults(ft) - (p->numChecks > 0);
    p->types = dlcXcalloc((size_t)(p->numInputs + p->numOutputs) + 2, sizeof *p->types);
    for (intptr_t i = 0; i < p->numInputs && !err; ++i) {
      err = dlcReadTensorType(mlirFunctionTypeGetInput(ft, i), "input", i, &p->types[i]);
      p->dynamic |= !err && hasDynamicDim(&p->types[i]);
    }
    for (intptr_t i = 0; i < numResults(p) && !err; ++i) {
      err = dlcReadTensorType(mlirFunctionTypeGetResult(ft, i), "result", i,
                     &p->types[p->numInputs + i]);
      if (!err && !p->dynamic && hasDynamicDim(&p->types[p->numInputs + i]))
        err = dlcFormat("result %ld has a dynamic dimension that no input determines", (long)i);
    }
    if (!err)
      err = readCounts(entry, p);
    if (err)
      goto fail;
  }
  if (!p->dynamic) {
    /* Compiled now, so errors show at compile time; the source is the variant. */
    Variant *v = p->variants[p->numVariants++] = newVariant();
    v->module = module;
    p->source = (MlirModule){NULL};
    v->types = dlcXcalloc((size_t)(p->numInputs + p->numOutputs) + 2, sizeof *v->types);
    memcpy(v->types, p->types,
           sizeof *p->types * (size_t)(p->numInputs + numResults(p)));
    if ((err = lowerAndJit(p, v, diags)))
      goto fail;
  } else if (!mlirOperationVerify(mlirModuleGetOperation(module))) {
    err = dlcDiagnosticsOr(diags, "the module does not verify");
    goto fail;
  }
  dlcDiagnosticsDetach(p->ctx, diags);
  return p;

fail:
  dlcDiagnosticsDetach(p->ctx, diags);
  if (error)
    *error = err;
  else
    free(err);
  dlcProgramDestroy(p);
  return NULL;
}

void dlcProgramDestroy(DlcProgram *p) {
  if (!p)
    return;
  for (int i = 0; i < p->numVariants; ++i)
    destroyVariant(p->variants[i]);
  if (p->source.ptr)
    mlirModuleDestroy(p->source);
  mlirContextDestroy(p->ctx);
  pthread_mutex_destroy(&p->cacheLock);
  pthread_mutex_destroy(&p->profileLock);
  free(p->types);
  free(p->countedBy);
  free(p->countedDim);
  dlcFreeChecks(p->checks, p->numChecks);
  free(p->pipeline);
  free(p);
}

intptr_t dlcProgramNumInputs(const DlcProgram *p) { return p->numInputs; }
intptr_t dlcProgramNumOutputs(const DlcProgram *p) { return p->numOutputs; }
DlcTensorType dlcProgramInput(const DlcProgram *p, intptr_t i) { return p->types[i]; }
DlcTensorType dlcProgramOutput(const DlcProgram *p, intptr_t i) {
  return p->types[p->numInputs + i];
}
intptr_t dlcProgramOutputCountedBy(const DlcProgram *p, intptr_t i) {
  return p->countedBy[i];
}
intptr_t dlcProgramOutputCountedDim(const DlcProgram *p, intptr_t i) {
  return p->countedDim[i];
}

static bool sameType(const DlcTensorType *a, const DlcTensorType *b) {
  if (a->dtype != b->dtype || a->rank != b->rank)
    return false;
  for (int32_t i = 0; i < a->rank; ++i)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* A concrete type `t` fits a declared one: same dtype and rank, equal
   static dims, any non-negative size where the declaration is dynamic. */
static bool fitsDeclared(const DlcTensorType *t, const DlcTensorType *decl) {
  if (t->dtype != decl->dtype || t->rank != decl->rank)
    return false;
  for (int32_t i = 0; i < t->rank; ++i)
    if (decl->dims[i] == DLC_DYNAMIC_DIM ? t->dims[i] < 0 : t->dims[i] != decl->dims[i])
      return false;
  return true;
}

/* One memref descriptor, expanded the way the LLVM lowering passes it:
   allocated, aligned, offset, sizes[rank], strides[rank]. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[DLC_MAX_RANK], strides[DLC_MAX_RANK];
} Descriptor;

static intptr_t pack(Descriptor *d, const DlcTensor *t, void **args) {
  d->allocated = d->aligned = t->data;
  d->offset = 0;
  int64_t stride = 1; /* the variant's types fit in int64 bytes (readType) */
  for (int32_t i = t->type.rank - 1; i >= 0; --i) {
    d->sizes[i] = t->type.dims[i];
    d->strides[i] = stride;
    stride = dlcMulSaturate(stride, t->type.dims[i]);
  }
  intptr_t n = 0;
  args[n++] = &d->allocated;
  args[n++] = &d->aligned;
  args[n++] = &d->offset;
  for (int32_t i = 0; i < t->type.rank; ++i)
    args[n++] = &d->sizes[i];
  for (int32_t i = 0; i < t->type.rank; ++i)
    args[n++] = &d->strides[i];
  return n;
}

/* Checks `inputs` against the declared types and finds (or compiles) the
   variant for their shapes. A dynamic program's variant comes back with
   one more user (releaseVariant): another thread may evict it meanwhile,
   and then its last user destroys it. A static program's only variant
   lives as long as the program, so its calls take no lock. */
static Variant *acquireVariant(DlcProgram *p, const DlcTensorType *inputs, char *error,
                               size_t errorLength) {
  for (intptr_t i = 0; i < p->numInputs; ++i)
    if (!fitsDeclared(&inputs[i], &p->types[i])) {
      char want[128], got[128];
      snprintf(error, errorLength, "input %ld: expected %s, got %s", (long)i,
               dlcTensorTypeFormat(&p->types[i], want, sizeof want),
               dlcTensorTypeFormat(&inputs[i], got, sizeof got));
      return NULL;
    }
  if (!p->dynamic)
    return p->variants[0];
  pthread_mutex_lock(&p->cacheLock);
  Variant *v = NULL;
  for (int k = 0; k < p->numVariants && !v; ++k) {
    bool same = true;
    for (intptr_t i = 0; i < p->numInputs && same; ++i)
      same = sameType(&inputs[i], &p->variants[k]->types[i]);
    if (same)
      v = p->variants[k];
  }
  if (!v) {
    v = newVariant();
    char *err = specialize(p, inputs, v); /* destroys v on failure */
    if (err) {
      pthread_mutex_unlock(&p->cacheLock);
      snprintf(error, errorLength, "%s", err);
      free(err);
      return NULL;
    }
    if (p->numVariants == MAX_VARIANTS) {
      int oldest = 0;
      for (int k = 1; k < p->numVariants; ++k)
        if (p->variants[k]->lastUse < p->variants[oldest]->lastUse)
          oldest = k;
      Variant *old = p->variants[oldest];
      p->variants[oldest] = p->variants[--p->numVariants];
      if (p->last == old)
        p->last = NULL;
      if (old->users == 0)
        destroyVariant(old);
      else
        old->lastUse = UINT64_MAX; /* evicted: its last user destroys it */
    }
    p->variants[p->numVariants++] = v;
  }
  v->lastUse = ++p->clock;
  ++v->users;
  pthread_mutex_unlock(&p->cacheLock);
  return v;
}

static void releaseVariant(DlcProgram *p, Variant *v) {
  if (!p->dynamic)
    return;
  pthread_mutex_lock(&p->cacheLock);
  if (--v->users == 0 && v->lastUse == UINT64_MAX)
    destroyVariant(v);
  pthread_mutex_unlock(&p->cacheLock);
}

bool dlcProgramResolve(DlcProgram *p, const DlcTensorType *inputs, DlcTensorType *outputs,
                       char *error, size_t errorLength) {
  Variant *v = acquireVariant(p, inputs, error, errorLength);
  if (!v)
    return false;
  memcpy(outputs, v->types + p->numInputs, sizeof *outputs * (size_t)p->numOutputs);
  releaseVariant(p, v);
  return true;
}

bool dlcProgramMemory(DlcProgram *p, const DlcTensorType *inputs, DlcMemoryPlan *plan,
                      char *error, size_t errorLength) {
  Variant *v = acquireVariant(p, inputs ? inputs : p->types, error, errorLength);
  if (!v)
    return false;
  *plan = v->plan;
  releaseVariant(p, v);
  return true;
}

/* The workspace's descriptor: memref<Bxi8> (allocated, aligned, offset,
   size, stride). */
static intptr_t packWorkspace(Descriptor *d, void *ws, int64_t bytes, void **args) {
  d->allocated = d->aligned = ws;
  d->offset = 0;
  d->sizes[0] = bytes;
  d->strides[0] = 1;
  args[0] = &d->allocated;
  args[1] = &d->aligned;
  args[2] = &d->offset;
  args[3] = &d->sizes[0];
  args[4] = &d->strides[0];
  return 5;
}

static size_t tensorBytes(const DlcTensorType *t) {
  return dlcDTypeSize(t->dtype) * (size_t)dlcTensorTypeNumElements(t);
}

bool dlcProgramRun(DlcProgram *p, const DlcTensor *inputs, DlcTensor *outputs, char *error,
                   size_t errorLength) {
  intptr_t n = p->numInputs + p->numOutputs;
  DlcTensorType inline_[8];
  DlcTensorType *in = p->numInputs <= 8 ? inline_ : malloc(sizeof *in * (size_t)p->numInputs);
  if (!in) {
    snprintf(error, errorLength, "out of memory allocating %zu bytes of input types",
             sizeof *in * (size_t)p->numInputs);
    return false;
  }
  for (intptr_t i = 0; i < p->numInputs; ++i)
    in[i] = inputs[i].type;
  Variant *v = acquireVariant(p, in, error, errorLength);
  if (in != inline_)
    free(in);
  if (!v)
    return false;
  for (intptr_t i = 0; i < n; ++i) {
    bool isIn = i < p->numInputs;
    const DlcTensor *t = isIn ? &inputs[i] : &outputs[i - p->numInputs];
    if (!sameType(&t->type, &v->types[i]) || !t->data) {
      char want[128], got[128];
      snprintf(error, errorLength, "%s %ld: expected %s, got %s", isIn ? "input" : "output",
               (long)(isIn ? i : i - p->numInputs),
               dlcTensorTypeFormat(&v->types[i], want, sizeof want),
               t->data ? dlcTensorTypeFormat(&t->type, got, sizeof got) : "no buffer");
      releaseVariant(p, v);
      return false;
    }
  }
  /* The kernels write their outputs while they still read their inputs
     (a GEMM tile's result lands before the next tile reads A), so a
     buffer passed both ways would give a wrong result, not an error. */
  for (intptr_t o = 0; o < p->numOutputs; ++o)
    for (intptr_t i = 0; i < n; ++i) {
      const DlcTensor *a = &outputs[o];
      const DlcTensor *b = i < p->numInputs ? &inputs[i] : &outputs[i - p->numInputs];
      if (a == b || (i >= p->numInputs && i - p->numInputs < o))
        continue;
      const char *x = a->data, *y = b->data;
      size_t na = tensorBytes(&a->type), nb = tensorBytes(&b->type);
      if (na && nb && x < y + nb && y < x + na) {
        snprintf(error, errorLength,
                 "output %ld overlaps %s %ld: outputs must be buffers of their own "
                 "(dlc does not compute in place)",
                 (long)o, i < p->numInputs ? "input" : "output",
                 (long)(i < p->numInputs ? i : i - p->numInputs));
        releaseVariant(p, v);
        return false;
      }
    }
  void *ws = v->plan.workspaceBytes > 0 ? takeWorkspace(v) : NULL;
  if (v->plan.workspaceBytes > 0 && !ws) {
    snprintf(error, errorLength, "cannot allocate the %lld-byte workspace",
             (long long)v->plan.workspaceBytes);
    releaseVariant(p, v);
    return false;
  }
  /* the status of the run-time checks: an output of the entry's own */
  int32_t status = 0;
  DlcTensor statusTensor = {v->types[n], &status};
  Descriptor *descs = calloc((size_t)n + 3, sizeof *descs);
  void **args = calloc((size_t)(n + 1) * (3 + 2 * DLC_MAX_RANK) + 6, sizeof *args);
  DlcTensor *dev = p->cuda ? calloc((size_t)n + 1, sizeof *dev) : NULL;
  if (!descs || !args || (p->cuda && !dev)) {
    snprintf(error, errorLength, "out of memory allocating %zu bytes of call arguments",
             ((size_t)n + 2) * sizeof *descs +
                 ((size_t)n * (3 + 2 * DLC_MAX_RANK) + 6) * sizeof *args);
    free(descs);
    free(args);
    free(dev);
    if (ws)
      returnWorkspace(v, ws);
    releaseVariant(p, v);
    return false;
  }
  bool ok = true;
  intptr_t k = 0;
  for (intptr_t i = 0; i < n; ++i) {
    const DlcTensor *t = i < p->numInputs ? &inputs[i] : &outputs[i - p->numInputs];
    if (dev) { /* the program's arguments are device buffers */
      dev[i] = *t;
      dev[i].data = dlcCudaAlloc(tensorBytes(&t->type));
      ok = ok && dev[i].data &&
           (i >= p->numInputs || dlcCudaCopy(dev[i].data, t->data, tensorBytes(&t->type)));
      t = &dev[i];
    }
    k += pack(&descs[i], t, args + k);
  }
  if (p->numChecks > 0)
    k += pack(&descs[n + 1], &statusTensor, args + k);
  if (ws)
    k += packWorkspace(&descs[n], ws, v->plan.workspaceBytes, args + k);
  if (p->setThreads && p->threads > 0)
    p->setThreads(p->threads);
  /* constants upload once into the variant's table (cuda_runtime.h) */
  DlcCudaConstants *unbound = v->constants ? dlcCudaConstantsBind(v->constants) : NULL;
  if (ok && v->profile) {
    pthread_mutex_lock(&p->profileLock);
    p->last = v;
    dlcProfileRunBegin(v->profile);
    v->invoke(args);
    dlcProfileRunEnd(v->profile);
    pthread_mutex_unlock(&p->profileLock);
  } else if (ok) {
    v->invoke(args);
  }
  if (v->constants)
    dlcCudaConstantsBind(unbound);
  if (dev) {
    ok = ok && dlcCudaSynchronize();
    for (intptr_t i = p->numInputs; i < n && ok; ++i)
      ok = dlcCudaCopy(outputs[i - p->numInputs].data, dev[i].data,
                       tensorBytes(&outputs[i - p->numInputs].type));
    for (intptr_t i = 0; i < n; ++i)
      dlcCudaFree(dev[i].data);
    free(dev);
    char why[480];
    bool driverError = dlcCudaTakeError(why, sizeof why);
    if (driverError || !ok) {
      snprintf(error, errorLength, "cuda: %s", driverError ? why : "a device copy failed");
      ok = false;
    }
  }
  free(args);
  free(descs);
  if (ws)
    returnWorkspace(v, ws);
  releaseVariant(p, v);
  if (ok && status != 0) {
    /* the outputs hold markers where the check failed: an error, not data */
    if (status > 0 && status <= p->numChecks)
      snprintf(error, errorLength, "%s", p->checks[status - 1]);
    else
      snprintf(error, errorLength, "run-time check %d failed", (int)status);
    ok = false;
  }
  return ok;
}

static DlcProfile *lastProfile(DlcProgram *p, char *error, size_t errorLength) {
  if (!p->profile) {
    snprintf(error, errorLength, "the program was not compiled with profiling on");
    return NULL;
  }
  if (!p->last || !p->last->profile) {
    snprintf(error, errorLength, "no run to profile yet");
    return NULL;
  }
  return p->last->profile;
}

char *dlcProgramProfileTable(DlcProgram *p, char *error, size_t errorLength) {
  pthread_mutex_lock(&p->cacheLock); /* p->last is not evicted meanwhile */
  pthread_mutex_lock(&p->profileLock);
  DlcProfile *prof = lastProfile(p, error, errorLength);
  int threads = p->threads > 0 ? p->threads : p->maxThreads ? p->maxThreads() : 1;
  char *table = prof ? dlcProfileTable(prof, threads) : NULL;
  pthread_mutex_unlock(&p->profileLock);
  pthread_mutex_unlock(&p->cacheLock);
  return table;
}

bool dlcProgramProfileTrace(DlcProgram *p, const char *path, char *error, size_t errorLength) {
  pthread_mutex_lock(&p->cacheLock); /* p->last is not evicted meanwhile */
  pthread_mutex_lock(&p->profileLock);
  DlcProfile *prof = lastProfile(p, error, errorLength);
  bool ok = prof && dlcProfileWriteTrace(prof, path, error, errorLength);
  pthread_mutex_unlock(&p->profileLock);
  pthread_mutex_unlock(&p->cacheLock);
  return ok;
}

void dlcProgramProfileReset(DlcProgram *p) {
  pthread_mutex_lock(&p->cacheLock);
  pthread_mutex_lock(&p->profileLock);
  for (int i = 0; i < p->numVariants; ++i)
    if (p->variants[i]->profile)
      dlcProfileReset(p->variants[i]->profile);
  pthread_mutex_unlock(&p->profileLock);
  pthread_mutex_unlock(&p->cacheLock);
}
