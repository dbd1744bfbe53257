// Three functions with constants of one type: MLIR 22's bufferization
// names and orders their globals differently from run to run.

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
