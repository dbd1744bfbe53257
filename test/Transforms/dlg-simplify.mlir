// RUN: dlc-opt %s --split-input-file --dlg-simplify | FileCheck %s

// CHECK-LABEL: func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %z = dlg.constant dense<0.0> : tensor<16xf32>
  %0 = dlg.add %x, %z : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %1 = dlg.add %z, %x : tensor<16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A broadcasting zero that grows the shape must stay.
// CHECK-LABEL: func @add_zero_broadcast
// CHECK: dlg.add
func.func @add_zero_broadcast(%x: tensor<16xf32>) -> tensor<4x16xf32> {
  %z = dlg.constant dense<0.0> : tensor<4x16xf32>
  %0 = dlg.add %x, %z : tensor<16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @add_nonzero
// CHECK: dlg.add
func.func @add_nonzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = dlg.constant dense<[0.0, 0.0, 1.0, 0.0]> : tensor<4xf32>
  %0 = dlg.add %x, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @sub_zero(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = dlg.constant dense<0> : tensor<4xi32>
  %0 = dlg.sub %x, %z : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 0 - x is a negation, not x.
// CHECK-LABEL: func @zero_sub
// CHECK: dlg.sub
func.func @zero_sub(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = dlg.constant dense<0.0> : tensor<4xf32>
  %0 = dlg.sub %z, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<2x3xf16>) -> (tensor<2x3xf16>, tensor<2x3xf16>) {
  %one = dlg.constant dense<1.0> : tensor<f16>
  %0 = dlg.mul %x, %one : tensor<2x3xf16>, tensor<f16> -> tensor<2x3xf16>
  %1 = dlg.mul %one, %x : tensor<f16>, tensor<2x3xf16> -> tensor<2x3xf16>
  return %0, %1 : tensor<2x3xf16>, tensor<2x3xf16>
}

// -----

// x * 1 where the 1 broadcasts x to a larger shape must not fold.
// CHECK-LABEL: func @mul_one_broadcast
// CHECK: dlg.mul
func.func @mul_one_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = dlg.constant dense<1.0> : tensor<2x3xf32>
  %0 = dlg.mul %x, %one : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @mul_two
// CHECK: dlg.mul
func.func @mul_two(%x: tensor<3xf32>) -> tensor<3xf32> {
  %two = dlg.constant dense<2.0> : tensor<3xf32>
  %0 = dlg.mul %x, %two : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @div_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = dlg.constant dense<1.0> : tensor<3xf32>
  %0 = dlg.div %x, %one : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// 1 / x is a reciprocal, not x.
// CHECK-LABEL: func @one_div
// CHECK: dlg.div
func.func @one_div(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = dlg.constant dense<1.0> : tensor<3xf32>
  %0 = dlg.div %one, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[N:.*]] = dlg.neg %[[X]]
// CHECK-NEXT: return %[[X]], %[[N]]
func.func @neg_neg(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = dlg.neg %x : tensor<3xf32>
  %1 = dlg.neg %0 : tensor<3xf32>
  %2 = dlg.neg %1 : tensor<3xf32>
  return %1, %2 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @abs_neg
// CHECK: dlg.neg
// CHECK: dlg.abs
func.func @abs_neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.neg %x : tensor<3xf32>
  %1 = dlg.abs %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @relu_relu
// CHECK-NEXT: %[[R:.*]] = dlg.relu
// CHECK-NEXT: return %[[R]]
func.func @relu_relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.relu %x : tensor<3xf32>
  %1 = dlg.relu %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// relu(clamp(x, 0, 6)) is clamp(x, 0, 6).
// CHECK-LABEL: func @relu_clamp
// CHECK-NEXT: %[[C:.*]] = dlg.clamp
// CHECK-NEXT: return %[[C]]
func.func @relu_clamp(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.clamp %x {min = 0.0, max = 6.0} : tensor<3xf32>
  %1 = dlg.relu %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// A clamp that lets negatives through keeps its relu.
// CHECK-LABEL: func @relu_clamp_negative
// CHECK: dlg.clamp
// CHECK: dlg.relu
func.func @relu_clamp_negative(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.clamp %x {min = -1.0, max = 6.0} : tensor<3xf32>
  %1 = dlg.relu %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// clamp(relu(x), 0, 6) is clamp(x, 0, 6).
// CHECK-LABEL: func @clamp_relu
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[C:.*]] = dlg.clamp %[[X]]
// CHECK-NEXT: return %[[C]]
func.func @clamp_relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.relu %x : tensor<3xf32>
  %1 = dlg.clamp %0 {min = 0.0, max = 6.0} : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @clamp_relu_negative_min
// CHECK: dlg.relu
// CHECK: dlg.clamp
func.func @clamp_relu_negative_min(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.relu %x : tensor<3xf32>
  %1 = dlg.clamp %0 {min = -2.0, max = 6.0} : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = dlg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = dlg.transpose %0 perm = [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = dlg.transpose %[[X]] perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = dlg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = dlg.transpose %0 perm = [2, 1, 0] : tensor<4x2x3xf32> -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// CHECK-LABEL: func @transpose_identity
// CHECK-NEXT: return %arg0
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.transpose %x perm = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @transpose_single
// CHECK: dlg.transpose
func.func @transpose_single(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = dlg.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = dlg.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = dlg.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = dlg.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func @reshape_roundtrip
// CHECK-NEXT: return %arg0
func.func @reshape_roundtrip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = dlg.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @reshape_real
// CHECK: dlg.reshape
func.func @reshape_real(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = dlg.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @cast_same
// CHECK-NEXT: return %arg0
func.func @cast_same(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.cast %x : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Widening then narrowing back is exact.
// CHECK-LABEL: func @cast_roundtrip_exact
// CHECK-NEXT: return %arg0
func.func @cast_roundtrip_exact(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = dlg.cast %x : tensor<3xf16> -> tensor<3xf32>
  %1 = dlg.cast %0 : tensor<3xf32> -> tensor<3xf16>
  return %1 : tensor<3xf16>
}

// -----

// i8 -> i32 -> f32 is i8 -> f32.
// CHECK-LABEL: func @cast_chain_exact
// CHECK-NEXT: %[[C:.*]] = dlg.cast %arg0 : tensor<3xi8> -> tensor<3xf32>
// CHECK-NEXT: return %[[C]]
func.func @cast_chain_exact(%x: tensor<3xi8>) -> tensor<3xf32> {
  %0 = dlg.cast %x : tensor<3xi8> -> tensor<3xi32>
  %1 = dlg.cast %0 : tensor<3xi32> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Narrowing first loses information: f32 -> f16 -> f32 rounds.
// CHECK-LABEL: func @cast_roundtrip_lossy
// CHECK: dlg.cast
// CHECK: dlg.cast
func.func @cast_roundtrip_lossy(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = dlg.cast %x : tensor<3xf32> -> tensor<3xf16>
  %1 = dlg.cast %0 : tensor<3xf16> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// i32 does not fit f32 exactly (24-bit mantissa).
// CHECK-LABEL: func @cast_i32_f32_i32
// CHECK: dlg.cast
// CHECK: dlg.cast
func.func @cast_i32_f32_i32(%x: tensor<3xi32>) -> tensor<3xi32> {
  %0 = dlg.cast %x : tensor<3xi32> -> tensor<3xf32>
  %1 = dlg.cast %0 : tensor<3xf32> -> tensor<3xi32>
  return %1 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func @concat_one
// CHECK-NEXT: return %arg0
func.func @concat_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.concat %x {axis = 0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @concat_two
// CHECK: dlg.concat
func.func @concat_two(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = dlg.concat %x, %x {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func @slice_whole
// CHECK-NEXT: return %arg0, %arg0
func.func @slice_whole(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = dlg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = dlg.slice %x {starts = array<i64: -5, 0>, ends = array<i64: 9223372036854775807, 100>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @slice_part
// CHECK: dlg.slice
// CHECK: dlg.slice
func.func @slice_part(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %0 = dlg.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x2xf32>
  // Reversal keeps the shape but not the values.
  %1 = dlg.slice %x {starts = array<i64: -1, 0>, ends = array<i64: -9223372036854775808, 3>, steps = array<i64: -1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x3xf32>
}

// -----

// GELU in erf, as ONNX exporters write it, in its three groupings.
// CHECK-LABEL: func @gelu_from_erf
// CHECK-NEXT:    %[[A:.*]] = dlg.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT:    %[[B:.*]] = dlg.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT:    %[[C:.*]] = dlg.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]]
func.func @gelu_from_erf(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %sqrt2 = dlg.constant dense<1.41421354> : tensor<f32>
  %rsqrt2 = dlg.constant dense<0.707106769> : tensor<f32>
  %one = dlg.constant dense<1.0> : tensor<f32>
  %half = dlg.constant dense<0.5> : tensor<f32>
  %d = dlg.div %x, %sqrt2 : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %e = dlg.erf %d : tensor<4x8xf32>
  %t = dlg.add %e, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %m = dlg.mul %x, %t : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %a = dlg.mul %m, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %d2 = dlg.mul %rsqrt2, %x : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %e2 = dlg.erf %d2 : tensor<4x8xf32>
  %t2 = dlg.add %one, %e2 : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %h2 = dlg.mul %x, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %b = dlg.mul %h2, %t2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %h3 = dlg.mul %t, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %c = dlg.mul %x, %h3 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Not GELU: erf of x / 2, or 0.5 times another tensor's term.
// CHECK-LABEL: func @not_gelu
// CHECK-NOT:     dlg.gelu
func.func @not_gelu(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %two = dlg.constant dense<2.0> : tensor<f32>
  %one = dlg.constant dense<1.0> : tensor<f32>
  %half = dlg.constant dense<0.5> : tensor<f32>
  %d = dlg.div %x, %two : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = dlg.erf %d : tensor<8xf32>
  %t = dlg.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = dlg.mul %x, %t : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %a = dlg.mul %m, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %s = dlg.constant dense<1.41421354> : tensor<f32>
  %d2 = dlg.div %x, %s : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e2 = dlg.erf %d2 : tensor<8xf32>
  %t2 = dlg.add %e2, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m2 = dlg.mul %y, %t2 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %b = dlg.mul %m2, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
