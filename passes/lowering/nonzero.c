/* The lowering of dlg.non_zero to loops on tensors, as NonMaxSuppression
   (nms.c): a private function per input type, called where the op was.

   One loop over the elements in row-major order; the linear index is split
   into the element's index by the static dims (divisions by constants),
   and a nonzero element writes that index as column `count` of the result
   (one row per dim) and bumps the count. The result starts filled with -1,
   the padding past the count. "Nonzero" is the element's own comparison
   with zero: unordered-or-unequal for floats (NaN is nonzero, -0.0 is
   not), unequal for integers, the value itself for booleans. */

#include "lowering/lower.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  MlirType type;     /* the input's tensor type */
  char elem[16];     /* its element type as MLIR writes it */
  int64_t rank, elements;
  int64_t dims[16];
} NonZeroArgs;

static void appendText(MlirStringRef s, void *user) {
  FILE *f = user;
  fwrite(s.data, 1, s.length, f);
}

static char *functionText(const void *args, const char *name) {
  const NonZeroArgs *a = args;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  char out[64];
  snprintf(out, sizeof out, "tensor<%" PRId64 "x%" PRId64 "xi64>", a->rank, a->elements);
  fprintf(f, "func.func private @%s(%%x: ", name);
  mlirTypePrint(a->type, appendText, f);
  fprintf(f, ") -> (%s, tensor<i64>) attributes {dlc.nonzero_loops} {\n"
             "  %%c0 = arith.constant 0 : index\n"
             "  %%c1 = arith.constant 1 : index\n"
             "  %%ne = arith.constant %" PRId64 " : index\n"
             "  %%none = arith.constant -1 : i64\n"
             "  %%e = tensor.empty() : %s\n"
             "  %%init = linalg.fill ins(%%none : i64) outs(%%e : %s) -> %s\n"
             "  %%res:2 = scf.for %%i = %%c0 to %%ne step %%c1 iter_args(%%o = %%init, %%k = %%c0) "
             "-> (%s, index) {\n",
          out, a->elements, out, out, out, out);
  /* the element's index: the last dim varies fastest */
  fprintf(f, "    %%t%" PRId64 " = arith.addi %%i, %%c0 : index\n", a->rank);
  for (int64_t r = a->rank - 1; r >= 0; --r) {
    fprintf(f, "    %%d%" PRId64 " = arith.constant %" PRId64 " : index\n", r, a->dims[r]);
    fprintf(f, "    %%x%" PRId64 " = arith.remui %%t%" PRId64 ", %%d%" PRId64 " : index\n", r,
            r + 1, r);
    fprintf(f, "    %%t%" PRId64 " = arith.divui %%t%" PRId64 ", %%d%" PRId64 " : index\n", r,
            r + 1, r);
  }
  fprintf(f, "    %%v = tensor.extract %%x[");
  for (int64_t r = 0; r < a->rank; ++r)
    fprintf(f, "%s%%x%" PRId64, r ? ", " : "", r);
  fprintf(f, "] : ");
  mlirTypePrint(a->type, appendText, f);
  fprintf(f, "\n");
  /* i1 too: `arith.constant 0 : i1` is false */
  if (a->elem[0] == 'i')
    fprintf(f, "    %%zero = arith.constant 0 : %s\n"
               "    %%nz = arith.cmpi ne, %%v, %%zero : %s\n", a->elem, a->elem);
  else
    fprintf(f, "    %%zero = arith.constant 0.0 : %s\n"
               "    %%nz = arith.cmpf une, %%v, %%zero : %s\n", a->elem, a->elem);
  fprintf(f, "    %%r:2 = scf.if %%nz -> (%s, index) {\n", out);
  /* column k, one row per dim: %o0 .. %o(rank-1), each into the last */
  for (int64_t r = 0; r < a->rank; ++r) {
    char prev[32];
    if (r)
      snprintf(prev, sizeof prev, "%%o%" PRId64, r - 1);
    else
      snprintf(prev, sizeof prev, "%%o");
    fprintf(f, "      %%r%" PRId64 " = arith.constant %" PRId64 " : index\n"
               "      %%y%" PRId64 " = arith.index_cast %%x%" PRId64 " : index to i64\n"
               "      %%o%" PRId64 " = tensor.insert %%y%" PRId64 " into %s[%%r%" PRId64
               ", %%k] : %s\n",
            r, r, r, r, r, r, prev, r, out);
  }
  fprintf(f, "      %%k1 = arith.addi %%k, %%c1 : index\n"
             "      scf.yield %%o%" PRId64 ", %%k1 : %s, index\n"
             "    } else {\n"
             "      scf.yield %%o, %%k : %s, index\n"
             "    }\n"
             "    scf.yield %%r#0, %%r#1 : %s, index\n"
             "  }\n"
             "  %%n64 = arith.index_cast %%res#1 : index to i64\n"
             "  %%count = tensor.from_elements %%n64 : tensor<i64>\n"
             "  return %%res#0, %%count : %s, tensor<i64>\n"
             "}\n",
          a->rank - 1, out, out, out, out);
  fclose(f);
  return text;
}

int dlcLowerNonZero(MlirOperation op, bool hostLoops) {
  if (!hostLoops) {
    dlcLowerFail(op, "dlk-to-linalg: 'dlg.non_zero' (its loops run on the host) is not "
                     "supported by this pipeline (control-flow=false: the GPU pipeline)");
    return 0;
  }
  NonZeroArgs a;
  memset(&a, 0, sizeof a);
  a.type = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (!mlirShapedTypeHasStaticShape(a.type)) {
    dlcLowerFail(op, "dlk-to-linalg: 'dlg.non_zero' needs a static shape (its input has a "
                     "dynamic dim)");
    return 0;
  }
  a.rank = mlirShapedTypeGetRank(a.type);
  if (a.rank < 1 || a.rank > (int64_t)(sizeof a.dims / sizeof a.dims[0])) {
    dlcLowerFail(op, "dlk-to-linalg: 'dlg.non_zero' of a rank its loops do not take");
    return 0;
  }
  a.elements = 1;
  for (int64_t r = 0; r < a.rank; ++r) {
    a.dims[r] = mlirShapedTypeGetDimSize(a.type, r);
    a.elements *= a.dims[r]; /* fits: the shape rule checked rank * elements * 8 */
  }
  MlirType elem = mlirShapedTypeGetElementType(a.type);
  char *elemText = NULL;
  size_t elemLen = 0;
  FILE *f = open_memstream(&elemText, &elemLen);
  if (f) {
    mlirTypePrint(elem, appendText, f);
    fclose(f);
  }
  if (!elemText || elemLen == 0 || elemLen >= sizeof a.elem) {
    free(elemText);
    dlcLowerFail(op, "dlk-to-linalg: internal error: the element type of 'dlg.non_zero' "
                     "could not be printed");
    return 0;
  }
  memcpy(a.elem, elemText, elemLen + 1);
  free(elemText);
  /* One function per input type: the name says everything it depends on. */
  char name[256];
  int n = snprintf(name, sizeof name, "dlc_nonzero_");
  for (int64_t r = 0; r < a.rank && n < (int)sizeof name; ++r)
    n += snprintf(name + n, sizeof name - (size_t)n, "%" PRId64 "x", a.dims[r]);
  if (n < (int)sizeof name)
    snprintf(name + n, sizeof name - (size_t)n, "%s", a.elem);
  return dlcLowerToLoopFunction(op, name, "dlc.nonzero_loops", functionText, &a);
}
