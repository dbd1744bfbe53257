/* --dlg-runtime-checks: an entry function reports, in a status result of
   its own, the checks its inputs fail at run time, so that a run with bad
   data is an error, not a wrong tensor.

   The one check so far: a dlg.gather index outside [-n, n) for an axis of
   n. ONNX makes it an error; the kernels cannot raise one, so the gather's
   lowering (lowering/data.c) reads row 0 instead of memory past the data
   and yields a marker (NaN, or an integer type's lowest value). A marker
   is still a wrong tensor, and for integers a silent one: this pass adds,
   per gather, the same test as ordinary dlg ops over its indices,

     code_k = max(reduce_max(where(idx < -n or idx >= n, k, 0)), 0)  (k = 1, 2..)
     status = the first nonzero code_k, else 0                (tensor<i32>)

   and returns `status` as the entry's last result, marked `dlc.status` in
   its result attributes; the entry's `dlc.runtime_checks` attribute lists
   one message per code. The runtime (capi/lib/Compile.c, Aot.c) passes a
   buffer of its own for that result, hides it from the caller's outputs,
   and turns a nonzero status into an error carrying the message of the
   check that failed (the first in program order, when several did).

   The test is a dlg graph like any other: it fuses into kernels, lowers on
   every path, and costs a pass over the indices (a model's token ids, a
   few hundred integers). The outputs are computed as before, markers
   included; the error only tells the caller not to use them.

   The ONNX importer lowers GatherElements, ScatterElements, GatherND and
   ScatterND to compares against each position (an index outside the axis
   matches none: zeros, or no update); it builds their test itself, a 0-d
   i32 verdict whose op carries the message as `dlc.check`, and this pass
   wires each such verdict into the status like a gather's (unused, the
   verdict is dead code to every other pipeline).

   Regions: a gather or verdict inside a dlg.if or dlg.while (an ONNX If
   branch, a Loop body) is checked where it runs, and its status leaves
   the region as a value of the region's own: each branch of an if yields
   its status (0 for a branch without checks) as one more result; a while
   carries one more value, 0 at first, that each of its regions passes on
   while it is not 0 and replaces by its own status otherwise, so the
   loop's last result is the first failure in time (an iteration its exit
   skips checks nothing). Checks are numbered in program order, a region's
   before the ops after it; nested regions compose. Regions without
   checks, and the ops holding them, are left as they were.
   A dlk.kernel written by hand (the pipeline fuses after this pass) has
   its gathers checked before it, on the kernel operands their indices
   are; indices the kernel computes, or a verdict inside a kernel, are an
   error naming the op rather than an unchecked marker.
   A gather along a dynamic dimension is refused by its lowering; GPU
   programs keep the marker alone (the pass runs on the CPU paths).
   An entry without gathers is left as it was (no status result). */

#include "dlc-c/Builder.h"
#include "dlc-c/Passes.h"
#include "dlc-c/Text.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "shape/Checked.h"
#include "support/rebuild.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static char *copyString(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(dlcXmalloc(n), s, n);
}

/* A rank-0 dlg.constant of integer type `elt` holding `v`. */
static MlirValue scalar(DlcBuilder *b, MlirType elt, int64_t v) {
  MlirType t = mlirRankedTensorTypeGet(0, NULL, elt, mlirAttributeGetNull());
  MlirAttribute value = mlirIntegerTypeGetWidth(elt) == 32
                            ? mlirDenseElementsAttrInt32SplatGet(t, (int32_t)v)
                            : mlirDenseElementsAttrInt64SplatGet(t, v);
  return dlcBuildValue(b, "dlg.constant", 0, NULL, DLC_ATTRS(dlcNamed(b->context, "value", value)));
}

/* 'name' */
static char *quoted(MlirStringRef name) {
  DlcText t = {0};
  dlcTextAppend(str("'"), &t);
  dlcTextAppend(name, &t);
  dlcTextAppend(str("'"), &t);
  char *s = copyString(dlcTextGet(&t));
  dlcTextFree(&t);
  return s;
}

/* Where a message points: the op's dlc.node (the ONNX importer's node
   name, which the text form keeps where it drops locations), a NameLoc's
   name, file:line:col, else MLIR's own form. */
