/* Ahead-of-time compilation to DIR/NAME.{h,o} and DIR/libNAME.so
   (dlc-c/Aot.h).

   The lowered entry takes its memrefs expanded field by field (allocated,
   aligned, offset, sizes, strides) plus, when --dlc-memory-plan placed
   temporaries, the workspace memref<Bxi8>. NAME_run is a small LLVM-dialect
   function added to the lowered module: it checks its pointers, finds a
   workspace (the caller's, or an aligned_alloc for this call), and calls
   the entry with the static sizes and row-major strides. Every other
   function and global of the module becomes internal, so the library
   exports only NAME_*. */

#include "dlc-c/Aot.h"
#include "dlc-c/Context.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "Entry.h"
#include "RuntimePaths.h"
#include "jit.h"
#include "jit_target.h"
#include "shape/Checked.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"

#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A growing string. */
typedef struct {
  char *s;
  size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = (b->n + (size_t)k + 1) * 2;
    b->s = dlcXrealloc(b->s, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

/*--- The entry's signature ------------------------------------------------------*/

typedef DlcTensorType Tensor; /* static: no DLC_DYNAMIC_DIM (readTensor) */

static const struct {
  const char *mlir, *numpy, *c; /* "f32", "float32", "DLC_AOT_F32" */
} kDTypes[] = {
    [DLC_F32] = {"f32", "float32", "F32"},   [DLC_F16] = {"f16", "float16", "F16"},
    [DLC_BF16] = {"bf16", "bfloat16", "BF16"}, [DLC_F64] = {"f64", "float64", "F64"},
    [DLC_I1] = {"i1", "bool", "BOOL"},       [DLC_I8] = {"i8", "int8", "I8"},
    [DLC_I32] = {"i32", "int32", "I32"},     [DLC_I64] = {"i64", "int64", "I64"},
};

/* The entry's tensor type, which must be static: an AOT library has no
   shape specialisation. */
static char *readTensor(MlirType t, const char *what, intptr_t i, Tensor *out) {
  char *err = dlcReadTensorType(t, what, i, out);
  for (int d = 0; !err && d < out->rank; ++d)
    if (out->dims[d] == DLC_DYNAMIC_DIM)
      err = dlcFormat("%s %ld has a dynamic dimension (dim %d): an AOT library is compiled for "
                      "static shapes; give the model static shapes (e.g. export the ONNX model "
                      "without dynamic axes)", what, (long)i, d);
  return err;
}

static int64_t tensorBytes(const Tensor *t) {
  return (int64_t)dlcDTypeSize(t->dtype) * dlcTensorTypeNumElements(t);
}

/*--- The ABI functions, in the LLVM dialect --------------------------------------*/

/* An MLIR string literal of `s` plus its NUL, every byte not alphanumeric
   escaped; returns its length in bytes (with the NUL). */
static size_t putStringLiteral(Buf *b, const char *s) {
  put(b, "\"");
  size_t n = 0;
  for (; s[n]; ++n)
    if (isalnum((unsigned char)s[n]) || s[n] == ' ' || s[n] == '_')
      put(b, "%c", s[n]);
    else
      put(b, "\\%02X", (unsigned char)s[n]);
  put(b, "\\00\"");
  return n + 1;
}

static void putStringGlobal(Buf *b, const char *sym, const char *s) {
  Buf lit = {NULL, 0, 0};
  size_t n = putStringLiteral(&lit, s);
  put(b, "  llvm.mlir.global private constant @%s(%s) {addr_space = 0 : i32} : !llvm.array<%zu x i8>\n",
      sym, lit.s, n);
  free(lit.s);
}

static const char *const kErrors[] = {
    "ok",
    "a NULL inputs or outputs array, or a NULL tensor pointer in one",
    "cannot allocate the workspace (workspace was NULL)",
    ("an output overlaps an input or another output (outputs must be buffers of their own: "
     "dlc does not compute in place)"),
};

/* The wrapper module: NAME_run, NAME_workspace_size, NAME_error_string,
   NAME_signature, with declarations of what they call (the entry, libc's
   aligned_alloc and free), which the lowered module may define already. */
static char *wrapperSource(const char *name, const char *entry, const Tensor *ts, int ni,
                           int no, int64_t wsBytes, int threads, const char *signature,
                           intptr_t nChecks, char *const *checks) {
  /* codes: kErrors', then 4 + k - 1 for run-time check k */
  const size_t nk = sizeof kErrors / sizeof *kErrors, nCodes = nk + (size_t)nChecks;
  Buf b = {NULL, 0, 0};
  put(&b, "module {\n");
  if (wsBytes > 0)
    put(&b, "  llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr\n"
            "  llvm.func @free(!llvm.ptr)\n");
  if (threads > 1)
    put(&b, "  llvm.func @omp_set_num_threads(i32)\n");
  for (size_t i = 0; i < nCodes; ++i) {
    char sym[64];
    snprintf(sym, sizeof sym, "__%s_error%zu", name, i);
    putStringGlobal(&b, sym, i < nk ? kErrors[i] : checks[i - nk]);
  }
  char sym[64];
  snprintf(sym, sizeof sym, "__%s_error_unknown", name);
  putStringGlobal(&b, sym, "unknown error code");
  snprintf(sym, sizeof sym, "__%s_signature", name);
  putStringGlobal(&b, sym, signature);

  put(&b, "  llvm.func @%s_workspace_size() -> i64 {\n"
          "    %%b = llvm.mlir.constant(%lld : i64) : i64\n"
          "    llvm.return %%b : i64\n  }\n", name, (long long)wsBytes);
  put(&b, "  llvm.func @%s_signature() -> !llvm.ptr {\n"
          "    %%s = llvm.mlir.addressof @__%s_signature : !llvm.ptr\n"
          "    llvm.return %%s : !llvm.ptr\n  }\n", name, name);
  /* error_string: a chain of selects over the codes. */
  put(&b, "  llvm.func @%s_error_string(%%code: i32) -> !llvm.ptr {\n"
          "    %%r%zu = llvm.mlir.addressof @__%s_error_unknown : !llvm.ptr\n",
      name, nCodes, name);
  for (size_t i = nCodes; i-- > 0;)
    put(&b, "    %%m%zu = llvm.mlir.addressof @__%s_error%zu : !llvm.ptr\n"
            "    %%k%zu = llvm.mlir.constant(%zu : i32) : i32\n"
            "    %%is%zu = llvm.icmp \"eq\" %%code, %%k%zu : i32\n"
            "    %%r%zu = llvm.select %%is%zu, %%m%zu, %%r%zu : i1, !llvm.ptr\n",
        i, name, i, i, i, i, i, i, i, i, i + 1);
  put(&b, "    llvm.return %%r0 : !llvm.ptr\n  }\n");

  /* run */
  put(&b, "  llvm.func @%s_run(%%in: !llvm.ptr, %%out: !llvm.ptr, %%ws: !llvm.ptr) -> i32 {\n"
          "    %%null = llvm.mlir.zero : !llvm.ptr\n"
          "    %%c0 = llvm.mlir.constant(0 : i64) : i64\n"
          "    %%ok = llvm.mlir.constant(0 : i32) : i32\n"
          "    %%e1 = llvm.mlir.constant(1 : i32) : i32\n"
          "    %%e2 = llvm.mlir.constant(2 : i32) : i32\n"
          "    %%inNull = llvm.icmp \"eq\" %%in, %%null : !llvm.ptr\n"
          "    %%outNull = llvm.icmp \"eq\" %%out, %%null : !llvm.ptr\n"
          "    %%arrNull = llvm.or %%inNull, %%outNull : i1\n"
          "    llvm.cond_br %%arrNull, ^bad, ^load\n"
          "  ^load:\n", name);
  put(&b, "    %%any0 = llvm.mlir.constant(false) : i1\n");
  for (int i = 0; i < ni + no; ++i) {
    bool in = i < ni;
    put(&b, "    %%a%dp = llvm.getelementptr %%%s[%d] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr\n"
            "    %%a%d = llvm.load %%a%dp : !llvm.ptr -> !llvm.ptr\n"
            "    %%n%d = llvm.icmp \"eq\" %%a%d, %%null : !llvm.ptr\n"
            "    %%any%d = llvm.or %%any%d, %%n%d : i1\n",
        i, in ? "in" : "out", in ? i : i - ni, i, i, i, i, i + 1, i, i);
  }
  put(&b, "    llvm.cond_br %%any%d, ^bad, ^go\n  ^go:\n", ni + no);
  /* Outputs are written while inputs are still read (a GEMM tile's result
     lands before the next tile reads A): a buffer passed both ways, or
     twice as an output, is refused (code 3), not computed wrongly. */
  put(&b, "    %%ov0 = llvm.mlir.constant(false) : i1\n");
  int nov = 0;
  for (int i = 0; i < ni + no; ++i) {
    put(&b, "    %%p%d = llvm.ptrtoint %%a%d : !llvm.ptr to i64\n"
            "    %%sz%d = llvm.mlir.constant(%lld : i64) : i64\n"
            "    %%q%d = llvm.add %%p%d, %%sz%d : i64\n",
        i, i, i, (long long)tensorBytes(&ts[i]), i, i, i);
  }
  for (int o = ni; o < ni + no; ++o)
    for (int i = 0; i < o; ++i) {
      if (tensorBytes(&ts[o]) == 0 || tensorBytes(&ts[i]) == 0)
        continue;
      put(&b, "    %%lo%d = llvm.icmp \"ult\" %%p%d, %%q%d : i64\n"
              "    %%hi%d = llvm.icmp \"ult\" %%p%d, %%q%d : i64\n"
              "    %%both%d = llvm.and %%lo%d, %%hi%d : i1\n"
              "    %%ov%d = llvm.or %%ov%d, %%both%d : i1\n",
          nov, o, i, nov, i, o, nov, nov, nov, nov + 1, nov, nov);
      ++nov;
    }
  put(&b, "    llvm.cond_br %%ov%d, ^overlap, ^run\n  ^overlap:\n"
          "    %%e3 = llvm.mlir.constant(3 : i32) : i32\n"
          "    llvm.return %%e3 : i32\n  ^run:\n", nov);
  if (threads > 1)
    put(&b, "    %%nt = llvm.mlir.constant(%d : i32) : i32\n"
            "    llvm.call @omp_set_num_threads(%%nt) : (i32) -> ()\n", threads);
  /* The entry's operands, shared by both calls: the tensors, then the
     status of the run-time checks (an i32 of the wrapper's own). */
  Buf args = {NULL, 0, 0}, types = {NULL, 0, 0};
  if (nChecks > 0)
    put(&b, "    %%stN = llvm.mlir.constant(1 : i64) : i64\n"
            "    %%st = llvm.alloca %%stN x i32 : (i64) -> !llvm.ptr\n"
            "    llvm.store %%ok, %%st : i32, !llvm.ptr\n");
  for (int i = 0; i < ni + no; ++i) {
    const Tensor *t = &ts[i];
    put(&args, "%s%%a%d, %%a%d, %%c0", i ? ", " : "", i, i);
    put(&types, "%s!llvm.ptr, !llvm.ptr, i64", i ? ", " : "");
    int64_t stride = 1, strides[DLC_MAX_RANK];
    for (int d = t->rank - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= t->dims[d];
    }
    for (int d = 0; d < 2 * t->rank; ++d) {
      int64_t v = d < t->rank ? t->dims[d] : strides[d - t->rank];
      put(&b, "    %%a%dd%d = llvm.mlir.constant(%lld : i64) : i64\n", i, d, (long long)v);
      put(&args, ", %%a%dd%d", i, d);
      put(&types, ", i64");
    }
  }
  if (nChecks > 0) {
    put(&args, "%s%%st, %%st, %%c0", ni + no ? ", " : "");
    put(&types, "%s!llvm.ptr, !llvm.ptr, i64", ni + no ? ", " : "");
  }
  /* What a call returns: 0, or 3 + k when run-time check k failed. */
  char *result = nChecks > 0 ? dlcFormat("%%code") : dlcFormat("%%ok");
  if (wsBytes > 0) {
    int64_t rounded = (wsBytes + 63) / 64 * 64;
    put(&b, "    %%wsb = llvm.mlir.constant(%lld : i64) : i64\n"
            "    %%one = llvm.mlir.constant(1 : i64) : i64\n"
            "    %%al = llvm.mlir.constant(64 : i64) : i64\n"
            "    %%rounded = llvm.mlir.constant(%lld : i64) : i64\n"
            "    %%wsNull = llvm.icmp \"eq\" %%ws, %%null : !llvm.ptr\n"
            "    llvm.cond_br %%wsNull, ^alloc, ^call\n"
            "  ^call:\n"
            "    llvm.call @%s(%s, %%ws, %%ws, %%c0, %%wsb, %%one) : (%s, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()\n"
            "    llvm.br ^done\n"
            "  ^alloc:\n"
            "    %%m = llvm.call @aligned_alloc(%%al, %%rounded) : (i64, i64) -> !llvm.ptr\n"
            "    %%mNull = llvm.icmp \"eq\" %%m, %%null : !llvm.ptr\n"
            "    llvm.cond_br %%mNull, ^nomem, ^callFree\n"
            "  ^callFree:\n"
            "    llvm.call @%s(%s, %%m, %%m, %%c0, %%wsb, %%one) : (%s, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()\n"
            "    llvm.call @free(%%m) : (!llvm.ptr) -> ()\n"
            "    llvm.br ^done\n"
            "  ^nomem:\n"
            "    llvm.return %%e2 : i32\n"
            "  ^done:\n",
        (long long)wsBytes, (long long)rounded, entry, args.s ? args.s : "",
        types.s ? types.s : "", entry, args.s ? args.s : "", types.s ? types.s : "");
  } else {
    put(&b, "    llvm.call @%s(%s) : (%s) -> ()\n",
        entry, args.s ? args.s : "", types.s ? types.s : "");
  }
  if (nChecks > 0)
    put(&b, "    %%sv = llvm.load %%st : !llvm.ptr -> i32\n"
            "    %%failed = llvm.icmp \"ne\" %%sv, %%ok : i32\n"
            "    %%base = llvm.mlir.constant(%zu : i32) : i32\n"
            "    %%shifted = llvm.add %%sv, %%base : i32\n"
            "    %%code = llvm.select %%failed, %%shifted, %%ok : i1, i32\n",
        nk - 1);
  put(&b, "    llvm.return %s : i32\n", result);
  free(result);
  put(&b, "  ^bad:\n    llvm.return %%e1 : i32\n  }\n");
  put(&b, "  llvm.func @%s(%s%s)\n}\n", entry, types.s ? types.s : "",
      wsBytes > 0 ? (types.s ? ", !llvm.ptr, !llvm.ptr, i64, i64, i64" : "!llvm.ptr, !llvm.ptr, i64, i64, i64") : "");
  free(args.s);
  free(types.s);
  return b.s;
}

/*--- The header and the signature -------------------------------------------------*/

static void putShape(Buf *b, const Tensor *t, const char *sep) {
  for (int d = 0; d < t->rank; ++d)
    put(b, "%s%lld", d ? sep : "", (long long)t->dims[d]);
}

static char *signatureJson(const char *name, const Tensor *ts, int ni, int no, int64_t ws,
                           int threads) {
  Buf b = {NULL, 0, 0};
  put(&b, "{\"name\": \"%s\", \"workspace_bytes\": %lld, \"threads\": %d", name, (long long)ws,
      threads);
  for (int io = 0; io < 2; ++io) {
    put(&b, ", \"%s\": [", io ? "outputs" : "inputs");
    int base = io ? ni : 0, n = io ? no : ni;
    for (int i = 0; i < n; ++i) {
      const Tensor *t = &ts[base + i];
      put(&b, "%s{\"name\": \"%s%d\", \"dtype\": \"%s\", \"shape\": [", i ? ", " : "",
          io ? "output" : "input", i, kDTypes[t->dtype].numpy);
      putShape(&b, t, ", ");
      put(&b, "]}");
    }
    put(&b, "]");
  }
  put(&b, "}");
  return b.s;
}

static char *headerText(const char *name, const char *source, const char *entry,
                        const Tensor *ts, int ni, int no, const DlcMemoryPlan *plan,
                        int threads, const char *isa, intptr_t nChecks, char *const *checks) {
  char up[128];
  size_t k = 0;
  for (; name[k] && k < sizeof up - 1; ++k)
    up[k] = (char)toupper((unsigned char)name[k]);
  up[k] = 0;
  char *parallel = threads > 1 ? dlcFormat("   Parallel (OpenMP, libomp): %s_run sets the calling thread's OpenMP\n"
                                        "   thread count to %d (omp_set_num_threads).\n", name, threads)
                               : dlcFormat("%s", "");
  Buf b = {NULL, 0, 0};
  put(&b,
      "/* %s.h: the C ABI of lib%s.so / %s.o, generated by dlc-compile from %s\n"
      "   (entry @%s, isa %s, %d thread%s). Plain C99; do not edit.\n"
      "\n"
      "   STATIC MODEL: every shape below is fixed at compile time; inputs of other\n"
      "   shapes are not supported (there is no %s_run_dynamic).\n"
      "\n"
      "   int %s_run(const void *const *inputs, void *const *outputs, void *workspace);\n"
      "     inputs[i]: %s_NUM_INPUTS dense row-major buffers of the shapes and dtypes\n"
      "     below (read only); outputs[i]: %s_NUM_OUTPUTS such buffers, written, each\n"
      "     a buffer of its own (overlapping an input or another output: error 3).\n"
      "     workspace: %s_workspace_size() bytes (64-byte alignment recommended), or\n"
      "     NULL: the library then allocates and frees one for the call.\n"
      "     Returns %s_OK (0) or an error code; %s_error_string(code) describes it.\n"
      "   Reentrant: the library has no mutable state (weights are read-only data), so\n"
      "   threads may call %s_run at once, each with its own workspace (or NULL).\n"
      "%s"
      "   %s_signature() returns the same description as JSON (for loaders).\n"
      "\n"
      "   Memory: workspace %lld bytes (peak of the planned arena; one buffer per\n"
      "   temporary would take %lld), weights %lld bytes. */\n"
      "\n"
      "#ifndef %s_H_\n#define %s_H_\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
      name, name, name, source, entry, isa, threads, threads == 1 ? "" : "s", name, name, up,
      up, name, up, name, name,
      parallel,
      name, (long long)plan->workspaceBytes, (long long)plan->naiveBytes,
      (long long)plan->weightsBytes, up, up);
  free(parallel);
  put(&b, "#ifndef DLC_AOT_DTYPES\n#define DLC_AOT_DTYPES\n/* Element types (as dlc's DlcDType). */\n"
          "enum { DLC_AOT_F32 = 0, DLC_AOT_F16 = 1, DLC_AOT_BF16 = 2, DLC_AOT_F64 = 3,\n"
          "       DLC_AOT_BOOL = 4, DLC_AOT_I8 = 5, DLC_AOT_I32 = 6, DLC_AOT_I64 = 7 };\n#endif\n\n"
          "#if defined(__GNUC__)\n#define %s_UNUSED __attribute__((unused))\n#else\n#define %s_UNUSED\n#endif\n\n",
      up, up);
  put(&b, "enum { %s_OK = 0, %s_ERROR_NULL_ARGUMENT = 1, %s_ERROR_WORKSPACE_ALLOC = 2,\n"
          "       %s_ERROR_OVERLAP = 3, %s_ERROR_CHECK = 4 };\n\n", up, up, up, up, up);
  put(&b, "/* Run-time checks: %s_run returns %s_ERROR_CHECK + k - 1 when check k\n"
          "   fails (the outputs are then not to be used); %s_error_string names it. */\n"
          "#define %s_NUM_CHECKS %ld\n",
      name, up, name, up, (long)nChecks);
  for (intptr_t k = 0; k < nChecks; ++k) {
    put(&b, "/* check %ld (code %ld): ", (long)k + 1, (long)(4 + k));
    for (const char *c = checks[k]; *c; ++c) /* no comment end inside */
      put(&b, "%c", c[0] == '*' && c[1] == '/' ? '+' : *c);
    put(&b, " */\n");
  }
  put(&b, "\n");
  put(&b, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n#define %s_WORKSPACE_BYTES %lld\n"
          "#define %s_WEIGHTS_BYTES %lld\n#define %s_THREADS %d\n\n",
      up, ni, up, no, up, (long long)plan->workspaceBytes, up, (long long)plan->weightsBytes, up,
      threads);
  for (int i = 0; i < ni + no; ++i) {
    const Tensor *t = &ts[i];
    bool in = i < ni;
    int j = in ? i : i - ni;
    const char *W = in ? "INPUT" : "OUTPUT", *w = in ? "input" : "output";
    put(&b, "/* %s %d: %s[", w, j, kDTypes[t->dtype].mlir);
    putShape(&b, t, "x");
    put(&b, "] */\n#define %s_%s%d_NAME \"%s%d\"\n#define %s_%s%d_DTYPE DLC_AOT_%s\n"
            "#define %s_%s%d_RANK %d\n#define %s_%s%d_ELEMENTS %lld\n#define %s_%s%d_BYTES %lld\n",
        up, W, j, w, j, up, W, j, kDTypes[t->dtype].c, up, W, j, t->rank, up, W, j,
        (long long)dlcTensorTypeNumElements(t), up, W, j, (long long)tensorBytes(t));
    put(&b, "static const int64_t %s_%s%d_SHAPE[%d] %s_UNUSED = {", up, W, j,
        t->rank ? t->rank : 1, up);
    if (t->rank)
      putShape(&b, t, ", ");
    else
      put(&b, "0 /* rank 0 */");
    put(&b, "};\n\n");
  }
  for (int io = 0; io < 2; ++io) {
    const char *W = io ? "OUTPUT" : "INPUT", *w = io ? "output" : "input";
    int base = io ? ni : 0, n = io ? no : ni;
    if (!n) {
      put(&b, "/* no %ss: no %s tables */\n", w, w);
      continue;
    }
    put(&b, "/* Per-%s tables, for generic callers. */\n", w);
    put(&b, "static const char *const %s_%s_names[%d] %s_UNUSED = {", name, w, n, up);
    for (int i = 0; i < n; ++i)
      put(&b, "%s%s_%s%d_NAME", i ? ", " : "", up, W, i);
    put(&b, "};\nstatic const int %s_%s_dtypes[%d] %s_UNUSED = {", name, w, n, up);
    for (int i = 0; i < n; ++i)
      put(&b, "%s%s_%s%d_DTYPE", i ? ", " : "", up, W, i);
    put(&b, "};\nstatic const int %s_%s_ranks[%d] %s_UNUSED = {", name, w, n, up);
    for (int i = 0; i < n; ++i)
      put(&b, "%s%d", i ? ", " : "", ts[base + i].rank);
    put(&b, "};\nstatic const int64_t *const %s_%s_shapes[%d] %s_UNUSED = {", name, w, n, up);
    for (int i = 0; i < n; ++i)
      put(&b, "%s%s_%s%d_SHAPE", i ? ", " : "", up, W, i);
    put(&b, "};\nstatic const size_t %s_%s_bytes[%d] %s_UNUSED = {", name, w, n, up);
    for (int i = 0; i < n; ++i)
      put(&b, "%s%s_%s%d_BYTES", i ? ", " : "", up, W, i);
    put(&b, "};\n\n");
  }
  put(&b, "size_t %s_workspace_size(void);\n"
          "int %s_run(const void *const *inputs, void *const *outputs, void *workspace);\n"
          "const char *%s_error_string(int code);\n"
          "const char *%s_signature(void);\n\n"
          "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_H_ */\n",
      name, name, name, name, up);
  return b.s;
}

/*--- LLVM: translation, optimisation, object file, shared library ------------------*/

static const char *const kAbi[] = {"run", "workspace_size", "error_string", "signature"};

/* Whether `sym` is NAME_run or another function of the ABI. */
static bool isAbi(const char *sym, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof kAbi / sizeof *kAbi; ++i)
    if (!strncmp(sym, name, n) && sym[n] == '_' && !strcmp(sym + n + 1, kAbi[i]))
      return true;
  return false;
}

/* The library exports the ABI only: everything else defined becomes internal. */
static void internalize(LLVMModuleRef m, const char *name) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    if (!LLVMIsDeclaration(f) && !isAbi(LLVMGetValueName2(f, &len), name))
      LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g))
      LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* Marks every defined function for ThreadSanitizer's instrumentation. */
