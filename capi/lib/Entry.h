/*===-- capi/lib/Entry.h - A module's entry function and its types -*- C -*-===*\
|*                                                                            *|
|* Internal to libdlc: what the JIT (Compile.c) and the AOT compiler          *|
|* (Aot.c) both read from a module before lowering it: the entry function     *|
|* and its tensor types, with the errors a user sees for each. Messages are   *|
|* malloc'd (free them); NULL means success.                                  *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_CAPI_LIB_ENTRY_H
#define DLC_CAPI_LIB_ENTRY_H

#include "dlc-c/Compile.h"
#include "dlc-c/Text.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/* printf into a malloc'd string (one line naming the size and abort when
   memory runs out, as dlcXmalloc). */
char *dlcFormat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The diagnostics collected so far as a message, else `fallback` (a copy). */
char *dlcDiagnosticsOr(const DlcDiagnostics *d, const char *fallback);

/* The DlcDType of an MLIR element type; false for one dlc does not run. */
bool dlcElementDType(MlirType element, DlcDType *out);

/* `what` `i` of the entry ("input 0", "result 1") as a DlcTensorType
   (DLC_DYNAMIC_DIM for `?`): not a ranked tensor of a supported element
   type, a rank over DLC_MAX_RANK or more than INT64_MAX bytes is a message. */
char *dlcReadTensorType(MlirType t, const char *what, intptr_t i, DlcTensorType *out);

/* A func.func's sym_name. */
MlirStringRef dlcFuncSymName(MlirOperation f);

/* The entry function with a body: the one named `want` (when not NULL), the
   only public one, or main; otherwise a message naming the functions. */
char *dlcFindEntry(MlirModule m, const char *want, MlirOperation *out);

/* The entry's run-time checks (passes/dlg_runtime_checks.c), added to
   `entry` in `m`: when it has any, its last result becomes the status (a
   0-d i32: 0, or the number of the check that failed) and *messages
   (malloc'd, as each string; free with dlcFreeChecks) holds one per
   check; *numChecks 0 leaves the entry as it was. A message on failure. */
char *dlcEntryAddChecks(MlirModule m, MlirOperation entry, intptr_t *numChecks,
                        char ***messages);
void dlcFreeChecks(char **messages, intptr_t numChecks);

#endif /* DLC_CAPI_LIB_ENTRY_H */