static char *describeLoc(MlirLocation loc) {
  if (mlirLocationIsAName(loc))
    return quoted(mlirIdentifierStr(mlirLocationNameGetName(loc)));
  DlcText t = {0};
  if (mlirLocationIsAFileLineColRange(loc)) {
    char pos[48];
    snprintf(pos, sizeof pos, ":%d:%d", mlirLocationFileLineColRangeGetStartLine(loc),
             mlirLocationFileLineColRangeGetStartColumn(loc));
    dlcTextAppend(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)), &t);
    dlcTextAppend(str(pos), &t);
  } else {
    mlirLocationPrint(loc, dlcTextAppend, &t);
  }
  char *s = copyString(dlcTextGet(&t));
  dlcTextFree(&t);
  return s;
}

/* Where an op is, for a message: its dlc.node, else its location
   (describeLoc). */
static char *describeOp(MlirOperation op) {
  MlirAttribute node = mlirOperationGetAttributeByName(op, str("dlc.node"));
  return !mlirAttributeIsNull(node) && mlirAttributeIsAString(node)
             ? quoted(mlirStringAttrGetValue(node))
             : describeLoc(mlirOperationGetLocation(op));
}

/* The check of gather `g` as code `k` (a tensor<i32>: k or 0), built on
   its indices `idx` before `before` (the gather itself, or the dlk.kernel
   holding it, on the kernel operand its indices are), or a null value
   when it does not apply (a dynamic axis, which the lowering refuses, or
   an axis no i32 index can leave); its message in `msg`. */
static MlirValue checkGather(MlirOperation g, MlirValue idx, MlirOperation before, int64_t k,
                             char **msg) {
  MlirValue data = mlirOperationGetOperand(g, 0);
  MlirType dt = mlirValueGetType(data), it = mlirValueGetType(idx);
  if (!mlirTypeIsARankedTensor(dt) || !mlirTypeIsARankedTensor(it))
    return (MlirValue){NULL};
  int64_t rank = mlirShapedTypeGetRank(dt);
  int64_t axis = dlcGetI64(g, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank || mlirShapedTypeIsDynamicDim(dt, axis))
    return (MlirValue){NULL};
  int64_t n = mlirShapedTypeGetDimSize(dt, axis);
  MlirType ielt = mlirShapedTypeGetElementType(it);
  /* an axis longer than INT32_MAX: every i32 index lies in [-n, n), and
     the bounds would not fit the index type */
  if (mlirIntegerTypeGetWidth(ielt) == 32 && n > INT32_MAX)
    return (MlirValue){NULL};
  MlirContext ctx = mlirOperationGetContext(g);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  DlcBuilder b = dlcBuilderBefore(before, mlirOperationGetLocation(g));
  MlirValue below = dlcBuildValue(&b, "dlg.less", DLC_VALUES(idx, scalar(&b, ielt, -n)), DLC_NO_ATTRS);
  MlirValue above =
      dlcBuildValue(&b, "dlg.greater_equal", DLC_VALUES(idx, scalar(&b, ielt, n)), DLC_NO_ATTRS);
  MlirValue code = scalar(&b, i32, k), zero = scalar(&b, i32, 0);
  if (mlirValueIsNull(below) || mlirValueIsNull(above))
    return (MlirValue){NULL};
  MlirValue c = dlcBuildValue(&b, "dlg.where", DLC_VALUES(below, code, zero), DLC_NO_ATTRS);
  c = mlirValueIsNull(c) ? c : dlcBuildValue(&b, "dlg.where", DLC_VALUES(above, code, c), DLC_NO_ATTRS);
  if (mlirValueIsNull(c))
    return c;
  MlirValue s = dlcBuildValue(&b, "dlg.reduce_max", DLC_VALUES(c),
                              DLC_ATTRS(dlcNamedI64Array(ctx, "axes", 0, NULL),
                                        dlcNamedBool(ctx, "keepdims", false)));
  /* no indices at all: the empty max is the lowest i32, not a failure */
  s = mlirValueIsNull(s) ? s : dlcBuildValue(&b, "dlg.max", DLC_VALUES(s, zero), DLC_NO_ATTRS);
  char *where = describeOp(g);
  char buf[512];
  snprintf(buf, sizeof buf,
           "dlg.gather at %s: an index given at run time is outside [%lld, %lld), the range of "
           "axis %lld of its data",
           where, (long long)-n, (long long)n, (long long)axis);
  free(where);
  *msg = copyString(buf);
  return s;
}

