// BERT-base's FFN GEMM (hoist-scratch.mlir): its packed blocks of B and C
// tiles become stack buffers of each parallel tile.
func.func @ffn(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x3072xf32>
  return %0 : tensor<128x3072xf32>
}
