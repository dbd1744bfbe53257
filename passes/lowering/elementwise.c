/* Elementwise dlg ops: one linalg.generic each, NumPy broadcasting in the
   indexing maps, the scalar body from scalar.c / math_unary.c. The
   pipeline's elementwise fusion then merges a chain into one generic. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinTypes.h"

typedef struct {
  MlirOperation op;
  MlirType elt;
} EwCtx;

static bool ewBody(DlcBuilder *b, const MlirValue *args, MlirValue *yields, void *u) {
  EwCtx *c = u;
  yields[0] = dlcEmitElementwise(b, c->op, args, c->elt);
  return !mlirValueIsNull(yields[0]);
}

static MlirValue lowerElementwise(DlcBuilder *b, MlirOperation op, const DlcLowerPolicy *p) {
  MlirType rt = dlcLowerResultType(op);
  DlcShape out = dlcLowerShape(mlirOperationGetResult(op, 0));
  DlcGeneric g = {.nLoops = out.rank, .nIns = mlirOperationGetNumOperands(op), .nOuts = 1};
  for (intptr_t i = 0; i < g.nIns; ++i) {
    g.ins[i] = mlirOperationGetOperand(op, i);
    DlcShape s = dlcLowerShape(g.ins[i]);
    g.maps[i] = dlcMapBroadcast(b->context, &s, &out);
  }
  g.outs[0] = dlcEmptyLike(b, op, rt);
  g.maps[g.nIns] = dlcMapIdentity(b->context, out.rank);
  EwCtx c = {op, mlirShapedTypeGetElementType(rt)};
  return dlcLowerOut(dlcEmitGeneric(b, &g, ewBody, &c));
}

#define EW(name) {"dlg." #name, lowerElementwise}
DLC_LOWERINGS(Elementwise,
    EW(add), EW(sub), EW(mul), EW(div), EW(max), EW(min), EW(pow), EW(fmod),
    EW(neg), EW(abs), EW(exp), EW(log), EW(sqrt), EW(rsqrt), EW(tanh), EW(erf),
    EW(sigmoid), EW(relu), EW(silu), EW(gelu), EW(clamp), EW(where), EW(cast),
    EW(equal), EW(not_equal), EW(less), EW(less_equal), EW(greater), EW(greater_equal),
    /* one math op each (math_unary.c) */
    EW(sin), EW(cos), EW(tan), EW(asin), EW(acos), EW(atan),
    EW(sinh), EW(cosh), EW(asinh), EW(acosh), EW(atanh));
#undef EW
