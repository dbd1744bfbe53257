/* Float unary dlg ops that are one math dialect op each (the trigonometric
   and hyperbolic family): one table for the elementwise lowering. The math
   ops reach LLVM through math-expand-ops, convert-math-to-llvm and
   convert-math-to-libm (libm calls, vectors scalarised). */

#include "lowering/emit.h"

#include <string.h>

static const char *const kMathUnary[][2] = {
    {"dlg.sin", "math.sin"},     {"dlg.cos", "math.cos"},     {"dlg.tan", "math.tan"},
    {"dlg.asin", "math.asin"},   {"dlg.acos", "math.acos"},   {"dlg.atan", "math.atan"},
    {"dlg.sinh", "math.sinh"},   {"dlg.cosh", "math.cosh"},   {"dlg.asinh", "math.asinh"},
    {"dlg.acosh", "math.acosh"}, {"dlg.atanh", "math.atanh"},
};

const char *dlcMathUnaryOp(MlirStringRef name) {
  for (size_t i = 0; i < sizeof kMathUnary / sizeof kMathUnary[0]; ++i)
    if (name.length == strlen(kMathUnary[i][0]) &&
        memcmp(name.data, kMathUnary[i][0], name.length) == 0)
      return kMathUnary[i][1];
  return NULL;
}
