func.func @gemm(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %0 = dlg.matmul %a, %b : tensor<64x512xf32>, tensor<512x256xf32> -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
