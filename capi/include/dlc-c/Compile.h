/*===-- dlc-c/Compile.h - Compile a model and run it in process ---*- C -*-===*\
|*                                                                            *|
|* A DlcProgram is a module compiled through a pass pipeline (by default     *|
|* lower-to-llvm) and JIT-compiled on every core (DLC_COMPILE_THREADS=N sets *|
|* the number; capi/lib/jit_engine.c). Its entry is called with              *|
|* caller-owned dense row-major buffers:                                     *|
|*                                                                            *|
|*   char *err = NULL;                                                       *|
|*   DlcProgram *p = dlcProgramCompile(text, len, "model.mlir", NULL, &err); *|
|*   DlcTensor in = {dlcProgramInput(p, 0), x}, out = {dlcProgramOutput(p, 0), y}; *|
|*   dlcProgramRun(p, &in, &out, msg, sizeof msg);                           *|
|*   dlcProgramDestroy(p);                                                   *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_COMPILE_H
#define DLC_C_COMPILE_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { DLC_MAX_RANK = 16 };
/* A dimension of a declared input or output fixed only by the inputs given
   at run time (a `?` in the entry's type). */
enum { DLC_DYNAMIC_DIM = -1 };

typedef enum DlcDType {
  DLC_F32, DLC_F16, DLC_BF16, DLC_F64, DLC_I1, DLC_I8, DLC_I32, DLC_I64,
} DlcDType;

typedef struct DlcTensorType {
  DlcDType dtype;
  int32_t rank;
  int64_t dims[DLC_MAX_RANK];
} DlcTensorType;

typedef struct DlcTensor {
  DlcTensorType type;
  void *data; /* dense, row-major, owned by the caller */
} DlcTensor;

typedef struct DlcCompileOptions {
  const char *entry;    /* NULL: the only public function, else "main" */
  const char *pipeline; /* NULL: "builtin.module(lower-to-llvm)" */
  int threads;          /* worker threads, 0: all cores */
  int optLevel;         /* LLVM -O level for the JIT, default 3 */
  bool profile;         /* time each kernel (lower-to-llvm{profile=true} unless a
                           pipeline is given, which must then include it) */
} DlcCompileOptions;

typedef struct DlcProgram DlcProgram;

/* Parses, lowers and JIT-compiles `source`. On failure returns NULL and, when
   `error` is given, a malloc'd message with MLIR's diagnostics (release with
   free). */
MLIR_CAPI_EXPORTED DlcProgram *dlcProgramCompile(const char *source, size_t length,
                                                 const char *sourceName,
                                                 const DlcCompileOptions *options,
                                                 char **error);
MLIR_CAPI_EXPORTED void dlcProgramDestroy(DlcProgram *p);

/* Declared types; DLC_DYNAMIC_DIM marks a dynamic dimension. A program
   whose inputs have dynamic dimensions is compiled once per set of input
   shapes, at the first call with them (the last 8 are kept). */
MLIR_CAPI_EXPORTED intptr_t dlcProgramNumInputs(const DlcProgram *p);
MLIR_CAPI_EXPORTED intptr_t dlcProgramNumOutputs(const DlcProgram *p);
MLIR_CAPI_EXPORTED DlcTensorType dlcProgramInput(const DlcProgram *p, intptr_t i);
MLIR_CAPI_EXPORTED DlcTensorType dlcProgramOutput(const DlcProgram *p, intptr_t i);
/* The output whose value counts output i's valid rows (the entry's result
   attribute `dlc.count = <index>`, as dlg.non_max_suppression's padded
   result has): only the first `count` rows along dim 0 of output i are
   data, the rest is padding. -1 when output i is all data. */
MLIR_CAPI_EXPORTED intptr_t dlcProgramOutputCountedBy(const DlcProgram *p, intptr_t i);
/* The dim of output i that its count counts: 0 unless the entry's result
   attribute `dlc.count_dim` says otherwise (dlg.non_zero's indices are
   counted along dim 1); meaningful where dlcProgramOutputCountedBy >= 0. */
