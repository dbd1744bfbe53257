func.func @bad(%a: tensor<4x64xf32>, %b: tensor<32x8xf32>) -> tensor<4x8xf32> {
  %0 = dlg.matmul %a, %b : tensor<4x64xf32>, tensor<32x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
