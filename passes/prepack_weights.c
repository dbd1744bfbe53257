/* dlc-prepack-weights: the packing copy of a constant weight runs once, at
   compile time, instead of on every call.

   dlk-to-linalg packs a GEMM's B (and a direct conv's W) into panels of
   the register tile's width with a named linalg.transpose inside the
   kernel (Bp[N/NR][K][NR] from expand_shape(B) : [K][N/NR][NR]). When the
   kernel's one call passes an arith.constant as that argument, the copy
   reads the same bytes on every call: measured on the AVX-512 machine of
   issue 15 (1 thread), packing was 15-20% of the 128x768x3072 GEMM of
   BERT's feed-forward (perf; a C model of the kernel ran 162 GFLOP/s
   packing B per call and 192 GFLOP/s on B packed beforehand).

   So, for each kernel argument whose only use is a chain of
   expand_shape / collapse_shape ops ending in a linalg.transpose (each
   value with one use), whose kernel has exactly one call and whose operand
   there is an arith.constant with no other user, the transpose is
   evaluated here: the call passes a new constant holding the packed bytes
   (a dense_resource blob, 64-byte aligned), the argument takes the packed
   type, and the chain is erased. Bytes are moved, never computed on, so
   results are bit for bit unchanged. A constant shared by several users
   (tied weights) is left alone rather than stored twice.

   Runs after dlk-to-linalg, before dlc-cpu-schedule (which then finds
   nothing to fuse into its Kc loop for that operand and reads the panels
   in place). */

#include "dlc-c/Builder.h"
#include "dlc-c/Dialects.h"
#include "dlc-c/Passes.h"
#include "support/op_list.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "shape/Checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxChain = 8, kBlobAlign = 64 };

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Whether `op` is a tensor.pad with static high padding only, by +0.0:
   the zero columns that pad a GEMM's B to whole panels
   (passes/lowering/contraction.c). */
static bool zeroHighPad(MlirOperation op) {
  if (!dlcOpIs(op, "tensor.pad") || mlirOperationGetNumOperands(op) != 1)
    return false;
  int64_t low[DLC_MAX_RANK];
  intptr_t rank = dlcGetI64Array(op, "static_low", low, DLC_MAX_RANK);
  for (intptr_t d = 0; d < rank; ++d)
    if (low[d] != 0)
      return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirOperation c = dlcDefiningOp(mlirOperationGetOperand(yield, 0), "arith.constant");
  if (mlirOperationIsNull(c))
    return false;
  MlirAttribute v = mlirOperationGetAttributeByName(c, str("value"));
  if (!mlirAttributeIsAFloat(v))
    return false;
  double x = mlirFloatAttrGetValueDouble(v);
  return x == 0.0 && !signbit(x);
}

/* The linalg.transpose that `arg` reaches through single-use reshapes and
   at most one zero pad (zeroHighPad: B's columns padded to whole panels),
   with those ops in `chain`; or, where the chain ends in such a pad whose
   user is none of these (the unpacked loops of a matmul read B padded to
   whole vectors), that pad, with the ops before it in `chain`; a null op
   otherwise. */
static MlirOperation packOf(MlirValue arg, MlirOperation *chain, int *n) {
  static const char *const kReshapes[] = {"tensor.expand_shape", "tensor.collapse_shape"};
  *n = 0;
  MlirValue v = arg;
  bool padded = false;
  for (;;) {
    intptr_t k = 0;
    MlirOperation user = dlcSoleUser(v, &k);
    if (mlirOperationIsNull(user))
      return (MlirOperation){NULL};
    if (dlcOpIs(user, "linalg.transpose"))
      return k == 0 ? user : (MlirOperation){NULL};
    bool pad = !padded && zeroHighPad(user), reshape = pad;
    for (size_t i = 0; i < sizeof kReshapes / sizeof *kReshapes; ++i)
      reshape = reshape || dlcOpIs(user, kReshapes[i]);
    if (!reshape && *n > 0 && dlcOpIs(chain[*n - 1], "tensor.pad"))
      return chain[--*n];
    if (!reshape || *n == kMaxChain)
      return (MlirOperation){NULL};
    padded = padded || pad;
    chain[(*n)++] = user;
    v = mlirOperationGetResult(user, 0);
  }
}

