func.func @main(%x: tensor<?x784xf32>) -> tensor<?x784xf32> {
  %0 = dlg.relu %x : tensor<?x784xf32>
  return %0 : tensor<?x784xf32>
}
