// No temporaries: no workspace (test/AOT/abi.test).
func.func @main(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  return %a : tensor<3x4xf32>
}
