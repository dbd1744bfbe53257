/*===-- dlc-c/Specialize.h - Fix a dlg function's dynamic shapes --*- C -*-===*\
|*                                                                            *|
|* A model with a dynamic (batch) dimension is compiled once per concrete    *|
|* input shape: the function's argument types are replaced by static ones    *|
|* and every dlg op's result type is inferred again by its shape rule, so    *|
|* the whole static pipeline (tiling, vectorisation, bufferisation without   *|
|* runtime sizes) applies. dlcProgram keeps one compiled variant per shape.  *|
\*===----------------------------------------------------------------------===*/
#ifndef DLC_C_SPECIALIZE_H
#define DLC_C_SPECIALIZE_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gives `func` (a func.func of dlg ops) the argument types `types` and
   re-infers the result types of its body and the function's type: dlg ops
   by their shape rules, a reshape's one dynamic target dim from the element
   count. Fails, with a diagnostic at the op, when an op cannot be
   re-inferred (not a dlg op, a reshape with several dynamic dims) or the
   new shapes break a shape rule. */
MLIR_CAPI_EXPORTED MlirLogicalResult dlcSpecializeFunction(MlirOperation func,
                                                           intptr_t numTypes,
                                                           const MlirType *types);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_SPECIALIZE_H */