static void markSanitizeThread(LLVMModuleRef m, LLVMContextRef ctx) {
  unsigned kind = LLVMGetEnumAttributeKindForName("sanitize_thread", 15);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
}

/* The weights --dlc-external-weights took out of the module (its
   dlc.weights dictionary) go back into the library, each as one flat byte
   array: LLVM copies it in one piece, where the nested arrays of the
   original initializer cost it minutes for ResNet-50. */
static char *embedWeights(MlirModule module, LLVMModuleRef m, LLVMContextRef ctx) {
  MlirAttribute w = mlirOperationGetDiscardableAttributeByName(
      mlirModuleGetOperation(module), mlirStringRefCreateFromCString("dlc.weights"));
  if (mlirAttributeIsNull(w) || !mlirAttributeIsADictionary(w))
    return NULL;
  for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(w); ++i) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(w, i);
    MlirStringRef sym = mlirIdentifierStr(e.name);
    char *name = dlcFormat("%.*s", (int)sym.length, sym.data);
    LLVMValueRef decl = LLVMGetNamedGlobal(m, name);
    const void *data;
    size_t bytes;
    bool splat;
    if (!decl || !dlcElementsAttrGetRawData(e.attribute, &data, &bytes, &splat) || splat) {
      char *err = dlcFormat("weight '%s' has no declaration or no data to embed", name);
      free(name);
      return err;
    }
    LLVMValueRef init = LLVMConstStringInContext2(ctx, data, bytes, 1);
    LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), "");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, LLVMGetAlignment(decl) > 16 ? LLVMGetAlignment(decl) : 16);
    LLVMReplaceAllUsesWith(decl, g);
    LLVMDeleteGlobal(decl);
    LLVMSetValueName2(g, name, strlen(name));
    free(name);
  }
  return NULL;
}

