// Round trip of every dlg op: custom form, then generic form re-parsed.
// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @constant
func.func @constant() -> (tensor<2x3xf32>, tensor<4xi64>, tensor<2xi1>) {
  // CHECK: dlg.constant dense<1.500000e+00> : tensor<2x3xf32>
  %0 = dlg.constant dense<1.5> : tensor<2x3xf32>
  // CHECK: dlg.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %1 = dlg.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  // CHECK: dlg.constant dense<[true, false]> : tensor<2xi1>
  %2 = dlg.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xi64>, tensor<2xi1>
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<4x16xf32>, %b: tensor<16xf32>, %c: tensor<4x1xf32>,
                  %i: tensor<8xi32>) -> tensor<4x16xf32> {
  // CHECK: dlg.add %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %0 = dlg.add %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: dlg.sub %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  %1 = dlg.sub %0, %c : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  // CHECK: dlg.mul {{.*}} : tensor<4x1xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %2 = dlg.mul %c, %b : tensor<4x1xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: dlg.div
  %3 = dlg.div %1, %2 : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  // CHECK: dlg.max
  %4 = dlg.max %3, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: dlg.min
  %5 = dlg.min %4, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: dlg.pow
  %6 = dlg.pow %5, %c : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  // CHECK: dlg.add {{.*}} : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %7 = dlg.add %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: dlg.fmod {{.*}} : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  %8 = dlg.fmod %5, %c : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  return %6 : tensor<4x16xf32>
}

