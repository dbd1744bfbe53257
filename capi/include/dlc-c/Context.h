/*===-- dlc-c/Context.h - A context ready for dlc ------------------*- C -*-===*/

#ifndef DLC_C_CONTEXT_H
#define DLC_C_CONTEXT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A context with every upstream dialect and extension plus dlg and dlk
   registered, dlg/dlk/func loaded, and every dlc and upstream pass
   registered (so textual pipelines parse). Destroy with mlirContextDestroy. */
MLIR_CAPI_EXPORTED MlirContext dlcContextCreate(void);

/* `op` (a module) as MLIR bytecode, malloc'd, its size in *length; NULL
   when the op does not verify (print it as text for the diagnostics).
   dlcModuleParse and dlcProgramCompile take bytecode in place of text:
   large dense_resource weights travel as raw bytes instead of hex text.
   Release with dlcStringFree. */
MLIR_CAPI_EXPORTED char *dlcOperationToBytecode(MlirOperation op, size_t *length);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_CONTEXT_H */
