// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlk-to-linalg=control-flow=false

// With control-flow=false (for a pipeline whose later stages cannot take
// host-side control flow; the GPU pipeline now can, test/GPU/control-flow.mlir)
// a runtime branch or loop is refused, naming the op.

func.func @if(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dlk-to-linalg: 'dlg.if' (control flow decided at run time) is not supported by this pipeline (control-flow=false)}}
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    dlg.yield %x : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @while(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{dlk-to-linalg: 'dlg.while' (control flow decided at run time) is not supported by this pipeline (control-flow=false)}}
  %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    dlg.condition(%c : tensor<i1>) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    dlg.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