/* The blob's allocation (userData), of which `data` is the aligned part. */
static void freeBlob(void *userData, const void *data, size_t size, size_t align) {
  (void)data, (void)size, (void)align;
  free(userData);
}

/* One element of `w` bytes: a constant size per case, so each copy is a
   single load and store rather than a call to memcpy. */
static inline void copyElement(char *dst, const char *src, size_t w) {
  switch (w) {
  case 1: memcpy(dst, src, 1); break;
  case 2: memcpy(dst, src, 2); break;
  case 4: memcpy(dst, src, 4); break;
  case 8: memcpy(dst, src, 8); break;
  default: memcpy(dst, src, w); break;
  }
}

enum { kTile = 16 }; /* elements a side of a transposed block */

/* `data` (row-major `in`, elements of `w` bytes) permuted by `perm`
   (output dim j is input dim perm[j]) into `out`, at memory speed.

   Output dims of extent 1 are dropped and output dims that read
   consecutive input merged, so what is left is a walk whose last dim is
   either contiguous in the input too (a GEMM's B panels: runs of NR
   elements, copied whole) or strided there (a conv-as-GEMM's channel
   panels, W^T: every element of a row is CKK elements from the last).
   The strided case is a transpose between the output's last dim and the
   output dim that walks the input's last dim, done in kTile-square
   blocks so both sides stream whole cache lines; element by element
   through memcpy calls it was most of this pass's time on ResNet-50. */
static void permute(const char *data, const DlcShape *in, const int64_t *perm, size_t w,
                    char *out) {
  int r = (int)in->rank;
  int64_t stride[DLC_MAX_RANK], s = 1;
  for (int d = r - 1; d >= 0; --d)
    stride[d] = s, s *= in->dims[d];
  if (s == 0)
    return;
  /* the walk: input stride istr (elements) and extent ext per output dim */
  int64_t istr[DLC_MAX_RANK], ext[DLC_MAX_RANK];
  int n = 0;
  for (int j = 0; j < r; ++j) {
    int64_t e = in->dims[perm[j]], st = stride[perm[j]];
    if (e == 1)
      continue;
    if (n > 0 && istr[n - 1] == st * e) { /* reads on where the last dim ended */
      ext[n - 1] *= e;
      istr[n - 1] = st;
      continue;
    }
    istr[n] = st, ext[n] = e, ++n;
  }
  if (n == 0 || istr[n - 1] == 1) { /* whole runs */
    size_t run = (n ? (size_t)ext[n - 1] : 1) * w;
    int64_t runs = s / (n ? ext[n - 1] : 1), idx[DLC_MAX_RANK] = {0};
    for (int64_t k = 0; k < runs; ++k) {
      int64_t off = 0;
      for (int j = 0; j + 1 < n; ++j)
        off += idx[j] * istr[j];
      memcpy(out + (size_t)k * run, data + (size_t)off * w, run);
      for (int j = n - 2; j >= 0; --j) {
        if (++idx[j] < ext[j])
          break;
        idx[j] = 0;
      }
    }
    return;
  }
  /* the output dim `a` that walks the input's last dim (stride 1) */
  int a = 0;
  while (a < n && istr[a] != 1)
    ++a;
  int64_t ostr[DLC_MAX_RANK], os = 1; /* output strides, elements */
  for (int j = n - 1; j >= 0; --j)
    ostr[j] = os, os *= ext[j];
  int64_t idx[DLC_MAX_RANK] = {0}, outer = s / (ext[a] * ext[n - 1]);
  int64_t ea = ext[a], eb = ext[n - 1], sb = istr[n - 1], oa = ostr[a];
  for (int64_t k = 0; k < outer; ++k) {
    int64_t ioff = 0, ooff = 0;
    for (int j = 0; j < n - 1; ++j)
      if (j != a)
        ioff += idx[j] * istr[j], ooff += idx[j] * ostr[j];
    const char *src = data + (size_t)ioff * w;
    char *dst = out + (size_t)ooff * w;
    for (int64_t i0 = 0; i0 < ea; i0 += kTile)
      for (int64_t j0 = 0; j0 < eb; j0 += kTile) {
        int64_t i1 = i0 + kTile < ea ? i0 + kTile : ea, j1 = j0 + kTile < eb ? j0 + kTile : eb;
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j)
            copyElement(dst + (size_t)(i * oa + j) * w, src + (size_t)(i + j * sb) * w, w);
      }
    for (int j = n - 2; j >= 0; --j) {
      if (j == a)
        continue;
      if (++idx[j] < ext[j])
        break;
      idx[j] = 0;
    }
  }
}

