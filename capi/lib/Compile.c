/* Compiling a module and running it in process (see dlc-c/Compile.h). */

#include "dlc-c/Compile.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct DlcProgram {
  MlirContext ctx;
  MlirModule module;
  MlirExecutionEngine engine;
  char entry[256];
  intptr_t numInputs, numOutputs;
  DlcTensorType *types; /* inputs then outputs */
  int threads;
  void (*setThreads)(int);
  void (*invoke)(void **args);
};

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

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
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i)
    n *= t->dims[i];
  return n;
}

const char *dlcTensorTypeFormat(const DlcTensorType *t, char *buf, size_t len) {
  size_t n = (size_t)snprintf(buf, len, "%s[", dlcDTypeName(t->dtype));
  for (int32_t i = 0; i < t->rank && n < len; ++i)
    n += (size_t)snprintf(buf + n, len - n, i ? "x%lld" : "%lld", (long long)t->dims[i]);
  if (n < len)
    snprintf(buf + n, len - n, "]");
  return buf;
}

static bool dtypeOf(MlirType e, DlcDType *out) {
  if (mlirTypeIsAF32(e)) *out = DLC_F32;
  else if (mlirTypeIsAF16(e)) *out = DLC_F16;
  else if (mlirTypeIsABF16(e)) *out = DLC_BF16;
  else if (mlirTypeIsAF64(e)) *out = DLC_F64;
  else if (mlirTypeIsAInteger(e)) {
    unsigned w = mlirIntegerTypeGetWidth(e);
    if (w == 1) *out = DLC_I1;
    else if (w == 8) *out = DLC_I8;
    else if (w == 32) *out = DLC_I32;
    else if (w == 64) *out = DLC_I64;
    else return false;
  } else
    return false;
  return true;
}

/* The entry's tensor type at position i, or a message. */
static char *readType(MlirType t, const char *what, intptr_t i, DlcTensorType *out) {
  if (!mlirTypeIsARankedTensor(t) || !dtypeOf(mlirShapedTypeGetElementType(t), &out->dtype))
    return format("%s %ld is not a ranked tensor of a supported element type", what, (long)i);
  out->rank = (int32_t)mlirShapedTypeGetRank(t);
  if (out->rank > DLC_MAX_RANK)
    return format("%s %ld has rank > %d", what, (long)i, DLC_MAX_RANK);
  for (int32_t d = 0; d < out->rank; ++d) {
    if (mlirShapedTypeIsDynamicDim(t, d))
      return format("%s %ld has a dynamic dimension %d; the runner needs static shapes", what,
                    (long)i, d);
    out->dims[d] = mlirShapedTypeGetDimSize(t, d);
  }
  return NULL;
}

static bool isPublic(MlirOperation f) {
  return mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("sym_visibility")));
}

static MlirStringRef symName(MlirOperation f) {
  return mlirStringAttrGetValue(mlirOperationGetAttributeByName(f, str("sym_name")));
}

/* Finds the entry function: the named one, the only public one, or main. */
static char *findEntry(MlirModule m, const char *want, MlirOperation *out) {
  MlirOperation only = {NULL}, main = {NULL};
  int publics = 0;
  char names[512] = "";
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirIdentifier name = mlirOperationGetName(op);
    MlirStringRef s = mlirIdentifierStr(name);
    if (!(s.length == 9 && memcmp(s.data, "func.func", 9) == 0) ||
        mlirRegionIsNull(mlirOperationGetRegion(op, 0)) ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirStringRef sym = symName(op);
    if (n < sizeof names - 1)
      n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s", n ? ", " : "",
                            (int)sym.length, sym.data);
    if (want && strlen(want) == sym.length && memcmp(want, sym.data, sym.length) == 0) {
      *out = op;
      return NULL;
    }
    if (sym.length == 4 && memcmp(sym.data, "main", 4) == 0)
      main = op;
    if (isPublic(op))
      ++publics, only = op;
  }
  if (want)
    return format("unknown entry '%s' (functions: %s)", want, n ? names : "none");
  if (publics == 1) {
    *out = only;
    return NULL;
  }
  if (!mlirOperationIsNull(main)) {
    *out = main;
    return NULL;
  }
  return format("no entry function: %s; name one with --entry",
                publics ? "several public functions and none is 'main'" : "no public function");
}

static char *diagnosticsOr(DlcDiagnostics *d, const char *fallback) {
  const char *t = dlcDiagnosticsText(d);
  return format("%s", t && *t ? t : fallback);
}

static const char *const kRuntimeLibs[] = {
    "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so",
    "/usr/lib/x86_64-linux-gnu/libomp.so.5",
};