/* A check the ONNX importer built for an op it lowers to compares
   (GatherElements, ScatterElements, GatherND, ScatterND): `v`, a 0-d i32
   that is nonzero when the indices are out of range, produced by an op
   carrying the message as `dlc.check`. As code `k`: where(v > 0, k, 0). */
static MlirValue checkImported(MlirOperation op, int64_t k, char **msg) {
  MlirAttribute m = mlirOperationGetAttributeByName(op, str("dlc.check"));
  if (mlirAttributeIsNull(m) || !mlirAttributeIsAString(m) ||
      mlirOperationGetNumResults(op) != 1)
    return (MlirValue){NULL};
  MlirValue v = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(v);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) != 0 ||
      !mlirTypeEqual(mlirShapedTypeGetElementType(t), i32))
    return (MlirValue){NULL};
  DlcBuilder b = dlcBuilderBefore(mlirOperationGetNextInBlock(op), mlirOperationGetLocation(op));
  MlirValue failed =
      dlcBuildValue(&b, "dlg.greater", DLC_VALUES(v, scalar(&b, i32, 0)), DLC_NO_ATTRS);
  MlirValue code = dlcBuildValue(&b, "dlg.where",
                                 DLC_VALUES(failed, scalar(&b, i32, k), scalar(&b, i32, 0)),
                                 DLC_NO_ATTRS);
  MlirStringRef text = mlirStringAttrGetValue(m);
  *msg = dlcXmalloc(text.length + 1);
  memcpy(*msg, text.data, text.length);
  (*msg)[text.length] = 0;
  return code;
}

/* Appends `status` to `fn`'s results: the return's operands, the function
   type, a result attribute dictionary {dlc.status} and the messages. */
static void addStatusResult(MlirOperation fn, MlirOperation ret, MlirValue status,
                            char **msgs, intptr_t n) {
  MlirContext ctx = mlirOperationGetContext(fn);
  intptr_t nr = mlirOperationGetNumOperands(ret);
  MlirValue *vals = dlcXmalloc(sizeof *vals * (size_t)(nr + 1));
  MlirType *types = dlcXmalloc(sizeof *types * (size_t)(nr + 1));
  for (intptr_t i = 0; i < nr; ++i) {
    vals[i] = mlirOperationGetOperand(ret, i);
    types[i] = mlirValueGetType(vals[i]);
  }
  vals[nr] = status;
  types[nr] = mlirValueGetType(status);
  mlirOperationSetOperands(ret, nr + 1, vals);
  MlirType ft = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(fn, str("function_type")));
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  MlirType *ins = dlcXmalloc(sizeof *ins * (size_t)(ni + 1));
  for (intptr_t i = 0; i < ni; ++i)
    ins[i] = mlirFunctionTypeGetInput(ft, i);
  mlirOperationSetAttributeByName(
      fn, str("function_type"), mlirTypeAttrGet(mlirFunctionTypeGet(ctx, ni, ins, nr + 1, types)));
  /* result attributes: the old ones (or empty dictionaries), then ours */
  MlirAttribute old = mlirOperationGetAttributeByName(fn, str("res_attrs"));
  MlirAttribute *dicts = dlcXmalloc(sizeof *dicts * (size_t)(nr + 1));
  for (intptr_t i = 0; i < nr; ++i)
    dicts[i] = !mlirAttributeIsNull(old) && mlirAttributeIsAArray(old) &&
                       i < mlirArrayAttrGetNumElements(old)
                   ? mlirArrayAttrGetElement(old, i)
                   : mlirDictionaryAttrGet(ctx, 0, NULL);
  MlirNamedAttribute mark = dlcNamed(ctx, "dlc.status", mlirUnitAttrGet(ctx));
  dicts[nr] = mlirDictionaryAttrGet(ctx, 1, &mark);
  mlirOperationSetAttributeByName(fn, str("res_attrs"), mlirArrayAttrGet(ctx, nr + 1, dicts));
  MlirAttribute *texts = dlcXmalloc(sizeof *texts * (size_t)n);
  for (intptr_t i = 0; i < n; ++i)
    texts[i] = mlirStringAttrGet(ctx, str(msgs[i]));
  mlirOperationSetAttributeByName(fn, str("dlc.runtime_checks"), mlirArrayAttrGet(ctx, n, texts));
  free(vals), free(types), free(ins), free(dicts), free(texts);
}

