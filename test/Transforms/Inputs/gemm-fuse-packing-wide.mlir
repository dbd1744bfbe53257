// BERT-base's first feed-forward GEMM with B an argument (gemm-fuse-packing.mlir).
func.func @gemm(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x3072xf32>
  return %0 : tensor<128x3072xf32>
}
