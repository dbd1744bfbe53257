/* One LLVM TargetMachine setup for the JIT (jit_engine.c) and dlc-compile
   (Aot.c), so both compile for the same CPU with the same options. */
#ifndef DLC_CAPI_JIT_TARGET_H
#define DLC_CAPI_JIT_TARGET_H

#include "llvm-c/Error.h"
#include "llvm-c/TargetMachine.h"

#include <stdbool.h>

/* Registers the X86 target once (thread-safe). */
void dlcInitializeLLVMTarget(void);

/* A TargetMachine for `isa`: "host" is the machine compiling (its CPU name
   and features, as -mcpu=native and MLIR's ExecutionEngine), "avx2" is
   x86-64-v3, "avx512" x86-64-v4. `jit`: code for in-process linking, as
   llvm::orc::JITTargetMachineBuilder::detectHost() makes it (default
   relocation model, the JIT code model); otherwise position-independent
   code for a shared library. `optLevel` 0..3 is the code generation level.
   Returns NULL and sets *error (free()) on failure. */
LLVMTargetMachineRef dlcTargetMachineCreate(const char *isa, bool jit, int optLevel,
                                            char **error);

/* Whether this CPU runs `isa`'s code ("host" always; "avx2" needs AVX2 and
   FMA, "avx512" AVX-512 F/BW/DQ/VL/CD, x86-64-v4's set): NULL, or an error
   (free()) naming what is missing, for code compiled to run here (the JIT). */
char *dlcTargetCheckHost(const char *isa);

/* Optimises `m` for `tm` as the JIT and dlc-compile both do, so an AOT
   library runs the JIT's code: default<O`optLevel`> with loop unrolling,
   loop interleaving, loop and SLP vectorisation on (what MLIR's
   ExecutionEngine asks for in makeOptimizingTransformer; LLVM's own
   defaults leave SLP off), then the passes in `after` (a pass pipeline
   text, or NULL). Returns the error, or NULL. */
LLVMErrorRef dlcOptimizeModule(LLVMModuleRef m, LLVMTargetMachineRef tm, int optLevel,
                               const char *after);

/* Sets `m`'s triple and data layout from `tm` (ExecutionEngine's
   setupTargetTripleAndDataLayout). */
void dlcModuleSetTarget(LLVMModuleRef m, LLVMTargetMachineRef tm);

#endif
