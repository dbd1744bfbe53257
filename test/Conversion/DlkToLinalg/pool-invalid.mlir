// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

func.func @max_pool2d_dynamic_spatial(%x: tensor<1x4x?x8xf32>) -> tensor<1x4x?x4xf32> {
  // expected-error @+1 {{cannot lower pooling over dynamic spatial dimensions}}
  %0 = dlg.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x?x8xf32> -> tensor<1x4x?x4xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// -----

func.func @avg_pool2d_dynamic_spatial(%x: tensor<1x4x8x?xf32>) -> tensor<1x4x4x?xf32> {
  // expected-error @+1 {{cannot lower pooling over dynamic spatial dimensions}}
  %0 = dlg.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x?xf32> -> tensor<1x4x4x?xf32>
  return %0 : tensor<1x4x4x?xf32>
}
