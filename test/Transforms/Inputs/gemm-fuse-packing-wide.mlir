// A feed-forward GEMM with B an argument whose parallel tiles are 16
// panels of 32 floats with AVX-512 (gemm-fuse-packing.mlir).
func.func @gemm(%a: tensor<128x768xf32>, %b: tensor<768x4096xf32>) -> tensor<128x4096xf32> {
  %0 = dlg.matmul %a, %b : tensor<128x768xf32>, tensor<768x4096xf32> -> tensor<128x4096xf32>
  return %0 : tensor<128x4096xf32>
}
