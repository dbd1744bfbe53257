func.func @main(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %0 = dlg.reshape %x : tensor<?x4xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
