func.func @bad(%x: tensor<32x784xf32>, %w: tensor<512x784xf32>) -> tensor<32x512xf32> {
  // Forgot transpose_b: the contracting dims are 784 and 512.
  %0 = dlg.matmul %x, %w : tensor<32x784xf32>, tensor<512x784xf32> -> tensor<32x512xf32>
  return %0 : tensor<32x512xf32>
}
