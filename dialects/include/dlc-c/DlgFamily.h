/*===-- dlc-c/DlgFamily.h - Which family each dlg op belongs to --*- C -*-===*\
|*                                                                            *|
|* Every dlg op belongs to one DlcOpFamily, declared in its ODS definition   *|
|* (DlgOps.td). Passes, the reference kernels and the Python builder ask for *|
|* it instead of keeping lists of op names. Part of the dialect layer (below *|
|* passes/), so passes include it directly; capi's Dlg.h re-exports it.     *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_DLGFAMILY_H
#define DLC_C_DLGFAMILY_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Op families
 *===----------------------------------------------------------------------===*/

/* The family of a dlg op (the Dlg_*Family trait of DlgOps.td, which says
   which ops each holds). */
typedef enum DlcOpFamily {
  DLC_OP_FAMILY_NONE = 0,       /* not a registered dlg op */
  DLC_OP_FAMILY_CONSTANT,       /* constant */
  DLC_OP_FAMILY_UNARY,          /* elementwise on one operand */
  DLC_OP_FAMILY_BINARY,         /* elementwise on two, NumPy broadcasting */
  DLC_OP_FAMILY_COMPARE,        /* broadcast comparison into an i1 mask */
  DLC_OP_FAMILY_SELECT,         /* where */
  DLC_OP_FAMILY_CAST,           /* element type conversion */
  DLC_OP_FAMILY_CHANNEL_AFFINE, /* batch_norm: per-channel scale and shift */
  DLC_OP_FAMILY_NORM,           /* layer_norm, rms_norm, softmax, log_softmax */
  DLC_OP_FAMILY_REDUCTION,      /* reduce_* */
  DLC_OP_FAMILY_POOL,           /* max_pool2d, avg_pool2d */
  DLC_OP_FAMILY_CONTRACTION,    /* matmul, conv2d */
  DLC_OP_FAMILY_LAYOUT,         /* transpose, reshape: elements only moved */
  DLC_OP_FAMILY_DATA_MOVEMENT,  /* slice, concat, pad */
  DLC_OP_FAMILY_GATHER,         /* indexing by another tensor's values */
  DLC_OP_FAMILY_CONTROL,        /* if, while and their terminators: hold regions */
  DLC_OP_FAMILY_SELECTION,      /* non_max_suppression, non_zero: a padded result and its count */
  DLC_OP_FAMILY_COUNT
} DlcOpFamily;

/* The family of `op`; DLC_OP_FAMILY_NONE for any op not of dlg. */
MLIR_CAPI_EXPORTED DlcOpFamily dlcDlgOpGetFamily(MlirOperation op);
/* The family of the registered op `name` ("dlg.add"); NONE when `name` is
   not a dlg op registered in `ctx`. */
MLIR_CAPI_EXPORTED DlcOpFamily dlcDlgOpFamilyOfName(MlirContext ctx,
                                                    MlirStringRef name);
/* The family's name in lower case ("unary", "data_movement"); "none" for
   NONE and out-of-range values. */
MLIR_CAPI_EXPORTED const char *dlcOpFamilyGetName(DlcOpFamily family);

/* The ops of the dlg dialect (loaded into `ctx` if it was not), sorted by
   name; strings are owned by the context. */
MLIR_CAPI_EXPORTED intptr_t dlcDlgGetNumOps(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirStringRef dlcDlgGetOpName(MlirContext ctx, intptr_t i);
/* Whether the op infers its result type (a shape rule, or constant's value);
   false for the ops that must be given one (cast, reshape) and for unknown
   names. */
MLIR_CAPI_EXPORTED bool dlcDlgOpInfersResultType(MlirContext ctx,
                                                 MlirStringRef name);
/* The op's own (ODS) attribute names; 0 / a null string for unknown names
   and out-of-range `i`. */
MLIR_CAPI_EXPORTED intptr_t dlcDlgOpGetNumAttributes(MlirContext ctx,
                                                     MlirStringRef name);
MLIR_CAPI_EXPORTED MlirStringRef dlcDlgOpGetAttributeName(MlirContext ctx,
                                                          MlirStringRef name,
                                                          intptr_t i);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_DLGFAMILY_H */