/* Whether `fn` (a func.func) is the entry the option names ("": every
   public function). */
static bool isEntry(MlirOperation fn, MlirStringRef entry) {
  if (!dlcOpIs(fn, "func.func") ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0))))
    return false;
  MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(fn, str("sym_name")));
  if (entry.length > 0)
    return name.length == entry.length && memcmp(name.data, entry.data, name.length) == 0;
  MlirAttribute vis = mlirOperationGetAttributeByName(fn, str("sym_visibility"));
  return mlirAttributeIsNull(vis);
}

/* The checks found so far, numbered in program order (a region's before
   the ops after its parent), with their messages. */
typedef struct Checks {
  char **msgs;
  intptr_t n;
  bool failed; /* an error was emitted: a check that cannot be built */
} Checks;

/* The codes of one block, in program order. */
typedef struct Codes {
  MlirValue *v;
  intptr_t n;
} Codes;

static void pushCode(Codes *codes, MlirValue c) {
  if (mlirValueIsNull(c))
    return;
  codes->v = dlcXrealloc(codes->v, sizeof *codes->v * (size_t)(codes->n + 1));
  codes->v[codes->n++] = c;
}

/* Adds check `c` and its message (none when `c` is null). */
static void addCheck(Checks *all, Codes *codes, MlirValue c, char *msg) {
  if (mlirValueIsNull(c)) {
    free(msg);
    return;
  }
  all->msgs = dlcXrealloc(all->msgs, sizeof *all->msgs * (size_t)(all->n + 1));
  all->msgs[all->n++] = msg;
  pushCode(codes, c);
}

static MlirType statusType(MlirContext ctx) {
  return mlirRankedTensorTypeGet(0, NULL, mlirIntegerTypeGet(ctx, 32), mlirAttributeGetNull());
}

/* The first of `codes` (0-d i32) that is not 0, in order, else 0: the
   check a step-by-step run would have stopped at (GatherND's component
   test, not the flattened gather after it). */
static MlirValue firstFailed(DlcBuilder *b, intptr_t n, const MlirValue *codes) {
  MlirValue status = codes[0];
  MlirValue zero = n > 1 ? scalar(b, mlirIntegerTypeGet(b->context, 32), 0) : (MlirValue){NULL};
  for (intptr_t i = 1; i < n; ++i) {
    MlirValue set = dlcBuildValue(b, "dlg.not_equal", DLC_VALUES(status, zero), DLC_NO_ATTRS);
    status = dlcBuildValue(b, "dlg.where", DLC_VALUES(set, status, codes[i]), DLC_NO_ATTRS);
  }
  return status;
}

/* Appends `v` to the operands of `block`'s terminator. */
static void appendToTerminator(MlirBlock block, MlirValue v) {
  MlirOperation term = mlirBlockGetTerminator(block);
  intptr_t n = mlirOperationGetNumOperands(term);
  MlirValue *vals = dlcXmalloc(sizeof *vals * (size_t)(n + 1));
  for (intptr_t i = 0; i < n; ++i)
    vals[i] = mlirOperationGetOperand(term, i);
  vals[n] = v;
  mlirOperationSetOperands(term, n + 1, vals);
  free(vals);
}

/* `op` (dlg.if or dlg.while) again with `extra` (if not null) appended to
   its operands and a status result after its own, attributes kept; op is
   erased. */
