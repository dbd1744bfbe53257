//===- Parallel.cpp - MLIR's parallelFor for C passes -----------*- C++ -*-===//
//
// The C API cannot run work on a context's thread pool. mlir::parallelFor
// does, as the pass manager's nested pipelines do; it also orders the
// bodies' diagnostics by index (its ParallelDiagnosticHandler).
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Pass.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Threading.h"

#include <atomic>

using namespace mlir;

MlirLogicalResult dlcParallelFor(MlirContext ctx, intptr_t n, DlcParallelBody body,
                                 void *user) {
  std::atomic<bool> failed{false};
  parallelFor(unwrap(ctx), 0, n > 0 ? (size_t)n : 0, [&](size_t i) {
    if (mlirLogicalResultIsFailure(body((intptr_t)i, user)))
      failed = true;
  });
  return failed ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}