static char *emitObject(MlirModule module, const char *name, const char *isa, const char *path,
                        bool tsan) {
  char *err = NULL, *msg = NULL;
  LLVMTargetMachineRef tm = dlcTargetMachineCreate(isa, false, 3, &err);
  if (!tm)
    return err;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(module), llctx);
  if (!m) {
    LLVMDisposeTargetMachine(tm);
    LLVMContextDispose(llctx);
    return dlcFormat("translation to LLVM IR failed");
  }
  if ((err = embedWeights(module, m, llctx)))
    goto done;
  internalize(m, name);
  if (tsan)
    markSanitizeThread(m, llctx);
  dlcModuleSetTarget(m, tm);
  /* The JIT's pipeline at the JIT's level (O3), so the library runs the
     code the JIT would; ThreadSanitizer's instrumentation after it. */
  LLVMErrorRef e = dlcOptimizeModule(m, tm, 3, tsan ? "tsan-module,function(tsan)" : NULL);
  if (e) {
    char *t = LLVMGetErrorMessage(e);
    err = dlcFormat("LLVM optimisation failed: %s", t);
    LLVMDisposeErrorMessage(t);
    goto done;
  }
  if (LLVMTargetMachineEmitToFile(tm, m, path, LLVMObjectFile, &msg)) {
    err = dlcFormat("cannot write %s: %s", path, msg ? msg : "?");
    goto done;
  }
