// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

func.func @layer_norm_dynamic(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{normalising over a dynamic dimension is not supported yet}}
  %0 = dlg.layer_norm %x : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @rms_norm_dynamic(%x: tensor<?x8x?xf32>) -> tensor<?x8x?xf32> {
  // expected-error @+1 {{normalising over a dynamic dimension is not supported yet}}
  %0 = dlg.rms_norm %x {axis = 1} : (tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  return %0 : tensor<?x8x?xf32>
}
