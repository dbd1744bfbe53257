/* The lowering of dlg.non_max_suppression to loops on tensors (scf.for,
   tensor.extract / tensor.insert), written once as MLIR text: a private
   function per distinct shape and attribute set, called where the op was.
   The pipeline's `inline` pass puts the loops back in the caller before
   bufferization, which makes the inserts in place.

   The algorithm is onnxruntime's greedy pass, per batch and class: the
   boxes above the score threshold are sorted once by descending score
   (a stable bottom-up merge sort: ties keep the lower index first, NaN
   scores last), their corners and areas gathered in that order, then one
   walk in that order keeps each live box (while the class has room) and
   kills the live boxes after it that it overlaps by more than the
   threshold. That is O(N log N) plus O(N) per kept box, as torchvision's
   kernel, instead of searching all N scores for each kept box. Overlaps
   are computed in f32 with onnxruntime's operations in its order (corners
   by its MaxMin, no overlap and zero areas never suppress), so the kept
   boxes are bit-for-bit its choice. */

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
   (unused when `scoreThreshold` is false). The scratch tensors (candidate
   order, sorted geometry, live mask) ride the batch and class loops as
   iteration arguments, so bufferization gives each one buffer for the whole
   call instead of an allocation per class. */
static char *functionText(const char *name, int64_t B, int64_t C, int64_t N, int64_t K,
                          bool center, uint32_t iou, bool scoreThreshold, uint32_t score) {
  /* Corners of the box read into %v0..%v3. */
  const char *corners = center
      /* [x_center, y_center, width, height]: half = w / 2, min = c - half */
      ? "          %hw = arith.divf %v2, %two : f32\n"
        "          %hh = arith.divf %v3, %two : f32\n"
        "          %xmin = arith.subf %v0, %hw : f32\n"
        "          %xmax = arith.addf %v0, %hw : f32\n"
        "          %ymin = arith.subf %v1, %hh : f32\n"
        "          %ymax = arith.addf %v1, %hh : f32\n"
      /* [y1, x1, y2, x2], either corner first: MaxMin(a, b) = a >= b ? (b, a) : (a, b) */
      : "          %gx = arith.cmpf oge, %v1, %v3 : f32\n"
        "          %xmin = arith.select %gx, %v3, %v1 : f32\n"
        "          %xmax = arith.select %gx, %v1, %v3 : f32\n"
        "          %gy = arith.cmpf oge, %v0, %v2 : f32\n"
        "          %ymin = arith.select %gy, %v2, %v0 : f32\n"
        "          %ymax = arith.select %gy, %v0, %v2 : f32\n";
  const char *scoreTest = scoreThreshold ? "        %ok = arith.cmpf ogt, %s, %thr : f32\n"
                                         : "        %ok = arith.constant true\n";
  /* Bottom-up merge sort: pass p merges runs of 2^p from row p % 2 of
     %ord into the other row, so the sorted order ends in row passes % 2. */
  int64_t passes = 0;
  while (passes < 63 && ((int64_t)1 << passes) < N)
    ++passes;
  int64_t M = B * C * K;
  char OUT[64], SC[64], BX[64], ORD[64], GEO[64], LIVE[64], ST[256];
  snprintf(OUT, sizeof OUT, "tensor<%" PRId64 "x3xi64>", M);
  snprintf(SC, sizeof SC, "tensor<%" PRId64 "x%" PRId64 "x%" PRId64 "xf32>", B, C, N);
  snprintf(BX, sizeof BX, "tensor<%" PRId64 "x%" PRId64 "x4xf32>", B, N);
  snprintf(ORD, sizeof ORD, "tensor<2x%" PRId64 "xindex>", N);
  snprintf(GEO, sizeof GEO, "tensor<5x%" PRId64 "xf32>", N);
  snprintf(LIVE, sizeof LIVE, "tensor<%" PRId64 "xi1>", N);
  /* the loop-carried state of the batch and class loops */
  snprintf(ST, sizeof ST, "%s, index, %s, %s, %s", OUT, ORD, GEO, LIVE);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  fprintf(f,
"func.func private @%s(%%boxes: %s, %%scores: %s) -> (%s, tensor<i64>) "
"attributes {dlc.nms_loops} {\n"
"  %%c0 = arith.constant 0 : index\n"
"  %%c1 = arith.constant 1 : index\n"
"  %%c2 = arith.constant 2 : index\n"
"  %%c3 = arith.constant 3 : index\n"
"  %%c4 = arith.constant 4 : index\n"
"  %%nb = arith.constant %" PRId64 " : index\n"
"  %%nc = arith.constant %" PRId64 " : index\n"
"  %%nn = arith.constant %" PRId64 " : index\n"
"  %%nk = arith.constant %" PRId64 " : index\n"
"  %%np = arith.constant %" PRId64 " : index\n"
"  %%fin = arith.constant %" PRId64 " : index\n"
"  %%none = arith.constant -1 : i64\n"
"  %%true = arith.constant true\n"
"  %%false = arith.constant false\n"
"  %%two = arith.constant 2.0 : f32\n"
"  %%zero = arith.constant 0.0 : f32\n"
"  %%iou = arith.constant 0x%08" PRIX32 " : f32\n"
"  %%thr = arith.constant 0x%08" PRIX32 " : f32\n"
"  %%e = tensor.empty() : %s\n"
"  %%init = linalg.fill ins(%%none : i64) outs(%%e : %s) -> %s\n"
"  %%ord0 = tensor.empty() : %s\n"
"  %%geo0 = tensor.empty() : %s\n"
"  %%live0 = tensor.empty() : %s\n"
"  %%res:5 = scf.for %%b = %%c0 to %%nb step %%c1 iter_args(%%ob = %%init, %%kb = %%c0, %%rb = %%ord0, %%gb = %%geo0, %%lb = %%live0) -> (%s) {\n"
"    %%b64 = arith.index_cast %%b : index to i64\n"
"    %%rc:5 = scf.for %%c = %%c0 to %%nc step %%c1 iter_args(%%oc = %%ob, %%kc = %%kb, %%rc0 = %%rb, %%gc = %%gb, %%lc = %%lb) -> (%s) {\n"
"      %%c64 = arith.index_cast %%c : index to i64\n",
          name, BX, SC, OUT, B, C, N, K, passes, passes % 2, iou, score, OUT, OUT, OUT, ORD,
          GEO, LIVE, ST, ST);
  /* the candidates (score above the threshold), in index order, in row 0 */
  fprintf(f,
"      %%cand:2 = scf.for %%i = %%c0 to %%nn step %%c1 iter_args(%%o = %%rc0, %%m = %%c0) -> (%s, index) {\n"
"        %%s = tensor.extract %%scores[%%b, %%c, %%i] : %s\n"
"%s"
"        %%r:2 = scf.if %%ok -> (%s, index) {\n"
"          %%o1 = tensor.insert %%i into %%o[%%c0, %%m] : %s\n"
"          %%m1 = arith.addi %%m, %%c1 : index\n"
"          scf.yield %%o1, %%m1 : %s, index\n"
"        } else {\n"
"          scf.yield %%o, %%m : %s, index\n"
"        }\n"
"        scf.yield %%r#0, %%r#1 : %s, index\n"
"      }\n",
          ORD, SC, scoreTest, ORD, ORD, ORD, ORD, ORD);
  /* sorted by descending score, stable (ties keep the lower index first),
     NaN last: the right run's head goes first only when it strictly
     precedes the left's. Exhausted runs are clamped to a valid index and
     masked, so the merge has no branch. */
  fprintf(f,
"      %%sorted = scf.for %%p = %%c0 to %%np step %%c1 iter_args(%%o = %%cand#0) -> (%s) {\n"
"        %%w = arith.shli %%c1, %%p : index\n"
"        %%w2 = arith.shli %%c2, %%p : index\n"
"        %%src = arith.remui %%p, %%c2 : index\n"
"        %%dst = arith.subi %%c1, %%src : index\n"
"        %%pass = scf.for %%lo = %%c0 to %%cand#1 step %%w2 iter_args(%%q = %%o) -> (%s) {\n"
"          %%mid0 = arith.addi %%lo, %%w : index\n"
"          %%mid = arith.minui %%mid0, %%cand#1 : index\n"
"          %%hi0 = arith.addi %%lo, %%w2 : index\n"
"          %%hi = arith.minui %%hi0, %%cand#1 : index\n"
"          %%midm1 = arith.subi %%mid, %%c1 : index\n"
"          %%him1 = arith.subi %%hi, %%c1 : index\n"
"          %%mg:3 = scf.for %%k = %%lo to %%hi step %%c1 iter_args(%%t = %%q, %%i = %%lo, %%j = %%mid) -> (%s, index, index) {\n"
"            %%il = arith.cmpi ult, %%i, %%mid : index\n"
"            %%jl = arith.cmpi ult, %%j, %%hi : index\n"
"            %%ic = arith.minui %%i, %%midm1 : index\n"
"            %%jc = arith.minui %%j, %%him1 : index\n"
"            %%xi = tensor.extract %%t[%%src, %%ic] : %s\n"
"            %%xj = tensor.extract %%t[%%src, %%jc] : %s\n"
"            %%si = tensor.extract %%scores[%%b, %%c, %%xi] : %s\n"
"            %%sj = tensor.extract %%scores[%%b, %%c, %%xj] : %s\n"
"            %%gt = arith.cmpf ogt, %%sj, %%si : f32\n"
"            %%ni = arith.cmpf uno, %%si, %%si : f32\n"
"            %%nj = arith.cmpf ord, %%sj, %%sj : f32\n"
"            %%nan = arith.andi %%ni, %%nj : i1\n"
"            %%before = arith.ori %%gt, %%nan : i1\n"
"            %%ie = arith.xori %%il, %%true : i1\n"
"            %%rfirst = arith.ori %%ie, %%before : i1\n"
"            %%right = arith.andi %%jl, %%rfirst : i1\n"
"            %%x = arith.select %%right, %%xj, %%xi : index\n"
"            %%t1 = tensor.insert %%x into %%t[%%dst, %%k] : %s\n"
"            %%i1 = arith.addi %%i, %%c1 : index\n"
"            %%j1 = arith.addi %%j, %%c1 : index\n"
"            %%in = arith.select %%right, %%i, %%i1 : index\n"
"            %%jn = arith.select %%right, %%j1, %%j : index\n"
"            scf.yield %%t1, %%in, %%jn : %s, index, index\n"
"          }\n"
"          scf.yield %%mg#0 : %s\n"
"        }\n"
"        scf.yield %%pass : %s\n"
"      }\n",
          ORD, ORD, ORD, ORD, ORD, SC, SC, ORD, ORD, ORD, ORD);
  /* corners and areas in sorted order (one row per coordinate, so the
     suppression loop reads five contiguous rows), all alive */
  fprintf(f,
"      %%geo:2 = scf.for %%p = %%c0 to %%cand#1 step %%c1 iter_args(%%g = %%gc, %%l = %%lc) -> (%s, %s) {\n"
"          %%x = tensor.extract %%sorted[%%fin, %%p] : %s\n"
"          %%v0 = tensor.extract %%boxes[%%b, %%x, %%c0] : %s\n"
"          %%v1 = tensor.extract %%boxes[%%b, %%x, %%c1] : %s\n"
"          %%v2 = tensor.extract %%boxes[%%b, %%x, %%c2] : %s\n"
"          %%v3 = tensor.extract %%boxes[%%b, %%x, %%c3] : %s\n"
"%s"
"          %%wd = arith.subf %%xmax, %%xmin : f32\n"
"          %%ht = arith.subf %%ymax, %%ymin : f32\n"
"          %%area = arith.mulf %%wd, %%ht : f32\n"
"          %%g0 = tensor.insert %%xmin into %%g[%%c0, %%p] : %s\n"
"          %%g1 = tensor.insert %%ymin into %%g0[%%c1, %%p] : %s\n"
"          %%g2 = tensor.insert %%xmax into %%g1[%%c2, %%p] : %s\n"
"          %%g3 = tensor.insert %%ymax into %%g2[%%c3, %%p] : %s\n"
"          %%g4 = tensor.insert %%area into %%g3[%%c4, %%p] : %s\n"
"          %%l1 = tensor.insert %%true into %%l[%%p] : %s\n"
"          scf.yield %%g4, %%l1 : %s, %s\n"
"      }\n",
          GEO, LIVE, ORD, BX, BX, BX, BX, corners, GEO, GEO, GEO, GEO, GEO, LIVE, GEO, LIVE);
  /* the greedy walk in score order: a live box is kept (while the class
     has room) and kills the live boxes after it that it overlaps by more
     than the threshold (onnxruntime's SuppressByIOU, box1 the candidate
     q, box2 the kept p); boxes before it are already kept or dead */
  fprintf(f,
"      %%walk:4 = scf.for %%p = %%c0 to %%cand#1 step %%c1 iter_args(%%o = %%oc, %%kk = %%kc, %%kn = %%c0, %%l = %%geo#1) -> (%s, index, index, %s) {\n"
"        %%a = tensor.extract %%l[%%p] : %s\n"
"        %%room = arith.cmpi ult, %%kn, %%nk : index\n"
"        %%go = arith.andi %%a, %%room : i1\n"
"        %%step:4 = scf.if %%go -> (%s, index, index, %s) {\n"
"          %%x = tensor.extract %%sorted[%%fin, %%p] : %s\n"
"          %%x64 = arith.index_cast %%x : index to i64\n"
"          %%o1 = tensor.insert %%b64 into %%o[%%kk, %%c0] : %s\n"
"          %%o2 = tensor.insert %%c64 into %%o1[%%kk, %%c1] : %s\n"
"          %%o3 = tensor.insert %%x64 into %%o2[%%kk, %%c2] : %s\n"
"          %%kk1 = arith.addi %%kk, %%c1 : index\n"
"          %%kn1 = arith.addi %%kn, %%c1 : index\n"
"          %%pxmin = tensor.extract %%geo#0[%%c0, %%p] : %s\n"
"          %%pymin = tensor.extract %%geo#0[%%c1, %%p] : %s\n"
"          %%pxmax = tensor.extract %%geo#0[%%c2, %%p] : %s\n"
"          %%pymax = tensor.extract %%geo#0[%%c3, %%p] : %s\n"
"          %%pa = tensor.extract %%geo#0[%%c4, %%p] : %s\n"
"          %%p1 = arith.addi %%p, %%c1 : index\n"
"          %%lnew = scf.for %%q = %%p1 to %%cand#1 step %%c1 iter_args(%%lq = %%l) -> (%s) {\n"
"            %%alive = tensor.extract %%lq[%%q] : %s\n"
"            %%lq2 = scf.if %%alive -> (%s) {\n"
"              %%jxmin = tensor.extract %%geo#0[%%c0, %%q] : %s\n"
"              %%jymin = tensor.extract %%geo#0[%%c1, %%q] : %s\n"
"              %%jxmax = tensor.extract %%geo#0[%%c2, %%q] : %s\n"
"              %%jymax = tensor.extract %%geo#0[%%c3, %%q] : %s\n"
"              %%ja = tensor.extract %%geo#0[%%c4, %%q] : %s\n",
          OUT, LIVE, LIVE, OUT, LIVE, ORD, OUT, OUT, OUT, GEO, GEO, GEO, GEO, GEO, LIVE, LIVE,
          LIVE, GEO, GEO, GEO, GEO, GEO);
  fprintf(f,
/* std::max(a, b) = a < b ? b : a, std::min(a, b) = b < a ? b : a, a the candidate */
"              %%lx = arith.cmpf olt, %%jxmin, %%pxmin : f32\n"
"              %%ixmin = arith.select %%lx, %%pxmin, %%jxmin : f32\n"
"              %%hx = arith.cmpf olt, %%pxmax, %%jxmax : f32\n"
"              %%ixmax = arith.select %%hx, %%pxmax, %%jxmax : f32\n"
"              %%ly = arith.cmpf olt, %%jymin, %%pymin : f32\n"
"              %%iymin = arith.select %%ly, %%pymin, %%jymin : f32\n"
"              %%hy = arith.cmpf olt, %%pymax, %%jymax : f32\n"
"              %%iymax = arith.select %%hy, %%pymax, %%jymax : f32\n"
"              %%nx = arith.cmpf ole, %%ixmax, %%ixmin : f32\n"
"              %%ny = arith.cmpf ole, %%iymax, %%iymin : f32\n"
"              %%iw = arith.subf %%ixmax, %%ixmin : f32\n"
"              %%ih = arith.subf %%iymax, %%iymin : f32\n"
"              %%inter = arith.mulf %%iw, %%ih : f32\n"
"              %%sum = arith.addf %%ja, %%pa : f32\n"
"              %%union = arith.subf %%sum, %%inter : f32\n"
"              %%ratio = arith.divf %%inter, %%union : f32\n"
"              %%ni = arith.cmpf ole, %%inter, %%zero : f32\n"
"              %%nja = arith.cmpf ole, %%ja, %%zero : f32\n"
"              %%npa = arith.cmpf ole, %%pa, %%zero : f32\n"
"              %%nu = arith.cmpf ole, %%union, %%zero : f32\n"
"              %%q1 = arith.ori %%nx, %%ny : i1\n"
"              %%q2 = arith.ori %%q1, %%ni : i1\n"
"              %%q3 = arith.ori %%q2, %%nja : i1\n"
"              %%q4 = arith.ori %%q3, %%npa : i1\n"
"              %%q5 = arith.ori %%q4, %%nu : i1\n"
"              %%over = arith.cmpf ogt, %%ratio, %%iou : f32\n"
"              %%keep = arith.xori %%q5, %%true : i1\n"
"              %%kill = arith.andi %%keep, %%over : i1\n"
"              %%still = arith.xori %%kill, %%true : i1\n"
"              %%lq3 = tensor.insert %%still into %%lq[%%q] : %s\n"
"              scf.yield %%lq3 : %s\n"
"            } else {\n"
"              scf.yield %%lq : %s\n"
"            }\n"
"            scf.yield %%lq2 : %s\n"
"          }\n"
"          scf.yield %%o3, %%kk1, %%kn1, %%lnew : %s, index, index, %s\n"
"        } else {\n"
"          scf.yield %%o, %%kk, %%kn, %%l : %s, index, index, %s\n"
"        }\n"
"        scf.yield %%step#0, %%step#1, %%step#2, %%step#3 : %s, index, index, %s\n"
"      }\n"
"      scf.yield %%walk#0, %%walk#1, %%sorted, %%geo#0, %%walk#3 : %s\n"
"    }\n"
"    scf.yield %%rc#0, %%rc#1, %%rc#2, %%rc#3, %%rc#4 : %s\n"
"  }\n"
"  %%n64 = arith.index_cast %%res#1 : index to i64\n"
"  %%count = tensor.from_elements %%n64 : tensor<i64>\n"
"  return %%res#0, %%count : %s, tensor<i64>\n"
"}\n",
          LIVE, LIVE, LIVE, LIVE, OUT, LIVE, OUT, LIVE, OUT, LIVE, ST, ST, OUT);
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

int dlcLowerToLoopFunction(MlirOperation op, const char *name, const char *marker,
                           char *(*makeText)(const void *, const char *), const void *args) {
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  MlirOperation module = moduleOf(op);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  MlirOperation found = mlirSymbolTableLookup(table, str(name));
  if (!mlirOperationIsNull(found) &&
      mlirAttributeIsNull(mlirOperationGetAttributeByName(found, str(marker)))) {
    mlirSymbolTableDestroy(table);
    char msg[256];
    snprintf(msg, sizeof msg, "dlk-to-linalg: the module already has a symbol @%s, the name of "
             "this op's loops", name);
    dlcLowerFail(op, msg);
    return 0;
  }
  if (mlirOperationIsNull(found)) {
    char *text = makeText(args, name);
    MlirOperation fn = text ? mlirOperationCreateParse(ctx, str(text), str(marker))
                            : (MlirOperation){NULL};
    free(text);
    if (mlirOperationIsNull(fn)) {
      mlirSymbolTableDestroy(table);
      char msg[256];
      snprintf(msg, sizeof msg, "dlk-to-linalg: internal error: the loops of '%.*s' did not "
               "parse", (int)opName.length, opName.data);
      dlcLowerFail(op, msg);
      return 0;
    }
    mlirSymbolTableInsert(table, fn);
  }
  mlirSymbolTableDestroy(table);
  DlcBuilder b = dlcBuilderBefore(op, mlirOperationGetLocation(op));
  intptr_t nIn = mlirOperationGetNumOperands(op), nOut = mlirOperationGetNumResults(op);
  MlirType results[4];
  MlirValue operands[4];
  if (nIn > 4 || nOut > 4) {
    dlcLowerFail(op, "dlk-to-linalg: internal error: a loop function takes at most 4 operands "
                     "and results");
    return 0;
  }
  for (intptr_t i = 0; i < nOut; ++i)
    results[i] = mlirValueGetType(mlirOperationGetResult(op, i));
  for (intptr_t i = 0; i < nIn; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  MlirNamedAttribute callee =
      dlcNamed(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, str(name)));
  MlirOperation call = dlcBuildOpTyped(&b, "func.call", nIn, operands, nOut, results, 1, &callee);
  for (intptr_t i = 0; i < nOut; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(op);
  return 1;
}

typedef struct {
  int64_t B, C, N, K;
  bool center, hasScore;
  uint32_t iou, score;
} NmsArgs;

static char *nmsText(const void *args, const char *name) {
  const NmsArgs *a = args;
  return functionText(name, a->B, a->C, a->N, a->K, a->center, a->iou, a->hasScore, a->score);
}

int dlcLowerSelection(MlirOperation op, bool hostLoops) {
  if (dlcOpIs(op, "dlg.non_zero"))
    return dlcLowerNonZero(op, hostLoops);
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
  NmsArgs a;
  a.B = mlirShapedTypeGetDimSize(bt, 0), a.N = mlirShapedTypeGetDimSize(bt, 1);
  a.C = mlirShapedTypeGetDimSize(st, 1);
  int64_t maxOut = dlcGetI64(op, "max_output_boxes_per_class", 0);
  a.K = maxOut < a.N ? maxOut : a.N;
  a.center = dlcGetBool(op, "center_point_box", false);
  a.iou = f32Bits(dlcGetF64(op, "iou_threshold", 0.0));
  MlirAttribute sa = mlirOperationGetAttributeByName(op, str("score_threshold"));
  a.hasScore = !mlirAttributeIsNull(sa);
  a.score = a.hasScore ? f32Bits(mlirFloatAttrGetValueDouble(sa)) : 0;
  /* One function per distinct op: the name says everything it depends on. */
  char name[160];
  char scoreName[32] = "_all";
  if (a.hasScore)
    snprintf(scoreName, sizeof scoreName, "_score%08" PRIX32, a.score);
  snprintf(name, sizeof name, "dlc_nms_%" PRId64 "x%" PRId64 "x%" PRId64 "_k%" PRId64 "_%s_iou%08" PRIX32 "%s",
           a.B, a.C, a.N, a.K, a.center ? "center" : "corner", a.iou, scoreName);
  return dlcLowerToLoopFunction(op, name, "dlc.nms_loops", nmsText, &a);
}
