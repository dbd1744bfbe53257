func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = dlg.matmul %x, %w : tensor<64x128xf32>, tensor<128x256xf32> -> tensor<64x256xf32>
  %1 = dlg.add %0, %b : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
  %2 = dlg.relu %1 : tensor<64x256xf32>
  %3 = dlg.softmax %2 {axis = 1 : i64} : tensor<64x256xf32>
  return %3 : tensor<64x256xf32>
}
