//===- DlkOps.h - dlk dialect declarations ----------------------*- C++ -*-===//

#ifndef DLC_DIALECTS_DLK_DLKOPS_H
#define DLC_DIALECTS_DLK_DLKOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dlk/DlkOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dlk/DlkOpsAttrs.h.inc"

namespace mlir::dlk {
class YieldOp;
}

#define GET_OP_CLASSES
#include "dlk/DlkOps.h.inc"

#endif // DLC_DIALECTS_DLK_DLKOPS_H