static MlirOperation withStatusResult(MlirOperation op, MlirValue extra) {
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue *ops = dlcXmalloc(sizeof *ops * (size_t)(n + 1));
  for (intptr_t i = 0; i < n; ++i)
    ops[i] = mlirOperationGetOperand(op, i);
  if (!mlirValueIsNull(extra))
    ops[n++] = extra;
  MlirType status = statusType(mlirOperationGetContext(op));
  MlirOperation out = dlcRebuildTakingRegions(op, mlirIdentifierStr(mlirOperationGetName(op)), n,
                                              ops, 1, &status, true);
  mlirOperationDestroy(op);
  free(ops);
  return out;
}

static MlirValue checkBlock(MlirBlock block, Checks *all);

/* The checks of `op`'s two regions (their blocks and statuses); whether
   either has any. */
static bool checkRegions(MlirOperation op, MlirBlock blocks[2], MlirValue s[2], Checks *all) {
  for (intptr_t r = 0; r < 2; ++r) {
    blocks[r] = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
    s[r] = checkBlock(blocks[r], all);
  }
  return !mlirValueIsNull(s[0]) || !mlirValueIsNull(s[1]);
}

/* dlg.if: each region yields its status (0 where it has no checks) as a
   result of its own, the if's status. */
static MlirValue checkIf(MlirOperation *op, Checks *all) {
  MlirBlock blocks[2];
  MlirValue s[2];
  if (!checkRegions(*op, blocks, s, all))
    return (MlirValue){NULL};
  for (intptr_t r = 0; r < 2; ++r) {
    if (mlirValueIsNull(s[r])) {
      MlirOperation term = mlirBlockGetTerminator(blocks[r]);
      DlcBuilder b = dlcBuilderBefore(term, mlirOperationGetLocation(term));
      s[r] = scalar(&b, mlirIntegerTypeGet(b.context, 32), 0);
    }
    appendToTerminator(blocks[r], s[r]);
  }
  *op = withStatusResult(*op, (MlirValue){NULL});
  return mlirOperationGetResult(*op, mlirOperationGetNumResults(*op) - 1);
}

/* dlg.while: the status is one more carried value, 0 at first; each
   region passes on the carried one while it is not 0 (the first failure
   in time), else its own. The loop's last result is the status. */
static MlirValue checkWhile(MlirOperation *op, Checks *all) {
  MlirBlock blocks[2];
  MlirValue s[2];
  if (!checkRegions(*op, blocks, s, all))
    return (MlirValue){NULL};
  MlirContext ctx = mlirOperationGetContext(*op);
  MlirLocation loc = mlirOperationGetLocation(*op);
  for (intptr_t r = 0; r < 2; ++r) {
    MlirValue carried = mlirBlockAddArgument(blocks[r], statusType(ctx), loc);
    MlirValue pass = carried;
    if (!mlirValueIsNull(s[r])) {
      MlirOperation term = mlirBlockGetTerminator(blocks[r]);
      DlcBuilder b = dlcBuilderBefore(term, mlirOperationGetLocation(term));
      pass = firstFailed(&b, DLC_VALUES(carried, s[r]));
    }
    appendToTerminator(blocks[r], pass);
  }
  DlcBuilder b = dlcBuilderBefore(*op, loc);
  MlirValue zero = scalar(&b, mlirIntegerTypeGet(ctx, 32), 0);
  *op = withStatusResult(*op, zero);
  return mlirOperationGetResult(*op, mlirOperationGetNumResults(*op) - 1);
}

/* The gathers in a dlk.kernel's body (a kernel written by hand: the
   pipeline fuses only after this pass), checked before the kernel on the
   kernel operands their indices are. Indices the kernel computes, and an
   importer's verdict inside a kernel, cannot reach the status from there:
   an error at the op, not an unchecked marker. */
