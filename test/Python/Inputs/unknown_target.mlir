module attributes {dlc.target = "sse"} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = dlg.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
