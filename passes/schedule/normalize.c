/* Linalg as the schedule reads it (normalize.h).

   Named ops. dlk-to-linalg packs GEMM operands with linalg.transpose and
   computes per-row values with linalg.map, named ops that elementwise
   fusion leaves alone; here they become the equivalent generics.

   Operands in the register tile's order (canonicalOperands below).

   One reduction loop per contraction. linalg-fuse-elementwise-ops
   propagates a reshape that splits K through the contraction that reads
   it: the attention output projection,
   reshape(transpose(ctx)) x Wo, becomes a generic with loops
   (m, n, head, d) reading ctx[head, m, d] and Wo[head, d, n]. Vectorised
   as it is, its register tile is a contraction with two unit reduction
   dims, which lowers to scalar code. This rewrite restores a GEMM with one
   K loop: operands whose reduction dims are adjacent and in loop order are
   collapsed in place; others are first copied into that order (a
   transposed copy of A costs M*K moves against M*N*K multiply-adds). The
   collapsed loop runs the reduction in the same order, so results are
   bit-identical. */

#include "schedule/normalize.h"

#include "schedule/analysis.h"

#include "dlc-c/Dialects.h"
#include "lowering/emit.h"
#include "support/op_list.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef struct {
  intptr_t numLoops, numParallel;
  MlirAffineMap maps[3];
} Contraction;

/* A static generic with two inputs and one output, parallel loops then at
   least `minReductions` reductions, the output indexed by the parallel
   loops in order, and inputs that each read every reduction loop through a
   permutation. */
static bool readContraction(MlirOperation op, Contraction *c, intptr_t minReductions) {
  if (!dlcOpIs(op, "linalg.generic") || mlirOperationGetNumOperands(op) != 3 ||
      mlirOperationGetNumResults(op) != 1)
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  c->numLoops = mlirArrayAttrGetNumElements(iters);
  if (c->numLoops > DLC_MAX_LOOPS)
    return false;
  c->numParallel = 0;
  while (c->numParallel < c->numLoops &&
         !dlcIteratorIsReduction(mlirArrayAttrGetElement(iters, c->numParallel)))
    c->numParallel++;
  for (intptr_t d = c->numParallel; d < c->numLoops; ++d)
    if (!dlcIteratorIsReduction(mlirArrayAttrGetElement(iters, d)))
      return false;
  if (c->numLoops - c->numParallel < minReductions || c->numParallel < 2)
    return false;
  for (intptr_t i = 0; i < 3; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    c->maps[i] = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    if (!mlirTypeIsARankedTensor(t) || !mlirShapedTypeHasStaticShape(t) ||
        !mlirAffineMapIsProjectedPermutation(c->maps[i]))
      return false;
  }
  MlirAffineMap out = c->maps[2];
  if (mlirAffineMapGetNumResults(out) != c->numParallel)
    return false;
  for (intptr_t d = 0; d < c->numParallel; ++d)
    if (mlirAffineDimExprGetPosition(mlirAffineMapGetResult(out, d)) != d)
      return false;
  for (intptr_t i = 0; i < 2; ++i) {
    intptr_t seen = 0;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(c->maps[i]); ++r)
      seen += mlirAffineDimExprGetPosition(mlirAffineMapGetResult(c->maps[i], r)) >=
              c->numParallel;
    if (seen != c->numLoops - c->numParallel)
      return false;
  }
  return true;
}

static intptr_t dimAt(MlirAffineMap m, intptr_t r) {
  return mlirAffineDimExprGetPosition(mlirAffineMapGetResult(m, r));
}

/* Result positions of the operand in the order it should be laid out:
   other dims in place, the reduction dims together in loop order where the
   last of them is (so a row-major A keeps K innermost). Returns whether
   that is already the operand's order. */
static bool reductionOrder(const Contraction *c, MlirAffineMap m, intptr_t *order) {
  intptr_t rank = mlirAffineMapGetNumResults(m), lastRed = 0, n = 0;
  intptr_t byLoop[DLC_MAX_LOOPS];
  for (intptr_t r = 0; r < rank; ++r)
    if (dimAt(m, r) >= c->numParallel) {
      lastRed = r;
      byLoop[dimAt(m, r) - c->numParallel] = r;
    }
  intptr_t numRed = c->numLoops - c->numParallel;
  for (intptr_t r = 0; r < rank; ++r) {
    if (dimAt(m, r) < c->numParallel)
      order[n++] = r;
    if (r == lastRed)
      for (intptr_t k = 0; k < numRed; ++k)
        order[n++] = byLoop[k];
  }
  bool inPlace = true;
  for (intptr_t r = 0; r < rank; ++r)
    inPlace = inPlace && order[r] == r;
  return inPlace;
}