done:
  if (msg)
    LLVMDisposeMessage(msg);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(m);
  LLVMContextDispose(llctx);
  return err;
}

/* Links the object into a shared library with the system's C compiler
   driver (LLVM's C API has no linker): `cc -shared`, else the clang that
   built dlc. */
static char *mutableString(const char *s) { return (char *)(uintptr_t)s; }

static char *linkShared(const char *obj, const char *lib, int threads) {
  static const char *const kDrivers[] = {"cc", DLC_FALLBACK_C_DRIVER};
  for (size_t d = 0; d < sizeof kDrivers / sizeof *kDrivers; ++d) {
    char *argv[] = {mutableString(kDrivers[d]), mutableString("-shared"), mutableString("-o"),
                    mutableString(lib), mutableString(obj), mutableString("-lm"),
                    threads > 1 ? mutableString("-l:libomp.so.5") : NULL, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, kDrivers[d], NULL, NULL, argv, environ) != 0)
      continue;
    int status;
    if (waitpid(pid, &status, 0) < 0)
      return dlcFormat("waiting for %s: %s", kDrivers[d], strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return NULL;
    return dlcFormat("linking %s with %s failed (status %d)", lib, kDrivers[d],
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return dlcFormat("no C compiler driver (cc or " DLC_FALLBACK_C_DRIVER ") to link %s", lib);
}

static char *writeFile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f)
    return dlcFormat("cannot write %s: %s", path, strerror(errno));
  fputs(text, f);
  if (fclose(f))
    return dlcFormat("cannot write %s: %s", path, strerror(errno));
  return NULL;
}

