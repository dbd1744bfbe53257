// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

func.func @conv2d_dynamic_spatial(%x: tensor<1x8x?x?xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x?x?xf32> {
  // expected-error @+1 {{cannot lower conv2d with dynamic spatial or channel dimensions}}
  %0 = dlg.conv2d %x, %w : (tensor<1x8x?x?xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x?x?xf32>
  return %0 : tensor<1x16x?x?xf32>
}
