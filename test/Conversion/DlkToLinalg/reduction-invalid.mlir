// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

func.func @mean_over_dynamic(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduce_mean over a dynamic dimension is not supported yet}}
  %0 = dlg.reduce_mean %x {axes = array<i64: 1>} : tensor<4x?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @keepdims_dynamic(%x: tensor<4x?xf32>) -> tensor<1x?xf32> {
  // expected-error @+1 {{keepdims with a dynamic dimension is not supported yet}}
  %0 = dlg.reduce_sum %x {axes = array<i64: 0>, keepdims = true} : tensor<4x?xf32> -> tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}
