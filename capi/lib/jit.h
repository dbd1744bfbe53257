/* The split JIT (jit_split.c, jit_engine.c): an LLVM-dialect module cut
   into parts that are translated, optimised and compiled to objects on
   their own threads, then linked in one ORC LLJIT. It does what MLIR's
   ExecutionEngine does for dlc (see jit_engine.c) on all cores. */
#ifndef DLC_CAPI_JIT_H
#define DLC_CAPI_JIT_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct DlcJit DlcJit;

/* A symbol the compiled code finds at a host address (weights, the
   profiler's hooks), as ExecutionEngine::registerSymbol. */
typedef struct {
  const char *name;
  void *address;
} DlcJitSymbol;

typedef struct {
  const char *isa;          /* NULL or "host": this CPU; "avx2", "avx512": x86-64-v3, v4
                               (lower-to-llvm's target, as the module's dlc.target says) */
  int optLevel;             /* 0..3, the IR pipeline and code generation level */
  int threads;              /* parts compiled at once (dlcJitThreads) */
  const char *const *libs;  /* shared libraries the code may call */
  int numLibs;
  const DlcJitSymbol *symbols;
  size_t numSymbols;
} DlcJitOptions;

/* The compile threads: DLC_COMPILE_THREADS if set (a positive integer,
   else an error in *error), otherwise the cores this process may run on. */
int dlcJitThreads(char **error);

/* Whether the split JIT can compile `module`: not when it has global
   constructors or destructors (a GPU program's module loading), which
   only MLIR's ExecutionEngine runs. */
bool dlcJitSupports(MlirModule module);

/* Compiles `module` (LLVM dialect) and returns the packed entry
   `_mlir_<entry>(void **args)` in *invoke. With DLC_JIT_DEBUG set it
   prints to stderr the parts, the threads started and each part's
   thread CPU time per stage and wall interval; DLC_JIT_DUMP_OBJECTS=DIR
   writes each part's object to DIR/part<k>.o (as ExecutionEngine's
   object dump, to read the machine code). The module's function bodies
   and global definitions are moved into the parts: afterwards `module` is
   a husk, only fit for mlirModuleDestroy. On failure returns an error
   (free()) and *out is NULL. */
char *dlcJitCreate(MlirModule module, const char *entry, const DlcJitOptions *options,
                   DlcJit **out, void (**invoke)(void **));

void dlcJitDestroy(DlcJit *jit);

/*--- The split (jit_split.c) ------------------------------------------------------*/

/* One part: a module of its own, and the names of the symbols it defines
   with local linkage that must become external (hidden) so the other parts
   link to them. */
typedef struct {
  MlirModule module;
  bool owned;       /* a new module (destroy it), or the input itself */
  char **exported;  /* symbol names, dlcXmalloc'd */
  size_t numExported;
  bool hasEntry;
  long ops;         /* its functions' operations: the size balanced */
} DlcJitPart;

/* Cuts `module` into at most `maxParts` parts of about equal size
   (operations), each function defined in exactly one. Returns the number
   of parts in *numParts (1: the module itself); NULL or an error. */
char *dlcJitSplit(MlirModule module, const char *entry, int maxParts, DlcJitPart **parts,
                  int *numParts);

void dlcJitPartsDestroy(DlcJitPart *parts, int numParts);

#endif
