//===- DlgFamily.cpp - the C query of a dlg op's family ---------*- C++ -*-===//
//
// dlc-c/DlgFamily.h's op-family functions: which Family<F>::Impl trait (DlgOps.td's
// Dlg_*Family) a registered dlg op carries, and the list of dlg ops with what
// the Python builder needs of each. No family is decided here: the ODS
// definitions are the one place that says which op belongs where.
//
//===----------------------------------------------------------------------===//

#include "dlg/DlgOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include "llvm/ADT/STLExtras.h"

#include <array>
#include <utility>

using namespace mlir;
using namespace mlir::dlg;

namespace {

/// The TypeID of each family's trait, indexed by DlcOpFamily (NONE has none).
template <size_t... F>
std::array<TypeID, DLC_OP_FAMILY_COUNT> familyTraitIds(std::index_sequence<F...>) {
  return {TypeID(),
          TypeID::get<Family<static_cast<DlcOpFamily>(F + 1)>::template Impl>()...};
}

const std::array<TypeID, DLC_OP_FAMILY_COUNT> &traitIds() {
  static const auto ids =
      familyTraitIds(std::make_index_sequence<DLC_OP_FAMILY_COUNT - 1>());
  return ids;
}

// Lower-case names, in DlcOpFamily order (the lit tests and Python print them).
constexpr const char *kFamilyNames[] = {
    "none",       "constant",  "unary", "binary",      "compare",
    "select",     "cast",      "channel_affine", "norm", "reduction",
    "pool",       "contraction", "layout", "data_movement", "gather",
    "control",    "selection"};
static_assert(std::size(kFamilyNames) == DLC_OP_FAMILY_COUNT,
              "one name per DlcOpFamily");

DlcOpFamily familyOf(OperationName name) {
  if (!name.isRegistered() || name.getDialectNamespace() != "dlg")
    return DLC_OP_FAMILY_NONE;
  for (int f = 1; f < DLC_OP_FAMILY_COUNT; ++f)
    if (name.hasTrait(traitIds()[f]))
      return static_cast<DlcOpFamily>(f);
  return DLC_OP_FAMILY_NONE; // unreachable: Dlg_Op requires a family
}

std::optional<RegisteredOperationName> lookup(MlirContext ctx,
                                              MlirStringRef name) {
  auto op = RegisteredOperationName::lookup(unwrap(name), unwrap(ctx));
  if (!op || op->getDialectNamespace() != "dlg")
    return std::nullopt;
  return op;
}

/// The dlg ops sorted by name (the context keeps them in an order of its own).
SmallVector<RegisteredOperationName> dlgOps(MlirContext ctx) {
  unwrap(ctx)->getOrLoadDialect<DlgDialect>();
  SmallVector<RegisteredOperationName> ops(
      unwrap(ctx)->getRegisteredOperationsByDialect("dlg"));
  llvm::sort(ops, [](RegisteredOperationName a, RegisteredOperationName b) {
    return a.getStringRef() < b.getStringRef();
  });
  return ops;
}

} // namespace

DlcOpFamily dlcDlgOpGetFamily(MlirOperation op) {
  return familyOf(unwrap(op)->getName());
}

DlcOpFamily dlcDlgOpFamilyOfName(MlirContext ctx, MlirStringRef name) {
  auto op = lookup(ctx, name);
  return op ? familyOf(*op) : DLC_OP_FAMILY_NONE;
}

const char *dlcOpFamilyGetName(DlcOpFamily family) {
  int f = static_cast<int>(family);
  return f > 0 && f < DLC_OP_FAMILY_COUNT ? kFamilyNames[f] : kFamilyNames[0];
}

intptr_t dlcDlgGetNumOps(MlirContext ctx) { return dlgOps(ctx).size(); }

MlirStringRef dlcDlgGetOpName(MlirContext ctx, intptr_t i) {
  SmallVector<RegisteredOperationName> ops = dlgOps(ctx);
  if (i < 0 || static_cast<size_t>(i) >= ops.size())
    return MlirStringRef{nullptr, 0};
  return wrap(ops[i].getStringRef());
}

bool dlcDlgOpInfersResultType(MlirContext ctx, MlirStringRef name) {
  auto op = lookup(ctx, name);
  return op && op->hasInterface<InferTypeOpInterface>();
}

intptr_t dlcDlgOpGetNumAttributes(MlirContext ctx, MlirStringRef name) {
  auto op = lookup(ctx, name);
  return op ? op->getAttributeNames().size() : 0;
}

MlirStringRef dlcDlgOpGetAttributeName(MlirContext ctx, MlirStringRef name,
                                       intptr_t i) {
  auto op = lookup(ctx, name);
  if (!op || i < 0 || static_cast<size_t>(i) >= op->getAttributeNames().size())
    return MlirStringRef{nullptr, 0};
  return wrap(op->getAttributeNames()[i].getValue());
}
