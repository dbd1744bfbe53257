/*===-- dlc-c/Builder.h - Building and reading ops in one call ----*- C -*-===*\
|*                                                                            *|
|* A DlcBuilder is an insertion point (a block, or a rewriter inside a       *|
|* pattern) plus a location. dlcBuildOp creates an op by name with result    *|
|* types inferred by the op's shape rule:                                    *|
|*                                                                            *|
|*   MlirValue y = dlcBuildValue(&b, "dlg.add", DLC_VALUES(x, bias),          *|
|*                               DLC_NO_ATTRS);                               *|
|*                                                                            *|
|* On failure (a shape rule rejects the operands) the result is null and a  *|
|* diagnostic has been emitted at the builder's location.                    *|
\*===----------------------------------------------------------------------===*/

#ifndef DLC_C_BUILDER_H
#define DLC_C_BUILDER_H

#include "dlc-c/Shape.h"
#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct DlcBuilder {
  MlirContext context;
  MlirLocation loc;
  MlirRewriterBase rewriter; /* when set, ops go to its insertion point */
  MlirBlock block;           /* otherwise into this block, */
  MlirOperation before;      /* before this op, or at the end when null */
} DlcBuilder;

MLIR_CAPI_EXPORTED DlcBuilder dlcBuilderAtEnd(MlirBlock block, MlirLocation loc);
MLIR_CAPI_EXPORTED DlcBuilder dlcBuilderBefore(MlirOperation op, MlirLocation loc);
MLIR_CAPI_EXPORTED DlcBuilder dlcBuilderForRewriter(MlirRewriterBase rewriter,
                                                    MlirLocation loc);

/* Inserts a detached op at the builder's insertion point; returns it. */
MLIR_CAPI_EXPORTED MlirOperation dlcBuilderInsert(DlcBuilder *b, MlirOperation op);

/* Counted array arguments from a list, as C11 compound literals. */
#define DLC_VALUES(...)                                                        \
  (intptr_t)(sizeof((MlirValue[]){__VA_ARGS__}) / sizeof(MlirValue)),          \
      (MlirValue[]) { __VA_ARGS__ }
#define DLC_ATTRS(...)                                                         \
  (intptr_t)(sizeof((MlirNamedAttribute[]){__VA_ARGS__}) /                     \
             sizeof(MlirNamedAttribute)),                                      \
      (MlirNamedAttribute[]) { __VA_ARGS__ }
#define DLC_NO_ATTRS 0, (const MlirNamedAttribute *)0

/* Creates and inserts an op whose result types are inferred. */
MLIR_CAPI_EXPORTED MlirOperation dlcBuildOp(DlcBuilder *b, const char *name,
                                            intptr_t nOperands,
                                            const MlirValue *operands,
                                            intptr_t nAttrs,
                                            const MlirNamedAttribute *attrs);
/* Same, returning the first result (null on failure). */
MLIR_CAPI_EXPORTED MlirValue dlcBuildValue(DlcBuilder *b, const char *name,
                                           intptr_t nOperands,
                                           const MlirValue *operands,
                                           intptr_t nAttrs,
                                           const MlirNamedAttribute *attrs);
/* Creates and inserts an op named like `like`, with its attributes, on new
   `operands`; result types inferred again (null op on failure). */
MLIR_CAPI_EXPORTED MlirOperation dlcBuildOpLike(DlcBuilder *b, MlirOperation like,
                                                intptr_t nOperands,
                                                const MlirValue *operands);
/* Creates and inserts an op with explicit result types. */
MLIR_CAPI_EXPORTED MlirOperation
dlcBuildOpTyped(DlcBuilder *b, const char *name, intptr_t nOperands,
                const MlirValue *operands, intptr_t nResults,
                const MlirType *results, intptr_t nAttrs,
                const MlirNamedAttribute *attrs);

/*--- Named attributes ------------------------------------------------------*/

MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamedBool(MlirContext ctx,
                                                   const char *name, bool v);
MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamedI64(MlirContext ctx,
                                                  const char *name, int64_t v);
MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamedF64(MlirContext ctx,
                                                  const char *name, double v);
MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamedString(MlirContext ctx,
                                                     const char *name,
                                                     const char *v);
MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamedI64Array(MlirContext ctx,
                                                       const char *name,
                                                       intptr_t n,
                                                       const int64_t *v);
MLIR_CAPI_EXPORTED MlirNamedAttribute dlcNamed(MlirContext ctx,
                                               const char *name,
                                               MlirAttribute attr);

/*--- Reading ops -----------------------------------------------------------*/

/* Whether `op` is non-null and named `name` (e.g. "dlg.relu"). */
MLIR_CAPI_EXPORTED bool dlcOpIs(MlirOperation op, const char *name);
/* Whether `op` (not null) is named one of the `n` names. */
MLIR_CAPI_EXPORTED bool dlcOpIsAny(MlirOperation op, const char *const *names, size_t n);
/* dlcOpIsAny over a static array of names. */
#define DLC_OP_IS_ANY(op, names) dlcOpIsAny(op, names, sizeof(names) / sizeof *(names))
/* The op defining `v` if it is named `name`, else a null op. */
MLIR_CAPI_EXPORTED MlirOperation dlcDefiningOp(MlirValue v, const char *name);
/* The one op that uses `v`, with the operand number it uses it as in
   `*operand` (when not NULL); a null op when `v` has no use or more than
   one (two operands of one op are two uses). */
MLIR_CAPI_EXPORTED MlirOperation dlcSoleUser(MlirValue v, intptr_t *operand);
/* Whether `v` is an `arith.constant` integer (index or iN); its value in
   `*out` when it is. */
MLIR_CAPI_EXPORTED bool dlcConstantInt(MlirValue v, int64_t *out);
/* Attribute readers falling back to `dflt` when the attribute is absent. */
MLIR_CAPI_EXPORTED bool dlcGetBool(MlirOperation op, const char *name, bool dflt);
MLIR_CAPI_EXPORTED int64_t dlcGetI64(MlirOperation op, const char *name,
                                     int64_t dflt);
MLIR_CAPI_EXPORTED double dlcGetF64(MlirOperation op, const char *name,
                                    double dflt);
/* Copies up to `cap` values of an i64 array attribute into `out`; returns
   the count, or -1 when the attribute is absent. */
MLIR_CAPI_EXPORTED intptr_t dlcGetI64Array(MlirOperation op, const char *name,
                                           int64_t *out, intptr_t cap);
/* When `v` comes from a dlg.constant holding one repeated value, writes it
   (ints converted) and returns true. */
MLIR_CAPI_EXPORTED bool dlcGetSplat(MlirValue v, double *out);

/*--- Shapes of types -------------------------------------------------------*/

/* Reads a ranked tensor type's shape; false for other types. */
MLIR_CAPI_EXPORTED bool dlcTypeGetShape(MlirType type, DlcShape *out);
MLIR_CAPI_EXPORTED MlirType dlcTypeFromShape(const DlcShape *s,
                                             MlirType elementType);

#ifdef __cplusplus
}
#endif

#endif /* DLC_C_BUILDER_H */
