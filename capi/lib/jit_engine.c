/* The split JIT (jit.h): the parts of jit_split.c translated to LLVM IR,
   optimised and compiled to objects on their own threads, each with its
   own LLVMContext and TargetMachine, then linked in one ORC LLJIT.

   It does what MLIR's ExecutionEngine (mlirExecutionEngineCreate) did for
   dlc, piece by piece:
   - the target: the host's CPU name and features, the JIT's relocation
     and code models (jit_target.c), code generation at `optLevel`;
   - the IR pipeline: default<O`optLevel`> with loop unrolling, loop
     interleaving, loop and SLP vectorization on (makeOptimizingTransformer;
     dlcOptimizeModule in jit_target.c, which dlc-compile runs too);
   - the packed entry `_mlir_<entry>(void **args)`: each argument loaded
     through its pointer, the result (if any) stored through the last one,
     built before optimisation (ExecutionEngine's packFunctionArguments);
   - RuntimeDyld with the section memory manager as the object linker;
   - shared libraries searched as DynamicLibrarySearchGenerator::Load does,
     then the process's own symbols;
   - registered symbols (weights, the profiler's hooks) as absolute ones.
   Errors come back as text, with the part and stage that failed. */

#define _GNU_SOURCE
#include "jit.h"
#include "jit_target.h"
#include "Entry.h"
#include "shape/Checked.h"

#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/LLJIT.h"
#include "llvm-c/Orc.h"
#include "llvm-c/OrcEE.h"
#include "llvm-c/Transforms/PassBuilder.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct DlcJit {
  LLVMOrcLLJITRef lljit;
  pthread_mutex_t lock;
  char *sessionError; /* the first error the ORC session reported */
};

int dlcJitThreads(char **error) {
  *error = NULL;
  const char *e = getenv("DLC_COMPILE_THREADS");
  if (e && *e) {
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (errno || *end || v < 1 || v > 1024) {
      *error = dlcFormat("DLC_COMPILE_THREADS must be a whole number from 1 to 1024, got '%s'", e);
      return 0;
    }
    return (int)v;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

bool dlcJitSupports(MlirModule module) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("llvm.mlir.global_ctors")) ||
        mlirStringRefEqual(name, mlirStringRefCreateFromCString("llvm.mlir.global_dtors")))
      return false;
  }
  return true;
}

static char *takeError(LLVMErrorRef e) {
  char *t = LLVMGetErrorMessage(e);
  char *s = dlcFormat("%s", t);
  LLVMDisposeErrorMessage(t);
  return s;
}

static void addFunctionAttribute(LLVMValueRef f, const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, kind, 0));
}

/* ExecutionEngine's packFunctionArguments, for the entry. The wrapper is
   `optnone` and the entry `noinline`: a model's entry takes every buffer
   as an expanded memref (1123 arguments for BERT-base's 12 layers with
   their weights), and one call with that many stack arguments, or the
   entry inlined into the wrapper, kept X86's SelectionDAG instruction
   selection busy for 12.2 s of a 13.0 s `llc` (quadratic in the call's
   stores); the wrapper at -O0 (FastISel) and the entry left whole took
   0.6 s. */
static char *packEntry(LLVMModuleRef m, const char *entry) {
  LLVMValueRef f = LLVMGetNamedFunction(m, entry);
  if (!f || LLVMIsDeclaration(f))
    return dlcFormat("the compiled module has no entry '%s'", entry);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  char *name = dlcFormat("_mlir_%s", entry);
  LLVMValueRef w = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0));
  free(name);
  addFunctionAttribute(f, "noinline");
  addFunctionAttribute(w, "noinline");
  addFunctionAttribute(w, "optnone");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, w, ""));
  LLVMValueRef list = LLVMGetParam(w, 0);
  unsigned n = LLVMCountParams(f);
  LLVMValueRef *args = dlcXmalloc(sizeof *args * (n + 1));
  for (unsigned i = 0; i < n; ++i) {
    LLVMValueRef index = LLVMConstInt(i64, i, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptr, list, &index, 1, "");
    LLVMValueRef p = LLVMBuildLoad2(b, ptr, slot, "");
    args[i] = LLVMBuildLoad2(b, LLVMTypeOf(LLVMGetParam(f, i)), p, "");
  }
  LLVMValueRef result = LLVMBuildCall2(b, ft, f, args, n, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind) {
    LLVMValueRef index = LLVMConstInt(i64, n, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptr, list, &index, 1, "");
    LLVMBuildStore(b, result, LLVMBuildLoad2(b, ptr, slot, ""));
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(args);
  return NULL;
}

