func.func @main(%a: tensor<256x128xf16>, %b: tensor<128x8192xf16>) -> tensor<256x8192xf16> {
  %0 = dlg.matmul %a, %b : tensor<256x128xf16>, tensor<128x8192xf16> -> tensor<256x8192xf16>
  return %0 : tensor<256x8192xf16>
}
