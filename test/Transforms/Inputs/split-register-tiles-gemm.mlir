// A BERT-base projection with B an argument (split-register-tiles.mlir).
func.func @gemm(%a: tensor<128x768xf32>, %b: tensor<768x768xf32>) -> tensor<128x768xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x768xf32> -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}