// CHECK-LABEL: func @where
func.func @where(%m: tensor<4x1xi1>, %a: tensor<16xf32>, %b: tensor<f32>) -> tensor<4x16xf32> {
  // CHECK: dlg.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1xi1>, tensor<16xf32>, tensor<f32> -> tensor<4x16xf32>
  %0 = dlg.where %m, %a, %b : tensor<4x1xi1>, tensor<16xf32>, tensor<f32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func @compare
func.func @compare(%a: tensor<4x16xf32>, %b: tensor<16xf32>, %i: tensor<3x1xi64>, %j: tensor<5xi64>)
    -> (tensor<4x16xi1>, tensor<3x5xi1>) {
  // CHECK: dlg.equal %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xi1>
  %0 = dlg.equal %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xi1>
  // CHECK: dlg.not_equal
  %1 = dlg.not_equal %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xi1>
  // CHECK: dlg.less
  %2 = dlg.less %a, %a : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xi1>
  // CHECK: dlg.less_equal
  %3 = dlg.less_equal %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xi1>
  // CHECK: dlg.greater %{{.*}}, %{{.*}} : tensor<3x1xi64>, tensor<5xi64> -> tensor<3x5xi1>
  %4 = dlg.greater %i, %j : tensor<3x1xi64>, tensor<5xi64> -> tensor<3x5xi1>
  // CHECK: dlg.greater_equal
  %5 = dlg.greater_equal %i, %j : tensor<3x1xi64>, tensor<5xi64> -> tensor<3x5xi1>
  return %0, %5 : tensor<4x16xi1>, tensor<3x5xi1>
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x?xf32>, %h: tensor<8xf16>, %i: tensor<8xi8>) -> tensor<2x?xf32> {
  // CHECK: dlg.neg %{{.*}} : tensor<2x?xf32>
  %0 = dlg.neg %x : tensor<2x?xf32>
  // CHECK: dlg.abs
  %1 = dlg.abs %0 : tensor<2x?xf32>
  // CHECK: dlg.exp
  %2 = dlg.exp %1 : tensor<2x?xf32>
  // CHECK: dlg.log
  %3 = dlg.log %2 : tensor<2x?xf32>
  // CHECK: dlg.sqrt
  %4 = dlg.sqrt %3 : tensor<2x?xf32>
  // CHECK: dlg.rsqrt
  %5 = dlg.rsqrt %4 : tensor<2x?xf32>
  // CHECK: dlg.tanh
  %6 = dlg.tanh %5 : tensor<2x?xf32>
  // CHECK: dlg.erf
  %7 = dlg.erf %6 : tensor<2x?xf32>
  // CHECK: dlg.sigmoid
  %8 = dlg.sigmoid %7 : tensor<2x?xf32>
  // CHECK: dlg.relu
  %9 = dlg.relu %8 : tensor<2x?xf32>
  // CHECK: dlg.silu
  %10 = dlg.silu %9 : tensor<2x?xf32>
  // CHECK: dlg.gelu %{{.*}} : tensor<2x?xf32>
  %11 = dlg.gelu %10 : tensor<2x?xf32>
  // CHECK: dlg.gelu %{{.*}} {approximate = "tanh"} : tensor<2x?xf32>
  %12 = dlg.gelu %11 {approximate = "tanh"} : tensor<2x?xf32>
  // CHECK: dlg.clamp %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x?xf32>
  %13 = dlg.clamp %12 {min = 0.0, max = 6.0} : tensor<2x?xf32>
  // CHECK: dlg.clamp %{{.*}} {min = -1.000000e+00 : f64} : tensor<2x?xf32>
  %14 = dlg.clamp %13 {min = -1.0} : tensor<2x?xf32>
  // CHECK: dlg.exp %{{.*}} : tensor<8xf16>
  %15 = dlg.exp %h : tensor<8xf16>
  // CHECK: dlg.relu %{{.*}} : tensor<8xi8>
  %16 = dlg.relu %i : tensor<8xi8>
  // CHECK: dlg.cast %{{.*}} : tensor<8xf16> -> tensor<8xf32>
  %17 = dlg.cast %15 : tensor<8xf16> -> tensor<8xf32>
  // CHECK: dlg.cast %{{.*}} : tensor<8xi8> -> tensor<8xi1>
  %18 = dlg.cast %16 : tensor<8xi8> -> tensor<8xi1>
  return %14 : tensor<2x?xf32>
}

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %c: tensor<5x8xbf16>,
                  %d: tensor<4x5xbf16>) -> tensor<2x3x4x5xf32> {
  // CHECK: dlg.matmul %{{.*}}, %{{.*}} : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  %0 = dlg.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  // CHECK: dlg.matmul %{{.*}}, %{{.*}} {transpose_a = true, transpose_b = true} : tensor<5x8xbf16>, tensor<4x5xbf16> -> tensor<8x4xbf16>
  %1 = dlg.matmul %c, %d {transpose_a = true, transpose_b = true} : tensor<5x8xbf16>, tensor<4x5xbf16> -> tensor<8x4xbf16>
  return %0 : tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func @conv_pool
func.func @conv_pool(%x: tensor<1x8x32x32xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>)
    -> tensor<1x16x8x8xf32> {
  // CHECK: dlg.conv2d %{{.*}}, %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %0 = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2}
      : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  // CHECK: dlg.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x28x28xf32>
  %1 = dlg.conv2d %x, %w {dilations = array<i64: 2, 2>, groups = 2}
      : (tensor<1x8x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x28x28xf32>
  // CHECK: dlg.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x16x16x16xf32> -> tensor<1x16x8x8xf32>
  %2 = dlg.max_pool2d %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x16x16x16xf32> -> tensor<1x16x8x8xf32>
  // CHECK: dlg.avg_pool2d %{{.*}} {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x16x16x16xf32> -> tensor<1x16x9x9xf32>
  %3 = dlg.avg_pool2d %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<1x16x16x16xf32> -> tensor<1x16x9x9xf32>
  return %2 : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<4x16x16xf32>, %g: tensor<16x16xf32>, %c: tensor<16xf32>,
                 %n: tensor<2x16x5x5xf32>) -> tensor<4x16x16xf32> {
  // CHECK: dlg.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f64} : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  %0 = dlg.batch_norm %n, %c, %c, %c, %c {epsilon = 1.0e-3}
      : (tensor<2x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x5x5xf32>
  // CHECK: dlg.layer_norm %{{.*}} gamma %{{.*}} beta %{{.*}} {axis = 1 : i64} : (tensor<4x16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %1 = dlg.layer_norm %x gamma %g beta %g {axis = 1}
      : (tensor<4x16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  // CHECK: dlg.layer_norm %{{.*}} beta %{{.*}} : (tensor<4x16x16xf32>, tensor<16xf32>) -> tensor<4x16x16xf32>
  %2 = dlg.layer_norm %1 beta %c : (tensor<4x16x16xf32>, tensor<16xf32>) -> tensor<4x16x16xf32>
  // CHECK: dlg.layer_norm %{{.*}} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %3 = dlg.layer_norm %2 : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  // CHECK: dlg.rms_norm %{{.*}} gamma %{{.*}} {axis = -2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<4x16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  %4 = dlg.rms_norm %3 gamma %g {axis = -2, epsilon = 1.0e-6}
      : (tensor<4x16x16xf32>, tensor<16x16xf32>) -> tensor<4x16x16xf32>
  // CHECK: dlg.softmax %{{.*}} : tensor<4x16x16xf32>
  %5 = dlg.softmax %4 : tensor<4x16x16xf32>
  // CHECK: dlg.log_softmax %{{.*}} {axis = 0 : i64} : tensor<4x16x16xf32>
  %6 = dlg.log_softmax %5 {axis = 0} : tensor<4x16x16xf32>
  return %6 : tensor<4x16x16xf32>
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<4x?x8xf32>) -> (tensor<4x1x8xf32>, tensor<f32>, tensor<?xf32>, tensor<4xf32>) {
  // CHECK: dlg.reduce_sum %{{.*}} {axes = array<i64: -2>, keepdims = true} : tensor<4x?x8xf32> -> tensor<4x1x8xf32>
  %0 = dlg.reduce_sum %x {axes = array<i64: -2>, keepdims = true} : tensor<4x?x8xf32> -> tensor<4x1x8xf32>
  // CHECK: dlg.reduce_mean %{{.*}} : tensor<4x?x8xf32> -> tensor<f32>
  %1 = dlg.reduce_mean %x : tensor<4x?x8xf32> -> tensor<f32>
  // CHECK: dlg.reduce_max %{{.*}} {axes = array<i64: 0, 2>} : tensor<4x?x8xf32> -> tensor<?xf32>
  %2 = dlg.reduce_max %x {axes = array<i64: 0, 2>} : tensor<4x?x8xf32> -> tensor<?xf32>
  // CHECK: dlg.reduce_min %{{.*}} {axes = array<i64: 1, 2>} : tensor<4x?x8xf32> -> tensor<4xf32>
  %3 = dlg.reduce_min %x {axes = array<i64: 1, 2>} : tensor<4x?x8xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4x1x8xf32>, tensor<f32>, tensor<?xf32>, tensor<4xf32>
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %e: tensor<100x16xf32>,
                         %ids: tensor<4x7xi64>) -> tensor<4x7x16xf32> {
  // CHECK: dlg.transpose %{{.*}} perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %0 = dlg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: dlg.reshape %{{.*}} : tensor<4x2x3xf32> -> tensor<8x3xf32>
  %1 = dlg.reshape %0 : tensor<4x2x3xf32> -> tensor<8x3xf32>
  // CHECK: dlg.concat %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %2 = dlg.concat %x, %y {axis = -2} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  // CHECK: dlg.slice %{{.*}} {ends = array<i64: 2, 9223372036854775807, -1>, starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 3, 1>} : tensor<2x8x4xf32> -> tensor<1x3x3xf32>
  %3 = dlg.slice %2 {starts = array<i64: 1, 0, 0>, ends = array<i64: 2, 9223372036854775807, -1>, steps = array<i64: 1, 3, 1>} : tensor<2x8x4xf32> -> tensor<1x3x3xf32>
  // CHECK: dlg.slice %{{.*}} {ends = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>, starts = array<i64: -1, -1, -1>, steps = array<i64: -1, -1, -1>} : tensor<2x8x4xf32> -> tensor<2x8x4xf32>
  %4 = dlg.slice %2 {starts = array<i64: -1, -1, -1>, ends = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>, steps = array<i64: -1, -1, -1>} : tensor<2x8x4xf32> -> tensor<2x8x4xf32>
  // CHECK: dlg.gather %{{.*}}[%{{.*}}] : (tensor<100x16xf32>, tensor<4x7xi64>) -> tensor<4x7x16xf32>
  %5 = dlg.gather %e[%ids] : (tensor<100x16xf32>, tensor<4x7xi64>) -> tensor<4x7x16xf32>
  // CHECK: dlg.pad %{{.*}} {pads = array<i64: 0, 1, 2, 0, 0, 1>, value = -1.000000e+00 : f64} : tensor<2x3x4xf32> -> tensor<2x4x7xf32>
  %6 = dlg.pad %x {pads = array<i64: 0, 1, 2, 0, 0, 1>, value = -1.0} : tensor<2x3x4xf32> -> tensor<2x4x7xf32>
  return %5 : tensor<4x7x16xf32>
}

// Trigonometric and hyperbolic functions.
// CHECK-LABEL: func.func @trig
// CHECK: dlg.sin
// CHECK: dlg.cos
// CHECK: dlg.tan
// CHECK: dlg.asin
// CHECK: dlg.acos
// CHECK: dlg.atan
// CHECK: dlg.sinh
// CHECK: dlg.cosh
// CHECK: dlg.asinh
// CHECK: dlg.acosh
// CHECK: dlg.atanh %{{.*}} : tensor<2x3xf32>
func.func @trig(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = dlg.sin %x : tensor<2x3xf32>
  %1 = dlg.cos %0 : tensor<2x3xf32>
  %2 = dlg.tan %1 : tensor<2x3xf32>
  %3 = dlg.asin %2 : tensor<2x3xf32>
  %4 = dlg.acos %3 : tensor<2x3xf32>
  %5 = dlg.atan %4 : tensor<2x3xf32>
  %6 = dlg.sinh %5 : tensor<2x3xf32>
  %7 = dlg.cosh %6 : tensor<2x3xf32>
  %8 = dlg.asinh %7 : tensor<2x3xf32>
  %9 = dlg.acosh %8 : tensor<2x3xf32>
  %10 = dlg.atanh %9 : tensor<2x3xf32>
  return %10 : tensor<2x3xf32>
}

// float64 tensors (ONNX DOUBLE) are dlg tensors too.
// CHECK-LABEL: func.func @f64
// CHECK: dlg.exp %{{.*}} : tensor<2x3xf64>
// CHECK: dlg.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<2x3xf64> -> tensor<2xf64>
func.func @f64(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %0 = dlg.exp %x : tensor<2x3xf64>
  %1 = dlg.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf64> -> tensor<2xf64>
  return %1 : tensor<2xf64>
}

// The generic form is the public contract: every attribute is a property.
// GENERIC: "dlg.matmul"(%{{.*}}, %{{.*}}) <{transpose_a = false, transpose_b = false}>
// GENERIC: "dlg.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}>
// GENERIC: "dlg.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>}>
// GENERIC: "dlg.layer_norm"(%{{.*}}, %{{.*}}) <{axis = -1 : i64, epsilon = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 1>}>
