// A dynamic batch: compiled by dlc-run for the shapes of the inputs given.
func.func @main(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?xf32> {
  %0 = dlg.add %x, %b : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %1 = dlg.reduce_sum %0 {axes = array<i64: 1>} : tensor<?x4xf32> -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
