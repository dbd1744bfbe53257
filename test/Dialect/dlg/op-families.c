/* The op-family query of dlc-c/Dlg.h: every dlg op, in the dialect's order,
   with its family (from its Dlg_*Family trait in DlgOps.td), whether it
   infers its result type, and its attributes; the family of parsed ops
   agrees with the by-name query; non-dlg and unknown names have none; the
   generic elementwise builder refuses an op of another family. The list is
   checked line by line (CHECK-NEXT), so an op added without a line here, or
   moved to another family, fails this test. */
// RUN: %cc %s -o %t %ldlc && %t 2>&1 | FileCheck %s

#include "dlc-c/Dialects.h"
#include "dlc-c/Context.h"
#include "dlc-c/Dlg.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <string.h>

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

static void printToStdout(MlirStringRef s, void *u) { fwrite(s.data, 1, s.length, stdout); }

/* Diagnostics with their location: the builder's error is reported there. */
static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *u) {
  fputs("diagnostic at ", stdout);
  mlirLocationPrint(mlirDiagnosticGetLocation(d), printToStdout, NULL);
  fputs(": ", stdout);
  mlirDiagnosticPrint(d, printToStdout, NULL);
  fputc('\n', stdout);
  return mlirLogicalResultSuccess();
}

static void listOps(MlirContext ctx) {
  intptr_t n = dlcDlgGetNumOps(ctx);
  for (intptr_t i = 0; i < n; ++i) {
    MlirStringRef name = dlcDlgGetOpName(ctx, i);
    printf("%.*s %s%s", (int)name.length, name.data,
           dlcOpFamilyGetName(dlcDlgOpFamilyOfName(ctx, name)),
           dlcDlgOpInfersResultType(ctx, name) ? "" : " typed");
    for (intptr_t a = 0; a < dlcDlgOpGetNumAttributes(ctx, name); ++a) {
      MlirStringRef attr = dlcDlgOpGetAttributeName(ctx, name, a);
      printf(" %.*s", (int)attr.length, attr.data);
    }
    printf("\n");
  }
  printf("ops: %ld\n", (long)n);
  MlirStringRef past = dlcDlgGetOpName(ctx, n);
  printf("past the end: %s\n", past.data == NULL ? "null" : "not null");
}

/* Each op of a parsed function: its family, and whether the by-name query
   gives the same. */
static void walkParsed(MlirContext ctx) {
  const char *src =
      "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {\n"
      "  %0 = dlg.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>\n"
      "  %1 = dlg.relu %0 : tensor<4x3xf32>\n"
      "  %2 = dlg.reshape %1 : tensor<4x3xf32> -> tensor<12xf32>\n"
      "  %3 = dlg.reshape %2 : tensor<12xf32> -> tensor<4x3xf32>\n"
      "  return %3 : tensor<4x3xf32>\n"
      "}\n";
  MlirModule m = dlcModuleParse(ctx, ref(src), "families");
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
  printf("func.func: %s\n", dlcOpFamilyGetName(dlcDlgOpGetFamily(func)));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    DlcOpFamily f = dlcDlgOpGetFamily(op);
    printf("parsed %.*s: %s%s\n", (int)name.length, name.data, dlcOpFamilyGetName(f),
           f == dlcDlgOpFamilyOfName(ctx, name) ? "" : " (by name: differs)");
  }
  mlirModuleDestroy(m);
}

int main(void) {
  MlirContext ctx = dlcContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  listOps(ctx);
  walkParsed(ctx);

  const char *others[] = {"dlg.nonexistent", "dlk.kernel", "arith.addf", "dlg", ""};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; ++i)
    printf("'%s': %s\n", others[i], dlcOpFamilyGetName(dlcDlgOpFamilyOfName(ctx, ref(others[i]))));
  /* COUNT is past the last family (a value outside the enum's range would be
     undefined behaviour on the C++ side, so none is passed). */
  printf("out of range: %s\n", dlcOpFamilyGetName(DLC_OP_FAMILY_COUNT));

  /* The generic elementwise builder: fine for exp, refused for matmul. */
  MlirLocation loc = mlirLocationFileLineColGet(ctx, ref("families.c"), 1, 1);
  MlirBlock block = mlirBlockCreate(0, NULL, NULL);
  MlirType t = mlirRankedTensorTypeGet(1, (int64_t[]){3}, mlirF32TypeGet(ctx),
                                       mlirAttributeGetNull());
  MlirValue x = mlirBlockAddArgument(block, t, loc);
  DlcBuilder b = dlcBuilderAtEnd(block, loc);
  MlirValue e = dlcDlgBuildElementwise(&b, "dlg.exp", DLC_VALUES(x));
  printf("exp built: %s\n", mlirValueIsNull(e) ? "no" : "yes");
  MlirValue bad = dlcDlgBuildElementwise(&b, "dlg.matmul", DLC_VALUES(x, x));
  printf("matmul built: %s\n", mlirValueIsNull(bad) ? "no" : "yes");
  mlirBlockDestroy(block);
  mlirContextDestroy(ctx);
  return 0;
}

