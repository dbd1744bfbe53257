/*===-- dlc-c/Pass.h - Writing MLIR passes and pipelines in C -----*- C -*-===*\
|*                                                                            *|
|* A C pass is a static DlcPassDescriptor: its flag, summary, anchor op,      *|
|* typed options, statistics, dependent dialects and a run callback. The    *|
|* C++ adapter support/lib/CPassAdapter.cpp makes it a real mlir::Pass, so  *|
|* `--help`, `--PASS=opt=val`, `--pass-pipeline='...(PASS{opt=val})'`,        *|
|* `--dump-pass-pipeline`, `--mlir-print-ir-after=PASS`, statistics and the  *|
|* threaded pass manager all work as for passes written in C++.              *|
|*                                                                            *|
|* Each pass instance (the threaded pass manager clones one per thread)      *|
|* gets its own state from createState the first time it runs; build        *|
|* pattern sets there, never in globals.                                     *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_PASS_H
#define DLC_C_PASS_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum DlcOptionKind {
  DLC_OPTION_BOOL,
  DLC_OPTION_INT,      /* int64_t */
  DLC_OPTION_DOUBLE,
  DLC_OPTION_STRING,
  DLC_OPTION_INT_LIST, /* comma-separated int64_t values */
} DlcOptionKind;

typedef struct DlcOptionDesc {
  const char *name;         /* as written on the command line: max-ops */
  const char *help;
  DlcOptionKind kind;
  const char *defaultValue; /* textual: "true", "8", "0.5", "a", "1,2"; NULL
                               means false / 0 / empty */
} DlcOptionDesc;

typedef struct DlcStatisticDesc {
  const char *name;
  const char *help;
} DlcStatisticDesc;

/* The option values of one pass instance or one pipeline invocation. */
typedef struct DlcOptions DlcOptions;
/* One running pass instance. */
typedef struct DlcPass DlcPass;

typedef struct DlcPassDescriptor {
  const char *argument;        /* command-line flag, e.g. "dlg-simplify" */
  const char *summary;
  const char *anchor;          /* op name the pass runs on, NULL for any op */
  const DlcOptionDesc *options;
  intptr_t numOptions;
  const DlcStatisticDesc *statistics;
  intptr_t numStatistics;
  /* Optional: insert the dialects whose ops the pass creates. */
  void (*getDependentDialects)(MlirDialectRegistry registry);
  /* Optional: per-instance state, built at the instance's first run. */
  void *(*createState)(MlirContext context, const DlcOptions *options);
  void (*destroyState)(void *state);
  /* Runs on one anchor op; return failure after emitting a diagnostic. */
  MlirLogicalResult (*run)(MlirOperation op, void *state, DlcPass *pass);
} DlcPassDescriptor;

typedef struct DlcPipelineDescriptor {
  const char *argument;
  const char *summary;
  const DlcOptionDesc *options;
  intptr_t numOptions;
  /* Adds the pipeline's passes to `pm`; failure after emitting an error
     through `mlirEmitError`-style diagnostics or the returned message. */
  MlirLogicalResult (*build)(MlirOpPassManager pm, const DlcOptions *options);
} DlcPipelineDescriptor;

/*--- Option access (names must be declared in the descriptor) --------------*/

MLIR_CAPI_EXPORTED bool dlcOptionsGetBool(const DlcOptions *o, const char *name);
MLIR_CAPI_EXPORTED int64_t dlcOptionsGetInt(const DlcOptions *o, const char *name);
MLIR_CAPI_EXPORTED double dlcOptionsGetDouble(const DlcOptions *o, const char *name);
MLIR_CAPI_EXPORTED MlirStringRef dlcOptionsGetString(const DlcOptions *o,
                                                     const char *name);
/* Returns the number of values; *values points into the option's storage. */
MLIR_CAPI_EXPORTED intptr_t dlcOptionsGetIntList(const DlcOptions *o,
                                                 const char *name,
                                                 const int64_t **values);

/*--- Pass instance ---------------------------------------------------------*/

MLIR_CAPI_EXPORTED const DlcOptions *dlcPassGetOptions(const DlcPass *pass);
MLIR_CAPI_EXPORTED void dlcPassAddStatistic(DlcPass *pass, const char *name,
                                            uint64_t delta);

/* Calls body(i, user) for i in [0, n) on the context's threads (in turn
   when its multithreading is off), as the pass manager runs a nested
   pipeline: the bodies must touch disjoint IR. Their diagnostics come out
   in the order of i, whichever thread finishes first. Fails when a body
   fails; every body runs. */
typedef MlirLogicalResult (*DlcParallelBody)(intptr_t i, void *user);
MLIR_CAPI_EXPORTED MlirLogicalResult dlcParallelFor(MlirContext ctx, intptr_t n,
                                                    DlcParallelBody body, void *user);

/*--- Creation and registration ---------------------------------------------*/

/* A new pass instance to add to a pass manager (options at their defaults). */
MLIR_CAPI_EXPORTED MlirPass dlcPassCreate(const DlcPassDescriptor *desc);
/* Registers the pass under its argument (for flags and textual pipelines). */
MLIR_CAPI_EXPORTED void dlcPassRegister(const DlcPassDescriptor *desc);
MLIR_CAPI_EXPORTED void dlcPipelineRegister(const DlcPipelineDescriptor *desc);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_PASS_H */
