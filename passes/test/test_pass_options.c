/* --dlc-test-pass-options: a test-only pass that records the value of one
   option of each kind as a `dlc.test_options` attribute on the op it runs
   on, so lit tests can check option parsing, defaults and cloning in the C
   pass adapter. */

#include "dlc-test/TestPasses.h"

#include "dlc-c/Pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>

static MlirLogicalResult run(MlirOperation op, void *state, DlcPass *pass) {
  const DlcOptions *o = dlcPassGetOptions(pass);
  const int64_t *list;
  intptr_t n = dlcOptionsGetIntList(o, "tile", &list);
  MlirStringRef name = dlcOptionsGetString(o, "name");
  char text[512];
  int len = snprintf(text, sizeof text, "flag=%d count=%lld ratio=%g name=%.*s tile=[",
                     dlcOptionsGetBool(o, "flag"),
                     (long long)dlcOptionsGetInt(o, "count"),
                     dlcOptionsGetDouble(o, "ratio"), (int)name.length, name.data);
  for (intptr_t i = 0; i < n && len < (int)sizeof text - 24; ++i)
    len += snprintf(text + len, sizeof text - len, "%s%lld", i ? "," : "",
                    (long long)list[i]);
  snprintf(text + len, sizeof text - len, "]");
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("dlc.test_options"),
      mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(text)));
  dlcPassAddStatistic(pass, "visits", 1);
  /* `fail=true` checks that a C failure becomes a pass failure. */
  if (!dlcOptionsGetBool(o, "fail"))
    return mlirLogicalResultSuccess();
  mlirEmitError(mlirOperationGetLocation(op), "dlc-test-pass-options failed as asked");
  return mlirLogicalResultFailure();
}

static const DlcOptionDesc kOptions[] = {
    {"flag", "A bool option", DLC_OPTION_BOOL, "false"},
    {"count", "An int option", DLC_OPTION_INT, "3"},
    {"ratio", "A double option", DLC_OPTION_DOUBLE, "0.5"},
    {"name", "A string option", DLC_OPTION_STRING, "dflt"},
    {"tile", "An int-list option", DLC_OPTION_INT_LIST, "4,8"},
    {"fail", "Report failure after the remark", DLC_OPTION_BOOL, "false"},
};

static const DlcStatisticDesc kStatistics[] = {{"visits", "Ops visited"}};

const DlcPassDescriptor dlcTestPassOptionsPass = {
    .argument = "dlc-test-pass-options",
    .summary = "Test only: records its option values in a dlc.test_options attribute",
    .anchor = "func.func",
    .options = kOptions,
    .numOptions = sizeof kOptions / sizeof kOptions[0],
    .statistics = kStatistics,
    .numStatistics = 1,
    .run = run,
};

void dlcRegisterTestPasses(void) { dlcPassRegister(&dlcTestPassOptionsPass); }