// CHECK-LABEL: dlg.abs unary
// CHECK-NEXT: dlg.acos unary
// CHECK-NEXT: dlg.acosh unary
// CHECK-NEXT: dlg.add binary
// CHECK-NEXT: dlg.asin unary
// CHECK-NEXT: dlg.asinh unary
// CHECK-NEXT: dlg.atan unary
// CHECK-NEXT: dlg.atanh unary
// CHECK-NEXT: dlg.avg_pool2d pool ceil_mode count_include_pad kernel padding strides
// CHECK-NEXT: dlg.batch_norm channel_affine axis epsilon
// CHECK-NEXT: dlg.cast cast typed
// CHECK-NEXT: dlg.clamp unary max min
// CHECK-NEXT: dlg.concat data_movement axis
// CHECK-NEXT: dlg.condition control typed
// CHECK-NEXT: dlg.constant constant value
// CHECK-NEXT: dlg.conv2d contraction dilations groups padding strides
// CHECK-NEXT: dlg.cos unary
// CHECK-NEXT: dlg.cosh unary
// CHECK-NEXT: dlg.div binary
// CHECK-NEXT: dlg.equal compare
// CHECK-NEXT: dlg.erf unary
// CHECK-NEXT: dlg.exp unary
// CHECK-NEXT: dlg.fmod binary
// CHECK-NEXT: dlg.gather gather axis
// CHECK-NEXT: dlg.gelu unary approximate
// CHECK-NEXT: dlg.greater compare
// CHECK-NEXT: dlg.greater_equal compare
// CHECK-NEXT: dlg.if control typed
// CHECK-NEXT: dlg.layer_norm norm axis epsilon operandSegmentSizes
// CHECK-NEXT: dlg.less compare
// CHECK-NEXT: dlg.less_equal compare
// CHECK-NEXT: dlg.log unary
// CHECK-NEXT: dlg.log_softmax norm axis
// CHECK-NEXT: dlg.matmul contraction transpose_a transpose_b
// CHECK-NEXT: dlg.max binary
// CHECK-NEXT: dlg.max_pool2d pool ceil_mode kernel padding strides
// CHECK-NEXT: dlg.min binary
// CHECK-NEXT: dlg.mul binary
// CHECK-NEXT: dlg.neg unary
// CHECK-NEXT: dlg.non_max_suppression selection center_point_box iou_threshold max_output_boxes_per_class score_threshold
// CHECK-NEXT: dlg.non_zero selection
// CHECK-NEXT: dlg.not_equal compare
// CHECK-NEXT: dlg.pad data_movement pads value
// CHECK-NEXT: dlg.pow binary
// CHECK-NEXT: dlg.reduce_max reduction axes keepdims
// CHECK-NEXT: dlg.reduce_mean reduction axes keepdims
// CHECK-NEXT: dlg.reduce_min reduction axes keepdims
// CHECK-NEXT: dlg.reduce_sum reduction axes keepdims
// CHECK-NEXT: dlg.relu unary
// CHECK-NEXT: dlg.reshape layout typed
// CHECK-NEXT: dlg.rms_norm norm axis epsilon
// CHECK-NEXT: dlg.rsqrt unary
// CHECK-NEXT: dlg.sigmoid unary
// CHECK-NEXT: dlg.silu unary
// CHECK-NEXT: dlg.sin unary
// CHECK-NEXT: dlg.sinh unary
// CHECK-NEXT: dlg.slice data_movement ends starts steps
// CHECK-NEXT: dlg.softmax norm axis
// CHECK-NEXT: dlg.sqrt unary
// CHECK-NEXT: dlg.sub binary
// CHECK-NEXT: dlg.tan unary
// CHECK-NEXT: dlg.tanh unary
// CHECK-NEXT: dlg.transpose layout perm
// CHECK-NEXT: dlg.update_row control
// CHECK-NEXT: dlg.where select
// CHECK-NEXT: dlg.while control typed
// CHECK-NEXT: dlg.yield control typed
// CHECK-NEXT: ops: 67
// CHECK-NEXT: past the end: null
// CHECK-NEXT: func.func: none
// CHECK-NEXT: parsed dlg.matmul: contraction
// CHECK-NEXT: parsed dlg.relu: unary
// CHECK-NEXT: parsed dlg.reshape: layout
// CHECK-NEXT: parsed dlg.reshape: layout
// CHECK-NEXT: parsed func.return: none
// CHECK-NEXT: 'dlg.nonexistent': none
// CHECK-NEXT: 'dlk.kernel': none
// CHECK-NEXT: 'arith.addf': none
// CHECK-NEXT: 'dlg': none
// CHECK-NEXT: '': none
// CHECK-NEXT: out of range: none
// CHECK-NEXT: exp built: yes
// CHECK-NEXT: diagnostic at loc("families.c":1:1): 'dlg.matmul' is not an elementwise dlg op (family contraction; expected unary, binary, compare or select)
// CHECK-NEXT: matmul built: no
