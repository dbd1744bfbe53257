// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlk-to-linalg

// A one-element condition of rank 17: tensor.extract would need more
// indices than the lowering's loop bound (DLC_MAX_LOOPS); refused by name.
func.func @if(%c: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dlk-to-linalg: a condition of rank over 16}}
  %r = dlg.if %c : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xi1> -> tensor<4xf32> {
    dlg.yield %x : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while(%x: tensor<4xf32>, %c: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xi1>) -> tensor<4xf32> {
  // expected-error @+1 {{dlk-to-linalg: a condition of rank over 16}}
  %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    dlg.condition(%c : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xi1>) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    dlg.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
