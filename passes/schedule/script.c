/* The transform-script mechanism shared by the schedules (script.h). */

#include "schedule/script.h"

#include "schedule/analysis.h"
#include "support/attr_names.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Transform/Interpreter.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dlcScriptEmit(DlcScript *s, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || n >= (int)sizeof buf) {
    s->failed = true;
    return;
  }
  dlcTextAppend(mlirStringRefCreate(buf, (size_t)n), &s->text);
}

void dlcScriptBegin(DlcScript *s) {
  dlcScriptEmit(s, "module attributes {transform.with_named_sequence} {\n"
                   "  transform.named_sequence @__transform_main(%%m: !transform.any_op "
                   "{transform.readonly}) {\n");
}

void dlcScriptEnd(DlcScript *s) { dlcScriptEmit(s, "    transform.yield\n  }\n}\n"); }

static void emitSizes(DlcScript *s, const int64_t *sizes, int n) {
  dlcScriptEmit(s, "[");
  for (int i = 0; i < n; ++i)
    dlcScriptEmit(s, "%s%lld", i ? ", " : "", (long long)sizes[i]);
  dlcScriptEmit(s, "]");
}

/* ` : (!transform.any_op) -> (!transform.any_op, ...)` with `results`. */
static void emitTypes(DlcScript *s, int results) {
  dlcScriptEmit(s, " : (!transform.any_op) -> (");
  for (int i = 0; i < results; ++i)
    dlcScriptEmit(s, "%s!transform.any_op", i ? ", " : "");
  dlcScriptEmit(s, ")\n");
}

int dlcCountNonZero(const int64_t *sizes, int n) {
  int c = 0;
  for (int i = 0; i < n; ++i)
    c += sizes[i] != 0;
  return c;
}

int dlcScriptMatchTagged(DlcScript *s, const char *attr, int64_t id) {
  int h = s->next++;
  dlcScriptEmit(s,
                "    %%h%d = transform.structured.match attributes{%s = %lld : i64} in %%m"
                " : (!transform.any_op) -> !transform.any_op\n",
                h, attr, (long long)id);
  return h;
}

int dlcScriptMatch(DlcScript *s, int64_t sid) {
  return dlcScriptMatchTagged(s, DLC_ATTR_SCHEDULE_ID, sid);
}

void dlcScriptMatchAll(DlcScript *s, int64_t firstSid, int n, int *handles) {
  for (int i = 0; i < n; ++i)
    handles[i] = dlcScriptMatch(s, firstSid + i);
}

int dlcScriptTileFor(DlcScript *s, int h, const int64_t *sizes, int n, int *innermost) {
  int loops = dlcCountNonZero(sizes, n);
  if (innermost)
    *innermost = -1;
  if (loops == 0)
    return h;
  int t = s->next;
  s->next += 1 + loops;
  dlcScriptEmit(s, "    %%h%d", t);
  for (int i = 1; i <= loops; ++i)
    dlcScriptEmit(s, ", %%h%d", t + i);
  dlcScriptEmit(s, " = transform.structured.tile_using_for %%h%d tile_sizes ", h);
  emitSizes(s, sizes, n);
  emitTypes(s, 1 + loops);
  if (innermost)
    *innermost = t + loops;
  return t;
}

void dlcScriptSplit(DlcScript *s, int h, int dim, int64_t after, int *lo, int *hi) {
  int parts = s->next;
  *lo = s->next + 1, *hi = s->next + 2;
  s->next += 3;
  dlcScriptEmit(s,
                "    %%h%d = transform.structured.split %%h%d after %lld { dimension = %d }"
                " : !transform.any_op\n",
                parts, h, (long long)after, dim);
  dlcScriptEmit(s,
                "    %%h%d, %%h%d = transform.split_handle %%h%d"
                " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
                *lo, *hi, parts);
}

int dlcScriptTileForall(DlcScript *s, int *h, const int64_t *sizes, int n, const char *gpuKind) {
  static const char *const kDims[] = {"x", "y", "z"};
  int t = s->next;
  s->next += 2;
  dlcScriptEmit(s, "    %%h%d, %%h%d = transform.structured.tile_using_forall %%h%d tile_sizes ", t,
                t + 1, *h);
  emitSizes(s, sizes, n);
  if (gpuKind) {
    dlcScriptEmit(s, " (mapping = [");
    int k = dlcCountNonZero(sizes, n), first = 1;
    for (int d = 0; d < n; ++d)
      if (sizes[d]) {
        dlcScriptEmit(s, "%s#gpu.%s<%s>", first ? "" : ", ", gpuKind, kDims[--k]);
        first = 0;
      }
    dlcScriptEmit(s, "])");
  }
  emitTypes(s, 2);
  *h = t;
  return t + 1;
}

