// RUN: dlc-opt %s --split-input-file --dlg-horizontal-fuse | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlg-horizontal-fuse=max-elements=16 | FileCheck %s --check-prefix=SMALL
// Numerics of the fused form against NumPy: test/E2E/horizontal-fuse.test.

// Q, K and V projections with their biases (one added on the left): one
// matmul on the weights concatenated along N, the biases concatenated into
// its epilogue, a slice per projection; the old constants are erased.
// CHECK-LABEL: func.func @qkv
// CHECK-NEXT:  %[[W:.*]] = dlg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, -1.000000e+00, -2.000000e+00, 5.000000e-01, 5.000000e-01, 5.000000e-01], [4.000000e+00, 5.000000e+00, 6.000000e+00, -3.000000e+00, -4.000000e+00, 5.000000e-01, 5.000000e-01, 5.000000e-01], [7.000000e+00, 8.000000e+00, 9.000000e+00, -5.000000e+00, -6.000000e+00, 5.000000e-01, 5.000000e-01, 5.000000e-01], [1.000000e+01, 1.100000e+01, 1.200000e+01, -7.000000e+00, -8.000000e+00, 5.000000e-01, 5.000000e-01, 5.000000e-01]]> : tensor<4x8xf32>
// CHECK-NEXT:  %[[B:.*]] = dlg.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01, 6.000000e-01, 0.699999988, 8.000000e-01]> : tensor<8xf32>
// CHECK-NEXT:  %[[M:.*]] = dlg.matmul %arg0, %[[W]] : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %[[Y:.*]] = dlg.add %[[M]], %[[B]] : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %[[Q:.*]] = dlg.slice %[[Y]] {ends = array<i64: 2, 3>, starts = array<i64: 0, 0>} : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK-NEXT:  %[[K:.*]] = dlg.slice %[[Y]] {ends = array<i64: 2, 5>, starts = array<i64: 0, 3>} : tensor<2x8xf32> -> tensor<2x2xf32>
// CHECK-NEXT:  %[[V:.*]] = dlg.slice %[[Y]] {ends = array<i64: 2, 8>, starts = array<i64: 0, 5>} : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK-NEXT:  return %[[Q]], %[[K]], %[[V]]
// The concatenated weight has 32 elements, over the limit of 16.
// SMALL-LABEL: func.func @qkv
// SMALL-COUNT-3: dlg.matmul
// SMALL-NOT: dlg.slice
func.func @qkv(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>) {
  %wq = dlg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %wk = dlg.constant dense<[[-1.0, -2.0], [-3.0, -4.0], [-5.0, -6.0], [-7.0, -8.0]]> : tensor<4x2xf32>
  %wv = dlg.constant dense<0.5> : tensor<4x3xf32>
  %bq = dlg.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %bk = dlg.constant dense<[0.4, 0.5]> : tensor<2xf32>
  %bv = dlg.constant dense<[0.6, 0.7, 0.8]> : tensor<3xf32>
  %q0 = dlg.matmul %x, %wq : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %q = dlg.add %q0, %bq : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %k0 = dlg.matmul %x, %wk : tensor<2x4xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
  %k = dlg.add %bk, %k0 : tensor<2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %v0 = dlg.matmul %x, %wv : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %v = dlg.add %v0, %bv : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %q, %k, %v : tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>
}

// -----

// Batched input, transpose_b weights ([N, K]: concatenated along rows), and
// a bias on only one sibling: the biases stay where they are, on slices.
// CHECK-LABEL: func.func @transposed
// CHECK-DAG:   %[[W:.*]] = dlg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG:   %[[B:.*]] = dlg.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:       %[[M:.*]] = dlg.matmul %arg0, %[[W]] {transpose_b = true} : tensor<5x4x2xf32>, tensor<3x2xf32> -> tensor<5x4x3xf32>
// CHECK-NEXT:  %[[P:.*]] = dlg.slice %[[M]] {ends = array<i64: 5, 4, 2>, starts = array<i64: 0, 0, 0>} : tensor<5x4x3xf32> -> tensor<5x4x2xf32>
// CHECK-NEXT:  %[[R:.*]] = dlg.slice %[[M]] {ends = array<i64: 5, 4, 3>, starts = array<i64: 0, 0, 2>} : tensor<5x4x3xf32> -> tensor<5x4x1xf32>
// CHECK-NEXT:  %[[PB:.*]] = dlg.add %[[P]], %[[B]]
// CHECK-NEXT:  return %[[PB]], %[[R]]
// Six weight elements fit the limit of 16.
// SMALL-LABEL: func.func @transposed
// SMALL-COUNT-1: dlg.matmul
// SMALL: dlg.slice
func.func @transposed(%x: tensor<5x4x2xf32>) -> (tensor<5x4x2xf32>, tensor<5x4x1xf32>) {
  %wp = dlg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wr = dlg.constant dense<[[5.0, 6.0]]> : tensor<1x2xf32>
  %b = dlg.constant dense<1.0> : tensor<2xf32>
  %p0 = dlg.matmul %x, %wp {transpose_b = true} : tensor<5x4x2xf32>, tensor<2x2xf32> -> tensor<5x4x2xf32>
  %r = dlg.matmul %x, %wr {transpose_b = true} : tensor<5x4x2xf32>, tensor<1x2xf32> -> tensor<5x4x1xf32>
  %p = dlg.add %p0, %b : tensor<5x4x2xf32>, tensor<2xf32> -> tensor<5x4x2xf32>
  return %p, %r : tensor<5x4x2xf32>, tensor<5x4x1xf32>
}

// -----

// Left alone: weights that are arguments (a concat would copy them on every
// call), other inputs, transpose_a, mixed transpose_b, a lone matmul.
// CHECK-LABEL: func.func @unfused
// CHECK-COUNT-7: dlg.matmul
// CHECK-NOT: dlg.slice
func.func @unfused(%x: tensor<2x4xf32>, %z: tensor<2x4xf32>, %w: tensor<4x3xf32>, %xt: tensor<4x2xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %c = dlg.constant dense<1.0> : tensor<4x3xf32>
  %ct = dlg.constant dense<2.0> : tensor<3x4xf32>
  %a = dlg.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %b = dlg.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %d = dlg.matmul %x, %c : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %e = dlg.matmul %z, %c : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %f = dlg.matmul %xt, %c {transpose_a = true} : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %g = dlg.matmul %xt, %c {transpose_a = true} : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %h = dlg.matmul %x, %ct {transpose_b = true} : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<2x3xf32>
  return %a, %b, %d, %e, %f, %g, %h : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
