// --dlg-fold-constants evaluates ops whose operands are all constants with
// the C reference kernels (their numerics against NumPy: test/E2E/ops-fold.test).
// RUN: dlc-opt %s --split-input-file --dlg-fold-constants | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlg-fold-constants=resource-bytes=16 | FileCheck %s --check-prefix=RES
// RUN: dlc-opt %s --split-input-file --dlg-fold-constants=max-elements=4 | FileCheck %s --check-prefix=SMALL

// A chain folds in one sweep; the constants it consumed are erased and the
// op reading an argument stays.
// CHECK-LABEL: func @chain
// CHECK-NEXT:  %[[C:.*]] = dlg.constant dense<{{\[}}[1.100000e+01, 1.400000e+01, 2.200000e+01], [2.500000e+01, 3.300000e+01, 3.600000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:  %[[Y:.*]] = dlg.mul %arg0, %[[C]]
// CHECK-NEXT:  return %[[Y]]
// RES-LABEL:   func @chain
// RES-NEXT:    dlg.constant dense_resource<[[BLOB:dlc_folded[_0-9]*]]> : tensor<2x3xf32>
// RES:         [[BLOB]]: "0x04000000000030410000604100

// SMALL-LABEL: func @chain
// SMALL:       dlg.add
// SMALL:       dlg.transpose
func.func @chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = dlg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = dlg.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = dlg.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %t = dlg.transpose %c perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = dlg.reshape %t : tensor<3x2xf32> -> tensor<2x3xf32>
  %y = dlg.mul %x, %r : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Equal elements give a splat; f16 results are rounded to f16.
// CHECK-LABEL: func @splat
// CHECK-NEXT:  %[[C:.*]] = dlg.constant dense<3.000000e+00> : tensor<4x4xf32>
// CHECK-NEXT:  %[[H:.*]] = dlg.constant dense<[1.000000e+00, 1.000980e+00]> : tensor<2xf16>
// CHECK-NEXT:  return %[[C]], %[[H]]
func.func @splat() -> (tensor<4x4xf32>, tensor<2xf16>) {
  %a = dlg.constant dense<1.0> : tensor<4x4xf32>
  %b = dlg.constant dense<2.0> : tensor<4xf32>
  %c = dlg.add %a, %b : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>
  %f = dlg.constant dense<[1.0, 1.0009]> : tensor<2xf32>
  %h = dlg.cast %f : tensor<2xf32> -> tensor<2xf16>
  return %c, %h : tensor<4x4xf32>, tensor<2xf16>
}

// -----

// Integer division truncates toward zero; by zero it is left to run time,
// as are float -> int casts out of range and gathers out of bounds.
// CHECK-LABEL: func @undefined_stays
// CHECK-DAG:   dlg.constant dense<[3, -3]> : tensor<2xi32>
// CHECK-DAG:   dlg.div %{{.*}}, %{{.*}} : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
// CHECK-DAG:   dlg.cast %{{.*}} : tensor<2xf32> -> tensor<2xi32>
// CHECK-DAG:   dlg.gather
func.func @undefined_stays() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<1xf32>) {
  %a = dlg.constant dense<[7, -7]> : tensor<2xi32>
  %two = dlg.constant dense<2> : tensor<2xi32>
  %zero = dlg.constant dense<[1, 0]> : tensor<2xi32>
  %q = dlg.div %a, %two : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %z = dlg.div %a, %zero : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %big = dlg.constant dense<[1.0, 1.0e10]> : tensor<2xf32>
  %i = dlg.cast %big : tensor<2xf32> -> tensor<2xi32>
  %ids = dlg.constant dense<[2]> : tensor<1xi64>
  %g = dlg.gather %big[%ids] : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32>
  return %q, %z, %i, %g : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<1xf32>
}

// -----

// Masks, where, reductions, matmul with a transposed operand, slices and
// pads of constants (e.g. an importer's shape arithmetic) all fold.
// CHECK-LABEL: func @mixed
// CHECK-DAG:   dlg.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG:   dlg.constant dense<[6.000000e+00, 1.500000e+01]> : tensor<2xf32>
// CHECK-DAG:   dlg.constant dense<{{\[}}[1.400000e+01, 3.200000e+01], [3.200000e+01, 7.700000e+01]]> : tensor<2x2xf32>
// CHECK-DAG:   dlg.constant dense<[0.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NOT:   dlg.where
// CHECK-NOT:   dlg.matmul
func.func @mixed() -> (tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %m = dlg.constant dense<[true, false, true]> : tensor<3xi1>
  %p = dlg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %n = dlg.neg %p : tensor<3xf32>
  %w = dlg.where %m, %p, %n : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %a = dlg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = dlg.reduce_sum %a {axes = array<i64: -1>} : tensor<2x3xf32> -> tensor<2xf32>
  %mm = dlg.matmul %a, %a {transpose_b = true} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  %sl = dlg.slice %p {starts = array<i64: 1>, ends = array<i64: 3>, steps = array<i64: 1>} : tensor<3xf32> -> tensor<2xf32>
  %pd = dlg.pad %sl {pads = array<i64: 1, 1>} : tensor<2xf32> -> tensor<4xf32>
  return %w, %s, %mm, %pd : tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<4xf32>
}
