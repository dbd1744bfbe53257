/* The LLVM TargetMachine shared by the JIT and dlc-compile (jit_target.h). */

#include "jit_target.h"
#include "Entry.h"

#include "llvm-c/Core.h"
#include "llvm-c/Target.h"
#include "llvm-c/Transforms/PassBuilder.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <threads.h>

static once_flag llvmInitialized = ONCE_FLAG_INIT;

static void initializeLLVM(void) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  LLVMInitializeX86AsmParser(); /* inline assembly, as ExecutionEngine */
}

void dlcInitializeLLVMTarget(void) { call_once(&llvmInitialized, initializeLLVM); }

static LLVMCodeGenOptLevel codeGenLevel(int optLevel) {
  static const LLVMCodeGenOptLevel kLevels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                LLVMCodeGenLevelDefault,
                                                LLVMCodeGenLevelAggressive};
  return kLevels[optLevel < 0 ? 0 : optLevel > 3 ? 3 : optLevel];
}

char *dlcTargetCheckHost(const char *isa) {
  static const char *const kV3[] = {"avx2", "fma", "bmi2", NULL};
  static const char *const kV4[] = {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd",
                                    NULL};
  const char *const *need = !strcmp(isa, "avx2") ? kV3 : !strcmp(isa, "avx512") ? kV4 : NULL;
  if (!need)
    return NULL;
  dlcInitializeLLVMTarget();
  char *features = LLVMGetHostCPUFeatures(); /* "+avx2,-avx512f,..." */
  char *list = dlcFormat(",%s,", features);   /* each entry ,+name, */
  char *err = NULL;
  for (; *need && !err; ++need) {
    char want[32];
    snprintf(want, sizeof want, ",+%s,", *need);
    if (!strstr(list, want))
      err = dlcFormat("target %s: this CPU has no %s, so code for %s cannot run here (the "
                      "JIT runs what it compiles; dlc-compile --isa %s builds a library for "
                      "another machine)",
                      isa, *need, isa, isa);
  }
  free(list);
  LLVMDisposeMessage(features);
  return err;
}

LLVMTargetMachineRef dlcTargetMachineCreate(const char *isa, bool jit, int optLevel,
                                            char **error) {
  dlcInitializeLLVMTarget();
  *error = NULL;
  bool host = !strcmp(isa, "host");
  char *triple = LLVMGetDefaultTargetTriple();
  /* the x86-64 micro-architecture levels: v3 has AVX2+FMA, v4 AVX-512 */
  char *cpu = host ? LLVMGetHostCPUName()
                   : LLVMCreateMessage(!strcmp(isa, "avx512") ? "x86-64-v4" : "x86-64-v3");
  char *features = host ? LLVMGetHostCPUFeatures() : LLVMCreateMessage("");
  LLVMTargetRef target;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg))
    *error = dlcFormat("no LLVM target for %s: %s", triple, msg ? msg : "?");
  else
    /* LLVMCodeModelJITDefault is the C API's way to say "JIT": the X86
       target then picks what the ORC JIT gets (static relocations, the
       large code model), so objects link anywhere in the address space. */
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, codeGenLevel(optLevel),
                                 jit ? LLVMRelocDefault : LLVMRelocPIC,
                                 jit ? LLVMCodeModelJITDefault : LLVMCodeModelDefault);
  if (!tm && !msg && !*error)
    *error = dlcFormat("cannot create an LLVM target machine for %s (cpu %s)", triple, cpu);
  LLVMDisposeMessage(msg);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return tm;
}

void dlcModuleSetTarget(LLVMModuleRef m, LLVMTargetMachineRef tm) {
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(m, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, layout);
  LLVMDisposeTargetData(layout);
}

LLVMErrorRef dlcOptimizeModule(LLVMModuleRef m, LLVMTargetMachineRef tm, int optLevel,
                               const char *after) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, 1);
  LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
  int level = optLevel < 0 ? 0 : optLevel > 3 ? 3 : optLevel;
  char *pipeline = after && *after ? dlcFormat("default<O%d>,%s", level, after)
                                   : dlcFormat("default<O%d>", level);
  LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, po);
  free(pipeline);
  LLVMDisposePassBuilderOptions(po);
  return e;
}