static int64_t elementCount(const DlcShape *s) {
  int64_t count = 1;
  for (intptr_t d = 0; d < s->rank; ++d)
    count *= s->dims[d];
  return count;
}

/* `data` (row-major `from`, elements of `w` bytes) at the low corner of a
   zero-filled row-major `to` (a zeroHighPad's result); the caller frees. */
static char *padHigh(const char *data, const DlcShape *from, const DlcShape *to, size_t w) {
  char *out = dlcXcalloc((size_t)elementCount(to), w);
  int r = (int)from->rank;
  size_t run = (size_t)from->dims[r - 1] * w;
  int64_t rows = elementCount(from) / from->dims[r - 1], idx[DLC_MAX_RANK] = {0};
  for (int64_t k = 0; k < rows; ++k) {
    int64_t off = 0; /* the row's offset in `to`, in elements */
    for (int j = 0; j + 1 < r; ++j)
      off = (off + idx[j]) * to->dims[j + 1];
    memcpy(out + (size_t)off * w, data + (size_t)k * run, run);
    for (int j = r - 2; j >= 0; --j) {
      if (++idx[j] < from->dims[j])
        break;
      idx[j] = 0;
    }
  }
  return out;
}

/* The packed value of constant `value` (of shape `from`, zero-padded at
   the high end to `padded` when that is given, then viewed as the
   transpose's input shape `in`) as an attribute of `packedType`; a null
   attribute when its bytes are not available (i1, a missing blob). */
static MlirAttribute packConstant(MlirAttribute value, const DlcShape *from,
                                  const DlcShape *padded, const DlcShape *in,
                                  const int64_t *perm, MlirType packedType) {
  if (!padded && mlirAttributeIsADenseElements(value) && mlirDenseElementsAttrIsSplat(value))
    return mlirDenseElementsAttrReshapeGet(value, packedType);
  const void *data;
  size_t bytes;
  bool splat;
  if (!dlcElementsAttrGetRawData(value, &data, &bytes, &splat) || splat)
    return (MlirAttribute){NULL};
  MlirType et = mlirShapedTypeGetElementType(packedType);
  int64_t count = elementCount(from);
  unsigned bits = mlirTypeIsAFloat(et) ? mlirFloatTypeGetWidth(et)
                  : mlirTypeIsAInteger(et) ? mlirIntegerTypeGetWidth(et)
                                           : 0;
  if (bits == 0 || bits % 8 || count <= 0 || bytes != (size_t)count * (bits / 8) ||
      elementCount(in) != (padded ? elementCount(padded) : count))
    return (MlirAttribute){NULL};
  char *zeroPadded = padded ? padHigh(data, from, padded, bits / 8) : NULL;
  if (zeroPadded)
    data = zeroPadded, bytes = (size_t)elementCount(padded) * (bits / 8);
  /* aligned for the panels' vector loads (and so the JIT binds it in place) */
  char *block = dlcXmalloc(bytes + kBlobAlign);
  char *out = block + (kBlobAlign - (uintptr_t)block % kBlobAlign) % kBlobAlign;
  permute(data, in, perm, bits / 8, out);
  free(zeroPadded);
  return mlirUnmanagedDenseResourceElementsAttrGet(packedType, str("dlc_packed"), out, bytes,
                                                   kBlobAlign, false, freeBlob, block);
}

