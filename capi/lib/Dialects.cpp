//===- Dialects.cpp - C handles of the dlg and dlk dialects ----*- C++ -*-===//
//
// The only C++ of the C API: MLIR's registration macro needs the dialect
// classes. Everything else in capi/lib is C.
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Dialects.h"

#include "dlg/DlgOps.h"
#include "dlk/DlkOps.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dlg, dlg, mlir::dlg::DlgDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dlk, dlk, mlir::dlk::DlkDialect)
