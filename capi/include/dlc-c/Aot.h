/*===-- dlc-c/Aot.h - Compile a model to a self-contained library -*- C -*-===*\
|*                                                                            *|
|* Ahead-of-time compilation: a static model becomes DIR/NAME.o (a           *|
|* position-independent object), DIR/libNAME.so and DIR/NAME.h, the C99      *|
|* header documenting its ABI:                                               *|
|*                                                                            *|
|*   size_t NAME_workspace_size(void);                                       *|
|*   int NAME_run(const void *const *inputs, void *const *outputs,           *|
|*                void *workspace);                                          *|
|*   const char *NAME_error_string(int code);                                *|
|*   const char *NAME_signature(void);   (JSON: names, dtypes, shapes)       *|
|*                                                                            *|
|* The code goes through lower-to-llvm, MLIR's translation to LLVM IR and    *|
|* LLVM's target machine (C APIs, in process); only linking the .so runs a   *|
|* tool, the system's C compiler driver (`cc`, else clang-22), because LLVM  *|
|* has no linker behind its C API. The library needs libc and libm, and      *|
|* libomp when threads > 1; weights are read-only data and nothing in it is  *|
|* mutable, so NAME_run is reentrant.                                        *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_AOT_H
#define DLC_C_AOT_H

#include "dlc-c/Compile.h"

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct DlcAotOptions {
  const char *entry;  /* NULL: the only public function, else "main" */
  const char *isa;    /* "host" (NULL), "avx2" or "avx512" */
  const char *target; /* "cpu" (NULL); "cuda" is refused (not yet supported) */
  int threads;        /* OpenMP threads; <= 1: serial code, no libomp */
  bool sharedLibrary; /* also link DIR/libNAME.so (the .o and .h always) */
  const char *sanitizer; /* NULL, or "thread": the model's code instrumented
                            for ThreadSanitizer (tests; link with
                            -fsanitize=thread, threads must be 1) */
} DlcAotOptions;

/* The plan --dlc-memory-plan recorded on function `entry` of a lowered
   module (also used by dlcProgram) (zeros when it planned nothing: then no workspace argument). */
MLIR_CAPI_EXPORTED void dlcModuleMemoryPlan(MlirModule lowered, const char *entry,
                                            DlcMemoryPlan *plan);

/* Compiles `source` (dlg or later MLIR) into DIR/NAME.{h,o} and
   DIR/libNAME.so. `name` must be a C identifier. On success fills `plan`
   (when given) and returns true; otherwise false with a malloc'd message in
   *error (release with free). */
MLIR_CAPI_EXPORTED bool dlcCompileToLibrary(const char *source, size_t length,
                                            const char *sourceName, const char *outDir,
                                            const char *name, const DlcAotOptions *options,
                                            DlcMemoryPlan *plan, char **error);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_AOT_H */
