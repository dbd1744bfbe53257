/*===-- dlc-c/Dialects.h - dlg and dlk dialect handles ------------*- C -*-===*\
|*                                                                            *|
|* The C face of the dlc dialects (dialects/lib/Dialects.cpp): registration, *|
|* parsing, the #dlk.schedule attribute and constant payloads. Used by the   *|
|* passes and by the public C API (capi/); a context with everything         *|
|* registered is dlcContextCreate in dlc-c/Context.h.                        *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_DIALECTS_H
#define DLC_C_DIALECTS_H

#include "dlc-c/Text.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dlg, dlg);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dlk, dlk);

/* Inserts dlg and dlk into `registry`. */
MLIR_CAPI_EXPORTED void dlcRegisterDialects(MlirDialectRegistry registry);

/* Parses `source` (named `sourceName` in diagnostics), verifies it and
   returns the module; null after printing diagnostics to stderr. */
MLIR_CAPI_EXPORTED MlirModule dlcModuleParse(MlirContext ctx,
                                             MlirStringRef source,
                                             const char *sourceName);

/* Whether `source` (MLIR text; bytecode passes) holds text MLIR 22's parser
   crashes on rather than diagnoses: a dense array of index elements,
   written `array<index ...>` or through a type alias of index. Then an
   error at its line and column in `sourceName` has been emitted on `ctx`.
   dlcModuleParse checks this itself; dlc-opt before MlirOptMain. */
MLIR_CAPI_EXPORTED bool dlcParseGuardRefuses(MlirContext ctx, MlirStringRef source,
                                             const char *sourceName);

/*--- #dlk.schedule ------------------------------------------------------------*/

#define DLC_SCHEDULE_MAX_LOOPS 16

/* The fields of a #dlk.schedule: one tile size per loop of the kernel's
   root (0 = untiled), the vector width, a contraction's MR x NR register
   tile ({0, 0} when not given), and the loops run in parallel. */
typedef struct DlcSchedule {
  intptr_t numTiles;
  int64_t tiles[DLC_SCHEDULE_MAX_LOOPS];
  int64_t vectorWidth;
  int64_t registerTile[2];
  intptr_t numParallel;
  int64_t parallel[DLC_SCHEDULE_MAX_LOOPS];
  /* GPU: block and thread tiles per loop (count 0: none given), the
     shared-memory pipeline depth (1: none) and the mma shape (0s: none). */
  intptr_t numWorkgroup;
  int64_t workgroup[DLC_SCHEDULE_MAX_LOOPS];
  intptr_t numThread;
  int64_t thread[DLC_SCHEDULE_MAX_LOOPS];
  int64_t stages;
  int64_t mma[3];
} DlcSchedule;

MLIR_CAPI_EXPORTED bool dlcAttributeIsASchedule(MlirAttribute attr);
/* Fills `*out` from a #dlk.schedule; false (and `*out` untouched) if `attr`
   is something else or has more than DLC_SCHEDULE_MAX_LOOPS entries. */
MLIR_CAPI_EXPORTED bool dlcScheduleRead(MlirAttribute attr, DlcSchedule *out);
MLIR_CAPI_EXPORTED MlirAttribute dlcScheduleAttrGet(MlirContext ctx,
                                                    const DlcSchedule *s);

/*--- Constant payloads --------------------------------------------------------*/

/* The bytes behind a dense or dense_resource elements attribute, in the
   element type's storage layout (f16/bf16 as 16-bit patterns). `*isSplat`
   says one element stands for all. False for i1 dense attributes (their
   bits are packed; read them with mlirDenseElementsAttrGetBoolValue), other
   attributes, and resources whose blob is missing -- the MLIR C API's
   per-element resource getters would dereference a missing blob. */
MLIR_CAPI_EXPORTED bool dlcElementsAttrGetRawData(MlirAttribute attr,
                                                  const void **data,
                                                  size_t *bytes,
                                                  bool *isSplat);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_DIALECTS_H */
