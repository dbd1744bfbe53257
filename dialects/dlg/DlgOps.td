//===- DlgOps.td - the dlg (graph) dialect -----------------*- tablegen -*-===//
//
// Tensor operators of a deep-learning graph, with value semantics. Names,
// operand order and attribute names are a public contract (DLG-OPS.md).
// Every op except reshape, cast and constant infers its result type from one
// C shape rule (dlc-c/Shape.h); the verifier reports that rule's message.
// Every op names its family (Dlg_*Family, "Op families" below), which the
// passes, the reference kernels and the Python builder read through
// dlc-c/DlgFamily.h's dlcDlgOpGetFamily instead of keeping lists of op names.
//
//===----------------------------------------------------------------------===//

#ifndef DLG_OPS
#define DLG_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dlg_Dialect : Dialect {
  let name = "dlg";
  let cppNamespace = "::mlir::dlg";
  let summary = "Graph-level tensor operators of dlc";
  let description = [{
    A model is a DAG of dlg operators on ranked tensors with value semantics.
    Element types are `f32`, `f16`, `bf16`, `i8`, `i32`, `i64` and `i1`
    (masks). Shapes may carry dynamic dimensions (`?`); shape inference keeps
    them dynamic rather than failing. Axes count from the end when negative.
    Semantics follow ONNX and PyTorch unless stated.

    Every op infers its result type from a shape rule written in C
    (`dlc-c/Shape.h`), which the verifier, the C passes and the C API share.
    A declared result type must be compatible with the inferred one (it may
    be more or less static, but not different).
  }];
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Dlg_Tensor : RankedTensorOf<[F32, F64, F16, BF16, I8, I32, I64, I1]>;
def Dlg_NumTensor : RankedTensorOf<[F32, F64, F16, BF16, I8, I32, I64]>;
def Dlg_FloatTensor : RankedTensorOf<[F32, F64, F16, BF16]>;
def Dlg_MaskTensor : RankedTensorOf<[I1]>;
def Dlg_IndexTensor : RankedTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// Every operand and result fits in int64 bytes (verifyTensorSizes); checked
// ahead of the shape rules, whose element counts rely on it.
def Dlg_SizedTensors : NativeOpTrait<"SizedTensors"> {
  let cppNamespace = "::mlir::dlg";
}

// Every attribute is the op's own or dialect-prefixed (verifyKnownAttributes):
// a misspelt attribute is an error, never a silently ignored one.
def Dlg_KnownAttributes : NativeOpTrait<"KnownAttributes"> {
  let cppNamespace = "::mlir::dlg";
}

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

// Every dlg op belongs to exactly one family (DlcOpFamily in dlc-c/DlgFamily.h),
// given as the second argument of Dlg_Op, so that a new op cannot be left
// without one. Fusion, constant folding, lowering and the Python builder ask
// dlcDlgOpGetFamily instead of keeping their own lists of op names. The
// comment of each family gives its TVM pattern kind (what --dlg-fuse makes of
// it); the family itself is finer, as lowering needs.
class Dlg_Family<string name>
    : ParamNativeOpTrait<"Family", "::DLC_OP_FAMILY_" # name> {
  let cppNamespace = "::mlir::dlg";
}

// A tensor constant; never fused, cloned into kernels when a splat.
def Dlg_ConstantFamily : Dlg_Family<"CONSTANT">;
// Elementwise, one operand (neg, exp, gelu, clamp, ...). TVM: elementwise.
def Dlg_UnaryFamily : Dlg_Family<"UNARY">;
// Elementwise on two operands with NumPy broadcasting. TVM: broadcast.
def Dlg_BinaryFamily : Dlg_Family<"BINARY">;
// Broadcast comparison into an i1 mask. TVM: broadcast.
def Dlg_CompareFamily : Dlg_Family<"COMPARE">;
// cond ? lhs : rhs with broadcasting (where). TVM: broadcast.
def Dlg_SelectFamily : Dlg_Family<"SELECT">;
// Element type conversion, shape kept. TVM: elementwise.
def Dlg_CastFamily : Dlg_Family<"CAST">;
// Inference-mode batch norm: a per-channel scale and shift. TVM: broadcast.
def Dlg_ChannelAffineFamily : Dlg_Family<"CHANNEL_AFFINE">;
// A reduction along trailing dims then an elementwise pass over the same
// dims (layer_norm, rms_norm, softmax). TVM: reduction (the kernel's root).
def Dlg_NormFamily : Dlg_Family<"NORM">;
// reduce_* over `axes`. TVM: reduction.
def Dlg_ReductionFamily : Dlg_Family<"REDUCTION">;
// Windowed reduction over H and W. TVM: reduction.
def Dlg_PoolFamily : Dlg_Family<"POOL">;
// matmul, conv2d. TVM: out-elementwise-fusable (takes an epilogue).
def Dlg_ContractionFamily : Dlg_Family<"CONTRACTION">;
// Every element moved, none added or dropped (transpose, reshape): may become
// a contraction's indexing. TVM: injective.
def Dlg_LayoutFamily : Dlg_Family<"LAYOUT">;
// Elements selected, joined or added by static indexing (slice, concat,
// pad). TVM: injective.
def Dlg_DataMovementFamily : Dlg_Family<"DATA_MOVEMENT">;
// Indexing by the values of another tensor (gather). TVM: opaque.
def Dlg_GatherFamily : Dlg_Family<"GATHER">;