/* One part's work, on its own thread. */
typedef struct {
  DlcJitPart *part;
  int index;
  const char *entry;
  const char *isa;
  int optLevel;
  LLVMMemoryBufferRef object;
  char *error;
  double seconds[3]; /* translation, optimisation, code generation: thread CPU */
  double began, ended; /* wall clock */
  pid_t tid;
} Job;

static double wallSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double threadSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void compilePart(Job *j) {
  j->tid = gettid();
  j->began = wallSeconds();
  double t0 = threadSeconds();
  char *msg = NULL;
  LLVMTargetMachineRef tm = dlcTargetMachineCreate(j->isa, true, j->optLevel, &j->error);
  if (!tm)
    return;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(j->part->module), llctx);
  double t1 = threadSeconds();
  if (!m) {
    j->error = dlcFormat("translation to LLVM IR failed (part %d)", j->index);
    goto done;
  }
  if (LLVMGetNamedGlobal(m, "llvm.global_ctors") || LLVMGetNamedGlobal(m, "llvm.global_dtors")) {
    j->error = dlcFormat("the split JIT does not run global constructors or destructors (part "
                         "%d has some)", j->index);
    goto done;
  }
  dlcModuleSetTarget(m, tm);
  for (size_t i = 0; i < j->part->numExported; ++i) {
    const char *name = j->part->exported[i];
    LLVMValueRef g = LLVMGetNamedFunction(m, name);
    if (!g)
      g = LLVMGetNamedGlobal(m, name);
    if (g && !LLVMIsDeclaration(g)) {
      LLVMSetLinkage(g, LLVMExternalLinkage);
      LLVMSetVisibility(g, LLVMHiddenVisibility);
    }
  }
  if (j->part->hasEntry && (j->error = packEntry(m, j->entry)))
    goto done;
  LLVMErrorRef e = dlcOptimizeModule(m, tm, j->optLevel, NULL);
  double t2 = threadSeconds();
  if (e) {
    char *t = takeError(e);
    j->error = dlcFormat("LLVM optimisation failed (part %d): %s", j->index, t);
    free(t);
    goto done;
  }
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &j->object))
    j->error = dlcFormat("machine code generation failed (part %d): %s", j->index,
                         msg ? msg : "?");
  double t3 = threadSeconds();
  const char *dump = getenv("DLC_JIT_DUMP_OBJECTS");
  if (dump && *dump && j->object && !j->error) {
    char *path = dlcFormat("%s/part%d.o", dump, j->index);
    FILE *f = fopen(path, "wb");
    size_t n = LLVMGetBufferSize(j->object);
    if (!f || fwrite(LLVMGetBufferStart(j->object), 1, n, f) != n)
      j->error = dlcFormat("DLC_JIT_DUMP_OBJECTS: cannot write %s: %s", path, strerror(errno));
    if (f)
      fclose(f);
    free(path);
  }
  j->seconds[0] = t1 - t0;
  j->seconds[1] = t2 - t1;
  j->seconds[2] = t3 - t2;
done:
  if (msg)
    LLVMDisposeMessage(msg);
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(llctx);
  LLVMDisposeTargetMachine(tm);
  j->ended = wallSeconds();
}

/* Parts per compile thread (see dlcJitCreate). The last part taken runs
   alone while the other threads wait: with 4 a thread, ResNet-50's LLVM
   phase on 2 threads was 8 parts of 0.6-0.95 s and one thread idled for
   0.6 s at its end. With 8 a thread (Zen 1, 2 threads, dlc.Module wall,
   alternated): ResNet-50 5.05-5.12 -> 4.84-5.00 s, MobileNetV2 4.55-4.63
   -> 4.41-4.54 s, BERT-base 12 layers 2.85-2.95 -> 2.80-2.83 s; one BERT
   layer, whose 13 functions (12 kernels and the entry) then go one a
   part, 0.80-0.82 -> 0.82-0.83 s. */
