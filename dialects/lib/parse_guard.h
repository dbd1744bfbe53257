/* Text MLIR 22's parser cannot take without crashing, refused before
   dlcModuleParse (Dialects.cpp) hands it to the parser. */
#ifndef DLC_DIALECTS_PARSE_GUARD_H
#define DLC_DIALECTS_PARSE_GUARD_H

#include "mlir-c/IR.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `source` (MLIR text; bytecode passes) holds such a construct:
   then an error at its line and column in `sourceName` is emitted on
   `ctx`. */
bool dlcParseGuardRefuses(MlirContext ctx, MlirStringRef source, const char *sourceName);

#ifdef __cplusplus
}
#endif

#endif
