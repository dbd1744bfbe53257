/*===-- capi/lib/Entry.c - A module's entry function and its types -*- C -*-===*\
|*                                                                            *|
|* See Entry.h.                                                               *|
\*===----------------------------------------------------------------------===*/

#include "Entry.h"

#include "dlc-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

char *dlcFormat(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = dlcXmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

char *dlcDiagnosticsOr(const DlcDiagnostics *d, const char *fallback) {
  const char *t = dlcDiagnosticsText(d);
  return dlcFormat("%s", t && *t ? t : fallback);
}

bool dlcElementDType(MlirType e, DlcDType *out) {
  if (mlirTypeIsAF32(e)) *out = DLC_F32;
  else if (mlirTypeIsAF16(e)) *out = DLC_F16;
  else if (mlirTypeIsABF16(e)) *out = DLC_BF16;
  else if (mlirTypeIsAF64(e)) *out = DLC_F64;
  else if (mlirTypeIsAInteger(e)) {
    unsigned w = mlirIntegerTypeGetWidth(e);
    if (w == 1) *out = DLC_I1;
    else if (w == 8) *out = DLC_I8;
    else if (w == 32) *out = DLC_I32;
    else if (w == 64) *out = DLC_I64;
    else return false;
  } else
    return false;
  return true;
}

char *dlcReadTensorType(MlirType t, const char *what, intptr_t i, DlcTensorType *out) {
  if (!mlirTypeIsARankedTensor(t) || !dlcElementDType(mlirShapedTypeGetElementType(t), &out->dtype))
    return dlcFormat("%s %ld is not a ranked tensor of a supported element type", what, (long)i);
  out->rank = (int32_t)mlirShapedTypeGetRank(t);
  if (out->rank > DLC_MAX_RANK)
    return dlcFormat("%s %ld has rank > %d", what, (long)i, DLC_MAX_RANK);
  DlcTensorType fixed = *out; /* dynamic dims as 1 for the size check */
  for (int32_t d = 0; d < out->rank; ++d) {
    out->dims[d] = mlirShapedTypeIsDynamicDim(t, d) ? DLC_DYNAMIC_DIM
                                                    : mlirShapedTypeGetDimSize(t, d);
    fixed.dims[d] = out->dims[d] == DLC_DYNAMIC_DIM ? 1 : out->dims[d];
  }
  if (dlcTensorTypeNumBytes(&fixed) < 0) {
    char buf[256];
    return dlcFormat("%s %ld (%s) has more than %lld bytes, the largest tensor dlc handles",
                  what, (long)i, dlcTensorTypeFormat(out, buf, sizeof buf),
                  (long long)INT64_MAX);
  }
  return NULL;
}

static bool isPublic(MlirOperation f) {
  return mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("sym_visibility")));
}

MlirStringRef dlcFuncSymName(MlirOperation f) {
  return mlirStringAttrGetValue(mlirOperationGetAttributeByName(f, str("sym_name")));
}

char *dlcFindEntry(MlirModule m, const char *want, MlirOperation *out) {
  MlirOperation only = {NULL}, main = {NULL};
  int publics = 0;
  char names[512] = "";
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirIdentifier name = mlirOperationGetName(op);
    MlirStringRef s = mlirIdentifierStr(name);
    if (!(s.length == 9 && memcmp(s.data, "func.func", 9) == 0) ||
        mlirRegionIsNull(mlirOperationGetRegion(op, 0)) ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirStringRef sym = dlcFuncSymName(op);
    if (n < sizeof names - 1)
      n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s", n ? ", " : "",
                            (int)sym.length, sym.data);
    if (want && strlen(want) == sym.length && memcmp(want, sym.data, sym.length) == 0) {
      *out = op;
      return NULL;
    }
    if (sym.length == 4 && memcmp(sym.data, "main", 4) == 0)
      main = op;
    if (isPublic(op))
      ++publics, only = op;
  }
  if (want)
    return dlcFormat("unknown entry '%s' (functions: %s)", want, n ? names : "none");
  if (publics == 1) {
    *out = only;
    return NULL;
  }
  if (!mlirOperationIsNull(main)) {
    *out = main;
    return NULL;
  }
  return dlcFormat("no entry function: %s; name one with --entry",
                publics ? "several public functions and none is 'main'" : "no public function");
}

char *dlcEntryAddChecks(MlirModule m, MlirOperation entry, intptr_t *numChecks,
                        char ***messages) {
  *numChecks = 0;
  *messages = NULL;
  MlirStringRef name = dlcFuncSymName(entry);
  char *pipeline = dlcFormat("builtin.module(dlg-runtime-checks{entry=%.*s})", (int)name.length,
                             name.data);
  bool ok = mlirLogicalResultIsSuccess(dlcRunPipeline(mlirModuleGetOperation(m), pipeline));
  free(pipeline);
  if (!ok)
    return dlcFormat("the run-time checks of @%.*s failed to build", (int)name.length, name.data);
  MlirAttribute all = mlirOperationGetAttributeByName(entry, str("dlc.runtime_checks"));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all))
    return NULL;
  intptr_t n = mlirArrayAttrGetNumElements(all);
  char **msgs = dlcXcalloc((size_t)n + 1, sizeof *msgs);
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute a = mlirArrayAttrGetElement(all, i);
    MlirStringRef t = mlirAttributeIsAString(a) ? mlirStringAttrGetValue(a) : str("?");
    msgs[i] = dlcFormat("%.*s", (int)t.length, t.data);
  }
  *numChecks = n;
  *messages = msgs;
  return NULL;
}

void dlcFreeChecks(char **messages, intptr_t numChecks) {
  for (intptr_t i = 0; i < numChecks; ++i)
    free(messages[i]);
  free(messages);
}