/* x laid out in `order` (result dim i is x's dim order[i]): a transposed copy. */
static MlirValue permuted(DlcBuilder *b, MlirValue x, const intptr_t *order) {
  MlirType t = mlirValueGetType(x);
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t dims[DLC_MAX_LOOPS];
  MlirAffineExpr in[DLC_MAX_LOOPS], out[DLC_MAX_LOOPS];
  /* A copy that keeps the innermost dim (packing panels) runs in x's order,
     reading x's rows whole; a true transpose runs in the result's. */
  bool readOrder = order[rank - 1] == rank - 1;
  for (intptr_t i = 0; i < rank; ++i) {
    dims[i] = mlirShapedTypeGetDimSize(t, order[i]);
    /* result dim i is x's dim order[i] */
    if (readOrder)
      in[i] = dlcDim(b->context, i), out[i] = dlcDim(b->context, order[i]);
    else
      in[order[i]] = dlcDim(b->context, i), out[i] = dlcDim(b->context, i);
  }
  DlcGeneric g = {.nLoops = rank, .nIns = 1, .nOuts = 1};
  g.ins[0] = x;
  g.maps[0] = dlcMapGet(b->context, rank, rank, in);
  g.maps[1] = dlcMapGet(b->context, rank, rank, out);
  g.outs[0] = dlcEmitEmpty(b, mlirRankedTensorTypeGet(rank, dims, mlirShapedTypeGetElementType(t),
                                                      mlirAttributeGetNull()),
                           NULL, NULL);
  MlirOperation op = dlcEmitGeneric(b, &g, dlcCopyBody, NULL);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* Moves the old generic's body into the new one. */
static bool takeBody(DlcBuilder *b, const MlirValue *args, MlirValue *yields, void *user) {
  MlirBlock old = mlirRegionGetFirstBlock(mlirOperationGetRegion(*(MlirOperation *)user, 0));
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(old); ++i)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(old, i), args[i]);
  MlirOperation yield = mlirBlockGetTerminator(old);
  yields[0] = mlirOperationGetOperand(yield, 0);
  for (MlirOperation o = mlirBlockGetFirstOperation(old); !mlirOperationEqual(o, yield);) {
    MlirOperation next = mlirOperationGetNextInBlock(o);
    mlirOperationRemoveFromParent(o);
    dlcBuilderInsert(b, o);
    o = next;
  }
  return true;
}

/* Whether `op` is a linalg.generic that copies its one input through
   permutation maps (a packing or transposing copy, as permuted() emits):
   writes `order` (result dim i is the input's dim order[i]) and the rank. */
static bool permutationCopy(MlirOperation op, intptr_t *order, intptr_t *rank) {
  if (!dlcOpIs(op, "linalg.generic") || mlirOperationGetNumOperands(op) != 2 ||
      mlirOperationGetNumResults(op) != 1)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetFirstOperation(body);
  if (!dlcOpIs(yield, "linalg.yield") || mlirOperationGetNumOperands(yield) != 1 ||
      !mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirBlockGetArgument(body, 0)))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAffineMap in = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
  MlirAffineMap out = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 1));
  *rank = mlirAffineMapGetNumResults(out);
  if (!mlirAffineMapIsPermutation(in) || !mlirAffineMapIsPermutation(out) ||
      mlirAffineMapGetNumResults(in) != *rank || *rank > DLC_MAX_LOOPS)
    return false;
  for (intptr_t i = 0; i < *rank; ++i)
    for (intptr_t j = 0; j < *rank; ++j)
      if (dimAt(in, j) == dimAt(out, i))
        order[i] = j;
  return true;
}

/* x with its dims [first, first + count) merged. When x is a permuted
   copy (B's packing) whose input holds those dims adjacent and in the
   same order, the input's are merged and copied instead: the attention
   output projection's packing of Wo, expanded to [panel, head, d, NR] by
   the reshape that split K, becomes the [panel, K, NR] copy of every other
   GEMM, which the schedule fuses into its Kc loop; merged after the copy,
   it ran whole before the GEMM, a 2.4 MB copy of its own (BERT-base).
   The copy it replaces goes once the contraction does (`dead`). */
