// RUN: dlc-opt %s --split-input-file --dlk-to-linalg --verify-diagnostics

// A dynamic result dim no operand has: nothing to size the result by.
func.func @cast_to_dynamic(%x: tensor<4xf32>) -> tensor<?xf16> {
  // expected-error @+1 {{cannot lower: a dynamic result dimension has no matching operand dimension}}
  %0 = dlg.cast %x : tensor<4xf32> -> tensor<?xf16>
  return %0 : tensor<?xf16>
}
