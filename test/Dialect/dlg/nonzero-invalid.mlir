// Every verifier error of dlg.non_zero: its shape rule
// (dialects/shape/nonzero.c), the declared result types against it and
// the ODS type constraints. (The rule's overflow checks serve the C shape
// API: in IR, the SizedTensors trait refuses such tensors first.)
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @f(%x: tensor<f32>) {
  // expected-error @+1 {{'dlg.non_zero' op the input must have rank 1 or more (a 0-d input has no index to give), got rank 0}}
  %i, %n = dlg.non_zero %x : tensor<f32> -> tensor<0x1xi64>, tensor<i64>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dlg.non_zero' op declared result type 'tensor<6x2xi64>', 'tensor<i64>' does not match the inferred 'tensor<2x6xi64>', 'tensor<i64>'}}
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<6x2xi64>, tensor<i64>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'dlg.non_zero' op result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %i, %n = dlg.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<2x3xi16>) {
  // expected-error @+1 {{'dlg.non_zero' op operand #0 must be ranked tensor of}}
  %i, %n = dlg.non_zero %x : tensor<2x3xi16> -> tensor<2x6xi64>, tensor<i64>
  return
}