static MlirValue mergeDims(DlcBuilder *b, MlirValue x, intptr_t first, intptr_t count,
                           MlirOperation *dead) {
  intptr_t order[DLC_MAX_LOOPS], rank = 0;
  MlirOperation copy = mlirValueIsAOpResult(x) ? mlirOpResultGetOwner(x) : (MlirOperation){NULL};
  MlirOpOperand use = mlirValueGetFirstUse(x);
  bool single = !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
  if (count > 1 && single && !mlirOperationIsNull(copy) && permutationCopy(copy, order, &rank) &&
      first + count <= rank) {
    intptr_t at = order[first];
    bool adjacent = true;
    for (intptr_t i = 1; i < count; ++i)
      adjacent = adjacent && order[first + i] == at + i;
    if (adjacent) {
      intptr_t merged[DLC_MAX_LOOPS], n = 0;
      for (intptr_t r = 0; r < rank; ++r)
        if (r <= first || r >= first + count)
          merged[n++] = order[r] > at ? order[r] - (count - 1) : order[r];
      MlirValue in = dlcEmitMergeDims(b, mlirOperationGetOperand(copy, 0), at, count);
      MlirValue y = mlirValueIsNull(in) ? in : permuted(b, in, merged);
      if (!mlirValueIsNull(y)) {
        *dead = copy;
        return y;
      }
    }
  }
  return dlcEmitMergeDims(b, x, first, count);
}

static MlirOperation collapseOne(MlirOperation op, const Contraction *c) {
  MlirContext ctx = mlirOperationGetContext(op);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  intptr_t numRed = c->numLoops - c->numParallel;
  DlcGeneric g = {.nLoops = c->numParallel + 1, .nIns = 2, .nOuts = 1};
  g.reduction[c->numParallel] = true;
  MlirOperation dead[2] = {{NULL}, {NULL}};
  for (intptr_t i = 0; i < 2; ++i) {
    MlirValue x = mlirOperationGetOperand(op, i);
    MlirAffineMap m = c->maps[i];
    intptr_t rank = mlirAffineMapGetNumResults(m), order[DLC_MAX_LOOPS];
    if (!reductionOrder(c, m, order)) {
      x = permuted(&b, x, order);
      if (mlirValueIsNull(x))
        return (MlirOperation){NULL};
    }
    MlirAffineExpr e[DLC_MAX_LOOPS];
    intptr_t n = 0, first = -1;
    for (intptr_t r = 0; r < rank; ++r) {
      intptr_t d = dimAt(m, order[r]);
      if (d < c->numParallel)
        e[n++] = dlcDim(ctx, d);
      else if (first < 0)
        first = r, e[n++] = dlcDim(ctx, c->numParallel);
    }
    g.ins[i] = mergeDims(&b, x, first, numRed, &dead[i]);
    g.maps[i] = dlcMapGet(ctx, g.nLoops, n, e);
    if (mlirValueIsNull(g.ins[i]))
      return (MlirOperation){NULL};
  }
  g.outs[0] = mlirOperationGetOperand(op, 2);
  MlirAffineExpr oe[DLC_MAX_LOOPS];
  for (intptr_t d = 0; d < c->numParallel; ++d)
    oe[d] = dlcDim(ctx, d);
  g.maps[2] = dlcMapGet(ctx, g.nLoops, c->numParallel, oe);
  MlirOperation repl = dlcEmitGeneric(&b, &g, takeBody, &op);
  if (mlirOperationIsNull(repl))
    return (MlirOperation){NULL};
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(repl, 0));
  mlirOperationDestroy(op);
  for (int i = 0; i < 2; ++i)
    if (!mlirOperationIsNull(dead[i]) &&
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(dead[i], 0))))
      mlirOperationDestroy(dead[i]);
  return repl;
}

static bool generalizeTranspose(MlirOperation op) {
  MlirAttribute p = mlirOperationGetAttributeByName(op, str("permutation"));
  intptr_t rank = mlirDenseArrayGetNumElements(p), order[DLC_MAX_LOOPS];
  if (rank > DLC_MAX_LOOPS)
    return false;
  for (intptr_t i = 0; i < rank; ++i)
    order[i] = (intptr_t)mlirDenseI64ArrayGetElement(p, i);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirValue t = permuted(&b, mlirOperationGetOperand(op, 0), order);
  if (mlirValueIsNull(t))
    return false;
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), t);
  mlirOperationDestroy(op);
  return true;
}

/* Operands in the register tile's order. Each k step reads NR consecutive
   columns of B and MR elements of A; the vector code wants B N-innermost
   and no unit (batch) dims between an operand's rows and columns. When a
   transpose absorbed into the contraction gave an operand another layout
   (k^T in attention's scores, q by heads) it is copied into [batch..., m,
   k] or [batch..., k, n] order: K * N (or M * K) moves against M * N * K
   multiply-adds, worth it from kMinExtentToCopy rows and columns. */
