// An entry whose argument holds 2^63 - 1 floats and no dlg op to verify it.
func.func @main(%x: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  return %x : tensor<9223372036854775807xf32>
}