enum { kPartsPerThread = 8 };

typedef struct {
  Job *jobs;
  int numJobs;
  atomic_int next;
} Queue;

static void *runQueue(void *arg) {
  Queue *q = arg;
  for (int k; (k = atomic_fetch_add(&q->next, 1)) < q->numJobs;)
    compilePart(&q->jobs[k]);
  return NULL;
}

static LLVMOrcObjectLayerRef createRTDyld(void *ctx, LLVMOrcExecutionSessionRef es,
                                          const char *triple) {
  (void)ctx;
  (void)triple;
  return LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(es);
}

/* The session reports linking errors (a symbol found nowhere) here as
   well as to the lookup; keep the first for the message, print none. */
static void reportSessionError(void *ctx, LLVMErrorRef e) {
  DlcJit *jit = ctx;
  char *t = takeError(e);
  pthread_mutex_lock(&jit->lock);
  if (!jit->sessionError)
    jit->sessionError = t;
  else
    free(t);
  pthread_mutex_unlock(&jit->lock);
}

void dlcJitDestroy(DlcJit *jit) {
  if (!jit)
    return;
  if (jit->lljit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(jit->lljit);
    if (e)
      LLVMConsumeError(e);
  }
  pthread_mutex_destroy(&jit->lock);
  free(jit->sessionError);
  free(jit);
}

static char *defineSymbols(DlcJit *jit, LLVMOrcJITDylibRef jd, const DlcJitOptions *o) {
  if (!o->numSymbols)
    return NULL;
  LLVMOrcCSymbolMapPairs pairs = dlcXcalloc(o->numSymbols, sizeof *pairs);
  for (size_t i = 0; i < o->numSymbols; ++i) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, o->symbols[i].name);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)o->symbols[i].address;
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported;
  }
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, o->numSymbols);
  free(pairs);
  LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
  if (!e)
    return NULL;
  LLVMOrcDisposeMaterializationUnit(mu);
  char *t = takeError(e);
  char *err = dlcFormat("JIT: cannot define the runtime symbols: %s", t);
  free(t);
  return err;
}

/* The LLJIT that links the objects, with the libraries, the process and
   the registered symbols to resolve against. */
static char *createLinker(DlcJit *jit, const DlcJitOptions *o) {
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(builder, createRTDyld, NULL);
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit->lljit, builder); /* consumes builder */
  if (e) {
    jit->lljit = NULL;
    char *t = takeError(e), *err = dlcFormat("JIT: cannot create the linker: %s", t);
    free(t);
    return err;
  }
  LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(jit->lljit),
                                          reportSessionError, jit);
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit->lljit);
  char prefix = LLVMOrcLLJITGetGlobalPrefix(jit->lljit);
  for (int i = 0; i < o->numLibs; ++i) {
    LLVMOrcDefinitionGeneratorRef g;
    if ((e = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(&g, o->libs[i], prefix, NULL,
                                                                NULL))) {
      char *t = takeError(e), *err = dlcFormat("JIT: cannot load %s: %s", o->libs[i], t);
      free(t);
      return err;
    }
    LLVMOrcJITDylibAddGenerator(jd, g);
  }
  LLVMOrcDefinitionGeneratorRef g;
  if ((e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&g, prefix, NULL, NULL))) {
    char *t = takeError(e), *err = dlcFormat("JIT: cannot search the process: %s", t);
    free(t);
    return err;
  }
  LLVMOrcJITDylibAddGenerator(jd, g);
  return defineSymbols(jit, jd, o);
}