// A dlg op of `family` (required: see "Op families" above).
class Dlg_Op<string mnemonic, Dlg_Family family, list<Trait> traits = []>
    : Op<Dlg_Dialect, mnemonic,
         !listconcat([Pure, Dlg_SizedTensors, Dlg_KnownAttributes, family], traits)>;

// Result type inference from a C shape rule. The generic inferReturnTypes
// first completes the op's properties (from the attribute dictionary when
// called at parse or build time, then defaults) so the rule always sees the
// real attribute values; the op defines the Adaptor form. The verifier runs
// the rule at the op's location and reports a declared result type that
// disagrees with it, ahead of InferTypeOpInterface's generic check.
def Dlg_ShapeRule : NativeOpTrait<"ShapeRule", [], [{
    static ::llvm::LogicalResult inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes);
    static bool isCompatibleReturnTypes(::mlir::TypeRange l, ::mlir::TypeRange r);
  }], [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::mlir::dlg::inferWithProperties<$cppClass>(
          context, location, operands, attributes, properties, regions,
          inferredReturnTypes);
    }
  }]> {
  let cppNamespace = "::mlir::dlg";
}

// An op whose result type comes from a C shape rule. `dlgExtraDefs` holds
// family-wide C++ definitions (usually the Adaptor form of inferReturnTypes).
class Dlg_InferOp<string mnemonic, Dlg_Family family, list<Trait> traits = []>
    : Dlg_Op<mnemonic, family, !listconcat(traits, [Dlg_ShapeRule,
          DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  code dlgExtraDefs = "";
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l,
                                            ::mlir::TypeRange r) {
      return ::mlir::dlg::areCompatibleReturnTypes(l, r);
    }
  }] # dlgExtraDefs;
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def Dlg_ConstantOp : Dlg_InferOp<"constant", Dlg_ConstantFamily, [ConstantLike]> {
  let summary = "tensor constant";
  let description = [{
    A constant tensor given by an elements attribute (`dense<...>` or
    `dense_resource<...>` for large weights).

    ```mlir
    %w = dlg.constant dense<1.0> : tensor<4x16xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops with NumPy broadcasting
//===----------------------------------------------------------------------===//

class Dlg_BinaryOp<string mnemonic, string math>
    : Dlg_InferOp<mnemonic, Dlg_BinaryFamily,
                  [AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "elementwise " # math # " with NumPy broadcasting";
  let description = "Computes `" # math # "` elementwise. The shapes of "
    # "`lhs` and `rhs` broadcast as in NumPy (trailing dims aligned; a dim of "
    # "1 stretches). Both operands and the result share one element type.";
  let arguments = (ins Dlg_NumTensor:$lhs, Dlg_NumTensor:$rhs);
  let results = (outs Dlg_NumTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferBroadcast(loc, getOperationName(),
                                         {a.getLhs(), a.getRhs()}, out);
    }
  }];
}

def Dlg_AddOp : Dlg_BinaryOp<"add", "lhs + rhs">;
def Dlg_SubOp : Dlg_BinaryOp<"sub", "lhs - rhs">;
def Dlg_MulOp : Dlg_BinaryOp<"mul", "lhs * rhs">;
def Dlg_DivOp : Dlg_BinaryOp<"div", "lhs / rhs">;
def Dlg_MaxOp : Dlg_BinaryOp<"max", "max(lhs, rhs)">;
def Dlg_MinOp : Dlg_BinaryOp<"min", "min(lhs, rhs)">;
def Dlg_PowOp : Dlg_BinaryOp<"pow", "lhs ^ rhs">;

// Comparisons give an i1 mask (for dlg.where); NaN compares unequal to
// everything, so only not_equal is true on a NaN operand (as in NumPy).
class Dlg_CompareOp<string mnemonic, string math>
    : Dlg_InferOp<mnemonic, Dlg_CompareFamily,
                  [AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison " # math # " (an i1 mask) with NumPy broadcasting";
  let description = "Computes `" # math # "` elementwise as an `i1` mask. "
    # "The shapes of `lhs` and `rhs` broadcast as in NumPy; both share one "
    # "element type, integers compare as signed.";
  let arguments = (ins Dlg_NumTensor:$lhs, Dlg_NumTensor:$rhs);
  let results = (outs Dlg_MaskTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferCompare(ctx, loc, getOperationName(),
                                       a.getLhs(), a.getRhs(), out);
    }
  }];
}

def Dlg_EqualOp : Dlg_CompareOp<"equal", "lhs == rhs">;
def Dlg_NotEqualOp : Dlg_CompareOp<"not_equal", "lhs != rhs">;
def Dlg_LessOp : Dlg_CompareOp<"less", "lhs < rhs">;
def Dlg_LessEqualOp : Dlg_CompareOp<"less_equal", "lhs <= rhs">;
def Dlg_GreaterOp : Dlg_CompareOp<"greater", "lhs > rhs">;
def Dlg_GreaterEqualOp : Dlg_CompareOp<"greater_equal", "lhs >= rhs">;

def Dlg_WhereOp : Dlg_InferOp<"where", Dlg_SelectFamily,
    [AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "elementwise select: cond ? lhs : rhs";
  let description = [{
    `cond` is an `i1` mask; the three shapes broadcast together (NumPy).
  }];
  let arguments = (ins Dlg_MaskTensor:$cond, Dlg_Tensor:$lhs, Dlg_Tensor:$rhs);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:`
    type($cond) `,` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferBroadcast(
          loc, getOperationName(), {a.getCond(), a.getLhs(), a.getRhs()}, out);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Dlg_UnaryOp<string mnemonic, TypeConstraint type, string math,
                  Dlg_Family family = Dlg_UnaryFamily>
    : Dlg_InferOp<mnemonic, family> {
  let summary = "elementwise " # math;
  let description = "Computes `" # math # "` elementwise; the result has the "
    # "operand's type.";
  let arguments = (ins type:$x);
  let results = (outs type:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      out.push_back(a.getX().getType());
      return ::mlir::success();
    }
  }];
}

def Dlg_NegOp : Dlg_UnaryOp<"neg", Dlg_NumTensor, "-x">;
def Dlg_AbsOp : Dlg_UnaryOp<"abs", Dlg_NumTensor, "|x|">;
def Dlg_ReluOp : Dlg_UnaryOp<"relu", Dlg_NumTensor, "max(x, 0)">;
def Dlg_ExpOp : Dlg_UnaryOp<"exp", Dlg_FloatTensor, "e^x">;
def Dlg_LogOp : Dlg_UnaryOp<"log", Dlg_FloatTensor, "ln(x)">;
def Dlg_SqrtOp : Dlg_UnaryOp<"sqrt", Dlg_FloatTensor, "sqrt(x)">;
def Dlg_RsqrtOp : Dlg_UnaryOp<"rsqrt", Dlg_FloatTensor, "1 / sqrt(x)">;
def Dlg_TanhOp : Dlg_UnaryOp<"tanh", Dlg_FloatTensor, "tanh(x)">;
def Dlg_ErfOp : Dlg_UnaryOp<"erf", Dlg_FloatTensor, "erf(x)">;
def Dlg_SigmoidOp : Dlg_UnaryOp<"sigmoid", Dlg_FloatTensor, "1 / (1 + e^-x)">;
def Dlg_SiluOp : Dlg_UnaryOp<"silu", Dlg_FloatTensor, "x * sigmoid(x)">;
// Trigonometric and hyperbolic functions (ONNX Sin ... Atanh): libm's.
def Dlg_SinOp : Dlg_UnaryOp<"sin", Dlg_FloatTensor, "sin(x)">;
def Dlg_CosOp : Dlg_UnaryOp<"cos", Dlg_FloatTensor, "cos(x)">;
def Dlg_TanOp : Dlg_UnaryOp<"tan", Dlg_FloatTensor, "tan(x)">;
def Dlg_AsinOp : Dlg_UnaryOp<"asin", Dlg_FloatTensor, "asin(x)">;
def Dlg_AcosOp : Dlg_UnaryOp<"acos", Dlg_FloatTensor, "acos(x)">;
def Dlg_AtanOp : Dlg_UnaryOp<"atan", Dlg_FloatTensor, "atan(x)">;
def Dlg_SinhOp : Dlg_UnaryOp<"sinh", Dlg_FloatTensor, "sinh(x)">;
def Dlg_CoshOp : Dlg_UnaryOp<"cosh", Dlg_FloatTensor, "cosh(x)">;
def Dlg_AsinhOp : Dlg_UnaryOp<"asinh", Dlg_FloatTensor, "asinh(x)">;
def Dlg_AcoshOp : Dlg_UnaryOp<"acosh", Dlg_FloatTensor, "acosh(x)">;
def Dlg_AtanhOp : Dlg_UnaryOp<"atanh", Dlg_FloatTensor, "atanh(x)">;

def Dlg_GeluOp : Dlg_UnaryOp<"gelu", Dlg_FloatTensor, "x * Phi(x)"> {
  let description = [{
    Gaussian error linear unit. `approximate = "none"` (default) is the exact
    `0.5 x (1 + erf(x / sqrt 2))`; `"tanh"` is
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
  }];
  let arguments = (ins Dlg_FloatTensor:$x,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

def Dlg_ClampOp : Dlg_UnaryOp<"clamp", Dlg_NumTensor, "min(max(x, min), max)"> {
  let description = [{
    Clips `x` to `[min, max]`; either bound may be left out (infinite).
    ReLU6 is `dlg.clamp %x {min = 0.0, max = 6.0}`.
  }];
  let arguments = (ins Dlg_NumTensor:$x,
      DefaultValuedAttr<F64Attr, "-std::numeric_limits<double>::infinity()">:$min,
      DefaultValuedAttr<F64Attr, "std::numeric_limits<double>::infinity()">:$max);
  let hasVerifier = 1;
}

def Dlg_CastOp : Dlg_Op<"cast", Dlg_CastFamily> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape is kept.
    Float to integer rounds toward zero; to `i1` tests for non-zero.
  }];
  let arguments = (ins Dlg_Tensor:$x);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

def Dlg_MatmulOp : Dlg_InferOp<"matmul", Dlg_ContractionFamily,
    [AllElementTypesMatch<["a", "b", "result"]>]> {
  let summary = "batched matrix product (numpy.matmul)";
  let description = [{
    `a` is `[..., M, K]` (`[..., K, M]` with `transpose_a`), `b` is
    `[..., K, N]` (`[..., N, K]` with `transpose_b`); the result is
    `[..., M, N]` with the batch dims broadcast.

    ```mlir
    %y = dlg.matmul %x, %w {transpose_b = true}
        : tensor<32x784xf32>, tensor<512x784xf32> -> tensor<32x512xf32>
    ```
  }];
  let arguments = (ins Dlg_NumTensor:$a, Dlg_NumTensor:$b,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Dlg_NumTensor:$result);
  let assemblyFormat = [{
    $a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
}

def Dlg_Conv2dOp : Dlg_InferOp<"conv2d", Dlg_ContractionFamily,
    [AllElementTypesMatch<["input", "weight", "result"]>]> {
  let summary = "2-D convolution, NCHW (ONNX Conv)";
  let description = [{
    `input` is `(N, C, H, W)`, `weight` is `(O, C/groups, kH, kW)`, optional
    `bias` is `(O)`. `padding` is `[top, left, bottom, right]`. The result is
    `(N, O, Ho, Wo)` with `Ho = (H + top + bottom - dH (kH - 1) - 1) / sH + 1`.
  }];
  let arguments = (ins Dlg_NumTensor:$input, Dlg_NumTensor:$weight,
                   Optional<Dlg_NumTensor>:$bias,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Dlg_NumTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

class Dlg_Pool2dOp<string mnemonic, string what>
    : Dlg_InferOp<mnemonic, Dlg_PoolFamily,
                  [AllElementTypesMatch<["input", "result"]>]> {
  let summary = what # " pooling over H and W, NCHW";
  let results = (outs Dlg_NumTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferPool2d(loc, getOperationName(), a.getInput(),
                                      a.getKernel(), a.getStrides(),
                                      a.getPadding(), a.getCeilMode(), out);
    }
  }];
}

def Dlg_MaxPool2dOp : Dlg_Pool2dOp<"max_pool2d", "max"> {
  let description = [{
    ONNX MaxPool: `kernel` [kH, kW], `strides` (default 1), `padding`
    [top, left, bottom, right] (each smaller than the kernel), `ceil_mode`.
  }];
  let arguments = (ins Dlg_NumTensor:$input,
                   DenseI64ArrayAttr:$kernel,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
}

def Dlg_AvgPool2dOp : Dlg_Pool2dOp<"avg_pool2d", "average"> {
  let description = [{
    ONNX AveragePool, with the attributes of `dlg.max_pool2d` plus
    `count_include_pad`: whether padded zeros count in the divisor.
  }];
  let arguments = (ins Dlg_NumTensor:$input,
                   DenseI64ArrayAttr:$kernel,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

def Dlg_BatchNormOp : Dlg_InferOp<"batch_norm", Dlg_ChannelAffineFamily,
    [AllElementTypesMatch<["x", "scale", "bias", "mean", "var", "result"]>]> {
  let summary = "inference-mode batch normalization";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` along dim `axis`; the
    four parameters are 1-D with the size of that dim.
  }];
  let arguments = (ins Dlg_FloatTensor:$x, Dlg_FloatTensor:$scale,
                   Dlg_FloatTensor:$bias, Dlg_FloatTensor:$mean,
                   Dlg_FloatTensor:$var,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Dlg_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $scale `,` $bias `,` $mean `,` $var attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Dlg_LayerNormOp : Dlg_InferOp<"layer_norm", Dlg_NormFamily,
    [AttrSizedOperandSegments, AllElementTypesMatch<["x", "result"]>]> {
  let summary = "layer normalization over dims [axis, rank)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with mean and variance
    over dims `[axis, rank)`. `gamma` and `beta` are optional and have the
    shape of those dims.

    ```mlir
    %y = dlg.layer_norm %x gamma %g beta %b {epsilon = 1.0e-12 : f64}
        : (tensor<128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
    ```
  }];
  let arguments = (ins Dlg_FloatTensor:$x, Optional<Dlg_FloatTensor>:$gamma,
                   Optional<Dlg_FloatTensor>:$beta,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Dlg_FloatTensor:$result);
  let assemblyFormat = [{
    $x (`gamma` $gamma^)? (`beta` $beta^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Dlg_RmsNormOp : Dlg_InferOp<"rms_norm", Dlg_NormFamily,
    [AllElementTypesMatch<["x", "result"]>]> {
  let summary = "root-mean-square normalization over dims [axis, rank)";
  let description = [{
    `x / sqrt(mean(x^2, dims [axis, rank)) + epsilon) * gamma` (Zhang and
    Sennrich 2019). `gamma` is optional and has the shape of the normalized
    dims; the result has the shape of `x`.
  }];
  let arguments = (ins Dlg_FloatTensor:$x, Optional<Dlg_FloatTensor>:$gamma,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Dlg_FloatTensor:$result);
  let assemblyFormat = [{
    $x (`gamma` $gamma^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class Dlg_SoftmaxBase<string mnemonic, string what>
    : Dlg_UnaryOp<mnemonic, Dlg_FloatTensor, what, Dlg_NormFamily> {
  let description = "Numerically stable " # what # " along `axis` (the "
    # "maximum is subtracted before exponentiation).";
  let arguments = (ins Dlg_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferSoftmax(loc, getOperationName(), a.getX(),
                                       a.getAxis(), out);
    }
  }];
}

def Dlg_SoftmaxOp : Dlg_SoftmaxBase<"softmax", "softmax">;
def Dlg_LogSoftmaxOp : Dlg_SoftmaxBase<"log_softmax", "log-softmax">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Dlg_ReduceOp<string mnemonic, string what>
    : Dlg_InferOp<mnemonic, Dlg_ReductionFamily,
                  [AllElementTypesMatch<["x", "result"]>]> {
  let summary = what # " over `axes`";
  let description = "Reduces `x` by " # what # " over the distinct dims in "
    # "`axes` (all dims when empty); `keepdims` keeps them as size 1.";
  let arguments = (ins Dlg_NumTensor:$x,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs Dlg_NumTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let dlgExtraDefs = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor a, ::llvm::SmallVectorImpl<::mlir::Type> &out) {
      return ::mlir::dlg::inferReduce(loc, getOperationName(), a.getX(),
                                      a.getAxes(), a.getKeepdims(), out);
    }
  }];
}

def Dlg_ReduceSumOp : Dlg_ReduceOp<"reduce_sum", "sum">;
def Dlg_ReduceMeanOp : Dlg_ReduceOp<"reduce_mean", "mean">;
def Dlg_ReduceMaxOp : Dlg_ReduceOp<"reduce_max", "maximum">;
def Dlg_ReduceMinOp : Dlg_ReduceOp<"reduce_min", "minimum">;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Dlg_TransposeOp : Dlg_InferOp<"transpose", Dlg_LayoutFamily,
    [AllElementTypesMatch<["x", "result"]>]> {
  let summary = "dimension permutation";
  let description = "Result dim `i` is `x` dim `perm[i]`.";
  let arguments = (ins Dlg_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = [{
    $x `perm` `=` $perm attr-dict `:` type($x) `->` type($result)
  }];
}

def Dlg_ReshapeOp : Dlg_Op<"reshape", Dlg_LayoutFamily,
    [AllElementTypesMatch<["x", "result"]>]> {
  let summary = "reshape to the result type's shape";
  let description = [{
    The result type gives the new shape (row-major order kept); the element
    counts must match where both are static.
  }];
  let arguments = (ins Dlg_Tensor:$x);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Dlg_ConcatOp : Dlg_InferOp<"concat", Dlg_DataMovementFamily> {
  let summary = "concatenation along `axis`";
  let description = "All operands have one rank and element type and agree "
    # "on every dim but `axis`.";
  let arguments = (ins Variadic<Dlg_Tensor>:$xs, I64Attr:$axis);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "$xs attr-dict `:` functional-type($xs, results)";
}

def Dlg_SliceOp : Dlg_InferOp<"slice", Dlg_DataMovementFamily,
    [AllElementTypesMatch<["x", "result"]>]> {
  let summary = "strided slice (ONNX Slice with every axis given)";
  let description = [{
    `starts`, `ends` and `steps` (default all 1) have one value per dim.
    Negative indices count from the end; starts and ends clamp to the dim;
    a negative step walks backwards.
  }];
  let arguments = (ins Dlg_Tensor:$x, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends,
                   OptionalAttr<DenseI64ArrayAttr>:$steps);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
}

def Dlg_GatherOp : Dlg_InferOp<"gather", Dlg_GatherFamily,
    [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "gather slices of `data` along `axis` (ONNX Gather)";
  let description = [{
    The result shape is `data[:axis] + indices + data[axis+1:]`; negative
    indices count from the end of the axis (embedding lookup for axis 0).
    An index outside `[-n, n)` reads nothing: its slice of the result is
    NaN for floats, the element type's lowest value for integers (kernels
    cannot raise an error; constant indices are checked at import).
  }];
  let arguments = (ins Dlg_Tensor:$data, Dlg_IndexTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
}

def Dlg_PadOp : Dlg_InferOp<"pad", Dlg_DataMovementFamily,
    [AllElementTypesMatch<["x", "result"]>]> {
  let summary = "constant padding";
  let description = [{
    `pads` holds all begin paddings then all end paddings (`2 * rank`
    non-negative values, ONNX order); new elements are `value`.
  }];
  let arguments = (ins Dlg_Tensor:$x, DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Remainder
//===----------------------------------------------------------------------===//

// C's fmod (arith.remf / arith.remsi): exact for every quotient, unlike
// lhs - trunc(lhs / rhs) * rhs, whose quotient and product both round.
def Dlg_FmodOp : Dlg_BinaryOp<"fmod", "fmod(lhs, rhs)"> {
  let description = [{
    The remainder of the truncating division, with the sign of `lhs` (C's
    `fmod`, NumPy's `np.fmod`), exact for any quotient. Floats: `fmod(x, 0)`,
    `fmod(±inf, y)` and NaN operands give NaN; `fmod(x, ±inf)` is `x`.
    Integers: a zero divisor is undefined (as `dlg.div`). The shapes
    broadcast as in NumPy; both operands and the result share one element
    type.
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// Ops that hold regions of dlg ops: a branch or a loop decided by tensor
// data at run time (ONNX If and Loop). --dlg-fuse never puts one in a kernel
// and never fuses across its region boundary; it fuses inside each region on
// its own. Also dlg.update_row, a loop's in-place row update (no region),
// lowered with them and never in a kernel either. TVM: opaque.
def Dlg_ControlFamily : Dlg_Family<"CONTROL">;

// A control-flow op of dlg: no shape rule (its results are what its regions
// yield), effects those of the ops it holds.
class Dlg_ControlOp<string mnemonic, list<Trait> traits = []>
    : Op<Dlg_Dialect, mnemonic, !listconcat([Dlg_SizedTensors, Dlg_KnownAttributes,
                                             Dlg_ControlFamily], traits)>;

def Dlg_IfOp : Dlg_ControlOp<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "run one of two regions, chosen by a boolean tensor (ONNX If)";
  let description = [{
    `condition` is a one-element `i1` tensor (0-d, or every dim 1, as ONNX
    allows) read at run time. The `then` region runs when it is true, the
    `else` region otherwise; each is one block ending in `dlg.yield`, whose
    operand types are the op's result types. The regions may use any value
    defined above them. Lowered to `scf.if` by `--dlk-to-linalg`.

    ```mlir
    %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
      %y = dlg.relu %x : tensor<4xf32>
      dlg.yield %y : tensor<4xf32>
    } else {
      dlg.yield %x : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Dlg_MaskTensor:$condition);
  let results = (outs Variadic<Dlg_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $condition `:` type($condition) (`->` type($results)^)? $thenRegion `else`
    $elseRegion attr-dict
  }];
  let hasVerifier = 1;
}

def Dlg_WhileOp : Dlg_ControlOp<"while", [RecursiveMemoryEffects]> {
  let summary = "loop over carried tensors while a condition holds (ONNX Loop)";
  let description = [{
    Mirrors `scf.while` with the carried values all of one type list: the
    `before` region takes the carried tensors (first the `inits`), computes a
    one-element `i1` tensor and ends in `dlg.condition`, which either stops
    the loop, making its operands the op's results, or passes them to the
    `do` region. That one ends in `dlg.yield` with the next carried tensors.
    The types of the inits, the results, both regions' arguments and both
    terminators' carried operands are one list. Lowered to `scf.while` by
    `--dlk-to-linalg`.

    ```mlir
    %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %s = dlg.reduce_sum %a {axes = array<i64>} : tensor<4xf32> -> tensor<f32>
      %c = dlg.less %s, %limit : tensor<f32>, tensor<f32> -> tensor<i1>
      dlg.condition(%c : tensor<i1>) %a : tensor<4xf32>
    } do {
    ^bb0(%a: tensor<4xf32>):
      %n = dlg.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
      dlg.yield %n : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Dlg_Tensor>:$inits);
  let results = (outs Variadic<Dlg_Tensor>:$results);
  let regions = (region SizedRegion<1>:$before, SizedRegion<1>:$after);
  let assemblyFormat = [{
    `(` $inits `)` `:` functional-type($inits, $results) $before `do` $after
    attr-dict
  }];
  let hasVerifier = 1;
}

def Dlg_YieldOp : Dlg_ControlOp<"yield", [Pure, Terminator,
                                          ParentOneOf<["IfOp", "WhileOp"]>]> {
  let summary = "the values a region of dlg.if or dlg.while's body hands on";
  let description = [{
    Ends each region of `dlg.if` (its results) and the `do` region of
    `dlg.while` (the next carried tensors). The parent checks the types.
  }];
  let arguments = (ins Variadic<Dlg_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Dlg_ConditionOp : Dlg_ControlOp<"condition", [Pure, Terminator,
                                                  HasParent<"WhileOp">]> {
  let summary = "ends dlg.while's before region: stop or go on";
  let description = [{
    `condition` is a one-element `i1` tensor: when true the `args` go to the
    `do` region, when false they are the loop's results.
  }];
  let arguments = (ins Dlg_MaskTensor:$condition, Variadic<Dlg_Tensor>:$args);
  let assemblyFormat = [{
    `(` $condition `:` type($condition) `)` ($args^ `:` type($args))? attr-dict
  }];
  let hasVerifier = 1;
}

def Dlg_UpdateRowOp : Dlg_ControlOp<"update_row", [Pure,
    AllTypesMatch<["buffer", "result"]>]> {
  let summary = "a buffer with one row (entry along dim 0) replaced, at a run-time index";
  let description = [{
    `result` is `buffer` with its row `index` (a 0-d i64 tensor read at run
    time) replaced by `row`, whose type is `buffer`'s without dim 0. An
    index outside `[0, dim 0)` is clamped into it. The state update of a
    run-time loop's scan output (ONNX Loop in a `dlg.while`): lowered by
    `--dlk-to-linalg` to a `tensor.insert_slice` at that row, which
    bufferization makes an in-place write of the row, so one trip costs the
    row's size rather than the buffer's. Never in a kernel.

    ```mlir
    %b2 = dlg.update_row %b[%i], %r : tensor<10x3xf32>[tensor<i64>], tensor<3xf32>
    ```
  }];
  let arguments = (ins Dlg_Tensor:$buffer, RankedTensorOf<[I64]>:$index, Dlg_Tensor:$row);
  let results = (outs Dlg_Tensor:$result);
  let assemblyFormat = [{
    $buffer `[` $index `]` `,` $row attr-dict `:` type($buffer) `[` type($index) `]` `,`
    type($row)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Selection: a result whose valid size is known only at run time
//===----------------------------------------------------------------------===//

// Ops whose output size depends on their operands' values. They give a
// fixed-size result padded past a run-time count (a second, 0-d i64
// result); the host slices it. Never in a kernel (each lowers to its own
// loops, dlk-to-linalg), like control flow. TVM: opaque.
def Dlg_SelectionFamily : Dlg_Family<"SELECTION">;

def Dlg_NonMaxSuppressionOp : Dlg_InferOp<"non_max_suppression", Dlg_SelectionFamily> {
  let summary = "greedy non-maximum suppression of boxes per batch and class (ONNX NonMaxSuppression)";
  let description = [{
    `boxes` is `[batch, num_boxes, 4]`, `scores` `[batch, num_classes,
    num_boxes]`, both f32. For each batch and class, the boxes whose score is
    above `score_threshold` (all when it is absent) are taken by descending
    score (ties: the lower box index first; NaN scores last); a box is kept
    unless its intersection over union with a box already kept in its class
    is above `iou_threshold`, and at most `max_output_boxes_per_class` are
    kept. Boxes are corners `[y1, x1, y2, x2]` (either corner first) or,
    with `center_point_box`, `[x_center, y_center, width, height]`; a box of
    zero area or a pair that does not overlap never suppresses, as in
    onnxruntime.

    `selected` is `[batch * num_classes * min(max_output_boxes_per_class,
    num_boxes), 3]` i64: its first `count` rows are the kept
    `[batch, class, box]` triples in ONNX's order (by batch, then class, then
    selection order); the rest are -1. `count` (0-d i64) is ONNX's
    `num_selected`. A host that returns `selected` slices it to `count` rows
    (the entry function's result attribute `dlc.count`, see dlc.Module).

    ```mlir
    %sel, %n = dlg.non_max_suppression %boxes, %scores {iou_threshold = 0.5,
        max_output_boxes_per_class = 3 : i64}
        : tensor<1x6x4xf32>, tensor<1x1x6xf32> -> tensor<3x3xi64>, tensor<i64>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$boxes, RankedTensorOf<[F32]>:$scores,
                   DefaultValuedAttr<BoolAttr, "false">:$center_point_box,
                   DefaultValuedAttr<I64Attr, "0">:$max_output_boxes_per_class,
                   DefaultValuedAttr<F64Attr, "0.0">:$iou_threshold,
                   OptionalAttr<F64Attr>:$score_threshold);
  let results = (outs RankedTensorOf<[I64]>:$selected, RankedTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $boxes `,` $scores attr-dict `:` type($boxes) `,` type($scores) `->`
    type($selected) `,` type($count)
  }];
  let hasVerifier = 1;
}

def Dlg_NonZeroOp : Dlg_InferOp<"non_zero", Dlg_SelectionFamily> {
  let summary = "indices of the nonzero elements (ONNX NonZero)";
  let description = [{
    `indices` is `[rank(input), num_elements(input)]` i64: its first `count`
    columns are the indices of the elements that are not zero, in row-major
    order of the elements (column j holds one element's index, one row per
    dim); the rest are -1. A float is nonzero when it compares unequal to
    0.0 (NaN is nonzero, -0.0 is not); a boolean when true. `count` (0-d
    i64) is the number of nonzero elements. A host that returns `indices`
    slices its dim 1 to `count` (the entry function's result attributes
    `dlc.count` and `dlc.count_dim = 1`, see dlc.Module). The input has rank
    1 or more.

    ```mlir
    %idx, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
    ```
  }];
  let arguments = (ins Dlg_Tensor:$input);
  let results = (outs RankedTensorOf<[I64]>:$indices, RankedTensorOf<[I64]>:$count);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($indices) `,` type($count)
  }];
}

#endif // DLG_OPS
