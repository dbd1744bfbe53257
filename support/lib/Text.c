/* Diagnostics and IR as plain text, for hosts without C callbacks
   (see dlc-c/Text.h). */

#include "dlc-c/Text.h"

#include "mlir-c/Diagnostics.h"
#include "shape/Checked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(DlcText *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + n + 1)
      cap *= 2;
    char *grown = realloc(t->data, cap);
    if (!grown)
      return; /* keep what fits: diagnostics are best effort */
    t->data = grown;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = 0;
}

void dlcTextAppend(MlirStringRef s, void *text) { append(text, s.data, s.length); }

const char *dlcTextGet(const DlcText *t) { return t->data ? t->data : ""; }

void dlcTextFree(DlcText *t) {
  free(t->data);
  t->data = NULL;
  t->len = t->cap = 0;
}

struct DlcDiagnostics {
  DlcText text;
  MlirDiagnosticHandlerID id;
};

static const char *severityName(MlirDiagnosticSeverity s) {
  switch (s) {
  case MlirDiagnosticError: return "error";
  case MlirDiagnosticWarning: return "warning";
  case MlirDiagnosticNote: return "note";
  default: return "remark";
  }
}

static MlirLogicalResult collect(MlirDiagnostic diag, void *user) {
  DlcDiagnostics *d = user;
  /* file:line:col as compilers print it; other locations in MLIR's form. */
  MlirLocation loc = mlirDiagnosticGetLocation(diag);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    char pos[48];
    int n = snprintf(pos, sizeof pos, ":%d:%d",
                     mlirLocationFileLineColRangeGetStartLine(loc),
                     mlirLocationFileLineColRangeGetStartColumn(loc));
    append(&d->text, file.data, file.length);
    append(&d->text, pos, (size_t)n);
  } else {
    mlirLocationPrint(loc, dlcTextAppend, &d->text);
  }
  append(&d->text, ": ", 2);
  const char *sev = severityName(mlirDiagnosticGetSeverity(diag));
  append(&d->text, sev, strlen(sev));
  append(&d->text, ": ", 2);
  mlirDiagnosticPrint(diag, dlcTextAppend, &d->text);
  append(&d->text, "\n", 1);
  return mlirLogicalResultSuccess();
}

DlcDiagnostics *dlcDiagnosticsAttach(MlirContext ctx) {
  DlcDiagnostics *d = dlcXcalloc(1, sizeof *d);
  d->id = mlirContextAttachDiagnosticHandler(ctx, collect, d, NULL);
  return d;
}

const char *dlcDiagnosticsText(const DlcDiagnostics *d) {
  return dlcTextGet(&d->text);
}

void dlcDiagnosticsClear(DlcDiagnostics *d) {
  d->text.len = 0;
  if (d->text.data)
    d->text.data[0] = 0;
}

void dlcDiagnosticsDetach(MlirContext ctx, DlcDiagnostics *d) {
  mlirContextDetachDiagnosticHandler(ctx, d->id);
  free(d->text.data);
  free(d);
}

char *dlcOperationToString(MlirOperation op, bool generic) {
  DlcText t = {NULL, 0, 0};
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (generic)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOperationPrintWithFlags(op, flags, dlcTextAppend, &t);
  mlirOpPrintingFlagsDestroy(flags);
  return t.data ? t.data : dlcXcalloc(1, 1);
}

void dlcStringFree(char *s) { free(s); }