int dlcScriptFuseInto(DlcScript *s, int *h, int containing) {
  int f = s->next;
  s->next += 2;
  dlcScriptEmit(s,
                "    %%h%d, %%h%d = transform.structured.fuse_into_containing_op %%h%d into %%h%d"
                " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, "
                "!transform.any_op)\n",
                f, f + 1, *h, containing);
  *h = f;
  return f + 1;
}

int dlcScriptTileAndFuse(DlcScript *s, int *handles, int numOps, const int64_t *sizes, int n,
                         const char *gpuKind) {
  int forall = dlcScriptTileForall(s, &handles[numOps - 1], sizes, n, gpuKind);
  for (int i = numOps - 2; i >= 0; --i)
    forall = dlcScriptFuseInto(s, &handles[i], forall);
  return forall;
}

void dlcScriptVectorize(DlcScript *s, int h) {
  dlcScriptEmit(s, "    transform.structured.vectorize %%h%d : !transform.any_op\n", h);
}

void dlcScriptFoldUnitDimsAndVectorize(DlcScript *s, int loop) {
  dlcScriptEmit(s,
                "    transform.apply_patterns to %%h%d {\n"
                "      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices\n"
                "    } : !transform.any_op\n",
                loop);
  int v = s->next++;
  dlcScriptEmit(s,
                "    %%h%d = transform.structured.match ops{[\"linalg.generic\"]} in %%h%d"
                " : (!transform.any_op) -> !transform.any_op\n",
                v, loop);
  dlcScriptVectorize(s, v);
}

/* The attribute is llvm.br's own name, loop_annotation: convert-scf-to-cf
   copies a loop's attributes to its back edge and convert-cf-to-llvm sets
   them on the llvm.br, where only the inherent name reaches the LLVM IR
   (a prefixed llvm.loop_annotation stays a discardable attribute that the
   translation ignores). */
void dlcScriptKeepRolled(DlcScript *s, int loop) {
  int p = s->next++;
  dlcScriptEmit(s,
                "    %%h%d = transform.param.constant "
                "#llvm.loop_annotation<unroll = <disable = true>> -> !transform.any_param\n"
                "    transform.annotate %%h%d \"loop_annotation\" = %%h%d"
                " : !transform.any_op, !transform.any_param\n",
                p, loop, p);
}

void dlcScriptMarkHoistOnlyLoop(DlcScript *s, int h) {
  dlcScriptEmit(
      s, "    transform.annotate %%h%d \"" DLC_ATTR_HOIST_ONLY_LOOP "\" : !transform.any_op\n", h);
}

void dlcScriptMarkReductionLoop(DlcScript *s, int h) {
  dlcScriptEmit(
      s, "    transform.annotate %%h%d \"" DLC_ATTR_REDUCTION_LOOP "\" : !transform.any_op\n", h);
}

/* The partial sums' tile, shared by the dot tile and the vector tile of a
   trailing reduction: tiles `t`'s reduction by `sizes`, vectorises the
   partial sums' fill, the partial op and the merge, and keeps the
   partial sums in registers across the loop. */
static void partialSums(DlcScript *s, int t, const int64_t *sizes, int n) {
  int r = s->next;
  s->next += 4;
  dlcScriptEmit(s,
                "    %%h%d, %%h%d, %%h%d, %%h%d = transform.structured.tile_reduction_using_for"
                " %%h%d by tile_sizes = ",
                r, r + 1, r + 2, r + 3, t);
  emitSizes(s, sizes, n);
  emitTypes(s, 4);
  for (int i = 0; i < 3; ++i) /* the partial sums' fill, the partial op, the merge */
    dlcScriptVectorize(s, r + i);
  /* the vector of partial sums is the loop's accumulator: hoisted out of
     it (dlcScriptVectorLowering), it stays in registers rather than make
     a load-add-store round trip through memory every step */
  if (s->hoistPartials)
    dlcScriptMarkReductionLoop(s, r + 3);
}

static void dotTile(DlcScript *s, int h, int n, int64_t mr, int64_t nr, int64_t vw) {
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS] = {0};
  for (int d = 0; d < n - 3; ++d)
    sizes[d] = 1;
  sizes[n - 3] = mr;
  sizes[n - 2] = nr;
  int t = dlcScriptTileFor(s, h, sizes, n, NULL);
  memset(sizes, 0, sizeof sizes);
  sizes[n - 1] = vw;
  partialSums(s, t, sizes, n);
}