enum { kMinExtentToCopy = 16 };

static bool canonicalOperands(MlirOperation op, const Contraction *c) {
  intptr_t M = c->numParallel - 2, N = c->numParallel - 1;
  MlirType ct = mlirValueGetType(mlirOperationGetOperand(op, 2));
  if (mlirShapedTypeGetDimSize(ct, M) < kMinExtentToCopy ||
      mlirShapedTypeGetDimSize(ct, N) < kMinExtentToCopy)
    return false;
  MlirContext ctx = mlirOperationGetContext(op);
  MlirAttribute maps[3];
  bool changed = false;
  for (intptr_t i = 0; i < 3; ++i)
    maps[i] = mlirAffineMapAttrGet(c->maps[i]);
  for (intptr_t i = 0; i < 2; ++i) {
    MlirAffineMap m = c->maps[i];
    intptr_t rank = mlirAffineMapGetNumResults(m), order[DLC_MAX_LOOPS], n = 0, nAt = -1;
    for (intptr_t d = 0; d < M; ++d) /* batch dims first, in loop order */
      for (intptr_t r = 0; r < rank; ++r)
        if (dimAt(m, r) == d)
          order[n++] = r;
    for (intptr_t r = 0; r < rank; ++r) {
      if (dimAt(m, r) < M)
        continue;
      if (dimAt(m, r) == N)
        nAt = r;
      else
        order[n++] = r;
    }
    if (nAt >= 0) /* N last */
      order[n++] = nAt;
    bool inPlace = true;
    for (intptr_t r = 0; r < rank; ++r)
      inPlace = inPlace && order[r] == r;
    if (inPlace)
      continue;
    DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
    MlirValue copy = permuted(&b, mlirOperationGetOperand(op, i), order);
    if (mlirValueIsNull(copy))
      return changed;
    MlirAffineExpr e[DLC_MAX_LOOPS];
    for (intptr_t r = 0; r < rank; ++r)
      e[r] = dlcDim(ctx, dimAt(m, order[r]));
    maps[i] = mlirAffineMapAttrGet(dlcMapGet(ctx, c->numLoops, rank, e));
    mlirOperationSetOperand(op, i, copy);
    changed = true;
  }
  if (changed)
    mlirOperationSetAttributeByName(op, str("indexing_maps"), mlirArrayAttrGet(ctx, 3, maps));
  return changed;
}

/* linalg.map as the equivalent generic: identity maps, parallel loops,
   the same body. */
static bool generalizeMap(MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  intptr_t rank = mlirShapedTypeGetRank(t);
  if (n > 8 || !mlirShapedTypeHasStaticShape(t))
    return false;
  MlirContext ctx = mlirOperationGetContext(op);
  DlcGeneric g = {.nLoops = rank, .nIns = n - 1, .nOuts = 1};
  for (intptr_t i = 0; i < n; ++i) {
    g.maps[i] = dlcMapIdentity(ctx, rank);
    if (i < n - 1)
      g.ins[i] = mlirOperationGetOperand(op, i);
  }
  g.outs[0] = mlirOperationGetOperand(op, n - 1);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirOperation repl = dlcEmitGeneric(&b, &g, takeBody, &op);
  if (mlirOperationIsNull(repl))
    return false;
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(repl, 0));
  mlirOperationDestroy(op);
  return true;
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  Contraction c;
  if (dlcOpIs(op, "linalg.transpose") || dlcOpIs(op, "linalg.map") || readContraction(op, &c, 1))
    dlcOpListPush((DlcOpList *)user, op);
  return MlirWalkResultAdvance;
}

int dlcNormalizeForSchedule(MlirOperation func) {
  DlcOpList found = {0};
  mlirOperationWalk(func, collect, &found, MlirWalkPreOrder);
  int done = 0;
  for (intptr_t i = 0; i < found.n; ++i) {
    MlirOperation op = found.ops[i];
    Contraction c;
    if (dlcOpIs(op, "linalg.transpose")) {
      done += generalizeTranspose(op);
      continue;
    }
    if (dlcOpIs(op, "linalg.map")) {
      done += generalizeMap(op);
      continue;
    }
    if (readContraction(op, &c, 2)) {
      op = collapseOne(op, &c);
      done += !mlirOperationIsNull(op);
    }
    if (!mlirOperationIsNull(op) && readContraction(op, &c, 1) && c.numLoops == c.numParallel + 1)
      done += canonicalOperands(op, &c);
  }
  dlcOpListFree(&found);
  return done;
}