/*--- The entry point -------------------------------------------------------------------*/

static bool isIdentifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
    return false;
  for (; *s; ++s)
    if (!(isalnum((unsigned char)*s) || *s == '_'))
      return false;
  return true;
}

static bool declares(MlirModule m, MlirStringRef sym) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute s = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(s) && mlirStringRefEqual(mlirStringAttrGetValue(s), sym))
      return true;
  }
  return false;
}


bool dlcCompileToLibrary(const char *source, size_t length, const char *sourceName,
                         const char *outDir, const char *name, const DlcAotOptions *options,
                         DlcMemoryPlan *planOut, char **error) {
  DlcAotOptions dflt = {NULL, NULL, NULL, 1, true, NULL};
  const DlcAotOptions *o = options ? options : &dflt;
  const char *isa = o->isa ? o->isa : "host";
  int threads = o->threads > 1 ? o->threads : 1;
  char *err = NULL;
  if (o->target && strcmp(o->target, "cpu"))
    err = !strcmp(o->target, "cuda")
              ? dlcFormat("target 'cuda' is not yet supported by dlc-compile (only 'cpu')")
              : dlcFormat("unknown target '%s' (cpu or cuda)", o->target);
  else if (strcmp(isa, "host") && strcmp(isa, "avx2") && strcmp(isa, "avx512"))
    err = dlcFormat("unknown isa '%s' (host, avx2 or avx512)", isa);
  else if (o->sanitizer && (strcmp(o->sanitizer, "thread") || threads > 1))
    err = dlcFormat("sanitizer '%s' is not supported (only 'thread', with 1 thread: libomp is "
                 "not instrumented)", o->sanitizer);
  else if (!isIdentifier(name) || strlen(name) > 64)
    err = dlcFormat("the library name '%s' is not a C identifier of at most 64 characters",
                 name ? name : "");
  if (err) {
    *error = err;
    return false;
  }
  MlirContext ctx = dlcContextCreate();
  DlcDiagnostics *diags = dlcDiagnosticsAttach(ctx);
  Tensor *ts = NULL;
  char *paths[3] = {NULL, NULL, NULL}, *text = NULL, *sig = NULL;
  char entry[256] = "";
  int ni = 0, no = 0;
  intptr_t nChecks = 0;
  char **checks = NULL;
  DlcMemoryPlan plan;
  MlirModule module = dlcModuleParse(ctx, (MlirStringRef){source, length},
                                     sourceName ? sourceName : "<input>");
  if (mlirModuleIsNull(module)) {
    err = dlcDiagnosticsOr(diags, "cannot parse the module");
    goto done;
  }
  MlirOperation f = {NULL};
  if ((err = dlcFindEntry(module, o->entry, &f)))
    goto done;
  MlirStringRef sym = mlirStringAttrGetValue(mlirOperationGetAttributeByName(f, str("sym_name")));
  snprintf(entry, sizeof entry, "%.*s", (int)sym.length, sym.data);
  if ((err = dlcEntryAddChecks(module, f, &nChecks, &checks))) {
    char *why = dlcDiagnosticsOr(diags, err); /* the pass's own error, naming the op */
    free(err);
    err = why;
    goto done;
  }
  MlirType ft = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(f, str("function_type")));
  ni = (int)mlirFunctionTypeGetNumInputs(ft);
  no = (int)mlirFunctionTypeGetNumResults(ft) - (nChecks > 0);
  ts = dlcXcalloc((size_t)(ni + no) + 2, sizeof *ts);
  for (int i = 0; i < ni && !err; ++i)
    err = readTensor(mlirFunctionTypeGetInput(ft, i), "input", i, &ts[i]);
  for (int i = 0; i < no && !err; ++i)
    err = readTensor(mlirFunctionTypeGetResult(ft, i), "result", i, &ts[ni + i]);
  if (err)
    goto done;
  /* A padded result counted at run time (dlg.non_max_suppression's, marked
     dlc.count by the importer): the library's C ABI has no way yet to say
     which rows are data, so it is refused rather than returned padded. */
  MlirAttribute resAttrs = mlirOperationGetAttributeByName(f, str("res_attrs"));
  for (int i = 0; !mlirAttributeIsNull(resAttrs) && mlirAttributeIsAArray(resAttrs) &&
                  i < (int)mlirArrayAttrGetNumElements(resAttrs); ++i) {
    MlirAttribute d = mlirArrayAttrGetElement(resAttrs, i);
    if (mlirAttributeIsADictionary(d) &&
        !mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(d, str("dlc.count")))) {
      err = dlcFormat("result %d has a number of rows known only at run time (dlc.count, as "
                      "NonMaxSuppression's selected indices): an AOT library cannot return it "
                      "yet; use the JIT (dlc.compile without output=)", i);
      goto done;
    }
  }
  if (isAbi(entry, name)) {
    err = dlcFormat("the entry @%s clashes with the library's own %s; choose another --name",
                 entry, entry);
    goto done;
  }
  char pipeline[256];
  snprintf(pipeline, sizeof pipeline, "builtin.module(lower-to-llvm{target=%s parallel=%s})",
           isa, threads > 1 ? "true" : "false");
  int compileThreads = dlcJitThreads(&err); /* the passes' threads, as the JIT's */
  if (err)
    goto done;
  if (mlirLogicalResultIsFailure(
          dlcRunPipelineThreaded(mlirModuleGetOperation(module), pipeline, compileThreads))) {
    err = dlcDiagnosticsOr(diags, "compilation failed");
    goto done;
  }
  dlcModuleMemoryPlan(module, entry, &plan);
  sig = signatureJson(name, ts, ni, no, plan.workspaceBytes, threads);
  text = wrapperSource(name, entry, ts, ni, no, plan.workspaceBytes, threads, sig, nChecks,
                       checks);
  MlirModule wrapper = dlcModuleParse(ctx, str(text), "<dlc-compile wrapper>");
  if (mlirModuleIsNull(wrapper)) {
    err = dlcDiagnosticsOr(diags, "internal error: the ABI wrapper does not parse");
    goto done;
  }
  MlirBlock dst = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(wrapper)), next;
       !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    MlirAttribute s = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (declares(module, mlirStringAttrGetValue(s)))
      continue; /* a declaration of what the module has */
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(dst, op);
  }
  mlirModuleDestroy(wrapper);
  if (!mlirOperationVerify(mlirModuleGetOperation(module))) {
    err = dlcDiagnosticsOr(diags, "internal error: the module with its ABI wrapper does not verify");
    goto done;
  }
  paths[0] = dlcFormat("%s/%s.o", outDir, name);
  paths[1] = dlcFormat("%s/lib%s.so", outDir, name);
  paths[2] = dlcFormat("%s/%s.h", outDir, name);
  if ((err = emitObject(module, name, isa, paths[0], o->sanitizer != NULL)))
    goto done;
  if (o->sharedLibrary && (err = linkShared(paths[0], paths[1], threads)))
    goto done;
  free(text);
  text = headerText(name, sourceName ? sourceName : "<input>", entry, ts, ni, no, &plan,
                    threads, isa, nChecks, checks);
  if ((err = writeFile(paths[2], text)))
    goto done;
  if (planOut)
    *planOut = plan;
done:
  dlcDiagnosticsDetach(ctx, diags);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  free(ts);
  free(text);
  free(sig);
  dlcFreeChecks(checks, nChecks);
  for (int i = 0; i < 3; ++i)
    free(paths[i]);
  if (err) {
    *error = err;
    return false;
  }
  return true;
}