void dlcScriptDotTile(DlcScript *s, int h, int n, int64_t mr, int64_t nr, int64_t vw,
                      int64_t cols) {
  int64_t whole = cols / nr * nr;
  if (whole == cols || whole == 0) {
    dotTile(s, h, n, mr, whole ? nr : cols, vw);
    return;
  }
  int lo, hi;
  dlcScriptSplit(s, h, n - 2, whole, &lo, &hi);
  dotTile(s, lo, n, mr, nr, vw);
  dotTile(s, hi, n, mr, cols - whole, vw);
}

void dlcScriptVectorTile(DlcScript *s, int h, const DlcLinalgInfo *o, const int64_t *ext,
                         int64_t vectorWidth) {
  int n = o->loops.numLoops;
  if (!o->vectorizable || n == 0)
    return;
  int64_t sizes[DLC_SCHEDULE_MAX_LOOPS];
  int64_t v = dlcVectorTile(ext[n - 1], vectorWidth);
  for (int d = 0; d < n; ++d)
    sizes[d] = ext[d] == 1 ? 0 : 1;
  if (o->combiner && ext[n - 1] > v) {
    sizes[n - 1] = 0;
    int t = dlcScriptTileFor(s, h, sizes, n, NULL);
    memset(sizes, 0, sizeof sizes);
    sizes[n - 1] = v;
    partialSums(s, t, sizes, n);
    return;
  }
  sizes[n - 1] = v == ext[n - 1] ? 0 : v;
  dlcScriptVectorize(s, dlcScriptTileFor(s, h, sizes, n, NULL));
}

void dlcScriptVectorLowering(DlcScript *s, int unroll, bool lowerTranspose) {
  dlcScriptEmit(s, "    %%vf = transform.structured.match ops{[\"func.func\"]} in %%m"
                   " : (!transform.any_op) -> !transform.any_op\n"
                   "    transform.apply_patterns to %%vf {\n"
                   "      transform.apply_patterns.vector.reduction_to_contract\n"
                   "      transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n"
                   "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                   "      transform.apply_patterns.canonicalization\n"
                   "    } : !transform.any_op\n");
  dlcScriptEmit(s, "    %%kloops = transform.structured.match attributes{" DLC_ATTR_REDUCTION_LOOP
                   "} in %%m : (!transform.any_op) -> !transform.any_op\n"
                   "    transform.loop.hoist_loop_invariant_subsets %%kloops"
                   " : !transform.any_op\n"
                   "    %%hoistonly = transform.structured.match attributes{" DLC_ATTR_HOIST_ONLY_LOOP
                   "} in %%m : (!transform.any_op) -> !transform.any_op\n"
                   "    transform.loop.hoist_loop_invariant_subsets %%hoistonly"
                   " : !transform.any_op\n");
  if (unroll > 1)
    dlcScriptEmit(s, "    transform.loop.unroll %%kloops {factor = %d} : !transform.any_op\n",
                  unroll);
  dlcScriptEmit(s,
                "    transform.apply_patterns to %%vf {\n"
                "      transform.apply_patterns.vector.lower_contraction"
                " lowering_strategy = \"outerproduct\"\n"
                "      transform.apply_patterns.vector.lower_multi_reduction"
                " lowering_strategy = \"innerreduction\"\n%s"
                "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
                "      transform.apply_patterns.canonicalization\n"
                "    } : !transform.any_op\n",
                lowerTranspose ? "      transform.apply_patterns.vector.lower_transpose"
                                 " lowering_strategy = \"eltwise\"\n"
                               : "");
  dlcScriptEnd(s);
}

MlirLogicalResult dlcScriptRun(DlcScript *s, MlirOperation module, const char *pass, bool print) {
  MlirLocation loc = mlirOperationGetLocation(module);
  char msg[256];
  if (s->failed) {
    snprintf(msg, sizeof msg, "%s: script line too long", pass);
    mlirEmitError(loc, msg);
    return (MlirLogicalResult){0};
  }
  if (print)
    fputs(dlcTextGet(&s->text), stderr);
  MlirModule script = mlirModuleCreateParse(mlirOperationGetContext(module),
                                            mlirStringRefCreateFromCString(dlcTextGet(&s->text)));
  if (mlirModuleIsNull(script)) {
    snprintf(msg, sizeof msg,
             "%s: generated an invalid transform script (print it with print-transform)", pass);
    mlirEmitError(loc, msg);
    return (MlirLogicalResult){0};
  }
  MlirOperation sop = mlirModuleGetOperation(script);
  MlirOperation entry =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(sop, 0)));
  MlirTransformOptions topts = mlirTransformOptionsCreate();
  MlirLogicalResult r = mlirTransformApplyNamedSequence(module, entry, sop, topts);
  mlirTransformOptionsDestroy(topts);
  mlirModuleDestroy(script);
  return r;
}

void dlcScriptFree(DlcScript *s) {
  dlcTextFree(&s->text);
  *s = (DlcScript){.text = {NULL, 0, 0}};
}
