// --dlg-fold-batch-norm folds an inference batch_norm into the constant
// weights and bias of the conv2d before it; anything else stays.
// RUN: dlc-opt %s --split-input-file --dlg-fold-batch-norm | FileCheck %s

// s = scale / sqrt(var + eps) = [0.5, 2]; W' = W * s; b' = (b - mean) * s + bias.
// CHECK-LABEL: func @with_bias
// CHECK-DAG:   %[[W:.*]] = dlg.constant dense<{{\[}}[{{\[}}[1.000000e+00]]], [{{\[}}[6.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:   %[[B:.*]] = dlg.constant dense<[5.000000e-01, -4.000000e+00]> : tensor<2xf32>
// CHECK:       %[[Y:.*]] = dlg.conv2d %arg0, %[[W]], %[[B]] {strides = array<i64: 2, 2>}
// CHECK-NOT:   dlg.batch_norm
// CHECK:       return %[[Y]]
func.func @with_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = dlg.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %b = dlg.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = dlg.conv2d %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %scale = dlg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = dlg.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = dlg.constant dense<1.0> : tensor<2xf32>
  %var = dlg.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %z = dlg.batch_norm %y, %scale, %beta, %mean, %var {epsilon = 1.0}
      : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Without a bias the conv gains one: b' = -mean * s + bias.
// CHECK-LABEL: func @without_bias
// CHECK-DAG:   %[[B:.*]] = dlg.constant dense<[0.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:       dlg.conv2d %arg0, %{{.*}}, %[[B]] :
// CHECK-NOT:   dlg.batch_norm
func.func @without_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = dlg.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %y = dlg.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %scale = dlg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = dlg.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = dlg.constant dense<1.0> : tensor<2xf32>
  %var = dlg.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %z = dlg.batch_norm %y, %scale, %beta, %mean, %var {epsilon = 1.0}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// The conv's output is also returned: folding would change that result.
// A weight that is an argument cannot be rescaled at compile time.
// CHECK-LABEL: func @stays
// CHECK-COUNT-2: dlg.batch_norm
func.func @stays(%x: tensor<1x1x4x4xf32>, %wa: tensor<2x1x1x1xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = dlg.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %c = dlg.constant dense<1.0> : tensor<2xf32>
  %y = dlg.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = dlg.batch_norm %y, %c, %c, %c, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y2 = dlg.conv2d %x, %wa : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z2 = dlg.batch_norm %y2, %c, %c, %c, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y, %z, %z2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
