/*===-- dlc-c/Text.h - Diagnostics and IR as plain text -----------*- C -*-===*\
|*                                                                            *|
|* Growable text for MLIR's string callbacks, diagnostics collected as text  *|
|* and an op's textual form: for passes that build transform scripts or     *|
|* pipelines as text, and for hosts without C callbacks (Python's ctypes).   *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_TEXT_H
#define DLC_C_TEXT_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- For hosts without C callbacks (Python's ctypes) ------------------------*/

/* Collects the diagnostics emitted on a context as text, one per line
   ("file:line:col: error: message"), until detached. */
typedef struct DlcDiagnostics DlcDiagnostics;
MLIR_CAPI_EXPORTED DlcDiagnostics *dlcDiagnosticsAttach(MlirContext ctx);
/* The text collected so far (valid until the next diagnostic or clear). */
MLIR_CAPI_EXPORTED const char *dlcDiagnosticsText(const DlcDiagnostics *d);
MLIR_CAPI_EXPORTED void dlcDiagnosticsClear(DlcDiagnostics *d);
MLIR_CAPI_EXPORTED void dlcDiagnosticsDetach(MlirContext ctx, DlcDiagnostics *d);

/* A growable string that MLIR's string callbacks fill: pass dlcTextAppend
   as the MlirStringCallback and the DlcText as its user data. */
typedef struct DlcText {
  char *data;
  size_t len, cap;
} DlcText;
MLIR_CAPI_EXPORTED void dlcTextAppend(MlirStringRef s, void *text);
/* The text so far ("" when empty); release with dlcTextFree. */
MLIR_CAPI_EXPORTED const char *dlcTextGet(const DlcText *t);
MLIR_CAPI_EXPORTED void dlcTextFree(DlcText *t);

/* The op's textual form, malloc'd; release with dlcStringFree. */
MLIR_CAPI_EXPORTED char *dlcOperationToString(MlirOperation op, bool generic);
MLIR_CAPI_EXPORTED void dlcStringFree(char *s);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_TEXT_H */