static bool calls(MlirOperation call, MlirOperation func) {
  MlirAttribute callee = mlirOperationGetAttributeByName(call, str("callee"));
  MlirAttribute name = mlirOperationGetAttributeByName(func, str("sym_name"));
  if (mlirAttributeIsNull(callee) || mlirAttributeIsNull(name) ||
      !mlirAttributeIsAFlatSymbolRef(callee))
    return false;
  MlirStringRef a = mlirFlatSymbolRefAttrGetValue(callee), b = mlirStringAttrGetValue(name);
  return a.length == b.length && memcmp(a.data, b.data, a.length) == 0;
}

static MlirWalkResult collectCalls(MlirOperation op, void *list) {
  if (dlcOpIs(op, "func.call"))
    dlcOpListPush(list, op);
  return MlirWalkResultAdvance;
}

/* Prepacks argument `i` of `func` (entry block `entry`) called by `call`;
   true when it did. */
static bool prepackArgument(MlirBlock entry, MlirOperation call, intptr_t i) {
  MlirValue arg = mlirBlockGetArgument(entry, i);
  MlirOperation chain[kMaxChain];
  int n;
  MlirOperation pack = packOf(arg, chain, &n);
  if (mlirOperationIsNull(pack))
    return false;
  MlirValue operand = mlirOperationGetOperand(call, i);
  MlirOperation cst = dlcDefiningOp(operand, "arith.constant");
  if (mlirOperationIsNull(cst) || mlirOperationIsNull(dlcSoleUser(operand, NULL)))
    return false;
  /* a pad alone is a pack of the identity permutation on its result */
  bool padOnly = dlcOpIs(pack, "tensor.pad");
  MlirValue packIn = padOnly ? mlirOperationGetResult(pack, 0) : mlirOperationGetOperand(pack, 0);
  DlcShape in;
  int64_t perm[DLC_MAX_RANK];
  if (!dlcTypeGetShape(mlirValueGetType(packIn), &in) ||
      (!padOnly && dlcGetI64Array(pack, "permutation", perm, DLC_MAX_RANK) != in.rank))
    return false;
  for (intptr_t d = 0; padOnly && d < in.rank; ++d)
    perm[d] = d;
  for (intptr_t d = 0; d < in.rank; ++d)
    if (in.dims[d] == DLC_DYNAMIC)
      return false;
  /* the constant's bytes, row-major, in the pad's input shape (reshapes
     before it keep the order) */
  MlirOperation padOp = padOnly ? pack : (MlirOperation){NULL};
  for (int k = 0; k < n && mlirOperationIsNull(padOp); ++k)
    if (dlcOpIs(chain[k], "tensor.pad"))
      padOp = chain[k];
  bool pad = !mlirOperationIsNull(padOp);
  DlcShape from, padded;
  if (!dlcTypeGetShape(mlirValueGetType(pad ? mlirOperationGetOperand(padOp, 0) : arg), &from) ||
      (pad && !dlcTypeGetShape(mlirValueGetType(mlirOperationGetResult(padOp, 0)), &padded)))
    return false;
  MlirValue packed = mlirOperationGetResult(pack, 0);
  MlirType packedType = mlirValueGetType(packed);
  MlirAttribute value = packConstant(mlirOperationGetAttributeByName(cst, str("value")), &from,
                                     pad ? &padded : NULL, &in, perm, packedType);
  if (mlirAttributeIsNull(value))
    return false;
  DlcBuilder b = dlcBuilderBefore(call, mlirOperationGetLocation(cst));
  MlirNamedAttribute attr = dlcNamed(b.context, "value", value);
  MlirOperation c = dlcBuildOpTyped(&b, "arith.constant", 0, NULL, 1, &packedType, 1, &attr);
  if (mlirOperationIsNull(c))
    return false;
  mlirOperationSetOperand(call, i, mlirOperationGetResult(c, 0));
  mlirOperationDestroy(cst);
  /* the kernel reads the packed argument where it read the transpose */
  mlirBlockArgumentSetType(arg, packedType);
  mlirValueReplaceAllUsesOfWith(packed, arg);
  if (padOnly) {
    mlirOperationDestroy(pack);
    for (int k = n - 1; k >= 0; --k)
      mlirOperationDestroy(chain[k]);
    return true;
  }
  MlirOperation init = mlirOpResultGetOwner(mlirOperationGetOperand(pack, 1));
  bool initIsEmpty = mlirValueIsAOpResult(mlirOperationGetOperand(pack, 1)) &&
                     dlcOpIs(init, "tensor.empty");
  mlirOperationDestroy(pack);
  for (int k = n - 1; k >= 0; --k)
    mlirOperationDestroy(chain[k]);
  if (initIsEmpty && mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(init, 0))))
    mlirOperationDestroy(init);
  return true;
}

