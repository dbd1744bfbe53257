/* The lowering of dlg.non_max_suppression to loops on tensors (scf.for,
   tensor.extract / tensor.insert), written once as MLIR text: a private
   function per distinct shape and attribute set, called where the op was.
   The pipeline's `inline` pass puts the loops back in the caller before
   bufferization, which makes the inserts in place.

   The algorithm is onnxruntime's, reorganised to cost O(N) per kept box
   instead of a sort: per batch and class, repeatedly take the live box of
   highest score (ties: the lower index; NaN scores last), keep it and kill
   every live box it overlaps by more than the threshold. Killing eagerly
   keeps exactly the boxes the sorted greedy pass keeps: the next live box
   of highest score is the first in score order that no kept box suppresses.
   Overlaps are computed in f32 with onnxruntime's operations in its order
   (corners by its MaxMin, no overlap and zero areas never suppress), so
   the kept boxes are bit-for-bit its choice. */

#include "lowering/lower.h"

#include "dlc-c/Builder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Support.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A float attribute as the f32 hex literal MLIR parses exactly. */
static uint32_t f32Bits(double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The function's text. Shapes B x N x 4 boxes, B x C x N scores, K kept at
   most per class, M = B * C * K padded rows. `%thr` is the score threshold
   (unused when `scoreThreshold` is false). */
static char *functionText(const char *name, int64_t B, int64_t C, int64_t N, int64_t K,
                          bool center, uint32_t iou, bool scoreThreshold, uint32_t score) {
  /* Corners of box i of batch b into %cor [b, i, 0..3] = xmin, ymin, xmax,
     ymax, and its area into %ar. */
  const char *corners = center
      /* [x_center, y_center, width, height]: half = w / 2, min = c - half */
      ? "      %hw = arith.divf %v2, %two : f32\n"
        "      %hh = arith.divf %v3, %two : f32\n"
        "      %xmin = arith.subf %v0, %hw : f32\n"
        "      %xmax = arith.addf %v0, %hw : f32\n"
        "      %ymin = arith.subf %v1, %hh : f32\n"
        "      %ymax = arith.addf %v1, %hh : f32\n"
      /* [y1, x1, y2, x2], either corner first: MaxMin(a, b) = a >= b ? (b, a) : (a, b) */
      : "      %gx = arith.cmpf oge, %v1, %v3 : f32\n"
        "      %xmin = arith.select %gx, %v3, %v1 : f32\n"
        "      %xmax = arith.select %gx, %v1, %v3 : f32\n"
        "      %gy = arith.cmpf oge, %v0, %v2 : f32\n"
        "      %ymin = arith.select %gy, %v2, %v0 : f32\n"
        "      %ymax = arith.select %gy, %v0, %v2 : f32\n";
  char scoreTest[160];
  if (scoreThreshold)
    snprintf(scoreTest, sizeof scoreTest, "        %%ok = arith.cmpf ogt, %%s, %%thr : f32\n");
  else
    snprintf(scoreTest, sizeof scoreTest, "        %%ok = arith.constant true\n");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  int64_t M = B * C * K;
  fprintf(f,
"func.func private @%s(%%boxes: tensor<%" PRId64 "x%" PRId64 "x4xf32>, "
"%%scores: tensor<%" PRId64 "x%" PRId64 "x%" PRId64 "xf32>) -> (tensor<%" PRId64 "x3xi64>, tensor<i64>) "
"attributes {dlc.nms_loops} {\n"
"  %%c0 = arith.constant 0 : index\n"
"  %%c1 = arith.constant 1 : index\n"
"  %%c2 = arith.constant 2 : index\n"
"  %%c3 = arith.constant 3 : index\n"
"  %%nb = arith.constant %" PRId64 " : index\n"
"  %%nc = arith.constant %" PRId64 " : index\n"
"  %%nn = arith.constant %" PRId64 " : index\n"
"  %%nk = arith.constant %" PRId64 " : index\n"
"  %%none = arith.constant -1 : i64\n"
"  %%true = arith.constant true\n"
"  %%false = arith.constant false\n"
"  %%two = arith.constant 2.0 : f32\n"
"  %%zero = arith.constant 0.0 : f32\n"
"  %%iou = arith.constant 0x%08" PRIX32 " : f32\n"
"  %%thr = arith.constant 0x%08" PRIX32 " : f32\n"
"  %%e = tensor.empty() : tensor<%" PRId64 "x3xi64>\n"
"  %%init = linalg.fill ins(%%none : i64) outs(%%e : tensor<%" PRId64 "x3xi64>) -> tensor<%" PRId64 "x3xi64>\n"
"  %%cor0 = tensor.empty() : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"  %%ar0 = tensor.empty() : tensor<%" PRId64 "x%" PRId64 "xf32>\n"
"  %%live0 = tensor.empty() : tensor<%" PRId64 "xi1>\n",
          name, B, N, B, C, N, M, B, C, N, K, iou, score, M, M, M, B, N, B, N, N);
  /* corners and areas, once per box */
  fprintf(f,
"  %%geo:2 = scf.for %%b = %%c0 to %%nb step %%c1 iter_args(%%cb = %%cor0, %%ab = %%ar0) -> (tensor<%" PRId64 "x%" PRId64 "x4xf32>, tensor<%" PRId64 "x%" PRId64 "xf32>) {\n"
"    %%g:2 = scf.for %%i = %%c0 to %%nn step %%c1 iter_args(%%ci = %%cb, %%ai = %%ab) -> (tensor<%" PRId64 "x%" PRId64 "x4xf32>, tensor<%" PRId64 "x%" PRId64 "xf32>) {\n"
"      %%v0 = tensor.extract %%boxes[%%b, %%i, %%c0] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%v1 = tensor.extract %%boxes[%%b, %%i, %%c1] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%v2 = tensor.extract %%boxes[%%b, %%i, %%c2] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%v3 = tensor.extract %%boxes[%%b, %%i, %%c3] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"%s"
"      %%w = arith.subf %%xmax, %%xmin : f32\n"
"      %%h = arith.subf %%ymax, %%ymin : f32\n"
"      %%area = arith.mulf %%w, %%h : f32\n"
"      %%t0 = tensor.insert %%xmin into %%ci[%%b, %%i, %%c0] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%t1 = tensor.insert %%ymin into %%t0[%%b, %%i, %%c1] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%t2 = tensor.insert %%xmax into %%t1[%%b, %%i, %%c2] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%t3 = tensor.insert %%ymax into %%t2[%%b, %%i, %%c3] : tensor<%" PRId64 "x%" PRId64 "x4xf32>\n"
"      %%a1 = tensor.insert %%area into %%ai[%%b, %%i] : tensor<%" PRId64 "x%" PRId64 "xf32>\n"
"      scf.yield %%t3, %%a1 : tensor<%" PRId64 "x%" PRId64 "x4xf32>, tensor<%" PRId64 "x%" PRId64 "xf32>\n"
"    }\n"
"    scf.yield %%g#0, %%g#1 : tensor<%" PRId64 "x%" PRId64 "x4xf32>, tensor<%" PRId64 "x%" PRId64 "xf32>\n"
"  }\n",
          B, N, B, N, B, N, B, N, B, N, B, N, B, N, B, N, corners, B, N, B, N, B, N, B, N, B, N,
          B, N, B, N, B, N, B, N);
  char OUT[64], SC[64], COR[64], AR[64], LIVE[64];
  snprintf(OUT, sizeof OUT, "tensor<%" PRId64 "x3xi64>", M);
  snprintf(SC, sizeof SC, "tensor<%" PRId64 "x%" PRId64 "x%" PRId64 "xf32>", B, C, N);
  snprintf(COR, sizeof COR, "tensor<%" PRId64 "x%" PRId64 "x4xf32>", B, N);
  snprintf(AR, sizeof AR, "tensor<%" PRId64 "x%" PRId64 "xf32>", B, N);
  snprintf(LIVE, sizeof LIVE, "tensor<%" PRId64 "xi1>", N);
  fprintf(f,
"  %%res:2 = scf.for %%b = %%c0 to %%nb step %%c1 iter_args(%%ob = %%init, %%kb = %%c0) -> (%s, index) {\n"
"    %%b64 = arith.index_cast %%b : index to i64\n"
"    %%rc:2 = scf.for %%c = %%c0 to %%nc step %%c1 iter_args(%%oc = %%ob, %%kc = %%kb) -> (%s, index) {\n"
"      %%c64 = arith.index_cast %%c : index to i64\n"
/* live: the boxes above the score threshold */
"      %%live = scf.for %%i = %%c0 to %%nn step %%c1 iter_args(%%l = %%live0) -> (%s) {\n"
"        %%s = tensor.extract %%scores[%%b, %%c, %%i] : %s\n"
"%s"
"        %%l1 = tensor.insert %%ok into %%l[%%i] : %s\n"
"        scf.yield %%l1 : %s\n"
"      }\n",
          OUT, OUT, LIVE, SC, scoreTest, LIVE, LIVE);
  fprintf(f,
"      %%rk:4 = scf.for %%k = %%c0 to %%nk step %%c1 iter_args(%%ok0 = %%oc, %%kk = %%kc, %%lk = %%live, %%done = %%false) -> (%s, index, %s, i1) {\n"
"        %%step:4 = scf.if %%done -> (%s, index, %s, i1) {\n"
"          scf.yield %%ok0, %%kk, %%lk, %%done : %s, index, %s, i1\n"
"        } else {\n"
/* the live box of highest score: strictly greater replaces (ties keep the
   lower index); a number beats a NaN best */
"          %%best:3 = scf.for %%i = %%c0 to %%nn step %%c1 iter_args(%%bi = %%c0, %%bs = %%zero, %%found = %%false) -> (index, f32, i1) {\n"
"            %%li = tensor.extract %%lk[%%i] : %s\n"
"            %%s = tensor.extract %%scores[%%b, %%c, %%i] : %s\n"
"            %%gt = arith.cmpf ogt, %%s, %%bs : f32\n"
"            %%bnan = arith.cmpf uno, %%bs, %%bs : f32\n"
"            %%snum = arith.cmpf ord, %%s, %%s : f32\n"
"            %%over = arith.andi %%bnan, %%snum : i1\n"
"            %%nf = arith.xori %%found, %%true : i1\n"
"            %%g1 = arith.ori %%gt, %%over : i1\n"
"            %%g2 = arith.ori %%g1, %%nf : i1\n"
"            %%take = arith.andi %%li, %%g2 : i1\n"
"            %%ni = arith.select %%take, %%i, %%bi : index\n"
"            %%ns = arith.select %%take, %%s, %%bs : f32\n"
"            %%nf2 = arith.ori %%found, %%take : i1\n"
"            scf.yield %%ni, %%ns, %%nf2 : index, f32, i1\n"
"          }\n"
"          %%next:4 = scf.if %%best#2 -> (%s, index, %s, i1) {\n"
"            %%p = arith.index_cast %%best#0 : index to i64\n"
"            %%o1 = tensor.insert %%b64 into %%ok0[%%kk, %%c0] : %s\n"
"            %%o2 = tensor.insert %%c64 into %%o1[%%kk, %%c1] : %s\n"
"            %%o3 = tensor.insert %%p into %%o2[%%kk, %%c2] : %s\n"
"            %%k1 = arith.addi %%kk, %%c1 : index\n"
"            %%l0 = tensor.insert %%false into %%lk[%%best#0] : %s\n",
          OUT, LIVE, OUT, LIVE, OUT, LIVE, LIVE, SC, OUT, LIVE, OUT, OUT, OUT, LIVE);
  /* kill the live boxes the kept one overlaps too much (onnxruntime's
     SuppressByIOU with box1 the candidate j, box2 the kept p) */
  fprintf(f,
"            %%pxmin = tensor.extract %%geo#0[%%b, %%best#0, %%c0] : %s\n"
"            %%pymin = tensor.extract %%geo#0[%%b, %%best#0, %%c1] : %s\n"
"            %%pxmax = tensor.extract %%geo#0[%%b, %%best#0, %%c2] : %s\n"
"            %%pymax = tensor.extract %%geo#0[%%b, %%best#0, %%c3] : %s\n"
"            %%pa = tensor.extract %%geo#1[%%b, %%best#0] : %s\n"
"            %%lnew = scf.for %%j = %%c0 to %%nn step %%c1 iter_args(%%lj = %%l0) -> (%s) {\n"
"              %%alive = tensor.extract %%lj[%%j] : %s\n"
"              %%lj2 = scf.if %%alive -> (%s) {\n"
"                %%jxmin = tensor.extract %%geo#0[%%b, %%j, %%c0] : %s\n"
"                %%jymin = tensor.extract %%geo#0[%%b, %%j, %%c1] : %s\n"
"                %%jxmax = tensor.extract %%geo#0[%%b, %%j, %%c2] : %s\n"
"                %%jymax = tensor.extract %%geo#0[%%b, %%j, %%c3] : %s\n"
"                %%ja = tensor.extract %%geo#1[%%b, %%j] : %s\n"
/* std::max(a, b) = a < b ? b : a, std::min(a, b) = b < a ? b : a, a the candidate */
"                %%lx = arith.cmpf olt, %%jxmin, %%pxmin : f32\n"
"                %%ixmin = arith.select %%lx, %%pxmin, %%jxmin : f32\n"
"                %%hx = arith.cmpf olt, %%pxmax, %%jxmax : f32\n"
"                %%ixmax = arith.select %%hx, %%pxmax, %%jxmax : f32\n"
"                %%ly = arith.cmpf olt, %%jymin, %%pymin : f32\n"
"                %%iymin = arith.select %%ly, %%pymin, %%jymin : f32\n"
"                %%hy = arith.cmpf olt, %%pymax, %%jymax : f32\n"
"                %%iymax = arith.select %%hy, %%pymax, %%jymax : f32\n"
"                %%nx = arith.cmpf ole, %%ixmax, %%ixmin : f32\n"
"                %%ny = arith.cmpf ole, %%iymax, %%iymin : f32\n"
"                %%iw = arith.subf %%ixmax, %%ixmin : f32\n"
"                %%ih = arith.subf %%iymax, %%iymin : f32\n"
"                %%inter = arith.mulf %%iw, %%ih : f32\n"
"                %%sum = arith.addf %%ja, %%pa : f32\n"
"                %%union = arith.subf %%sum, %%inter : f32\n"
"                %%ratio = arith.divf %%inter, %%union : f32\n"
"                %%ni = arith.cmpf ole, %%inter, %%zero : f32\n"
"                %%nja = arith.cmpf ole, %%ja, %%zero : f32\n"
"                %%npa = arith.cmpf ole, %%pa, %%zero : f32\n"
"                %%nu = arith.cmpf ole, %%union, %%zero : f32\n"
"                %%q1 = arith.ori %%nx, %%ny : i1\n"
"                %%q2 = arith.ori %%q1, %%ni : i1\n"
"                %%q3 = arith.ori %%q2, %%nja : i1\n"
"                %%q4 = arith.ori %%q3, %%npa : i1\n"
"                %%q5 = arith.ori %%q4, %%nu : i1\n"
"                %%over = arith.cmpf ogt, %%ratio, %%iou : f32\n"
"                %%keep = arith.xori %%q5, %%true : i1\n"
"                %%kill = arith.andi %%keep, %%over : i1\n"
"                %%still = arith.xori %%kill, %%true : i1\n"
"                %%lj3 = tensor.insert %%still into %%lj[%%j] : %s\n"
"                scf.yield %%lj3 : %s\n"
"              } else {\n"
"                scf.yield %%lj : %s\n"
"              }\n"
"              scf.yield %%lj2 : %s\n"
"            }\n"
"            scf.yield %%o3, %%k1, %%lnew, %%false : %s, index, %s, i1\n"
"          } else {\n"
"            scf.yield %%ok0, %%kk, %%lk, %%true : %s, index, %s, i1\n"
"          }\n"
"          scf.yield %%next#0, %%next#1, %%next#2, %%next#3 : %s, index, %s, i1\n"
"        }\n"
"        scf.yield %%step#0, %%step#1, %%step#2, %%step#3 : %s, index, %s, i1\n"
"      }\n"
"      scf.yield %%rk#0, %%rk#1 : %s, index\n"
"    }\n"
"    scf.yield %%rc#0, %%rc#1 : %s, index\n"
"  }\n"
"  %%n64 = arith.index_cast %%res#1 : index to i64\n"
"  %%count = tensor.from_elements %%n64 : tensor<i64>\n"
"  return %%res#0, %%count : %s, tensor<i64>\n"
"}\n",
          COR, COR, COR, COR, AR, LIVE, LIVE, LIVE, COR, COR, COR, COR, AR, LIVE, LIVE, LIVE,
          LIVE, OUT, LIVE, OUT, LIVE, OUT, LIVE, OUT, LIVE, OUT, OUT, OUT);
  fclose(f);
  return text;
}

static MlirOperation moduleOf(MlirOperation op) {
  MlirOperation m = op;
  for (MlirOperation p = mlirOperationGetParentOperation(m); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(m))
    m = p;
  return m;
}

int dlcLowerSelection(MlirOperation op, bool hostLoops) {
  if (!dlcOpIs(op, "dlg.non_max_suppression"))
    return -1;
  if (!hostLoops) {
    dlcLowerFail(op, "dlk-to-linalg: 'dlg.non_max_suppression' (its loops run on the host) is "
                     "not supported by this pipeline (host-loops=false: the GPU pipeline)");
    return 0;
  }
  MlirValue boxes = mlirOperationGetOperand(op, 0), scores = mlirOperationGetOperand(op, 1);
  MlirType bt = mlirValueGetType(boxes), st = mlirValueGetType(scores);
  if (!mlirShapedTypeHasStaticShape(bt) || !mlirShapedTypeHasStaticShape(st)) {
    dlcLowerFail(op, "dlk-to-linalg: 'dlg.non_max_suppression' needs static shapes (boxes and "
                     "scores have a dynamic dim)");
    return 0;
  }
  int64_t B = mlirShapedTypeGetDimSize(bt, 0), N = mlirShapedTypeGetDimSize(bt, 1);
  int64_t C = mlirShapedTypeGetDimSize(st, 1);
  int64_t maxOut = dlcGetI64(op, "max_output_boxes_per_class", 0);
  int64_t K = maxOut < N ? maxOut : N;
  bool center = dlcGetBool(op, "center_point_box", false);
  uint32_t iou = f32Bits(dlcGetF64(op, "iou_threshold", 0.0));
  MlirAttribute sa = mlirOperationGetAttributeByName(op, str("score_threshold"));
  bool hasScore = !mlirAttributeIsNull(sa);
  uint32_t score = hasScore ? f32Bits(mlirFloatAttrGetValueDouble(sa)) : 0;
  /* One function per distinct op: the name says everything it depends on. */
  char name[160];
  char scoreName[32] = "_all";
  if (hasScore)
    snprintf(scoreName, sizeof scoreName, "_score%08" PRIX32, score);
  snprintf(name, sizeof name, "dlc_nms_%" PRId64 "x%" PRId64 "x%" PRId64 "_k%" PRId64 "_%s_iou%08" PRIX32 "%s",
           B, C, N, K, center ? "center" : "corner", iou, scoreName);
  MlirOperation module = moduleOf(op);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  MlirOperation found = mlirSymbolTableLookup(table, str(name));
  if (!mlirOperationIsNull(found) &&
      mlirAttributeIsNull(mlirOperationGetAttributeByName(found, str("dlc.nms_loops")))) {
    mlirSymbolTableDestroy(table);
    char msg[256];
    snprintf(msg, sizeof msg, "dlk-to-linalg: the module already has a symbol @%s, the name of "
             "this op's loops", name);
    dlcLowerFail(op, msg);
    return 0;
  }
  if (mlirOperationIsNull(found)) {
    char *text = functionText(name, B, C, N, K, center, iou, hasScore, score);
    MlirOperation fn = text ? mlirOperationCreateParse(ctx, str(text), str("dlc-nms"))
                            : (MlirOperation){NULL};
    free(text);
    if (mlirOperationIsNull(fn)) {
      mlirSymbolTableDestroy(table);
      dlcLowerFail(op, "dlk-to-linalg: internal error: the loops of 'dlg.non_max_suppression' "
                       "did not parse");
      return 0;
    }
    mlirSymbolTableInsert(table, fn);
  }
  mlirSymbolTableDestroy(table);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  MlirType results[2] = {mlirValueGetType(mlirOperationGetResult(op, 0)),
                         mlirValueGetType(mlirOperationGetResult(op, 1))};
  MlirValue operands[2] = {boxes, scores};
  MlirNamedAttribute callee =
      dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  MlirOperation call = dlcBuildOpTyped(&b, "func.call", 2, operands, 2, results, 1, &callee);
  for (int i = 0; i < 2; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(op);
  return 1;
}
