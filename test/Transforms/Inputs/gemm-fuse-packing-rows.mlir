// A prime M (197 rows, ViT's tokens): with the AVX2 model two Mc blocks of
// 102 and 95 rows, each walking the panels in a loop of its own
// (gemm-fuse-packing.mlir, ROWS).
func.func @rows197(%a: tensor<197x768xf32>, %b: tensor<768x768xf32>) -> tensor<197x768xf32> {
  %0 = dlg.matmul %a, %b : tensor<197x768xf32>, tensor<768x768xf32> -> tensor<197x768xf32>
  return %0 : tensor<197x768xf32>
}
