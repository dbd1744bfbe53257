// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

func.func @reshape_dynamic(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{reshape with dynamic dimensions is not supported yet}}
  %0 = dlg.reshape %x : tensor<?x6xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @concat_dynamic(%x: tensor<?x3xf32>, %y: tensor<?x5xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{concat with dynamic dimensions is not supported yet}}
  %0 = dlg.concat %x, %y {axis = 1} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @slice_dynamic(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{slice of a dynamic dimension is not supported yet}}
  %0 = dlg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 9223372036854775807, 4>} : tensor<?x8xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @gather_dynamic_axis(%e: tensor<?x16xf32>, %ids: tensor<4xi64>) -> tensor<4x16xf32> {
  // expected-error @+1 {{gather along a dynamic dimension is not supported yet}}
  %0 = dlg.gather %e[%ids] : (tensor<?x16xf32>, tensor<4xi64>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