DlcProgram *dlcProgramCompile(const char *source, size_t length, const char *sourceName,
                              const DlcCompileOptions *options, char **error) {
  DlcCompileOptions dflt = {NULL, NULL, 0, 3};
  const DlcCompileOptions *o = options ? options : &dflt;
  DlcProgram *p = calloc(1, sizeof *p);
  p->ctx = dlcContextCreate();
  p->threads = o->threads;
  DlcDiagnostics *diags = dlcDiagnosticsAttach(p->ctx);
  char *err = NULL;
  MlirOperation entry = {NULL};

  p->module = dlcModuleParse(p->ctx, (MlirStringRef){source, length},
                             sourceName ? sourceName : "<input>");
  if (mlirModuleIsNull(p->module)) {
    err = diagnosticsOr(diags, "cannot parse the module");
    goto fail;
  }
  if ((err = findEntry(p->module, o->entry, &entry)))
    goto fail;
  {
    MlirStringRef sym = symName(entry);
    snprintf(p->entry, sizeof p->entry, "%.*s", (int)sym.length, sym.data);
    MlirType ft = mlirTypeAttrGetValue(
        mlirOperationGetAttributeByName(entry, str("function_type")));
    p->numInputs = mlirFunctionTypeGetNumInputs(ft);
    p->numOutputs = mlirFunctionTypeGetNumResults(ft);
    p->types = calloc((size_t)(p->numInputs + p->numOutputs) + 1, sizeof *p->types);
    for (intptr_t i = 0; i < p->numInputs && !err; ++i)
      err = readType(mlirFunctionTypeGetInput(ft, i), "input", i, &p->types[i]);
    for (intptr_t i = 0; i < p->numOutputs && !err; ++i)
      err = readType(mlirFunctionTypeGetResult(ft, i), "result", i,
                     &p->types[p->numInputs + i]);
    if (err)
      goto fail;
  }
  {
    /* Pipeline syntax errors and pass failures both arrive as diagnostics. */
    const char *pipeline = o->pipeline ? o->pipeline : "builtin.module(lower-to-llvm)";
    if (mlirLogicalResultIsFailure(
            dlcRunPipeline(mlirModuleGetOperation(p->module), pipeline))) {
      err = diagnosticsOr(diags, "compilation failed");
      goto fail;
    }
  }
  {
    MlirStringRef libs[2];
    int nLibs = 0;
    for (size_t i = 0; i < sizeof kRuntimeLibs / sizeof kRuntimeLibs[0]; ++i)
      if (access(kRuntimeLibs[i], R_OK) == 0)
        libs[nLibs++] = str(kRuntimeLibs[i]);
    p->engine = mlirExecutionEngineCreate(p->module, o->optLevel > 0 ? o->optLevel : 3, nLibs,
                                          libs, false, false);
    if (mlirExecutionEngineIsNull(p->engine)) {
      err = diagnosticsOr(diags, "JIT compilation failed");
      goto fail;
    }
    /* The packed wrapper _mlir_<entry>(void **args) takes one pointer per
       argument of the lowered function, memrefs expanded field by field. */
    p->invoke = (void (*)(void **))mlirExecutionEngineLookupPacked(p->engine, str(p->entry));
    if (!p->invoke) {
      err = format("the compiled module has no entry '%s'", p->entry);
      goto fail;
    }
    void *omp = dlopen("libomp.so.5", RTLD_NOW | RTLD_NOLOAD);
    if (omp)
      p->setThreads = (void (*)(int))dlsym(omp, "omp_set_num_threads");
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
  if (p->engine.ptr)
    mlirExecutionEngineDestroy(p->engine);
  if (p->module.ptr)
    mlirModuleDestroy(p->module);
  mlirContextDestroy(p->ctx);
  free(p->types);
  free(p);
}

intptr_t dlcProgramNumInputs(const DlcProgram *p) { return p->numInputs; }
intptr_t dlcProgramNumOutputs(const DlcProgram *p) { return p->numOutputs; }
DlcTensorType dlcProgramInput(const DlcProgram *p, intptr_t i) { return p->types[i]; }
DlcTensorType dlcProgramOutput(const DlcProgram *p, intptr_t i) {
  return p->types[p->numInputs + i];
}

static bool sameType(const DlcTensorType *a, const DlcTensorType *b) {
  if (a->dtype != b->dtype || a->rank != b->rank)
    return false;
  for (int32_t i = 0; i < a->rank; ++i)
    if (a->dims[i] != b->dims[i])
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
  int64_t stride = 1;
  for (int32_t i = t->type.rank - 1; i >= 0; --i) {
    d->sizes[i] = t->type.dims[i];
    d->strides[i] = stride;
    stride *= t->type.dims[i];
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

bool dlcProgramRun(DlcProgram *p, const DlcTensor *inputs, DlcTensor *outputs, char *error,
                   size_t errorLength) {
  intptr_t n = p->numInputs + p->numOutputs;
  for (intptr_t i = 0; i < n; ++i) {
    bool isIn = i < p->numInputs;
    const DlcTensor *t = isIn ? &inputs[i] : &outputs[i - p->numInputs];
    if (!sameType(&t->type, &p->types[i]) || !t->data) {
      char want[128], got[128];
      snprintf(error, errorLength, "%s %ld: expected %s, got %s", isIn ? "input" : "output",
               (long)(isIn ? i : i - p->numInputs),
               dlcTensorTypeFormat(&p->types[i], want, sizeof want),
               t->data ? dlcTensorTypeFormat(&t->type, got, sizeof got) : "no buffer");
      return false;
    }
  }
  Descriptor *descs = calloc((size_t)n + 1, sizeof *descs);
  void **args = calloc((size_t)n * (3 + 2 * DLC_MAX_RANK) + 1, sizeof *args);
  intptr_t k = 0;
  for (intptr_t i = 0; i < n; ++i)
    k += pack(&descs[i], i < p->numInputs ? &inputs[i] : &outputs[i - p->numInputs], args + k);
  if (p->setThreads && p->threads > 0)
    p->setThreads(p->threads);
  p->invoke(args);
  free(args);
  free(descs);
  return true;
}