static void checkKernel(MlirOperation kernel, Checks *all, Codes *codes) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    bool gather = dlcOpIs(op, "dlg.gather");
    if (!gather && mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("dlc.check"))))
      continue;
    MlirValue idx = gather ? mlirOperationGetOperand(op, 1) : (MlirValue){NULL};
    if (gather && mlirValueIsABlockArgument(idx) &&
        mlirBlockEqual(mlirBlockArgumentGetOwner(idx), body)) {
      MlirValue outer = mlirOperationGetOperand(kernel, mlirBlockArgumentGetArgNumber(idx));
      char *msg = NULL;
      addCheck(all, codes, checkGather(op, outer, kernel, all->n + 1, &msg), msg);
      continue;
    }
    char *where = describeOp(op);
    char buf[512];
    snprintf(buf, sizeof buf,
             "dlg-runtime-checks: %s at %s inside a dlk.kernel checks indices the kernel "
             "computes, which cannot be checked at run time from there; compute them outside "
             "the kernel",
             gather ? "dlg.gather" : "a run-time check", where);
    free(where);
    mlirEmitError(mlirOperationGetLocation(op), buf);
    all->failed = true;
  }
}

/* Adds the checks of `block`'s ops, those in the regions of its dlg.if and
   dlg.while ops and the bodies of its dlk.kernel ops included, and returns
   the block's status (firstFailed, built before its terminator), null
   when it has no checks. */
static MlirValue checkBlock(MlirBlock block, Checks *all) {
  Codes codes = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (dlcOpIs(op, "dlg.if")) {
      pushCode(&codes, checkIf(&op, all));
    } else if (dlcOpIs(op, "dlg.while")) {
      pushCode(&codes, checkWhile(&op, all));
    } else if (dlcOpIs(op, "dlk.kernel")) {
      checkKernel(op, all, &codes);
    } else if (dlcOpIs(op, "dlg.gather")) {
      char *msg = NULL;
      addCheck(all, &codes, checkGather(op, mlirOperationGetOperand(op, 1), op, all->n + 1, &msg),
               msg);
    } else if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("dlc.check")))) {
      char *msg = NULL;
      addCheck(all, &codes, checkImported(op, all->n + 1, &msg), msg);
    }
  }
  MlirValue status = {NULL};
  if (codes.n > 0) {
    MlirOperation term = mlirBlockGetTerminator(block);
    DlcBuilder b = dlcBuilderBefore(term, mlirOperationGetLocation(term));
    status = firstFailed(&b, codes.n, codes.v);
  }
  free(codes.v);
  return status;
}

/* False when a check could not be built (an error was emitted). */
static bool checkFunction(MlirOperation fn, DlcPass *pass) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(fn, str("dlc.runtime_checks"))))
    return true; /* checked already: the pass may run twice */
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (!dlcOpIs(ret, "func.return"))
    return true;
  Checks all = {0};
  MlirValue status = checkBlock(body, &all);
  if (!mlirValueIsNull(status) && !all.failed) {
    addStatusResult(fn, mlirBlockGetTerminator(body), status, all.msgs, all.n);
    dlcPassAddStatistic(pass, "checks", (uint64_t)all.n);
  }
  for (intptr_t i = 0; i < all.n; ++i)
    free(all.msgs[i]);
  free(all.msgs);
  return !all.failed;
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state;
  MlirStringRef entry = dlcOptionsGetString(dlcPassGetOptions(pass), "entry");
  MlirBlock top = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool found = false, ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(top); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (isEntry(op, entry)) {
      ok = checkFunction(op, pass) && ok;
      found = true;
    }
  if (!found && entry.length > 0) { /* a misspelt entry would check nothing, silently */
    char msg[320];
    snprintf(msg, sizeof msg, "dlg-runtime-checks: entry '%.*s' names no function with a body",
             (int)(entry.length > 200 ? 200 : entry.length), entry.data);
    mlirEmitError(mlirOperationGetLocation(module), msg);
    return (MlirLogicalResult){0};
  }
  return (MlirLogicalResult){ok};
}

static const DlcOptionDesc kOptions[] = {
    {"entry", "the function to check (empty: every public function)", DLC_OPTION_STRING, ""},
};

static const DlcStatisticDesc kStats[] = {{"checks", "run-time checks added"}};

const DlcPassDescriptor dlcDlgRuntimeChecksPass = {
    .argument = "dlg-runtime-checks",
    .summary = "Return, as an entry's last result (dlc.status), the code of the run-time check "
               "its inputs fail (a dlg.gather index outside its axis), 0 when none",
    .anchor = "builtin.module",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof *kOptions,
    .statistics = kStats,
    .numStatistics = sizeof kStats / sizeof *kStats,
    .run = run,
};
