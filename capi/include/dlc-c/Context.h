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

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_CONTEXT_H */