/* `func`'s function_type from its entry block's argument types. */
static void retype(MlirOperation func, MlirBlock entry) {
  MlirType old = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(func, str("function_type")));
  intptr_t ni = mlirBlockGetNumArguments(entry), nr = mlirFunctionTypeGetNumResults(old);
  MlirType *ins = dlcXcalloc((size_t)ni + 1, sizeof *ins);
  MlirType *res = dlcXcalloc((size_t)nr + 1, sizeof *res);
  for (intptr_t k = 0; k < ni; ++k)
    ins[k] = mlirValueGetType(mlirBlockGetArgument(entry, k));
  for (intptr_t k = 0; k < nr; ++k)
    res[k] = mlirFunctionTypeGetResult(old, k);
  MlirContext ctx = mlirOperationGetContext(func);
  mlirOperationSetAttributeByName(func, str("function_type"),
                                  mlirTypeAttrGet(mlirFunctionTypeGet(ctx, ni, ins, nr, res)));
  free(ins);
  free(res);
}

static MlirLogicalResult run(MlirOperation module, void *state, DlcPass *pass) {
  (void)state, (void)pass;
  DlcOpList funcs = dlcOpListOfModule(module, "func.func"), callList = {0};
  mlirOperationWalk(module, collectCalls, &callList, MlirWalkPreOrder);
  for (intptr_t f = 0; f < funcs.n; ++f) {
    MlirOperation func = funcs.ops[f];
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
    if (mlirBlockIsNull(entry) ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(func, str("sym_visibility"))))
      continue; /* a declaration, or public: its arguments are the caller's */
    MlirOperation call = {NULL};
    int count = 0;
    for (intptr_t c = 0; c < callList.n; ++c)
      if (calls(callList.ops[c], func))
        call = callList.ops[c], ++count;
    if (count != 1 || mlirOperationGetNumOperands(call) != mlirBlockGetNumArguments(entry))
      continue;
    bool changed = false;
    for (intptr_t i = 0; i < mlirBlockGetNumArguments(entry); ++i)
      changed = prepackArgument(entry, call, i) || changed;
    if (changed)
      retype(func, entry);
  }
  dlcOpListFree(&callList);
  dlcOpListFree(&funcs);
  return (MlirLogicalResult){1};
}

const DlcPassDescriptor dlcPrepackWeightsPass = {
    .argument = "dlc-prepack-weights",
    .summary = "Pack constant GEMM and conv weights into their register-tile panels at compile "
               "time (the kernel's packing transpose folded into the constant)",
    .anchor = "builtin.module",
    .run = run,
};