char *dlcJitCreate(MlirModule module, const char *entry, const DlcJitOptions *o, DlcJit **out,
                   void (**invoke)(void **)) {
  *out = NULL;
  *invoke = NULL;
  dlcInitializeLLVMTarget();
  /* More parts than threads, taken from a queue: operation counts only
     approximate LLVM's time (two halves of DenseNet-121 equal in
     operations took 7 and 10 s), so a thread that finishes early takes
     the next part. One thread compiles the module whole. */
  int threads = o->threads > 0 ? o->threads : 1;
  DlcJitPart *parts;
  int numParts;
  char *err = dlcJitSplit(module, entry, threads > 1 ? threads * kPartsPerThread : 1, &parts,
                          &numParts);
  if (err)
    return err;
  if (threads > numParts)
    threads = numParts;
  Job *jobs = dlcXcalloc((size_t)numParts, sizeof *jobs);
  for (int k = 0; k < numParts; ++k)
    jobs[k] = (Job){&parts[k], k, entry, o->isa ? o->isa : "host", o->optLevel, NULL, NULL,
                    {0, 0, 0}, 0, 0, 0};
  double start = wallSeconds();
  Queue q = {jobs, numParts, 0};
  /* This thread and threads-1 more take parts from the queue. The MLIR
     context is shared by the translations: its uniquing takes locks only
     with multithreading on, so it is on while they run. */
  MlirContext ctx = mlirModuleGetContext(module);
  pthread_t *workers = dlcXcalloc((size_t)threads, sizeof *workers);
  bool *started = dlcXcalloc((size_t)threads, sizeof *started);
  int numStarted = 1;
  if (threads > 1)
    mlirContextEnableMultithreading(ctx, true);
  for (int t = 1; t < threads; ++t)
    numStarted += started[t] = pthread_create(&workers[t], NULL, runQueue, &q) == 0;
  runQueue(&q);
  for (int t = 1; t < threads; ++t)
    if (started[t])
      pthread_join(workers[t], NULL);
  if (threads > 1)
    mlirContextEnableMultithreading(ctx, false);
  free(workers);
  free(started);

  if (getenv("DLC_JIT_DEBUG")) {
    int distinct = 0;
    for (int k = 0; k < numParts; ++k) {
      bool seen = false;
      for (int q = 0; q < k && !seen; ++q)
        seen = jobs[q].tid == jobs[k].tid;
      distinct += !seen;
    }
    fprintf(stderr, "dlc-jit: %d part%s, %d compile thread%s (%d asked), %d did work\n",
            numParts, numParts == 1 ? "" : "s", numStarted, numStarted == 1 ? "" : "s",
            o->threads, distinct);
    for (int k = 0; k < numParts; ++k)
      fprintf(stderr,
              "dlc-jit: part %d: %ld ops, %zu exported%s; thread CPU s: translate %.3f, "
              "optimise %.3f, codegen %.3f; wall %.3f-%.3f\n",
              k, parts[k].ops, parts[k].numExported, parts[k].hasEntry ? ", entry" : "",
              jobs[k].seconds[0], jobs[k].seconds[1], jobs[k].seconds[2], jobs[k].began - start,
              jobs[k].ended - start);
  }
  for (int k = 0; k < numParts && !err; ++k)
    if (jobs[k].error) {
      err = jobs[k].error;
      jobs[k].error = NULL;
    }
  DlcJit *jit = dlcXcalloc(1, sizeof *jit);
  pthread_mutex_init(&jit->lock, NULL);
  if (!err)
    err = createLinker(jit, o);
  LLVMOrcJITDylibRef jd = jit->lljit ? LLVMOrcLLJITGetMainJITDylib(jit->lljit) : NULL;
  for (int k = 0; k < numParts; ++k) {
    if (jobs[k].object && !err) {
      LLVMErrorRef e = LLVMOrcLLJITAddObjectFile(jit->lljit, jd, jobs[k].object);
      if (e) {
        char *t = takeError(e);
        err = dlcFormat("JIT: cannot add the object of part %d: %s", k, t);
        free(t);
      }
    } else if (jobs[k].object) {
      LLVMDisposeMemoryBuffer(jobs[k].object);
    }
    free(jobs[k].error);
  }
  free(jobs);
  dlcJitPartsDestroy(parts, numParts);
  if (!err) {
    char *name = dlcFormat("_mlir_%s", entry);
    LLVMOrcExecutorAddress address = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(jit->lljit, &address, name);
    free(name);
    if (e) {
      char *t = takeError(e);
      err = dlcFormat("JIT linking failed: %s", jit->sessionError ? jit->sessionError : t);
      free(t);
    } else {
      *invoke = (void (*)(void **))(uintptr_t)address;
    }
  }
  if (err) {
    dlcJitDestroy(jit);
    return err;
  }
  *out = jit;
  return NULL;
}
