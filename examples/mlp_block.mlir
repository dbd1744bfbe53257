// An MLP block with RMSNorm, written by hand in dlg. The redundant ops
// (x * 1, a transpose pair, a reshape round trip) are what an exporter
// leaves behind; --dlg-simplify removes them.
func.func @mlp_block(%x: tensor<32x784xf32>, %w1: tensor<784x512xf32>, %b1: tensor<512xf32>,
                     %gamma: tensor<512xf32>, %w2: tensor<10x512xf32>) -> tensor<32x10xf32> {
  %0 = dlg.matmul %x, %w1 : tensor<32x784xf32>, tensor<784x512xf32> -> tensor<32x512xf32>
  %1 = dlg.add %0, %b1 : tensor<32x512xf32>, tensor<512xf32> -> tensor<32x512xf32>
  %one = dlg.constant dense<1.0> : tensor<f32>
  %2 = dlg.mul %1, %one : tensor<32x512xf32>, tensor<f32> -> tensor<32x512xf32>
  %3 = dlg.gelu %2 : tensor<32x512xf32>
  %4 = dlg.rms_norm %3 gamma %gamma : (tensor<32x512xf32>, tensor<512xf32>) -> tensor<32x512xf32>
  %5 = dlg.transpose %4 perm = [1, 0] : tensor<32x512xf32> -> tensor<512x32xf32>
  %6 = dlg.transpose %5 perm = [1, 0] : tensor<512x32xf32> -> tensor<32x512xf32>
  %7 = dlg.reshape %6 : tensor<32x512xf32> -> tensor<16384xf32>
  %8 = dlg.reshape %7 : tensor<16384xf32> -> tensor<32x512xf32>
  %9 = dlg.matmul %8, %w2 {transpose_b = true} : tensor<32x512xf32>, tensor<10x512xf32> -> tensor<32x10xf32>
  %10 = dlg.softmax %9 : tensor<32x10xf32>
  return %10 : tensor<32x10xf32>
}
