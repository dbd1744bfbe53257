// Two results, one of rank 0 (test/AOT/abi.test).
func.func @main(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<f32>) {
  %0 = dlg.add %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>
  %1 = dlg.reduce_sum %0 {axes = array<i64: 0, 1>} : tensor<3x4xf32> -> tensor<f32>
  return %0, %1 : tensor<3x4xf32>, tensor<f32>
}