MLIR_CAPI_EXPORTED intptr_t dlcProgramOutputCountedDim(const DlcProgram *p, intptr_t i);

/* The output types for inputs of types `inputs` (static), compiling the
   variant for those shapes if needed. False with a message when an input
   does not fit its declaration or the variant fails to compile. */
MLIR_CAPI_EXPORTED bool dlcProgramResolve(DlcProgram *p, const DlcTensorType *inputs,
                                          DlcTensorType *outputs, char *error,
                                          size_t errorLength);
/* Runs the entry on `inputs` writing into `outputs` (caller-allocated with
   the types dlcProgramResolve gives, each a buffer of its own: an output
   overlapping an input or another output is refused, as dlc does not
   compute in place). Returns false with a message naming the bad input or
   output otherwise. Thread-safe: several threads may run
   one program at once. The compiled code keeps no mutable globals; its
   temporaries live in a workspace (the arena of --dlc-memory-plan) that
   each call takes from the program's pool, allocating one when all are in
   use. A dynamic program compiles a missing variant under a lock (other
   shapes' calls wait for it, calls of compiled variants do not). Programs
   may also be compiled in several threads at once (each has its own MLIR
   context). */
MLIR_CAPI_EXPORTED bool dlcProgramRun(DlcProgram *p, const DlcTensor *inputs,
                                      DlcTensor *outputs, char *error, size_t errorLength);

/* The memory plan of the variant for `inputs` (NULL: the declared types
   of a static program): the workspace's bytes (0: no workspace), the
   planned arena's peak, the naive sum of one buffer per temporary, the
   weights (constant data) and how many temporaries were planned or left
   as allocs (dynamic shape, escaping, inside loops: not counted). Zeros
   when the pipeline has no dlc-memory-plan. */
typedef struct DlcMemoryPlan {
  int64_t workspaceBytes, peakBytes, naiveBytes, weightsBytes, temporaries, unplanned;
} DlcMemoryPlan;
MLIR_CAPI_EXPORTED bool dlcProgramMemory(DlcProgram *p, const DlcTensorType *inputs,
                                         DlcMemoryPlan *plan, char *error,
                                         size_t errorLength);

/* The per-kernel profile of a program compiled with `profile` (the
   variant run last): the runs since the last reset, as a table (malloc'd
   text, one row per kernel: kind, root op and shapes, time and share,
   GFLOP/s or GB/s, % of the machine's roofline), or written to `path` as a
   Chrome trace. NULL / false with a message for a program without it. */
MLIR_CAPI_EXPORTED char *dlcProgramProfileTable(DlcProgram *p, char *error, size_t errorLength);
MLIR_CAPI_EXPORTED bool dlcProgramProfileTrace(DlcProgram *p, const char *path, char *error,
                                               size_t errorLength);
MLIR_CAPI_EXPORTED void dlcProgramProfileReset(DlcProgram *p);

/* Bytes per element, the name ("f32", ...), element count and byte count;
   the counts are -1 for a dynamic or negative dim or when they do not fit
   in int64_t (never a wrapped product). */
MLIR_CAPI_EXPORTED size_t dlcDTypeSize(DlcDType t);
MLIR_CAPI_EXPORTED const char *dlcDTypeName(DlcDType t);
MLIR_CAPI_EXPORTED int64_t dlcTensorTypeNumElements(const DlcTensorType *t);
MLIR_CAPI_EXPORTED int64_t dlcTensorTypeNumBytes(const DlcTensorType *t);
/* Formats a type as "f32[4x16]" ("f32[?x16]" when dynamic) into buf. */
MLIR_CAPI_EXPORTED const char *dlcTensorTypeFormat(const DlcTensorType *t, char *buf,
                                                   size_t length);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_COMPILE_H */
