/* Building linalg / tensor / arith IR from C: the vocabulary that
   dlk-to-linalg writes its lowerings in.

   All helpers insert at a DlcBuilder's insertion point and return null
   values when an operand is null, so a failed step propagates instead of
   crashing. Shapes are read and written through DlcShape. */

#ifndef DLC_PASSES_LOWERING_EMIT_H
#define DLC_PASSES_LOWERING_EMIT_H

#include "dlc-c/Builder.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"

enum { DLC_MAX_LOOPS = 16 };

/*--- Types and constants -----------------------------------------------------*/

MlirType dlcElementType(MlirValue v);
bool dlcIsFloat(MlirType elementType);
MlirType dlcIndexType(MlirContext ctx);
/* A scalar constant of `type` (float or integer, ints truncated). */
MlirValue dlcEmitScalar(DlcBuilder *b, MlirType type, double v);
MlirValue dlcEmitIndex(DlcBuilder *b, int64_t v);
/* The lowest / highest value of a type (-inf / +inf for floats). */
double dlcLowest(MlirType type);
double dlcHighest(MlirType type);

/*--- Tensors -----------------------------------------------------------------*/

/* tensor.dim v, i */
MlirValue dlcEmitDim(DlcBuilder *b, MlirValue v, int64_t i);
/* tensor.empty of `type`; each dynamic dim i takes its size from dimOf[i]
   (a value) at dim dimIdx[i]. */
MlirValue dlcEmitEmpty(DlcBuilder *b, MlirType type, const MlirValue *dimOf,
                       const int64_t *dimIdx);
/* tensor.empty filled with `v` (linalg.fill). */
MlirValue dlcEmitFilled(DlcBuilder *b, MlirType type, double v,
                        const MlirValue *dimOf, const int64_t *dimIdx);
/* tensor.pad with static amounts (low[r], high[r]) and a constant value. */
MlirValue dlcEmitPad(DlcBuilder *b, MlirValue x, const int64_t *low,
                     const int64_t *high, double value);
/* The same with padding nobody reads (ub.poison): no stores for it. */
MlirValue dlcEmitPadPoison(DlcBuilder *b, MlirValue x, const int64_t *low, const int64_t *high);
/* x with dim `dim` split into (extent / inner, inner): tensor.expand_shape. */
MlirValue dlcEmitSplitDim(DlcBuilder *b, MlirValue x, intptr_t dim, int64_t inner);
/* x with dims [dim, dim + count) merged into one: tensor.collapse_shape. */
MlirValue dlcEmitMergeDims(DlcBuilder *b, MlirValue x, intptr_t dim, intptr_t count);
/* x permuted (result dim i is x's dim perm[i]) by a named linalg.transpose,
   which elementwise fusion leaves alone: the copy is the point. */
MlirValue dlcEmitTranspose(DlcBuilder *b, MlirValue x, const int64_t *perm);
/* Reshape of a statically shaped tensor, through collapse and expand. */
MlirValue dlcEmitReshape(DlcBuilder *b, MlirValue x, MlirType resultType);
/* tensor.insert_slice / extract_slice with static offsets, sizes, strides. */
MlirValue dlcEmitInsertSlice(DlcBuilder *b, MlirValue src, MlirValue dest,
                             const int64_t *offsets);
MlirValue dlcEmitExtractSlice(DlcBuilder *b, MlirValue src, MlirType resultType,
                              const int64_t *offsets, const int64_t *strides);

/*--- linalg.generic ----------------------------------------------------------*/

/* Emits the body of a generic: `args` are the block arguments (inputs then
   outputs); returns one value per output through `yields`. */
typedef bool (*DlcBodyFn)(DlcBuilder *b, const MlirValue *args, MlirValue *yields,
                          void *user);

typedef struct DlcGeneric {
  intptr_t nLoops;
  bool reduction[DLC_MAX_LOOPS]; /* iterator kind per loop */
  intptr_t nIns, nOuts;
  MlirValue ins[8], outs[4];
  MlirAffineMap maps[12]; /* ins then outs */
} DlcGeneric;

/* The body of a copy: yields its first argument. */
bool dlcCopyBody(DlcBuilder *b, const MlirValue *args, MlirValue *yields, void *user);

/* Creates the generic; returns the op (null on failure). */
MlirOperation dlcEmitGeneric(DlcBuilder *b, const DlcGeneric *g, DlcBodyFn body,
                             void *user);

/* A named linalg op (linalg.fill, linalg.copy, linalg.transpose, ...) with
   its builtin body; `resultType` null for one on buffers. */
MlirOperation dlcEmitNamedLinalg(DlcBuilder *b, const char *name, intptr_t nOperands,
                                 const MlirValue *operands, MlirType resultType,
                                 intptr_t nAttrs, const MlirNamedAttribute *attrs);

/* A linalg.map of `body` over `ins` into `init` (all of one shape): a named
   op, which elementwise fusion does not fuse into its consumers, for
   values computed once per row that a consumer reads many times. Returns
   the op (null on failure). */
MlirOperation dlcEmitMap(DlcBuilder *b, const MlirValue *ins, intptr_t nIns, MlirValue init,
                         DlcBodyFn body, void *user);

/* Affine helpers: the identity over n dims, and a map from `nLoops` dims
   to the given results. */
MlirAffineMap dlcMapIdentity(MlirContext ctx, intptr_t n);
MlirAffineMap dlcMapGet(MlirContext ctx, intptr_t nLoops, intptr_t n,
                        MlirAffineExpr *exprs);
MlirAffineExpr dlcDim(MlirContext ctx, intptr_t i);
MlirAffineExpr dlcConst(MlirContext ctx, int64_t c);
/* NumPy broadcasting: the map of an operand of shape `s` read inside a loop
   nest over `out` (trailing dims aligned, size-1 dims pinned to 0). */
MlirAffineMap dlcMapBroadcast(MlirContext ctx, const DlcShape *s,
                              const DlcShape *out);

/* Scalar body of an elementwise dlg op (by name) on scalar `args`, giving a
   value of `resultType`; null when the op is not elementwise. */
MlirValue dlcEmitElementwise(DlcBuilder *b, MlirOperation op, const MlirValue *args,
                             MlirType resultType);
/* The comparison ops, in this order: equal, not_equal, less, less_equal,
   greater, greater_equal. dlcCompareKind gives the index of `name`, or -1. */
enum { DLC_CMP_EQ, DLC_CMP_NE, DLC_CMP_LT, DLC_CMP_LE, DLC_CMP_GT, DLC_CMP_GE,
       DLC_COMPARE_COUNT };
int dlcCompareKind(MlirStringRef name);

/* The math dialect op of a float unary dlg op that is exactly one (dlg.sin
   -> math.sin, ...), or NULL (math_unary.c). */
const char *dlcMathUnaryOp(MlirStringRef name);

/* Scalar arithmetic in `args`' type. */
MlirValue dlcArith(DlcBuilder *b, const char *floatOp, const char *intOp,
                   MlirValue x, MlirValue y);
MlirValue dlcUnary(DlcBuilder *b, const char *op, MlirValue x);
/* Element type conversion (NumPy astype). */
MlirValue dlcConvertScalar(DlcBuilder *b, MlirValue x, MlirType to);

#endif /* DLC_PASSES_LOWERING_EMIT_H */
